/* SPDX-License-Identifier: GPL-2.0-only */
/* api_util: what the API handlers share; see api_util.h. */
#include "web/api_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/fmt.h"
#include "web/escape.h"
#include "web/page.h"
#include "web/server.h"

const char api_json_type[] = "application/json";
const char api_csv_type[] = "text/csv; charset=utf-8";

void api_json_str(cJSON *o, const char *key, const char *s, struct strbuf *tmp)
{
	if (!s) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	sb_reset(tmp);
	if (escape_utf8(tmp, s, strlen(s)) < 0 || !tmp->buf)
		cJSON_AddStringToObject(o, key, "");
	else
		cJSON_AddStringToObject(o, key, tmp->buf);
}

void api_json_i64(cJSON *o, const char *key, int64_t v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)v);
}

void api_json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void api_json_time(cJSON *o, const char *key, int64_t ms)
{
	char t[FMT_TIME_LEN];

	if (ms < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddStringToObject(o, key, fmt_time_iso(ms, t, sizeof t));
}

int api_send_json(struct web_req *r, cJSON *root)
{
	char *s = root ? cJSON_PrintUnformatted(root) : NULL;
	int ret = -1;

	cJSON_Delete(root);
	if (s) {
		r->status = 200;
		r->ctype = api_json_type;
		ret = sb_puts(&r->body, s);
		free(s);
	}
	return ret;
}

void api_put_str(struct strbuf *b, const char *s, size_t len)
{
	if (s)
		escape_json(b, s, len);
	else
		sb_puts(b, "null");
}

void api_put_num(struct strbuf *sb, double v, int csv)
{
	char n[40];

	if (!isfinite(v))
		sb_puts(sb, csv ? "" : "null");
	else
		sb_puts(sb, fmt_num(v, n, sizeof n));
}

int api_close_rows(struct web_req *r, struct strbuf *rows)
{
	if (rows->len)
		sb_append(&r->body, rows->buf, rows->len);
	sb_puts(&r->body, "]}");
	sb_free(rows);
	return 0;
}

int api_drop_rows(struct web_req *r, struct strbuf *rows)
{
	r->body.err |= rows->err;
	sb_free(rows);
	return -1;
}

int api_series_range(struct web_req *r, struct query_range *rg)
{
	const struct url_params *p = &r->url->p;
	struct page_run_info ri = { 0 };

	rg->from_ms = p->has_from ? p->from_ms : -1;
	rg->to_ms = p->has_to ? p->to_ms : -1;
	rg->max_points = p->has_max_points ? (int)p->max_points : API_DEFAULT_POINTS;
	if (p->has_from && p->has_to && p->from_ms > p->to_ms)
		return web_error(r, 400, "from is after to");
	if (report_read_run(r->q, r->id, page_run_info_cb, &ri) < 0)
		return -1;
	if (!ri.found)
		return web_error(r, 404, "no such run");
	return 0;
}

void api_series_head(struct web_req *r, const struct query_range *rg, const char *name, const char *unit)
{
	struct strbuf *b = &r->body;

	sb_printf(b, "{\"run_id\":%" PRId64 ",", r->id);
	if (name) {
		sb_puts(b, "\"name\":");
		escape_json(b, name, strlen(name));
		sb_printf(b, ",\"unit\":\"%s\",", unit);
	}
	if (rg->bucket_ms > 0)
		sb_printf(b, "\"from_ms\":%" PRId64 ",\"to_ms\":%" PRId64 ",", rg->from_ms, rg->to_ms);
	else
		sb_puts(b, "\"from_ms\":null,\"to_ms\":null,");
	sb_printf(b, "\"bucket_ms\":%" PRId64 ",\"interval_ms\":%" PRId64 ",\"max_points\":%d,", rg->bucket_ms,
		  rg->interval_ms, rg->max_points);
}

int api_need_table(struct web_req *r, const char *table)
{
	char msg[96];
	int has = report_read_has_table(r->q, table);

	if (has <= 0) {
		if (has == 0) {
			snprintf(msg, sizeof msg, "this database has no %s table", table);
			web_error(r, 404, msg);
		}
		return has < 0 ? -1 : 0;
	}
	return 1;
}

void api_csv_head(struct web_req *r, const char *what, const char *cols)
{
	r->status = 200;
	r->ctype = api_csv_type;
	snprintf(r->filename, sizeof r->filename, "run-%" PRId64 "-%s.csv", r->id, what);
	sb_puts(&r->body, cols);
}
