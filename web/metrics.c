/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics: Prometheus text exposition 0.0.4; see metrics.h. */
#include "web/metrics.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analysis/frag.h"
#include "web/escape.h"

static void family(struct strbuf *sb, const char *name, const char *type, const char *help)
{
	/* help is one of our constants: no backslash or newline to escape. */
	sb_printf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void label(struct strbuf *sb, const char *key, const char *value, int first)
{
	sb_printf(sb, "%s%s=\"", first ? "" : ",", key);
	escape_prom_label(sb, value, strlen(value));
	sb_puts(sb, "\"");
}

/*
 * /proc/vmstat mixes state (mostly nr_*, in pages) and event counters.
 * The prefix decides, with the known exceptions of current kernels.
 */
static int vmstat_is_counter(const char *name)
{
	static const char *const nr_counters[] = {
		"nr_dirtied", "nr_written", "nr_foll_pin_acquired", "nr_foll_pin_released",
	};
	static const char *const other_gauges[] = { "workingset_nodes" };

	if (strncmp(name, "nr_", 3) == 0) {
		for (size_t i = 0; i < sizeof nr_counters / sizeof nr_counters[0]; i++)
			if (strcmp(name, nr_counters[i]) == 0)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof other_gauges / sizeof other_gauges[0]; i++)
		if (strcmp(name, other_gauges[i]) == 0)
			return 0;
	return 1;
}

static void run_families(struct strbuf *sb, const struct metrics_input *in)
{
	family(sb, "fpusoakd_build_info", "gauge", "Build of the running fpusoakd; always 1.");
	sb_puts(sb, "fpusoakd_build_info{");
	label(sb, "version", in->version ? in->version : "unknown", 1);
	sb_puts(sb, "} 1\n");
	family(sb, "fpusoakd_run_id", "gauge", "Id of the current run in the database (runs.run_id).");
	sb_printf(sb, "fpusoakd_run_id %" PRId64 "\n", in->run_id);
	family(sb, "fpusoakd_run_info", "gauge", "The current run as v_runs records it; always 1.");
	sb_printf(sb, "fpusoakd_run_info{run_id=\"%" PRId64 "\"", in->run_id);
	label(sb, "label", in->label ? in->label : "", 0);
	label(sb, "kernel", in->kernel_release ? in->kernel_release : "", 0);
	label(sb, "hypervisor", in->hypervisor ? in->hypervisor : "", 0);
	label(sb, "guest_type", in->guest_type ? in->guest_type : "", 0);
	sb_puts(sb, "} 1\n");
	family(sb, "fpusoakd_run_start_time_seconds", "gauge", "Start of the current run, Unix time.");
	sb_printf(sb, "fpusoakd_run_start_time_seconds %" PRId64 ".%03d\n", in->run_started_ms / 1000,
		  (int)(in->run_started_ms % 1000));
	family(sb, "fpusoakd_samples_total", "counter", "Samples (ticks) stored in the current run.");
	sb_printf(sb, "fpusoakd_samples_total %" PRIu64 "\n", in->samples_total);
	family(sb, "fpusoakd_samples_queued", "gauge", "Samples waiting in memory because the database refuses writes.");
	sb_printf(sb, "fpusoakd_samples_queued %" PRIu64 "\n", in->samples_queued);
	family(sb, "fpusoakd_samples_dropped_total", "counter",
	       "Samples lost since start because the in-memory queue (--queue-max) was full.");
	sb_printf(sb, "fpusoakd_samples_dropped_total %" PRIu64 "\n", in->samples_dropped);
	if (in->sample_ts_ms > 0) {
		family(sb, "fpusoakd_last_sample_timestamp_seconds", "gauge", "When the last sample was taken, Unix time.");
		sb_printf(sb, "fpusoakd_last_sample_timestamp_seconds %" PRId64 ".%03d\n", in->sample_ts_ms / 1000,
			  (int)(in->sample_ts_ms % 1000));
	}
	if (in->sample_us >= 0) {
		family(sb, "fpusoakd_sample_duration_seconds", "gauge",
		       "Time the last sample took to read and parse its /proc sources.");
		sb_printf(sb, "fpusoakd_sample_duration_seconds %" PRId64 ".%06d\n", in->sample_us / 1000000,
			  (int)(in->sample_us % 1000000));
	}
}

static void zone_labels(struct strbuf *sb, const struct buddy_zone *z)
{
	sb_printf(sb, "node=\"%d\"", z->node);
	label(sb, "zone", z->zone, 0);
}

static void buddy_families(struct strbuf *sb, const struct buddyinfo *b)
{
	int norders = b->norders < 0 ? 0 : b->norders > BUDDY_MAX_ORDER ? BUDDY_MAX_ORDER : b->norders;
	int nzones = b->nzones < 0 ? 0 : b->nzones > BUDDY_MAX_ZONES ? BUDDY_MAX_ZONES : b->nzones;

	if (nzones == 0)
		return;
	family(sb, "fpusoakd_buddy_free_blocks", "gauge",
	       "Free blocks of 2^order pages per zone, from /proc/buddyinfo.");
	for (int i = 0; i < nzones; i++)
		for (int k = 0; k < norders; k++) {
			sb_puts(sb, "fpusoakd_buddy_free_blocks{");
			zone_labels(sb, &b->z[i]);
			sb_printf(sb, ",order=\"%d\"} %" PRIu64 "\n", k, b->z[i].free[k]);
		}
	family(sb, "fpusoakd_buddy_free_pages", "gauge",
	       "Free pages per zone: the sum over orders of free_blocks << order.");
	for (int i = 0; i < nzones; i++) {
		uint64_t pages = 0;
		for (int k = 0; k < norders; k++)
			pages += b->z[i].free[k] << k;
		sb_puts(sb, "fpusoakd_buddy_free_pages{");
		zone_labels(sb, &b->z[i]);
		sb_printf(sb, "} %" PRIu64 "\n", pages);
	}
}

static int kv_count(const struct kv_set *s)
{
	return s->n < 0 ? 0 : s->n > KV_MAX ? KV_MAX : s->n;
}

/* One family of the entries of s for which pick(name) equals want. */
static void kv_family(struct strbuf *sb, const struct kv_set *s, const char *fam, const char *type,
		      const char *help, int (*pick)(const char *), int want, uint64_t mult)
{
	int header = 0;

	for (int i = 0; i < kv_count(s); i++) {
		char name[KV_NAME_MAX];

		/* The struct promises NUL termination; do not trust it blindly. */
		memcpy(name, s->e[i].name, KV_NAME_MAX);
		name[KV_NAME_MAX - 1] = '\0';
		if (pick(name) != want)
			continue;
		if (!header) {
			family(sb, fam, type, help);
			header = 1;
		}
		sb_printf(sb, "%s{", fam);
		label(sb, "name", name, 1);
		sb_printf(sb, "} %" PRIu64 "\n", s->e[i].value * mult);
	}
}

static int is_hugepages(const char *name)
{
	return strncmp(name, "HugePages_", 10) == 0;
}

/* An index in thousandths, printed as debugfs does ("-1.000", "0.243"). */
static void index_value(struct strbuf *sb, int x1000)
{
	sb_printf(sb, "%s%d.%03d\n", x1000 < 0 ? "-" : "", (x1000 < 0 ? -x1000 : x1000) / 1000,
		  (x1000 < 0 ? -x1000 : x1000) % 1000);
}

/* Headroom and the kernel's indices, from the same free counts as the buddy families (analysis/frag: v_frag's numbers). */
static void derived_families(struct strbuf *sb, const struct metrics_input *in)
{
	const struct buddyinfo *b = in->buddy;
	int norders = b->norders < 0 ? 0 : b->norders > BUDDY_MAX_ORDER ? BUDDY_MAX_ORDER : b->norders;
	int nzones = b->nzones < 0 ? 0 : b->nzones > BUDDY_MAX_ZONES ? BUDDY_MAX_ZONES : b->nzones;
	int nk = in->nheadroom_orders < 0 ? 0 : in->nheadroom_orders > METRICS_MAX_ORDERS ? METRICS_MAX_ORDERS
											  : in->nheadroom_orders;

	if (nzones == 0 || norders == 0)
		return;
	if (nk) {
		family(sb, "fpusoakd_headroom_blocks", "gauge",
		       "Free blocks able to satisfy an order-k allocation (sum over o >= k of free[o] << (o - k)), at the "
		       "orders of interest: the task_struct slab's and the pageblock order.");
		for (int i = 0; i < nzones; i++)
			for (int j = 0; j < nk; j++) {
				int k = in->headroom_orders[j];
				if (k < 0 || k >= norders)
					continue;
				sb_puts(sb, "fpusoakd_headroom_blocks{");
				zone_labels(sb, &b->z[i]);
				sb_printf(sb, ",order=\"%d\"} %" PRIu64 "\n", k, frag_headroom(b->z[i].free, norders, (unsigned)k));
			}
	}
	if (!in->indices)
		return;
	for (int which = 0; which < 2; which++) {
		const char *name = which ? "fpusoakd_fragmentation_index" : "fpusoakd_unusable_free_index";
		family(sb, name, "gauge", which ? "The kernel's external fragmentation index per order (debugfs "
		       "extfrag_index): -1 when a free block of the order exists, towards 1 when failures are due to "
		       "fragmentation, towards 0 when to lack of memory."
		       : "The kernel's unusable free space index per order (debugfs unusable_index): the share of free "
		       "memory in blocks too small for the order.");
		for (int i = 0; i < nzones; i++)
			for (int k = 0; k < norders; k++) {
				int u, f;
				frag_indices(b->z[i].free, norders, (unsigned)k, &u, &f);
				sb_printf(sb, "%s{", name);
				zone_labels(sb, &b->z[i]);
				sb_printf(sb, ",order=\"%d\"} ", k);
				index_value(sb, which ? f : u);
			}
	}
}

/* The request-level verdict per order and GFP class (v_atomic_request's atomic_ok, nowait_ok, kernel_ok). */
static void request_family(struct strbuf *sb, const struct metrics_input *in)
{
	static const char *const gfp[] = { "atomic", "nowait", "kernel" };
	const uint32_t mask[] = { in->request_atomic, in->request_nowait, in->request_kernel };
	int norders = in->request_orders > 16 ? 16 : in->request_orders;

	family(sb, "fpusoakd_atomic_request_ok", "gauge",
	       "1 while an order-k request of the GFP class would get its pages from some zone of its zonelist "
	       "(atomic, nowait: above the watermark now; kernel: now or by reclaim and compaction), else 0.");
	for (int k = 0; k < norders; k++)
		for (int g = 0; g < 3; g++)
			sb_printf(sb, "fpusoakd_atomic_request_ok{order=\"%d\",gfp=\"%s\"} %u\n", k, gfp[g],
				  (unsigned)(mask[g] >> k & 1u));
}

static void counter1(struct strbuf *sb, const char *name, const char *help, uint64_t v)
{
	family(sb, name, "counter", help);
	sb_printf(sb, "%s %" PRIu64 "\n", name, v);
}

static void churn_families(struct strbuf *sb, const struct metrics_input *in)
{
	const struct churn_counters *c = in->churn;
	static const char *const errnos[] = { "EAGAIN", "ENOMEM", "other" };
	static const char *const sigs[] = { "SIGKILL", "SIGSEGV", "SIGILL", "other" };
	const uint64_t fails[] = { c->spawn_failed_eagain, c->spawn_failed_enomem, c->spawn_failed_other };
	const uint64_t deaths[] = { c->killed_sigkill, c->killed_sigsegv, c->killed_sigill, c->killed_other };

	family(sb, "fpusoakd_workers", "gauge", "FPU-using churn workers alive now.");
	sb_printf(sb, "fpusoakd_workers %" PRIu64 "\n", c->population);
	counter1(sb, "fpusoakd_worker_spawns_total", "Churn workers spawned in this run.", c->spawned);
	family(sb, "fpusoakd_worker_spawn_failures_total", "counter", "Failed worker spawns (fork) by errno.");
	for (int i = 0; i < 3; i++)
		sb_printf(sb, "fpusoakd_worker_spawn_failures_total{errno=\"%s\"} %" PRIu64 "\n", errnos[i], fails[i]);
	counter1(sb, "fpusoakd_worker_exits_total", "Workers that called exit(), any code.", c->exited);
	family(sb, "fpusoakd_worker_deaths_total", "counter", "Workers killed by a signal, by signal.");
	for (int i = 0; i < 4; i++)
		sb_printf(sb, "fpusoakd_worker_deaths_total{signal=\"%s\"} %" PRIu64 "\n", sigs[i], deaths[i]);
	/* Every OOM kill once, whichever worker it hit (a probe's fill kills probe workers, not churn ones). */
	counter1(sb, "fpusoakd_worker_oom_kills_total",
		 "OOM kills in the workers' memory cgroup: churn workers, probe workers, and kills matched to none.",
		 c->oom_killed + (in->probe ? in->probe->oom_killed : 0) + in->oom_unattributed);
	if (in->probe) {
		const struct churn_counters *p = in->probe;
		counter1(sb, "fpusoakd_probe_worker_spawns_total", "Capacity-probe workers spawned in this run.", p->spawned);
		family(sb, "fpusoakd_probe_worker_deaths_total", "counter", "Capacity-probe workers killed by a signal.");
		sb_printf(sb, "fpusoakd_probe_worker_deaths_total{signal=\"SIGKILL\"} %" PRIu64 "\n", p->killed_sigkill);
		sb_printf(sb, "fpusoakd_probe_worker_deaths_total{signal=\"other\"} %" PRIu64 "\n",
			  p->killed_sigsegv + p->killed_sigill + p->killed_other);
		counter1(sb, "fpusoakd_probe_worker_oom_kills_total", "Capacity-probe workers killed by the OOM killer.",
			 p->oom_killed);
	}
	if (in->gfp_holding)
		counter1(sb, "fpusoakd_worker_gfp_failures_total",
			 "Workers (churn and probe) that died because the allocator refused their FPU-state HOLD (--gfp-mode).",
			 c->gfp_failed + (in->probe ? in->probe->gfp_failed : 0));
	if (isfinite(in->last_capacity)) {
		family(sb, "fpusoakd_capacity_probe_workers", "gauge",
		       "Workers held by the last capacity probe before a spawn failed or one died.");
		sb_printf(sb, "fpusoakd_capacity_probe_workers %.10g\n", in->last_capacity);
	}
	if (isfinite(in->last_switch_us)) {
		family(sb, "fpusoakd_fpu_cost_probe_seconds_per_yield", "gauge",
		       "System time per sched_yield of FPU-using threads in the last FPU-cost probe.");
		sb_printf(sb, "fpusoakd_fpu_cost_probe_seconds_per_yield %.10g\n", in->last_switch_us / 1e6);
	}
}

/* Every failed allocation fpusoakd classified, by source, cause and order: the series that counted one. */
static void cause_family(struct strbuf *sb, const uint64_t (*fc)[4][16])
{
	static const char *const SRC[3] = { "kmsg", "trace", "module" };
	static const char *const CAUSE[4] = { "unknown", "watermark", "fragmentation", "reserve" };

	family(sb, "fpusoakd_alloc_failures_total", "counter",
	       "Failed page allocations fpusoakd classified since it started, by source (kmsg: warn_alloc reports in "
	       "the kernel log; trace: its tracefs instance, __GFP_NOWARN ones too; module: fpusoak_gfp refusals), "
	       "cause (watermark, fragmentation, reserve, unknown) and order (15: 15 and above). One failure may be "
	       "seen by more than one source.");
	for (int s = 0; s < 3; s++)
		for (int c = 0; c < 4; c++)
			for (int k = 0; k < 16; k++)
				if (fc[s][c][k])
					sb_printf(sb, "fpusoakd_alloc_failures_total{source=\"%s\",cause=\"%s\",order=\"%d\"} %"
						  PRIu64 "\n", SRC[s], CAUSE[c], k, fc[s][c][k]);
}

static void kmsg_families(struct strbuf *sb, const struct metrics_input *in)
{
	if (in->failure_causes) {
		cause_family(sb, in->failure_causes);
	} else if (in->alloc_failures) {
		int top = in->buddy && in->buddy->norders > 0 && in->buddy->norders <= BUDDY_MAX_ORDER ? in->buddy->norders : 11;
		for (int k = top; k < BUDDY_MAX_ORDER; k++)
			if (in->alloc_failures[k])
				top = k + 1;
		family(sb, "fpusoakd_alloc_failures_total", "counter",
		       "Page allocation failures (warn_alloc) in the kernel log since fpusoakd started, by order.");
		for (int k = 0; k < top; k++)
			sb_printf(sb, "fpusoakd_alloc_failures_total{order=\"%d\"} %" PRIu64 "\n", k, in->alloc_failures[k]);
	}
	if (in->has_oom_kills)
		counter1(sb, "fpusoakd_oom_kills_total", "OOM kills in the kernel log since fpusoakd started (any process).",
			 in->oom_kills);
}

static void trace_families(struct strbuf *sb, const struct metrics_input *in)
{
	static const char *const cls[3] = { "sleeping", "atomic", "opportunistic" };
	int top = in->buddy && in->buddy->norders > 0 && in->buddy->norders <= 16 ? in->buddy->norders : 11;

	for (int k = top; k < 16; k++)
		if (in->trace_failures[k][0] || in->trace_failures[k][1] || in->trace_failures[k][2])
			top = k + 1;
	family(sb, "fpusoakd_trace_alloc_failures_total", "counter",
	       "Failed page allocations the trace saw (kmem/mm_page_alloc, __GFP_NOWARN ones included) since fpusoakd "
	       "started, by order and class (atomic: no direct reclaim; opportunistic: __GFP_NOWARN with __GFP_NORETRY "
	       "or __GFP_NOMEMALLOC).");
	for (int k = 0; k < top; k++)
		for (int c = 0; c < 3; c++)
			sb_printf(sb, "fpusoakd_trace_alloc_failures_total{order=\"%d\",class=\"%s\"} %" PRIu64 "\n", k, cls[c],
				  in->trace_failures[k][c]);
	family(sb, "fpusoakd_extfrag_fallbacks_total", "counter",
	       "Allocations that took a free block of another migrate type (kmem/mm_page_alloc_extfrag) since fpusoakd "
	       "started; fragmenting=\"1\": below pageblock order, a pageblock now mixes migrate types.");
	sb_printf(sb, "fpusoakd_extfrag_fallbacks_total{fragmenting=\"1\"} %" PRIu64 "\n", in->trace_fragmenting);
	sb_printf(sb, "fpusoakd_extfrag_fallbacks_total{fragmenting=\"0\"} %" PRIu64 "\n",
		  in->trace_fallbacks - (in->trace_fragmenting < in->trace_fallbacks ? in->trace_fragmenting : in->trace_fallbacks));
}

int metrics_build(struct strbuf *sb, const struct metrics_input *in)
{
	run_families(sb, in);
	if (in->buddy)
		buddy_families(sb, in->buddy);
	if (in->vmstat) {
		kv_family(sb, in->vmstat, "fpusoakd_vmstat_events_total", "counter",
			  "Event counters from /proc/vmstat (compact_stall, allocstall_*, pgmigrate_*, ...).",
			  vmstat_is_counter, 1, 1);
		kv_family(sb, in->vmstat, "fpusoakd_vmstat_current", "gauge",
			  "State values from /proc/vmstat (nr_*), in the kernel's unit, mostly pages.",
			  vmstat_is_counter, 0, 1);
	}
	if (in->meminfo) {
		kv_family(sb, in->meminfo, "fpusoakd_meminfo_bytes", "gauge",
			  "Fields of /proc/meminfo given in kB, converted to bytes.", is_hugepages, 0, 1024);
		kv_family(sb, in->meminfo, "fpusoakd_meminfo_hugepages", "gauge",
			  "HugePages_* fields of /proc/meminfo (counts of huge pages).", is_hugepages, 1, 1);
	}
	if (in->buddy)
		derived_families(sb, in);
	if (in->request_orders > 0)
		request_family(sb, in);
	if (in->churn)
		churn_families(sb, in);
	if (in->alloc_failures || in->failure_causes || in->has_oom_kills)
		kmsg_families(sb, in);
	if (in->trace_failures)
		trace_families(sb, in);
	if (in->model_checking) {
		family(sb, "fpusoakd_model_checks_total", "counter",
		       "GFP_ATOMIC/GFP_NOWAIT allocations tried against the atomic model's prediction, by agreement.");
		sb_printf(sb, "fpusoakd_model_checks_total{agreed=\"true\"} %" PRIu64 "\n", in->model_agreed);
		sb_printf(sb, "fpusoakd_model_checks_total{agreed=\"false\"} %" PRIu64 "\n",
			  in->model_checks - in->model_agreed);
	}
	return sb->err ? -1 : 0;
}
