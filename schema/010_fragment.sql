-- SPDX-License-Identifier: GPL-2.0-only
-- 010_fragment: the fragmenting background load (--fragment, churn/fragload.h).  What it held
-- at every tick while it ran, and the recipe it ran with.  Raw rows: --retain-raw deletes them
-- with the samples.
-- Merged after 012 was on main: a database made at 012 gets it late
-- (store/writer.c); it only creates tables and views of its own.
-- applied-if-table: fragment

CREATE TABLE fragment (
	run_id        INTEGER NOT NULL,
	ts_ms         INTEGER NOT NULL,
	state         INTEGER NOT NULL,      -- enum fragload_state: 1 filling 2 holding 3 freeing 4 resting 5 paused 6 stopping
	cycles        INTEGER NOT NULL,      -- cycles completed
	anon_bytes    INTEGER NOT NULL,      -- anonymous pages touched and held
	pipe_bytes    INTEGER NOT NULL,      -- pipe buffer pages queued, and each pipe's kept tmp_page
	pgtable_bytes INTEGER NOT NULL,      -- PTE pages of its sparse mapping
	socket_bytes  INTEGER NOT NULL,      -- truesize of queued AF_UNIX messages (SIOCOUTQ)
	files         INTEGER NOT NULL,      -- O_TMPFILE files held open
	kept_bytes    INTEGER NOT NULL,      -- of the above, in the long-lived set (files at 1 KiB each)
	alloc_failed  INTEGER NOT NULL,      -- units it could not allocate, since the run's start
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

CREATE TABLE fragment_info (
	run_id         INTEGER PRIMARY KEY,
	level          TEXT NOT NULL,        -- light|heavy (a run without the load has no row)
	base_bytes     INTEGER NOT NULL,     -- what the bound is a fraction of (workers' limit, or MemTotal)
	cap_bytes      INTEGER NOT NULL,     -- the bound
	keep_cap_bytes INTEGER NOT NULL,     -- the long-lived set's bound
	recipe         TEXT NOT NULL         -- "key=value ..." per-cycle units, timing, notes
);

CREATE VIEW v_fragment AS
SELECT f.run_id, f.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', f.ts_ms / 1000.0, 'unixepoch') AS ts,
       i.level,
       CASE f.state WHEN 1 THEN 'filling' WHEN 2 THEN 'holding' WHEN 3 THEN 'freeing' WHEN 4 THEN 'resting'
                    WHEN 5 THEN 'paused' WHEN 6 THEN 'stopping' ELSE 'unknown' END AS state,
       f.cycles, f.anon_bytes, f.pipe_bytes, f.pgtable_bytes, f.socket_bytes, f.files,
       f.anon_bytes + f.pipe_bytes + f.pgtable_bytes + f.socket_bytes AS held_bytes,
       f.kept_bytes, f.alloc_failed, i.cap_bytes
  FROM fragment f LEFT JOIN fragment_info i USING (run_id);

CREATE VIEW v_fragment_runs AS
SELECT run_id, level, base_bytes, cap_bytes, keep_cap_bytes, recipe FROM fragment_info;
