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
#include "report/gate.h"
#include "report/run.h"
#include "report/whose.h"
#include "store/query.h"

#define REPORT_MAX_LINES 24          /* lines of a comparison */
#define REPORT_MIN_BUCKET_MS 60000   /* the sample unit of per-bucket comparisons: a minute */
#define REPORT_MAX_BUCKETS 2000      /* per run in a per-bucket comparison */

/* The verdict words a comparison line ends in: exactly one of these four. */
#define REPORT_SIGNIFICANT "significant"
#define REPORT_NOT_SIGNIFICANT "no significant difference"
#define REPORT_TOO_FEW "too few data"            /* always followed by " (n=...; needs ...)" */
#define REPORT_NOT_COMPARABLE "not comparable"   /* always followed by ": <reason>" */
#define REPORT_WORD_MAX (REPORT_GATE_TEXT + 24)
#define REPORT_FULL_MAX 384                      /* the whole line, nothing dropped */

enum report_word { REPORT_W_SIGNIFICANT = 0, REPORT_W_NOT_SIGNIFICANT, REPORT_W_TOO_FEW, REPORT_W_NOT_COMPARABLE };

/*
 * The rows a line's test used, for a chart that draws exactly those (report_cmp_opts.keep_series): the
 * probes it compared (censored ones and other --gfp-modes left out), the points a headroom trend was
 * fitted through (every tick of a short run, else the minute means), with that fit.
 */
struct report_series {
	size_t n;
	int64_t *t;               /* epoch ms */
	double *v;
	const char *what;         /* "probes", "ticks", "minute means" */
	int has_fit;              /* y = fit.intercept + fit.slope * (t - t0_ms) over [t0_ms, last_ms] */
	int64_t t0_ms, last_ms;
	struct trend_fit fit;
};

/* One line of a comparison. */
struct report_line {
	char label[48];           /* printable ASCII, the verdict's start */
	enum report_line_kind kind;
	const char *test;         /* the test used, for people */
	const char *unit;         /* unit of a and b */
	int ok;                   /* a test ran: c is valid (significant or not) */
	int significant;          /* ok and the 95% CI excludes no difference */
	int comparable;           /* the gate let the line through (gate.why says why not) */
	enum report_word w;
	char word[REPORT_WORD_MAX];   /* the verdict: one of the four words, with its counts or reason */
	struct report_gate gate;  /* the reason it is not comparable, and the caveats */
	struct stats_cmp c;       /* c.label points at label: do not copy a report_line */
	char verdict[STATS_VERDICT_COLS + 1];   /* one line of <= 72 columns (parts dropped to fit) */
	char full[REPORT_FULL_MAX];             /* the whole line, every number kept (for readers that wrap) */
	double na, nb;            /* sample sizes, or event counts for rates */
	double xa, xb;            /* exposure in hours for rates, else 0 */
	int has_ab;               /* fa, fb hold each side's figure (shown whatever the word) */
	double fa, fb;            /* A's and B's figure in unit: median, rate or slope */
	int is_rare;              /* a count over an exposure (report/rare.h): rare holds the figures */
	struct poisson_cmp rare;  /* exposures in hours */
	char attrib[REPORT_GATE_TEXT];   /* a line with a verdict: what its difference is the effect of ("" none) */
	struct report_series s[2];       /* A's and B's rows (kept only with report_cmp_opts.keep_series) */
	int order;                /* headroom and atomic-risk lines: the order of interest; else -1 */
};

/* How a comparison is made (NULL: the defaults, all 0). */
struct report_cmp_opts {
	int all_failures;         /* the failure lines count every process's failures, not only the run's own */
	int keep_series;          /* keep each line's rows (report_line.s): free with report_compare_free */
};

/* What one run of a comparison is, for the page's state lines and environment table (printable ASCII). */
struct report_side {
	int64_t run_id, started_ms, first_sample_ms, last_sample_ms, nsamples, duration_ms;
	char state[16];           /* running, stopped, crash, error, unfinished */
	int unconfined;
	char label[96], kernel[96], hypervisor[48], hostname[64], cpu[128], fpu[128], fpu_kind[32], eager[32];
	int64_t xstate, memtotal; /* -1 unknown */
	char conf[REPORT_GATE_TEXT + 64];
	char deaths[128];
	char churn_identity[256], probe_identity[256];   /* report_deaths_identity; "" without churn */
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

/* What a stored run ran under, from its row (config text, churn_info, environment). Pure. */
void report_cond_of_run(const struct query_run *r, struct report_cond *out);

/*
 * A line outside a comparison, with the same test and verdict words: B's sample b[0..nb) against A's
 * a[0..na) (report/gfp.h: a run's atomic probes against its kernel probes).  0, or -1 out of memory.
 */
int report_line_samples(struct report_line *l, const char *label, const char *unit, const double *a, size_t na,
			const double *b, size_t nb, const char *what, const char *n_unit);

/* A new line of c, labelled by fmt, through the gate of kind first: NULL when c is full; a line the gate refused
 * is finished already (!comparable, its word says why). */
struct report_line *report_cmp_line(struct report_cmp *c, enum report_line_kind kind, const char *test,
				    const char *unit, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Compare run b of database qb against run a of qa; 0, or -1 on a store error.  Both runs must exist (the
 * caller checks).  Both databases are at schema 7 or later (query_open refuses older ones), so every table
 * a line reads exists. */
int report_compare(struct query *qa, int64_t a, struct query *qb, int64_t b, struct report_cmp *out);

/* Free the rows kept in c's lines (report_cmp_opts.keep_series); c itself stays the caller's. NULL-safe. */
void report_compare_free(struct report_cmp *c);

/* 1 if run exists in q, 0 if not, -1 on a store error. */
int report_run_exists(struct query *q, int64_t run);

/* report_compare made as opts says (NULL: the defaults). */
int report_compare_with(struct query *qa, int64_t a, struct query *qb, int64_t b, const struct report_cmp_opts *opts,
			struct report_cmp *out);

#endif
