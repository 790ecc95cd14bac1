/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page_picker: the run picker on a run's page — compare it with the
 * previous run of the same label (over every open database), or with any
 * other run through a plain GET form (no script: /compare?a=&b=).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "web/page.h"

#define PICK_MAX 300          /* runs offered in the form, newest first in each database */

struct pick_ctx {
	struct web_req *r;
	int db, n;
	int self_db;
	int64_t self;
};

static int option_cb(void *arg, const struct query_run *run)
{
	struct pick_ctx *c = arg;
	char ref[RUNREF_LEN], t[FMT_TIME_LEN];

	if ((c->db == c->self_db && run->run_id == c->self) || c->n >= PICK_MAX)
		return 0;
	page_ref(c->r, c->db, run->run_id, ref, sizeof ref);
	sb_printf(&c->r->body, "<option value=\"%s\">run %s: ", ref, ref);
	page_text(c->r, run->label ? run->label : "(no label)");
	sb_puts(&c->r->body, ", ");
	page_text(c->r, run->kernel_release);
	sb_printf(&c->r->body, ", %s</option>\n", run->started_ms >= 0 ? fmt_time_human(run->started_ms, t, sizeof t) : "");
	c->n++;
	return c->r->body.err ? -1 : 0;
}

static int count_cb(void *arg, const struct query_run *run)
{
	(void)arg;
	(void)run;
	return 0;
}

int page_compare_links(struct web_req *r, int db, int64_t id, const char *label, int64_t started_ms)
{
	struct pick_ctx c = { r, 0, 0, db, id };
	char self[RUNREF_LEN], prev[RUNREF_LEN];
	int64_t best_start = INT64_MIN, best = 0;
	int best_db = -1, others = 0;

	if (r->offline)
		return 0;
	page_ref(r, db, id, self, sizeof self);
	for (int d = 0; d < r->dbs.n; d++) {
		int64_t pid, pstart;
		int got = report_read_run_before(r->dbs.q[d], label, started_ms, &pid, &pstart);
		if (got < 0)
			return -1;
		if (got && (pstart > best_start) && !(d == db && pid == id)) {
			best_start = pstart;
			best = pid;
			best_db = d;
		}
	}
	sb_puts(&r->body, "<div class=\"picker\">Compare: ");
	if (best_db >= 0) {
		page_ref(r, best_db, best, prev, sizeof prev);
		sb_printf(&r->body, "<a href=\"/compare?a=%s&amp;b=%s\">with run %s, the previous run labelled \"", prev, self,
			  prev);
		page_text(r, label ? label : "");
		sb_puts(&r->body, "\"</a> &#183; ");
	} else {
		sb_puts(&r->body, "no earlier run has this label &#183; ");
	}
	for (int d = 0; d < r->dbs.n; d++) {
		int n = report_read_runs(r->dbs.q[d], count_cb, NULL);
		if (n < 0)
			return -1;
		others += n;
	}
	if (others <= 1) {
		sb_puts(&r->body, "no other run to compare with.</div>\n");
		return 0;
	}
	sb_printf(&r->body, "<form method=\"get\" action=\"/compare\"><input type=\"hidden\" name=\"b\" value=\"%s\"/>"
		  "<label>with <select name=\"a\">\n", self);
	for (c.db = 0; c.db < r->dbs.n; c.db++)
		if (report_read_runs(r->dbs.q[c.db], option_cb, &c) < 0)
			return -1;
	sb_puts(&r->body, "</select></label> <input type=\"submit\" value=\"compare\"/></form>"
		" &#183; <a href=\"/runs\">all runs</a></div>\n");
	return 0;
}
