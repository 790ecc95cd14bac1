/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_metrics: the Prometheus exposition from hand-made inputs; expected
 * lines written by hand; the whole text checked by promtool (Debian's
 * prometheus package) when it is installed, else a visible SKIP.
 */
#include <sys/wait.h>

#include "test.h"
#include "web/metrics.h"

static int has_line(const struct strbuf *sb, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = sb->buf; p && (p = strstr(p, line)); p++)
		if ((p == sb->buf || p[-1] == '\n') && (p[n] == '\n'))
			return 1;
	return 0;
}

static int count_substr(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

int main(void)
{
	static struct buddyinfo bi;
	static struct kv_set vm, mi;
	struct metrics_input in = { 0 };
	struct strbuf sb;
	char dir[] = "/tmp/test_metrics.XXXXXX", path[128], cmd[512];
	FILE *f;

	bi.nzones = 3;
	bi.norders = 11;
	bi.z[0].node = 0;
	strcpy(bi.z[0].zone, "DMA");
	bi.z[1].node = 0;
	strcpy(bi.z[1].zone, "Normal");
	bi.z[2].node = 1;
	strcpy(bi.z[2].zone, "we\"ird\\z\n");   /* the struct allows it; the exposition must stay parseable */
	for (int z = 0; z < 3; z++)
		for (int k = 0; k < 11; k++)
			bi.z[z].free[k] = (uint64_t)(100 * z + k);
	vm.n = 5;
	strcpy(vm.e[0].name, "compact_stall");
	vm.e[0].value = 17;
	strcpy(vm.e[1].name, "nr_free_pages");
	vm.e[1].value = 123456;
	strcpy(vm.e[2].name, "nr_dirtied");
	vm.e[2].value = 99;
	strcpy(vm.e[3].name, "workingset_nodes");
	vm.e[3].value = 5;
	strcpy(vm.e[4].name, "oom_kill");
	vm.e[4].value = 0;
	mi.n = 3;
	strcpy(mi.e[0].name, "MemFree");
	mi.e[0].value = 1000;
	strcpy(mi.e[1].name, "Active(anon)");
	mi.e[1].value = 7;
	strcpy(mi.e[2].name, "HugePages_Total");
	mi.e[2].value = 4;

	in.version = "1.2-\"x\"";
	in.run_id = 42;
	in.run_started_ms = INT64_C(1717243200123);
	in.label = "gfp-\"atomic\"\n";   /* free text from the user: escaped like any label value */
	in.kernel_release = "6.1.0-57-amd64";
	in.hypervisor = "xen";
	in.guest_type = "PV";
	in.samples_total = 3600;
	in.samples_queued = 12;
	in.samples_dropped = 3;
	in.sample_ts_ms = INT64_C(1717246800456);
	in.sample_us = 1234;
	in.buddy = &bi;
	in.vmstat = &vm;
	in.meminfo = &mi;
	in.headroom_orders[0] = 3;
	in.headroom_orders[1] = 9;
	in.nheadroom_orders = 2;
	in.indices = 1;
	/* The request verdicts of 11 orders: GFP_ATOMIC passes up to order 2, GFP_NOWAIT up to 1, GFP_KERNEL at all. */
	in.request_orders = 11;
	in.request_atomic = 0x7;
	in.request_nowait = 0x3;
	in.request_kernel = 0x7ff;
	{
		static struct churn_counters cc;
		static uint64_t fails[16], tfails[16][3];
		cc.spawned = 1000;
		cc.spawn_failed_eagain = 3;
		cc.spawn_failed_enomem = 2;
		cc.spawn_failed_other = 1;
		cc.exited = 900;
		cc.killed_sigkill = 40;
		cc.killed_sigsegv = 1;
		cc.killed_other = 2;
		cc.oom_killed = 7;
		cc.population = 55;
		fails[0] = 2;
		fails[3] = 5;
		fails[12] = 1;
		in.churn = &cc;
		in.last_capacity = 231;
		in.last_switch_us = 2.5;
		in.alloc_failures = fails;
		in.has_oom_kills = 1;
		in.oom_kills = 4;
		tfails[0][1] = 365;       /* the Xen guest's capture: order-0 GFP_NOWAIT|__GFP_NOWARN */
		tfails[0][0] = 1;
		tfails[13][2] = 2;        /* above the zones' orders: the list grows to it */
		in.trace_failures = (const uint64_t (*)[3])tfails;
		in.trace_fallbacks = 80;
		in.trace_fragmenting = 76;
	}

	sb_init(&sb, METRICS_MAX_BYTES);
	T_EQ_I(metrics_build(&sb, &in), 0, "build");
	T_CHECK(has_line(&sb, "fpusoakd_build_info{version=\"1.2-\\\"x\\\"\"} 1"), "build_info with escaped version");
	T_CHECK(has_line(&sb, "fpusoakd_run_id 42"), "run id");
	T_CHECK(has_line(&sb, "fpusoakd_run_info{run_id=\"42\",label=\"gfp-\\\"atomic\\\"\\n\",kernel=\"6.1.0-57-amd64\",hypervisor=\"xen\",guest_type=\"PV\"} 1") && has_line(&sb, "# TYPE fpusoakd_run_info gauge"),
		"run_info: run id, escaped label, kernel, hypervisor, guest type");
	T_CHECK(has_line(&sb, "fpusoakd_run_start_time_seconds 1717243200.123"), "run start in seconds");
	T_CHECK(has_line(&sb, "# TYPE fpusoakd_atomic_request_ok gauge") &&
		has_line(&sb, "fpusoakd_atomic_request_ok{order=\"2\",gfp=\"atomic\"} 1") &&
		has_line(&sb, "fpusoakd_atomic_request_ok{order=\"3\",gfp=\"atomic\"} 0") &&
		has_line(&sb, "fpusoakd_atomic_request_ok{order=\"3\",gfp=\"kernel\"} 1") &&
		has_line(&sb, "fpusoakd_atomic_request_ok{order=\"1\",gfp=\"nowait\"} 1") &&
		has_line(&sb, "fpusoakd_atomic_request_ok{order=\"2\",gfp=\"nowait\"} 0") &&
		has_line(&sb, "fpusoakd_atomic_request_ok{order=\"10\",gfp=\"kernel\"} 1"),
		"atomic_request_ok: bit k of each mask is order k's value for its GFP class");
	T_CHECK(!strstr(sb.buf, "fpusoakd_atomic_request_ok{order=\"11\""), "atomic_request_ok: no order past request_orders");
	T_CHECK(has_line(&sb, "# TYPE fpusoakd_samples_total counter") && has_line(&sb, "fpusoakd_samples_total 3600"),
		"samples counter");
	T_CHECK(has_line(&sb, "fpusoakd_last_sample_timestamp_seconds 1717246800.456"), "last sample time");
	T_CHECK(has_line(&sb, "fpusoakd_sample_duration_seconds 0.001234"), "1234 us = 0.001234 s");
	T_CHECK(has_line(&sb, "fpusoakd_buddy_free_blocks{node=\"0\",zone=\"Normal\",order=\"3\"} 103"), "free blocks");
	/* DMA: sum k << k for k = 0..10 = 18434 (by hand: sum k*2^k = (n-1)2^(n+1)+2 with n=10 -> 9*2048+2) */
	T_CHECK(has_line(&sb, "fpusoakd_buddy_free_pages{node=\"0\",zone=\"DMA\"} 18434"), "free pages of DMA = 18434");
	T_CHECK(has_line(&sb, "fpusoakd_buddy_free_blocks{node=\"1\",zone=\"we\\\"ird\\\\z\\n\",order=\"0\"} 200"),
		"hostile zone name escaped in the label");
	T_CHECK(has_line(&sb, "fpusoakd_vmstat_events_total{name=\"compact_stall\"} 17") &&
		has_line(&sb, "fpusoakd_vmstat_events_total{name=\"nr_dirtied\"} 99") &&
		has_line(&sb, "fpusoakd_vmstat_events_total{name=\"oom_kill\"} 0"), "vmstat event counters");
	T_CHECK(has_line(&sb, "fpusoakd_vmstat_current{name=\"nr_free_pages\"} 123456") &&
		has_line(&sb, "fpusoakd_vmstat_current{name=\"workingset_nodes\"} 5"), "vmstat state as gauges");
	T_CHECK(has_line(&sb, "fpusoakd_meminfo_bytes{name=\"MemFree\"} 1024000") &&
		has_line(&sb, "fpusoakd_meminfo_bytes{name=\"Active(anon)\"} 7168"), "meminfo kB x 1024");
	T_CHECK(has_line(&sb, "fpusoakd_meminfo_hugepages{name=\"HugePages_Total\"} 4"), "HugePages_* as counts");
	/* By hand: DMA free[k] = k, Normal free[k] = 100 + k. */
	T_CHECK(has_line(&sb, "fpusoakd_headroom_blocks{node=\"0\",zone=\"DMA\",order=\"3\"} 2303"),
		"DMA order-3 headroom: 3 + 4*2 + 5*4 + ... + 10*128 = 2303");
	T_CHECK(has_line(&sb, "fpusoakd_headroom_blocks{node=\"0\",zone=\"Normal\",order=\"9\"} 329"),
		"Normal order-9 headroom: 109 + 110*2 = 329");
	T_CHECK(!strstr(sb.buf, "fpusoakd_headroom_blocks{node=\"0\",zone=\"Normal\",order=\"4\"}"),
		"headroom only at the orders of interest");
	/* Normal: free pages 100*(2^11-1) + 18434 = 223134; order 3: (100 + 202 + 408) * 1000 / 223134 = 3 */
	T_CHECK(has_line(&sb, "fpusoakd_unusable_free_index{node=\"0\",zone=\"Normal\",order=\"3\"} 0.003"),
		"unusable index of Normal order 3 = 0.003 (kernel integer arithmetic)");
	T_CHECK(has_line(&sb, "fpusoakd_fragmentation_index{node=\"0\",zone=\"Normal\",order=\"3\"} -1.000"),
		"fragmentation index -1.000 where a suitable block exists");
	T_CHECK(has_line(&sb, "fpusoakd_unusable_free_index{node=\"0\",zone=\"DMA\",order=\"1\"} 0.000") &&
		has_line(&sb, "fpusoakd_unusable_free_index{node=\"0\",zone=\"DMA\",order=\"0\"} 0.000"),
		"DMA has no free order-0 block: nothing unusable at order 1");
	T_CHECK(has_line(&sb, "fpusoakd_workers 55") && has_line(&sb, "fpusoakd_worker_spawns_total 1000") &&
		has_line(&sb, "fpusoakd_worker_spawn_failures_total{errno=\"ENOMEM\"} 2") &&
		has_line(&sb, "fpusoakd_worker_spawn_failures_total{errno=\"other\"} 1") &&
		has_line(&sb, "fpusoakd_worker_exits_total 900") &&
		has_line(&sb, "fpusoakd_worker_deaths_total{signal=\"SIGKILL\"} 40") &&
		has_line(&sb, "fpusoakd_worker_deaths_total{signal=\"other\"} 2") &&
		has_line(&sb, "fpusoakd_worker_oom_kills_total 7"), "churn gauge and counters");
	T_CHECK(has_line(&sb, "fpusoakd_capacity_probe_workers 231") &&
		has_line(&sb, "fpusoakd_fpu_cost_probe_seconds_per_yield 2.5e-06"), "last probe results (us -> s)");
	T_CHECK(has_line(&sb, "fpusoakd_alloc_failures_total{order=\"3\"} 5") &&
		has_line(&sb, "fpusoakd_alloc_failures_total{order=\"12\"} 1") &&
		!strstr(sb.buf, "fpusoakd_alloc_failures_total{order=\"13\"}"),
		"allocation failures by order, up to the highest seen");
	T_CHECK(has_line(&sb, "fpusoakd_oom_kills_total 4"), "kernel-log OOM kills");
	{
		T_CHECK(has_line(&sb, "fpusoakd_trace_alloc_failures_total{order=\"0\",class=\"atomic\"} 365") &&
			has_line(&sb, "fpusoakd_trace_alloc_failures_total{order=\"0\",class=\"sleeping\"} 1") &&
			has_line(&sb, "fpusoakd_trace_alloc_failures_total{order=\"0\",class=\"opportunistic\"} 0") &&
			has_line(&sb, "fpusoakd_trace_alloc_failures_total{order=\"13\",class=\"opportunistic\"} 2") &&
			!strstr(sb.buf, "fpusoakd_trace_alloc_failures_total{order=\"14\""),
			"traced failures by order and class, up to the highest seen");
		T_CHECK(has_line(&sb, "fpusoakd_extfrag_fallbacks_total{fragmenting=\"1\"} 76") &&
			has_line(&sb, "fpusoakd_extfrag_fallbacks_total{fragmenting=\"0\"} 4"), "fallbacks, fragmenting or not");
	}
	{
		struct metrics_input off = in;
		struct strbuf sb2;

		off.trace_failures = NULL;
		sb_init(&sb2, METRICS_MAX_BYTES);
		T_CHECK(metrics_build(&sb2, &off) == 0 && sb2.buf && !strstr(sb2.buf, "fpusoakd_trace_") &&
			!strstr(sb2.buf, "fpusoakd_extfrag_"), "no trace families without the trace (tracefs off)");
		sb_free(&sb2);
	}
	T_CHECK(has_line(&sb, "# TYPE fpusoakd_samples_queued gauge") && has_line(&sb, "fpusoakd_samples_queued 12") &&
		has_line(&sb, "# TYPE fpusoakd_samples_dropped_total counter") &&
		has_line(&sb, "fpusoakd_samples_dropped_total 3"), "the DB queue: samples queued and dropped");
	{
		int types = 0, helps = 0;
		for (const char *p = sb.buf; (p = strstr(p, "# TYPE ")); p++)
			types++;
		for (const char *p = sb.buf; (p = strstr(p, "# HELP ")); p++)
			helps++;
		T_CHECK(types == 31 && helps == 31, "31 families, each with HELP and TYPE (%d, %d)", types, helps);
	}

	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp");
		T_DONE();
	}
	snprintf(path, sizeof path, "%s/metrics.txt", dir);
	f = fopen(path, "wb");
	fwrite(sb.buf, 1, sb.len, f);
	fclose(f);
	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		T_SKIP("promtool not installed (Debian: apt-get install prometheus): exposition not linted");
	} else {
		char out[4096] = "";
		size_t n;
		FILE *p;
		int st;
		snprintf(cmd, sizeof cmd, "promtool check metrics < %s 2>&1", path);
		p = popen(cmd, "r");
		n = p ? fread(out, 1, sizeof out - 1, p) : 0;
		out[n] = '\0';
		st = p ? pclose(p) : -1;
		T_CHECK(st == 0 && n == 0, "promtool check metrics: no complaints%s%s", n ? ": " : "", out);
	}

	/* absent inputs: families omitted, still valid */
	sb_reset(&sb);
	in.buddy = NULL;
	in.vmstat = NULL;
	in.meminfo = NULL;
	in.sample_us = -1;
	in.sample_ts_ms = 0;
	in.churn = NULL;
	in.alloc_failures = NULL;
	in.has_oom_kills = 0;
	in.trace_failures = NULL;
	in.request_orders = 0;
	in.label = in.kernel_release = in.hypervisor = in.guest_type = NULL;
	T_EQ_I(metrics_build(&sb, &in), 0, "build with only run facts");
	T_CHECK(has_line(&sb, "fpusoakd_run_info{run_id=\"42\",label=\"\",kernel=\"\",hypervisor=\"\",guest_type=\"\"} 1"),
		"run_info without environment strings: empty labels, still one series");
	T_CHECK(!strstr(sb.buf, "buddy") && !strstr(sb.buf, "vmstat") && !strstr(sb.buf, "sample_duration") &&
		!strstr(sb.buf, "headroom") && !strstr(sb.buf, "worker") && !strstr(sb.buf, "probe") &&
		!strstr(sb.buf, "failures") && !strstr(sb.buf, "oom") && !strstr(sb.buf, "atomic_request"),
		"absent inputs give no family");
	/* Classified failures: {source,cause,order}, only the series that counted one; they replace the {order} family. */
	{
		static uint64_t fc[3][4][16];
		sb_reset(&sb);
		fc[0][2][3] = 4;       /* kmsg fragmentation order 3 */
		fc[2][1][0] = 7;       /* module watermark order 0 */
		fc[1][3][15] = 1;      /* trace reserve order 15+ */
		in.failure_causes = fc;
		T_EQ_I(metrics_build(&sb, &in), 0, "build with failure causes");
		T_CHECK(has_line(&sb, "fpusoakd_alloc_failures_total{source=\"kmsg\",cause=\"fragmentation\",order=\"3\"} 4") &&
			has_line(&sb, "fpusoakd_alloc_failures_total{source=\"module\",cause=\"watermark\",order=\"0\"} 7") &&
			has_line(&sb, "fpusoakd_alloc_failures_total{source=\"trace\",cause=\"reserve\",order=\"15\"} 1"),
			"fpusoakd_alloc_failures_total{source,cause,order}: the three counted series");
		T_CHECK(!strstr(sb.buf, "fpusoakd_alloc_failures_total{order=") &&
			!strstr(sb.buf, "cause=\"unknown\""), "... no {order} series, no zero series");
		T_EQ_I(count_substr(sb.buf, "# TYPE fpusoakd_alloc_failures_total counter"), 1, "... one family");
		in.failure_causes = NULL;
	}
	/* With the fpusoak_gfp module: refused HOLDs among churn workers, and the model checks. */
	{
		static struct churn_counters gc;
		sb_reset(&sb);
		gc.spawned = 10;
		gc.gfp_failed = 3;
		in.churn = &gc;
		T_EQ_I(metrics_build(&sb, &in), 0, "build without the module");
		T_CHECK(!strstr(sb.buf, "gfp") && !strstr(sb.buf, "model_checks"), "no gfp or model-check family without it");
		sb_reset(&sb);
		in.gfp_holding = 1;
		in.model_checking = 1;
		in.model_checks = 10;
		in.model_agreed = 8;
		T_EQ_I(metrics_build(&sb, &in), 0, "build with the module");
		T_CHECK(has_line(&sb, "# TYPE fpusoakd_worker_gfp_failures_total counter") &&
			has_line(&sb, "fpusoakd_worker_gfp_failures_total 3"), "refused HOLDs: a counter of its own");
		T_CHECK(has_line(&sb, "# TYPE fpusoakd_model_checks_total counter") &&
			has_line(&sb, "fpusoakd_model_checks_total{agreed=\"true\"} 8") &&
			has_line(&sb, "fpusoakd_model_checks_total{agreed=\"false\"} 2"), "model checks by agreement");
		in.churn = NULL;
		in.gfp_holding = in.model_checking = 0;
	}
	/* a cap too small is an error, not a cut exposition */
	{
		struct strbuf small;
		in.buddy = &bi;
		sb_init(&small, 500);
		T_EQ_I(metrics_build(&small, &in), -1, "a buffer cap too small is an error");
		sb_free(&small);
	}
	sb_free(&sb);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		T_CHECK(0, "cleanup");
	T_DONE();
}
