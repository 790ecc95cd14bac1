-- SPDX-License-Identifier: GPL-2.0-only
-- 003_rollups: per-minute and per-hour tiers of the buddyinfo-derived series,
-- so a 30-day report reads ~43,000 minute rows per zone and order instead of
-- 2.6 million raw ones.  Rollups are kept for the life of the DB; raw rows
-- are deleted after --retain-raw.
--
-- A bucket row is written once its bucket is complete (the writer rolls up
-- minute m when the first tick of a later minute arrives, hour h likewise
-- from its minute rows).  *_last is the value of the bucket's last tick.

CREATE TABLE buddy_rollup (
	run_id     INTEGER NOT NULL,
	tier       INTEGER NOT NULL,        -- bucket width in ms: 60000 or 3600000
	bucket_ms  INTEGER NOT NULL,        -- bucket start, epoch ms
	zone_id    INTEGER NOT NULL,
	page_order INTEGER NOT NULL,
	n          INTEGER NOT NULL,        -- raw ticks in the bucket
	free_min   INTEGER NOT NULL, free_max INTEGER NOT NULL, free_sum INTEGER NOT NULL, free_last INTEGER NOT NULL,
	head_min   INTEGER NOT NULL, head_max INTEGER NOT NULL, head_sum INTEGER NOT NULL, head_last INTEGER NOT NULL,
	unusable_max INTEGER NOT NULL,      -- worst unusable index in the bucket (x1000)
	PRIMARY KEY (run_id, tier, zone_id, page_order, bucket_ms)
) WITHOUT ROWID;

CREATE VIEW v_buddyinfo_1m AS
SELECT r.run_id, r.bucket_ms AS ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', r.bucket_ms / 1000.0, 'unixepoch') AS ts,
       z.node, z.name AS zone, r.page_order, r.n AS samples,
       r.free_min AS free_blocks_min, r.free_max AS free_blocks_max,
       CAST(r.free_sum AS REAL) / r.n AS free_blocks_mean, r.free_last AS free_blocks_last,
       r.head_min AS headroom_min, r.head_max AS headroom_max,
       CAST(r.head_sum AS REAL) / r.n AS headroom_mean, r.head_last AS headroom_last,
       round(r.unusable_max / 1000.0, 3) AS unusable_index_max
  FROM buddy_rollup r JOIN zones z USING (zone_id) WHERE r.tier = 60000;

CREATE VIEW v_buddyinfo_1h AS
SELECT r.run_id, r.bucket_ms AS ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', r.bucket_ms / 1000.0, 'unixepoch') AS ts,
       z.node, z.name AS zone, r.page_order, r.n AS samples,
       r.free_min AS free_blocks_min, r.free_max AS free_blocks_max,
       CAST(r.free_sum AS REAL) / r.n AS free_blocks_mean, r.free_last AS free_blocks_last,
       r.head_min AS headroom_min, r.head_max AS headroom_max,
       CAST(r.head_sum AS REAL) / r.n AS headroom_mean, r.head_last AS headroom_last,
       round(r.unusable_max / 1000.0, 3) AS unusable_index_max
  FROM buddy_rollup r JOIN zones z USING (zone_id) WHERE r.tier = 3600000;

-- Where the writer stands: the next bucket to roll up per run and tier.
CREATE TABLE rollup_state (
	run_id    INTEGER NOT NULL,
	tier      INTEGER NOT NULL,
	next_ms   INTEGER NOT NULL,
	PRIMARY KEY (run_id, tier)
) WITHOUT ROWID;
