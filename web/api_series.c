/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * api_series: the series of a run under /api/v1/runs/{id}/ — buddyinfo,
 * meminfo, vmstat, failures, frag, churn and probes — as JSON or CSV.
 *
 * Series can hold tens of thousands of numbers, so they are written
 * straight into the body (numbers need no escaping; the few strings go
 * through escape_json/escape_csv): no tree of one cJSON node per number.
 * The store buckets them (query_range); max_points caps the points.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "web/api.h"
#include "web/api_util.h"
#include "web/escape.h"
#include "web/server.h"

/* A CSV field of s, or nothing for NULL. */
static void csv_str(struct strbuf *b, const char *s)
{
	if (s)
		escape_csv(b, s, strlen(s));
}

struct zone_out {
	int node;
	char zone[ZONE_NAME_MAX];
	int norders;
	struct strbuf pts;
};

struct buddy_out {
	struct web_req *r;
	struct zone_out *z[BUDDY_MAX_ZONES];
	int nz;
};

static int buddy_csv_cb(void *arg, const struct query_buddy_point *p)
{
	struct buddy_out *o = arg;
	struct strbuf *b = &o->r->body;
	char t[FMT_TIME_LEN];

	for (int k = 0; k < p->norders; k++) {
		sb_printf(b, "%" PRId64 ",%s,%d,", p->ts_ms, fmt_time_iso(p->ts_ms, t, sizeof t), p->node);
		escape_csv(b, p->zone, p->zone ? strlen(p->zone) : 0);
		sb_printf(b, ",%d,", k);
		api_put_num(b, p->free[k], 1);
		sb_puts(b, "\r\n");
	}
	return b->err ? -1 : 0;
}

static int buddy_json_cb(void *arg, const struct query_buddy_point *p)
{
	struct buddy_out *o = arg;
	struct zone_out *z = NULL;
	const char *zone = p->zone ? p->zone : "";

	for (int i = 0; i < o->nz && !z; i++)
		if (o->z[i]->node == p->node && strcmp(o->z[i]->zone, zone) == 0)
			z = o->z[i];
	if (!z) {
		if (o->nz == BUDDY_MAX_ZONES || strlen(zone) >= ZONE_NAME_MAX || !(z = calloc(1, sizeof *z)))
			return -1;
		o->z[o->nz++] = z;
		z->node = p->node;
		memcpy(z->zone, zone, strlen(zone) + 1);
		sb_init(&z->pts, WEB_BODY_MAX);
	}
	if (p->norders > z->norders)
		z->norders = p->norders;
	sb_printf(&z->pts, "%s[%" PRId64, z->pts.len ? "," : "", p->ts_ms);
	for (int k = 0; k < p->norders; k++) {
		sb_puts(&z->pts, ",");
		api_put_num(&z->pts, p->free[k], 0);
	}
	return sb_puts(&z->pts, "]");
}

int api_buddyinfo(struct web_req *r)
{
	struct query_range rg;
	struct buddy_out o = { .r = r };
	int csv = r->fmt == URL_FMT_CSV, n, ret = 0;

	if (api_series_range(r, &rg) < 0)
		return -1;
	r->status = 200;
	if (csv) {
		r->ctype = api_csv_type;
		snprintf(r->filename, sizeof r->filename, "run-%" PRId64 "-buddyinfo.csv", r->id);
		sb_puts(&r->body, "ts_ms,ts,node,zone,page_order,free_blocks\r\n");
		return report_read_buddy_series(r->q, r->id, &rg, buddy_csv_cb, &o) < 0 ? -1 : 0;
	}
	r->ctype = api_json_type;
	n = report_read_buddy_series(r->q, r->id, &rg, buddy_json_cb, &o);
	if (n < 0) {
		for (int i = 0; i < o.nz; i++)
			r->body.err |= o.z[i]->pts.err;   /* over the cap: a 400, not a 500 */
		ret = -1;
		goto out;
	}
	api_series_head(r, &rg, NULL, NULL);
	sb_puts(&r->body, "\"columns\":\"[ts_ms, free blocks of order 0, 1, ... norders-1], bucket averages\","
		"\"zones\":[");
	for (int i = 0; i < o.nz; i++) {
		sb_printf(&r->body, "%s{\"node\":%d,\"zone\":", i ? "," : "", o.z[i]->node);
		escape_json(&r->body, o.z[i]->zone, strlen(o.z[i]->zone));
		sb_printf(&r->body, ",\"norders\":%d,\"points\":[", o.z[i]->norders);
		if (o.z[i]->pts.err)
			r->body.err = 1;
		else if (o.z[i]->pts.len)
			sb_append(&r->body, o.z[i]->pts.buf, o.z[i]->pts.len);
		sb_puts(&r->body, "]}");
	}
	sb_puts(&r->body, "]}");
out:
	for (int i = 0; i < o.nz; i++) {
		sb_free(&o.z[i]->pts);
		free(o.z[i]);
	}
	return ret;
}

struct point_out {
	struct strbuf *b;
	int csv;
	int n;
};

static int point_cb(void *arg, const struct query_point *p)
{
	struct point_out *o = arg;
	char t[FMT_TIME_LEN];

	if (o->csv) {
		sb_printf(o->b, "%" PRId64 ",%s,", p->ts_ms, fmt_time_iso(p->ts_ms, t, sizeof t));
		api_put_num(o->b, p->v, 1);
		sb_puts(o->b, "\r\n");
	} else {
		sb_printf(o->b, "%s[%" PRId64 ",", o->n ? "," : "", p->ts_ms);
		api_put_num(o->b, p->v, 0);
		sb_puts(o->b, "]");
	}
	o->n++;
	return o->b->err ? -1 : 0;
}

typedef int (*series_fn)(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			 query_point_fn fn, void *arg);

/* One named scalar series as JSON or CSV. */
static int scalar(struct web_req *r, const char *source, series_fn fn, const char *unit, const char *csv_col)
{
	struct query_range rg;
	struct point_out o = { NULL, r->fmt == URL_FMT_CSV, 0 };
	struct strbuf pts;
	const char *name = r->url->p.name;
	char msg[96];
	int has;

	if (!r->url->p.has_name)
		return web_error(r, 400, "name is required, e.g. ?name=MemFree or ?name=compact_stall");
	if (api_series_range(r, &rg) < 0)
		return -1;
	if ((has = report_read_has_name(r->q, source, name)) < 0)
		return -1;
	if (!has) {
		snprintf(msg, sizeof msg, "no %s field of that name", source);
		return web_error(r, 404, msg);
	}
	r->status = 200;
	if (o.csv) {
		r->ctype = api_csv_type;
		snprintf(r->filename, sizeof r->filename, "run-%" PRId64 "-%s-%s.csv", r->id, source, name);
		sb_printf(&r->body, "ts_ms,ts,%s\r\n", csv_col);
		o.b = &r->body;
		return fn(r->q, r->id, name, &rg, point_cb, &o) < 0 ? -1 : 0;
	}
	r->ctype = api_json_type;
	sb_init(&pts, WEB_BODY_MAX);
	o.b = &pts;
	if (fn(r->q, r->id, name, &rg, point_cb, &o) < 0)
		return api_drop_rows(r, &pts);   /* over the cap: server.c answers 400, not 500 */
	api_series_head(r, &rg, name, unit);
	sb_puts(&r->body, "\"points\":[");
	return api_close_rows(r, &pts);
}

int api_meminfo(struct web_req *r)
{
	return scalar(r, "meminfo", query_meminfo_series, "kB", "value_kb");
}

int api_vmstat(struct web_req *r)
{
	return scalar(r, "vmstat", query_vmstat_rate, "per_second", "rate_per_s");
}

/* ---- allocation failures ---- */

struct fail_out {
	struct strbuf *b;
	int csv;
	int n;
};

static int fail_cb(void *arg, const struct query_alloc_failure *f)
{
	struct fail_out *o = arg;
	char t[FMT_TIME_LEN];

	fmt_time_iso(f->ts_ms, t, sizeof t);
	if (o->csv) {
		sb_printf(o->b, "%" PRId64 ",%s,", f->ts_ms, t);
		if (f->comm)
			escape_csv(o->b, f->comm, f->comm_len);
		sb_puts(o->b, ",");
		if (f->pid >= 0)
			sb_printf(o->b, "%" PRId64, f->pid);
		sb_puts(o->b, ",");
		if (f->order >= 0)
			sb_printf(o->b, "%" PRId64, f->order);
		sb_puts(o->b, ",");
		if (f->gfp_flags)
			escape_csv(o->b, f->gfp_flags, strlen(f->gfp_flags));
		sb_printf(o->b, ",%s\r\n", f->gfp_mask ? f->gfp_mask : "");
	} else {
		sb_printf(o->b, "%s{\"ts_ms\":%" PRId64 ",\"ts\":\"%s\",\"comm\":", o->n ? "," : "", f->ts_ms, t);
		api_put_str(o->b, f->comm, f->comm_len);
		sb_puts(o->b, ",\"pid\":");
		f->pid >= 0 ? sb_printf(o->b, "%" PRId64, f->pid) : sb_puts(o->b, "null");
		sb_puts(o->b, ",\"order\":");
		f->order >= 0 ? sb_printf(o->b, "%" PRId64, f->order) : sb_puts(o->b, "null");
		sb_puts(o->b, ",\"gfp_flags\":");
		api_put_str(o->b, f->gfp_flags, f->gfp_flags ? strlen(f->gfp_flags) : 0);
		sb_puts(o->b, ",\"gfp_mask\":");
		api_put_str(o->b, f->gfp_mask, f->gfp_mask ? strlen(f->gfp_mask) : 0);
		sb_puts(o->b, "}");
	}
	o->n++;
	return o->b->err ? -1 : 0;
}

int api_failures(struct web_req *r)
{
	const struct url_params *p = &r->url->p;
	struct query_range rg;
	struct fail_out o = { &r->body, r->fmt == URL_FMT_CSV, 0 };
	struct strbuf rows;
	int64_t total;
	int limit, has;

	if (api_series_range(r, &rg) < 0)
		return -1;
	limit = p->has_max_points ? (int)p->max_points : API_DEFAULT_POINTS;
	if ((has = report_read_has_table(r->q, "kmsg_events")) < 0)
		return -1;
	if (!has)
		return web_error(r, 404, "this database has no kernel-log events");
	r->status = 200;
	if (o.csv) {
		r->ctype = api_csv_type;
		snprintf(r->filename, sizeof r->filename, "run-%" PRId64 "-failures.csv", r->id);
		sb_puts(&r->body, "ts_ms,ts,comm,pid,page_order,gfp_flags,gfp_mask\r\n");
		return report_read_alloc_failures(r->q, r->id, p->has_from ? p->from_ms : -1, p->has_to ? p->to_ms : -1, limit,
					    &total, fail_cb, &o) < 0 ? -1 : 0;
	}
	r->ctype = api_json_type;
	sb_init(&rows, WEB_BODY_MAX);
	o.b = &rows;
	if (report_read_alloc_failures(r->q, r->id, p->has_from ? p->from_ms : -1, p->has_to ? p->to_ms : -1, limit, &total,
				 fail_cb, &o) < 0)
		return api_drop_rows(r, &rows);
	sb_printf(&r->body, "{\"run_id\":%" PRId64 ",\"total\":%" PRId64 ",\"max_points\":%d,\"failures\":[", r->id, total,
		  limit);
	return api_close_rows(r, &rows);
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
		api_csv_head(r, "frag", "ts_ms,ts,node,zone,page_order,unusable_index,fragmentation_index,headroom_blocks\r\n");
		return report_read_frag_series(r->q, r->id, &rg, frag_cb, &o) < 0 ? -1 : 0;
	}
	r->status = 200;
	r->ctype = api_json_type;
	if (report_read_frag_series(r->q, r->id, &rg, frag_cb, &o) < 0) {
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

	if (api_series_range(r, &rg) < 0 || api_need_table(r, "churn_info") <= 0)
		return -1;
	n += (size_t)snprintf(cols + n, sizeof cols - n, "ts_ms,%sspan_ms,population_mean,population_max",
			      o.csv ? "ts," : "");
	for (int i = 0; i < QC_N; i++)
		n += (size_t)snprintf(cols + n, sizeof cols - n, ",%s", report_read_churn_column(i));
	if (o.csv) {
		api_csv_head(r, "churn", cols);
		sb_puts(&r->body, "\r\n");
		return report_read_churn_series(r->q, r->id, &rg, churn_cb, &o) < 0 ? -1 : 0;
	}
	r->status = 200;
	r->ctype = api_json_type;
	sb_init(&pts, WEB_BODY_MAX);
	o.b = &pts;
	if (report_read_churn_series(r->q, r->id, &rg, churn_cb, &o) < 0)
		return api_drop_rows(r, &pts);   /* over the cap: server.c answers 400, not 500 */
	api_series_head(r, &rg, NULL, NULL);
	sb_puts(&r->body, "\"columns\":");
	escape_json(&r->body, cols, strlen(cols));
	sb_puts(&r->body, ",\"about\":\"per bucket: counts summed over the ticks in it, span_ms the time they cover, "
		"population averaged\",\"points\":[");
	return api_close_rows(r, &pts);
}

/* ---------------------------------------------------------------- probes */

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
		sb_puts(o->b, ",");
		csv_str(o->b, p->gfp_mode);
		sb_puts(o->b, "\r\n");
	} else {
		sb_printf(o->b, "%s{\"ts_ms\":%" PRId64 ",\"ts\":\"%s\",\"kind\":", o->n ? "," : "", p->ts_ms, t);
		api_put_str(o->b, p->kind, p->kind ? strlen(p->kind) : 0);
		sb_puts(o->b, ",\"result\":");
		api_put_num(o->b, p->result, 0);
		sb_puts(o->b, ",\"stop_reason\":");
		api_put_str(o->b, p->stop_reason, p->stop_reason ? strlen(p->stop_reason) : 0);
		sb_puts(o->b, ",\"duration_ms\":");
		p->duration_ms >= 0 ? sb_printf(o->b, "%" PRId64, p->duration_ms) : sb_puts(o->b, "null");
		sb_puts(o->b, ",\"detail\":");
		api_put_str(o->b, p->detail, p->detail ? strlen(p->detail) : 0);
		sb_puts(o->b, ",\"gfp_mode\":");
		api_put_str(o->b, p->gfp_mode, p->gfp_mode ? strlen(p->gfp_mode) : 0);
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

	if (api_series_range(r, &rg) < 0 || api_need_table(r, "probes") <= 0)
		return -1;
	if (kind && strcmp(kind, "capacity") != 0 && strcmp(kind, "switch") != 0)
		return web_error(r, 400, "name must be capacity or switch (the probe kind)");
	if (o.csv) {
		api_csv_head(r, "probes", "ts_ms,ts,kind,result,stop_reason,duration_ms,detail,gfp_mode\r\n");
		return report_read_probes(r->q, r->id, kind, p->has_from ? p->from_ms : -1, p->has_to ? p->to_ms : -1, limit,
				    probe_cb, &o) < 0 ? -1 : 0;
	}
	r->status = 200;
	r->ctype = api_json_type;
	sb_init(&rows, WEB_BODY_MAX);
	o.b = &rows;
	if (report_read_probes(r->q, r->id, kind, p->has_from ? p->from_ms : -1, p->has_to ? p->to_ms : -1, limit, probe_cb,
			 &o) < 0)
		return api_drop_rows(r, &rows);
	sb_printf(&r->body, "{\"run_id\":%" PRId64 ",\"max_points\":%d,\"about\":\"oldest first; capacity: workers "
		  "held, switch: system us per yield\",\"probes\":[", r->id, limit);
	return api_close_rows(r, &rows);
}
