/*
 * page_run: "/runs/{id}", the full report of one run, in the order of
 * issue 5's list.  Sections whose data this build does not collect yet say
 * so; each names the table or view it will read, so adding one is: write
 * its render function and put it in the sections[] table.
 */
#include <inttypes.h>
#include <stdio.h>

#include "web/escape.h"
#include "web/fmt.h"
#include "web/handler.h"

struct run_page {
	struct web_req *r;
	struct page_run_info ri;
	int newest;
	int64_t from, to;
};

typedef int (*section_fn)(struct run_page *p);

static int sec_free(struct run_page *p)
{
	return chart_buddy(p->r, p->ri.run_id, p->from, p->to, p->ri.page_size, CHART_STACKED);
}

static int sec_unusable(struct run_page *p)
{
	return chart_buddy(p->r, p->ri.run_id, p->from, p->to, p->ri.page_size, CHART_HEATMAP);
}

static int sec_counters(struct run_page *p)
{
	static const char *const compaction[] = { "compact_stall", "compact_fail", "compact_success",
						  "compact_migrate_scanned", "compact_free_scanned" };
	static const char *const reclaim[] = { "allocstall_dma", "allocstall_dma32", "allocstall_normal",
					       "allocstall_movable", "oom_kill" };
	static const char *const mem[] = { "MemFree", "MemAvailable" };
	static const char *const kern[] = { "Slab", "SUnreclaim", "KernelStack", "PageTables" };
	int64_t id = p->ri.run_id;

	if (chart_vmstat_rates(p->r, id, p->from, p->to, compaction, 3, "Compaction",
			       "Events per second. compact_stall counts allocations that waited for direct "
			       "compaction; compact_fail rising with it means compaction is not producing the "
			       "blocks asked for.") < 0 ||
	    chart_vmstat_rates(p->r, id, p->from, p->to, compaction + 3, 2, "Compaction scanning",
			       "Pages scanned per second by the compaction migrate and free scanners: the work "
			       "compaction does to find movable pages and free targets.") < 0 ||
	    chart_vmstat_rates(p->r, id, p->from, p->to, reclaim, 5, "Direct reclaim stalls and OOM kills",
			       "Allocations per second that stalled in direct reclaim, by zone, and OOM kills: "
			       "any sustained value means memory pressure, not just fragmentation.") < 0 ||
	    chart_meminfo(p->r, id, p->from, p->to, mem, 2, "Free and available memory",
			  "A steady fall is a leak or growing cache; a flat total with thinning high orders above "
			  "is fragmentation.") < 0 ||
	    chart_meminfo(p->r, id, p->from, p->to, kern, 4, "Kernel memory",
			  "Slab (task_struct lives there), its unreclaimable part, kernel stacks and page tables: "
			  "process churn shows here first.") < 0)
		return -1;
	return 0;
}

#define FAILURES_SHOWN 200   /* newest failures listed; the count says how many there were */

static int failure_row(void *arg, const struct query_alloc_failure *f)
{
	struct web_req *r = arg;
	char t[FMT_TIME_LEN];

	sb_printf(&r->body, "<tr><td>%s</td><td>", fmt_time_human(f->ts_ms, t, sizeof t));
	if (f->comm)
		escape_html(&r->body, f->comm, f->comm_len);   /* COMM: any bytes a local user chose */
	sb_puts(&r->body, "</td><td class=\"n\">");
	if (f->pid >= 0)
		sb_printf(&r->body, "%" PRId64, f->pid);
	sb_puts(&r->body, "</td><td class=\"n\">");
	if (f->order >= 0)
		sb_printf(&r->body, "%" PRId64, f->order);
	sb_puts(&r->body, "</td><td>");
	page_text(r, f->gfp_flags);
	sb_puts(&r->body, "</td><td><code>");
	page_text(r, f->gfp_mask);
	sb_puts(&r->body, "</code></td></tr>\n");
	return r->body.err ? -1 : 0;
}

static int sec_failures(struct run_page *p)
{
	struct web_req *r = p->r;
	int64_t total;
	int has = query_has_table(r->q, "kmsg_events");

	if (has <= 0) {
		if (has == 0)
			sb_puts(&r->body, "<p class=\"pending\">Not collected yet: this database has no kernel-log events.</p>\n");
		return has;
	}
	sb_puts(&r->body, "<table class=\"failures\">\n<tr><th>time</th><th>comm</th><th>pid</th><th>order</th>"
		"<th>GFP flags</th><th>GFP mask</th></tr>\n");
	if (query_alloc_failures(r->q, p->ri.run_id, p->from, p->to, FAILURES_SHOWN, &total, failure_row, r) < 0)
		return -1;
	sb_puts(&r->body, "</table>\n");
	sb_printf(&r->body, "<p>%" PRId64 " allocation failure%s in this window%s. Each is a <code>warn_alloc</code> "
		  "line: an allocation of 2^order pages the kernel could not satisfy; failures at low orders with "
		  "plenty of free memory are the fragmentation signature.</p>\n", total, total == 1 ? "" : "s",
		  total > FAILURES_SHOWN ? "; the newest 200 are listed" : "");
	return 0;
}

static const struct section {
	const char *title;
	const char *needs;          /* table or view it reads when not built yet, NULL when built */
	const char *what;           /* what is missing, for the placeholder */
	section_fn fn;
} sections[] = {
	{ "1. Free memory by order", NULL, NULL, sec_free },
	{ "2. Headroom", "v_headroom", "headroom for the task_struct slab order and the pageblock order", NULL },
	{ "3. Unusable free space index", NULL, NULL, sec_unusable },
	{ "4. Churn", "v_churn", "worker population, spawns, spawn failures, deaths and OOM kills", NULL },
	{ "5. Probes", "v_probes", "capacity-probe and FPU-cost probe results", NULL },
	{ "6. Allocation failures", NULL, NULL, sec_failures },
	{ "7. Compaction, reclaim and memory", NULL, NULL, sec_counters },
	{ "8. pagetypeinfo and slabinfo", "v_slabinfo", "pagetypeinfo and slabinfo snapshots", NULL },
	{ "9. Atomic-allocation risk", "v_atomic_risk", "the atomic-allocation risk per zone and order", NULL },
};

static int pending(struct run_page *p, const struct section *s)
{
	int has = query_has_table(p->r->q, s->needs);

	if (has < 0)
		return -1;
	sb_puts(&p->r->body, "<p class=\"pending\">");
	if (has)
		sb_printf(&p->r->body, "Data is in <code>%s</code>; this report does not chart it yet.", s->needs);
	else
		sb_printf(&p->r->body, "Not collected yet: this build of fpusoakd does not record %s.", s->what);
	sb_puts(&p->r->body, "</p>\n");
	return 0;
}

static void link(struct web_req *r, int64_t id, int64_t from, int64_t to, const char *text)
{
	if (from < 0)
		sb_printf(&r->body, "<a href=\"/runs/%" PRId64 "\">%s</a> ", id, text);
	else
		sb_printf(&r->body, "<a href=\"/runs/%" PRId64 "?from=%" PRId64 "&amp;to=%" PRId64 "\">%s</a> ",
			  id, from, to, text);
}

/* The window selector: presets ending at the last sample, and a form (UTC) that works without JS. */
static void selector(struct run_page *p)
{
	static const struct { int64_t ms; const char *text; } presets[] = {
		{ 15 * 60000, "last 15 min" }, { 3600000, "last hour" }, { 6 * 3600000, "last 6 h" },
		{ 24 * 3600000, "last 24 h" }, { 7 * 86400000LL, "last 7 days" },
	};
	struct web_req *r = p->r;
	int64_t last = p->ri.last_sample_ms, id = p->ri.run_id;
	char a[FMT_TIME_LEN], b[FMT_TIME_LEN];

	sb_printf(&r->body, "<form class=\"win\" method=\"get\" action=\"/runs/%" PRId64 "\">window (UTC): from "
		  "<input type=\"datetime-local\" name=\"from\" step=\"1\" value=\"%s\"/> to "
		  "<input type=\"datetime-local\" name=\"to\" step=\"1\" value=\"%s\"/>"
		  "<input type=\"submit\" value=\"show\"/></form>\n<p>",
		  id, p->from >= 0 ? fmt_time_input(p->from, a, sizeof a) : "",
		  p->to >= 0 ? fmt_time_input(p->to, b, sizeof b) : "");
	for (size_t i = 0; i < sizeof presets / sizeof presets[0] && last >= 0; i++)
		if (last - presets[i].ms > p->ri.started_ms)
			link(r, id, last - presets[i].ms, last, presets[i].text);
	link(r, id, -1, -1, "whole run");
	sb_printf(&r->body, "| data: <a href=\"/api/v1/runs/%" PRId64 "\">JSON</a> "
		  "<a href=\"/api/v1/runs/%" PRId64 "/buddyinfo.csv", id, id);
	if (p->from >= 0 && p->to >= 0)
		sb_printf(&r->body, "?from=%" PRId64 "&amp;to=%" PRId64, p->from, p->to);
	sb_puts(&r->body, "\">buddyinfo CSV</a></p>\n");
}

static int env_cb(void *arg, const struct query_run *run)
{
	struct run_page *p = arg;
	char title[64];

	snprintf(title, sizeof title, "Run %" PRId64, run->run_id);
	page_begin(p->r, title);
	sb_puts(&p->r->body, "<p class=\"status\">");
	page_text(p->r, run->label ? run->label : "(no label)");
	sb_printf(&p->r->body, " \xe2\x80\x94 %s</p>\n", page_run_state(run, p->newest));
	page_env_table(p->r, run, 1);
	return 0;
}

int page_run(struct web_req *r)
{
	struct run_page p = { .r = r };
	int64_t latest;
	char a[FMT_TIME_LEN], b[FMT_TIME_LEN];
	int got;

	if ((got = query_run(r->q, r->id, page_run_info_cb, &p.ri)) < 0)
		return -1;
	if (!got)
		return web_error(r, 404, "no such run");
	if (query_latest_run(r->q, &latest) < 0)
		return -1;
	p.newest = latest == r->id;
	if (page_window(r, &p.ri, 0, &p.from, &p.to) < 0)
		return -1;
	if (query_run(r->q, r->id, env_cb, &p) < 0)
		return -1;
	sb_puts(&r->body, "<h2>Window</h2>\n");
	selector(&p);
	if (p.from >= 0 && p.to >= 0)
		sb_printf(&r->body, "<p>Showing %s to %s.</p>\n", fmt_time_human(p.from, a, sizeof a),
			  fmt_time_human(p.to, b, sizeof b));
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		sb_printf(&r->body, "<h2>%s</h2>\n", sections[i].title);
		if ((sections[i].fn ? sections[i].fn(&p) : pending(&p, &sections[i])) < 0)
			return -1;
	}
	page_end(r);
	return 0;
}
