/* SPDX-License-Identifier: GPL-2.0-only */
/* api_compare: /api/v1/compare?a=&b=, report_compare() as JSON (the figures of /compare). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/compare.h"
#include "web/api.h"
#include "web/api_util.h"
#include "web/escape.h"

/* The gate's caveats as an array (a count of those past REPORT_GATE_MAX as one more item). */
static void caveats_json(cJSON *o, const struct report_gate *g)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "caveats");
	char more[64];

	for (int i = 0; i < g->ncaveats; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(g->caveat[i]));
	if (g->dropped) {
		snprintf(more, sizeof more, "%d more caveats", g->dropped);
		cJSON_AddItemToArray(arr, cJSON_CreateString(more));
	}
}

static cJSON *line_json(const struct report_line *l)
{
	cJSON *o = cJSON_CreateObject(), *ci;

	cJSON_AddStringToObject(o, "label", l->label);
	cJSON_AddStringToObject(o, "test", l->test);
	cJSON_AddStringToObject(o, "unit", l->unit);
	cJSON_AddBoolToObject(o, "comparable", l->comparable);
	/* Exactly one of: significant, no significant difference, too few data (...), not comparable: ... */
	cJSON_AddStringToObject(o, "word", l->word);
	caveats_json(o, &l->gate);
	cJSON_AddBoolToObject(o, "ok", l->ok);
	api_json_num(o, "n_a", l->na);
	api_json_num(o, "n_b", l->nb);
	if (l->xa > 0 || l->xb > 0) {
		api_json_num(o, "exposure_hours_a", l->xa);
		api_json_num(o, "exposure_hours_b", l->xb);
	}
	/* Each run's figure on every line, whatever its word (null where a side has none). */
	if (l->has_ab) {
		api_json_num(o, "figure_a", l->fa);
		api_json_num(o, "figure_b", l->fb);
	}
	if (l->is_rare && l->has_ab) {
		cJSON *ra = cJSON_AddArrayToObject(o, "rate_ci95_a"), *rb = cJSON_AddArrayToObject(o, "rate_ci95_b");
		cJSON_AddItemToArray(ra, cJSON_CreateNumber(l->rare.ra_lo));
		cJSON_AddItemToArray(ra, cJSON_CreateNumber(l->rare.ra_hi));
		cJSON_AddItemToArray(rb, cJSON_CreateNumber(l->rare.rb_lo));
		cJSON_AddItemToArray(rb, cJSON_CreateNumber(l->rare.rb_hi));
	}
	if (l->attrib[0])
		cJSON_AddStringToObject(o, "attribution", l->attrib);
	if (!l->ok) {
		cJSON_AddBoolToObject(o, "significant", 0);
		cJSON_AddStringToObject(o, "verdict", l->verdict);
		cJSON_AddStringToObject(o, "line", l->full);
		return o;
	}
	api_json_num(o, "a", l->c.a);
	api_json_num(o, "b", l->c.b);
	cJSON_AddStringToObject(o, "estimate_name", l->c.est_name ? l->c.est_name : "");
	api_json_num(o, "estimate", l->c.est);
	ci = cJSON_AddArrayToObject(o, "ci95");
	/* An unbounded end (too few samples) is null. */
	cJSON_AddItemToArray(ci, isfinite(l->c.lo) ? cJSON_CreateNumber(l->c.lo) : cJSON_CreateNull());
	cJSON_AddItemToArray(ci, isfinite(l->c.hi) ? cJSON_CreateNumber(l->c.hi) : cJSON_CreateNull());
	cJSON_AddBoolToObject(o, "ratio", l->c.is_ratio);
	if (l->c.p >= 0)
		cJSON_AddNumberToObject(o, "p", l->c.p);
	else
		cJSON_AddNullToObject(o, "p");
	cJSON_AddBoolToObject(o, "significant", l->significant);
	/* verdict: one line of <= 72 columns (parts dropped to fit); line: the whole line, every number */
	cJSON_AddStringToObject(o, "verdict", l->verdict);
	cJSON_AddStringToObject(o, "line", l->full);
	return o;
}

/* What differs between the runs (report_gate_factors), the experiment first. */
static void differs_json(cJSON *root, const struct report_cmp *c)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "differs");

	for (int i = 0; i < c->diff.n; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "what", c->diff.f[i].name);
		cJSON_AddStringToObject(x, "a", c->diff.f[i].a);
		cJSON_AddStringToObject(x, "b", c->diff.f[i].b);
		cJSON_AddItemToArray(arr, x);
	}
	if (c->diff.dropped)
		cJSON_AddNumberToObject(root, "differs_more", c->diff.dropped);
	cJSON_AddBoolToObject(root, "vm_knobs_recorded", !c->diff.vm_unknown);
}

/* Whose failed allocations each source saw (report/whose.h), and which the failure lines count. */
static void whose_json(cJSON *root, const struct report_cmp *c)
{
	static const char *const src[2] = { "kmsg", "trace" };
	cJSON *o = cJSON_AddObjectToObject(root, "failures_by_whose");

	cJSON_AddStringToObject(o, "counted", c->opts.all_failures ? "all" : "own");
	for (int s = 0; s < 2; s++) {
		const struct report_whose_counts *w = s ? c->trace : c->kmsg;
		cJSON *x = cJSON_AddObjectToObject(o, src[s]);
		for (int k = 0; k < 2; k++) {
			cJSON *y = cJSON_AddObjectToObject(x, k ? "b" : "a");
			cJSON_AddBoolToObject(y, "recorded", w[k].facts);
			cJSON_AddNumberToObject(y, "own", (double)w[k].n[REPORT_WHOSE_OWN]);
			cJSON_AddNumberToObject(y, "other", (double)w[k].n[REPORT_WHOSE_OTHER]);
			cJSON_AddNumberToObject(y, "unknown", (double)w[k].n[REPORT_WHOSE_UNKNOWN]);
		}
	}
}

int api_compare(struct web_req *r)
{
	const struct url_params *p = &r->url->p;
	struct report_cmp *c;
	cJSON *root, *arr;
	char *s, ref[RUNREF_LEN];
	int ret = -1, da, db, ea, eb;

	if (!p->has_a || !p->has_b)
		return web_error(r, 400, "give two runs: ?a=ID&b=ID");
	if (web_resolve(r, &p->a, &da) < 0 || web_resolve(r, &p->b, &db) < 0)
		return -1;
	if ((ea = report_run_exists(r->dbs.q[da], p->a.id)) < 0 || (eb = report_run_exists(r->dbs.q[db], p->b.id)) < 0)
		return -1;
	if (!ea || !eb)
		return web_error(r, 404, !ea ? "no such run (a)" : "no such run (b)");
	if (!(c = calloc(1, sizeof *c)))
		return -1;
	if (report_compare_with(r->dbs.q[da], p->a.id, r->dbs.q[db], p->b.id,
				&(struct report_cmp_opts){ .all_failures = p->failures_all }, c) < 0 ||
	    !(root = cJSON_CreateObject()))
		goto out;
	cJSON_AddNumberToObject(root, "a", (double)p->a.id);
	cJSON_AddNumberToObject(root, "b", (double)p->b.id);
	if (r->dbs.n > 1) {
		/* Several databases: which file each run is in, and its reference for the pages and this API. */
		cJSON_AddStringToObject(root, "a_db", r->dbs.name[da]);
		cJSON_AddStringToObject(root, "b_db", r->dbs.name[db]);
		cJSON_AddStringToObject(root, "a_ref", runref_format(r->dbs.name[da], r->dbs.n, p->a.id, ref, sizeof ref));
		cJSON_AddStringToObject(root, "b_ref", runref_format(r->dbs.name[db], r->dbs.n, p->b.id, ref, sizeof ref));
	}
	cJSON_AddStringToObject(root, "direction", "differences are B - A, ratios B / A");
	/* The pair: comparable unless the machines differ; caveats say what differs as meant (kernel, ...). */
	cJSON_AddBoolToObject(root, "comparable", c->pair.comparable);
	if (!c->pair.comparable)
		cJSON_AddStringToObject(root, "not_comparable", c->pair.why);
	caveats_json(root, &c->pair);
	differs_json(root, c);
	whose_json(root, c);
	arr = cJSON_AddArrayToObject(root, "orders_of_interest");
	for (int i = 0; i < c->orders.n; i++) {
		cJSON *x = cJSON_CreateObject();
		struct strbuf tmp;
		sb_init(&tmp, 256);
		cJSON_AddNumberToObject(x, "order", c->orders.order[i]);
		cJSON_AddStringToObject(x, "why", c->orders.why[i]);
		escape_utf8(&tmp, c->zone[i], strlen(c->zone[i]));
		cJSON_AddStringToObject(x, "zone", tmp.buf ? tmp.buf : "");
		sb_free(&tmp);
		cJSON_AddItemToArray(arr, x);
	}
	arr = cJSON_AddArrayToObject(root, "comparisons");
	for (int i = 0; i < c->n; i++)
		cJSON_AddItemToArray(arr, line_json(&c->line[i]));
	s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (s) {
		r->status = 200;
		r->ctype = api_json_type;
		ret = sb_puts(&r->body, s);
		free(s);
	}
out:
	free(c);
	return ret;
}
