/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page_run: "/runs/{id}", the report of one run, answer first: its state
 * in one line, the headline figures (web/headline.c), the run picker, a
 * table of contents; then, below, the environment and configuration
 * folded away, the window selector and the detail sections, each one
 * function in the sections[] table (section.h) with its anchor.  A section
 * whose table is missing (a database from an older fpusoakd) says so in one
 * line.  The same code renders the saved report (fpusoakd report):
 * r->offline drops the window form, the picker and the links.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/memory.h"
#include "report/run.h"
#include "web/page.h"
#include "web/section.h"

static const struct section {
	const char *id, *title;
	const char *needs;          /* the table the section reads; NULL when it needs only the base schema */
	section_fn fn;
} sections[] = {
	{ "headroom", "Headroom at the orders of interest", NULL, sec_headroom },
	{ "atomic", "Atomic-allocation risk", "atomic_risk", sec_atomic },
	{ "probes", "Capacity and FPU-cost probes", "probes", sec_probes },
	{ "gfp", "The 2014 test: GFP_KERNEL vs GFP_ATOMIC", "model_check", sec_gfp },
	{ "failures", "Kernel allocation failures", "kmsg_events", sec_failures },
	{ "trace", "The kernel's trace: every failed allocation, every fallback", "trace_rollup", sec_trace },
	{ "churn", "Churn", "churn_info", sec_churn },
	{ "memory", "Free memory by zone", NULL, sec_free },
	{ "fragmentation", "Unusable free space index", NULL, sec_unusable },
	{ "counters", "Compaction, reclaim and memory counters", NULL, sec_counters },
	{ "slow", "pagetypeinfo and slabinfo", "slab", sec_slow },
};

/* The section, or a note when this database predates its table. */
static int section(struct run_page *p, const struct section *s)
{
	int has = s->needs ? query_has_table(p->r->q, s->needs) : 1;

	if (has < 0)
		return -1;
	if (!has) {
		sb_printf(&p->r->body, "<p class=\"pending\">Not in this database: it was written by an fpusoakd "
			  "without the <code>%s</code> table.</p>\n", s->needs);
		return 0;
	}
	return s->fn(p);
}

int section_free_zones(struct run_page *p)
{
	struct report_orders o;

	if (p->fz)
		return 0;
	if (report_orders(p->r->q, p->ri.run_id, &o) < 0 ||
	    (p->nfz = report_free_zones(p->r->q, p->ri.run_id, p->from, p->to, &o, p->ri.page_size, &p->fz)) < 0) {
		p->nfz = 0;
		return -1;
	}
	return 0;
}

const char *section_zone_fold(const struct run_page *p, int node, const char *zone)
{
	for (int i = 0; i < p->nfz; i++)
		if (p->fz[i].node == node && strcmp(p->fz[i].zone, zone) == 0)
			return p->fz[i].fold;
	return NULL;
}

static void link(struct web_req *r, const char *ref, int64_t from, int64_t to, const char *text)
{
	if (from < 0)
		sb_printf(&r->body, "<a href=\"/runs/%s\">%s</a> ", ref, text);
	else
		sb_printf(&r->body, "<a href=\"/runs/%s?from=%" PRId64 "&amp;to=%" PRId64 "\">%s</a> ",
			  ref, from, to, text);
}

/* The window selector: presets ending at the last sample, and a form (UTC) that works without JS. */
static void selector(struct run_page *p)
{
	static const struct { int64_t ms; const char *text; } presets[] = {
		{ 15 * 60000, "last 15 min" }, { 3600000, "last hour" }, { 6 * 3600000, "last 6 h" },
		{ 24 * 3600000, "last 24 h" }, { 7 * 86400000LL, "last 7 days" },
	};
	struct web_req *r = p->r;
	int64_t last = p->ri.last_sample_ms;
	char a[FMT_TIME_LEN], b[FMT_TIME_LEN], id[RUNREF_LEN];

	page_ref(r, r->db, p->ri.run_id, id, sizeof id);
	sb_printf(&r->body, "<form class=\"win\" method=\"get\" action=\"/runs/%s\">window (UTC): from "
		  "<input type=\"datetime-local\" name=\"from\" step=\"1\" value=\"%s\"/> to "
		  "<input type=\"datetime-local\" name=\"to\" step=\"1\" value=\"%s\"/>"
		  "<input type=\"submit\" value=\"show\"/></form>\n<p>",
		  id, p->from >= 0 ? fmt_time_input(p->from, a, sizeof a) : "",
		  /* The end rounded up to its second: the form keeps the window's last sample in it. */
		  p->to >= 0 ? fmt_time_input((p->to + 999) / 1000 * 1000, b, sizeof b) : "");
	for (size_t i = 0; i < sizeof presets / sizeof presets[0] && last >= 0; i++)
		if (last - presets[i].ms > p->ri.started_ms)
			link(r, id, last - presets[i].ms, last, presets[i].text);
	link(r, id, -1, -1, "whole run");
	sb_printf(&r->body, "| data: <a href=\"/api/v1/runs/%s\">JSON</a> <a href=\"/api/v1/runs/%s/buddyinfo.csv", id, id);
	if (p->from >= 0 && p->to >= 0)
		sb_printf(&r->body, "?from=%" PRId64 "&amp;to=%" PRId64, p->from, p->to);
	sb_puts(&r->body, "\">buddyinfo CSV</a></p>\n");
}

/* The run's facts a page keeps after the store's callback. */
struct head_ctx {
	struct run_page *p;
	char label[256];
	int has_label;
	int64_t started_ms;
};

static int head_cb(void *arg, const struct query_run *run)
{
	struct head_ctx *h = arg;
	struct run_page *p = h->p;
	char title[64], ref[RUNREF_LEN];

	snprintf(title, sizeof title, "Run %s", page_ref(p->r, p->r->db, run->run_id, ref, sizeof ref));
	page_begin(p->r, title);
	page_state_line(p->r, run, p->newest);
	h->has_label = run->label != NULL;
	snprintf(h->label, sizeof h->label, "%s", run->label ? run->label : "");
	h->started_ms = run->started_ms;
	return 0;
}

static int env_cb(void *arg, const struct query_run *run)
{
	struct run_page *p = arg;
	char cpu[160];

	sb_puts(&p->r->body, "<details id=\"environment\"><summary>Environment and configuration: ");
	page_text(p->r, run->hostname);
	sb_puts(&p->r->body, ", ");
	page_text(p->r, report_cpu_model(run, cpu, sizeof cpu));
	sb_puts(&p->r->body, "</summary>\n");
	page_env_table(p->r, run, 1);
	sb_puts(&p->r->body, "</details>\n");
	return 0;
}

static void toc(struct web_req *r)
{
	sb_puts(&r->body, "<nav class=\"toc\">Detail: ");
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
		sb_printf(&r->body, "<a href=\"#%s\">%s</a> ", sections[i].id, sections[i].title);
	sb_puts(&r->body, "<a href=\"#environment\">Environment</a></nav>\n");
}

int page_run(struct web_req *r)
{
	struct run_page p = { .r = r };
	struct head_ctx h = { .p = &p };
	char a[FMT_TIME_LEN], b[FMT_TIME_LEN];
	int got, ret = -1;

	if ((got = query_run(r->q, r->id, page_run_info_cb, &p.ri)) < 0)
		return -1;
	if (!got)
		return web_error(r, 404, "no such run");
	if ((p.newest = page_newest(r, r->db, r->id)) < 0)
		return -1;
	if (page_window(r, &p.ri, 0, &p.from, &p.to) < 0)
		return -1;
	if (query_run(r->q, r->id, head_cb, &h) < 0 || page_headline(r, r->id) < 0 ||
	    page_compare_links(r, r->db, r->id, h.has_label ? h.label : NULL, h.started_ms) < 0)
		return -1;
	toc(r);
	if (query_run(r->q, r->id, env_cb, &p) < 0)
		return -1;
	sb_puts(&r->body, "<h2 id=\"window\">Detail</h2>\n");
	if (!r->offline)
		selector(&p);
	if (p.from >= 0 && p.to >= 0)
		sb_printf(&r->body, "<p>The sections below show %s to %s.</p>\n", fmt_time_human(p.from, a, sizeof a),
			  fmt_time_human(p.to, b, sizeof b));
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		sb_printf(&r->body, "<section id=\"%s\"><h2>%zu. %s</h2>\n", sections[i].id, i + 1, sections[i].title);
		if (section(&p, &sections[i]) < 0)
			goto out;
		sb_puts(&r->body, "</section>\n");
	}
	page_end(r);
	ret = 0;
out:
	free(p.fz);
	return ret;
}
