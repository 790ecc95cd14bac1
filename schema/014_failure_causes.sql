-- SPDX-License-Identifier: GPL-2.0-only
-- 014_failure_causes: why each failed allocation failed (issue 32; analysis/cause.h, daemon/causes.h,
-- docs/failure-causes.md).  One row per failure the daemon classified, from one of three sources:
--   1 kmsg    a "page allocation failure" in the kernel log, judged against the Mem-Info dump the
--             kernel printed with it (exact: lag_ms 0);
--   2 trace   a failed mm_page_alloc of fpusoakd's tracefs instance (__GFP_NOWARN ones included),
--   3 module  a refusal of the fpusoak_gfp module (a worker's HOLD, a model check's TRY),
--             both judged against the nearest zoneinfo + buddyinfo sample within 1 s (lag_ms is the
--             failure's time minus the sample's; NULL when there was none, and the cause is unknown).
-- One failure may be seen by more than one source (a refused HOLD warns in the kernel log and is
-- traced): counts are per source.
-- cause: 0 unknown, 1 watermark, 2 fragmentation, 3 reserve.  decided_node/decided_name: the zone
-- that decided (the first of the request's zonelist for watermark, else the first that passed the
-- free-page test); free_kb its free pages; min_kb the level they had to exceed there (min after the
-- request's ALLOC_* cuts + lowmem_reserve[highest zone] + what it may not count); largest_order the
-- largest order with a free block there the request could use.  note: why, in a phrase.
-- Columns do not contain "zone" in their names: an import refuses a column naming zones it cannot map.
-- applied-if-table: failure_cause

CREATE TABLE failure_cause (
	run_id        INTEGER NOT NULL,
	ts_ms         INTEGER NOT NULL,
	source        INTEGER NOT NULL,
	comm          BLOB,
	pid           INTEGER,
	page_order    INTEGER NOT NULL,
	gfp_flags     TEXT,
	decided_node  INTEGER,
	decided_name  TEXT,
	free_kb       INTEGER,
	min_kb        INTEGER,
	largest_order INTEGER,
	cause         INTEGER NOT NULL,
	lag_ms        INTEGER,
	note          TEXT
);
CREATE INDEX failure_cause_run ON failure_cause (run_id, ts_ms);

-- Minute and hour counts by source, cause and order (15: 15 and above), kept when retention deletes
-- the rows above; buckets without a failure have no row.
CREATE TABLE failure_cause_rollup (
	run_id     INTEGER NOT NULL,
	tier       INTEGER NOT NULL,      -- 60000 or 3600000
	bucket_ms  INTEGER NOT NULL,
	source     INTEGER NOT NULL,
	cause      INTEGER NOT NULL,
	page_order INTEGER NOT NULL,
	failures   INTEGER NOT NULL,
	PRIMARY KEY (run_id, tier, bucket_ms, source, cause, page_order)
) WITHOUT ROWID;

CREATE VIEW v_failure_causes AS
SELECT run_id, ts_ms,
       CASE source WHEN 1 THEN 'kmsg' WHEN 2 THEN 'trace' ELSE 'module' END AS source,
       comm, pid, page_order, gfp_flags, decided_name AS zone, free_kb, min_kb,
       largest_order AS largest_usable_order,
       CASE cause WHEN 1 THEN 'watermark' WHEN 2 THEN 'fragmentation' WHEN 3 THEN 'reserve' ELSE 'unknown' END AS cause,
       lag_ms
  FROM failure_cause;

CREATE VIEW v_failure_causes_1h AS
SELECT run_id, bucket_ms AS ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', bucket_ms / 1000.0, 'unixepoch') AS ts,
       CASE source WHEN 1 THEN 'kmsg' WHEN 2 THEN 'trace' ELSE 'module' END AS source,
       CASE cause WHEN 1 THEN 'watermark' WHEN 2 THEN 'fragmentation' WHEN 3 THEN 'reserve' ELSE 'unknown' END AS cause,
       page_order, failures
  FROM failure_cause_rollup WHERE tier = 3600000;
