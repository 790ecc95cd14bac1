/* SPDX-License-Identifier: GPL-2.0-only */
/* url: request-target parsing; see url.h for the rules. */
#include "web/url.h"

#include <string.h>

#include "common/num.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Percent-decode s[0..len) into out (cap bytes, NUL-terminated).  plus:
 * '+' means space (query part).  0, URL_BAD for a bad escape, a control
 * byte or a non-ASCII raw byte, URL_TOO_LONG when it does not fit.
 */
static int decode(const char *s, size_t len, int plus, char *out, size_t cap, size_t *outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7F)
			return URL_BAD;   /* raw bytes must be visible ASCII (RFC 3986) */
		if (c == '%') {
			int hi, lo;
			if (len - i < 3 || (hi = hexval(s[i + 1])) < 0 || (lo = hexval(s[i + 2])) < 0)
				return URL_BAD;
			c = (unsigned char)(hi << 4 | lo);
			if (c < 0x20 || c == 0x7F)
				return URL_BAD;   /* %00 and friends: never meaningful here */
			i += 2;
		} else if (c == '+' && plus) {
			c = ' ';
		}
		if (o + 1 >= cap)
			return URL_TOO_LONG;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	*outlen = o;
	return 0;
}

/* Exactly n ASCII digits at s (leading zeros allowed: "05"); 0 or -1. */
static int fixed_digits(const char *s, size_t n, int *out)
{
	int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
	static const int dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : dm[m - 1];
}

/* "YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z]" */
static int parse_iso(const char *s, size_t len, int64_t *ms)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, frac = 0;
	size_t i = 10;

	if (len < 10 || fixed_digits(s, 4, &y) < 0 || s[4] != '-' || fixed_digits(s + 5, 2, &mo) < 0 ||
	    s[7] != '-' || fixed_digits(s + 8, 2, &d) < 0)
		return -1;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
		return -1;
	if (i < len && (s[i] == 'T' || s[i] == ' ')) {
		if (len - i < 6 || fixed_digits(s + i + 1, 2, &h) < 0 || s[i + 3] != ':' ||
		    fixed_digits(s + i + 4, 2, &mi) < 0 || h > 23 || mi > 59)
			return -1;
		i += 6;
		if (i < len && s[i] == ':') {
			if (len - i < 3 || fixed_digits(s + i + 1, 2, &sec) < 0 || sec > 59)
				return -1;
			i += 3;
			if (i < len && s[i] == '.') {
				if (len - i < 4 || fixed_digits(s + i + 1, 3, &frac) < 0)
					return -1;
				i += 4;
			}
		}
	}
	if (i < len && s[i] == 'Z')
		i++;
	if (i != len)
		return -1;
	*ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * INT64_C(60000) + sec * 1000 + frac;
	return 0;
}

int url_parse_time(const char *buf, size_t len, int64_t *ms)
{
	int64_t v;

	if (len >= 5 && buf[4] == '-') {
		if (parse_iso(buf, len, &v) < 0)
			return -1;
	} else if (num_parse_i64(buf, len, &v) < 0) {
		return -1;
	}
	if (v < 0 || v > URL_TIME_MAX)
		return -1;
	*ms = v;
	return 0;
}

static int parse_pos(const char *v, size_t len, int64_t max, int64_t *out)
{
	int64_t x;

	if (num_parse_i64(v, len, &x) < 0 || x < 1 || x > max)
		return -1;
	*out = x;
	return 0;
}

static int valid_name(const char *v, size_t len)
{
	if (len == 0 || len > URL_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = v[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '(' || c == ')'))
			return 0;
	}
	return 1;
}

/* Apply one decoded pair; 0 or URL_BAD with *why set. */
static int apply_param(struct url_params *p, const char *k, const char *v, size_t vlen, const char **why)
{
	int *has;

	if (strcmp(k, "from") == 0) {
		has = &p->has_from;
	} else if (strcmp(k, "to") == 0) {
		has = &p->has_to;
	} else if (strcmp(k, "max_points") == 0) {
		has = &p->has_max_points;
	} else if (strcmp(k, "a") == 0) {
		has = &p->has_a;
	} else if (strcmp(k, "b") == 0) {
		has = &p->has_b;
	} else if (strcmp(k, "name") == 0) {
		has = &p->has_name;
	} else if (strcmp(k, "label") == 0 || strcmp(k, "kernel") == 0 || strcmp(k, "host") == 0) {
		/* Filters of /runs: any text (a label may hold anything); the page escapes it. */
		char *dst = k[0] == 'l' ? p->label : k[0] == 'k' ? p->kernel : p->host;
		has = k[0] == 'l' ? &p->has_label : k[0] == 'k' ? &p->has_kernel : &p->has_host;
		if (vlen == 0)
			return 0;
		if (*has) {
			*why = "duplicate query parameter";
			return URL_BAD;
		}
		*has = 1;
		memcpy(dst, v, vlen + 1);
		return 0;
	} else if (strcmp(k, "failures") == 0) {
		/* Whose failures a comparison counts (report/whose.h): the runs' own, or every process's. */
		if (strcmp(v, "all") == 0)
			p->failures_all = 1;
		else if (strcmp(v, "own") == 0 || vlen == 0)
			p->failures_all = 0;
		else {
			*why = "failures must be own or all";
			return URL_BAD;
		}
		return 0;
	} else if (strcmp(k, "format") == 0) {
		if (p->format != URL_FMT_NONE) {
			*why = "duplicate query parameter: format";
			return URL_BAD;
		}
		if (strcmp(v, "json") == 0)
			p->format = URL_FMT_JSON;
		else if (strcmp(v, "csv") == 0)
			p->format = URL_FMT_CSV;
		else if (strcmp(v, "html") == 0)
			p->format = URL_FMT_HTML;
		else if (vlen != 0) {
			*why = "format must be html, json or csv";
			return URL_BAD;
		}
		return 0;
	} else {
		return 0;   /* unknown: ignored, but it counted towards the cap */
	}
	if (vlen == 0)
		return 0;   /* an empty form field */
	if (*has) {
		*why = "duplicate query parameter";
		return URL_BAD;
	}
	*has = 1;
	if (has == &p->has_from || has == &p->has_to) {
		if (url_parse_time(v, vlen, has == &p->has_from ? &p->from_ms : &p->to_ms) < 0) {
			*why = "from/to must be epoch milliseconds or YYYY-MM-DDTHH:MM[:SS[.fff]][Z] (UTC)";
			return URL_BAD;
		}
	} else if (has == &p->has_max_points) {
		if (parse_pos(v, vlen, URL_MAX_POINTS, &p->max_points) < 0) {
			*why = "max_points must be an integer from 1 to 10000";
			return URL_BAD;
		}
	} else if (has == &p->has_a || has == &p->has_b) {
		if (runref_parse(v, vlen, has == &p->has_a ? &p->a : &p->b) < 0) {
			*why = "a run id must be a positive integer (or NAME:ID)";
			return URL_BAD;
		}
	} else {
		if (!valid_name(v, vlen)) {
			*why = "name must be a vmstat or meminfo field name";
			return URL_BAD;
		}
		memcpy(p->name, v, vlen + 1);
	}
	return 0;
}

static int parse_query(const char *q, size_t len, struct url_params *p, const char **why)
{
	size_t i = 0;

	while (i <= len) {
		size_t end = i, eq;
		char k[URL_KEY_MAX + 1], v[URL_VALUE_MAX + 1];
		size_t klen, vlen;
		int r;

		while (end < len && q[end] != '&')
			end++;
		if (end == i) {   /* "a=1&&b=2", a trailing '&' or an empty query */
			i = end + 1;
			continue;
		}
		if (++p->nparams > URL_MAX_PARAMS) {
			*why = "too many query parameters";
			return URL_BAD;
		}
		for (eq = i; eq < end && q[eq] != '='; eq++)
			;
		r = decode(q + i, eq - i, 1, k, sizeof k, &klen);
		if (r == 0)
			r = eq < end ? decode(q + eq + 1, end - eq - 1, 1, v, sizeof v, &vlen)
				     : (v[0] = '\0', vlen = 0, 0);
		if (r == URL_TOO_LONG) {
			*why = "query parameter too long";
			return URL_BAD;
		}
		if (r < 0) {
			*why = "bad character or escape in query";
			return URL_BAD;
		}
		if (strlen(k) != klen || strlen(v) != vlen) {
			*why = "bad character or escape in query";
			return URL_BAD;
		}
		if (apply_param(p, k, v, vlen, why) < 0)
			return URL_BAD;
		i = end + 1;
	}
	return 0;
}

int url_parse(const char *raw, size_t len, struct url *out, const char **why)
{
	const char *dummy, *q;
	size_t plen, qlen;
	int r;

	if (!why)
		why = &dummy;
	*why = "";
	memset(out, 0, sizeof *out);
	if (len > URL_MAX) {
		*why = "request-target too long";
		return URL_TOO_LONG;
	}
	/* absolute-form (RFC 9112 3.2.2): drop scheme and authority. */
	if ((len >= 7 && strncmp(raw, "http://", 7) == 0) || (len >= 8 && strncmp(raw, "https://", 8) == 0)) {
		size_t i = raw[4] == 's' ? 8 : 7;
		while (i < len && raw[i] != '/' && raw[i] != '?' && raw[i] != '#')
			i++;
		raw += i;
		len -= i;
		if (len == 0 || raw[0] != '/') {
			*why = "bad request-target";
			return URL_BAD;
		}
	}
	if (len == 0 || raw[0] != '/') {
		*why = "request-target must start with /";
		return URL_BAD;
	}
	for (plen = 0; plen < len && raw[plen] != '?' && raw[plen] != '#'; plen++)
		;
	q = raw + plen + (plen < len && raw[plen] == '?');
	for (qlen = 0; q + qlen < raw + len && q[qlen] != '#'; qlen++)
		;
	r = decode(raw, plen, 0, out->path, sizeof out->path, &out->path_len);
	if (r == URL_TOO_LONG) {
		*why = "path too long";
		return URL_TOO_LONG;
	}
	if (r < 0) {
		*why = "bad character or escape in path";
		return URL_BAD;
	}
	if (plen < len && raw[plen] == '?' && parse_query(q, qlen, &out->p, why) < 0)
		return URL_BAD;
	return URL_OK;
}
