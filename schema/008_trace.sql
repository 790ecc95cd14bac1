-- SPDX-License-Identifier: GPL-2.0-only
-- 008_trace: what fpusoakd's tracefs instance saw (daemon/tracewatch.h):
-- every failed page allocation (kmem/mm_page_alloc with pfn -1), and the
-- fallbacks to a free block of another migrate type (kmem/mm_page_alloc_extfrag),
-- counted per tick; their minute and hour rollups; the kernel-log failures
-- linked to the traced ones so that no failure is counted twice.
-- Merged after 012 was on main: a database made at 012 gets it late
-- (store/writer.c), so it must not redefine a view a later migration made.
-- applied-if-table: trace_failures

-- One row per failed allocation the trace saw.  comm is a BLOB of the bytes
-- the kernel's saved comm printed ("<...>" when it no longer knew the pid);
-- gfp_mask comes from the running kernel's own name table (the event's format
-- file), NULL where it had none; class is 0 sleeping, 1 atomic, 2 opportunistic
-- (collector/gfp.h).
CREATE TABLE trace_failures (
	run_id        INTEGER NOT NULL,
	ts_ms         INTEGER NOT NULL,
	comm          BLOB,
	pid           INTEGER,
	page_order    INTEGER NOT NULL,
	gfp_mask      INTEGER,
	gfp_flags     TEXT NOT NULL,
	migratetype   INTEGER,
	nowarn        INTEGER NOT NULL,
	opportunistic INTEGER NOT NULL,
	atomic        INTEGER NOT NULL,
	class         INTEGER NOT NULL
);
CREATE INDEX trace_failures_run ON trace_failures (run_id, ts_ms);

-- Fallbacks of one kind counted at one tick (the tick that read them: every
-- tick from the pipe, or at the slow interval from the kernel's histograms).
-- fragmenting is NULL when the pageblock order was not known.
CREATE TABLE extfrag (
	run_id               INTEGER NOT NULL,
	ts_ms                INTEGER NOT NULL,
	alloc_order          INTEGER NOT NULL,
	fallback_order       INTEGER NOT NULL,
	alloc_migratetype    INTEGER NOT NULL,
	fallback_migratetype INTEGER NOT NULL,
	events               INTEGER NOT NULL,
	fragmenting          INTEGER,
	PRIMARY KEY (run_id, ts_ms, alloc_order, fallback_order, alloc_migratetype, fallback_migratetype)
) WITHOUT ROWID;

-- Rollups, kept when retention deletes the rows above.  trace_rollup has a row
-- for every minute and hour bucket whose ticks carried the trace (tracefs on),
-- zeros included, so rates and trends see the quiet buckets too.
CREATE TABLE trace_rollup (
	run_id      INTEGER NOT NULL,
	tier        INTEGER NOT NULL,      -- 60000 or 3600000
	bucket_ms   INTEGER NOT NULL,
	n           INTEGER NOT NULL,      -- ticks that carried the trace
	failures    INTEGER NOT NULL,
	extfrag     INTEGER NOT NULL,
	fragmenting INTEGER NOT NULL,
	PRIMARY KEY (run_id, tier, bucket_ms)
) WITHOUT ROWID;

CREATE TABLE trace_fail_rollup (
	run_id     INTEGER NOT NULL,
	tier       INTEGER NOT NULL,
	bucket_ms  INTEGER NOT NULL,
	page_order INTEGER NOT NULL,
	class      INTEGER NOT NULL,
	failures   INTEGER NOT NULL,
	PRIMARY KEY (run_id, tier, bucket_ms, page_order, class)
) WITHOUT ROWID;

-- A kernel-log failure and a traced one are the same failure when the same
-- task failed the same request (order and GFP names, which both sources print
-- from the same kernel table) within 2 s: printk and the trace stamp it on
-- different clocks (0.12 s apart in the Xen test guest).  A trace comm of
-- "<...>" matches any.
CREATE VIEW trace_kmsg_link AS
SELECT t.rowid AS trace_rowid, k.rowid AS kmsg_rowid
  FROM trace_failures t JOIN kmsg_events k
    ON k.run_id = t.run_id AND k.kind = 'alloc_fail' AND k.page_order = t.page_order
   AND k.ts_ms BETWEEN t.ts_ms - 2000 AND t.ts_ms + 2000
   AND coalesce(k.gfp_flags, '') = t.gfp_flags
   AND (t.comm = k.comm OR t.comm = CAST('<...>' AS BLOB));

CREATE VIEW v_page_alloc_failures AS
SELECT t.run_id, t.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', t.ts_ms / 1000.0, 'unixepoch') AS ts,
       t.page_order, CASE WHEN t.gfp_mask IS NULL THEN NULL ELSE printf('0x%x', t.gfp_mask) END AS gfp_mask,
       t.gfp_flags, t.migratetype, t.comm, t.pid, t.nowarn, t.opportunistic,
       t.atomic, CASE t.class WHEN 2 THEN 'opportunistic' WHEN 1 THEN 'atomic' ELSE 'sleeping' END AS class,
       EXISTS (SELECT 1 FROM trace_kmsg_link l WHERE l.trace_rowid = t.rowid) AS in_kmsg
  FROM trace_failures t;

CREATE VIEW v_extfrag AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       alloc_order, fallback_order, alloc_migratetype, fallback_migratetype, events, fragmenting
  FROM extfrag;

CREATE VIEW v_extfrag_1m AS
SELECT run_id, bucket_ms AS ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', bucket_ms / 1000.0, 'unixepoch') AS ts,
       n AS samples, extfrag AS events, fragmenting, failures AS page_alloc_failures
  FROM trace_rollup WHERE tier = 60000;

CREATE VIEW v_extfrag_1h AS
SELECT run_id, bucket_ms AS ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', bucket_ms / 1000.0, 'unixepoch') AS ts,
       n AS samples, extfrag AS events, fragmenting, failures AS page_alloc_failures
  FROM trace_rollup WHERE tier = 3600000;

CREATE VIEW v_page_alloc_failures_1h AS
SELECT run_id, bucket_ms AS ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', bucket_ms / 1000.0, 'unixepoch') AS ts,
       page_order, CASE class WHEN 2 THEN 'opportunistic' WHEN 1 THEN 'atomic' ELSE 'sleeping' END AS class, failures
  FROM trace_fail_rollup WHERE tier = 3600000;

-- The kernel log's failures, now saying whether the trace saw the same one.
DROP VIEW v_alloc_failures;
CREATE VIEW v_alloc_failures AS
SELECT k.run_id, k.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', k.ts_ms / 1000.0, 'unixepoch') AS ts,
       k.comm, k.pid, k.page_order, printf('0x%x', k.gfp_mask) AS gfp_mask, k.gfp_flags, k.nodemask, k.raw,
       k.seq, k.boot_id,
       EXISTS (SELECT 1 FROM trace_kmsg_link l WHERE l.kmsg_rowid = k.rowid) AS in_trace
  FROM kmsg_events k WHERE k.kind = 'alloc_fail';

-- The run's tracefs note: "tracefs=on (instance; events; aggregation; what
-- making it cost)" or "tracefs=off (reason)"; no row for a run before schema 8.
-- Its own view, not a v_runs column: v_runs is redefined by migrations
-- numbered after this one, and a view this migration made would be dropped.
CREATE VIEW v_run_trace AS
SELECT r.run_id,
       (SELECT n.text FROM run_notes n WHERE n.run_id = r.run_id AND n.kind = 'tracefs'
         ORDER BY n.ts_ms DESC LIMIT 1) AS tracefs
  FROM runs r
 WHERE EXISTS (SELECT 1 FROM run_notes n WHERE n.run_id = r.run_id AND n.kind = 'tracefs');
