/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * api_run: the run documents of /api/v1/ — status, the run list (JSON and
 * CSV) and one run with its orders of interest and headroom trends
 * (report/).  Small documents, built with cJSON; every string from the DB
 * is made valid UTF-8 first (api_json_str): cJSON copies bytes as they are,
 * and a label with invalid UTF-8 would make invalid JSON.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/fmt.h"
#include "report/causes.h"
#include "report/gfp.h"
#include "report/headroom.h"
#include "report/run.h"
#include "web/api.h"
#include "web/api_util.h"
#include "web/escape.h"
#include "web/page.h"
#include "web/server.h"

/* "imported": where a run copied by `fpusoakd import` came from (v_imports); absent for a run of this database. */
static int import_json(const struct web_req *r, int db, int64_t run_id, cJSON *o, struct strbuf *tmp)
{
	struct query_import *im = calloc(1, sizeof *im);
	cJSON *x;
	int got = im ? report_read_run_import(r->dbs.q[db], run_id, im) : -1;

	if (got == 1 && (x = cJSON_AddObjectToObject(o, "imported"))) {
		api_json_str(x, "source_file", im->source_file, tmp);
		api_json_i64(x, "source_run_id", im->source_run_id);
		api_json_str(x, "source_host", im->source_host[0] ? im->source_host : NULL, tmp);
		api_json_str(x, "source_boot_id", im->source_boot_id[0] ? im->source_boot_id : NULL, tmp);
		api_json_time(x, "imported_at", im->imported_ms);
	}
	free(im);
	return got < 0 ? -1 : 0;
}

/* "memory": what the machine had at the start (report_run_memory); absent for a run from before schema 016. */
static int memory_json(const struct web_req *r, int db, const struct query_run *run, cJSON *o)
{
	struct report_run_memory m;
	cJSON *x;

	if (report_run_memory(r->dbs.q[db], run, &m) < 0)
		return -1;
	if (m.known && (x = cJSON_AddObjectToObject(o, "memory"))) {
		api_json_i64(x, "domain_kb", m.domain_kb);
		api_json_i64(x, "present_kb", m.present_kb);
		api_json_i64(x, "mem_total_kb", m.total_kb);
		api_json_i64(x, "reserved_kb", m.reserved_kb);
		api_json_i64(x, "outside_kb", m.outside_kb);
		api_json_i64(x, "mem_free_kb", m.free_kb);
		api_json_i64(x, "mem_available_kb", m.available_kb);
	}
	return 0;
}

static cJSON *run_json(const struct web_req *r, int db, const struct query_run *run, int newest, struct strbuf *tmp)
{
	cJSON *o = cJSON_CreateObject();
	char ref[RUNREF_LEN];

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "run_id", (double)run->run_id);
	if (r->dbs.n > 1) {
		/* Several databases (fpusoakd serve): the file's short name and the run's NAME:ID. */
		cJSON_AddStringToObject(o, "db", r->dbs.name[db]);
		cJSON_AddStringToObject(o, "ref", page_ref(r, db, run->run_id, ref, sizeof ref));
	}
	api_json_str(o, "label", run->label, tmp);
	api_json_time(o, "started_at", run->started_ms);
	api_json_time(o, "ended_at", run->ended_ms);
	api_json_i64(o, "started_ms", run->started_ms);
	api_json_i64(o, "ended_ms", run->ended_ms);
	api_json_str(o, "end_reason", run->end_reason, tmp);
	cJSON_AddStringToObject(o, "state", report_run_state(run, newest));
	api_json_i64(o, "duration_ms", report_run_duration(run));
	api_json_str(o, "kernel_release", run->kernel_release, tmp);
	api_json_str(o, "kernel_version", run->kernel_version, tmp);
	api_json_str(o, "hypervisor", run->hypervisor, tmp);
	api_json_str(o, "guest_type", run->guest_type, tmp);
	api_json_str(o, "cpu_model", run->cpu_model, tmp);
	api_json_str(o, "cpu_model_kernel", run->cpu_model_kernel, tmp);
	api_json_str(o, "fpu_features", run->fpu_features, tmp);
	api_json_i64(o, "xstate_bytes", run->xstate_bytes);
	api_json_str(o, "xstate_detail", run->xstate_detail, tmp);
	api_json_i64(o, "mem_total_kb", run->mem_total_kb);
	api_json_i64(o, "page_size", run->page_size);
	api_json_str(o, "cmdline", run->cmdline, tmp);
	api_json_str(o, "hostname", run->hostname, tmp);
	api_json_str(o, "boot_id", run->boot_id, tmp);
	api_json_str(o, "version", run->version, tmp);
	api_json_i64(o, "pid", run->pid);
	api_json_str(o, "config", run->config, tmp);
	api_json_str(o, "gfp_mode", run->gfp_mode, tmp);
	if (import_json(r, db, run->run_id, o, tmp) < 0 || memory_json(r, db, run, o) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	api_json_i64(o, "samples", run->nsamples);
	api_json_i64(o, "first_sample_ms", run->first_sample_ms);
	api_json_i64(o, "last_sample_ms", run->last_sample_ms);
	return o;
}

struct one_run {
	const struct web_req *r;
	int db;
	cJSON *obj;
	int newest;
	struct strbuf *tmp;
};

static int one_run_cb(void *arg, const struct query_run *run)
{
	struct one_run *o = arg;

	o->obj = run_json(o->r, o->db, run, o->newest, o->tmp);
	return o->obj ? 0 : -1;
}

int api_status(struct web_req *r)
{
	struct strbuf tmp;
	struct one_run o = { r, 0, NULL, 1, &tmp };
	char status[WEB_STATUS_MAX];
	cJSON *root = cJSON_CreateObject();
	int64_t id;
	int got;

	sb_init(&tmp, WEB_BODY_MAX);
	if (root && (got = page_latest(r, &o.db, &id)) > 0)
		o.newest = r->dbs.writing[o.db];
	if (!root || got < 0 || (got && report_read_run(r->dbs.q[o.db], id, one_run_cb, &o) < 0)) {
		cJSON_Delete(root);
		sb_free(&tmp);
		return -1;
	}
	web_status_copy(r->ws, status, sizeof status);
	cJSON_AddBoolToObject(root, "healthy", web_healthy(r->ws));
	api_json_str(root, "status", status, &tmp);
	api_json_str(root, "version", web_version(r->ws), &tmp);
	cJSON_AddNumberToObject(root, "schema_version", report_read_schema_version(r->q));
	if (o.obj)
		cJSON_AddItemToObject(root, "latest_run", o.obj);
	else
		cJSON_AddNullToObject(root, "latest_run");
	sb_free(&tmp);
	return api_send_json(r, root);
}

struct runs_ctx {
	struct web_req *r;
	cJSON *arr;               /* JSON, or NULL for CSV */
	struct strbuf tmp;
	int db, n, newest_live;   /* newest_live: the DB's first (newest) run may be "running" */
};

static int runs_cb(void *arg, const struct query_run *run)
{
	struct runs_ctx *c = arg;
	struct strbuf *b = &c->r->body;
	char t[FMT_TIME_LEN];
	const char *const text[] = { run->label, NULL, NULL, run->end_reason, run->kernel_release, run->hypervisor,
				     run->guest_type };

	if (c->arr) {
		cJSON *o = run_json(c->r, c->db, run, c->n++ == 0 && c->newest_live, &c->tmp);
		if (!o)
			return -1;
		cJSON_AddItemToArray(c->arr, o);
		return 0;
	}
	if (c->r->dbs.n > 1) {
		char ref[RUNREF_LEN];
		sb_printf(b, "%s,", page_ref(c->r, c->db, run->run_id, ref, sizeof ref));
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
	sb_printf(b, ",%s,%" PRId64 ",%" PRId64 "\r\n", report_run_state(run, c->n++ == 0 && c->newest_live), run->nsamples,
		  report_run_duration(run));
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
		r->ctype = api_csv_type;
		snprintf(r->filename, sizeof r->filename, "runs.csv");
		sb_puts(&r->body, r->dbs.n > 1 ? "ref,run_id,label," : "run_id,label,");
		sb_puts(&r->body, "started_at,ended_at,end_reason,kernel_release,hypervisor,guest_type,"
			"state,samples,duration_ms\r\n");
	} else if (!(root = cJSON_CreateObject()) || !(c.arr = cJSON_AddArrayToObject(root, "runs"))) {
		cJSON_Delete(root);
		return -1;
	}
	for (n = 0, c.db = 0; c.db < r->dbs.n && n >= 0; c.db++) {
		c.n = 0;
		c.newest_live = r->dbs.writing[c.db];
		n = report_read_runs(r->dbs.q[c.db], runs_cb, &c);
	}
	sb_free(&c.tmp);
	if (n < 0) {
		cJSON_Delete(root);
		return -1;
	}
	return root ? api_send_json(r, root) : 0;
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
	/* A short window is fitted per tick with an AR(1)-corrected interval (report/headroom.h). */
	cJSON_AddStringToObject(o, "fit", t->per_tick ? "ticks_ar1" : "minutes");
	if (t->per_tick)
		cJSON_AddNumberToObject(o, "ticks", (double)t->ticks);
	api_json_num(o, "last_blocks", t->n ? t->last : NAN);
	if (!t->ok) {
		cJSON_AddNullToObject(o, "slope_per_hour");
		cJSON_AddNullToObject(o, "ci95_per_hour");
		cJSON_AddNullToObject(o, "exhaustion");
		cJSON_AddStringToObject(o, "note", trend_strerror(t->err));
		return o;
	}
	api_json_num(o, "slope_per_hour", t->slope_h);
	ci = cJSON_AddArrayToObject(o, "ci95_per_hour");
	cJSON_AddItemToArray(ci, cJSON_CreateNumber(t->lo_h));
	cJSON_AddItemToArray(ci, cJSON_CreateNumber(t->hi_h));
	api_json_num(o, "r2", t->fit.r2);
	if (t->per_tick)
		api_json_num(o, "n_eff", t->fit.n_eff);
	if (t->exhaustion) {
		ex = cJSON_AddObjectToObject(o, "exhaustion");
		cJSON_AddNumberToObject(ex, "ts_ms", (double)t->zero_ms);
		api_json_time(ex, "ts", t->zero_ms);
		cJSON_AddNumberToObject(ex, "early_ms", (double)t->zero_early_ms);
		cJSON_AddNumberToObject(ex, "late_ms", (double)t->zero_late_ms);
	} else {
		cJSON_AddNullToObject(o, "exhaustion");
	}
	return o;
}

/* Add orders_of_interest and headroom_trends (whole run) to a run's JSON object; 0 or -1. */
static int headroom_json(struct web_req *r, int64_t run_id, cJSON *obj)
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
		cJSON_AddBoolToObject(x, "measured", report_order_measured(&o, i));
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

/* The fragmenting load of the run (null when it had none); 0 or -1. */
static int fragment_json(struct web_req *r, int64_t run_id, cJSON *obj)
{
	struct report_fragment f;
	cJSON *o;
	int got = report_fragment(r->q, run_id, -1, -1, &f);

	if (got < 0)
		return -1;
	if (!got) {
		cJSON_AddNullToObject(obj, "fragment");
		return 0;
	}
	o = cJSON_AddObjectToObject(obj, "fragment");
	cJSON_AddStringToObject(o, "level", f.level);
	api_json_i64(o, "base_bytes", f.base_bytes);
	api_json_i64(o, "cap_bytes", f.cap_bytes);
	api_json_i64(o, "keep_cap_bytes", f.keep_cap_bytes);
	cJSON_AddStringToObject(o, "recipe", f.recipe);
	api_json_i64(o, "rows", f.tot.rows);
	api_json_i64(o, "cycles", f.tot.cycles);
	api_json_i64(o, "held_max_bytes", f.tot.held_max);
	api_json_i64(o, "kept_max_bytes", f.tot.kept_max);
	api_json_i64(o, "alloc_failed", f.tot.alloc_failed);
	api_json_num(o, "peak_pct_of_cap", f.peak_pct_of_cap);
	return 0;
}

/* "failure_causes": classified failures by source, cause and order, and per hour (report_causes); null on a
 * database from before schema 14. */
static int causes_json(struct web_req *r, int64_t run_id, cJSON *obj)
{
	struct report_causes *rc = calloc(1, sizeof *rc);
	cJSON *o, *tot, *hours;

	if (!rc || report_causes(r->q, run_id, -1, -1, rc) < 0) {
		free(rc);
		return -1;
	}
	if (!rc->have) {
		free(rc);
		cJSON_AddNullToObject(obj, "failure_causes");
		return 0;
	}
	o = cJSON_AddObjectToObject(obj, "failure_causes");
	api_json_i64(o, "rows", rc->all);
	tot = cJSON_AddArrayToObject(o, "by_source_cause_order");
	for (int s = 0; s < REPORT_CAUSE_SOURCES; s++)
		for (int c = 0; c < REPORT_CAUSES; c++)
			for (int k = 0; k < REPORT_CAUSE_ORDERS; k++) {
				cJSON *x;
				if (!rc->by_order[s][c][k])
					continue;
				x = cJSON_CreateObject();
				cJSON_AddStringToObject(x, "source", report_cause_source_key(s + 1));
				cJSON_AddStringToObject(x, "cause", report_cause_name(c));
				cJSON_AddNumberToObject(x, "order", k);
				api_json_i64(x, "failures", rc->by_order[s][c][k]);
				cJSON_AddItemToArray(tot, x);
			}
	api_json_i64(o, "hours_with_failures", rc->hours_total);
	hours = cJSON_AddArrayToObject(o, "hours");
	for (int h = 0; h < rc->nhours; h++) {
		cJSON *x = cJSON_CreateObject();
		api_json_i64(x, "hour_ms", rc->hours[h].hour_ms);
		for (int c = 0; c < REPORT_CAUSES; c++) {
			int64_t n = 0;
			for (int s = 0; s < REPORT_CAUSE_SOURCES; s++)
				n += rc->hours[h].n[s][c];
			api_json_i64(x, report_cause_name(c), n);
		}
		cJSON_AddItemToArray(hours, x);
	}
	free(rc);
	return 0;
}

/* "trace": what the run's tracefs instance saw (report_trace), or null for a run without a tracefs note. */
static int trace_json(struct web_req *r, int64_t run_id, cJSON *obj, struct strbuf *tmp)
{
	static const char *const cls[QUERY_TRACE_CLASSES] = { "sleeping", "atomic", "opportunistic" };
	struct report_trace t;
	cJSON *o, *bc, *bo, *tr;

	if (report_trace(r->q, run_id, &t) < 0)
		return -1;
	if (!t.note[0]) {
		cJSON_AddNullToObject(obj, "trace");
		return 0;
	}
	o = cJSON_AddObjectToObject(obj, "trace");
	api_json_str(o, "note", t.note, tmp);
	cJSON_AddBoolToObject(o, "on", t.on);
	if (!t.on)
		return 0;
	api_json_i64(o, "failures", t.t.failures);
	api_json_num(o, "failures_per_hour", t.per_hour);
	bc = cJSON_AddObjectToObject(o, "failures_by_class");
	for (int c = 0; c < QUERY_TRACE_CLASSES; c++)
		api_json_i64(bc, cls[c], t.by_class[c]);
	bo = cJSON_AddArrayToObject(o, "failures_by_order");
	for (int k = 0; k < QUERY_TRACE_ORDERS; k++) {
		cJSON *x;
		if (!t.by_order[k])
			continue;
		x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "order", k);
		for (int c = 0; c < QUERY_TRACE_CLASSES; c++)
			api_json_i64(x, cls[c], t.t.by_oc[k][c]);
		cJSON_AddItemToArray(bo, x);
	}
	api_json_i64(o, "kmsg_failures", t.t.kmsg_failures);
	api_json_i64(o, "kmsg_failures_in_trace", t.t.kmsg_in_trace);
	api_json_i64(o, "fallbacks", t.t.extfrag);
	api_json_i64(o, "fragmenting", t.t.fragmenting);
	api_json_num(o, "fragmenting_per_hour", t.fragmenting_per_hour);
	if (!t.trend_ok) {
		cJSON_AddNullToObject(o, "fragmenting_trend");
		return 0;
	}
	tr = cJSON_AddObjectToObject(o, "fragmenting_trend");
	api_json_i64(tr, "bucket_ms", t.trend_tier);
	api_json_i64(tr, "buckets", (int64_t)t.fit.n);
	api_json_num(tr, "slope_per_hour", t.slope_h);
	{
		cJSON *ci = cJSON_AddArrayToObject(tr, "ci95_per_hour");
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(t.lo_h));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(t.hi_h));
	}
	cJSON_AddBoolToObject(tr, "significant", t.significant);
	return 0;
}

/* The 2014 test of the run (report/gfp.h) as the run's "gfp" object; 0 or -1. */
static int gfp_json(struct web_req *r, int64_t run_id, cJSON *obj)
{
	struct report_gfp g;
	cJSON *o, *x, *y;

	if (report_gfp(r->q, run_id, -1, -1, &g) < 0)
		return -1;
	o = cJSON_AddObjectToObject(obj, "gfp");
	if (g.mode[0])
		cJSON_AddStringToObject(o, "mode", g.mode);
	else
		cJSON_AddNullToObject(o, "mode");
	x = cJSON_AddObjectToObject(o, "capacity_probes");
	for (int m = REPORT_GFP_NONE; m <= REPORT_GFP_NOWAIT; m++)
		cJSON_AddNumberToObject(x, report_gfp_mode_name(m), (double)g.probes_by_mode[m]);
	x = cJSON_AddObjectToObject(o, "kernel_vs_atomic");
	cJSON_AddStringToObject(x, "verdict", g.line.verdict);
	cJSON_AddStringToObject(x, "word", g.line.word);
	cJSON_AddNumberToObject(x, "n_kernel", g.line.na);
	cJSON_AddNumberToObject(x, "n_atomic", g.line.nb);
	cJSON_AddNumberToObject(x, "censored_kernel", (double)g.censored_by_mode[REPORT_GFP_KERNEL]);
	cJSON_AddNumberToObject(x, "censored_atomic", (double)g.censored_by_mode[REPORT_GFP_ATOMIC]);
	if (g.line.ok) {
		api_json_num(x, "median_kernel", g.line.c.a);
		api_json_num(x, "median_atomic", g.line.c.b);
		api_json_num(x, "hl_shift", g.line.c.est);
		y = cJSON_AddArrayToObject(x, "ci95");
		cJSON_AddItemToArray(y, isfinite(g.line.c.lo) ? cJSON_CreateNumber(g.line.c.lo) : cJSON_CreateNull());
		cJSON_AddItemToArray(y, isfinite(g.line.c.hi) ? cJSON_CreateNumber(g.line.c.hi) : cJSON_CreateNull());
		api_json_num(x, "p", g.line.c.p >= 0 ? g.line.c.p : NAN);
	}
	cJSON_AddNumberToObject(x, "pairs", (double)g.ab.npairs);
	api_json_num(x, "gap_mean", g.ab.npairs ? g.ab.gap_mean : NAN);
	api_json_num(x, "gap_trend_per_hour", g.ab.have_trend ? g.gap_h : NAN);
	y = cJSON_AddArrayToObject(x, "gap_ci95_per_hour");
	cJSON_AddItemToArray(y, g.ab.have_trend ? cJSON_CreateNumber(g.gap_lo_h) : cJSON_CreateNull());
	cJSON_AddItemToArray(y, g.ab.have_trend ? cJSON_CreateNumber(g.gap_hi_h) : cJSON_CreateNull());
	x = cJSON_AddObjectToObject(o, "gfp_failed");
	cJSON_AddNumberToObject(x, "churn", (double)g.churn_gfp_failed);
	cJSON_AddNumberToObject(x, "probes_ended", (double)g.probes_gfp_failed);
	x = cJSON_AddObjectToObject(o, "model_checks");
	cJSON_AddNumberToObject(x, "checks", (double)g.checks);
	cJSON_AddNumberToObject(x, "agreed", (double)g.agreed);
	api_json_num(x, "accuracy", g.checks ? g.accuracy : NAN);
	y = cJSON_AddArrayToObject(x, "cells");
	for (int i = 0; i < g.ncells; i++) {
		const struct report_gfp_cell *c = &g.cell[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "order", c->order);
		cJSON_AddStringToObject(e, "mode", report_gfp_mode_name(c->mode));
		cJSON_AddNumberToObject(e, "predicted_ok_actual_ok", (double)c->c.n[1][1]);
		cJSON_AddNumberToObject(e, "predicted_ok_actual_refused", (double)c->c.n[1][0]);
		cJSON_AddNumberToObject(e, "predicted_refused_actual_ok", (double)c->c.n[0][1]);
		cJSON_AddNumberToObject(e, "predicted_refused_actual_refused", (double)c->c.n[0][0]);
		api_json_num(e, "accuracy", c->accuracy);
		api_json_i64(e, "min_margin_wrong", c->min_margin_wrong);
		api_json_i64(e, "max_margin_wrong", c->max_margin_wrong);
		cJSON_AddItemToArray(y, e);
	}
	report_gfp_free(&g);
	return 0;
}

int api_run(struct web_req *r)
{
	struct strbuf tmp;
	struct one_run o = { r, r->db, NULL, 0, &tmp };
	struct buddyinfo *b = NULL;
	int64_t ts;
	int got;

	sb_init(&tmp, WEB_BODY_MAX);
	if ((o.newest = page_newest(r, r->db, r->id)) < 0)
		goto fail;
	if ((got = report_read_run(r->q, r->id, one_run_cb, &o)) < 0)
		goto fail;
	sb_free(&tmp);
	if (!got)
		return web_error(r, 404, "no such run");
	if (!(b = calloc(1, sizeof *b)) || (got = report_read_buddy_latest(r->q, r->id, b, &ts)) < 0)
		goto fail;
	if (got) {
		cJSON *lb = cJSON_AddObjectToObject(o.obj, "latest_buddyinfo"), *zones;
		api_json_i64(lb, "ts_ms", ts);
		api_json_time(lb, "ts", ts);
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
	if (headroom_json(r, r->id, o.obj) < 0 || fragment_json(r, r->id, o.obj) < 0 ||
	    gfp_json(r, r->id, o.obj) < 0 || causes_json(r, r->id, o.obj) < 0)
		goto fail_obj;
	sb_init(&tmp, WEB_BODY_MAX);
	got = trace_json(r, r->id, o.obj, &tmp);
	sb_free(&tmp);
	if (got < 0)
		goto fail_obj;
	return api_send_json(r, o.obj);
fail_obj:
	cJSON_Delete(o.obj);
	return -1;
fail:
	sb_free(&tmp);
	free(b);
	cJSON_Delete(o.obj);
	return -1;
}
