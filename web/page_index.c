/* page_index: "/", the current (newest) run at a glance. */
#include <inttypes.h>

#include "common/fmt.h"
#include "report/run.h"
#include "web/chart.h"
#include "web/page.h"
#include "web/server.h"

#define RECENT_MS (3 * 3600 * 1000)   /* "the last hours" shown on the front page */

static int env_cb(void *arg, const struct query_run *run)
{
	struct web_req *r = arg;
	char ref[RUNREF_LEN];

	sb_printf(&r->body, "<h2>Run %s: ", page_ref(r, r->db, run->run_id, ref, sizeof ref));
	page_text(r, run->label ? run->label : "(no label)");
	sb_printf(&r->body, " \xe2\x80\x94 %s</h2>\n", report_run_state(run, r->dbs.writing[r->db]));
	page_env_table(r, run, 0);
	return 0;
}

int page_index(struct web_req *r)
{
	static const char *const mem[] = { "MemFree", "MemAvailable" };
	static const char *const compaction[] = { "compact_stall", "compact_fail", "compact_success",
						  "allocstall_normal", "allocstall_movable", "oom_kill" };
	struct page_run_info ri = { 0 };
	char status[WEB_STATUS_MAX], t0[FMT_TIME_LEN], t1[FMT_TIME_LEN], ref[RUNREF_LEN];
	int64_t id, from, to;
	int got;

	if ((got = page_latest(r, &r->db, &id)) < 0)
		return -1;
	r->q = r->dbs.q[r->db];
	page_begin(r, "Current run");
	web_status_copy(r->ws, status, sizeof status);
	sb_printf(&r->body, "<p class=\"status\">%s: ", web_healthy(r->ws) ? "healthy" : "NOT HEALTHY");
	page_text(r, status[0] ? status : "no status yet");
	sb_puts(&r->body, "</p>\n");
	if (!got) {
		sb_puts(&r->body, "<p>No run recorded yet.</p>\n");
		page_end(r);
		return 0;
	}
	if (query_run(r->q, id, page_run_info_cb, &ri) < 0 || query_run(r->q, id, env_cb, r) < 0)
		return -1;
	sb_puts(&r->body, "<h2>Latest buddyinfo</h2>\n");
	if (page_buddy_table(r, id, ri.page_size) < 0)
		return -1;
	if (page_window(r, &ri, RECENT_MS, &from, &to) < 0)
		return -1;
	if (from >= 0 && to >= 0)
		sb_printf(&r->body, "<h2>Recent: %s to %s</h2>\n", fmt_time_human(from, t0, sizeof t0),
			  fmt_time_human(to, t1, sizeof t1));
	else
		sb_puts(&r->body, "<h2>Recent</h2>\n");
	page_ref(r, r->db, id, ref, sizeof ref);
	sb_printf(&r->body, "<p><a href=\"/runs/%s\">Full report of run %s</a></p>\n", ref, ref);
	if (chart_buddy(r, id, from, to, ri.page_size, CHART_STACKED) < 0 ||
	    chart_meminfo(r, id, from, to, mem, 2, "Free and available memory",
			  "MemFree is memory nobody uses; MemAvailable adds what the kernel can reclaim. A gap "
			  "between a healthy total here and thin high orders above is fragmentation, not shortage.") < 0 ||
	    chart_vmstat_rates(r, id, from, to, compaction, 6, "Compaction and reclaim",
			       "Events per second. compact_stall and allocstall_* mean an allocation had to wait for "
			       "compaction or reclaim; compact_fail rising with them means compaction is not finding "
			       "free blocks; oom_kill is the end of that road.") < 0)
		return -1;
	page_end(r);
	return 0;
}
