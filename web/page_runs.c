/* page_runs: "/runs", every run in the database, newest first. */
#include <inttypes.h>

#include "common/fmt.h"
#include "report/run.h"
#include "web/page.h"

struct runs_ctx {
	struct web_req *r;
	int n;
};

static int row_cb(void *arg, const struct query_run *run)
{
	struct runs_ctx *c = arg;
	struct web_req *r = c->r;
	char t[FMT_TIME_LEN], d[32];
	int64_t dur = report_run_duration(run);

	sb_printf(&r->body, "<tr><td class=\"n\"><a href=\"/runs/%" PRId64 "\">%" PRId64 "</a></td><td>",
		  run->run_id, run->run_id);
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
	page_text(r, report_run_state(run, c->n == 0));
	sb_printf(&r->body, "</td><td class=\"n\">%" PRId64 "</td></tr>\n", run->nsamples);
	c->n++;
	return 0;
}

int page_runs(struct web_req *r)
{
	struct runs_ctx c = { r, 0 };

	page_begin(r, "Runs");
	sb_puts(&r->body, "<table class=\"runs\">\n<tr><th>run</th><th>label</th><th>kernel</th><th>hypervisor</th>"
		"<th>guest type</th><th>started</th><th>duration</th><th>end</th><th>samples</th></tr>\n");
	if (query_runs(r->q, row_cb, &c) < 0)
		return -1;
	sb_puts(&r->body, "</table>\n");
	if (c.n == 0)
		sb_puts(&r->body, "<p>No run recorded yet.</p>\n");
	sb_puts(&r->body, "<p>Also as <a href=\"/api/v1/runs\">JSON</a> and <a href=\"/api/v1/runs.csv\">CSV</a>.</p>\n");
	page_end(r);
	return 0;
}
