/*
 * handler: what server.c hands a route's handler, and the handlers.
 *
 * Internal to web/.  A handler reads r->url and r->q, writes the body into
 * r->body (capped at WEB_BODY_MAX) and sets r->status and r->ctype; it
 * returns 0, or -1 after web_error() or on a store error (server.c then
 * answers 500 unless a status was set).  Handlers run on request threads:
 * they touch the DB only through r->q and the shared state only through
 * the web_* accessors below.
 */
#ifndef FPUSOAK_HANDLER_H
#define FPUSOAK_HANDLER_H

#include <stdint.h>

#include "common/strbuf.h"
#include "store/query.h"
#include "web/url.h"

struct web_server;

struct web_req {
	struct web_server *ws;
	struct query *q;            /* this request's store handle (NULL for routes without the DB) */
	const struct url *url;      /* decoded path and parameters */
	int64_t id;                 /* the {id} of the path, 0 if none */
	enum url_format fmt;        /* resolved: HTML, JSON or CSV */
	int api;                    /* under /api/: errors as JSON */
	int offline;                /* rendering a saved report (fpusoakd report): no links to a server */
	int status;                 /* response status (0 until set) */
	const char *ctype;          /* response Content-Type */
	char filename[64];          /* Content-Disposition: attachment for CSV, "" if none */
	struct strbuf body;
};

typedef int (*web_handler)(struct web_req *r);

/* Replace the body with an error page (HTML, or JSON for r->api) and set status; returns -1 for "return web_error(...)". */
int web_error(struct web_req *r, int status, const char *msg);

/* Whether the loop is healthy now (health flag set and not stale). */
int web_healthy(struct web_server *ws);

/* Copy the status line into out (NUL-terminated, "" if none). */
void web_status_copy(struct web_server *ws, char *out, size_t outlen);

/* The build version given to web_open. */
const char *web_version(const struct web_server *ws);

/* HTML pages (page_*.c). */
int page_index(struct web_req *r);
int page_runs(struct web_req *r);
int page_run(struct web_req *r);
int page_compare(struct web_req *r);

/* JSON/CSV API (api.c). */
int api_status(struct web_req *r);
int api_runs(struct web_req *r);
int api_run(struct web_req *r);
int api_buddyinfo(struct web_req *r);
int api_meminfo(struct web_req *r);
int api_vmstat(struct web_req *r);
int api_failures(struct web_req *r);
int api_frag(struct web_req *r);
int api_churn(struct web_req *r);
int api_probes(struct web_req *r);
int api_compare(struct web_req *r);

#define API_DEFAULT_POINTS 1000

struct cJSON;

/* Add orders_of_interest and headroom_trends (web/report.h, whole run) to a run's JSON object; 0 or -1. */
int api_headroom_json(struct web_req *r, int64_t run_id, struct cJSON *obj);

/* A number into JSON (null for NaN/inf) or CSV (empty). */
void api_put_num(struct strbuf *sb, double v, int csv);

/* A JSON list built in rows (comma-separated objects) after the head already in r->body: append it and
 * "]}", free rows; 0.  api_drop_rows: the query failed: keep rows' error in r->body, free rows; -1. */
int api_close_rows(struct web_req *r, struct strbuf *rows);
int api_drop_rows(struct web_req *r, struct strbuf *rows);

/* The range of a series request from from/to/max_points: 0, or -1 after a 400/404 (no such run). */
int api_series_range(struct web_req *r, struct query_range *rg);

/* The opening of a series object: run_id, [name, unit,] from_ms, to_ms, bucket_ms, interval_ms, max_points, and a trailing comma. */
void api_series_head(struct web_req *r, const struct query_range *rg, const char *name, const char *unit);



/* ---- page helpers (page.c) ---- */

/* Doctype, head (inline CSS, no external assets), navigation, <h1>title</h1>; sets status 200 and the HTML type. */
void page_begin(struct web_req *r, const char *title);

/* Footer and closing tags. */
void page_end(struct web_req *r);

/* Escaped text; NULL prints an en dash. */
void page_text(struct web_req *r, const char *s);

/* The run's environment as a two-column table; full adds cmdline, XSAVE detail and config. */
void page_env_table(struct web_req *r, const struct query_run *run, int full);

/* The latest buddyinfo snapshot of a run as a table (free blocks per order, free MB per zone). */
int page_buddy_table(struct web_req *r, int64_t run_id, int64_t page_size);

/* What a page keeps of a run after the store's callback returned. */
struct page_run_info {
	int found;
	int64_t run_id, started_ms, first_sample_ms, last_sample_ms, page_size, nsamples;
};

/* query_run() callback: arg is a struct page_run_info; copies the numbers. */
int page_run_info_cb(void *arg, const struct query_run *run);

/* The page's time window: from/to parameters, else the run's samples (from = to - default_span_ms when that is > 0); 0, or -1 after a 400 (from > to). */
int page_window(struct web_req *r, const struct page_run_info *ri, int64_t default_span_ms, int64_t *from, int64_t *to);

/* "running", the end reason, or "unfinished" for a run that is not the newest and has no end. */
const char *page_run_state(const struct query_run *run, int newest);

/* How long the run lasted (or has lasted), in ms; -1 if unknown. */
int64_t page_run_duration(const struct query_run *run);

/* ---- charts from the store (chart.c); from/to are the page's window, -1 = the run's extent ---- */

#define CHART_STACKED 1   /* free memory by order, stacked, MB, one chart per zone */

struct report_trend;

/* Buddyinfo charts of a run; 0 or -1 (store error). */
int chart_buddy(struct web_req *r, int64_t run_id, int64_t from, int64_t to, int64_t page_size, int which);

/* The kernel's unusable free space index (v_frag / rollup unusable_max) as a heatmap per zone; 0 or -1. */
int chart_unusable(struct web_req *r, int64_t run_id, int64_t from, int64_t to);

/* Order-k headroom per zone on one chart, with the trends tr[0..ntr) drawn dashed; why names the order; 0 or -1. */
int chart_headroom(struct web_req *r, int64_t run_id, int64_t from, int64_t to, int order, const char *why,
		   const struct report_trend *tr, int ntr);

/* Meminfo fields (kB shown as MB) on one line chart; 0 or -1. */
int chart_meminfo(struct web_req *r, int64_t run_id, int64_t from, int64_t to, const char *const *names, int n,
		  const char *title, const char *caption);

/* vmstat counters as rates (events/s) on one line chart; 0 or -1. */
int chart_vmstat_rates(struct web_req *r, int64_t run_id, int64_t from, int64_t to, const char *const *names,
		       int n, const char *title, const char *caption);

/* ---- the run report's sections (page_run.c and sec_*.c) ---- */

struct run_page {
	struct web_req *r;
	struct page_run_info ri;
	int newest;
	int64_t from, to;           /* the window; -1 = open */
};

typedef int (*section_fn)(struct run_page *p);

int sec_headroom(struct run_page *p);   /* 2: headroom charts, trends, projected exhaustion */
int sec_churn(struct run_page *p);      /* 4: population, spawns, failures by errno, deaths by signal */
int sec_probes(struct run_page *p);     /* 5: capacity and FPU-cost probes with trend */
int chart_failures(struct run_page *p); /* 6: allocation failures on a timeline (the table is page_run.c's) */
int sec_slow(struct run_page *p);       /* 8: pagetypeinfo and slabinfo at the latest slow sample */
int sec_atomic(struct run_page *p);     /* 9: atomic-allocation risk per zone and order of interest */

/* A link to path (an href on a live server; plain text offline): "<a href=...>text</a>" or "text". */
void page_link(struct web_req *r, const char *href, const char *text);

/* The compare page's body for runs a and b (page_compare.c); used by the server and offline. */
int page_compare_runs(struct web_req *r, int64_t a, int64_t b);

#endif
