/* page_runs: "/runs", every run in the database, newest first. */
#include <inttypes.h>

#include "common/fmt.h"
#include "report/run.h"
#include "web/page.h"

struct runs_ctx {
	struct web_req *r;
	int db, n, newest_live;   /* newest_live: the DB's first (newest) run may be "running" */
};

static int row_cb(void *arg, const struct query_run *run)
{
	struct runs_ctx *c = arg;
	struct web_req *r = c->r;
	char t[FMT_TIME_LEN], d[32], ref[RUNREF_LEN];
	int64_t dur = report_run_duration(run);

	page_ref(r, c->db, run->run_id, ref, sizeof ref);
	sb_printf(&r->body, "<tr><td class=\"n\"><a href=\"/runs/%s\">%s</a></td><td>", ref, ref);
	page_text(r, run->label);
	sb_puts(&r->body, "</td><td>");
	page_text(r, run->kernel_release);
	sb_puts(&r->body, "</td><td>");
	page_text(r, run->hypervisor);
	sb_puts(&r->body, "</td><td>");
	page_text(r, run->guest_type);
	sb_puts(&r->body, "</td><td>");
	page_text(r, run->started_ms >= 0 ? fmt_time_human(run->started_ms, t, sizeof t) : NULL);
	sb_puts(&r->body, "</td><td class=\"n\">");
	page_text(r, dur >= 0 ? fmt_duration(dur, d, sizeof d) : NULL);
	sb_puts(&r->body, "</td><td>");
	page_text(r, report_run_state(run, c->n == 0 && c->newest_live));
	sb_printf(&r->body, "</td><td class=\"n\">%" PRId64 "</td></tr>\n", run->nsamples);
	c->n++;
	return 0;
}

int page_runs(struct web_req *r)
{
	struct runs_ctx c = { r, 0, 0, 0 };
	int total = 0;

	page_begin(r, "Runs");
	sb_puts(&r->body, "<table class=\"runs\">\n<tr><th>run</th><th>label</th><th>kernel</th><th>hypervisor</th>"
		"<th>guest type</th><th>started</th><th>duration</th><th>end</th><th>samples</th></tr>\n");
	for (c.db = 0; c.db < r->dbs.n; c.db++) {
		c.n = 0;
		c.newest_live = r->dbs.writing[c.db];
		if (query_runs(r->dbs.q[c.db], row_cb, &c) < 0)
			return -1;
		total += c.n;
	}
	sb_puts(&r->body, "</table>\n");
	if (total == 0)
		sb_puts(&r->body, "<p>No run recorded yet.</p>\n");
	sb_puts(&r->body, "<p>Also as <a href=\"/api/v1/runs\">JSON</a> and <a href=\"/api/v1/runs.csv\">CSV</a>.</p>\n");
	page_end(r);
	return 0;
}
