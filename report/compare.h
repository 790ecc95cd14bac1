/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/compare: run B against run A, line by line, for the compare page,
 * /api/v1/compare and `fpusoakd summary --compare`.
 *
 * Each line says which test it uses (analysis/stats.h):
 *   capacity, FPU cost        per-probe results: Hodges-Lehmann shift CI, Mann-Whitney p
 *   headroom slope (per order) Welch difference of the two OLS slopes, per hour
 *   allocation / spawn failures Poisson rate ratio per hour, exact conditional CI
 *   spawns/s, atomic risk %   one value per bucket of >= 1 minute: HL shift CI, Mann-Whitney p
 * A comparison that cannot be made (no probes, no events in either run)
 * carries a note saying why instead of a verdict.
 */
#ifndef FPUSOAK_REPORT_COMPARE_H
#define FPUSOAK_REPORT_COMPARE_H

#include <stdint.h>

#include "analysis/stats.h"
#include "collector/buddyinfo.h"
#include "report/run.h"
#include "store/query.h"

#define REPORT_MAX_LINES 16          /* lines of a comparison */
#define REPORT_MIN_BUCKET_MS 60000   /* the sample unit of per-bucket comparisons: a minute */
#define REPORT_MAX_BUCKETS 2000      /* per run in a per-bucket comparison */

/* The verdict words a comparison line ends in. */
#define REPORT_SIGNIFICANT "significant"
#define REPORT_NOT_SIGNIFICANT "no significant difference"
#define REPORT_NO_VERDICT "no verdict"

/* One line of a comparison. */
struct report_line {
	char label[48];           /* printable ASCII, the verdict's start */
	const char *test;         /* the test used, for people */
	const char *unit;         /* unit of a and b */
	int ok;                   /* c and verdict are valid */
	int significant;          /* ok and the 95% CI excludes no difference */
	const char *word;         /* REPORT_SIGNIFICANT, REPORT_NOT_SIGNIFICANT or REPORT_NO_VERDICT */
	struct stats_cmp c;       /* c.label points at label: do not copy a report_line */
	char verdict[STATS_VERDICT_COLS + 1];   /* the whole line, for a mailing-list reply */
	char note[128];           /* why there is no verdict, when !ok */
	double na, nb;            /* sample sizes, or event counts for rates */
	double xa, xb;            /* exposure in hours for rates, else 0 */
};

struct report_cmp {
	struct query *qa, *qb;    /* the databases of a and b (the same handle for runs of one database) */
	int64_t a, b;
	struct report_orders orders;   /* union of both runs' orders of interest */
	char zone[REPORT_MAX_ORDERS][ZONE_NAME_MAX];   /* the zone compared per order ("" if none in both) */
	int node[REPORT_MAX_ORDERS];
	int n;
	struct report_line line[REPORT_MAX_LINES];
};

/* Compare run b of database qb against run a of qa; 0, or -1 on a store error.  Both runs must exist (the caller checks). */
int report_compare(struct query *qa, int64_t a, struct query *qb, int64_t b, struct report_cmp *out);

#endif
