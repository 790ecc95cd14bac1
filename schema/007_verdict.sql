-- SPDX-License-Identifier: GPL-2.0-only
-- 007_verdict: what a run actually ran under, every death counted once, the
-- request (not the zone) per tick, and each rollup bucket's exact tick span.

-- The confinement in force, read back from the kernel at start
-- (churn/churn.h: churn_confinement), not the configuration that asked for it:
-- a run whose group could not be made is recorded unconfined, with why.
ALTER TABLE churn_info ADD COLUMN cgroup_group TEXT;          -- memory group (v2: the group); NULL unconfined
ALTER TABLE churn_info ADD COLUMN cgroup_pids_group TEXT;     -- v1 pids group; NULL if none
ALTER TABLE churn_info ADD COLUMN cgroup_memory_max INTEGER;  -- bytes read back, 0 = no limit; NULL unconfined
ALTER TABLE churn_info ADD COLUMN cgroup_pids_max INTEGER;    -- read back, 0 = no limit; NULL unconfined
ALTER TABLE churn_info ADD COLUMN unconfined_reason TEXT;     -- why there is no group; NULL when confined
ALTER TABLE churn_info ADD COLUMN confinement_exact INTEGER;  -- 1: read back (schema 7); NULL: older runs

-- Every death counted once (churn/churn_ctl.h): the spawner's own SIGKILLs of
-- churn workers, and the capacity-probe workers' own accounting, per tick
-- interval like the churn counts; probe_population is a level (alive at the
-- tick).  oom_unattributed moves by the memory cgroup's OOM kills that matched
-- no worker's death yet (it may fall when a victim is reaped later).
ALTER TABLE samples ADD COLUMN killed_ours INTEGER;
ALTER TABLE samples ADD COLUMN probe_spawned INTEGER;
ALTER TABLE samples ADD COLUMN probe_spawn_failed INTEGER;
ALTER TABLE samples ADD COLUMN probe_exited INTEGER;
ALTER TABLE samples ADD COLUMN probe_killed_sigkill INTEGER;
ALTER TABLE samples ADD COLUMN probe_killed_other INTEGER;
ALTER TABLE samples ADD COLUMN probe_oom_killed INTEGER;
ALTER TABLE samples ADD COLUMN probe_killed_ours INTEGER;
ALTER TABLE samples ADD COLUMN oom_unattributed INTEGER;
ALTER TABLE samples ADD COLUMN probe_population INTEGER;
ALTER TABLE tick_rollup ADD COLUMN killed_ours_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_spawned_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_spawn_failed_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_exited_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_killed_sigkill_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_killed_other_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_oom_killed_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_killed_ours_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN oom_unattributed_sum INTEGER;
ALTER TABLE tick_rollup ADD COLUMN probe_population_sum INTEGER;

-- Exposure is the exact tick span: each bucket keeps its first and last tick,
-- so a run's first sample survives retention (a bucket's start is not a
-- sample: a run started at 13:04:54 did not start at 13:04:00).  NULL in
-- buckets written before schema 7.
ALTER TABLE tick_rollup ADD COLUMN first_ms INTEGER;
ALTER TABLE tick_rollup ADD COLUMN last_ms INTEGER;

-- The request per tick (analysis/atomic.h atomic_request_eval): bit k of each
-- mask is order k; req_zones_lo/hi pack, 8 bits per order (orders 0-7, 8-15),
-- the zone_id GFP_ATOMIC would be served from (255: none).  NULL when the tick
-- had no verdict (zoneinfo or buddyinfo unreadable, kernel version unknown).
ALTER TABLE samples ADD COLUMN req_norders INTEGER;
ALTER TABLE samples ADD COLUMN req_atomic_mask INTEGER;
ALTER TABLE samples ADD COLUMN req_nowait_mask INTEGER;
ALTER TABLE samples ADD COLUMN req_kernel_mask INTEGER;
ALTER TABLE samples ADD COLUMN req_zones_lo INTEGER;
ALTER TABLE samples ADD COLUMN req_zones_hi INTEGER;

-- The request per minute and hour, like buddy_rollup per order: ticks with a verdict at the order, and
-- how many failed (GFP_KERNEL: even by reclaim and compaction), and failed where GFP_KERNEL would pass.
CREATE TABLE request_rollup (
	run_id      INTEGER NOT NULL,
	tier        INTEGER NOT NULL,
	bucket_ms   INTEGER NOT NULL,
	page_order  INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	atomic_fail INTEGER NOT NULL,
	nowait_fail INTEGER NOT NULL,
	kernel_fail INTEGER NOT NULL,
	atomic_only INTEGER NOT NULL,
	nowait_only INTEGER NOT NULL,
	PRIMARY KEY (run_id, tier, page_order, bucket_ms)
) WITHOUT ROWID;

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
       c.confinement_exact, c.pop_cap
  FROM runs r LEFT JOIN churn_info c USING (run_id);

DROP VIEW v_churn;
CREATE VIEW v_churn AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       population, spawned, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other, exited, killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error,
       coalesce(killed_ours, 0) AS killed_ours, coalesce(probe_population, 0) AS probe_population,
       coalesce(probe_spawned, 0) AS probe_spawned, coalesce(probe_spawn_failed, 0) AS probe_spawn_failed,
       coalesce(probe_exited, 0) AS probe_exited, coalesce(probe_killed_sigkill, 0) AS probe_killed_sigkill,
       coalesce(probe_killed_other, 0) AS probe_killed_other, coalesce(probe_oom_killed, 0) AS probe_oom_killed,
       coalesce(probe_killed_ours, 0) AS probe_killed_ours, coalesce(oom_unattributed, 0) AS oom_unattributed
  FROM samples WHERE population IS NOT NULL;

CREATE VIEW v_atomic_request AS
SELECT s.run_id, s.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch') AS ts,
       o.k AS page_order,
       (s.req_atomic_mask >> o.k) & 1 AS atomic_ok,
       (s.req_nowait_mask >> o.k) & 1 AS nowait_ok,
       (s.req_kernel_mask >> o.k) & 1 AS kernel_ok,
       z.name AS zone_used, z.node AS zone_node
  FROM samples s JOIN orders o ON o.k < s.req_norders
  LEFT JOIN zones z ON z.zone_id =
       (((CASE WHEN o.k < 8 THEN s.req_zones_lo ELSE s.req_zones_hi END) >> (8 * (o.k % 8))) & 255)
 WHERE s.req_norders IS NOT NULL;
