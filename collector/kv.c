/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kv: parse /proc/vmstat and /proc/meminfo; see kv.h.
 *
 *   vmstat:  NAME WS+ VALUE WS* "\n"                 (mm/vmstat.c vmstat_show)
 *   meminfo: NAME ":" WS* VALUE [WS+ "kB"] WS* "\n"  (fs/proc/meminfo.c)
 *
 * Every line must end in '\n' (a buffer cut mid-line is truncation), every
 * line must carry a number, and an empty file is an error: the kernel never
 * prints one.  Duplicate names are kept as printed; kv_get returns the first.
 * One pass, no allocation.
 */
#include "collector/kv.h"

#include <string.h>

#include "common/num.h"

enum kv_kind { KV_VMSTAT, KV_MEMINFO };

static int is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_name(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) ||
	       c == '_' || c == '(' || c == ')';
}

/* Parse the line [p, end) into e; 0 or -1. */
static int parse_line(const char *p, const char *end, enum kv_kind kind, struct kv_entry *e)
{
	const char *s = p;
	size_t n, ws;

	while (p < end && is_name(*p))
		p++;
	n = (size_t)(p - s);
	if (n == 0 || n >= KV_NAME_MAX)
		return -1;
	memcpy(e->name, s, n);
	e->name[n] = '\0';
	if (kind == KV_MEMINFO) {
		if (p == end || *p != ':')
			return -1;
		p++;
	}
	for (ws = 0; p < end && is_ws(*p); p++)
		ws++;
	if (kind == KV_VMSTAT && ws == 0)
		return -1;
	for (s = p; p < end && is_digit(*p); p++)
		;
	if (num_parse_u64(s, (size_t)(p - s), &e->value) < 0)
		return -1;
	for (ws = 0; p < end && is_ws(*p); p++)
		ws++;
	/* meminfo's only unit is "kB"; anything else would change the meaning. */
	if (kind == KV_MEMINFO && ws > 0 && end - p >= 2 && p[0] == 'k' && p[1] == 'B') {
		for (p += 2; p < end && is_ws(*p); p++)
			;
	}
	return p == end ? 0 : -1;
}

static int kv_parse(const char *buf, size_t len, enum kv_kind kind, struct kv_set *out)
{
	const char *p = buf, *end = buf + len;

	out->n = 0;
	if (len == 0 || buf[len - 1] != '\n')
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (out->n == KV_MAX || parse_line(p, nl, kind, &out->e[out->n]) < 0)
			return -1;
		out->n++;
		p = nl + 1;
	}
	return 0;
}

int vmstat_parse(const char *buf, size_t len, struct kv_set *out)
{
	return kv_parse(buf, len, KV_VMSTAT, out);
}

int meminfo_parse(const char *buf, size_t len, struct kv_set *out)
{
	return kv_parse(buf, len, KV_MEMINFO, out);
}

int kv_status_kb(const char *buf, size_t len, const char *name, uint64_t *kb)
{
	size_t nlen = strlen(name), pos = 0;

	while (pos < len) {
		const char *l = buf + pos, *nl = memchr(l, '\n', len - pos), *p, *e;
		size_t n = nl ? (size_t)(nl - l) : len - pos, used;

		pos += n + 1;
		if (n <= nlen || memcmp(l, name, nlen) != 0 || l[nlen] != ':')
			continue;
		for (p = l + nlen + 1, e = l + n; p < e && (*p == ' ' || *p == '\t'); p++)
			;
		if (num_prefix_u64(p, (size_t)(e - p), kb, &used) < 0 || used == 0)
			return -1;
		p += used;
		return (size_t)(e - p) == 3 && memcmp(p, " kB", 3) == 0 ? 0 : -1;
	}
	return -1;
}

int kv_get(const struct kv_set *s, const char *name, uint64_t *v)
{
	if (!s || !name)
		return -1;
	for (int i = 0; i < s->n; i++) {
		if (strcmp(s->e[i].name, name) == 0) {
			*v = s->e[i].value;
			return 0;
		}
	}
	return -1;
}
