-- SPDX-License-Identifier: GPL-2.0-only
-- 009_gfp: the optional fpusoak_gfp module (issue 19, kmod/).
--
-- runs.gfp_mode: the --gfp-mode in force, as the daemon found it at start:
--   off | kernel | atomic | nowait | alternate, or "off (module not loaded)"
--   (the normal case: no /dev/fpusoak_gfp).  NULL for runs before schema 9.
-- samples.gfp_failed and probe_gfp_failed (tick_rollup: *_sum): churn and
--   capacity-probe workers that SIGKILLed themselves because the allocator
--   refused their HOLD, in the tick's interval.  A cause of its own, in neither
--   killed_sigkill nor killed_ours: every death is still counted once
--   (schema 7).  v_churn shows 0 for ticks written before schema 9 (no worker
--   could hold then).
-- probes.gfp_mode: the mode a capacity probe's workers held in (NULL: none);
--   its detail carries gfp_failed=N, and a probe ended by a refusal says
--   stop_reason gfp_failed:<mode>.
-- model_check: the allocator's answer beside the atomic model's prediction
--   for the same tick, one row per order of interest and mode (2 = atomic,
--   3 = nowait: the module's numbers); margin_pages as sampler_predict says
--   (the best passing zone's margin, else the best of all).

ALTER TABLE runs ADD COLUMN gfp_mode TEXT;
ALTER TABLE samples ADD COLUMN gfp_failed INTEGER;
ALTER TABLE samples ADD COLUMN probe_gfp_failed INTEGER;
ALTER TABLE tick_rollup ADD COLUMN gfp_failed_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_gfp_failed_sum INTEGER;
ALTER TABLE probes ADD COLUMN gfp_mode TEXT;

CREATE TABLE model_check (
	run_id       INTEGER NOT NULL,
	ts_ms        INTEGER NOT NULL,       -- the tick whose zoneinfo and buddyinfo the model used
	page_order   INTEGER NOT NULL,
	mode         INTEGER NOT NULL,       -- 2 atomic, 3 nowait
	predicted_ok INTEGER NOT NULL,
	actual_ok    INTEGER NOT NULL,
	margin_pages INTEGER,
	PRIMARY KEY (run_id, ts_ms, page_order, mode)
) WITHOUT ROWID;

CREATE VIEW v_model_check AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       page_order, CASE mode WHEN 2 THEN 'atomic' WHEN 3 THEN 'nowait' ELSE 'kernel' END AS mode,
       predicted_ok, actual_ok, margin_pages
  FROM model_check;

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
       c.fpu_kind, c.amx_ok, c.cgroup, c.seed, c.note AS churn_note,
       c.cgroup_group, c.cgroup_pids_group, c.cgroup_memory_max, c.cgroup_pids_max, c.unconfined_reason,
       c.confinement_exact, c.pop_cap,
       r.gfp_mode
  FROM runs r LEFT JOIN churn_info c USING (run_id);

DROP VIEW v_churn;
CREATE VIEW v_churn AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       population, spawned, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other, exited, killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error,
       coalesce(killed_ours, 0) AS killed_ours, coalesce(probe_population, 0) AS probe_population,
       coalesce(probe_spawned, 0) AS probe_spawned, coalesce(probe_spawn_failed, 0) AS probe_spawn_failed,
       coalesce(probe_exited, 0) AS probe_exited, coalesce(probe_killed_sigkill, 0) AS probe_killed_sigkill,
       coalesce(probe_killed_other, 0) AS probe_killed_other, coalesce(probe_oom_killed, 0) AS probe_oom_killed,
       coalesce(probe_killed_ours, 0) AS probe_killed_ours, coalesce(oom_unattributed, 0) AS oom_unattributed,
       coalesce(gfp_failed, 0) AS gfp_failed, coalesce(probe_gfp_failed, 0) AS probe_gfp_failed
  FROM samples WHERE population IS NOT NULL;

DROP VIEW v_probes;
CREATE VIEW v_probes AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       kind, result, stop_reason, duration_ms, detail, buddyinfo_before, gfp_mode
  FROM probes;
