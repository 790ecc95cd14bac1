/*
 * api: /api/v1/..., JSON (and CSV for lists and series).
 *
 * Small documents (status, runs, one run) are built with cJSON.  Series
 * can hold tens of thousands of numbers, so they are written straight into
 * the body (numbers need no escaping; the few strings go through
 * escape_json): no tree of one cJSON node per number.  Every string from
 * the DB is made valid UTF-8 first (escape_utf8): cJSON copies bytes as
 * they are, and a label with invalid UTF-8 would make invalid JSON.
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
#include "web/server.h"


static const char json_type[] = "application/json";
static const char csv_type[] = "text/csv; charset=utf-8";

/* Add s (NULL = null) as valid UTF-8; tmp is scratch. */
static void jstr(cJSON *o, const char *key, const char *s, struct strbuf *tmp)
{
	if (!s) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	sb_reset(tmp);
	if (escape_utf8(tmp, s, strlen(s)) < 0 || !tmp->buf)
		cJSON_AddStringToObject(o, key, "");
	else
		cJSON_AddStringToObject(o, key, tmp->buf);
}

/* Add v, or null for the store's -1 "NULL". */
static void jnum(cJSON *o, const char *key, int64_t v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)v);
}

static void jtime(cJSON *o, const char *key, int64_t ms)
{
	char t[FMT_TIME_LEN];

	if (ms < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddStringToObject(o, key, fmt_time_iso(ms, t, sizeof t));
}

static cJSON *run_json(const struct query_run *run, int newest, struct strbuf *tmp)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "run_id", (double)run->run_id);
	jstr(o, "label", run->label, tmp);
	jtime(o, "started_at", run->started_ms);
	jtime(o, "ended_at", run->ended_ms);
	jnum(o, "started_ms", run->started_ms);
	jnum(o, "ended_ms", run->ended_ms);
	jstr(o, "end_reason", run->end_reason, tmp);
	cJSON_AddStringToObject(o, "state", page_run_state(run, newest));
	jnum(o, "duration_ms", page_run_duration(run));
	jstr(o, "kernel_release", run->kernel_release, tmp);
	jstr(o, "kernel_version", run->kernel_version, tmp);
	jstr(o, "hypervisor", run->hypervisor, tmp);
	jstr(o, "guest_type", run->guest_type, tmp);
	jstr(o, "cpu_model", run->cpu_model, tmp);
	jstr(o, "fpu_features", run->fpu_features, tmp);
	jnum(o, "xstate_bytes", run->xstate_bytes);
	jstr(o, "xstate_detail", run->xstate_detail, tmp);
	jnum(o, "mem_total_kb", run->mem_total_kb);
	jnum(o, "page_size", run->page_size);
	jstr(o, "cmdline", run->cmdline, tmp);
	jstr(o, "hostname", run->hostname, tmp);
	jstr(o, "boot_id", run->boot_id, tmp);
	jstr(o, "version", run->version, tmp);
	jnum(o, "pid", run->pid);
	jstr(o, "config", run->config, tmp);
	jnum(o, "samples", run->nsamples);
	jnum(o, "first_sample_ms", run->first_sample_ms);
	jnum(o, "last_sample_ms", run->last_sample_ms);
	return o;
}

/* Print root into the body and free it; 0 or -1. */
static int send_json(struct web_req *r, cJSON *root)
{
	char *s = root ? cJSON_PrintUnformatted(root) : NULL;
	int ret = -1;

	cJSON_Delete(root);
	if (s) {
		r->status = 200;
		r->ctype = json_type;
		ret = sb_puts(&r->body, s);
		free(s);
	}
	return ret;
}

struct one_run {
	cJSON *obj;
	int newest;
	struct strbuf *tmp;
};

static int one_run_cb(void *arg, const struct query_run *run)
{
	struct one_run *o = arg;

	o->obj = run_json(run, o->newest, o->tmp);
	return o->obj ? 0 : -1;
}

int api_status(struct web_req *r)
{
	struct strbuf tmp;
	struct one_run o = { NULL, 1, &tmp };
	char status[WEB_STATUS_MAX];
	cJSON *root = cJSON_CreateObject();
	int64_t id;
	int got;

	sb_init(&tmp, WEB_BODY_MAX);
	if (!root || (got = query_latest_run(r->q, &id)) < 0 || (got && query_run(r->q, id, one_run_cb, &o) < 0)) {
		cJSON_Delete(root);
		sb_free(&tmp);
		return -1;
	}
	web_status_copy(r->ws, status, sizeof status);
	cJSON_AddBoolToObject(root, "healthy", web_healthy(r->ws));
	jstr(root, "status", status, &tmp);
	jstr(root, "version", web_version(r->ws), &tmp);
	cJSON_AddNumberToObject(root, "schema_version", query_schema_version(r->q));
	if (o.obj)
		cJSON_AddItemToObject(root, "latest_run", o.obj);
	else
		cJSON_AddNullToObject(root, "latest_run");
	sb_free(&tmp);
	return send_json(r, root);
}

struct runs_ctx {
	struct web_req *r;
	cJSON *arr;               /* JSON, or NULL for CSV */
	struct strbuf tmp;
	int n;
};

static int runs_cb(void *arg, const struct query_run *run)
{
	struct runs_ctx *c = arg;
	struct strbuf *b = &c->r->body;
	char t[FMT_TIME_LEN];
	const char *const text[] = { run->label, NULL, NULL, run->end_reason, run->kernel_release, run->hypervisor,
				     run->guest_type };

	if (c->arr) {
		cJSON *o = run_json(run, c->n++ == 0, &c->tmp);
		if (!o)
			return -1;
		cJSON_AddItemToArray(c->arr, o);
		return 0;
	}
	sb_printf(b, "%" PRId64, run->run_id);
	for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
		sb_puts(b, ",");
		if (i == 1 || i == 2) {
			int64_t ms = i == 1 ? run->started_ms : run->ended_ms;
			if (ms >= 0)
				sb_puts(b, fmt_time_iso(ms, t, sizeof t));
		} else if (text[i]) {
			escape_csv(b, text[i], strlen(text[i]));
		}
	}
	sb_printf(b, ",%s,%" PRId64 ",%" PRId64 "\r\n", page_run_state(run, c->n++ == 0), run->nsamples,
		  page_run_duration(run));
	return b->err ? -1 : 0;
}

int api_runs(struct web_req *r)
{
	struct runs_ctx c = { .r = r };
	cJSON *root = NULL;
	int n;

	sb_init(&c.tmp, WEB_BODY_MAX);
	if (r->fmt == URL_FMT_CSV) {
		r->status = 200;
		r->ctype = csv_type;
		snprintf(r->filename, sizeof r->filename, "runs.csv");
		sb_puts(&r->body, "run_id,label,started_at,ended_at,end_reason,kernel_release,hypervisor,guest_type,"
			"state,samples,duration_ms\r\n");
	} else if (!(root = cJSON_CreateObject()) || !(c.arr = cJSON_AddArrayToObject(root, "runs"))) {
		cJSON_Delete(root);
		return -1;
	}
	n = query_runs(r->q, runs_cb, &c);
	sb_free(&c.tmp);
	if (n < 0) {
		cJSON_Delete(root);
		return -1;
	}
	return root ? send_json(r, root) : 0;
}

int api_run(struct web_req *r)
{
	struct strbuf tmp;
	struct one_run o = { NULL, 0, &tmp };
	struct buddyinfo *b = NULL;
	int64_t latest, ts;
	int got;

	sb_init(&tmp, WEB_BODY_MAX);
	if (query_latest_run(r->q, &latest) < 0)
		goto fail;
	o.newest = latest == r->id;
	if ((got = query_run(r->q, r->id, one_run_cb, &o)) < 0)
		goto fail;
	sb_free(&tmp);
	if (!got)
		return web_error(r, 404, "no such run");
	if (!(b = calloc(1, sizeof *b)) || (got = query_buddy_latest(r->q, r->id, b, &ts)) < 0)
		goto fail;
	if (got) {
		cJSON *lb = cJSON_AddObjectToObject(o.obj, "latest_buddyinfo"), *zones;
		jnum(lb, "ts_ms", ts);
		jtime(lb, "ts", ts);
		zones = cJSON_AddArrayToObject(lb, "zones");
		for (int i = 0; i < b->nzones; i++) {
			cJSON *z = cJSON_CreateObject(), *f;
			cJSON_AddNumberToObject(z, "node", b->z[i].node);
			cJSON_AddStringToObject(z, "zone", b->z[i].zone);   /* fits ZONE_NAME_MAX; checked by the store */
			f = cJSON_AddArrayToObject(z, "free_blocks");
			for (int k = 0; k < b->norders; k++)
				cJSON_AddItemToArray(f, cJSON_CreateNumber((double)b->z[i].free[k]));
			cJSON_AddItemToArray(zones, z);
		}
	} else {
		cJSON_AddNullToObject(o.obj, "latest_buddyinfo");
	}
	free(b);
	b = NULL;
	if (api_headroom_json(r, r->id, o.obj) < 0)
		goto fail_obj;
	return send_json(r, o.obj);
fail_obj:
	cJSON_Delete(o.obj);
	return -1;
fail:
	sb_free(&tmp);
	free(b);
	cJSON_Delete(o.obj);
	return -1;
}

/* ---- series ---- */

int api_close_rows(struct web_req *r, struct strbuf *rows)
{
	if (rows->len)
		sb_append(&r->body, rows->buf, rows->len);
	sb_puts(&r->body, "]}");
	sb_free(rows);
	return 0;
}

int api_drop_rows(struct web_req *r, struct strbuf *rows)
{
	r->body.err |= rows->err;
	sb_free(rows);
	return -1;
}

void api_put_num(struct strbuf *sb, double v, int csv)
{
	char n[40];

	if (!isfinite(v))
		sb_puts(sb, csv ? "" : "null");
	else
		sb_puts(sb, fmt_num(v, n, sizeof n));
}

/* The range of a series request: 0, or -1 after a 400/404. */
int api_series_range(struct web_req *r, struct query_range *rg)
{
	const struct url_params *p = &r->url->p;
	struct page_run_info ri = { 0 };

	rg->from_ms = p->has_from ? p->from_ms : -1;
	rg->to_ms = p->has_to ? p->to_ms : -1;
	rg->max_points = p->has_max_points ? (int)p->max_points : API_DEFAULT_POINTS;
	if (p->has_from && p->has_to && p->from_ms > p->to_ms)
		return web_error(r, 400, "from is after to");
	if (query_run(r->q, r->id, page_run_info_cb, &ri) < 0)
		return -1;
	if (!ri.found)
		return web_error(r, 404, "no such run");
	return 0;
}

void api_series_head(struct web_req *r, const struct query_range *rg, const char *name, const char *unit)
{
	struct strbuf *b = &r->body;

	sb_printf(b, "{\"run_id\":%" PRId64 ",", r->id);
	if (name) {
		sb_puts(b, "\"name\":");
		escape_json(b, name, strlen(name));
		sb_printf(b, ",\"unit\":\"%s\",", unit);
	}
	if (rg->bucket_ms > 0)
		sb_printf(b, "\"from_ms\":%" PRId64 ",\"to_ms\":%" PRId64 ",", rg->from_ms, rg->to_ms);
	else
		sb_puts(b, "\"from_ms\":null,\"to_ms\":null,");
	sb_printf(b, "\"bucket_ms\":%" PRId64 ",\"interval_ms\":%" PRId64 ",\"max_points\":%d,", rg->bucket_ms,
		  rg->interval_ms, rg->max_points);
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
		r->ctype = csv_type;
		snprintf(r->filename, sizeof r->filename, "run-%" PRId64 "-buddyinfo.csv", r->id);
		sb_puts(&r->body, "ts_ms,ts,node,zone,page_order,free_blocks\r\n");
		return query_buddy_series(r->q, r->id, &rg, buddy_csv_cb, &o) < 0 ? -1 : 0;
	}
	r->ctype = json_type;
	n = query_buddy_series(r->q, r->id, &rg, buddy_json_cb, &o);
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
	if ((has = query_has_name(r->q, source, name)) < 0)
		return -1;
	if (!has) {
		snprintf(msg, sizeof msg, "no %s field of that name", source);
		return web_error(r, 404, msg);
	}
	r->status = 200;
	if (o.csv) {
		r->ctype = csv_type;
		snprintf(r->filename, sizeof r->filename, "run-%" PRId64 "-%s-%s.csv", r->id, source, name);
		sb_printf(&r->body, "ts_ms,ts,%s\r\n", csv_col);
		o.b = &r->body;
		return fn(r->q, r->id, name, &rg, point_cb, &o) < 0 ? -1 : 0;
	}
	r->ctype = json_type;
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

static void json_str_or_null(struct strbuf *b, const char *s, size_t len)
{
	if (s)
		escape_json(b, s, len);
	else
		sb_puts(b, "null");
}

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
		json_str_or_null(o->b, f->comm, f->comm_len);
		sb_puts(o->b, ",\"pid\":");
		f->pid >= 0 ? sb_printf(o->b, "%" PRId64, f->pid) : sb_puts(o->b, "null");
		sb_puts(o->b, ",\"order\":");
		f->order >= 0 ? sb_printf(o->b, "%" PRId64, f->order) : sb_puts(o->b, "null");
		sb_puts(o->b, ",\"gfp_flags\":");
		json_str_or_null(o->b, f->gfp_flags, f->gfp_flags ? strlen(f->gfp_flags) : 0);
		sb_puts(o->b, ",\"gfp_mask\":");
		json_str_or_null(o->b, f->gfp_mask, f->gfp_mask ? strlen(f->gfp_mask) : 0);
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
	if ((has = query_has_table(r->q, "kmsg_events")) < 0)
		return -1;
	if (!has)
		return web_error(r, 404, "this database has no kernel-log events");
	r->status = 200;
	if (o.csv) {
		r->ctype = csv_type;
		snprintf(r->filename, sizeof r->filename, "run-%" PRId64 "-failures.csv", r->id);
		sb_puts(&r->body, "ts_ms,ts,comm,pid,page_order,gfp_flags,gfp_mask\r\n");
		return query_alloc_failures(r->q, r->id, p->has_from ? p->from_ms : -1, p->has_to ? p->to_ms : -1, limit,
					    &total, fail_cb, &o) < 0 ? -1 : 0;
	}
	r->ctype = json_type;
	sb_init(&rows, WEB_BODY_MAX);
	o.b = &rows;
	if (query_alloc_failures(r->q, r->id, p->has_from ? p->from_ms : -1, p->has_to ? p->to_ms : -1, limit, &total,
				 fail_cb, &o) < 0)
		return api_drop_rows(r, &rows);
	sb_printf(&r->body, "{\"run_id\":%" PRId64 ",\"total\":%" PRId64 ",\"max_points\":%d,\"failures\":[", r->id, total,
		  limit);
	return api_close_rows(r, &rows);
}
