/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/run: the figures of one run that the pages, the JSON API, the
 * summary and the daemon's /metrics and status line all state, computed
 * here once from store reads (store/query.h) and analysis/.  Callers render
 * them; none computes a figure of its own.
 *
 * Orders of interest: the task_struct slab's order (v_slabinfo, or the
 * daemon's latest slabinfo; REPORT_DEFAULT_TASK_ORDER while unknown, the
 * common case for x86-64 with AVX-512 xstate) and the pageblock order
 * (v_pagetypeinfo; absent when never sampled).
 *
 * Rates: an event count over an exposure.  A run's exposure for kernel-log
 * events is its first to its last sample; churn counts cover the ticks
 * they were summed over (query_churn.span_ms).  Rates per hour and per
 * second come from report_per_hour() and report_per_s() only.
 */
#ifndef FPUSOAK_REPORT_RUN_H
#define FPUSOAK_REPORT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/trend.h"
#include "report/headroom.h"
#include "store/query.h"

#define REPORT_MAX_ORDERS 4          /* orders of interest: task_struct and pageblock, each of A and B */
#define REPORT_DEFAULT_TASK_ORDER 3  /* the task_struct slab's order until slabinfo says */

/* Why an order is of interest. */
enum report_order_kind { REPORT_ORDER_TASK = 0, REPORT_ORDER_PAGEBLOCK = 1 };

struct report_orders {
	int n;
	int order[REPORT_MAX_ORDERS];
	const char *why[REPORT_MAX_ORDERS];   /* "task_struct slab", "pageblock" (static strings) */
	enum report_order_kind kind[REPORT_MAX_ORDERS];
	int task_order;                       /* from slabinfo, or REPORT_DEFAULT_TASK_ORDER */
	int task_order_known;                 /* 0: the default was used */
	int64_t task_objsize;                 /* bytes, -1 unknown */
	int pageblock_order;                  /* -1 unknown */
};

/* The task_struct slab's order: measured when >= 0, else REPORT_DEFAULT_TASK_ORDER. */
int report_task_order(int measured);

/* The orders of interest of a stored run; 0 or -1 (store error). */
int report_orders(struct query *q, int64_t run_id, struct report_orders *out);

/* The orders of interest of a live sample (task order and pageblock order, each -1 when unknown). */
void report_orders_live(int task_order, int pageblock_order, struct report_orders *out);

/* Whether order i of o was measured (pageblock, or a task order from slabinfo) rather than the default. */
int report_order_measured(const struct report_orders *o, int i);

/* Add order k of that kind to o unless present or full. */
void report_orders_add(struct report_orders *o, int k, enum report_order_kind kind);

/* "running", the end reason, or "unfinished" for a run that is not the newest and has no end. */
const char *report_run_state(const struct query_run *run, int newest);

/* How long the run lasted (or has lasted so far): end, else last sample, minus start; ms, -1 if unknown. */
int64_t report_run_duration(const struct query_run *run);

/* What the machine had when the run started (v_run_memory), kB, -1 where unknown: the guest's size (Xen),
 * the pages its kernel knows, MemTotal, what the kernel keeps for itself (present − MemTotal), what the guest
 * was given but never saw as pages (size − present), MemFree and MemAvailable at the start. */
struct report_run_memory {
	int known;                    /* a row was recorded (schema 016; not for a run from before it) */
	int64_t domain_kb, present_kb, total_kb, reserved_kb, outside_kb, free_kb, available_kb;
};

/* run's memory figures into *out (MemTotal from the run when its row has none); 0, or -1 on a store error. */
int report_run_memory(struct query *q, const struct query_run *run, struct report_run_memory *out);

/* The run's exposure for event rates: first to last sample, ms; 0 when it has fewer than two samples. */
int64_t report_run_exposure_ms(const struct query_run *run);

/* The CPU's name: CPUID's brand, and the kernel's where it differs ("X (the kernel says Y)"); returns out. */
const char *report_cpu_model(const struct query_run *run, char *out, size_t outlen);

/* The kernel command line's eagerfpu= value into out ("" when absent; the last one wins); returns out. */
const char *report_eagerfpu(const char *cmdline, char *out, size_t outlen);

/* count per hour of exposure_ms; NaN when the exposure is not positive. */
double report_per_hour(double count, int64_t exposure_ms);

/* count per second of exposure_ms; NaN when the exposure is not positive. */
double report_per_s(double count, int64_t exposure_ms);

/* The mode a capacity probe's workers held their FPU state in (--gfp-mode; kmod/fpusoak_gfp.h numbers). */
enum report_gfp_mode { REPORT_GFP_NONE = 0, REPORT_GFP_KERNEL = 1, REPORT_GFP_ATOMIC = 2, REPORT_GFP_NOWAIT = 3 };

/* The mode's name ("kernel", "atomic", "nowait"; "off" for none; "?" out of range). */
const char *report_gfp_mode_name(int mode);

/* A probe's stored mode text (v_probes.gfp_mode) as enum report_gfp_mode (NULL, "" or unknown: none). */
int report_gfp_mode_of(const char *name);

/* Which modes a run's capacity probes held in: bit m of *mask for enum report_gfp_mode m; 0 or -1. */
int report_probe_modes(struct query *q, int64_t run_id, unsigned *mask);

/* Whether a failure's GFP flags make it an atomic request (no __GFP_DIRECT_RECLAIM: GFP_ATOMIC, GFP_NOWAIT),
 * decoded with the table both the kernel-log and the trace parsers use (collector/gfp.h); 0 for NULL or unknown. */
int report_gfp_atomic(const char *gfp_flags);

/* Allocation failures of a whole run: the count and its rate over the run's exposure. */
struct report_failures {
	int64_t count;
	int64_t exposure_ms;      /* report_run_exposure_ms */
	double per_hour;          /* NaN without exposure */
};

/* The allocation failures of run run_id (which must exist); 0 or -1. */
int report_failures(struct query *q, int64_t run_id, struct report_failures *out);

/*
 * What the run's tracefs instance saw (schema 008): every failed page
 * allocation, by order and class, and the fallbacks to another migrate type,
 * the fragmenting ones with a trend.  Rates are over the run's exposure,
 * like the kernel log's failures; the kernel log's failures the trace also
 * saw are among its count, not added to it.
 */
enum report_trace_class { REPORT_SLEEPING = 0, REPORT_ATOMIC = 1, REPORT_OPPORTUNISTIC = 2 };

struct report_trace {
	int tables;               /* the database has the trace tables */
	int on;                   /* the run's note says tracefs=on */
	char note[512];           /* "tracefs=on (...)", "tracefs=off (reason)", or "" (before schema 8) */
	int64_t setup_slab_kb;    /* on: Slab the instance took when it was made (the note's "Slab +N kB"); -1 unknown */
	int64_t exposure_ms;      /* report_run_exposure_ms */
	struct query_trace t;     /* the counts */
	int64_t by_class[QUERY_TRACE_CLASSES], by_order[QUERY_TRACE_ORDERS];
	double per_hour, class_per_hour[QUERY_TRACE_CLASSES];   /* NaN without exposure */
	double extfrag_per_hour, fragmenting_per_hour;
	int64_t trend_tier;       /* the buckets the trend is fitted on (STORE_TIER_*) */
	int trend_ok;             /* >= REPORT_TREND_POINTS buckets and the fit succeeded */
	struct trend_fit fit;     /* x = ms since the first bucket, y = fragmenting fallbacks per hour */
	double slope_h, lo_h, hi_h;   /* change of that rate per hour, with its 95% CI */
	int significant;          /* the CI excludes 0 */
};

#define REPORT_TREND_POINTS REPORT_TREND_MIN_POINTS   /* the fragmenting trend's buckets: as every trend's points */

/* The trace of run run_id (which must exist); 0 or -1.  A DB before schema 8 gives tables = 0. */
int report_trace(struct query *q, int64_t run_id, struct report_trace *out);

/* Short name of a trace class ("sleeping", "atomic", "opportunistic"). */
const char *report_trace_class_name(int cls);

/* Churn over a window: the sums, and each count per hour of the time they cover. */
struct report_churn {
	struct query_churn tot;   /* sums; tot.span_ms is the exposure */
	double per_hour[QC_N];    /* NaN when the span is 0 */
	double spawns_per_s;
	int64_t spawn_failures;   /* EAGAIN + ENOMEM + other */
};

/*
 * Every death counted once (spawner/churn_ctl.h): per set (churn workers, capacity-probe workers), the
 * identity spawned = exited + each kind of death + alive holds; an OOM kill is counted in the set of the
 * worker that died.  These are a window's sums of v_churn.
 */
struct report_deaths {
	int64_t churn_spawned, churn_exited, churn_killed, churn_oom, churn_ours;
	int64_t probe_spawned, probe_exited, probe_killed, probe_oom, probe_ours;
	int64_t unattributed;     /* OOM kills the cgroup counted that matched no worker's death */
	int64_t oom_total;        /* churn_oom + probe_oom + unattributed: every OOM kill, once */
	int64_t churn_gfp, probe_gfp;       /* killed themselves on a refused HOLD (--gfp-mode) */
	int64_t churn_alive, probe_alive;   /* at the run's last tick; -1 unknown, probe -2 not accounted (report_run_population) */
	int64_t span_ms;          /* the time the churn counts cover */
};

/* The two populations as identities, "churn workers: spawned 204 = exited 196 + killed 0 + alive 8" and the
 * probe workers' alike, into churn and probe (a sum that does not hold says by how much); 1, or 0 (no churn). */
int report_deaths_identity(const struct report_deaths *d, char *churn, size_t clen, char *probe, size_t plen);

/* The deaths of a whole run with both populations alive at its end into d; 1, 0 without churn rows, -1. */
int report_run_population(struct query *q, int64_t run_id, struct report_deaths *d);

/* Fill d from churn sums c (report_churn's tot); all 0 when c is NULL. */
void report_deaths_of(const struct query_churn *c, struct report_deaths *d);

/* One line: "OOM kills 4 (churn 0, probe 4); killed 4, exited 1203" (no churn: "no churn"); returns buf. */
const char *report_deaths_text(const struct report_deaths *d, char *buf, size_t len);

/* The deaths of a whole run as that line into buf; 0, or -1 on a store error. */
int report_run_deaths(struct query *q, int64_t run_id, char *buf, size_t len);

/* What the run ran under: "v1 <group>, memory 48 MiB, pids 201", "unconfined: <why> (capped at 64 workers)",
 * "no churn"; returns buf. */
const char *report_run_confinement(const struct query_run *r, char *buf, size_t len);

/* Churn of a run in [from, to] (-1 = open): 1, 0 when there are no churn rows, -1. */
int report_churn(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_churn *out);

/* One bucket of churn as rates. */
struct report_churn_point {
	int64_t ts_ms;
	int64_t span_ms;          /* the time the bucket's ticks cover */
	double population;        /* mean workers alive */
	double per_s[QC_N];       /* each count per second of span_ms */
};

typedef int (*report_churn_fn)(void *arg, const struct report_churn_point *p);

/* Churn of a run in rg, bucketed by the store (query_churn_series); fn per bucket; rows or -1. */
int report_churn_series(struct query *q, int64_t run_id, struct query_range *rg, report_churn_fn fn, void *arg);

/* One kind of probe over a window: the results, oldest first, and what they say. */
struct report_probe_set {
	size_t n, cap;
	int64_t *t;
	double *v;                /* finite results only */
	double median, min, max;  /* NaN when n == 0 */
	int fit_ok;               /* >= REPORT_TREND_MIN_POINTS probes (report/headroom.h) and the fit succeeded */
	struct trend_fit fit;     /* x = ms since t[0] */
	double slope_h, lo_h, hi_h;   /* slope and its 95% CI per hour */
	int significant;          /* the CI excludes 0 */
	/* Left out: capacity probes stopped by limit, timeout or stopped (a lower bound, not a capacity:
	 * report/gate.h), FPU-cost probes that did not finish ("failed:..."). */
	size_t censored;
	double censored_max;      /* the largest result among them (a capacity probe's floor) */
	char censored_reason[48]; /* the first such stop reason */
	/* How long the probes took (capacity: the fill; every probe, censored ones too); -1 when none says. */
	int64_t dur_min_ms, dur_max_ms;
};

struct report_probes {
	int rows;                 /* probes in the window, of any kind and result */
	struct report_probe_set capacity;   /* workers held */
	struct report_probe_set fpu_cost;   /* system us per yield */
};

/* The probes of a run in [from, to] (-1 = open); 0 or -1 (then nothing to free). */
int report_probes(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_probes *out);

/* As report_probes, with only the capacity probes whose workers held in mode (enum report_gfp_mode; -1: all). */
int report_probes_mode(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int mode,
		       struct report_probes *out);

/* Free what report_probes allocated; NULL-safe. */
void report_probes_free(struct report_probes *p);

/* The request at one order over a window (v_atomic_request): the headline of the atomic-allocation risk. */
struct report_request {
	int64_t samples;          /* ticks with a verdict at this order */
	double atomic_only_pct;   /* GFP_ATOMIC failed in every zone it may use while GFP_KERNEL would pass */
	double nowait_only_pct;   /* the same for GFP_NOWAIT */
	double atomic_fail_pct, kernel_fail_pct;   /* NaN when there are no samples */
};

/* The request at order k of a run in [from, to] (-1 = open): 1, 0 without samples, -1. */
int report_request(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
		   struct report_request *out);
/* The fragmenting background load of a run (fragload/fragload.h, v_fragment): its recipe and holdings. */
struct report_fragment {
	char level[8];            /* light|heavy */
	int64_t base_bytes, cap_bytes, keep_cap_bytes;
	char recipe[384];         /* "key=value ..." */
	struct query_fragment tot;   /* its rows in the window (tot.rows 0: none there) */
	double peak_pct_of_cap;   /* tot.held_max over cap_bytes, in %; NaN without rows */
};

/* The load of run_id with its rows in [from, to] (-1 = open): 1, 0 when the run had none, -1. */
int report_fragment(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_fragment *out);

/* One zone's atomic-allocation risk at one order over a window. */
struct report_atomic {
	int node;
	const char *zone;         /* borrowed from the store: valid during the callback */
	int64_t samples, risk;    /* risk: GFP_ATOMIC would fail where GFP_KERNEL would pass */
	double risk_pct, atomic_fail_pct, kernel_fail_pct;   /* of the samples; NaN when there are none */
	int has_margin;           /* 0 on pre-4.4 kernels */
	int64_t min_margin;       /* lowest GFP_ATOMIC margin, pages */
};

typedef int (*report_atomic_fn)(void *arg, const struct report_atomic *a);

/* Per zone, the order-k atomic risk of a run in [from, to] (-1 = open); rows (zones) or -1. */
int report_atomic_summary(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			  report_atomic_fn fn, void *arg);

/* Per bucket and zone, the percentage of samples at risk for order k in rg (v = lo = hi, 0..100); rows or -1. */
int report_atomic_series(struct query *q, int64_t run_id, int order, struct query_range *rg, query_zone_fn fn,
			 void *arg);

#endif
