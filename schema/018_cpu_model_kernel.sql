-- SPDX-License-Identifier: GPL-2.0-only
-- 018: the CPU's name as the kernel tells it (issue 34).  runs.cpu_model is CPUID's brand string
-- (leaves 0x80000002-4), which a hypervisor may set apart from what it gave the kernel: one AMD EPYC
-- virtual machine says "Oxide Virtual Turin-like Processor" to CPUID and "AMD EPYC" in
-- /proc/cpuinfo.  cpu_model_kernel is /proc/cpuinfo's first "model name"; NULL where the kernel
-- prints none (not x86) or before this schema.  v_runs keeps every column it had and adds it.
ALTER TABLE runs ADD COLUMN cpu_model_kernel TEXT;

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
       r.gfp_mode,
       r.xen_domain, r.xen_domid,
       r.cpu_model_kernel
  FROM runs r LEFT JOIN churn_info c USING (run_id);
