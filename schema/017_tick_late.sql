-- SPDX-License-Identifier: GPL-2.0-only
-- 017_tick_late: ticks that started late, and the periods that passed with no tick (issue 36).
--
-- The sampler's timer is periodic; a tick that runs late_ms after the period it answers, or after
-- missed periods that had no tick of their own (the loop was busy, or the machine gave the daemon
-- no CPU), gets one row here.  On-time ticks (less than 50 ms late, none missed) have none, so the
-- table stays empty on a healthy run.  v_tick_late is the documented view (v_samples is unchanged:
-- a gap there is explained by the v_tick_late row of the tick that ends it).
--
-- applied-if-table: tick_late
CREATE TABLE tick_late (
	run_id  INTEGER NOT NULL,
	ts_ms   INTEGER NOT NULL,           -- the tick's samples row
	late_ms INTEGER NOT NULL,           -- how long after its period's start the tick began
	missed  INTEGER NOT NULL,           -- periods before this tick that had no tick
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

CREATE VIEW v_tick_late AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts, late_ms, missed
  FROM tick_late;
