/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * query: the read side of the store — what the web pages, the JSON/CSV API,
 * /metrics and the offline report ask of the database.
 *
 * Only the store module speaks SQL; callers get plain structs through
 * callbacks.  A handle is one read-only SQLite connection
 * (SQLITE_OPEN_READONLY, no SQLite mutex: a handle is used by one thread at
 * a time, which the caller guarantees).  WAL lets it read while the daemon's
 * loop writes; a reader sees the last committed tick and never blocks the
 * writer.  Statements are prepared once per handle and cached.
 *
 * Series are downsampled in SQL: rows in [from, to] are grouped into
 * buckets of bucket_ms = max(ceil((last - first + 1) / max_points),
 * sample interval), anchored at the first sample in the window, so a
 * series never has more than max_points points per zone/name.  Long
 * windows read the minute or hour rollups (STORE_TIER_*) instead of raw
 * ticks, and the bucket is then at least the tier's width; windows under 6
 * hours that raw ticks cover read the ticks (one range scan: the tables are
 * keyed by (run_id, ts_ms)).  The policy is in store/read_range.c; store/reader.h
 * lists the reader's files (store/reader.c is the handle).
 *
 * Strings handed to callbacks are borrowed from SQLite and valid only
 * during that call; they are raw DB text: escape them for the output.  A
 * callback returns 0 to go on, non-zero to stop (the query then returns -1
 * with "stopped by caller").  A callback must not call the same query
 * function on the same handle (the cached statement is in use).  NULL SQL
 * values are NULL strings and -1 numbers.
 */
#ifndef FPUSOAK_QUERY_H
#define FPUSOAK_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "collector/buddyinfo.h"
#include "common/runref.h"
#include "store/tiers.h"

#define QUERY_MAX_ROWS 200000   /* rows one series call may emit; more is an error */
#define QUERY_MAX_RUNS 100000   /* runs one listing may emit; more is an error */

struct query;

/* A run (table runs) plus its sample figures. */
struct query_run {
	int64_t run_id;
	const char *label, *end_reason, *version, *boot_id, *hostname;
	const char *kernel_release, *kernel_version, *cmdline, *hypervisor, *guest_type;
	const char *cpu_model, *fpu_features, *xstate_detail, *config;
	const char *cpu_model_kernel;                     /* /proc/cpuinfo's model name; NULL before schema 18 */
	const char *gfp_mode;                             /* --gfp-mode in force; NULL before schema 9 */
	const char *xen_domain;                           /* "dom0" | "domU" | NULL */
	int64_t xen_domid;                                /* -1 when unknown */
	int64_t started_ms, ended_ms, pid;                /* ended_ms -1 while running */
	int64_t xstate_bytes, mem_total_kb, page_size;
	int64_t nsamples;                                 /* rows in samples */
	int64_t first_sample_ms, last_sample_ms;          /* the exact tick span; -1 when no samples */
	int span_exact;                                   /* 0: an end came from a rollup bucket's bounds
							     (written before schema 7), not a tick */
	/* What the run ran under (churn_info; strings NULL, numbers -1 when not recorded) */
	const char *cgroup;                               /* "v1", "v2", "none"; NULL: no churn recorded */
	const char *cgroup_group, *unconfined_reason, *fpu_kind;
	int64_t cgroup_memory_max, cgroup_pids_max;       /* read back, 0 = no limit */
	int64_t pop_cap;
	int confinement_exact;                            /* 1: read back from the kernel (schema 7) */
};

/* The window of a series: from/to (-1 = the run's first/last sample) and max_points in; resolved values out. */
struct query_range {
	int64_t from_ms, to_ms;   /* in: bounds or -1; out: first/last sample inside them */
	int max_points;           /* in: >= 1 */
	int64_t bucket_ms;        /* out: bucket width used (0 when the window holds no sample) */
	int64_t interval_ms;      /* out: estimated sample interval in the window */
};

/* One bucket of one zone: averages of the free-block counts of its rows. */
struct query_buddy_point {
	int64_t ts_ms;            /* first row of the bucket */
	int node;
	const char *zone;
	int norders;
	double free[BUDDY_MAX_ORDER];   /* 0 past norders */
};

/* One bucket of a scalar series. */
struct query_point {
	int64_t ts_ms;
	double v;
};

/* One allocation failure the kernel logged (warn_alloc), from v_alloc_failures. */
struct query_alloc_failure {
	int64_t ts_ms;
	const char *comm;         /* raw bytes as the kernel printed them: any bytes a local user chose */
	size_t comm_len;
	int64_t pid, order;       /* -1 when unknown */
	const char *gfp_flags;    /* "GFP_KERNEL|__GFP_COMP" or NULL */
	const char *gfp_mask;     /* "0x140cca" */
};

typedef int (*query_alloc_failure_fn)(void *arg, const struct query_alloc_failure *f);
typedef int (*query_run_fn)(void *arg, const struct query_run *r);
typedef int (*query_buddy_fn)(void *arg, const struct query_buddy_point *p);
typedef int (*query_point_fn)(void *arg, const struct query_point *p);

/* Open db_path read-only, writing nothing, not even side files (see reader.c); NULL with a message in err on failure. */
struct query *query_open(const char *db_path, char *err, size_t errlen);

/* Cap this handle's page cache at kib KiB (SQLite's default is ~2 MiB per connection); 0 or -1. */
int query_cache_kib(struct query *q, int kib);

/*
 * Several databases read together (`summary`, `report` and `serve` with more
 * than one --db): a handle each, and the short names their runs are
 * addressed by ("NAME:ID", common/runref.h), in --db order.
 */
struct query_set {
	int n;
	struct query *q[RUNREF_MAX_DBS];
	runref_name name[RUNREF_MAX_DBS];
};

/* Open paths[0..n) read-only into *set (names from runref_names); 0, or -1 with err naming the file (nothing left open). */
int query_set_open(struct query_set *set, const char *const *paths, int n, char *err, size_t errlen);

/* Close every handle of set; NULL-safe. */
void query_set_close(struct query_set *set);

/* 1 when q was opened while no writer had the DB and a writer has appeared since: reopen it to see new data. */
int query_stale(const struct query *q);

/* Finalize the cached statements and close; NULL-safe. */
void query_close(struct query *q);

/* Whether a daemon writes this DB now (holds the writer's flock, seen in /proc/locks): 1, 0, or -1 if unknown. */
int query_writer_active(const struct query *q);

/* The last error of this handle, for a log line or a 500 page; never NULL. */
const char *query_errmsg(const struct query *q);

/* Whether a table or view of that name exists: 1, 0, or -1 on error. */
int query_has_table(struct query *q, const char *name);

/* PRAGMA user_version (the schema migration level), or -1 on error. */
int query_schema_version(struct query *q);

/* The newest run (highest run_id): 1 with *run_id set, 0 if there is none, -1 on error. */
int query_latest_run(struct query *q, int64_t *run_id);

/* Every run, newest first, one fn call each; number of runs, or -1 (error, cap, or fn stopped). */
int query_runs(struct query *q, query_run_fn fn, void *arg);

/* One run: 1 after calling fn, 0 if there is no such run, -1 on error. */
int query_run(struct query *q, int64_t run_id, query_run_fn fn, void *arg);

/* The newest run with this label (NULL: without one) that started before started_ms: 1 with its id and start, 0 none, -1. */
int query_run_before(struct query *q, const char *label, int64_t started_ms, int64_t *run_id, int64_t *run_started_ms);

/* Where an imported run came from (v_imports); strings copied, "" when NULL. */
struct query_import {
	char source_file[256], source_path[1024], source_host[256], source_boot_id[64];
	int64_t source_run_id, source_schema, imported_ms;
};

/* The provenance of run_id into *out: 1 when it was imported, 0 when it is this database's own, -1 on error. */
int query_run_import(struct query *q, int64_t run_id, struct query_import *out);

/* What the machine had when a run started (v_run_memory, schema 016), kB; -1 where unknown. */
struct query_run_memory {
	int64_t domain_kb, present_kb, mem_total_kb, mem_free_kb, mem_available_kb;
};

/* The run's memory row into *out: 1 found, 0 none (a run from before schema 016, or nothing known), -1 on error. */
int query_run_memory(struct query *q, int64_t run_id, struct query_run_memory *out);

/* The latest buddyinfo snapshot of a run into *out (zones in node, kernel order): 1 with *ts_ms set, 0 if none, -1. */
int query_buddy_latest(struct query *q, int64_t run_id, struct buddyinfo *out, int64_t *ts_ms);

/* Buddyinfo of a run in rg, bucketed (see top); fn per bucket and zone in time, node, zone order; rows or -1. */
int query_buddy_series(struct query *q, int64_t run_id, struct query_range *rg, query_buddy_fn fn, void *arg);

/* A meminfo field (kB, bucket average) of a run in rg; rows, or -1 (an unknown name gives 0 rows). */
int query_meminfo_series(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			 query_point_fn fn, void *arg);

/* A vmstat counter of a run as a rate per second per bucket in rg (empty bucket: rate 0); rows or -1. */
int query_vmstat_rate(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
		      query_point_fn fn, void *arg);

/* Allocation failures of a run in [from, to] (-1 = open), newest first, at most limit; *total gets the count in the window; rows or -1. */
int query_alloc_failures(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			 int64_t *total, query_alloc_failure_fn fn, void *arg);

/* OOM kills the kernel logged during a run in [from, to] (-1 = open; v_oom_kills) into *n; 0 or -1. */
int query_oom_kills(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int64_t *n);

/* Whether source ("vmstat" or "meminfo") has a field called name: 1, 0, or -1. */
int query_has_name(struct query *q, const char *source, const char *name);

/* ---- the trace (schema 008; query_has_table(q, "trace_rollup") first on old DBs) ---- */

#define QUERY_TRACE_ORDERS 16      /* failures by order: 15 counts 15 and above */
#define QUERY_TRACE_CLASSES 3      /* 0 sleeping, 1 atomic, 2 opportunistic (collector/gfp.h) */

/* What a run's trace saw, over the whole run. */
struct query_trace {
	char note[512];                /* the run's "tracefs=on (...)" / "tracefs=off (...)" note; "" if none */
	int64_t failures;
	int64_t by_oc[QUERY_TRACE_ORDERS][QUERY_TRACE_CLASSES];
	int64_t extfrag, fragmenting;
	int64_t kmsg_failures;         /* failures the kernel log had */
	int64_t kmsg_in_trace;         /* ... of which the trace saw the same failure (while its rows exist) */
};

/* The trace of run_id, whole run (minute rollups, then raw rows past them); 0 or -1. */
int query_trace(struct query *q, int64_t run_id, struct query_trace *out);

/* One rollup bucket of the trace. */
struct query_trace_bucket {
	int64_t ts_ms;
	int64_t ticks;                 /* ticks that carried the trace */
	int64_t failures, extfrag, fragmenting;
};

typedef int (*query_trace_bucket_fn)(void *arg, const struct query_trace_bucket *b);

/* The trace's buckets of tier (STORE_TIER_*) of run_id, oldest first, quiet ones included; rows or -1. */
int query_trace_buckets(struct query *q, int64_t run_id, int64_t tier, query_trace_bucket_fn fn, void *arg);

/* One failed allocation the trace saw (v_page_alloc_failures). */
struct query_trace_failure {
	int64_t ts_ms;
	const char *comm;              /* raw bytes as the kernel's saved comm printed them */
	size_t comm_len;
	int64_t pid, order, migratetype;   /* -1 when unknown */
	const char *gfp_flags;         /* "GFP_NOWAIT|__GFP_NOWARN" */
	const char *gfp_mask;          /* "0x2800", NULL when the kernel's table was not read */
	const char *cls;               /* "sleeping", "atomic" or "opportunistic" */
	int nowarn, in_kmsg;
};

typedef int (*query_trace_failure_fn)(void *arg, const struct query_trace_failure *f);

/* Traced failures of a run in [from, to] (-1 = open), newest first, at most limit; *total gets the count; rows or -1. */
int query_trace_failures(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			 int64_t *total, query_trace_failure_fn fn, void *arg);

/* ---- the report's sections (schema 002-004 tables; check query_has_table first on old DBs) ---- */

/* The latest task_struct slabinfo row of a run: 1 with *order (-1 if pagesperslab is odd) and *objsize, 0 if none, -1. */
int query_task_slab(struct query *q, int64_t run_id, int *order, int64_t *objsize);

/* The latest pageblock order pagetypeinfo reported for a run: 1 with *order, 0 if none, -1. */
int query_pageblock_order(struct query *q, int64_t run_id, int *order);

/* The FPU kind the spawner resolved for a run (churn_info) into out: 1, 0 if none recorded, -1. */
int query_run_fpu_kind(struct query *q, int64_t run_id, char *out, size_t outlen);

/* One bucket of one zone of the kernel's indices, every order (v_frag_x1000, or minute/hour rollups). */
struct query_frag_point {
	int64_t ts_ms;            /* first row of the bucket */
	int node;
	const char *zone;
	int norders;
	double unusable[BUDDY_MAX_ORDER];   /* worst (max) unusable index in the bucket, 0..1 */
	double frag[BUDDY_MAX_ORDER];       /* worst fragmentation index, -1..1; NaN from rollups (not kept there) */
	double headroom[BUDDY_MAX_ORDER];   /* mean headroom: free blocks able to satisfy that order */
};

typedef int (*query_frag_fn)(void *arg, const struct query_frag_point *p);

/* Indices and headroom of a run in rg, bucketed and tiered like query_buddy_series; fn per bucket and zone; rows or -1. */
int query_frag_series(struct query *q, int64_t run_id, struct query_range *rg, query_frag_fn fn, void *arg);

/* One row of one zone of a scalar series per zone. */
struct query_zone_point {
	int64_t ts_ms;
	int node;
	const char *zone;
	double v, lo, hi;         /* the value; lo/hi: its min/max where the source has them, else v */
};

typedef int (*query_zone_fn)(void *arg, const struct query_zone_point *p);

/* Order-k headroom per rollup bucket (v mean, lo/hi min/max; hours past two days) in [from, to] (-1 = open), by zone, time; rows or -1. */
int query_headroom_minutes(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			   query_zone_fn fn, void *arg);

/* Order-k headroom at every tick (v = lo = hi) in [from, to] (-1 = open), by zone, time; rows or -1.  For the
 * short windows report/headroom.h fits per tick; only where raw ticks are kept (--retain-raw). */
int query_headroom_ticks(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			 query_zone_fn fn, void *arg);

/* The fragmenting load's recipe for a run (v_fragment_runs); strings borrowed for the callback. */
struct query_fragment_info {
	const char *level, *recipe;
	int64_t base_bytes, cap_bytes, keep_cap_bytes;
};

typedef int (*query_fragment_info_fn)(void *arg, const struct query_fragment_info *f);

/* 1 with fn called once, 0 when the run had no load (or the DB has no such table), -1 on error. */
int query_fragment_info(struct query *q, int64_t run_id, query_fragment_info_fn fn, void *arg);

/* What the load held over a bucket (v_fragment): means of each kind, the largest total. */
struct query_fragment {
	int64_t ts_ms, last_ms, rows;
	double anon, pipe, pgtable, socket, files;   /* mean bytes (files: mean count) */
	int64_t held_max, kept_max, cycles, alloc_failed;   /* held: anon + pipe + pgtable + socket bytes */
};

typedef int (*query_fragment_fn)(void *arg, const struct query_fragment *f);

/* The load's rows of a run in rg (raw rows only, bucketed like the other series); rows or -1. */
int query_fragment_series(struct query *q, int64_t run_id, struct query_range *rg, query_fragment_fn fn, void *arg);

/* The load's rows of a run in [from, to] (-1 = open) as one bucket: 1, 0 when there are none, -1. */
int query_fragment_totals(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct query_fragment *out);

/* Churn columns, in v_churn's order. */
enum query_churn_col {
	QC_SPAWNED, QC_FAIL_EAGAIN, QC_FAIL_ENOMEM, QC_FAIL_OTHER, QC_EXITED, QC_SIGKILL, QC_SIGSEGV, QC_SIGILL,
	QC_SIGOTHER, QC_OOM, QC_EXITED_ERROR,
	/* schema 7: every death counted once (NULL, read as 0, in older rows) */
	QC_KILLED_OURS, QC_PROBE_SPAWNED, QC_PROBE_FAILED, QC_PROBE_EXITED, QC_PROBE_SIGKILL, QC_PROBE_SIGOTHER,
	QC_PROBE_OOM, QC_PROBE_KILLED_OURS, QC_OOM_UNATTRIBUTED,
	/* schema 9: deaths of a refused HOLD (--gfp-mode), churn and probe workers */
	QC_GFP_FAILED, QC_PROBE_GFP_FAILED, QC_N
};

/* v_churn's column name of c ("spawned", "spawn_failed_eagain", ...). */
const char *query_churn_column(int c);

/* Churn over a bucket (or a whole window): sums of the per-tick counts. */
struct query_churn {
	int64_t ts_ms;            /* first row */
	int64_t last_ms;          /* last row */
	int64_t rows;
	int64_t span_ms;          /* time the counts cover: last - first + the sample interval */
	double population;        /* mean workers alive */
	int64_t population_max;
	int64_t c[QC_N];
};

typedef int (*query_churn_fn)(void *arg, const struct query_churn *c);

/* Churn of a run in rg, bucketed; fn per bucket in time order; rows or -1. */
int query_churn_series(struct query *q, int64_t run_id, struct query_range *rg, query_churn_fn fn, void *arg);

/* Churn and probe workers alive at the run's last raw tick with churn (probe -2: a tick from before schema 7,
 * which did not account probe workers): 1, 0 when there is none (-1 each), -1. */
int query_churn_alive(struct query *q, int64_t run_id, int64_t *churn, int64_t *probe);

/* Churn sums of a run in [from, to] (-1 = open) into *out: 1, 0 when there are no churn rows, -1. */
int query_churn_totals(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct query_churn *out);

/* A capacity or FPU-cost probe (v_probes). */
struct query_probe {
	int64_t ts_ms;
	const char *kind;         /* "capacity" or "switch" */
	double result;            /* capacity: workers held; switch: system us per yield; NaN when NULL */
	const char *stop_reason, *detail;
	int64_t duration_ms;      /* -1 when NULL */
	const char *gfp_mode;     /* capacity: the mode its workers held in (--gfp-mode); NULL for none */
};

typedef int (*query_probe_fn)(void *arg, const struct query_probe *p);

/* Probes of a run in [from, to] (-1 = open), kind NULL = all, oldest first, at most limit; rows or -1. */
int query_probes(struct query *q, int64_t run_id, const char *kind, int64_t from_ms, int64_t to_ms, int limit,
		 query_probe_fn fn, void *arg);
/* query_probes with every detail NULL: the same rows, read from the table (for readers that never show it). */
int query_probes_bare(struct query *q, int64_t run_id, const char *kind, int64_t from_ms, int64_t to_ms, int limit,
		      query_probe_fn fn, void *arg);

/* Model checks of one order and mode (v_model_check): the model's prediction against the allocator's answer. */
struct query_model_checks {
	int order;
	int mode;                 /* 2 atomic, 3 nowait (kmod/fpusoak_gfp.h numbers) */
	int64_t n[2][2];          /* checks by [predicted_ok][actual_ok] */
	int64_t min_margin_wrong; /* smallest |margin_pages| among disagreements; -1 when none or unknown */
	int64_t max_margin_wrong; /* largest |margin_pages| among disagreements; -1 when none or unknown */
};

typedef int (*query_model_check_fn)(void *arg, const struct query_model_checks *c);

/* Model checks of a run in [from, to] (-1 = open), per order and mode in that order; rows or -1. */
int query_model_checks(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, query_model_check_fn fn,
		       void *arg);

/* The atomic-allocation model's verdicts for one zone and order over a window (v_atomic_risk). */
struct query_atomic {
	int node;
	const char *zone;
	int64_t samples;
	int64_t risk;             /* GFP_ATOMIC would fail where GFP_KERNEL would pass */
	int64_t atomic_fail, kernel_fail;
	int64_t min_margin;       /* lowest GFP_ATOMIC margin in pages; has_margin 0 on pre-4.4 kernels */
	int has_margin;
};

typedef int (*query_atomic_fn)(void *arg, const struct query_atomic *a);

/* Per zone, order-k atomic risk of a run in [from, to] (-1 = open); rows (zones) or -1. */
int query_atomic_summary(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			 query_atomic_fn fn, void *arg);

/* The request at one order (v_atomic_request): ticks with a verdict and how many failed. */
struct query_request {
	int64_t ts_ms;            /* first tick (of the bucket, in a series) */
	int64_t samples;          /* ticks with a verdict at this order */
	int64_t atomic_fail, nowait_fail, kernel_fail;   /* GFP_KERNEL: even by reclaim and compaction */
	int64_t atomic_only, nowait_only;                /* ... failed where GFP_KERNEL would pass */
};

typedef int (*query_request_fn)(void *arg, const struct query_request *r);

/* The request at order k of a run in [from, to] (-1 = open) into *out: 1, 0 when no tick has a verdict, -1. */
int query_request_summary(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			  struct query_request *out);

/* The request at order k per bucket of rg (raw ticks, or the minute/hour rollups as other series);
 * fn per bucket in time order; rows or -1. */
int query_request_series(struct query *q, int64_t run_id, int order, struct query_range *rg, query_request_fn fn,
			 void *arg);

/* Per bucket and zone, the fraction of samples at risk (v = lo = hi, 0..1) for order k in rg; rows or -1. */
int query_atomic_series(struct query *q, int64_t run_id, int order, struct query_range *rg, query_zone_fn fn,
			void *arg);

/* One zone x migratetype row of the latest pagetypeinfo sample. */
struct query_pagetype {
	int64_t ts_ms;
	int node;
	const char *zone, *migratetype;
	int norders;
	int64_t free[BUDDY_MAX_ORDER];
	unsigned capped_mask;     /* bit k: the kernel printed ">100000" for order k */
	int64_t pageblocks;       /* -1 when not printed */
	int pageblock_order;      /* -1 when unknown */
};

typedef int (*query_pagetype_fn)(void *arg, const struct query_pagetype *p);

/* The latest pagetypeinfo sample of a run, node/zone/type order; rows or -1. */
int query_pagetype_latest(struct query *q, int64_t run_id, query_pagetype_fn fn, void *arg);

/* One cache of the latest slabinfo sample (v_slabinfo). */
struct query_slab {
	int64_t ts_ms;
	const char *name;
	int64_t active_objs, num_objs, objsize, objperslab, pagesperslab;
	int slab_order;           /* -1 when pagesperslab is not a power of two */
};

typedef int (*query_slab_fn)(void *arg, const struct query_slab *s);

/* The latest slabinfo sample of a run, by name; rows or -1. */
int query_slab_latest(struct query *q, int64_t run_id, query_slab_fn fn, void *arg);

/* Time, order (-1 unknown) and GFP flags (NULL unknown) of allocation failures in [from, to], newest first, at most limit; rows or -1. */
int query_failure_times(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			query_alloc_failure_fn fn, void *arg);

/* ---- failure causes (schema 014; query_has_table(q, "failure_cause") first on old DBs) ---- */

/* Failures of one hour, one source (1 kmsg, 2 trace, 3 module), one cause (0 unknown, 1 watermark,
 * 2 fragmentation, 3 reserve: analysis/cause.h) and one order (15: 15 and above). */
struct query_cause_hour {
	int64_t hour_ms;
	int source, cause, order;
	int64_t failures;
};

typedef int (*query_cause_hour_fn)(void *arg, const struct query_cause_hour *h);

/* Every hour of run_id with a classified failure, oldest first: the hour rollups, then the raw rows past them
 * (retention keeps the rollups); fn per (hour, source, cause, order); rows or -1. */
int query_cause_hours(struct query *q, int64_t run_id, query_cause_hour_fn fn, void *arg);

/* One classified failure (v_failure_causes, with the note). */
struct query_cause_row {
	int64_t ts_ms, pid;                /* pid -1: none */
	int source, order, cause, node, largest_order;    /* node -1, largest_order -1: none */
	const char *comm;                  /* raw bytes, comm_len of them; NULL: none */
	int comm_len;
	const char *gfp_flags, *zone, *note;   /* "" none */
	int64_t free_kb, min_kb, lag_ms;   /* -1 free/min: none; has_lag says for lag */
	int has_lag;
};

typedef int (*query_cause_row_fn)(void *arg, const struct query_cause_row *r);

/* The classified failures of run_id in [from_ms, to_ms] (-1: open), newest first, at most limit (0: none, just
 * *total); *total (may be NULL) is how many there are; rows passed or -1. */
int query_cause_rows(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit, int64_t *total,
		     query_cause_row_fn fn, void *arg);

/* ---- what a comparison needs of a run (schema 013; query_has_table(q, "run_vm") first on old DBs) ---- */

/* One of the allocator's knobs a run started under (v_run_vm). */
typedef int (*query_vm_fn)(void *arg, const char *name, const char *value);

/* The knobs of run_id, by name; fn per knob; rows or -1. */
int query_run_vm(struct query *q, int64_t run_id, query_vm_fn fn, void *arg);

/* One of a run's own processes (v_run_procs). */
struct query_proc {
	const char *role;         /* daemon|spawner|load|web */
	int64_t pid;
	const char *comm;         /* bytes, comm_len of them; NULL unknown */
	size_t comm_len;
	const char *cgroup;       /* its cgroup lines; NULL unknown */
};
typedef int (*query_proc_fn)(void *arg, const struct query_proc *p);

/* The own processes of run_id; fn per process; rows or -1. */
int query_run_procs(struct query *q, int64_t run_id, query_proc_fn fn, void *arg);

/* A failed allocation with what is known of its task (v_failure_tasks). */
struct query_fail_task {
	int kmsg;                 /* 1 from the kernel log, 0 from the trace */
	int64_t ts_ms;
	int64_t pid;              /* -1 unknown */
	const char *comm;         /* bytes, comm_len of them */
	size_t comm_len;
	int64_t ppid;             /* -1 unknown */
	const char *cgroup;       /* NULL unknown */
};
typedef int (*query_fail_task_fn)(void *arg, const struct query_fail_task *f);

/* Every failed allocation of run_id from source (1 the kernel log, 0 the trace's raw rows); fn per failure; rows or -1. */
int query_fail_tasks(struct query *q, int64_t run_id, int kmsg, query_fail_task_fn fn, void *arg);

#endif
