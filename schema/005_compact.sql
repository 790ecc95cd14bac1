-- SPDX-License-Identifier: GPL-2.0-only
-- 005_compact: one wide row per tick, rollups computed by the writer.
--
-- Measured on schema 004 (bench/RESULTS.md): 876 bytes per 1-second tick,
-- 326 of them meminfo stored as 17 (run, name, ts, value) rows, and a commit
-- dirtied ~35 B-tree pages per tick because meminfo and vmstat were keyed by
-- name first.  Now a tick's scalars (sample cost, the kept meminfo fields,
-- the churn counts) are one row of samples: one page append per tick.
-- The columns follow store/fields.h (a test compares the two).
--
-- The v_* views keep their columns; v_meminfo and v_churn read the wide row.

DROP VIEW v_samples;
DROP VIEW v_meminfo;
DROP VIEW v_churn;

CREATE TABLE samples_new (
	run_id    INTEGER NOT NULL,
	ts_ms     INTEGER NOT NULL,
	sample_us INTEGER NOT NULL,         -- read+parse time of the tick's sources
	-- /proc/meminfo, kB (HugePages_Free: pages); NULL when the kernel does not print the field
	mem_total INTEGER,
	mem_free INTEGER,
	mem_available INTEGER,
	buffers INTEGER,
	cached INTEGER,
	swap_free INTEGER,
	anon_pages INTEGER,
	shmem INTEGER,
	slab INTEGER,
	s_reclaimable INTEGER,
	s_unreclaim INTEGER,
	kernel_stack INTEGER,
	page_tables INTEGER,
	committed_as INTEGER,
	percpu INTEGER,
	anon_huge_pages INTEGER,
	huge_pages_free INTEGER,
	cma_free INTEGER,
	-- churn accounting of the interval ending at ts_ms; NULL when churn is off (v_churn)
	population INTEGER,
	spawned INTEGER,
	spawn_failed_eagain INTEGER,
	spawn_failed_enomem INTEGER,
	spawn_failed_other INTEGER,
	exited INTEGER,
	killed_sigkill INTEGER,
	killed_sigsegv INTEGER,
	killed_sigill INTEGER,
	killed_other INTEGER,
	oom_killed INTEGER,
	exited_error INTEGER,
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

INSERT INTO samples_new (run_id, ts_ms, sample_us, mem_total, mem_free, mem_available, buffers, cached, swap_free, anon_pages, shmem, slab, s_reclaimable, s_unreclaim, kernel_stack, page_tables, committed_as, percpu, anon_huge_pages, huge_pages_free, cma_free, population, spawned, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other, exited, killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error)
SELECT s.run_id,
       s.ts_ms,
       s.sample_us,
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'MemTotal')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'MemFree')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'MemAvailable')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'Buffers')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'Cached')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'SwapFree')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'AnonPages')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'Shmem')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'Slab')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'SReclaimable')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'SUnreclaim')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'KernelStack')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'PageTables')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'Committed_AS')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'Percpu')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'AnonHugePages')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'HugePages_Free')),
       (SELECT m.value_kb FROM meminfo m WHERE m.run_id = s.run_id AND m.ts_ms = s.ts_ms
	   AND m.name_id = (SELECT name_id FROM names WHERE source = 'meminfo' AND name = 'CmaFree')),
       c.population,
       c.spawned,
       c.spawn_failed_eagain,
       c.spawn_failed_enomem,
       c.spawn_failed_other,
       c.exited,
       c.killed_sigkill,
       c.killed_sigsegv,
       c.killed_sigill,
       c.killed_other,
       c.oom_killed,
       c.exited_error
  FROM samples s LEFT JOIN churn c ON c.run_id = s.run_id AND c.ts_ms = s.ts_ms;

DROP TABLE samples;
DROP TABLE meminfo;
DROP TABLE churn;
ALTER TABLE samples_new RENAME TO samples;

-- Ticks recorded per run, kept by the writer in the tick's transaction, so a
-- page showing a run does not count millions of rows.
ALTER TABLE runs ADD COLUMN ticks INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET ticks = (SELECT count(*) FROM samples s WHERE s.run_id = runs.run_id);

-- The meminfo fields, in column order, for v_meminfo.
CREATE TABLE meminfo_fields (k INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO meminfo_fields (k, name) VALUES (0, 'MemTotal'), (1, 'MemFree'), (2, 'MemAvailable'), (3, 'Buffers'), (4, 'Cached'), (5, 'SwapFree'), (6, 'AnonPages'), (7, 'Shmem'), (8, 'Slab'), (9, 'SReclaimable'), (10, 'SUnreclaim'), (11, 'KernelStack'), (12, 'PageTables'), (13, 'Committed_AS'), (14, 'Percpu'), (15, 'AnonHugePages'), (16, 'HugePages_Free'), (17, 'CmaFree');

CREATE VIEW v_samples AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts, sample_us
  FROM samples;

CREATE VIEW v_meminfo AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts, name, value_kb
  FROM (SELECT s.run_id, s.ts_ms, f.name,
               CASE f.k WHEN 0 THEN s.mem_total WHEN 1 THEN s.mem_free WHEN 2 THEN s.mem_available WHEN 3 THEN s.buffers WHEN 4 THEN s.cached WHEN 5 THEN s.swap_free WHEN 6 THEN s.anon_pages WHEN 7 THEN s.shmem WHEN 8 THEN s.slab WHEN 9 THEN s.s_reclaimable WHEN 10 THEN s.s_unreclaim WHEN 11 THEN s.kernel_stack WHEN 12 THEN s.page_tables WHEN 13 THEN s.committed_as WHEN 14 THEN s.percpu WHEN 15 THEN s.anon_huge_pages WHEN 16 THEN s.huge_pages_free WHEN 17 THEN s.cma_free END AS value_kb
          FROM samples s JOIN meminfo_fields f)
 WHERE value_kb IS NOT NULL;

CREATE VIEW v_churn AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       population, spawned, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other, exited, killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error
  FROM samples WHERE population IS NOT NULL;

-- Per-minute and per-hour tiers of the tick scalars, written by the writer
-- when a bucket completes (a bucket that straddles a clock step is merged,
-- not overwritten).  *_sum / n is the bucket mean; a meminfo sum is NULL when
-- the field was missing from any tick of the bucket; churn sums cover the
-- churn_n ticks that had churn.
CREATE TABLE tick_rollup (
	run_id     INTEGER NOT NULL,
	tier       INTEGER NOT NULL,        -- bucket width in ms: 60000 or 3600000
	bucket_ms  INTEGER NOT NULL,
	n          INTEGER NOT NULL,        -- ticks in the bucket
	sample_us_sum INTEGER NOT NULL,
	mem_total_sum INTEGER,
	mem_free_sum INTEGER,
	mem_available_sum INTEGER,
	buffers_sum INTEGER,
	cached_sum INTEGER,
	swap_free_sum INTEGER,
	anon_pages_sum INTEGER,
	shmem_sum INTEGER,
	slab_sum INTEGER,
	s_reclaimable_sum INTEGER,
	s_unreclaim_sum INTEGER,
	kernel_stack_sum INTEGER,
	page_tables_sum INTEGER,
	committed_as_sum INTEGER,
	percpu_sum INTEGER,
	anon_huge_pages_sum INTEGER,
	huge_pages_free_sum INTEGER,
	cma_free_sum INTEGER,
	churn_n INTEGER NOT NULL,
	population_max INTEGER,
	population_sum INTEGER,
	spawned_sum INTEGER,
	spawn_failed_eagain_sum INTEGER,
	spawn_failed_enomem_sum INTEGER,
	spawn_failed_other_sum INTEGER,
	exited_sum INTEGER,
	killed_sigkill_sum INTEGER,
	killed_sigsegv_sum INTEGER,
	killed_sigill_sum INTEGER,
	killed_other_sum INTEGER,
	oom_killed_sum INTEGER,
	exited_error_sum INTEGER,
	PRIMARY KEY (run_id, tier, bucket_ms)
) WITHOUT ROWID;

-- The atomic-risk model per zone and order, in the buddy rollup: ticks with
-- a verdict, how many failed GFP_ATOMIC, failed it while GFP_KERNEL passed,
-- failed GFP_KERNEL, and the smallest margins.  NULL in buckets written by
-- fpusoakd before schema 5 (readers fall back to the raw rows there).
ALTER TABLE buddy_rollup ADD COLUMN atomic_n INTEGER;
ALTER TABLE buddy_rollup ADD COLUMN atomic_fail_n INTEGER;
ALTER TABLE buddy_rollup ADD COLUMN atomic_only_n INTEGER;
ALTER TABLE buddy_rollup ADD COLUMN kernel_fail_n INTEGER;
ALTER TABLE buddy_rollup ADD COLUMN margin_min INTEGER;
ALTER TABLE buddy_rollup ADD COLUMN kernel_margin_min INTEGER;

-- The same minute and hour buckets as buddy_rollup, one row per zone with
-- the orders in columns (fK = free_sum, hK = head_sum, uK = unusable_max of
-- order K; NULL past norders).  Charts read these: a 1-day chart at 1,000
-- points reads 4,320 rows here instead of 47,520 (order, zone) rows, which
-- was most of an API request.  buddy_rollup (and its views) stays the
-- documented form.
CREATE TABLE buddy_wide_rollup (
	run_id     INTEGER NOT NULL,
	tier       INTEGER NOT NULL,
	bucket_ms  INTEGER NOT NULL,
	zone_id    INTEGER NOT NULL,
	n          INTEGER NOT NULL,        -- ticks in the bucket
	norders    INTEGER NOT NULL,
	f0 INTEGER,
	f1 INTEGER,
	f2 INTEGER,
	f3 INTEGER,
	f4 INTEGER,
	f5 INTEGER,
	f6 INTEGER,
	f7 INTEGER,
	f8 INTEGER,
	f9 INTEGER,
	f10 INTEGER,
	f11 INTEGER,
	f12 INTEGER,
	f13 INTEGER,
	f14 INTEGER,
	f15 INTEGER,
	h0 INTEGER,
	h1 INTEGER,
	h2 INTEGER,
	h3 INTEGER,
	h4 INTEGER,
	h5 INTEGER,
	h6 INTEGER,
	h7 INTEGER,
	h8 INTEGER,
	h9 INTEGER,
	h10 INTEGER,
	h11 INTEGER,
	h12 INTEGER,
	h13 INTEGER,
	h14 INTEGER,
	h15 INTEGER,
	u0 INTEGER,
	u1 INTEGER,
	u2 INTEGER,
	u3 INTEGER,
	u4 INTEGER,
	u5 INTEGER,
	u6 INTEGER,
	u7 INTEGER,
	u8 INTEGER,
	u9 INTEGER,
	u10 INTEGER,
	u11 INTEGER,
	u12 INTEGER,
	u13 INTEGER,
	u14 INTEGER,
	u15 INTEGER,
	PRIMARY KEY (run_id, tier, zone_id, bucket_ms)
) WITHOUT ROWID;
INSERT INTO buddy_wide_rollup SELECT run_id, tier, bucket_ms, zone_id, max(n), max(page_order) + 1,
       sum(CASE page_order WHEN 0 THEN free_sum END), sum(CASE page_order WHEN 1 THEN free_sum END), sum(CASE page_order WHEN 2 THEN free_sum END), sum(CASE page_order WHEN 3 THEN free_sum END), sum(CASE page_order WHEN 4 THEN free_sum END), sum(CASE page_order WHEN 5 THEN free_sum END), sum(CASE page_order WHEN 6 THEN free_sum END), sum(CASE page_order WHEN 7 THEN free_sum END), sum(CASE page_order WHEN 8 THEN free_sum END), sum(CASE page_order WHEN 9 THEN free_sum END), sum(CASE page_order WHEN 10 THEN free_sum END), sum(CASE page_order WHEN 11 THEN free_sum END), sum(CASE page_order WHEN 12 THEN free_sum END), sum(CASE page_order WHEN 13 THEN free_sum END), sum(CASE page_order WHEN 14 THEN free_sum END), sum(CASE page_order WHEN 15 THEN free_sum END),
       sum(CASE page_order WHEN 0 THEN head_sum END), sum(CASE page_order WHEN 1 THEN head_sum END), sum(CASE page_order WHEN 2 THEN head_sum END), sum(CASE page_order WHEN 3 THEN head_sum END), sum(CASE page_order WHEN 4 THEN head_sum END), sum(CASE page_order WHEN 5 THEN head_sum END), sum(CASE page_order WHEN 6 THEN head_sum END), sum(CASE page_order WHEN 7 THEN head_sum END), sum(CASE page_order WHEN 8 THEN head_sum END), sum(CASE page_order WHEN 9 THEN head_sum END), sum(CASE page_order WHEN 10 THEN head_sum END), sum(CASE page_order WHEN 11 THEN head_sum END), sum(CASE page_order WHEN 12 THEN head_sum END), sum(CASE page_order WHEN 13 THEN head_sum END), sum(CASE page_order WHEN 14 THEN head_sum END), sum(CASE page_order WHEN 15 THEN head_sum END),
       sum(CASE page_order WHEN 0 THEN unusable_max END), sum(CASE page_order WHEN 1 THEN unusable_max END), sum(CASE page_order WHEN 2 THEN unusable_max END), sum(CASE page_order WHEN 3 THEN unusable_max END), sum(CASE page_order WHEN 4 THEN unusable_max END), sum(CASE page_order WHEN 5 THEN unusable_max END), sum(CASE page_order WHEN 6 THEN unusable_max END), sum(CASE page_order WHEN 7 THEN unusable_max END), sum(CASE page_order WHEN 8 THEN unusable_max END), sum(CASE page_order WHEN 9 THEN unusable_max END), sum(CASE page_order WHEN 10 THEN unusable_max END), sum(CASE page_order WHEN 11 THEN unusable_max END), sum(CASE page_order WHEN 12 THEN unusable_max END), sum(CASE page_order WHEN 13 THEN unusable_max END), sum(CASE page_order WHEN 14 THEN unusable_max END), sum(CASE page_order WHEN 15 THEN unusable_max END)
  FROM buddy_rollup GROUP BY run_id, tier, bucket_ms, zone_id;
