/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/compare: run B against run A, line by line, for the compare page,
 * /api/v1/compare and `fpusoakd summary --compare`.
 *
 * Each line says which test it uses (analysis/stats.h):
 *   capacity, FPU cost        per-probe results: Hodges-Lehmann shift CI, Mann-Whitney p
 *   headroom slope (per order) Welch difference of the two OLS slopes, per hour
 *   allocation / spawn failures Poisson rate ratio per hour, exact conditional CI
 *   traced failures, fragmenting fallbacks (when both runs had tracefs on): the same;
 *                             one run without the trace: no lines, a caveat of the pair says why
 *   spawns/s, atomic risk %   one value per bucket of >= 1 minute: HL shift CI, Mann-Whitney p
 * Before a line is tested, the comparability gate (report/gate.h) compares
 * what each run actually ran under.  Every line then ends in exactly one of
 *   significant                      the 95% interval excludes no difference
 *   no significant difference        it does not
 *   too few data (n=3+3; needs 4+4)  no interval these counts could give would exclude it
 *   not comparable: <reason>         a difference between the runs makes the line meaningless
 * and carries the gate's caveats (what it should be read with).  Capacity
 * probes stopped by limit, timeout or stopped are censored (left out,
 * said).  Rates use the runs' exact exposures (report_run_exposure_ms);
 * the atomic risk is the request's (v_atomic_request), not one zone's.
 */
#ifndef FPUSOAK_REPORT_COMPARE_H
#define FPUSOAK_REPORT_COMPARE_H

#include <stdint.h>

#include "analysis/poisson.h"
#include "analysis/stats.h"
#include "collector/buddyinfo.h"
#include "report/cond.h"
#include "report/gate.h"
#include "report/line.h"
#include "report/run.h"
#include "report/whose.h"
#include "store/query.h"

#define REPORT_MAX_LINES 24          /* lines of a comparison */
#define REPORT_MIN_BUCKET_MS 60000   /* the sample unit of per-bucket comparisons: a minute */
#define REPORT_MAX_BUCKETS 2000      /* per run in a per-bucket comparison */

/* How a comparison is made (NULL: the defaults, all 0). */
struct report_cmp_opts {
	int all_failures;         /* the failure lines count every process's failures, not only the run's own */
	int keep_series;          /* keep each line's rows (report_line.s): free with report_compare_free */
};

struct report_cmp {
	struct query *qa, *qb;    /* the databases of a and b (the same handle for runs of one database) */
	int64_t a, b;
	struct report_orders orders;   /* union of both runs' orders of interest */
	char zone[REPORT_MAX_ORDERS][ZONE_NAME_MAX];   /* the zone whose headroom is compared per order ("" if none) */
	int node[REPORT_MAX_ORDERS];
	struct report_cond ca, cb;     /* what each run ran under, as stored */
	struct report_gate pair;       /* the pair: the machine, and what differs as meant */
	struct report_factors diff;    /* what differs between the runs, the experiment first */
	char differs[REPORT_GATE_TEXT];    /* "fragmenting load off (A) vs heavy (B)"; "" when nothing recorded does */
	struct report_cmp_opts opts;
	struct report_whose_counts kmsg[2], trace[2];   /* A's and B's failed allocations, by whose (report/whose.h) */
	struct report_side side[2];
	int n;
	struct report_line line[REPORT_MAX_LINES];
};

/* A new line of c, labelled by fmt, through the gate of kind first: NULL when c is full; a line the gate refused
 * is finished already (!comparable, its word says why). */
struct report_line *report_cmp_line(struct report_cmp *c, enum report_line_kind kind, const char *test,
				    const char *unit, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Add a rate line "label" (per hour) to c, gated as line kind `like`, filled by report_rare_line (report/rare.h):
 * a events over exposure_a_ms against b over exposure_b_ms; the line, or NULL when c is full.  A line the gate
 * refused keeps its reason and still shows both counts and rates.  (The API for a line on any count.) */
struct report_line *report_rare_add(struct report_cmp *c, enum report_line_kind like, const char *label, uint64_t a,
				    int64_t exposure_a_ms, uint64_t b, int64_t exposure_b_ms);

/* Compare run b of database qb against run a of qa; 0, or -1 on a store error.  Both runs must exist (the
 * caller checks).  Both databases are at schema 7 or later (query_open refuses older ones), so every table
 * a line reads exists. */
int report_compare(struct query *qa, int64_t a, struct query *qb, int64_t b, struct report_cmp *out);

/* Free the rows kept in c's lines (report_cmp_opts.keep_series); c itself stays the caller's. NULL-safe. */
void report_compare_free(struct report_cmp *c);

/* report_compare made as opts says (NULL: the defaults). */
int report_compare_with(struct query *qa, int64_t a, struct query *qb, int64_t b, const struct report_cmp_opts *opts,
			struct report_cmp *out);

#endif
