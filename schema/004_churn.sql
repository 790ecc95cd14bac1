-- SPDX-License-Identifier: GPL-2.0-only
-- 004_churn: the process side of the soak.  Per-tick churn accounting
-- (counts during the interval ending at ts_ms, plus the population at
-- ts_ms), probe results, and what the spawner resolved at the run's start.

CREATE TABLE churn (
	run_id              INTEGER NOT NULL,
	ts_ms               INTEGER NOT NULL,
	population          INTEGER NOT NULL,    -- churn workers alive at ts_ms
	spawned             INTEGER NOT NULL,
	spawn_failed_eagain INTEGER NOT NULL,
	spawn_failed_enomem INTEGER NOT NULL,
	spawn_failed_other  INTEGER NOT NULL,
	exited              INTEGER NOT NULL,    -- exit() of any code (incl. retired by us and setup errors)
	killed_sigkill      INTEGER NOT NULL,
	killed_sigsegv      INTEGER NOT NULL,
	killed_sigill       INTEGER NOT NULL,
	killed_other        INTEGER NOT NULL,
	oom_killed          INTEGER NOT NULL,    -- memory-cgroup oom_kill events (a subset of the kills)
	exited_error        INTEGER NOT NULL,    -- worker setup failed (cgroup move, FPU, memory)
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

CREATE VIEW v_churn AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       population, spawned, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other, exited,
       killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error
  FROM churn;

CREATE TABLE probes (
	run_id       INTEGER NOT NULL,
	ts_ms        INTEGER NOT NULL,       -- when the probe started
	kind         TEXT NOT NULL,          -- capacity|switch
	result       REAL,                   -- capacity: workers held; switch: system us per yield
	stop_reason  TEXT,
	duration_ms  INTEGER,
	detail       TEXT,                   -- "key=value ..."
	buddyinfo_before TEXT,               -- capacity: /proc/buddyinfo right before the fill
	PRIMARY KEY (run_id, ts_ms, kind)
) WITHOUT ROWID;

CREATE VIEW v_probes AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       kind, result, stop_reason, duration_ms, detail, buddyinfo_before
  FROM probes;

-- What the spawner resolved: the FPU kind in use (auto → avx512 ...), AMX, the cgroup.
CREATE TABLE churn_info (
	run_id     INTEGER PRIMARY KEY,
	fpu_kind   TEXT,
	amx_ok     INTEGER,
	cgroup     TEXT,                     -- v1|v2|none
	pop_cap    INTEGER,
	seed       INTEGER,
	note       TEXT
);

DROP VIEW v_runs;
CREATE VIEW v_runs AS
SELECT r.run_id, r.label,
       strftime('%Y-%m-%dT%H:%M:%fZ', r.started_ms / 1000.0, 'unixepoch') AS started_at,
       CASE WHEN r.ended_ms IS NULL THEN NULL
            ELSE strftime('%Y-%m-%dT%H:%M:%fZ', r.ended_ms / 1000.0, 'unixepoch') END AS ended_at,
       r.end_reason, r.kernel_release, r.hypervisor, r.guest_type, r.cpu_model, r.fpu_features,
       r.xstate_bytes, r.mem_total_kb,
       r.started_ms, r.ended_ms, r.kernel_version, r.cmdline, r.page_size, r.boot_id, r.hostname, r.version,
       r.xstate_detail, r.config,
       c.fpu_kind, c.amx_ok, c.cgroup, c.seed, c.note AS churn_note
  FROM runs r LEFT JOIN churn_info c USING (run_id);
