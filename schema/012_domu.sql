-- SPDX-License-Identifier: GPL-2.0-only
-- 012: the Xen domain a run was in (issue 21).  xen_domain is 'dom0' (the
-- control domain: /proc/xen/capabilities says control_d) or 'domU' (a
-- guest), NULL when not under Xen or when it cannot be told; xen_domid is
-- the domain's id (0 for dom0; a guest's from the Xen store), NULL when
-- unknown.  v_runs keeps every column it had (009's gfp_mode included) and
-- adds both.
ALTER TABLE runs ADD COLUMN xen_domain TEXT;
ALTER TABLE runs ADD COLUMN xen_domid INTEGER;

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
       r.xen_domain, r.xen_domid
  FROM runs r LEFT JOIN churn_info c USING (run_id);
