/* SPDX-License-Identifier: GPL-2.0-only */
/* test_gate: the comparability gate's table, one condition at a time, and the scene. */
#include "report/gate.h"
#include "test.h"

static struct report_cond base(void)
{
	struct report_cond c;

	report_cond_init(&c);
	snprintf(c.cgroup, sizeof c.cgroup, "v1");
	c.conf_exact = 1;
	c.memory_max = 48 << 20;
	c.pids_max = 4097;
	c.has_churn = 1;
	c.workers = 32;
	c.lifetime_ms = 30000;
	c.worker_memory = 256 << 10;
	c.probe_limit = 2048;
	c.switch_threads = 64;
	c.sample_interval_ms = 1000;
	snprintf(c.spawn_rate, sizeof c.spawn_rate, "50");
	snprintf(c.lifetime_dist, sizeof c.lifetime_dist, "exp");
	snprintf(c.probe_scope, sizeof c.probe_scope, "cgroup");
	snprintf(c.fpu_kind, sizeof c.fpu_kind, "avx");
	snprintf(c.hypervisor, sizeof c.hypervisor, "xen");
	snprintf(c.guest_type, sizeof c.guest_type, "PV");
	c.mem_total_kb = 79424;
	c.xstate_bytes = 832;
	snprintf(c.kernel_release, sizeof c.kernel_release, "6.1.0-57-amd64");
	snprintf(c.tracefs, sizeof c.tracefs, "on");
	c.trace_kb = 9440;
	return c;
}

static const char *kind_name[REPORT_LINE_NKINDS] = { "capacity", "FPU cost", "headroom", "alloc failures",
						     "spawn failures", "spawns/s", "atomic risk",
						     "traced failures", "fragmenting fallbacks", "churn OOM kills" };

/* Check one condition against a row of the table: 'H' not comparable, 'c' comparable with a caveat, '-' neither. */
static void row(const char *what, const struct report_cond *a, const struct report_cond *b, const char *want)
{
	for (int k = 0; k < REPORT_LINE_NKINDS; k++) {
		struct report_gate g;
		report_gate_line((enum report_line_kind)k, a, b, &g);
		char got = !g.comparable ? 'H' : g.ncaveats ? 'c' : '-';
		T_CHECK(got == want[k], "%s, %s: %c (%s)", what, kind_name[k], want[k],
			!g.comparable ? g.why : g.ncaveats ? g.caveat[0] : "no caveat");
	}
}

int main(void)
{
	struct report_cond a = base(), b = base();
	struct report_gate g;

	row("equal settings", &a, &b, "----------");
	b = base(); snprintf(b.cgroup, sizeof b.cgroup, "none"); snprintf(b.unconfined_why, sizeof b.unconfined_why, "x");
	row("B unconfined, cgroup scope", &a, &b, "H-HHHHHHHH");
	snprintf(a.probe_scope, sizeof a.probe_scope, "guest");
	snprintf(b.probe_scope, sizeof b.probe_scope, "guest");
	row("B unconfined, both guest scope", &a, &b, "--HHHHHHHH");
	a = base(); b = base(); snprintf(b.cgroup, sizeof b.cgroup, "v2");
	row("v1 vs v2", &a, &b, "H-cccccccc");
	b = base(); b.memory_max = 64 << 20;
	row("memory limit", &a, &b, "H-cccccccH");
	snprintf(a.probe_scope, sizeof a.probe_scope, "guest");
	snprintf(b.probe_scope, sizeof b.probe_scope, "guest");
	row("memory limit, both guest scope (lifted during the fill)", &a, &b, "--cccccccH");
	a = base(); b = base(); b.pids_max = 201;
	row("pids limit", &a, &b, "H-ccHHcccc");
	b = base(); b.worker_memory = 1 << 20;
	row("worker memory", &a, &b, "H-HHccHHHH");
	b = base(); b.workers = 64;
	row("workers", &a, &b, "ccHHHHHHHH");
	b = base(); snprintf(b.spawn_rate, sizeof b.spawn_rate, "max");
	row("spawn rate", &a, &b, "ccHHHHHHHH");
	b = base(); b.has_churn = 0;
	row("churn in A only", &a, &b, "ccHHHHHHHH");
	b = base(); snprintf(b.probe_scope, sizeof b.probe_scope, "guest");
	row("probe scope", &a, &b, "H-cccccccc");
	b = base(); b.probe_limit = 64;
	row("probe limit", &a, &b, "c---------");
	b = base(); snprintf(b.fpu_kind, sizeof b.fpu_kind, "avx512");
	row("FPU kind", &a, &b, "HHcccccccc");
	b = base(); b.switch_threads = 16;
	row("FPU-cost threads", &a, &b, "-H--------");
	b = base(); b.sample_interval_ms = 250;
	row("sample interval", &a, &b, "--c---H---");
	b = base(); snprintf(b.guest_type, sizeof b.guest_type, "HVM");
	row("guest type", &a, &b, "HHHHHHHHHH");
	b = base(); b.mem_total_kb = 79424 + 794;   /* 0.99%: within 1% */
	row("MemTotal 0.99% apart", &a, &b, "----------");
	b.mem_total_kb = 79424 + 810;               /* 1.01% of the larger */
	row("MemTotal 1.01% apart", &a, &b, "HcHHHHHHHH");
	b = base(); b.xstate_bytes = 2696;
	row("XSAVE size", &a, &b, "HHcccccccc");
	b = base(); snprintf(b.kernel_release, sizeof b.kernel_release, "6.1.0-58-amd64");
	snprintf(b.label, sizeof b.label, "gfp-atomic");
	snprintf(b.cmdline, sizeof b.cmdline, "eagerfpu=off");
	row("kernel, label, cmdline (meant)", &a, &b, "----------");

	/* The trace: an instance in one run only weighs like MemTotal (9440 kB of 79424: 11.9%); a run without
	 * the trace refuses the trace's two lines; not recorded (before schema 8) is off. */
	{
		struct report_cond c = base(), d = base();
		snprintf(d.tracefs, sizeof d.tracefs, "off");
		snprintf(d.trace_why, sizeof d.trace_why, "not mounted: neither ...");
		d.trace_kb = -1;
		row("tracefs on in A only, its instance 11.9% of MemTotal", &c, &d, "HcHHHHHHHH");
		c.trace_kb = 700;
		row("tracefs on in A only, its instance 0.9% of MemTotal", &c, &d, "c-cccccHHc");
		c.trace_kb = -1;
		row("tracefs on in A only, its size unknown", &c, &d, "c-cccccHHc");
		d.tracefs[0] = 0;
		row("tracefs on in A, B before schema 8", &c, &d, "c-cccccHHc");
		row("tracefs on in B, A before schema 8", &d, &c, "c-cccccHHc");
		snprintf(c.tracefs, sizeof c.tracefs, "off");
		row("tracefs off in A, B before schema 8", &c, &d, "-------HH-");
		report_gate_line(REPORT_LINE_EXTFRAG, &d, &c, &g);
		T_CHECK(!g.comparable && strstr(g.why, "run A had no trace (recorded before fpusoakd read tracefs)"), "%s", g.why);
		c = base();
		report_gate_line(REPORT_LINE_TRACE_FAIL, &c, &d, &g);
		T_CHECK(!g.comparable && strstr(g.why, "run B had no trace (recorded before fpusoakd read tracefs)"), "%s", g.why);
		d = base();
		snprintf(d.tracefs, sizeof d.tracefs, "off");
		snprintf(d.trace_why, sizeof d.trace_why, "--trace none");
		report_gate_line(REPORT_LINE_HEADROOM, &d, &c, &g);
		T_CHECK(!g.comparable && strstr(g.why, "tracefs on in B only: its instance took 9440 kB of slab, 11.9% of MemTotal"),
			"%s", g.why);
		report_gate_line(REPORT_LINE_TRACE_FAIL, &d, &c, &g);
		T_CHECK(!g.comparable && strstr(g.why, "run A had no trace (--trace none)"), "%s", g.why);
	}
	report_gate_pair(&a, &b, &g);
	T_CHECK(g.comparable && g.ncaveats == 3, "the pair shows the three meant differences and stays comparable (%d)",
		g.ncaveats);
	T_CHECK(strstr(g.caveat[0], "6.1.0-57-amd64 (A) vs 6.1.0-58-amd64 (B), as meant") != NULL, "%s", g.caveat[0]);
	b = base(); b.mem_total_kb = 2 * 79424;
	report_gate_pair(&a, &b, &g);
	T_CHECK(!g.comparable && strstr(g.why, "MemTotal 79424 kB (A) vs 158848 kB (B), 50.0% apart"), "pair: %s", g.why);

	/* Older runs: what was not recorded is a caveat of the pair (once), not a guess. */
	b = base(); b.cgroup[0] = 0;
	report_gate_line(REPORT_LINE_CAPACITY, &a, &b, &g);
	T_CHECK(g.comparable && g.ncaveats == 0, "a line is not refused for what was not recorded");
	report_gate_pair(&a, &b, &g);
	T_CHECK(g.comparable && g.ncaveats == 1 && strstr(g.caveat[0], "run B's confinement was not recorded"), "%s",
		g.caveat[0]);
	b = base(); b.conf_exact = 0;
	report_gate_pair(&a, &b, &g);
	T_CHECK(g.comparable && strstr(g.caveat[0], "run B's limits are as configured, not read back"), "%s", g.caveat[0]);

	/* The scene: A lost its group to another instance, ran unconfined with its probes capped at 64
	 * (all stopped by "limit"), B confined to 48 MB.  Not comparable, and the reason names it. */
	a = base(); b = base();
	snprintf(a.cgroup, sizeof a.cgroup, "none");
	snprintf(a.unconfined_why, sizeof a.unconfined_why,
		 "cgroup /sys/fs/cgroup/memory/fpusoakd-workers exists and has processes");
	a.pop_cap = 64;
	a.memory_max = 0;
	report_gate_line(REPORT_LINE_CAPACITY, &a, &b, &g);
	report_gate_censored('A', 0, 3, "limit", &g);
	T_CHECK(!g.comparable && strstr(g.why, "run A ran unconfined, capped at 64 workers (cgroup"), "scene: %s", g.why);
	T_CHECK(g.ncaveats >= 1 && strstr(g.caveat[g.ncaveats - 1], "all 3 capacity probes of run A stopped by limit"),
		"scene: the second reason (censored) is still said, as a caveat: %s", g.ncaveats ? g.caveat[g.ncaveats - 1] : "");
	T_EQ_I(report_probe_censored("limit") + report_probe_censored("timeout") + report_probe_censored("stopped"), 3,
	       "limit, timeout, stopped: censored");
	T_EQ_I(report_probe_censored("worker_died:SIGKILL") + report_probe_censored("spawn_failed:EAGAIN") +
		       report_probe_censored("oom_kill") + report_probe_censored(NULL), 0, "deaths and failed spawns: capacities");
	a = base();
	report_gate_line(REPORT_LINE_CAPACITY, &a, &b, &g);
	report_gate_censored('A', 0, 3, "limit", &g);
	T_CHECK(!g.comparable && strstr(g.why, "all 3 capacity probes of run A stopped by limit: a lower bound"), "%s",
		g.why);
	report_gate_line(REPORT_LINE_CAPACITY, &a, &b, &g);
	report_gate_censored('B', 5, 1, "timeout", &g);
	T_CHECK(g.comparable && strstr(g.caveat[0], "1 of run B's capacity probes stopped by timeout (censored, left out)"),
		"%s", g.caveat[0]);
	for (int i = 0; i < REPORT_GATE_MAX + 3; i++)
		report_gate_caveat(&g, "caveat %d", i);
	T_CHECK(g.ncaveats == REPORT_GATE_MAX && g.dropped == 4, "caveats past the cap are counted, not lost silently");
	b = base();
	snprintf(b.label, sizeof b.label, "bad\x01label\xff");
	report_gate_pair(&a, &b, &g);
	T_CHECK(g.ncaveats == 1 && strstr(g.caveat[0], "\"bad?label?\""), "control bytes in a label printed as '?'");
	{
		char t[REPORT_GATE_TEXT] = "cgroup /sys/fs/cgroup/memory/x/fpusoakd-workers-0123456789ab exists and has processes "
					   "(pid 7; another fpusoakd on the same database?); see /tmp/ and \"/a/b\"";
		report_gate_short_paths(t);
		T_EQ_S(t, "cgroup fpusoakd-workers-0123456789ab exists and has processes (pid 7; another fpusoakd on the same "
			  "database?); see /tmp/ and \"b\"", "a reason's paths shortened to their last component");
	}
	/* Issue 31, item 1: both runs set --cgroup-pids-max 4096; the kernel reads back 4097 (v1: the spawner's pid)
	 * and 4098 (and the fragmenting load's): the daemon's own additions, not a difference between the runs. */
	a = base(); b = base();
	a.pids_set = b.pids_set = 4096;
	a.memory_set = b.memory_set = a.memory_max;
	a.pids_max = 4097;
	b.pids_max = 4098;
	snprintf(a.fragment, sizeof a.fragment, "off");
	snprintf(b.fragment, sizeof b.fragment, "heavy");
	row("pids 4096 set in both, read back 4097 (A) and 4098 (B, with the load)", &a, &b, "----------");
	report_gate_pair(&a, &b, &g);
	T_CHECK(g.comparable && g.ncaveats == 0, "the pair: nothing to say of the limits (%d caveats%s%s)", g.ncaveats,
		g.ncaveats ? ": " : "", g.ncaveats ? g.caveat[0] : "");
	/* ... where the kernel did not take the limit (no pids controller: read back "no limit"), say so. */
	b.pids_max = 0;
	report_gate_pair(&a, &b, &g);
	T_CHECK(g.comparable && g.ncaveats == 1 &&
		strstr(g.caveat[0], "run B's pids limit in force was none, not the 4096 set (and the daemon's own)"),
		"the kernel disagreed: %s", g.ncaveats ? g.caveat[0] : "");
	b.pids_max = 4098;
	b.pids_set = 2048;
	row("pids 4096 (A) vs 2048 (B) set", &a, &b, "H-ccHHcccc");

	/* Item 2: what differs, the experiment first; a knob of one kernel only shows as absent. */
	{
		struct report_factors f;
		a = base(); b = base();
		snprintf(a.fragment, sizeof a.fragment, "off");
		snprintf(b.fragment, sizeof b.fragment, "heavy");
		a.vm_known = b.vm_known = 1;
		a.nvm = b.nvm = 2;
		snprintf(a.vm[0].name, sizeof a.vm[0].name, "vm.min_free_kbytes");
		snprintf(a.vm[0].value, sizeof a.vm[0].value, "67584");
		b.vm[0] = a.vm[0];
		snprintf(a.vm[1].name, sizeof a.vm[1].name, "thp.enabled");
		snprintf(a.vm[1].value, sizeof a.vm[1].value, "madvise");
		b.vm[1] = a.vm[1];
		report_gate_factors(&a, &b, &f);
		T_CHECK(f.n == 1 && strcmp(f.f[0].name, "fragmenting load") == 0 && strcmp(f.f[0].a, "off") == 0 &&
			strcmp(f.f[0].b, "heavy") == 0 && !f.vm_unknown, "the load alone differs: %d factor(s), %s %s vs %s",
			f.n, f.n ? f.f[0].name : "", f.n ? f.f[0].a : "", f.n ? f.f[0].b : "");
		snprintf(b.vm[0].value, sizeof b.vm[0].value, "16384");
		snprintf(b.vm[1].name, sizeof b.vm[1].name, "vm.defrag_mode");
		snprintf(b.vm[1].value, sizeof b.vm[1].value, "1");
		snprintf(b.gfp_mode, sizeof b.gfp_mode, "atomic");
		snprintf(a.gfp_mode, sizeof a.gfp_mode, "off");
		b.switch_threads = 16;
		report_gate_factors(&a, &b, &f);
		char all[512] = "";
		for (int i = 0; i < f.n; i++)
			t_app(all, sizeof all, "%s%s=%s/%s", i ? " " : "", f.f[i].name, f.f[i].a, f.f[i].b);
		T_EQ_S(all, "fragmenting load=off/heavy --gfp-mode=off/atomic vm.min_free_kbytes=67584/16384 "
		       "thp.enabled=madvise/absent vm.defrag_mode=absent/1 FPU-cost probe threads=64/16",
		       "every difference, the experiment first");
		T_CHECK(report_factor_matters(&f.f[0], REPORT_LINE_HEADROOM) && !report_factor_matters(&f.f[5], REPORT_LINE_HEADROOM) &&
			report_factor_matters(&f.f[5], REPORT_LINE_FPU_COST), "the probe's threads matter to the FPU-cost line only, the load to any");
		b.vm_known = 0;
		report_gate_factors(&a, &b, &f);
		T_CHECK(f.vm_unknown && f.n == 3, "knobs not recorded for B: not listed, said unknown (%d)", f.n);
	}
	T_DONE();
}
