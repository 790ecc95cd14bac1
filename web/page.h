/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page: the HTML pages (routes in server.h) and the scaffolding they share
 * (page.c): head and navigation, escaped text, the environment and buddyinfo
 * tables, a run's window.  Server-rendered, no scripts, no external assets;
 * with r->offline the same code writes a saved report (web/offline.h).
 */
#ifndef FPUSOAK_PAGE_H
#define FPUSOAK_PAGE_H

#include <stdint.h>

#include "report/read.h"
#include "web/request.h"

/* "/": the current (newest) run at a glance. */
int page_index(struct web_req *r);

/* "/runs": every run, newest first. */
int page_runs(struct web_req *r);

/* "/runs/{id}": the full report of one run (the sections of section.h). */
int page_run(struct web_req *r);

/* "/compare?a=&b=": two runs side by side. */
int page_compare(struct web_req *r);

/* The compare page's body for run a of database da and run b of database db (indexes in r->dbs); used by the server and offline. */
int page_compare_runs(struct web_req *r, int da, int64_t a, int db, int64_t b);

/* Doctype, head (inline CSS, no external assets), navigation, <h1>title</h1>; sets status 200 and the HTML type. */
void page_begin(struct web_req *r, const char *title);

/* Footer and closing tags. */
void page_end(struct web_req *r);

/* Escaped text; NULL prints an en dash. */
void page_text(struct web_req *r, const char *s);

/* A failure row's first cells: time, the task's comm (escaped: any bytes a local user chose), pid and
 * order (empty when < 0), leaving the next cell open ("<tr><td>...</td><td>"). */
void page_failure_cells(struct web_req *r, int64_t ts_ms, const char *comm, size_t comm_len, int64_t pid,
			int64_t order);

/* How the pages write run id of database db: "ID" with one database open, "NAME:ID" with several; returns out. */
const char *page_ref(const struct web_req *r, int db, int64_t id, char *out, size_t outlen);

/* The newest run over every open database (the latest start): 1 with *db and *id, 0 if there is none, -1. */
int page_latest(struct web_req *r, int *db, int64_t *id);

/* Whether run id may be shown "running": its database's newest run while a daemon writes that database; 1, 0 or -1. */
int page_newest(struct web_req *r, int db, int64_t id);

/* The run's state in one line: running/stopped/crash, label, kernel, hypervisor, host, duration and samples. */
void page_state_line(struct web_req *r, const struct query_run *run, int newest);

/* The headline cards of run_id (report/headline.h; web/headline.c) in r->q; 0 or -1. */
int page_headline(struct web_req *r, int64_t run_id);

/* The run picker of run id in database db: links to compare it with the previous run of the same label and a
 * form to compare it with any other run (nothing offline); 0 or -1. */
int page_compare_links(struct web_req *r, int db, int64_t id, const char *label, int64_t started_ms);

/* A link to path (an href on a live server; plain text offline): "<a href=...>text</a>" or "text". */
void page_link(struct web_req *r, const char *href, const char *text);

/* The run's environment as a two-column table; full adds cmdline, XSAVE detail and config. */
void page_env_table(struct web_req *r, const struct query_run *run, int full);

/* The latest buddyinfo snapshot of a run as a table (free blocks per order, free MB per zone). */
int page_buddy_table(struct web_req *r, int64_t run_id, int64_t page_size);

/* What a page keeps of a run after the store's callback returned. */
struct page_run_info {
	int found;
	int64_t run_id, started_ms, first_sample_ms, last_sample_ms, page_size, nsamples;
};

/* report_read_run() callback: arg is a struct page_run_info; copies the numbers. */
int page_run_info_cb(void *arg, const struct query_run *run);

/* The page's time window: from/to parameters, else the run's samples (from = to - default_span_ms when that is > 0); 0, or -1 after a 400 (from > to). */
int page_window(struct web_req *r, const struct page_run_info *ri, int64_t default_span_ms, int64_t *from, int64_t *to);

#endif
