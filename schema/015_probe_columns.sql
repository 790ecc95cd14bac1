-- SPDX-License-Identifier: GPL-2.0-only
-- 015_probe_columns: a probe's conditions and figures as columns (issue 33).
-- applied-if-table: probe_capacity
--
-- Until now the spawner wrote what a probe ran under as one "key=value ..." text (probes.detail):
-- nineteen fields for a capacity probe, thirteen for an FPU-cost probe.  They are columns now:
--   probe_capacity: where and under which limits a capacity probe ran, as it ran (scope, the
--     --probe-limit in force, workers spawned and ready, OOM kills, worker memory, FPU kind, the
--     memory limit in force (0 while a guest-scope probe lifted it) and the group's peak, retire and
--     release times, where fork's kernel objects were charged, the group (v1:NAME, v2:NAME or none),
--     whether the limit was lifted, the pids limit, workers killed by a refused HOLD, the
--     --probe-timeout in force and which bound ended it: fill, step, or none);
--   probe_switch: an FPU-cost probe's two passes (threads, yields, system and user microseconds,
--     wall time).  A probe whose child never reported has no row.
-- New probes leave probes.detail NULL.  v_probes keeps its columns and its values: its detail is the
-- stored text where there is one (every probe written before this migration, kept as it was), else
-- the same text made from the columns, field for field as the spawner printed it.  The probes
-- written before are also parsed into the new tables where their text has the fields (a capacity
-- probe's scope=, a switch probe's threads=); a field an older fpusoakd did not write stays NULL.
-- v_probe_capacity and v_probe_switch are the columns with the run, the time and the probe's result.

CREATE TABLE probe_capacity (
	run_id           INTEGER NOT NULL,
	ts_ms            INTEGER NOT NULL,   -- probes.ts_ms of the capacity probe
	scope            TEXT,               -- cgroup | guest
	probe_limit      INTEGER,            -- --probe-limit in force
	spawned          INTEGER,            -- probe workers started
	ready            INTEGER,            -- ... that reported ready
	oom_kills        INTEGER,            -- OOM kills in the workers' group during the fill
	worker_memory    INTEGER,            -- bytes each worker touched
	fpu              TEXT,               -- the FPU kind the workers touched
	mem_limit        INTEGER,            -- memory limit in force, bytes (0: none, or lifted for guest scope)
	mem_peak         INTEGER,            -- the group's memory peak during the probe, bytes (0: unknown)
	retire_ms        INTEGER,            -- retiring the churn workers took
	release_ms       INTEGER,            -- releasing the probe workers took
	fork_charge      TEXT,               -- group | outside | none: where fork's kernel objects were charged
	cgroup           TEXT,               -- v1:NAME | v2:NAME | none
	mem_limit_lifted INTEGER,            -- 1: a guest-scope probe lifted the memory limit
	pids_limit       INTEGER,            -- pids limit in force (0: none)
	gfp_failed       INTEGER,            -- probe workers that died of a refused HOLD
	time_limit_ms    INTEGER,            -- --probe-timeout in force (0: none)
	timeout          TEXT,               -- fill | step: the bound that ended it; NULL when none did
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

CREATE TABLE probe_switch (
	run_id       INTEGER NOT NULL,
	ts_ms        INTEGER NOT NULL,       -- probes.ts_ms of the FPU-cost probe
	fpu          TEXT,
	threads      INTEGER,                -- threads started in the FPU pass
	yields       INTEGER,                -- sched_yield calls in the FPU pass
	sys_us       INTEGER,
	user_us      INTEGER,
	base_yields  INTEGER,                -- ... in the pass without FPU use
	base_sys_us  INTEGER,
	base_user_us INTEGER,
	wall_ms      INTEGER,                -- both passes
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

-- The old texts, split into (probe, key, value): "a=1 b=x" gives (a, 1) and (b, x).
CREATE TEMP TABLE probe_kv AS
WITH RECURSIVE split(run_id, ts_ms, kind, rest, pair) AS (
	SELECT run_id, ts_ms, kind, detail || ' ', NULL FROM probes WHERE detail IS NOT NULL AND detail <> ''
	UNION ALL
	SELECT run_id, ts_ms, kind, substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1)
	  FROM split WHERE rest <> '' AND instr(rest, ' ') > 0
)
SELECT run_id, ts_ms, kind, substr(pair, 1, instr(pair, '=') - 1) AS k, substr(pair, instr(pair, '=') + 1) AS v
  FROM split WHERE pair IS NOT NULL AND instr(pair, '=') > 1;
CREATE INDEX temp.probe_kv_key ON probe_kv (run_id, ts_ms, kind, k);

INSERT INTO probe_capacity
SELECT p.run_id, p.ts_ms,
       (SELECT v FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'scope'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'limit'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'spawned'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'ready'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'oom_kills'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'worker_memory'),
       (SELECT v FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'fpu'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'mem_limit'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'mem_peak'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'retire_ms'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'release_ms'),
       (SELECT v FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'fork_charge'),
       (SELECT v FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'cgroup'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'mem_limit_lifted'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'pids_limit'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'gfp_failed'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'time_limit_ms'),
       (SELECT v FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'timeout')
  FROM probes p
 WHERE p.kind = 'capacity'
   AND EXISTS (SELECT 1 FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'scope');

INSERT INTO probe_switch
SELECT p.run_id, p.ts_ms,
       (SELECT v FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'fpu'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'threads'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'yields'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'sys_us'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'user_us'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'base_yields'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'base_sys_us'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'base_user_us'),
       (SELECT CAST(v AS INTEGER) FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'wall_ms')
  FROM probes p
 WHERE p.kind = 'switch'
   AND EXISTS (SELECT 1 FROM probe_kv k WHERE k.run_id = p.run_id AND k.ts_ms = p.ts_ms AND k.kind = p.kind AND k.k = 'threads');

DROP TABLE temp.probe_kv;

DROP VIEW v_probes;
CREATE VIEW v_probes AS
SELECT p.run_id, p.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', p.ts_ms / 1000.0, 'unixepoch') AS ts,
       p.kind, p.result, p.stop_reason, p.duration_ms,
       coalesce(p.detail,
                CASE WHEN c.run_id IS NOT NULL THEN
                     'scope=' || c.scope || ' limit=' || c.probe_limit || ' spawned=' || c.spawned ||
                     ' ready=' || c.ready || ' oom_kills=' || c.oom_kills || ' worker_memory=' || c.worker_memory ||
                     ' fpu=' || c.fpu || ' mem_limit=' || c.mem_limit || ' mem_peak=' || c.mem_peak ||
                     ' retire_ms=' || c.retire_ms || ' release_ms=' || c.release_ms ||
                     ' fork_charge=' || c.fork_charge || ' cgroup=' || c.cgroup ||
                     ' mem_limit_lifted=' || c.mem_limit_lifted || ' pids_limit=' || c.pids_limit ||
                     ' gfp_mode=' || coalesce(p.gfp_mode, 'off') || ' gfp_failed=' || c.gfp_failed ||
                     ' time_limit_ms=' || c.time_limit_ms || coalesce(' timeout=' || c.timeout, '')
                     WHEN s.run_id IS NOT NULL THEN
                     'fpu=' || s.fpu || ' threads=' || s.threads || ' yields=' || s.yields ||
                     ' sys_us=' || s.sys_us || ' user_us=' || s.user_us ||
                     ' sys_us_per_yield=' || printf('%.4f', CASE WHEN s.yields THEN 1.0 * s.sys_us / s.yields ELSE 0 END) ||
                     ' user_us_per_yield=' || printf('%.4f', CASE WHEN s.yields THEN 1.0 * s.user_us / s.yields ELSE 0 END) ||
                     ' base_yields=' || s.base_yields || ' base_sys_us=' || s.base_sys_us ||
                     ' base_user_us=' || s.base_user_us ||
                     ' base_sys_us_per_yield=' ||
                     printf('%.4f', CASE WHEN s.base_yields THEN 1.0 * s.base_sys_us / s.base_yields ELSE 0 END) ||
                     ' base_user_us_per_yield=' ||
                     printf('%.4f', CASE WHEN s.base_yields THEN 1.0 * s.base_user_us / s.base_yields ELSE 0 END) ||
                     ' wall_ms=' || s.wall_ms
                     ELSE '' END) AS detail,
       p.buddyinfo_before, p.gfp_mode
  FROM probes p
  LEFT JOIN probe_capacity c ON p.kind = 'capacity' AND c.run_id = p.run_id AND c.ts_ms = p.ts_ms
  LEFT JOIN probe_switch s ON p.kind = 'switch' AND s.run_id = p.run_id AND s.ts_ms = p.ts_ms;

CREATE VIEW v_probe_capacity AS
SELECT c.run_id, c.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', c.ts_ms / 1000.0, 'unixepoch') AS ts,
       p.result AS workers, p.stop_reason, p.duration_ms, p.gfp_mode,
       c.scope, c.probe_limit, c.spawned, c.ready, c.oom_kills, c.worker_memory, c.fpu, c.mem_limit, c.mem_peak,
       c.retire_ms, c.release_ms, c.fork_charge, c.cgroup, c.mem_limit_lifted, c.pids_limit, c.gfp_failed,
       c.time_limit_ms, c.timeout
  FROM probe_capacity c JOIN probes p ON p.run_id = c.run_id AND p.ts_ms = c.ts_ms AND p.kind = 'capacity';

CREATE VIEW v_probe_switch AS
SELECT s.run_id, s.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch') AS ts,
       p.result AS sys_us_per_yield, p.stop_reason, p.duration_ms,
       s.fpu, s.threads, s.yields, s.sys_us, s.user_us, s.base_yields, s.base_sys_us, s.base_user_us, s.wall_ms
  FROM probe_switch s JOIN probes p ON p.run_id = s.run_id AND p.ts_ms = s.ts_ms AND p.kind = 'switch';
