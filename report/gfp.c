/* SPDX-License-Identifier: GPL-2.0-only */
/* report/gfp: the 2014 test of one run (--gfp-mode); see gfp.h. */
#include "report/gfp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/gate.h"

struct probes {
	struct report_gfp *g;
	size_t cap;
	int oom;
};

static int probe_cb(void *arg, const struct query_probe *p)
{
	struct probes *s = arg;
	struct report_gfp *g = s->g;
	int mode, cens;

	if (!p->kind || strcmp(p->kind, "capacity") != 0 || !isfinite(p->result))
		return 0;
	if (p->stop_reason && strncmp(p->stop_reason, "gfp_failed:", 11) == 0)
		g->probes_gfp_failed++;
	if (g->nprobes == GFPAB_MAX_PROBES)
		return 0;                 /* the comparison takes the first GFPAB_MAX_PROBES; the rest are counted */
	if (g->nprobes == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct gfpab_probe *n = realloc(g->probe, cap * sizeof *n);
		unsigned char *c;
		if (n)
			g->probe = n;
		if (!n || !(c = realloc(g->censored, cap))) {
			s->oom = 1;
			return -1;
		}
		g->censored = c;
		s->cap = cap;
	}
	mode = report_gfp_mode_of(p->gfp_mode);
	cens = report_probe_censored(p->stop_reason);
	g->censored[g->nprobes] = (unsigned char)cens;
	g->probe[g->nprobes++] = (struct gfpab_probe){ p->ts_ms, p->result, mode };
	g->probes_by_mode[mode]++;
	g->censored_by_mode[mode] += (size_t)cens;
	return 0;
}

static int run_cb(void *arg, const struct query_run *r)
{
	struct report_gfp *g = arg;

	snprintf(g->mode, sizeof g->mode, "%s", r->gfp_mode ? r->gfp_mode : "");
	return 0;
}

static int check_cb(void *arg, const struct query_model_checks *c)
{
	struct report_gfp *g = arg;
	struct report_gfp_cell *x;
	uint64_t n, ok;

	if (g->ncells == REPORT_GFP_MAX_CELLS)
		return 0;
	x = &g->cell[g->ncells++];
	memset(x, 0, sizeof *x);
	x->order = c->order;
	x->mode = c->mode >= 0 && c->mode < 4 ? c->mode : REPORT_GFP_NONE;
	for (int p = 0; p < 2; p++)
		for (int a = 0; a < 2; a++)
			x->c.n[p][a] = c->n[p][a] > 0 ? (uint64_t)c->n[p][a] : 0;
	x->accuracy = gfpab_accuracy(&x->c);
	x->min_margin_wrong = c->min_margin_wrong;
	x->max_margin_wrong = c->max_margin_wrong;
	n = gfpab_checks(&x->c);
	ok = x->c.n[0][0] + x->c.n[1][1];
	g->checks += n;
	g->agreed += ok;
	g->mode_checks[x->mode] += n;
	g->mode_agreed[x->mode] += ok;
	return 0;
}

/* The kernel-vs-atomic line (as a comparison words it) and the gap's trend, over the probes not censored. */
static int ab_line(struct report_gfp *g)
{
	size_t n = 0, nk = 0, na = 0;
	struct gfpab_probe *kept = malloc((g->nprobes + 1) * sizeof *kept);
	double *scratch = malloc(GFPAB_SCRATCH(g->nprobes + 1) * sizeof *scratch), *vk, *va;
	int rc = -1;

	if (!kept || !scratch)
		goto out;
	for (size_t i = 0; i < g->nprobes; i++)
		if (!g->censored[i])
			kept[n++] = g->probe[i];
	if (gfpab_compare(kept, n, REPORT_GFP_KERNEL, REPORT_GFP_ATOMIC, "kernel vs atomic", scratch, &g->ab) < 0)
		goto out;
	g->have_ab = g->ab.n_a > 0 && g->ab.n_b > 0;
	/* Its scratch is free again: the two samples for the line go there, kernel's, then atomic's. */
	vk = scratch;
	va = scratch + n;
	for (size_t i = 0; i < n; i++) {
		if (kept[i].mode == REPORT_GFP_KERNEL)
			vk[nk++] = kept[i].workers;
		else if (kept[i].mode == REPORT_GFP_ATOMIC)
			va[na++] = kept[i].workers;
	}
	if (report_line_samples(&g->line, "kernel vs atomic", "workers", vk, nk, va, na, "kernel vs atomic probes",
				"probes") < 0)
		goto out;
	if (g->ab.have_trend) {
		g->gap_h = trend_per_hour(g->ab.gap.slope);
		g->gap_lo_h = trend_per_hour(g->ab.gap.ci_lo);
		g->gap_hi_h = trend_per_hour(g->ab.gap.ci_hi);
		g->gap_significant = g->ab.gap.ci_hi < 0 || g->ab.gap.ci_lo > 0;
	}
	rc = 0;
out:
	free(kept);
	free(scratch);
	return rc;
}

int report_gfp(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_gfp *out)
{
	struct probes s = { out, 0, 0 };
	struct query_churn tot;
	int rc;

	memset(out, 0, sizeof *out);
	out->accuracy = -1;
	if (query_run(q, run_id, run_cb, out) < 0 ||
	    query_probes_bare(q, run_id, "capacity", from_ms, to_ms, QUERY_MAX_ROWS, probe_cb, &s) < 0 ||
	    query_model_checks(q, run_id, from_ms, to_ms, check_cb, out) < 0)
		goto fail;
	rc = query_churn_totals(q, run_id, from_ms, to_ms, &tot);
	if (rc < 0)
		goto fail;
	out->churn_gfp_failed = rc > 0 ? tot.c[QC_GFP_FAILED] : 0;
	if (out->checks)
		out->accuracy = (double)out->agreed / (double)out->checks;
	if (ab_line(out) < 0)
		goto fail;
	return 0;
fail:
	report_gfp_free(out);
	return -1;
}

void report_gfp_free(struct report_gfp *g)
{
	if (!g)
		return;
	free(g->probe);
	free(g->censored);
	g->probe = NULL;
	g->censored = NULL;
	g->nprobes = 0;
}
