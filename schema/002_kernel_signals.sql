-- SPDX-License-Identifier: GPL-2.0-only
-- 002_kernel_signals: kernel-log events, fpusoakd's own counters, the kmsg
-- cursor, and the kernel's fragmentation indices as views over buddy rows.

-- One row per warn_alloc / OOM line fpusoakd understood.  comm is a BLOB of
-- the raw bytes the kernel printed (it may be any bytes a local user chose);
-- raw is the message as /dev/kmsg gave it (escaped), at most 1024 bytes.
CREATE TABLE kmsg_events (
	run_id      INTEGER NOT NULL,
	ts_ms       INTEGER NOT NULL,      -- wall clock, derived from the record's boot-time stamp
	boot_id     TEXT NOT NULL,
	seq         INTEGER NOT NULL,      -- /dev/kmsg sequence number
	kind        TEXT NOT NULL,         -- alloc_fail|alloc_suppressed|oom_kill|oom_constraint|oom_invoked
	comm        BLOB,
	pid         INTEGER,
	page_order  INTEGER,
	gfp_mask    INTEGER,
	gfp_flags   TEXT,
	nodemask    TEXT,
	constraint_info TEXT,
	count       INTEGER,               -- alloc_suppressed: callbacks suppressed
	raw         TEXT NOT NULL
);
CREATE INDEX kmsg_events_run ON kmsg_events (run_id, kind, ts_ms);

-- Where kernel-log reading resumes after a restart within the same boot.
CREATE TABLE kmsg_cursor (
	boot_id  TEXT PRIMARY KEY,
	last_seq INTEGER NOT NULL
);

-- fpusoakd's own cumulative counters (kmsg lines lost/unparsed, ...), stored on change.
CREATE TABLE counters (
	run_id  INTEGER NOT NULL,
	ts_ms   INTEGER NOT NULL,
	name_id INTEGER NOT NULL,
	value   INTEGER NOT NULL,
	PRIMARY KEY (run_id, name_id, ts_ms)
) WITHOUT ROWID;

CREATE VIEW v_counters AS
SELECT c.run_id, c.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', c.ts_ms / 1000.0, 'unixepoch') AS ts, n.name, c.value
  FROM counters c JOIN names n USING (name_id);

CREATE VIEW v_alloc_failures AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       comm, pid, page_order, printf('0x%x', gfp_mask) AS gfp_mask, gfp_flags, nodemask, raw,
       seq, boot_id
  FROM kmsg_events WHERE kind = 'alloc_fail';

-- An OOM kill is announced by "oom-kill:constraint=...,task=COMM,pid=PID" and
-- then "Out of memory: Killed process PID (COMM)": constraint_info comes from
-- the closest preceding constraint line for the same pid.
CREATE VIEW v_oom_kills AS
SELECT k.run_id, k.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', k.ts_ms / 1000.0, 'unixepoch') AS ts,
       k.pid, k.comm,
       (SELECT c.constraint_info FROM kmsg_events c
         WHERE c.run_id = k.run_id AND c.kind = 'oom_constraint' AND c.pid = k.pid
           AND c.boot_id = k.boot_id AND c.seq < k.seq ORDER BY c.seq DESC LIMIT 1) AS constraint_info,
       k.raw, k.seq, k.boot_id
  FROM kmsg_events k WHERE k.kind = 'oom_kill';

-- Kernel-exact indices (mm/vmstat.c fill_contig_page_info, unusable_free_index,
-- __fragmentation_index), in integer arithmetic as the kernel does it:
--   free_pages = sum(free[i] << i), blocks_total = sum(free[i]),
--   suitable(k) = sum over i >= k of free[i] << (i - k)
--               = (free_pages - sum over i < k of free[i] << i) >> k,
--   unusable(k) = free_pages == 0 ? 1000 ("no free memory is all unusable")
--               : (free_pages - (suitable << k)) * 1000 / free_pages
--               = prefix(k) * 1000 / free_pages,
--   extfrag(k)  = blocks_total == 0 ? 0 : suitable > 0 ? -1000
--               : 1000 - (1000 + free_pages * 1000 / (1 << k)) / blocks_total.
-- The _x1000 columns are the kernel's integers; the index columns are the
-- values debugfs prints (0.243, -1.000).  headroom_blocks is suitable(k): how
-- many order-k allocations the free lists could satisfy right now.
CREATE VIEW v_frag_x1000 AS
SELECT run_id, ts_ms, zone_id, node, zone, page_order, free_blocks, free_pages, blocks_total, headroom_blocks,
       CASE WHEN free_pages = 0 THEN 1000 ELSE prefix * 1000 / free_pages END AS unusable_x1000,
       CASE WHEN blocks_total = 0 THEN 0 WHEN headroom_blocks > 0 THEN -1000
            ELSE 1000 - (1000 + free_pages * 1000 / (1 << page_order)) / blocks_total END AS fragmentation_x1000
  FROM (SELECT b.run_id, b.ts_ms, b.zone_id, z.node, z.name AS zone, k.k AS page_order,
               CASE k.k WHEN 0 THEN b.o0 WHEN 1 THEN b.o1 WHEN 2 THEN b.o2 WHEN 3 THEN b.o3 WHEN 4 THEN b.o4 WHEN 5 THEN b.o5 WHEN 6 THEN b.o6 WHEN 7 THEN b.o7 WHEN 8 THEN b.o8 WHEN 9 THEN b.o9 WHEN 10 THEN b.o10 WHEN 11 THEN b.o11 WHEN 12 THEN b.o12 WHEN 13 THEN b.o13 WHEN 14 THEN b.o14 ELSE b.o15 END AS free_blocks,
               (coalesce(b.o0,0) << 0) + (coalesce(b.o1,0) << 1) + (coalesce(b.o2,0) << 2) + (coalesce(b.o3,0) << 3) + (coalesce(b.o4,0) << 4) + (coalesce(b.o5,0) << 5) + (coalesce(b.o6,0) << 6) + (coalesce(b.o7,0) << 7) + (coalesce(b.o8,0) << 8) + (coalesce(b.o9,0) << 9) + (coalesce(b.o10,0) << 10) + (coalesce(b.o11,0) << 11) + (coalesce(b.o12,0) << 12) + (coalesce(b.o13,0) << 13) + (coalesce(b.o14,0) << 14) + (coalesce(b.o15,0) << 15) AS free_pages,
               coalesce(b.o0,0) + coalesce(b.o1,0) + coalesce(b.o2,0) + coalesce(b.o3,0) + coalesce(b.o4,0) + coalesce(b.o5,0) + coalesce(b.o6,0) + coalesce(b.o7,0) + coalesce(b.o8,0) + coalesce(b.o9,0) + coalesce(b.o10,0) + coalesce(b.o11,0) + coalesce(b.o12,0) + coalesce(b.o13,0) + coalesce(b.o14,0) + coalesce(b.o15,0) AS blocks_total,
               (CASE WHEN k.k > 0 THEN coalesce(b.o0,0) << 0 ELSE 0 END) + (CASE WHEN k.k > 1 THEN coalesce(b.o1,0) << 1 ELSE 0 END) + (CASE WHEN k.k > 2 THEN coalesce(b.o2,0) << 2 ELSE 0 END) + (CASE WHEN k.k > 3 THEN coalesce(b.o3,0) << 3 ELSE 0 END) + (CASE WHEN k.k > 4 THEN coalesce(b.o4,0) << 4 ELSE 0 END) + (CASE WHEN k.k > 5 THEN coalesce(b.o5,0) << 5 ELSE 0 END) + (CASE WHEN k.k > 6 THEN coalesce(b.o6,0) << 6 ELSE 0 END) + (CASE WHEN k.k > 7 THEN coalesce(b.o7,0) << 7 ELSE 0 END) + (CASE WHEN k.k > 8 THEN coalesce(b.o8,0) << 8 ELSE 0 END) + (CASE WHEN k.k > 9 THEN coalesce(b.o9,0) << 9 ELSE 0 END) + (CASE WHEN k.k > 10 THEN coalesce(b.o10,0) << 10 ELSE 0 END) + (CASE WHEN k.k > 11 THEN coalesce(b.o11,0) << 11 ELSE 0 END) + (CASE WHEN k.k > 12 THEN coalesce(b.o12,0) << 12 ELSE 0 END) + (CASE WHEN k.k > 13 THEN coalesce(b.o13,0) << 13 ELSE 0 END) + (CASE WHEN k.k > 14 THEN coalesce(b.o14,0) << 14 ELSE 0 END) + (CASE WHEN k.k > 15 THEN coalesce(b.o15,0) << 15 ELSE 0 END) AS prefix,
               (((coalesce(b.o0,0) << 0) + (coalesce(b.o1,0) << 1) + (coalesce(b.o2,0) << 2) + (coalesce(b.o3,0) << 3) + (coalesce(b.o4,0) << 4) + (coalesce(b.o5,0) << 5) + (coalesce(b.o6,0) << 6) + (coalesce(b.o7,0) << 7) + (coalesce(b.o8,0) << 8) + (coalesce(b.o9,0) << 9) + (coalesce(b.o10,0) << 10) + (coalesce(b.o11,0) << 11) + (coalesce(b.o12,0) << 12) + (coalesce(b.o13,0) << 13) + (coalesce(b.o14,0) << 14) + (coalesce(b.o15,0) << 15)) - ((CASE WHEN k.k > 0 THEN coalesce(b.o0,0) << 0 ELSE 0 END) + (CASE WHEN k.k > 1 THEN coalesce(b.o1,0) << 1 ELSE 0 END) + (CASE WHEN k.k > 2 THEN coalesce(b.o2,0) << 2 ELSE 0 END) + (CASE WHEN k.k > 3 THEN coalesce(b.o3,0) << 3 ELSE 0 END) + (CASE WHEN k.k > 4 THEN coalesce(b.o4,0) << 4 ELSE 0 END) + (CASE WHEN k.k > 5 THEN coalesce(b.o5,0) << 5 ELSE 0 END) + (CASE WHEN k.k > 6 THEN coalesce(b.o6,0) << 6 ELSE 0 END) + (CASE WHEN k.k > 7 THEN coalesce(b.o7,0) << 7 ELSE 0 END) + (CASE WHEN k.k > 8 THEN coalesce(b.o8,0) << 8 ELSE 0 END) + (CASE WHEN k.k > 9 THEN coalesce(b.o9,0) << 9 ELSE 0 END) + (CASE WHEN k.k > 10 THEN coalesce(b.o10,0) << 10 ELSE 0 END) + (CASE WHEN k.k > 11 THEN coalesce(b.o11,0) << 11 ELSE 0 END) + (CASE WHEN k.k > 12 THEN coalesce(b.o12,0) << 12 ELSE 0 END) + (CASE WHEN k.k > 13 THEN coalesce(b.o13,0) << 13 ELSE 0 END) + (CASE WHEN k.k > 14 THEN coalesce(b.o14,0) << 14 ELSE 0 END) + (CASE WHEN k.k > 15 THEN coalesce(b.o15,0) << 15 ELSE 0 END))) >> k.k AS headroom_blocks
          FROM buddy b JOIN zones z USING (zone_id) JOIN orders k ON k.k < b.norders);

CREATE VIEW v_frag AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       node, zone, page_order,
       round(unusable_x1000 / 1000.0, 3) AS unusable_index,
       round(fragmentation_x1000 / 1000.0, 3) AS fragmentation_index,
       unusable_x1000, fragmentation_x1000, headroom_blocks, free_pages
  FROM v_frag_x1000;

CREATE VIEW v_headroom AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       node, zone, page_order, headroom_blocks
  FROM v_frag_x1000;

-- ------------------------------------------------- slow sources (--slow-interval)
-- /proc/pagetypeinfo: free blocks per zone x migratetype, wide over orders.
-- capped_mask bit k: the kernel printed ">100000" for order k (a lower bound).
CREATE TABLE pagetype_free (
	run_id  INTEGER NOT NULL,
	ts_ms   INTEGER NOT NULL,
	zone_id INTEGER NOT NULL,
	type_id INTEGER NOT NULL,           -- names(source='migratetype')
	norders INTEGER NOT NULL,
	capped_mask INTEGER NOT NULL,
	blocks  INTEGER,                    -- pageblocks of this type ("Number of blocks type")
	o0 INTEGER, o1 INTEGER, o2 INTEGER, o3 INTEGER, o4 INTEGER, o5 INTEGER, o6 INTEGER, o7 INTEGER,
	o8 INTEGER, o9 INTEGER, o10 INTEGER, o11 INTEGER, o12 INTEGER, o13 INTEGER, o14 INTEGER, o15 INTEGER,
	PRIMARY KEY (run_id, ts_ms, zone_id, type_id)
) WITHOUT ROWID;

CREATE TABLE slow_samples (
	run_id          INTEGER NOT NULL,
	ts_ms           INTEGER NOT NULL,
	pageblock_order INTEGER,
	pagetype_us     INTEGER,            -- what reading pagetypeinfo cost
	slabinfo_us     INTEGER,
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

-- /proc/slabinfo, for the caches that churn allocates from.
CREATE TABLE slab (
	run_id       INTEGER NOT NULL,
	ts_ms        INTEGER NOT NULL,
	name_id      INTEGER NOT NULL,      -- names(source='slab')
	active_objs  INTEGER NOT NULL,
	num_objs     INTEGER NOT NULL,
	objsize      INTEGER NOT NULL,
	objperslab   INTEGER NOT NULL,
	pagesperslab INTEGER NOT NULL,
	PRIMARY KEY (run_id, ts_ms, name_id)
) WITHOUT ROWID;

CREATE VIEW v_pagetypeinfo AS
SELECT p.run_id, p.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', p.ts_ms / 1000.0, 'unixepoch') AS ts,
       z.node, z.name AS zone, n.name AS migratetype, o.k AS page_order,
       CASE o.k WHEN 0 THEN o0 WHEN 1 THEN o1 WHEN 2 THEN o2 WHEN 3 THEN o3 WHEN 4 THEN o4
                WHEN 5 THEN o5 WHEN 6 THEN o6 WHEN 7 THEN o7 WHEN 8 THEN o8 WHEN 9 THEN o9
                WHEN 10 THEN o10 WHEN 11 THEN o11 WHEN 12 THEN o12 WHEN 13 THEN o13
                WHEN 14 THEN o14 ELSE o15 END AS free_blocks,
       (p.capped_mask >> o.k) & 1 AS capped,
       p.blocks AS pageblocks,
       s.pageblock_order
  FROM pagetype_free p JOIN zones z USING (zone_id) JOIN names n ON n.name_id = p.type_id
  JOIN orders o ON o.k < p.norders
  LEFT JOIN slow_samples s ON s.run_id = p.run_id AND s.ts_ms = p.ts_ms;

CREATE VIEW v_slabinfo AS
SELECT s.run_id, s.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch') AS ts,
       n.name, s.active_objs, s.num_objs, s.objsize, s.objperslab, s.pagesperslab,
       CASE s.pagesperslab WHEN 1 THEN 0 WHEN 2 THEN 1 WHEN 4 THEN 2 WHEN 8 THEN 3 WHEN 16 THEN 4
            WHEN 32 THEN 5 WHEN 64 THEN 6 WHEN 128 THEN 7 WHEN 256 THEN 8 WHEN 512 THEN 9
            WHEN 1024 THEN 10 END AS slab_order
  FROM slab s JOIN names n USING (name_id);

-- ------------------------------------------------- the GFP_ATOMIC question
-- Per zone per tick, analysis/atomic's model of __zone_watermark_ok (see
-- README "The atomic-allocation model"): bit k of atomic_mask is set when a
-- GFP_ATOMIC order-k allocation would pass, of kernel_mask when GFP_KERNEL
-- would pass before reclaim.  margin0 is GFP_ATOMIC's order-0 margin; for
-- kernels >= 4.4 the order-k margin is margin0 - ((1 << k) - 1).
CREATE TABLE atomic_risk (
	run_id      INTEGER NOT NULL,
	ts_ms       INTEGER NOT NULL,
	zone_id     INTEGER NOT NULL,
	norders     INTEGER NOT NULL,
	atomic_mask INTEGER NOT NULL,
	kernel_mask INTEGER NOT NULL,
	margin0     INTEGER NOT NULL,
	kernel_margin0 INTEGER NOT NULL,
	legacy      INTEGER NOT NULL,       -- 1: kernel < 4.4, margins per order are not derivable
	PRIMARY KEY (run_id, ts_ms, zone_id)
) WITHOUT ROWID;

CREATE VIEW v_atomic_risk AS
SELECT a.run_id, a.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', a.ts_ms / 1000.0, 'unixepoch') AS ts,
       z.node, z.name AS zone, o.k AS page_order,
       (a.atomic_mask >> o.k) & 1 AS atomic_ok,
       (a.kernel_mask >> o.k) & 1 AS kernel_ok,
       CASE WHEN a.legacy THEN NULL ELSE a.margin0 - ((1 << o.k) - 1) END AS margin_pages,
       CASE WHEN a.legacy THEN NULL ELSE a.kernel_margin0 - ((1 << o.k) - 1) END AS kernel_margin_pages
  FROM atomic_risk a JOIN zones z USING (zone_id) JOIN orders o ON o.k < a.norders;
