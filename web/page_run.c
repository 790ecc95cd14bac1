/*
 * page_run: "/runs/{id}", the full report of one run, in the order of
 * issue 5's list.  Each section is one function in the sections[] table
 * (section.h); a section whose table is missing (a database from an older
 * fpusoakd) says so.  The same code renders the saved report (fpusoakd
 * report): r->offline drops the window form and the links.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/fmt.h"
#include "report/gate.h"
#include "report/run.h"
#include "web/page.h"
#include "web/section.h"

static const struct section {
	const char *title;
	const char *needs;          /* the table the section reads; NULL when it needs only the base schema */
	section_fn fn;
} sections[] = {
	{ "1. Free memory by order", NULL, sec_free },
	{ "2. Headroom", NULL, sec_headroom },
	{ "3. Unusable free space index", NULL, sec_unusable },
	{ "4. Churn", "churn_info", sec_churn },
	{ "5. Probes", "probes", sec_probes },
	{ "6. Allocation failures", "kmsg_events", sec_failures },
	{ "7. Compaction, reclaim and memory", NULL, sec_counters },
	{ "8. pagetypeinfo and slabinfo", "slab", sec_slow },
	{ "9. Atomic-allocation risk", "atomic_risk", sec_atomic },
	{ "10. The kernel's trace: every failed allocation, every fallback", "trace_rollup", sec_trace },
	{ "11. The 2014 test: GFP_KERNEL vs GFP_ATOMIC", "model_check", sec_gfp },
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
		  p->to >= 0 ? fmt_time_input(p->to, b, sizeof b) : "");
	for (size_t i = 0; i < sizeof presets / sizeof presets[0] && last >= 0; i++)
		if (last - presets[i].ms > p->ri.started_ms)
			link(r, id, last - presets[i].ms, last, presets[i].text);
	link(r, id, -1, -1, "whole run");
	sb_printf(&r->body, "| data: <a href=\"/api/v1/runs/%s\">JSON</a> "
		  "<a href=\"/api/v1/runs/%s/buddyinfo.csv", id, id);
	if (p->from >= 0 && p->to >= 0)
		sb_printf(&r->body, "?from=%" PRId64 "&amp;to=%" PRId64, p->from, p->to);
	sb_puts(&r->body, "\">buddyinfo CSV</a></p>\n");
}

static int env_cb(void *arg, const struct query_run *run)
{
	struct run_page *p = arg;
	char title[64], ref[RUNREF_LEN];

	snprintf(title, sizeof title, "Run %s", page_ref(p->r, p->r->db, run->run_id, ref, sizeof ref));
	page_begin(p->r, title);
	sb_puts(&p->r->body, "<p class=\"status\">");
	page_text(p->r, run->label ? run->label : "(no label)");
	sb_printf(&p->r->body, " \xe2\x80\x94 %s</p>\n", report_run_state(run, p->newest));
	/* What the run ran under, in its header: an unconfined run's probes are capped, not capacities. */
	{
		char conf[REPORT_GATE_TEXT + 64];
		report_run_confinement(run, conf, sizeof conf);
		sb_printf(&p->r->body, "<p class=\"%s\">", run->cgroup && strcmp(run->cgroup, "none") == 0 ? "unconfined"
													    : "confinement");
		if (!(run->cgroup && strcmp(run->cgroup, "none") == 0))
			sb_puts(&p->r->body, "confinement: ");
		page_text(p->r, conf);
		sb_puts(&p->r->body, "</p>\n");
	}
	page_env_table(p->r, run, 1);
	return 0;
}

int page_run(struct web_req *r)
{
	struct run_page p = { .r = r };
	char a[FMT_TIME_LEN], b[FMT_TIME_LEN];
	int got;

	if ((got = query_run(r->q, r->id, page_run_info_cb, &p.ri)) < 0)
		return -1;
	if (!got)
		return web_error(r, 404, "no such run");
	if ((p.newest = page_newest(r, r->db, r->id)) < 0)
		return -1;
	if (page_window(r, &p.ri, 0, &p.from, &p.to) < 0)
		return -1;
	if (query_run(r->q, r->id, env_cb, &p) < 0)
		return -1;
	sb_puts(&r->body, "<h2>Window</h2>\n");
	if (!r->offline)
		selector(&p);
	if (p.from >= 0 && p.to >= 0)
		sb_printf(&r->body, "<p>Showing %s to %s.</p>\n", fmt_time_human(p.from, a, sizeof a),
			  fmt_time_human(p.to, b, sizeof b));
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		sb_printf(&r->body, "<h2>%s</h2>\n", sections[i].title);
		if (section(&p, &sections[i]) < 0)
			return -1;
	}
	page_end(r);
	return 0;
}
