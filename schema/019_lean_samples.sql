-- SPDX-License-Identifier: GPL-2.0-only
-- 019_lean_samples: the sample row at a third of its bytes (issue 35).
--
-- Measured on a default run (bench/RESULTS.md, 2026-12-07): the samples row was 139.6 of the
-- 240 bytes a tick stored, 58 of them from three things that repeat:
--   * the request verdict (six columns, 27 bytes: req_zones_lo packs a byte per order and takes
--     eight) is one of a handful per run: now a row of requests, named by req_id;
--   * 21 churn counts are zero in nearly every tick (failures, kills, the probe's workers) and still
--     cost a byte each: now a churn_rare row, written only for a tick where one is not zero (or, in a
--     row converted here, NULL: a count its fpusoakd did not keep yet, which readers tell from zero);
--   * the 18 meminfo fields and 4 hot vmstat counters are 4-5 bytes each as absolute values, but
--     move little within a minute: the row holds the value less the minute's key (sample_key, the
--     values of the first tick of the run's minute, written once a minute), 2-3 bytes.
-- samples_wide is the old row again, the one reader of all three (the report's raw reads and the
-- v_* views go through it).  Its decode is row-local: value = stored + coalesce(key, 0), and a key
-- field is NULL where the minute's first tick lacked it (the ticks after it then store the value).
-- The public views keep their columns and rows; their text changes from samples to samples_wide.

CREATE TABLE requests (
	run_id          INTEGER NOT NULL,
	req_id          INTEGER NOT NULL,   -- 1, 2, ... within the run, in order of first use
	req_norders     INTEGER NOT NULL,
	req_atomic_mask INTEGER NOT NULL,
	req_nowait_mask INTEGER NOT NULL,
	req_kernel_mask INTEGER NOT NULL,
	req_zones_lo    INTEGER NOT NULL,
	req_zones_hi    INTEGER NOT NULL,
	PRIMARY KEY (run_id, req_id),
	UNIQUE (run_id, req_norders, req_atomic_mask, req_nowait_mask, req_kernel_mask, req_zones_lo, req_zones_hi)
) WITHOUT ROWID;

INSERT INTO requests
SELECT run_id, row_number() OVER (PARTITION BY run_id ORDER BY first_ms), req_norders, req_atomic_mask, req_nowait_mask, req_kernel_mask, req_zones_lo, req_zones_hi
  FROM (SELECT run_id, min(ts_ms) AS first_ms, req_norders, req_atomic_mask, req_nowait_mask, req_kernel_mask, req_zones_lo, req_zones_hi
          FROM samples WHERE req_norders IS NOT NULL
         GROUP BY run_id, req_norders, req_atomic_mask, req_nowait_mask, req_kernel_mask, req_zones_lo, req_zones_hi);

CREATE TABLE churn_rare (
	run_id INTEGER NOT NULL,
	ts_ms  INTEGER NOT NULL,
	spawn_failed_eagain INTEGER, spawn_failed_enomem INTEGER, spawn_failed_other INTEGER,
	killed_sigkill INTEGER, killed_sigsegv INTEGER, killed_sigill INTEGER, killed_other INTEGER,
	oom_killed INTEGER, exited_error INTEGER, killed_ours INTEGER, probe_spawned INTEGER,
	probe_spawn_failed INTEGER, probe_exited INTEGER, probe_killed_sigkill INTEGER,
	probe_killed_other INTEGER, probe_oom_killed INTEGER, probe_killed_ours INTEGER,
	oom_unattributed INTEGER, gfp_failed INTEGER, probe_gfp_failed INTEGER, probe_population INTEGER,
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

INSERT INTO churn_rare
SELECT run_id, ts_ms, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other, killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error, killed_ours, probe_spawned, probe_spawn_failed, probe_exited, probe_killed_sigkill, probe_killed_other, probe_oom_killed, probe_killed_ours, oom_unattributed, gfp_failed, probe_gfp_failed, probe_population
  FROM samples
 WHERE coalesce(spawn_failed_eagain, 0) <> 0 OR coalesce(spawn_failed_enomem, 0) <> 0 OR coalesce(spawn_failed_other, 0) <> 0 OR coalesce(killed_sigkill, 0) <> 0 OR coalesce(killed_sigsegv, 0) <> 0 OR coalesce(killed_sigill, 0) <> 0 OR coalesce(killed_other, 0) <> 0 OR coalesce(oom_killed, 0) <> 0 OR coalesce(exited_error, 0) <> 0 OR coalesce(killed_ours, 0) <> 0 OR coalesce(probe_spawned, 0) <> 0 OR coalesce(probe_spawn_failed, 0) <> 0 OR coalesce(probe_exited, 0) <> 0 OR coalesce(probe_killed_sigkill, 0) <> 0 OR coalesce(probe_killed_other, 0) <> 0 OR coalesce(probe_oom_killed, 0) <> 0 OR coalesce(probe_killed_ours, 0) <> 0 OR coalesce(oom_unattributed, 0) <> 0 OR coalesce(gfp_failed, 0) <> 0 OR coalesce(probe_gfp_failed, 0) <> 0 OR coalesce(probe_population, 0) <> 0
    -- a count the fpusoakd that wrote the row did not keep yet (schema 7, 9) is NULL, not zero: kept as such
    OR (population IS NOT NULL AND (spawn_failed_eagain IS NULL OR spawn_failed_enomem IS NULL OR spawn_failed_other IS NULL OR killed_sigkill IS NULL OR killed_sigsegv IS NULL OR killed_sigill IS NULL OR killed_other IS NULL OR oom_killed IS NULL OR exited_error IS NULL OR killed_ours IS NULL OR probe_spawned IS NULL OR probe_spawn_failed IS NULL OR probe_exited IS NULL OR probe_killed_sigkill IS NULL OR probe_killed_other IS NULL OR probe_oom_killed IS NULL OR probe_killed_ours IS NULL OR oom_unattributed IS NULL OR gfp_failed IS NULL OR probe_gfp_failed IS NULL OR probe_population IS NULL));

CREATE TABLE sample_key (
	run_id    INTEGER NOT NULL,
	bucket_ms INTEGER NOT NULL,         -- the minute: ts_ms - ts_ms % 60000 of its ticks
	mem_total INTEGER, mem_free INTEGER, mem_available INTEGER, buffers INTEGER, cached INTEGER,
	swap_free INTEGER, anon_pages INTEGER, shmem INTEGER, slab INTEGER, s_reclaimable INTEGER,
	s_unreclaim INTEGER, kernel_stack INTEGER, page_tables INTEGER, committed_as INTEGER,
	percpu INTEGER, anon_huge_pages INTEGER, huge_pages_free INTEGER, cma_free INTEGER,
	pgalloc_dma32 INTEGER, pgalloc_normal INTEGER, pgfree INTEGER, pgfault INTEGER,
	PRIMARY KEY (run_id, bucket_ms)
) WITHOUT ROWID;

-- SQLite takes the bare columns from the row that holds min(ts_ms): the minute's first tick.
INSERT INTO sample_key
SELECT run_id, bucket_ms, mem_total, mem_free, mem_available, buffers, cached, swap_free, anon_pages, shmem, slab, s_reclaimable, s_unreclaim, kernel_stack, page_tables, committed_as, percpu, anon_huge_pages, huge_pages_free, cma_free, pgalloc_dma32, pgalloc_normal, pgfree, pgfault
  FROM (SELECT run_id, ts_ms - ts_ms % 60000 AS bucket_ms, min(ts_ms), mem_total, mem_free, mem_available, buffers, cached, swap_free, anon_pages, shmem, slab, s_reclaimable, s_unreclaim, kernel_stack, page_tables, committed_as, percpu, anon_huge_pages, huge_pages_free, cma_free, pgalloc_dma32, pgalloc_normal, pgfree, pgfault
          FROM samples GROUP BY run_id, bucket_ms);

CREATE TABLE samples_lean (
	run_id    INTEGER NOT NULL,
	ts_ms     INTEGER NOT NULL,
	sample_us INTEGER NOT NULL,
	-- /proc/meminfo (kB) and the hot vmstat counters: the value less the minute's sample_key value
	mem_total INTEGER, mem_free INTEGER, mem_available INTEGER, buffers INTEGER, cached INTEGER,
	swap_free INTEGER, anon_pages INTEGER, shmem INTEGER, slab INTEGER, s_reclaimable INTEGER,
	s_unreclaim INTEGER, kernel_stack INTEGER, page_tables INTEGER, committed_as INTEGER,
	percpu INTEGER, anon_huge_pages INTEGER, huge_pages_free INTEGER, cma_free INTEGER,
	population INTEGER, spawned INTEGER, exited INTEGER,
	pgalloc_dma32 INTEGER, pgalloc_normal INTEGER, pgfree INTEGER, pgfault INTEGER,
	req_id INTEGER,                     -- requests(run_id, req_id); NULL: the tick had no verdict
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

INSERT INTO samples_lean
SELECT s.run_id, s.ts_ms, s.sample_us,
       s.mem_total - coalesce(k.mem_total, 0), s.mem_free - coalesce(k.mem_free, 0),
       s.mem_available - coalesce(k.mem_available, 0), s.buffers - coalesce(k.buffers, 0),
       s.cached - coalesce(k.cached, 0), s.swap_free - coalesce(k.swap_free, 0),
       s.anon_pages - coalesce(k.anon_pages, 0), s.shmem - coalesce(k.shmem, 0),
       s.slab - coalesce(k.slab, 0), s.s_reclaimable - coalesce(k.s_reclaimable, 0),
       s.s_unreclaim - coalesce(k.s_unreclaim, 0), s.kernel_stack - coalesce(k.kernel_stack, 0),
       s.page_tables - coalesce(k.page_tables, 0), s.committed_as - coalesce(k.committed_as, 0),
       s.percpu - coalesce(k.percpu, 0), s.anon_huge_pages - coalesce(k.anon_huge_pages, 0),
       s.huge_pages_free - coalesce(k.huge_pages_free, 0), s.cma_free - coalesce(k.cma_free, 0),
       s.population, s.spawned, s.exited,
       s.pgalloc_dma32 - coalesce(k.pgalloc_dma32, 0),
       s.pgalloc_normal - coalesce(k.pgalloc_normal, 0), s.pgfree - coalesce(k.pgfree, 0),
       s.pgfault - coalesce(k.pgfault, 0),
       q.req_id
  FROM samples s
  JOIN sample_key k ON k.run_id = s.run_id AND k.bucket_ms = s.ts_ms - s.ts_ms % 60000
  LEFT JOIN requests q ON q.run_id = s.run_id AND q.req_norders = s.req_norders AND q.req_atomic_mask = s.req_atomic_mask AND q.req_nowait_mask = s.req_nowait_mask AND q.req_kernel_mask = s.req_kernel_mask AND q.req_zones_lo = s.req_zones_lo AND q.req_zones_hi = s.req_zones_hi;

-- legacy_alter_table: the rename leaves the views that name samples as they are (they name the new
-- table then); without it SQLite would rewrite them to samples_lean first.
DROP TABLE samples;
PRAGMA legacy_alter_table = ON;
ALTER TABLE samples_lean RENAME TO samples;
PRAGMA legacy_alter_table = OFF;

-- The old row, for readers: joins on primary keys, so a reader of some columns skips the others' joins.
CREATE VIEW samples_wide AS
SELECT s.run_id, s.ts_ms, s.sample_us,
       s.mem_total + coalesce(k.mem_total, 0) AS mem_total,
       s.mem_free + coalesce(k.mem_free, 0) AS mem_free,
       s.mem_available + coalesce(k.mem_available, 0) AS mem_available,
       s.buffers + coalesce(k.buffers, 0) AS buffers, s.cached + coalesce(k.cached, 0) AS cached,
       s.swap_free + coalesce(k.swap_free, 0) AS swap_free,
       s.anon_pages + coalesce(k.anon_pages, 0) AS anon_pages,
       s.shmem + coalesce(k.shmem, 0) AS shmem, s.slab + coalesce(k.slab, 0) AS slab,
       s.s_reclaimable + coalesce(k.s_reclaimable, 0) AS s_reclaimable,
       s.s_unreclaim + coalesce(k.s_unreclaim, 0) AS s_unreclaim,
       s.kernel_stack + coalesce(k.kernel_stack, 0) AS kernel_stack,
       s.page_tables + coalesce(k.page_tables, 0) AS page_tables,
       s.committed_as + coalesce(k.committed_as, 0) AS committed_as,
       s.percpu + coalesce(k.percpu, 0) AS percpu,
       s.anon_huge_pages + coalesce(k.anon_huge_pages, 0) AS anon_huge_pages,
       s.huge_pages_free + coalesce(k.huge_pages_free, 0) AS huge_pages_free,
       s.cma_free + coalesce(k.cma_free, 0) AS cma_free,
       s.population, s.spawned,
       CASE WHEN r.run_id IS NOT NULL THEN r.spawn_failed_eagain WHEN s.population IS NOT NULL THEN 0 END AS spawn_failed_eagain,
       CASE WHEN r.run_id IS NOT NULL THEN r.spawn_failed_enomem WHEN s.population IS NOT NULL THEN 0 END AS spawn_failed_enomem,
       CASE WHEN r.run_id IS NOT NULL THEN r.spawn_failed_other WHEN s.population IS NOT NULL THEN 0 END AS spawn_failed_other,
       s.exited,
       CASE WHEN r.run_id IS NOT NULL THEN r.killed_sigkill WHEN s.population IS NOT NULL THEN 0 END AS killed_sigkill,
       CASE WHEN r.run_id IS NOT NULL THEN r.killed_sigsegv WHEN s.population IS NOT NULL THEN 0 END AS killed_sigsegv,
       CASE WHEN r.run_id IS NOT NULL THEN r.killed_sigill WHEN s.population IS NOT NULL THEN 0 END AS killed_sigill,
       CASE WHEN r.run_id IS NOT NULL THEN r.killed_other WHEN s.population IS NOT NULL THEN 0 END AS killed_other,
       CASE WHEN r.run_id IS NOT NULL THEN r.oom_killed WHEN s.population IS NOT NULL THEN 0 END AS oom_killed,
       CASE WHEN r.run_id IS NOT NULL THEN r.exited_error WHEN s.population IS NOT NULL THEN 0 END AS exited_error,
       CASE WHEN r.run_id IS NOT NULL THEN r.killed_ours WHEN s.population IS NOT NULL THEN 0 END AS killed_ours,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_spawned WHEN s.population IS NOT NULL THEN 0 END AS probe_spawned,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_spawn_failed WHEN s.population IS NOT NULL THEN 0 END AS probe_spawn_failed,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_exited WHEN s.population IS NOT NULL THEN 0 END AS probe_exited,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_killed_sigkill WHEN s.population IS NOT NULL THEN 0 END AS probe_killed_sigkill,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_killed_other WHEN s.population IS NOT NULL THEN 0 END AS probe_killed_other,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_oom_killed WHEN s.population IS NOT NULL THEN 0 END AS probe_oom_killed,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_killed_ours WHEN s.population IS NOT NULL THEN 0 END AS probe_killed_ours,
       CASE WHEN r.run_id IS NOT NULL THEN r.oom_unattributed WHEN s.population IS NOT NULL THEN 0 END AS oom_unattributed,
       CASE WHEN r.run_id IS NOT NULL THEN r.gfp_failed WHEN s.population IS NOT NULL THEN 0 END AS gfp_failed,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_gfp_failed WHEN s.population IS NOT NULL THEN 0 END AS probe_gfp_failed,
       CASE WHEN r.run_id IS NOT NULL THEN r.probe_population WHEN s.population IS NOT NULL THEN 0 END AS probe_population,
       s.pgalloc_dma32 + coalesce(k.pgalloc_dma32, 0) AS pgalloc_dma32,
       s.pgalloc_normal + coalesce(k.pgalloc_normal, 0) AS pgalloc_normal,
       s.pgfree + coalesce(k.pgfree, 0) AS pgfree, s.pgfault + coalesce(k.pgfault, 0) AS pgfault,
       q.req_norders, q.req_atomic_mask, q.req_nowait_mask, q.req_kernel_mask, q.req_zones_lo,
       q.req_zones_hi
  FROM samples s
  LEFT JOIN sample_key k ON k.run_id = s.run_id AND k.bucket_ms = s.ts_ms - s.ts_ms % 60000
  LEFT JOIN churn_rare r ON r.run_id = s.run_id AND r.ts_ms = s.ts_ms
  LEFT JOIN requests q ON q.run_id = s.run_id AND q.req_id = s.req_id;

-- The views that read the moved columns, as before but over samples_wide.
DROP VIEW v_meminfo;
CREATE VIEW v_meminfo AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts, name, value_kb
  FROM (SELECT s.run_id, s.ts_ms, f.name,
               CASE f.k WHEN 0 THEN s.mem_total WHEN 1 THEN s.mem_free WHEN 2 THEN s.mem_available WHEN 3 THEN s.buffers WHEN 4 THEN s.cached WHEN 5 THEN s.swap_free WHEN 6 THEN s.anon_pages WHEN 7 THEN s.shmem WHEN 8 THEN s.slab WHEN 9 THEN s.s_reclaimable WHEN 10 THEN s.s_unreclaim WHEN 11 THEN s.kernel_stack WHEN 12 THEN s.page_tables WHEN 13 THEN s.committed_as WHEN 14 THEN s.percpu WHEN 15 THEN s.anon_huge_pages WHEN 16 THEN s.huge_pages_free WHEN 17 THEN s.cma_free END AS value_kb
          FROM samples_wide s JOIN meminfo_fields f)
 WHERE value_kb IS NOT NULL;

DROP VIEW v_vmstat;
CREATE VIEW v_vmstat AS
SELECT v.run_id, v.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', v.ts_ms / 1000.0, 'unixepoch') AS ts,
       n.name, v.value
  FROM vmstat v JOIN names n USING (name_id)
UNION ALL
SELECT s.run_id, s.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch') AS ts,
       f.name, CASE f.k WHEN 0 THEN s.pgalloc_dma32 WHEN 1 THEN s.pgalloc_normal WHEN 2 THEN s.pgfree WHEN 3 THEN s.pgfault END AS value
  FROM samples_wide s JOIN vmstat_hot_fields f
 WHERE CASE f.k WHEN 0 THEN s.pgalloc_dma32 WHEN 1 THEN s.pgalloc_normal WHEN 2 THEN s.pgfree WHEN 3 THEN s.pgfault END IS NOT NULL;

DROP VIEW v_churn;
CREATE VIEW v_churn AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       population, spawned, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other, exited, killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error,
       coalesce(killed_ours, 0) AS killed_ours, coalesce(probe_population, 0) AS probe_population,
       coalesce(probe_spawned, 0) AS probe_spawned, coalesce(probe_spawn_failed, 0) AS probe_spawn_failed,
       coalesce(probe_exited, 0) AS probe_exited, coalesce(probe_killed_sigkill, 0) AS probe_killed_sigkill,
       coalesce(probe_killed_other, 0) AS probe_killed_other, coalesce(probe_oom_killed, 0) AS probe_oom_killed,
       coalesce(probe_killed_ours, 0) AS probe_killed_ours, coalesce(oom_unattributed, 0) AS oom_unattributed,
       coalesce(gfp_failed, 0) AS gfp_failed, coalesce(probe_gfp_failed, 0) AS probe_gfp_failed
  FROM samples_wide WHERE population IS NOT NULL;

DROP VIEW v_atomic_request;
CREATE VIEW v_atomic_request AS
SELECT s.run_id, s.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch') AS ts,
       o.k AS page_order,
       (s.req_atomic_mask >> o.k) & 1 AS atomic_ok,
       (s.req_nowait_mask >> o.k) & 1 AS nowait_ok,
       (s.req_kernel_mask >> o.k) & 1 AS kernel_ok,
       z.name AS zone_used, z.node AS zone_node
  FROM samples_wide s JOIN orders o ON o.k < s.req_norders
  LEFT JOIN zones z ON z.zone_id =
       (((CASE WHEN o.k < 8 THEN s.req_zones_lo ELSE s.req_zones_hi END) >> (8 * (o.k % 8))) & 255)
 WHERE s.req_norders IS NOT NULL;

