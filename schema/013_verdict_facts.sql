-- SPDX-License-Identifier: GPL-2.0-only
-- 013: the facts a comparison needs to say what differed and whose failures it counts (issue 31).
--
-- run_vm: the kernel's knobs that change how it allocates, read once at the run's start:
-- vm.min_free_kbytes, vm.watermark_scale_factor, vm.watermark_boost_factor,
-- vm.compaction_proactiveness, vm.extfrag_threshold, vm.defrag_mode (where the kernel has it),
-- thp.enabled and thp.defrag (the bracketed choice of /sys/kernel/mm/transparent_hugepage/*).
-- A knob the kernel lacks has no row (absent is not 0).
--
-- run_procs: the run's own processes, as started: role 'daemon', 'spawner', 'load' (the
-- fragmenting load), 'web' (the front end), with pid, comm and the cgroup lines of the process
-- (memory, pids and the cgroup2 line of /proc/PID/cgroup, ';'-separated).  Workers and probes are
-- not listed one by one: they are the spawner's children, in the run's workers' group
-- (v_runs.cgroup_group).
--
-- task_ppid, task_cgroup of kmsg_events and trace_failures: the failing task as read from
-- /proc/PID when the record was read (the parent's pid; the cgroup lines as above), NULL when it
-- could not be (no pid in the record, or the task was gone or had another comm by then).  Whether a
-- failure was the run's own is decided from these stored facts by the reader (report/whose.h), so a
-- rule that changes never needs the data to change.
--
-- applied-if-table: run_vm
CREATE TABLE run_vm (
	run_id INTEGER NOT NULL,
	name   TEXT NOT NULL,
	value  TEXT NOT NULL,
	PRIMARY KEY (run_id, name)
) WITHOUT ROWID;

CREATE TABLE run_procs (
	run_id INTEGER NOT NULL,
	ts_ms  INTEGER NOT NULL,
	role   TEXT NOT NULL,
	pid    INTEGER NOT NULL,
	comm   BLOB,
	cgroup TEXT
);
CREATE INDEX run_procs_run ON run_procs (run_id);

ALTER TABLE kmsg_events ADD COLUMN task_ppid INTEGER;
ALTER TABLE kmsg_events ADD COLUMN task_cgroup TEXT;
ALTER TABLE trace_failures ADD COLUMN task_ppid INTEGER;
ALTER TABLE trace_failures ADD COLUMN task_cgroup TEXT;

CREATE VIEW v_run_vm AS
SELECT run_id, name, value FROM run_vm;

CREATE VIEW v_run_procs AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts, role, pid, comm, cgroup
  FROM run_procs;

-- Every failed allocation with what is known of its task: source 'kmsg' (the kernel log) or
-- 'trace' (the trace instance).
CREATE VIEW v_failure_tasks AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts, 'kmsg' AS source,
       comm, pid, task_ppid, task_cgroup, page_order, gfp_flags
  FROM kmsg_events WHERE kind = 'alloc_fail'
UNION ALL
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts, 'trace' AS source,
       comm, pid, task_ppid, task_cgroup, page_order, gfp_flags
  FROM trace_failures;
