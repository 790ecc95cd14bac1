/* SPDX-License-Identifier: GPL-2.0-only */
/* offline: a report rendered by the page code into one HTML file; see offline.h. */
#include "web/offline.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "web/page.h"
#include "web/server.h"

/* A request as the server would build it for path, marked offline.  A saved file is a snapshot: no run in it is "running" unless a daemon writes its DB right now. */
static void fake_request(struct web_req *r, struct url *u, const struct query_set *set, int d, int64_t id,
			 const char *path)
{
	memset(u, 0, sizeof *u);
	snprintf(u->path, sizeof u->path, "%s", path);
	u->path_len = strlen(u->path);
	memset(r, 0, sizeof *r);
	r->dbs.n = set->n;
	for (int i = 0; i < set->n; i++) {
		r->dbs.q[i] = set->q[i];
		r->dbs.name[i] = set->name[i];
		r->dbs.writing[i] = report_read_writer_active(set->q[i]) != 0;
	}
	r->db = d;
	r->q = set->q[d];
	r->url = u;
	r->id = id;
	r->fmt = URL_FMT_HTML;
	r->offline = 1;
}

/* Hand the body over, or classify the failure: 0, 1 (404), -1. */
static int finish(struct web_req *r, int rc, struct strbuf *out, char *err, size_t errlen)
{
	if (rc == 0 && !r->body.err) {
		if (r->body.len && sb_append(out, r->body.buf, r->body.len) < 0) {
			snprintf(err, errlen, "report larger than its cap");
			rc = -1;
		}
		sb_free(&r->body);
		return rc;
	}
	if (r->body.err)
		snprintf(err, errlen, "report larger than its cap (%u MiB)", WEB_BODY_MAX >> 20);
	else if (r->status == 404)
		snprintf(err, errlen, "no run %" PRId64 " in this database", r->id);
	else
		snprintf(err, errlen, "%s", report_read_errmsg(r->q));
	sb_free(&r->body);
	return r->status == 404 ? 1 : -1;
}

int offline_run(const struct query_set *set, int d, int64_t run_id, struct strbuf *out, char *err, size_t errlen)
{
	struct web_req r;
	struct url u;
	char path[48];

	snprintf(path, sizeof path, "/runs/%" PRId64, run_id);
	fake_request(&r, &u, set, d, run_id, path);
	sb_init(&r.body, WEB_BODY_MAX);
	return finish(&r, page_run(&r), out, err, errlen);
}

int offline_compare(const struct query_set *set, int da, int64_t a, int db, int64_t b, struct strbuf *out, char *err,
		    size_t errlen)
{
	struct web_req r;
	struct url u;
	int rc;

	fake_request(&r, &u, set, da, 0, "/compare");
	u.p.has_a = u.p.has_b = 1;
	u.p.a.id = a;
	u.p.b.id = b;
	sb_init(&r.body, WEB_BODY_MAX);
	for (int i = 0; i < 2; i++) {
		struct page_run_info ri = { 0 };
		struct query *q = set->q[i ? db : da];
		if (report_read_run(q, i ? b : a, page_run_info_cb, &ri) < 0) {
			snprintf(err, errlen, "%s", report_read_errmsg(q));
			return -1;
		}
		if (!ri.found) {
			snprintf(err, errlen, "no run %" PRId64 " in %s", i ? b : a,
				 set->n > 1 ? set->name[i ? db : da] : "this database");
			return 1;
		}
	}
	rc = page_compare_runs(&r, da, a, db, b);
	return finish(&r, rc, out, err, errlen);
}
