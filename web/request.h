/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * request: what server.c hands a route's handler, and the shared state a
 * handler may read.
 *
 * Internal to web/.  A handler reads r->url and r->q, writes the body into
 * r->body (capped at WEB_BODY_MAX) and sets r->status and r->ctype; it
 * returns 0, or -1 after web_error() or on a store error (server.c then
 * answers 500 unless a status was set).  Handlers run on request threads:
 * they touch the DB only through r->q and the shared state only through
 * the web_* accessors below.  The handlers themselves are declared by role:
 * pages in page.h, the JSON/CSV API in api.h.
 */
#ifndef FPUSOAK_REQUEST_H
#define FPUSOAK_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/runref.h"
#include "common/strbuf.h"
#include "report/read.h"
#include "web/url.h"

struct web_server;

/*
 * The databases a request may read (one for the daemon's own server, up to
 * RUNREF_MAX_DBS under `fpusoakd serve`): this thread's handles, the short
 * names runs are addressed by (common/runref.h), and whether a daemon is
 * writing each one now (only then can its newest unfinished run be "running").
 */
struct web_dbs {
	int n;
	struct query *q[RUNREF_MAX_DBS];
	const char *name[RUNREF_MAX_DBS];
	int writing[RUNREF_MAX_DBS];
};

struct web_req {
	struct web_server *ws;
	struct query *q;            /* the handle of the DB of the run in the path, else of the first DB (NULL without the DB) */
	struct web_dbs dbs;         /* every DB open (dbs.n 0 for routes without the DB) */
	int db;                     /* index in dbs of the run in the path (0 if none) */
	const struct url *url;      /* decoded path and parameters */
	int64_t id;                 /* the {id} of the path, 0 if none */
	enum url_format fmt;        /* resolved: HTML, JSON or CSV */
	int api;                    /* under /api/: errors as JSON */
	int offline;                /* rendering a saved report (fpusoakd report): no links to a server */
	int status;                 /* response status (0 until set) */
	const char *ctype;          /* response Content-Type */
	char filename[64];          /* Content-Disposition: attachment for CSV, "" if none */
	struct strbuf body;
};

typedef int (*web_handler)(struct web_req *r);

/* Replace the body with an error page (HTML, or JSON for r->api) and set status; returns -1 for "return web_error(...)". */
int web_error(struct web_req *r, int status, const char *msg);

/* The database a run reference addresses, into *db (common/runref.h); 0, or -1 after web_error (400: a bare id
 * while several databases are open; 404: no database of that name).  Offline requests (r->ws NULL) use r->dbs. */
int web_resolve(struct web_req *r, const struct runref *ref, int *db);

/* Whether the loop is healthy now (health flag set and not stale). */
int web_healthy(struct web_server *ws);

/* Copy the status line into out (NUL-terminated, "" if none). */
void web_status_copy(struct web_server *ws, char *out, size_t outlen);

/* Whether this is fpusoakd serve's server (no daemon behind it: no status line of a sampler, no /metrics); NULL-safe. */
int web_serving(const struct web_server *ws);

/* The build version given to web_open. */
const char *web_version(const struct web_server *ws);

#endif
