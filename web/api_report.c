/*
 * api_report: the report's series and figures under /api/v1/ — frag,
 * churn, probes (JSON and CSV), compare and the headroom trends of a run
 * (JSON).  Figures come from web/report.h, as on the pages.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "web/escape.h"
#include "web/fmt.h"
#include "web/handler.h"
#include "web/report.h"
#include "web/server.h"

static const char json_type[] = "application/json";
static const char csv_type[] = "text/csv; charset=utf-8";

/* A table the request needs but an old database lacks: 404 with the reason; 1 when present, 0 after the 404, -1. */
static int need_table(struct web_req *r, const char *table)
{
	char msg[96];
	int has = query_has_table(r->q, table);

	if (has <= 0) {
		if (has == 0) {
			snprintf(msg, sizeof msg, "this database has no %s table", table);
			web_error(r, 404, msg);
		}
		return has < 0 ? -1 : 0;
	}
	return 1;
}

static void csv_head(struct web_req *r, const char *what, const char *cols)
{
	r->status = 200;
	r->ctype = csv_type;
	snprintf(r->filename, sizeof r->filename, "run-%" PRId64 "-%s.csv", r->id, what);
	sb_puts(&r->body, cols);
}

/* ---------------------------------------------------------------- frag */

struct fz {
	int node;
	char zone[ZONE_NAME_MAX];
	int norders;
	struct strbuf s[3];       /* unusable, fragmentation, headroom */
};

struct frag_out {
	struct web_req *r;
	int csv;
	struct fz *z[BUDDY_MAX_ZONES];
	int nz;
};

static int frag_cb(void *arg, const struct query_frag_point *p)
{
	struct frag_out *o = arg;
	struct strbuf *b = &o->r->body;
	char t[FMT_TIME_LEN];
	struct fz *z = NULL;

	if (o->csv) {
		for (int k = 0; k < p->norders; k++) {
			sb_printf(b, "%" PRId64 ",%s,%d,", p->ts_ms, fmt_time_iso(p->ts_ms, t, sizeof t), p->node);
			escape_csv(b, p->zone, strlen(p->zone));
			sb_printf(b, ",%d,", k);
			api_put_num(b, p->unusable[k], 1);
			sb_puts(b, ",");
			api_put_num(b, p->frag[k], 1);
			sb_puts(b, ",");
			api_put_num(b, p->headroom[k], 1);
			sb_puts(b, "\r\n");
		}
		return b->err ? -1 : 0;
	}
	for (int i = 0; i < o->nz && !z; i++)
		if (o->z[i]->node == p->node && strcmp(o->z[i]->zone, p->zone) == 0)
			z = o->z[i];
	if (!z) {
		if (o->nz == BUDDY_MAX_ZONES || strlen(p->zone) >= ZONE_NAME_MAX || !(z = calloc(1, sizeof *z)))
			return -1;
		o->z[o->nz++] = z;
		z->node = p->node;
		memcpy(z->zone, p->zone, strlen(p->zone) + 1);
		for (int i = 0; i < 3; i++)
			sb_init(&z->s[i], WEB_BODY_MAX);
	}
	if (p->norders > z->norders)
		z->norders = p->norders;
	for (int i = 0; i < 3; i++) {
		const double *v = i == 0 ? p->unusable : i == 1 ? p->frag : p->headroom;
		sb_printf(&z->s[i], "%s[%" PRId64, z->s[i].len ? "," : "", p->ts_ms);
		for (int k = 0; k < p->norders; k++) {
			sb_puts(&z->s[i], ",");
			api_put_num(&z->s[i], v[k], 0);
		}
		if (sb_puts(&z->s[i], "]") < 0)
			return -1;
	}
	return 0;
}

int api_frag(struct web_req *r)
{
	static const char *const keys[3] = { "unusable_index", "fragmentation_index", "headroom_blocks" };
	struct query_range rg;
	struct frag_out o = { .r = r, .csv = r->fmt == URL_FMT_CSV };
	int ret = 0;

	if (api_series_range(r, &rg) < 0)
		return -1;
	if (o.csv) {
		csv_head(r, "frag", "ts_ms,ts,node,zone,page_order,unusable_index,fragmentation_index,headroom_blocks\r\n");
		return query_frag_series(r->q, r->id, &rg, frag_cb, &o) < 0 ? -1 : 0;
	}
	r->status = 200;
	r->ctype = json_type;
	if (query_frag_series(r->q, r->id, &rg, frag_cb, &o) < 0) {
		for (int i = 0; i < o.nz; i++)
			for (int j = 0; j < 3; j++)
				r->body.err |= o.z[i]->s[j].err;
		ret = -1;
		goto out;
	}
	api_series_head(r, &rg, NULL, NULL);
	sb_puts(&r->body, "\"columns\":\"[ts_ms, value at order 0, 1, ... norders-1]; indices are the worst in the bucket "
		"(fragmentation_index null from rollups), headroom the mean\",\"zones\":[");
	for (int i = 0; i < o.nz; i++) {
		sb_printf(&r->body, "%s{\"node\":%d,\"zone\":", i ? "," : "", o.z[i]->node);
		escape_json(&r->body, o.z[i]->zone, strlen(o.z[i]->zone));
		sb_printf(&r->body, ",\"norders\":%d", o.z[i]->norders);
		for (int j = 0; j < 3; j++) {
			sb_printf(&r->body, ",\"%s\":[", keys[j]);
			if (o.z[i]->s[j].err)
				r->body.err = 1;
			else if (o.z[i]->s[j].len)
				sb_append(&r->body, o.z[i]->s[j].buf, o.z[i]->s[j].len);
			sb_puts(&r->body, "]");
		}
		sb_puts(&r->body, "}");
	}
	sb_puts(&r->body, "]}");
out:
	for (int i = 0; i < o.nz; i++) {
		for (int j = 0; j < 3; j++)
			sb_free(&o.z[i]->s[j]);
		free(o.z[i]);
	}
	return ret;
}

/* ---------------------------------------------------------------- churn */

struct churn_out {
	struct strbuf *b;
	int csv, n;
};

static int churn_cb(void *arg, const struct query_churn *c)
{
	struct churn_out *o = arg;
	char t[FMT_TIME_LEN];

	if (o->csv)
		sb_printf(o->b, "%" PRId64 ",%s,%" PRId64 ",", c->ts_ms, fmt_time_iso(c->ts_ms, t, sizeof t), c->span_ms);
	else
		sb_printf(o->b, "%s[%" PRId64 ",%" PRId64 ",", o->n ? "," : "", c->ts_ms, c->span_ms);
	api_put_num(o->b, c->population, o->csv);
	sb_printf(o->b, ",%" PRId64, c->population_max);
	for (int i = 0; i < QC_N; i++)
		sb_printf(o->b, ",%" PRId64, c->c[i]);
	sb_puts(o->b, o->csv ? "\r\n" : "]");
	o->n++;
	return o->b->err ? -1 : 0;
}

int api_churn(struct web_req *r)
{
	struct query_range rg;
	struct churn_out o = { &r->body, r->fmt == URL_FMT_CSV, 0 };
	struct strbuf pts;
	char cols[512];
	size_t n = 0;

	if (api_series_range(r, &rg) < 0 || need_table(r, "churn_info") <= 0)
		return -1;
	n += (size_t)snprintf(cols + n, sizeof cols - n, "ts_ms,%sspan_ms,population_mean,population_max",
			      o.csv ? "ts," : "");
	for (int i = 0; i < QC_N; i++)
		n += (size_t)snprintf(cols + n, sizeof cols - n, ",%s", query_churn_column(i));
	if (o.csv) {
		csv_head(r, "churn", cols);
		sb_puts(&r->body, "\r\n");
		return query_churn_series(r->q, r->id, &rg, churn_cb, &o) < 0 ? -1 : 0;
	}
	r->status = 200;
	r->ctype = json_type;
	sb_init(&pts, WEB_BODY_MAX);
	o.b = &pts;
	if (query_churn_series(r->q, r->id, &rg, churn_cb, &o) < 0)
		return api_drop_rows(r, &pts);   /* over the cap: server.c answers 400, not 500 */
	api_series_head(r, &rg, NULL, NULL);
	sb_puts(&r->body, "\"columns\":");
	escape_json(&r->body, cols, strlen(cols));
	sb_puts(&r->body, ",\"about\":\"per bucket: counts summed over the ticks in it, span_ms the time they cover, "
		"population averaged\",\"points\":[");
	return api_close_rows(r, &pts);
}

/* ---------------------------------------------------------------- probes */

static void json_str(struct strbuf *b, const char *s)
{
	if (s)
		escape_json(b, s, strlen(s));
	else
		sb_puts(b, "null");
}

static void csv_str(struct strbuf *b, const char *s)
{
	if (s)
		escape_csv(b, s, strlen(s));
}

static int probe_cb(void *arg, const struct query_probe *p)
{
	struct churn_out *o = arg;
	char t[FMT_TIME_LEN];

	fmt_time_iso(p->ts_ms, t, sizeof t);
	if (o->csv) {
		sb_printf(o->b, "%" PRId64 ",%s,", p->ts_ms, t);
		csv_str(o->b, p->kind);
		sb_puts(o->b, ",");
		api_put_num(o->b, p->result, 1);
		sb_puts(o->b, ",");
		csv_str(o->b, p->stop_reason);
		sb_puts(o->b, ",");
		if (p->duration_ms >= 0)
			sb_printf(o->b, "%" PRId64, p->duration_ms);
		sb_puts(o->b, ",");
		csv_str(o->b, p->detail);
		sb_puts(o->b, "\r\n");
	} else {
		sb_printf(o->b, "%s{\"ts_ms\":%" PRId64 ",\"ts\":\"%s\",\"kind\":", o->n ? "," : "", p->ts_ms, t);
		json_str(o->b, p->kind);
		sb_puts(o->b, ",\"result\":");
		api_put_num(o->b, p->result, 0);
		sb_puts(o->b, ",\"stop_reason\":");
		json_str(o->b, p->stop_reason);
		sb_puts(o->b, ",\"duration_ms\":");
		p->duration_ms >= 0 ? sb_printf(o->b, "%" PRId64, p->duration_ms) : sb_puts(o->b, "null");
		sb_puts(o->b, ",\"detail\":");
		json_str(o->b, p->detail);
		sb_puts(o->b, "}");
	}
	o->n++;
	return o->b->err ? -1 : 0;
}

int api_probes(struct web_req *r)
{
	const struct url_params *p = &r->url->p;
	struct query_range rg;
	struct churn_out o = { &r->body, r->fmt == URL_FMT_CSV, 0 };
	struct strbuf rows;
	const char *kind = p->has_name ? p->name : NULL;
	int limit = p->has_max_points ? (int)p->max_points : API_DEFAULT_POINTS;

	if (api_series_range(r, &rg) < 0 || need_table(r, "probes") <= 0)
		return -1;
	if (kind && strcmp(kind, "capacity") != 0 && strcmp(kind, "switch") != 0)
		return web_error(r, 400, "name must be capacity or switch (the probe kind)");
	if (o.csv) {
		csv_head(r, "probes", "ts_ms,ts,kind,result,stop_reason,duration_ms,detail\r\n");
		return query_probes(r->q, r->id, kind, p->has_from ? p->from_ms : -1, p->has_to ? p->to_ms : -1, limit,
				    probe_cb, &o) < 0 ? -1 : 0;
	}
	r->status = 200;
	r->ctype = json_type;
	sb_init(&rows, WEB_BODY_MAX);
	o.b = &rows;
	if (query_probes(r->q, r->id, kind, p->has_from ? p->from_ms : -1, p->has_to ? p->to_ms : -1, limit, probe_cb,
			 &o) < 0)
		return api_drop_rows(r, &rows);
	sb_printf(&r->body, "{\"run_id\":%" PRId64 ",\"max_points\":%d,\"about\":\"oldest first; capacity: workers "
		  "held, switch: system us per yield\",\"probes\":[", r->id, limit);
	return api_close_rows(r, &rows);
}

/* ---------------------------------------------------------------- figures as JSON */

/* A finite number, or null. */
static void jnum(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void jtime(cJSON *o, const char *key, int64_t ms)
{
	char t[FMT_TIME_LEN];

	cJSON_AddStringToObject(o, key, fmt_time_iso(ms, t, sizeof t));
}

static cJSON *trend_json(const struct report_trend *t, const char *why)
{
	cJSON *o = cJSON_CreateObject(), *ci, *ex;
	struct strbuf tmp;

	if (!o)
		return NULL;
	sb_init(&tmp, 256);
	cJSON_AddNumberToObject(o, "order", t->order);
	cJSON_AddStringToObject(o, "why", why);
	cJSON_AddNumberToObject(o, "node", t->node);
	escape_utf8(&tmp, t->zone, strlen(t->zone));
	cJSON_AddStringToObject(o, "zone", tmp.buf ? tmp.buf : "");
	sb_free(&tmp);
	cJSON_AddNumberToObject(o, "minutes", (double)t->n);
	jnum(o, "last_blocks", t->n ? t->last : NAN);
	if (!t->ok) {
		cJSON_AddNullToObject(o, "slope_per_hour");
		cJSON_AddNullToObject(o, "ci95_per_hour");
		cJSON_AddNullToObject(o, "exhaustion");
		cJSON_AddStringToObject(o, "note", trend_strerror(t->err));
		return o;
	}
	jnum(o, "slope_per_hour", t->slope_h);
	ci = cJSON_AddArrayToObject(o, "ci95_per_hour");
	cJSON_AddItemToArray(ci, cJSON_CreateNumber(t->lo_h));
	cJSON_AddItemToArray(ci, cJSON_CreateNumber(t->hi_h));
	jnum(o, "r2", t->fit.r2);
	if (t->exhaustion) {
		ex = cJSON_AddObjectToObject(o, "exhaustion");
		cJSON_AddNumberToObject(ex, "ts_ms", (double)t->zero_ms);
		jtime(ex, "ts", t->zero_ms);
		cJSON_AddNumberToObject(ex, "early_ms", (double)t->zero_early_ms);
		cJSON_AddNumberToObject(ex, "late_ms", (double)t->zero_late_ms);
	} else {
		cJSON_AddNullToObject(o, "exhaustion");
	}
	return o;
}

int api_headroom_json(struct web_req *r, int64_t run_id, struct cJSON *obj)
{
	struct report_orders o;
	struct report_trend *t = calloc(REPORT_MAX_ZONES, sizeof *t);
	cJSON *orders, *trends;
	int ret = -1;

	if (!t || report_orders(r->q, run_id, &o) < 0)
		goto out;
	orders = cJSON_AddArrayToObject(obj, "orders_of_interest");
	trends = cJSON_AddArrayToObject(obj, "headroom_trends");
	for (int i = 0; i < o.n; i++) {
		cJSON *x = cJSON_CreateObject();
		int n;
		cJSON_AddNumberToObject(x, "order", o.order[i]);
		cJSON_AddStringToObject(x, "why", o.why[i]);
		cJSON_AddBoolToObject(x, "measured", i > 0 || o.task_order_known);
		cJSON_AddItemToArray(orders, x);
		if ((n = report_headroom_trends(r->q, run_id, o.order[i], -1, -1, 0, t, REPORT_MAX_ZONES)) < 0)
			goto out;
		for (int z = 0; z < n; z++)
			cJSON_AddItemToArray(trends, trend_json(&t[z], o.why[i]));
	}
	ret = 0;
out:
	free(t);
	return ret;
}

/* ---------------------------------------------------------------- compare */

static cJSON *line_json(const struct report_line *l)
{
	cJSON *o = cJSON_CreateObject(), *ci;

	cJSON_AddStringToObject(o, "label", l->label);
	cJSON_AddStringToObject(o, "test", l->test);
	cJSON_AddStringToObject(o, "unit", l->unit);
	cJSON_AddBoolToObject(o, "ok", l->ok);
	jnum(o, "n_a", l->na);
	jnum(o, "n_b", l->nb);
	if (l->xa > 0 || l->xb > 0) {
		jnum(o, "exposure_hours_a", l->xa);
		jnum(o, "exposure_hours_b", l->xb);
	}
	if (!l->ok) {
		cJSON_AddStringToObject(o, "note", l->note);
		return o;
	}
	jnum(o, "a", l->c.a);
	jnum(o, "b", l->c.b);
	cJSON_AddStringToObject(o, "estimate_name", l->c.est_name ? l->c.est_name : "");
	jnum(o, "estimate", l->c.est);
	ci = cJSON_AddArrayToObject(o, "ci95");
	/* An unbounded end (too few samples) is null. */
	cJSON_AddItemToArray(ci, isfinite(l->c.lo) ? cJSON_CreateNumber(l->c.lo) : cJSON_CreateNull());
	cJSON_AddItemToArray(ci, isfinite(l->c.hi) ? cJSON_CreateNumber(l->c.hi) : cJSON_CreateNull());
	cJSON_AddBoolToObject(o, "ratio", l->c.is_ratio);
	if (l->c.p >= 0)
		cJSON_AddNumberToObject(o, "p", l->c.p);
	else
		cJSON_AddNullToObject(o, "p");
	cJSON_AddBoolToObject(o, "significant", stats_significant(&l->c));
	cJSON_AddStringToObject(o, "verdict", l->verdict);
	return o;
}

struct exists {
	int found;
};

static int exists_cb(void *arg, const struct query_run *run)
{
	(void)run;
	((struct exists *)arg)->found = 1;
	return 0;
}

int api_compare(struct web_req *r)
{
	const struct url_params *p = &r->url->p;
	struct exists ea = { 0 }, eb = { 0 };
	struct report_cmp *c;
	cJSON *root, *arr;
	char *s;
	int ret = -1;

	if (!p->has_a || !p->has_b)
		return web_error(r, 400, "give two runs: ?a=ID&b=ID");
	if (query_run(r->q, p->a, exists_cb, &ea) < 0 || query_run(r->q, p->b, exists_cb, &eb) < 0)
		return -1;
	if (!ea.found || !eb.found)
		return web_error(r, 404, !ea.found ? "no such run (a)" : "no such run (b)");
	if (!(c = calloc(1, sizeof *c)))
		return -1;
	if (report_compare(r->q, p->a, p->b, c) < 0 || !(root = cJSON_CreateObject()))
		goto out;
	cJSON_AddNumberToObject(root, "a", (double)p->a);
	cJSON_AddNumberToObject(root, "b", (double)p->b);
	cJSON_AddStringToObject(root, "direction", "differences are B - A, ratios B / A");
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
		r->ctype = json_type;
		ret = sb_puts(&r->body, s);
		free(s);
	}
out:
	free(c);
	return ret;
}
