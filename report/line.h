/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/line: one line of a comparison (report/compare.h makes them, report/rare.h the rate lines):
 * its verdict words, its figures, the rows its test used, and how it is cut to 72 columns.
 */
#ifndef FPUSOAK_REPORT_LINE_H
#define FPUSOAK_REPORT_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/poisson.h"
#include "analysis/stats.h"
#include "report/gate.h"

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

/* The test a sample line names (report_line.test): HL shift and Mann-Whitney. */
extern const char report_test_samples[];

/* l->verdict: text whole when it fits 72 columns, else cut at a word with "..." (l->full keeps every word). */
void report_line_cut72(struct report_line *l, const char *text);

/* Set l's word (w, and the text of fmt). */
void report_line_word(struct report_line *l, enum report_word w, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A line without a test: l->full is "label: word", l->verdict the same cut to 72 columns. */
void report_line_plain(struct report_line *l);

/* Not comparable, for the gate's first reason (l->gate.why). */
void report_line_refuse(struct report_line *l);

/* Too few data, with counts the caller knows ("n=3+3 minutes; needs 6+6"). */
void report_line_too_few(struct report_line *l, const char *counts);

/* Finish l from a stats_cmp_* result rc in l->c: the verdict, too few data, or (a failure) not comparable, what
 * naming the statistic. */
void report_line_done(struct report_line *l, int rc, const char *what);

/* Each side's median as l's figures (NaN for an empty side), whatever its word; 0 or -1 (out of memory). */
int report_line_medians(struct report_line *l, const double *a, size_t na, const double *b, size_t nb);

/* Two samples into l: medians, HL shift and Mann-Whitney (stats_cmp_samples), n_unit said with the counts;
 * 0 or -1 (out of memory). */
int report_line_cmp_samples(struct report_line *l, const double *a, size_t na, const double *b, size_t nb,
			    const char *what, const char *n_unit);

/* A copy of n points into s (the rows of a line, for its chart), what naming them; 0 or -1. */
int report_series_copy(struct report_series *s, const int64_t *t, const double *v, size_t n, const char *what);

/*
 * A line outside a comparison, with the same test and verdict words: B's sample b[0..nb) against A's
 * a[0..na) (report/gfp.h: a run's atomic probes against its kernel probes).  0, or -1 out of memory.
 */
int report_line_samples(struct report_line *l, const char *label, const char *unit, const double *a, size_t na,
			const double *b, size_t nb, const char *what, const char *n_unit);

#endif
