/* SPDX-License-Identifier: GPL-2.0-only */
/* report/line: one line of a comparison; see line.h. */
#include "report/line.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char report_test_samples[] = "Hodges-Lehmann shift, 95% CI; Mann-Whitney U p";

void report_line_cut72(struct report_line *l, const char *text)
{
	snprintf(l->verdict, sizeof l->verdict, "%s", text);
	if (strlen(text) >= sizeof l->verdict)
		/* The 72-column form cuts the reason at a word; the whole line is in full. */
		for (char *sp = strrchr(l->verdict, ' '); sp && strlen(l->verdict) > STATS_VERDICT_COLS - 3;
		     sp = strrchr(l->verdict, ' ')) {
			*sp = 0;
			if (strlen(l->verdict) <= STATS_VERDICT_COLS - 3) {
				strcat(l->verdict, "...");
				break;
			}
		}
}

/* Set the line's word and its two verdict lines (the 72-column one and the whole one). */
void report_line_word(struct report_line *l, enum report_word w, const char *fmt, ...)
{
	va_list ap;

	l->w = w;
	va_start(ap, fmt);
	vsnprintf(l->word, sizeof l->word, fmt, ap);
	va_end(ap);
}

/* A line without a test: not comparable (the gate's reason) or too few data (counts and need). */
void report_line_plain(struct report_line *l)
{
	snprintf(l->full, sizeof l->full, "%s: %s", l->label, l->word);
	report_line_cut72(l, l->full);
}

void report_line_refuse(struct report_line *l)
{
	report_line_word(l, REPORT_W_NOT_COMPARABLE, REPORT_NOT_COMPARABLE ": %s", l->gate.why);
	report_line_plain(l);
}

/* Too few data with counts the caller knows (no stats_cmp to say them). */
void report_line_too_few(struct report_line *l, const char *counts)
{
	report_line_word(l, REPORT_W_TOO_FEW, REPORT_TOO_FEW " (%s)", counts);
	report_line_plain(l);
}

/* Finish a line from the stats module's result: the verdict, too few data, or (a failure) not comparable. */
void report_line_done(struct report_line *l, int rc, const char *what)
{
	if (rc == STATS_OK && stats_verdict(&l->c, l->verdict, sizeof l->verdict) >= 0) {
		stats_verdict_full(&l->c, l->full, sizeof l->full);
		l->ok = 1;
		l->significant = stats_significant(&l->c);
		report_line_word(l, l->significant ? REPORT_W_SIGNIFICANT : REPORT_W_NOT_SIGNIFICANT, "%s",
			  l->significant ? REPORT_SIGNIFICANT : REPORT_NOT_SIGNIFICANT);
		return;
	}
	l->ok = 0;
	if (rc == STATS_ETOOFEW && l->c.too_few) {
		if (l->c.is_ratio)
			report_line_word(l, REPORT_W_TOO_FEW, REPORT_TOO_FEW " (n=%llu+%llu events; needs %llu)",
				  (unsigned long long)l->c.n_a, (unsigned long long)l->c.n_b, (unsigned long long)l->c.need_a);
		else
			report_line_word(l, REPORT_W_TOO_FEW, REPORT_TOO_FEW " (n=%llu+%llu%s%s; needs %llu+%llu)",
				  (unsigned long long)l->c.n_a, (unsigned long long)l->c.n_b, l->c.n_unit ? " " : "",
				  l->c.n_unit ? l->c.n_unit : "", (unsigned long long)l->c.need_a,
				  (unsigned long long)l->c.need_b);
		if (stats_verdict_full(&l->c, l->full, sizeof l->full) < 0 ||
		    stats_verdict(&l->c, l->verdict, sizeof l->verdict) < 0)
			report_line_plain(l);
		return;
	}
	/* No verdict the numbers support (an overflow, a line too long to print): say so, never guess. */
	report_gate_refuse(&l->gate, "%s: %s", what, rc == STATS_OK ? "verdict does not fit" : stats_strerror(rc));
	l->comparable = 0;
	report_line_refuse(l);
}

/* A copy of n points into s (the rows of a line, for its chart); 0 or -1. */
int report_series_copy(struct report_series *s, const int64_t *t, const double *v, size_t n, const char *what)
{
	s->what = what;
	s->n = 0;
	if (!n)
		return 0;
	if (!(s->t = malloc(n * sizeof *s->t)) || !(s->v = malloc(n * sizeof *s->v)))
		return -1;
	memcpy(s->t, t, n * sizeof *t);
	memcpy(s->v, v, n * sizeof *v);
	s->n = n;
	return 0;
}

/* Each side's median as the line's figures (NaN for an empty side), whatever its word will be; 0 or -1. */
int report_line_medians(struct report_line *l, const double *a, size_t na, const double *b, size_t nb)
{
	double *scratch = malloc((na > nb ? na : nb) * sizeof *scratch + 1);

	if (!scratch)
		return -1;
	l->has_ab = 1;
	l->na = (double)na;
	l->nb = (double)nb;
	if (!na || stats_median(a, na, scratch, &l->fa) != STATS_OK)
		l->fa = NAN;
	if (!nb || stats_median(b, nb, scratch, &l->fb) != STATS_OK)
		l->fb = NAN;
	free(scratch);
	return 0;
}

/* Two samples into one line (HL + Mann-Whitney). */
int report_line_cmp_samples(struct report_line *l, const double *a, size_t na, const double *b, size_t nb,
			    const char *what, const char *n_unit)
{
	double *scratch;
	int rc;

	if (report_line_medians(l, a, na, b, nb) < 0)
		return -1;
	/* An empty side is too few data too: stats_cmp_samples says the counts and what would do. */
	if (!(scratch = malloc((na + nb + 1) * sizeof *scratch)))
		return -1;
	rc = stats_cmp_samples(l->label, a, na, b, nb, scratch, &l->c);
	l->c.n_unit = n_unit;
	free(scratch);
	report_line_done(l, rc, what);
	return 0;
}

int report_line_samples(struct report_line *l, const char *label, const char *unit, const double *a, size_t na,
			const double *b, size_t nb, const char *what, const char *n_unit)
{
	memset(l, 0, sizeof *l);
	snprintf(l->label, sizeof l->label, "%s", label);
	l->kind = REPORT_LINE_CAPACITY;
	l->test = report_test_samples;
	l->unit = unit;
	l->comparable = l->gate.comparable = 1;
	return report_line_cmp_samples(l, a, na, b, nb, what, n_unit);
}
