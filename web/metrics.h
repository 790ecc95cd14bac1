/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics: the Prometheus text exposition (format 0.0.4) of the latest
 * sample, built from plain structs.
 *
 * The daemon's front end (cmd/front.c) calls metrics_build() once per
 * sample and hands the bytes to web_publish_metrics(); a scrape then copies
 * nothing and queries nothing (it serves the last published buffer), so
 * scrapes cost almost nothing however often they come.  Families appear only when their input
 * is present; each has # HELP and # TYPE; counters end in _total; label
 * values are escaped (escape_prom_label).
 *
 * Families now:
 *   fpusoakd_build_info{version}                       gauge, 1
 *   fpusoakd_run_id, fpusoakd_run_start_time_seconds   gauges
 *   fpusoakd_run_info{run_id,label,kernel,hypervisor,guest_type}  gauge, 1: joins a fleet's series to its runs
 *   fpusoakd_samples_total                             counter, ticks of this run
 *   fpusoakd_last_sample_timestamp_seconds             gauge
 *   fpusoakd_sample_duration_seconds                   gauge, read+parse time of the last tick
 *   fpusoakd_buddy_free_blocks{node,zone,order}        gauge, /proc/buddyinfo
 *   fpusoakd_buddy_free_pages{node,zone}               gauge, sum of free_blocks << order
 *   fpusoakd_vmstat_events_total{name}                 counter, /proc/vmstat event counters
 *   fpusoakd_vmstat_current{name}                      gauge, /proc/vmstat nr_* state
 *   fpusoakd_meminfo_bytes{name}                       gauge, /proc/meminfo kB fields x 1024
 *   fpusoakd_meminfo_hugepages{name}                   gauge, HugePages_* counts
 *   fpusoakd_headroom_blocks{node,zone,order}          gauge, free blocks able to satisfy order k (orders of interest)
 *   fpusoakd_unusable_free_index{node,zone,order}      gauge, the kernel's unusable_free_index / 1000 (analysis/frag)
 *   fpusoakd_fragmentation_index{node,zone,order}      gauge, the kernel's __fragmentation_index / 1000
 *   fpusoakd_atomic_request_ok{order,gfp}              gauge, 1/0: would an order-k request of that GFP class
 *                                                      (atomic|nowait|kernel) get its pages from its zonelist
 *                                                      (v_atomic_request; kernel: by reclaim if need be)
 *   fpusoakd_workers                                   gauge, churn workers alive
 *   fpusoakd_worker_spawns_total                       counter
 *   fpusoakd_worker_spawn_failures_total{errno}        counter, EAGAIN|ENOMEM|other
 *   fpusoakd_worker_exits_total                        counter, exit() of any code
 *   fpusoakd_worker_deaths_total{signal}               counter, SIGKILL|SIGSEGV|SIGILL|other
 *   fpusoakd_worker_oom_kills_total                    counter, every OOM kill in the workers' group, once
 *                                                      (churn workers + probe workers + matched to none)
 *   fpusoakd_probe_worker_spawns_total                 counter, capacity-probe workers spawned
 *   fpusoakd_probe_worker_deaths_total{signal}         counter, capacity-probe workers killed, by signal
 *   fpusoakd_probe_worker_oom_kills_total              counter, ... of which OOM kills
 *   fpusoakd_capacity_probe_workers                    gauge, last capacity probe
 *   fpusoakd_fpu_cost_probe_seconds_per_yield          gauge, last FPU-cost probe (system time per yield)
 *   fpusoakd_alloc_failures_total{source,cause,order}  counter, failed allocations classified (daemon/causes.h):
 *                                                      source kmsg|trace|module, cause watermark|fragmentation|
 *                                                      reserve|unknown; series that counted one only.  Without
 *                                                      classification (failure_causes NULL) the kernel log's by
 *                                                      {order} as before
 *   fpusoakd_oom_kills_total                           counter, kernel-log OOM kills (any process)
 */
#ifndef FPUSOAK_METRICS_H
#define FPUSOAK_METRICS_H

#include <stdint.h>

#include "collector/buddyinfo.h"
#include "churn/churn_ctl.h"
#include "collector/kv.h"
#include "common/strbuf.h"

#define METRICS_MAX_BYTES (4u << 20)   /* cap of the exposition buffer (a few hundred KB in practice) */
#define METRICS_MAX_ORDERS 4

struct metrics_input {
	const char *version;             /* build version (FPUSOAK_VERSION) */
	int64_t run_id;                  /* current run, > 0 */
	int64_t run_started_ms;          /* epoch ms */
	/* The run as v_runs has it (label, kernel_release, hypervisor, guest_type); NULL = "". */
	const char *label, *kernel_release, *hypervisor, *guest_type;
	uint64_t samples_total;          /* ticks stored in this run */
	uint64_t samples_queued;         /* ticks waiting for the DB to accept writes */
	uint64_t samples_dropped;        /* ticks dropped since start because that queue was full */
	int64_t sample_ts_ms;            /* when the last tick was taken, epoch ms; 0 = omit */
	int64_t sample_us;               /* read+parse time of the last tick, microseconds; < 0 = omit */
	const struct buddyinfo *buddy;   /* last snapshot, or NULL */
	const struct kv_set *vmstat;     /* last snapshot, or NULL */
	const struct kv_set *meminfo;    /* last snapshot, or NULL */
	/* With buddy: headroom at these orders (the task_struct slab's, the pageblock order); 0 = no family. */
	int headroom_orders[METRICS_MAX_ORDERS];
	int nheadroom_orders;
	int indices;                     /* with buddy: 1 = the kernel's indices per zone and order */
	int request_orders;              /* request verdicts for orders 0..request_orders-1 (max 16); 0 = no family */
	uint32_t request_atomic, request_nowait, request_kernel;   /* bit k: order k passes */
	const struct churn_counters *churn;   /* NULL = churn off: no worker or probe families */
	const struct churn_counters *probe;   /* with churn: the capacity-probe workers (NULL: none counted) */
	uint64_t oom_unattributed;       /* with churn: OOM kills in the workers' group matched to no worker */
	double last_capacity;            /* with churn: workers held by the last capacity probe; NaN = none yet */
	double last_switch_us;           /* with churn: system us per yield of the last FPU-cost probe; NaN = none yet */
	const uint64_t *alloc_failures;  /* BUDDY_MAX_ORDER counters by order, or NULL (no kernel log) */
	/* Classified failures [source - 1][cause][order] (daemon/causes.h); NULL: the {order} family above. */
	const uint64_t (*failure_causes)[4][16];
	int has_oom_kills;               /* 1: oom_kills below is a kernel-log count */
	uint64_t oom_kills;
	/* The trace (tracefs on): failed allocations by order (16) and class (sleeping, atomic, opportunistic),
	 * fallbacks to another migrate type and the fragmenting ones; NULL = no trace families. */
	const uint64_t (*trace_failures)[3];
	uint64_t trace_fallbacks, trace_fragmenting;
	int gfp_holding;                 /* with churn: workers HOLD through fpusoak_gfp: a gfp_failed family */
	int model_checking;              /* model checks run: a model-check family */
	uint64_t model_checks, model_agreed;
};

/* Append the exposition of in to sb (reset first by the caller); 0, or -1 when sb hit its cap. */
int metrics_build(struct strbuf *sb, const struct metrics_input *in);

#endif
