/* SPDX-License-Identifier: GPL-2.0-only */
/* request: what every handler may call, whoever renders (server or offline); see request.h. */
#include "web/request.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "web/escape.h"

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

int web_error(struct web_req *r, int status, const char *msg)
{
	sb_reset(&r->body);
	r->status = status;
	r->filename[0] = '\0';
	if (r->api) {
		r->ctype = "application/json";
		sb_puts(&r->body, "{\"error\":");
		escape_json(&r->body, msg, strlen(msg));
		sb_puts(&r->body, "}\n");
	} else {
		r->ctype = "text/html; charset=utf-8";
		sb_printf(&r->body, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
			  "<title>%d %s</title></head><body><h1>%d %s</h1><p>", status, reason(status), status,
			  reason(status));
		escape_html(&r->body, msg, strlen(msg));
		sb_puts(&r->body, "</p><p><a href=\"/\">fpusoakd</a></p></body></html>\n");
	}
	return -1;
}

int web_resolve(struct web_req *r, const struct runref *ref, int *db)
{
	char msg[160 + RUNREF_MAX_DBS * (RUNREF_NAME_MAX + 2)];
	runref_name names[RUNREF_MAX_DBS];
	int d, nd = r->dbs.n;
	size_t n;

	for (int i = 0; i < nd; i++)
		snprintf(names[i], sizeof names[i], "%s", r->dbs.name[i]);
	if ((d = runref_find(ref, (const runref_name *)names, nd)) >= 0) {
		*db = d;
		return 0;
	}
	if (d == RUNREF_AMBIGUOUS)
		n = (size_t)snprintf(msg, sizeof msg, "%d databases are open: address the run as NAME:%" PRId64
				     ", NAME one of", nd, ref->id);
	else
		n = (size_t)snprintf(msg, sizeof msg, "no database named '%s'; open are", ref->db);
	for (int i = 0; i < nd && n < sizeof msg; i++)
		n += (size_t)snprintf(msg + n, sizeof msg - n, "%s %s", i ? "," : "", names[i]);
	return web_error(r, d == RUNREF_AMBIGUOUS ? 400 : 404, msg);
}
