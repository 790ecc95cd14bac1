/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page_index: "/", the current (newest) run, answer first: the daemon's
 * status (or, under fpusoakd serve, which databases are open), the run's
 * state line and headline figures, the run picker, then the last hours of
 * free memory and compaction.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/fmt.h"
#include "report/memory.h"
#include "report/run.h"
#include "web/chart.h"
#include "web/page.h"
#include "web/server.h"

#define RECENT_MS (3 * 3600 * 1000)   /* "the last hours" shown on the front page */

struct index_run {
	struct web_req *r;
	int newest;
	int has_label;
	char label[256];
	int64_t started_ms;
};

static int state_cb(void *arg, const struct query_run *run)
{
	struct index_run *x = arg;

	page_state_line(x->r, run, x->newest);
	x->has_label = run->label != NULL;
	snprintf(x->label, sizeof x->label, "%s", run->label ? run->label : "");
	x->started_ms = run->started_ms;
	return 0;
}

static void status(struct web_req *r)
{
	char line[WEB_STATUS_MAX];

	if (web_serving(r->ws)) {
		sb_printf(&r->body, "<p class=\"status\">Read-only report of %d database%s:", r->dbs.n, r->dbs.n > 1 ? "s" : "");
		for (int d = 0; d < r->dbs.n; d++) {
			sb_printf(&r->body, "%s ", d ? "," : "");
			page_text(r, r->dbs.name[d]);
			sb_puts(&r->body, " (");
			page_text(r, web_db_path(r->ws, d));
			sb_puts(&r->body, ")");
		}
		sb_puts(&r->body, ". No daemon runs here; a run is running only while a daemon writes its database.</p>\n");
		return;
	}
	web_status_copy(r->ws, line, sizeof line);
	sb_printf(&r->body, "<p class=\"status\">daemon %s: ", web_healthy(r->ws) ? "healthy" : "NOT HEALTHY");
	page_text(r, line[0] ? line : "no status yet");
	sb_puts(&r->body, "</p>\n");
}

/* Free memory of the zones that moved, and compaction, over the last hours. */
static int recent(struct web_req *r, int64_t id, const struct page_run_info *ri)
{
	static const char *const compaction[] = { "compact_stall", "compact_fail", "compact_success",
						  "allocstall_normal", "allocstall_movable", "oom_kill" };
	struct report_free_zone *fz = NULL;
	struct report_orders o;
	char t0[FMT_TIME_LEN], t1[FMT_TIME_LEN];
	int64_t from, to;
	int n, ret = -1;

	if (page_window(r, ri, RECENT_MS, &from, &to) < 0)
		return -1;
	if (from >= 0 && to >= 0)
		sb_printf(&r->body, "<h2>Recent: %s to %s</h2>\n", fmt_time_human(from, t0, sizeof t0),
			  fmt_time_human(to, t1, sizeof t1));
	else
		sb_puts(&r->body, "<h2>Recent</h2>\n");
	if (report_orders(r->q, id, &o) < 0 || (n = report_free_zones(r->q, id, from, to, &o, ri->page_size, &fz)) < 0)
		goto out;
	int still = 0;
	for (int i = 0; i < n; i++) {
		if (fz[i].moved && chart_free(r, &fz[i], from, to) < 0)
			goto out;
		still += !fz[i].moved;
	}
	if (n == 0) {
		sb_puts(&r->body, "<p class=\"pending\">Free memory: no buddyinfo sample in this window.</p>\n");
	} else if (still) {
		/* A zone whose free memory never changed has no chart; say which, with the free memory it holds. */
		char mib[32];
		sb_puts(&r->body, "<p>Free memory unchanged in this window, no chart:");
		for (int i = 0, k = 0; i < n; i++) {
			if (fz[i].moved)
				continue;
			sb_printf(&r->body, "%s node %d zone ", k++ ? "," : "", fz[i].node);
			page_text(r, fz[i].zone);
			if (fz[i].n > 0)
				sb_printf(&r->body, " (%s MiB)", fmt_sig(fz[i].last_mib, mib, sizeof mib));
		}
		sb_puts(&r->body, ".</p>\n");
	}
	if (chart_vmstat_rates(r, id, from, to, compaction, 6, "Compaction and reclaim",
			       "Events per second. compact_stall and allocstall_* mean an allocation had to wait for "
			       "compaction or reclaim; compact_fail rising with them: compaction is not finding free "
			       "blocks; oom_kill is the end of that road.") < 0)
		goto out;
	ret = 0;
out:
	free(fz);
	return ret;
}

/* The environment, folded: which kernel and which guest (a dom0 and a domU are different settings). */
static int env_cb(void *arg, const struct query_run *run)
{
	struct web_req *r = arg;

	sb_puts(&r->body, "<details id=\"environment\"><summary>Environment: ");
	page_text(r, run->hostname);
	sb_puts(&r->body, ", ");
	page_text(r, run->kernel_release);
	sb_puts(&r->body, "</summary>\n");
	page_env_table(r, run, 0);
	sb_puts(&r->body, "</details>\n");
	return 0;
}

int page_index(struct web_req *r)
{
	struct page_run_info ri = { 0 };
	struct index_run x = { .r = r };
	char ref[RUNREF_LEN], title[64];
	int64_t id;
	int got;

	if ((got = page_latest(r, &r->db, &id)) < 0)
		return -1;
	if (!got) {
		page_begin(r, "fpusoakd");
		status(r);
		sb_puts(&r->body, "<p>No run recorded yet.</p>\n");
		page_end(r);
		return 0;
	}
	r->q = r->dbs.q[r->db];
	snprintf(title, sizeof title, "Current run: %s", page_ref(r, r->db, id, ref, sizeof ref));
	page_begin(r, title);
	if ((x.newest = page_newest(r, r->db, id)) < 0 || report_read_run(r->q, id, page_run_info_cb, &ri) < 0 ||
	    report_read_run(r->q, id, state_cb, &x) < 0)
		return -1;
	status(r);
	if (page_headline(r, id) < 0)
		return -1;
	sb_printf(&r->body, "<p><a href=\"/runs/%s\">Full report of run %s</a> (every figure, the environment and the "
		  "configuration) &#183; <a href=\"/runs\">all runs</a></p>\n", ref, ref);
	if (report_read_run(r->q, id, env_cb, r) < 0)
		return -1;
	if (page_compare_links(r, r->db, id, x.has_label ? x.label : NULL, x.started_ms) < 0 || recent(r, id, &ri) < 0)
		return -1;
	page_end(r);
	return 0;
}
