/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * causes: why a run's failed allocations failed (schema 014; the rule is
 * analysis/cause.h, the sources daemon/causes.h): counts by source, cause and
 * order over the run and per hour, and the comparison's lines on the rate of
 * fragmentation failures.
 *
 * Sources are counted apart: one failure may be seen by more than one (a
 * refused HOLD warns in the kernel log, and the trace sees it too), so their
 * sum is not a count of failures.  The comparison (report/compare.c) has one
 * line per source that both runs observed (the kernel log: always; the trace:
 * both traced; the module: both had it loaded, report_cause_module),
 * "fragmentation failures/h (SOURCE)", each count over the run's exposure with
 * the exact rare-event test (report/rare.h).
 */
#ifndef FPUSOAK_REPORT_CAUSES_H
#define FPUSOAK_REPORT_CAUSES_H

#include <stddef.h>
#include <stdint.h>

#include "store/query.h"

#define REPORT_CAUSE_SOURCES 3     /* 1 kmsg, 2 trace, 3 module: index source - 1 */
#define REPORT_CAUSE_ORDERS 16     /* 15: 15 and above */
#define REPORT_CAUSE_HOURS 48      /* newest hours with failures kept (the rest counted in totals) */
#define REPORT_CAUSES 4            /* 0 unknown, 1 watermark, 2 fragmentation, 3 reserve (analysis/cause.h) */

/* One hour's failures. */
struct report_cause_hour {
	int64_t hour_ms;
	int64_t n[REPORT_CAUSE_SOURCES][REPORT_CAUSES];
	int32_t by_order[REPORT_CAUSES][REPORT_CAUSE_ORDERS];   /* every source together */
};

struct report_causes {
	int have;                  /* the database records causes (schema 14) */
	int64_t total[REPORT_CAUSE_SOURCES][REPORT_CAUSES];
	int64_t by_order[REPORT_CAUSE_SOURCES][REPORT_CAUSES][REPORT_CAUSE_ORDERS];
	int64_t all;               /* every row counted, every source */
	int hours_total;           /* hours with failures in the window */
	int nhours;                /* ... of which kept below (the newest) */
	struct report_cause_hour hours[REPORT_CAUSE_HOURS];   /* oldest first */
};

/* The causes of run_id over the hours that overlap [from_ms, to_ms] (-1: open); 0, or -1 on a store error
 * (out->have 0 on a database from before schema 14).  About 18 KiB: callers allocate it. */
int report_causes(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_causes *out);

/* "unknown", "watermark", "fragmentation", "reserve" (analysis/cause.h's names). */
const char *report_cause_name(int cause);

/* "kernel log", "trace", "module" for source 1..3; "?" otherwise. */
const char *report_cause_source(int source);

/* The short name v_failure_causes uses: "kmsg", "trace", "module"; "?" otherwise. */
const char *report_cause_source_key(int source);

/* "o9 10, o3 2": orders with failures in by_order[0..REPORT_CAUSE_ORDERS), most first (ties: lower order
 * first; 15 is "o15+"); "" when none; returns buf. */
const char *report_cause_orders(const int64_t *by_order, char *buf, size_t len);

/* The run had the fpusoak_gfp module loaded, from its recorded mode (v_runs.gfp_mode): "off (module not
 * loaded)" or any "off (why)" is no module, "off" alone a loaded module whose workers do not HOLD. */
int report_cause_module(const char *gfp_mode);

/* The i-th line (from 0) of a run's causes as the summary says them ("failure causes (kernel log): 3", then
 * "  watermark     2 (o0 2)" per cause it had ...) into buf; 0, or -1 past the last line. */
int report_cause_line(const struct report_causes *rc, int i, char *buf, size_t len);

#endif
