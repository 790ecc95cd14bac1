/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page_runs: "/runs", the run picker: every run of every open database,
 * newest start first, filtered by ?label=, ?kernel=, ?host= (substrings, any
 * case), each row with an A and a B choice for "compare selected" (a plain
 * GET form to /compare: no script needed).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/fmt.h"
#include "report/run.h"
#include "web/page.h"

#define RUNS_SHOWN 2000       /* rows of the table; more are counted, not listed */

struct entry {
	int db;
	int64_t id, started_ms;
};

struct collect {
	struct entry *e;
	size_t n, cap;
	const struct url_params *f;
	int db;
};

/* Whether hay contains needle ignoring ASCII case; an absent filter matches everything. */
static int has_text(const char *hay, const char *needle, int active)
{
	size_t n = strlen(needle);

	if (!active)
		return 1;
	for (const char *h = hay; h && *h; h++)
		if (strncasecmp(h, needle, n) == 0)
			return 1;
	return 0;
}

static int collect_cb(void *arg, const struct query_run *run)
{
	struct collect *c = arg;

	if (!has_text(run->label, c->f->label, c->f->has_label) || !has_text(run->kernel_release, c->f->kernel, c->f->has_kernel) ||
	    !has_text(run->hostname, c->f->host, c->f->has_host))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct entry *e = realloc(c->e, cap * sizeof *e);
		if (!e)
			return -1;
		c->e = e;
		c->cap = cap;
	}
	c->e[c->n++] = (struct entry){ c->db, run->run_id, run->started_ms };
	return 0;
}

static int newest_first(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->started_ms != y->started_ms)
		return x->started_ms < y->started_ms ? 1 : -1;
	return x->db != y->db ? x->db - y->db : (x->id < y->id ? 1 : -1);
}

struct row_ctx {
	struct web_req *r;
	int db, newest;
};

static int row_cb(void *arg, const struct query_run *run)
{
	struct row_ctx *c = arg;
	struct web_req *r = c->r;
	char t[FMT_TIME_LEN], d[32], ref[RUNREF_LEN];
	int64_t dur = report_run_duration(run);

	page_ref(r, c->db, run->run_id, ref, sizeof ref);
	if (r->offline)
		sb_puts(&r->body, "<tr><td></td><td></td>");
	else
		sb_printf(&r->body, "<tr><td><input type=\"radio\" name=\"a\" value=\"%s\" aria-label=\"A: run %s\"/></td>"
			  "<td><input type=\"radio\" name=\"b\" value=\"%s\" aria-label=\"B: run %s\"/></td>", ref, ref, ref, ref);
	sb_printf(&r->body, "<td class=\"n\"><a href=\"/runs/%s\">%s</a></td><td>", ref, ref);
	page_text(r, run->label);
	sb_puts(&r->body, "</td><td>");
	page_text(r, run->kernel_release);
	sb_puts(&r->body, "</td><td>");
	page_text(r, run->hostname);
	sb_puts(&r->body, "</td><td>");
	page_text(r, run->hypervisor);
	if (run->guest_type) {
		sb_puts(&r->body, " ");
		page_text(r, run->guest_type);
	}
	sb_puts(&r->body, "</td><td>");
	page_text(r, run->started_ms >= 0 ? fmt_time_human(run->started_ms, t, sizeof t) : NULL);
	sb_puts(&r->body, "</td><td class=\"n\">");
	page_text(r, dur >= 0 ? fmt_duration(dur, d, sizeof d) : NULL);
	sb_puts(&r->body, "</td><td>");
	page_text(r, report_run_state(run, c->newest));
	sb_printf(&r->body, "</td><td class=\"n\">%" PRId64 "</td></tr>\n", run->nsamples);
	return 0;
}

static void filter_field(struct web_req *r, const char *name, const char *value, int has)
{
	sb_printf(&r->body, "<label>%s <input type=\"text\" name=\"%s\" size=\"14\" value=\"", name, name);
	if (has)
		page_text(r, value);
	sb_puts(&r->body, "\"/></label> ");
}

int page_runs(struct web_req *r)
{
	const struct url_params *f = &r->url->p;
	struct collect c = { .f = f };
	int64_t latest[RUNREF_MAX_DBS];
	int filtered = f->has_label || f->has_kernel || f->has_host, ret = -1;

	for (c.db = 0; c.db < r->dbs.n; c.db++) {
		int got = report_read_latest_run(r->dbs.q[c.db], &latest[c.db]);
		if (got < 0 || report_read_runs(r->dbs.q[c.db], collect_cb, &c) < 0)
			goto out;
		if (!got)
			latest[c.db] = -1;
	}
	if (c.n > 1)   /* nothing matched: c.e is NULL, which qsort must not get even for 0 elements */
		qsort(c.e, c.n, sizeof *c.e, newest_first);
	page_begin(r, "Runs");
	if (!r->offline) {
		sb_puts(&r->body, "<form class=\"filter\" method=\"get\" action=\"/runs\">Filter: ");
		filter_field(r, "label", f->label, f->has_label);
		filter_field(r, "kernel", f->kernel, f->has_kernel);
		filter_field(r, "host", f->host, f->has_host);
		sb_printf(&r->body, "<input type=\"submit\" value=\"filter\"/>%s</form>\n",
			  filtered ? " <a href=\"/runs\">all runs</a>" : "");
		sb_puts(&r->body, "<form method=\"get\" action=\"/compare\">\n");
	}
	sb_printf(&r->body, "<p>%zu run%s%s, newest first. Pick an A and a B and compare: the verdicts read B against A "
		  "(typically A the older kernel).</p>\n", c.n, c.n == 1 ? "" : "s", filtered ? " match" : "");
	sb_puts(&r->body, "<table class=\"runs\">\n<tr><th>A</th><th>B</th><th>run</th><th>label</th><th>kernel</th>"
		"<th>host</th><th>hypervisor</th><th>started</th><th>duration</th><th>end</th><th>samples</th></tr>\n");
	for (size_t i = 0; i < c.n && i < RUNS_SHOWN; i++) {
		struct row_ctx rc = { r, c.e[i].db, r->dbs.writing[c.e[i].db] && latest[c.e[i].db] == c.e[i].id };
		if (report_read_run(r->dbs.q[rc.db], c.e[i].id, row_cb, &rc) < 0)
			goto out;
	}
	sb_puts(&r->body, "</table>\n");
	if (c.n > RUNS_SHOWN)
		sb_printf(&r->body, "<p>Only the newest %d are listed: filter to see others.</p>\n", RUNS_SHOWN);
	if (c.n == 0)
		sb_puts(&r->body, filtered ? "<p>No run matches.</p>\n" : "<p>No run recorded yet.</p>\n");
	if (!r->offline)
		sb_printf(&r->body, "<p><input type=\"submit\" value=\"compare selected\"%s/></p></form>\n",
			  c.n < 2 ? " disabled=\"disabled\"" : "");
	sb_puts(&r->body, "<p>Also as <a href=\"/api/v1/runs\">JSON</a> and <a href=\"/api/v1/runs.csv\">CSV</a>.</p>\n");
	page_end(r);
	ret = 0;
out:
	free(c.e);
	return ret;
}
