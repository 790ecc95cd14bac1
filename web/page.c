/* SPDX-License-Identifier: GPL-2.0-only */
/* page: shared HTML scaffolding for the report pages; see page.h. */
#include "web/page.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "common/runref.h"
#include "report/gate.h"
#include "report/run.h"
#include "web/escape.h"

/*
 * One small inline style sheet: pages must work offline, saved as one file,
 * under a CSP that allows nothing external.  Markup is kept XML-well-formed
 * (tests parse every page) so an escaping slip shows up as a parse error.
 */
static const char css[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222;max-width:1180px}"
	"nav a{margin-right:1em}"
	"h1{margin:.3em 0 .2em}h2{margin:1.2em 0 .4em;font-size:130%}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
	"th{background:#f0f0f0}"
	"code,pre{font-size:90%}pre{white-space:pre-wrap;word-break:break-all;margin:0}"
	".status{background:#eef;padding:4px 8px;border-left:4px solid #88c}"
	".state{background:#f4f4f8;padding:4px 8px;border-left:4px solid #88c;margin:.3em 0}"
	".side .state{display:inline-block;margin-left:.5em}"
	".st{text-transform:uppercase;letter-spacing:.03em}"
	".st-running{color:#0a6e2a}.st-crash,.st-error{color:#b00}.st-unfinished{color:#a65f00}"
	".caveat{background:#fff4e0;border-left:4px solid #d08a00;padding:4px 8px;margin:.3em 0}"
	".cards{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:10px;margin:.6em 0}"
	".card{border:1px solid #ccd;border-radius:4px;padding:6px 10px;background:#fbfbfe;overflow:hidden}"
	".card h3{font-size:95%;margin:0 0 4px;color:#334}"
	".card p{margin:2px 0;font-size:90%}.card .note{color:#555;font-size:80%}"
	".big{font-size:170%;font-weight:bold}"
	".card svg.spark{float:right;margin:0 0 2px 8px}"
	".picker{margin:.5em 0}.picker form{display:inline}"
	"nav.toc{margin:.6em 0;line-height:1.8}nav.toc a{margin-right:.9em;white-space:nowrap}"
	"details{margin:.4em 0}summary{cursor:pointer;color:#335}"
	".pending{color:#666;font-style:italic}"
	"figure.chart{display:inline-block;vertical-align:top;width:540px;margin:.4em 18px .6em 0}"
	"figcaption{font-size:85%;color:#333}"
	"form.win input{margin-right:.5em}";

void page_text(struct web_req *r, const char *s)
{
	if (!s)
		sb_puts(&r->body, "\xe2\x80\x93");   /* en dash */
	else
		escape_html(&r->body, s, strlen(s));
}

void page_failure_cells(struct web_req *r, int64_t ts_ms, const char *comm, size_t comm_len, int64_t pid,
			int64_t order)
{
	char t[FMT_TIME_LEN];

	sb_printf(&r->body, "<tr><td>%s</td><td>", fmt_time_human(ts_ms, t, sizeof t));
	if (comm)
		escape_html(&r->body, comm, comm_len);
	sb_puts(&r->body, "</td><td class=\"n\">");
	if (pid >= 0)
		sb_printf(&r->body, "%" PRId64, pid);
	sb_puts(&r->body, "</td><td class=\"n\">");
	if (order >= 0)
		sb_printf(&r->body, "%" PRId64, order);
	sb_puts(&r->body, "</td><td>");
}

void page_begin(struct web_req *r, const char *title)
{
	r->status = 200;
	r->ctype = "text/html; charset=utf-8";
	sb_printf(&r->body, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
		  "<meta name=\"viewport\" content=\"width=device-width\"/>"
		  "<link rel=\"icon\" href=\"data:,\"/><title>");
	page_text(r, title);
	sb_printf(&r->body, " \xe2\x80\x94 fpusoakd</title><style>%s</style></head>\n<body>\n", css);
	if (r->offline)
		sb_puts(&r->body, "<nav>fpusoakd report (saved file: charts and tables only, no links)</nav>\n<h1>");
	else
		/* fpusoakd serve has no daemon behind it, so no /metrics to link to. */
		sb_printf(&r->body, "<nav><a href=\"/\">current run</a><a href=\"/runs\">runs</a>%s"
			  "<a href=\"/api/v1/status\">api</a></nav>\n<h1>",
			  web_serving(r->ws) ? "" : "<a href=\"/metrics\">metrics</a>");
	page_text(r, title);
	sb_puts(&r->body, "</h1>\n");
}

void page_end(struct web_req *r)
{
	sb_puts(&r->body, "<hr/><p><small>fpusoakd ");
	page_text(r, r->ws ? web_version(r->ws) : FPUSOAK_VERSION);
	sb_puts(&r->body, "; times are UTC.</small></p>\n</body></html>\n");
}

static void row_text(struct web_req *r, const char *key, const char *val, int pre)
{
	sb_printf(&r->body, "<tr><th>%s</th><td>%s", key, pre && val ? "<pre>" : "");
	page_text(r, val);
	sb_printf(&r->body, "%s</td></tr>\n", pre && val ? "</pre>" : "");
}

static void row_num(struct web_req *r, const char *key, int64_t v, const char *unit)
{
	if (v < 0)
		sb_printf(&r->body, "<tr><th>%s</th><td>\xe2\x80\x93</td></tr>\n", key);
	else
		sb_printf(&r->body, "<tr><th>%s</th><td>%" PRId64 "%s</td></tr>\n", key, v, unit);
}

static void row_time(struct web_req *r, const char *key, int64_t ms)
{
	char t[FMT_TIME_LEN];

	row_text(r, key, ms >= 0 ? fmt_time_human(ms, t, sizeof t) : NULL, 0);
}

/* "imported from": where a run copied by `fpusoakd import` came from (nothing for a run of this database). */
static void page_import_row(struct web_req *r, int64_t run_id)
{
	struct query_import *im = calloc(1, sizeof *im);
	char t[FMT_TIME_LEN];

	if (!im || report_read_run_import(r->q, run_id, im) != 1) {
		free(im);
		return;
	}
	sb_printf(&r->body, "<tr><th>imported from</th><td>");
	page_text(r, im->source_file);
	sb_printf(&r->body, ", run %" PRId64 " there (host ", im->source_run_id);
	page_text(r, im->source_host[0] ? im->source_host : NULL);
	sb_puts(&r->body, ", boot ");
	page_text(r, im->source_boot_id[0] ? im->source_boot_id : NULL);
	sb_printf(&r->body, "), on %s</td></tr>\n", im->imported_ms >= 0 ? fmt_time_human(im->imported_ms, t, sizeof t) : "?");
	free(im);
}

/* What the machine had at the start (report_run_memory), after MemTotal; nothing for a run from before 016. */
static void memory_rows(struct web_req *r, const struct query_run *run)
{
	struct report_run_memory m;

	if (report_run_memory(r->q, run, &m) < 0 || !m.known)
		return;
	if (m.domain_kb >= 0)
		row_num(r, "memory the guest was given", m.domain_kb, " kB (Xen balloon)");
	row_num(r, "pages the kernel knows", m.present_kb, " kB");
	row_num(r, "kept by the kernel", m.reserved_kb, " kB (pages it knows − MemTotal)");
	row_num(r, "MemFree at start", m.free_kb, " kB");
	row_num(r, "MemAvailable at start", m.available_kb, " kB");
}

void page_env_table(struct web_req *r, const struct query_run *run, int full)
{
	char cpu[160];
	char d[32];
	int64_t dur = report_run_duration(run);

	sb_puts(&r->body, "<table class=\"env\">\n");
	sb_printf(&r->body, "<tr><th>run</th><td>%" PRId64 "</td></tr>\n", run->run_id);
	row_text(r, "label", run->label, 0);
	row_text(r, "host", run->hostname, 0);
	page_import_row(r, run->run_id);
	row_text(r, "kernel", run->kernel_release, 0);
	row_text(r, "kernel version", run->kernel_version, 0);
	row_text(r, "hypervisor", run->hypervisor, 0);
	row_text(r, "guest type", run->guest_type, 0);
	if (run->xen_domain) {
		/* Only under Xen: a dom0 and a domU are different settings (issue 21). */
		char dom[48];

		if (run->xen_domid >= 0)
			snprintf(dom, sizeof dom, "%s (domain id %" PRId64 ")", run->xen_domain, run->xen_domid);
		else
			snprintf(dom, sizeof dom, "%s (domain id unknown)", run->xen_domain);
		row_text(r, "Xen domain", dom, 0);
	}
	row_text(r, "CPU", report_cpu_model(run, cpu, sizeof cpu), 0);
	row_text(r, "FPU features", run->fpu_features, 0);
	row_num(r, "XSAVE area", run->xstate_bytes, " bytes");
	row_num(r, "MemTotal", run->mem_total_kb, " kB");
	memory_rows(r, run);
	row_num(r, "page size", run->page_size, " bytes");
	row_time(r, "started", run->started_ms);
	row_time(r, "ended", run->ended_ms);
	row_text(r, "end reason", run->end_reason, 0);
	row_text(r, "duration", dur >= 0 ? fmt_duration(dur, d, sizeof d) : NULL, 0);
	row_num(r, "samples", run->nsamples, "");
	row_time(r, "last sample", run->last_sample_ms);
	if (full) {
		row_text(r, "kernel command line", run->cmdline, 1);
		row_text(r, "XSAVE features", run->xstate_detail, 1);
		row_text(r, "fpusoakd version", run->version, 0);
		row_num(r, "pid", run->pid, "");
		row_text(r, "boot id", run->boot_id, 0);
		row_text(r, "configuration", run->config, 1);
	}
	sb_puts(&r->body, "</table>\n");
}

int page_buddy_table(struct web_req *r, int64_t run_id, int64_t page_size)
{
	struct buddyinfo *b = calloc(1, sizeof *b);   /* ~8 KB: keep it off the request thread's stack */
	char t[FMT_TIME_LEN], n[32];
	int64_t ts = 0;
	int got;

	if (!b)
		return -1;
	got = report_read_buddy_latest(r->q, run_id, b, &ts);
	if (got < 0) {
		free(b);
		return -1;
	}
	if (got == 0) {
		sb_puts(&r->body, "<p class=\"pending\">No buddyinfo sample yet.</p>\n");
		free(b);
		return 0;
	}
	sb_printf(&r->body, "<table class=\"buddy\"><caption>free blocks per order at %s</caption>\n<tr><th>node</th>"
		  "<th>zone</th>", fmt_time_human(ts, t, sizeof t));
	for (int k = 0; k < b->norders; k++)
		sb_printf(&r->body, "<th class=\"n\">%d</th>", k);
	sb_puts(&r->body, "<th class=\"n\">free MB</th></tr>\n");
	for (int i = 0; i < b->nzones; i++) {
		double pages = 0;
		sb_printf(&r->body, "<tr><td>%d</td><td>", b->z[i].node);
		page_text(r, b->z[i].zone);
		sb_puts(&r->body, "</td>");
		for (int k = 0; k < b->norders; k++) {
			sb_printf(&r->body, "<td class=\"n\">%" PRIu64 "</td>", b->z[i].free[k]);
			pages += (double)b->z[i].free[k] * (double)(UINT64_C(1) << k);
		}
		sb_printf(&r->body, "<td class=\"n\">%s</td></tr>\n",
			  fmt_num(page_size > 0 ? floor(pages * (double)page_size / 1048576.0 * 10 + 0.5) / 10 : NAN,
				  n, sizeof n));
	}
	sb_puts(&r->body, "</table>\n");
	free(b);
	return 0;
}

int page_run_info_cb(void *arg, const struct query_run *run)
{
	struct page_run_info *ri = arg;

	ri->found = 1;
	ri->run_id = run->run_id;
	ri->started_ms = run->started_ms;
	ri->first_sample_ms = run->first_sample_ms;
	ri->last_sample_ms = run->last_sample_ms;
	ri->page_size = run->page_size;
	ri->nsamples = run->nsamples;
	return 0;
}

int page_window(struct web_req *r, const struct page_run_info *ri, int64_t default_span_ms, int64_t *from, int64_t *to)
{
	const struct url_params *p = &r->url->p;

	/* The run's start, not its first raw tick: retention may have left only rollups of the early part. */
	*to = p->has_to ? p->to_ms : ri->last_sample_ms;
	if (p->has_from)
		*from = p->from_ms;
	else if (default_span_ms > 0 && *to >= 0)
		*from = *to - default_span_ms > ri->started_ms ? *to - default_span_ms : ri->started_ms;
	else
		*from = ri->last_sample_ms >= 0 ? ri->started_ms : -1;
	if (*from >= 0 && *to >= 0 && *from > *to)
		return web_error(r, 400, "from is after to");
	return 0;
}

void page_link(struct web_req *r, const char *href, const char *text)
{
	if (r->offline) {
		page_text(r, text);
		return;
	}
	sb_puts(&r->body, "<a href=\"");
	page_text(r, href);
	sb_puts(&r->body, "\">");
	page_text(r, text);
	sb_puts(&r->body, "</a>");
}

const char *page_ref(const struct web_req *r, int db, int64_t id, char *out, size_t outlen)
{
	return runref_format(r->dbs.n > 1 ? r->dbs.name[db] : "", r->dbs.n, id, out, outlen);
}

static int started_cb(void *arg, const struct query_run *run)
{
	*(int64_t *)arg = run->started_ms;
	return 0;
}

int page_latest(struct web_req *r, int *db, int64_t *id)
{
	int64_t best = INT64_MIN;
	int found = 0;

	for (int d = 0; d < r->dbs.n; d++) {
		int64_t rid, started = -1;
		int got = report_read_latest_run(r->dbs.q[d], &rid);
		if (got < 0 || (got && report_read_run(r->dbs.q[d], rid, started_cb, &started) < 0))
			return -1;
		if (got && (!found || started > best)) {
			best = started;
			*db = d;
			*id = rid;
			found = 1;
		}
	}
	return found;
}

int page_newest(struct web_req *r, int db, int64_t id)
{
	int64_t latest;
	int got;

	if (!r->dbs.writing[db])
		return 0;
	if ((got = report_read_latest_run(r->dbs.q[db], &latest)) < 0)
		return -1;
	return got && latest == id;
}

/* The CSS class of a run state: running, stopped, crash, error, unfinished (other end reasons as stopped). */
static const char *state_class(const char *st)
{
	static const char *const known[] = { "running", "crash", "error", "unfinished" };

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(st, known[i]) == 0)
			return known[i];
	return "stopped";
}

void page_state_line(struct web_req *r, const struct query_run *run, int newest)
{
	const char *st = report_run_state(run, newest);
	char d[32], a[FMT_TIME_LEN], b[FMT_TIME_LEN], conf[REPORT_GATE_TEXT + 64];
	int64_t dur = report_run_duration(run);

	sb_printf(&r->body, "<p class=\"state\" id=\"state\"><strong class=\"st st-%s\">", state_class(st));
	page_text(r, st);
	sb_puts(&r->body, "</strong> &#183; ");
	page_text(r, run->label ? run->label : "(no label)");
	sb_puts(&r->body, " &#183; kernel ");
	page_text(r, run->kernel_release);
	sb_puts(&r->body, " &#183; ");
	page_text(r, run->hypervisor);
	if (run->guest_type) {
		sb_puts(&r->body, " ");
		page_text(r, run->guest_type);
	}
	if (run->hostname) {
		sb_puts(&r->body, " &#183; host ");
		page_text(r, run->hostname);
	}
	sb_printf(&r->body, " &#183; %s, %" PRId64 " samples", dur >= 0 ? fmt_duration(dur, d, sizeof d) : "no duration",
		  run->nsamples);
	if (run->first_sample_ms >= 0)
		sb_printf(&r->body, ", %s to %s UTC", fmt_time_human(run->first_sample_ms, a, sizeof a),
			  fmt_time_human(run->last_sample_ms, b, sizeof b));
	/* What the run ran under: an unconfined run's probes are capped, not capacities; said where it is seen. */
	report_run_confinement(run, conf, sizeof conf);
	if (run->cgroup && strcmp(run->cgroup, "none") == 0) {
		sb_puts(&r->body, "</p>\n<p class=\"caveat\" id=\"confinement\"><strong>");
		page_text(r, conf);
		sb_puts(&r->body, "</strong>: the workers were not confined, so probes stopped by the cap measure the cap, "
			"and the run compares with a confined one only where the gate says so.</p>\n");
		return;
	}
	sb_puts(&r->body, " &#183; confinement ");
	page_text(r, conf);
	sb_puts(&r->body, "</p>\n");
}
