/* SPDX-License-Identifier: GPL-2.0-only */
/* gfpab: kernel-vs-atomic capacity within a run, and the model's scorecard; see gfpab.h. */
#include "analysis/gfpab.h"

#include <math.h>
#include <string.h>

int gfpab_compare(const struct gfpab_probe *p, size_t n, int mode_a, int mode_b, const char *label,
		  double *scratch, struct gfpab *out)
{
	double *a, *b, *work, *px, *py, last_a = 0, sum = 0;
	int have_a = 0;

	if (!out)
		return -1;
	memset(out, 0, sizeof *out);
	out->mode_a = mode_a;
	out->mode_b = mode_b;
	if ((n && (!p || !scratch)) || n > GFPAB_MAX_PROBES || !label)
		return -1;
	a = scratch;
	b = a + n;
	work = b + n;
	px = work + n;
	py = px + n;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(p[i].workers) || (i && p[i].ts_ms < p[i - 1].ts_ms))
			return -1;
		if (p[i].mode == mode_a) {
			a[out->n_a++] = p[i].workers;
			last_a = p[i].workers;
			have_a = 1;
		} else if (p[i].mode == mode_b) {
			b[out->n_b++] = p[i].workers;
			/* Each A probe pairs with the first B probe after it: the turn the alternation took. */
			if (have_a) {
				px[out->npairs] = (double)p[i].ts_ms;
				py[out->npairs] = p[i].workers - last_a;
				sum += py[out->npairs++];
				have_a = 0;
			}
		}
	}
	out->have_cmp = out->n_a && out->n_b &&
			stats_cmp_samples(label, a, out->n_a, b, out->n_b, work, &out->cmp) == STATS_OK;
	out->gap_mean = out->npairs ? sum / (double)out->npairs : 0;
	out->have_trend = out->npairs >= 3 && trend_fit(px, py, out->npairs, &out->gap) == TREND_OK;
	return 0;
}

uint64_t gfpab_checks(const struct gfpab_confusion *c)
{
	return c->n[0][0] + c->n[0][1] + c->n[1][0] + c->n[1][1];
}

double gfpab_accuracy(const struct gfpab_confusion *c)
{
	uint64_t n = gfpab_checks(c);

	return n ? (double)(c->n[0][0] + c->n[1][1]) / (double)n : -1;
}
