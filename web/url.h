/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * url: parse an HTTP request-target ("/runs/3?from=...&max_points=500")
 * into a decoded path and the query parameters this server knows.
 *
 * Pure: no I/O, no allocation, bounded by the caps below, so it is unit-
 * tested and fuzzed (tests/fuzz/fuzz_query_params.c).  We parse the raw
 * target ourselves instead of using libmicrohttpd's decoded arguments so
 * every rule (caps, %00, duplicates, number syntax) lives in one place.
 *
 * Rules: path and query are percent-decoded; a decoded control byte or
 * %00, a bad escape, a non-ASCII raw byte, more than URL_MAX_PARAMS
 * parameters, an over-long key or value, a duplicate known key or a bad
 * value is URL_BAD (400); a target over URL_MAX bytes or a path over
 * URL_PATH_MAX is URL_TOO_LONG (414).  Unknown keys are ignored (they count
 * towards the cap).  An empty value ("from=") means absent: that is what an
 * HTML form sends for an empty field.
 *
 * Times (from, to): Unix epoch milliseconds ("1717243200000") or ISO 8601
 * UTC "YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z]" (what <input type=datetime-local>
 * sends).  Numbers go through num_parse_i64: a sign, leading zero, junk or
 * overflow is rejected.
 */
#ifndef FPUSOAK_URL_H
#define FPUSOAK_URL_H

#include <stddef.h>
#include <stdint.h>

#include "common/runref.h"

#define URL_MAX 2048          /* whole request-target, bytes */
#define URL_PATH_MAX 256      /* decoded path, bytes */
#define URL_MAX_PARAMS 16     /* key=value pairs, known or not */
#define URL_KEY_MAX 32        /* decoded key, bytes */
#define URL_VALUE_MAX 128     /* decoded value, bytes */
#define URL_MAX_POINTS 10000  /* largest max_points accepted */
#define URL_NAME_MAX 47       /* a vmstat/meminfo field name */
#define URL_TIME_MAX INT64_C(253402300799999)   /* 9999-12-31T23:59:59.999Z */

enum url_status { URL_OK = 0, URL_BAD = -1, URL_TOO_LONG = -2 };
enum url_format { URL_FMT_NONE = 0, URL_FMT_HTML, URL_FMT_JSON, URL_FMT_CSV };

/* Known query parameters; has_* says whether each was given (non-empty). */
struct url_params {
	int has_from, has_to, has_max_points, has_a, has_b, has_name;
	int has_label, has_kernel, has_host;   /* /runs filters */
	int64_t from_ms, to_ms;      /* epoch ms, 0..URL_TIME_MAX */
	int64_t max_points;          /* 1..URL_MAX_POINTS */
	struct runref a, b;          /* runs for /compare: "ID" or "NAME:ID" (common/runref.h) */
	enum url_format format;      /* format=html|json|csv */
	int failures_all;            /* failures=all (/compare): the failure lines count every process's; failures=own the default */
	char name[URL_NAME_MAX + 1]; /* [A-Za-z0-9_()]+ */
	char label[URL_VALUE_MAX + 1], kernel[URL_VALUE_MAX + 1], host[URL_VALUE_MAX + 1];   /* /runs filters: any text */
	int nparams;                 /* pairs seen, known or not */
};

struct url {
	char path[URL_PATH_MAX + 1]; /* decoded, NUL-terminated, starts with '/' */
	size_t path_len;
	struct url_params p;
};

/* Parse raw[0..len); URL_OK, URL_BAD or URL_TOO_LONG; *why (if non-NULL) gets a static reason for the error page. */
int url_parse(const char *raw, size_t len, struct url *out, const char **why);

/* Parse a time value (epoch ms or ISO 8601 UTC, see above) of buf[0..len); 0 or -1. */
int url_parse_time(const char *buf, size_t len, int64_t *ms);

#endif
