/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * api_util: what the API handlers share — content types, JSON values from
 * the store's conventions (-1 or NaN as null), the series request range and
 * head, and row lists built beside the body.
 */
#ifndef FPUSOAK_API_UTIL_H
#define FPUSOAK_API_UTIL_H

#include <stdint.h>

#include "common/strbuf.h"
#include "report/read.h"
#include "web/request.h"

#define API_DEFAULT_POINTS 1000   /* max_points of a series (and rows of a list) when not given */

extern const char api_json_type[];
extern const char api_csv_type[];

struct cJSON;

/* Add s (NULL = null) to o as valid UTF-8; tmp is scratch. */
void api_json_str(struct cJSON *o, const char *key, const char *s, struct strbuf *tmp);

/* Add v to o, or null for the store's -1 "NULL". */
void api_json_i64(struct cJSON *o, const char *key, int64_t v);

/* Add v to o, or null when it is not finite. */
void api_json_num(struct cJSON *o, const char *key, double v);

/* Add ms to o as an ISO 8601 UTC string, or null when negative. */
void api_json_time(struct cJSON *o, const char *key, int64_t ms);

/* Print root into the body as the 200 JSON response and free it; 0 or -1. */
int api_send_json(struct web_req *r, struct cJSON *root);

/* A JSON string literal of s, or null; appended to b. */
void api_put_str(struct strbuf *b, const char *s, size_t len);

/* A number into JSON (null for NaN/inf) or CSV (empty). */
void api_put_num(struct strbuf *sb, double v, int csv);

/* A JSON list built in rows (comma-separated objects) after the head already in r->body: append it and
 * "]}", free rows; 0.  api_drop_rows: the query failed: keep rows' error in r->body, free rows; -1. */
int api_close_rows(struct web_req *r, struct strbuf *rows);
int api_drop_rows(struct web_req *r, struct strbuf *rows);

/* The range of a series request from from/to/max_points: 0, or -1 after a 400/404 (no such run). */
int api_series_range(struct web_req *r, struct query_range *rg);

/* The opening of a series object: run_id, [name, unit,] from_ms, to_ms, bucket_ms, interval_ms, max_points, and a trailing comma. */
void api_series_head(struct web_req *r, const struct query_range *rg, const char *name, const char *unit);

/* A table the request needs but an old database lacks: 1 when present, 0 after a 404 saying so, -1. */
int api_need_table(struct web_req *r, const char *table);

/* Start a 200 CSV response: its type, "run-ID-what.csv" as the attachment's name, and the header row cols. */
void api_csv_head(struct web_req *r, const char *what, const char *cols);

#endif
