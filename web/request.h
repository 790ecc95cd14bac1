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

#include "common/strbuf.h"
#include "store/query.h"
#include "web/url.h"

struct web_server;

struct web_req {
	struct web_server *ws;
	struct query *q;            /* this request's store handle (NULL for routes without the DB) */
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

/* Whether the loop is healthy now (health flag set and not stale). */
int web_healthy(struct web_server *ws);

/* Copy the status line into out (NUL-terminated, "" if none). */
void web_status_copy(struct web_server *ws, char *out, size_t outlen);

/* The build version given to web_open. */
const char *web_version(const struct web_server *ws);

#endif
