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

#include "collector/lex.h"
#include "common/num.h"

enum kv_kind { KV_VMSTAT, KV_MEMINFO };

/* Meminfo names carry parentheses ("Active(anon)"); vmstat's never do, and either may. */
#define NAME_CLASS (LEX_NAME | LEX_PAREN)

/*
 * Parse the line starting at p into e.  Precondition: buf ends in '\n' (kv_parse checks it), and no
 * class below takes a '\n', so every scan stops at the line's end without a bound check: the
 * line's end is the first byte no rule takes, and it must be the '\n'.  Walking to it instead of
 * finding it first with memchr reads each byte once (~250 lines, ~5.5 KB a tick).  Returns the
 * position after the '\n', or NULL if the line is malformed.
 */
static const char *parse_line(const char *p, enum kv_kind kind, struct kv_entry *e)
{
	const char *s = p;
	size_t n, ws;

	while (lex_in(*p, NAME_CLASS))
		p++;
	n = (size_t)(p - s);
	if (n == 0 || n >= KV_NAME_MAX)
		return NULL;
	memcpy(e->name, s, n);
	e->name[n] = '\0';
	if (kind == KV_MEMINFO) {
		if (*p != ':')
			return NULL;
		p++;
	}
	for (ws = 0; lex_is_ws(*p); p++)
		ws++;
	if (kind == KV_VMSTAT && ws == 0)
		return NULL;
	for (s = p; lex_is_digit(*p); p++)
		;
	if (num_parse_u64(s, (size_t)(p - s), &e->value) < 0)
		return NULL;
	for (ws = 0; lex_is_ws(*p); p++)
		ws++;
	/* meminfo's only unit is "kB"; anything else would change the meaning.  p[0] is not the final
	 * '\n' here, so p[1] is still in the buffer. */
	if (kind == KV_MEMINFO && ws > 0 && p[0] == 'k' && p[1] == 'B') {
		for (p += 2; lex_is_ws(*p); p++)
			;
	}
	return *p == '\n' ? p + 1 : NULL;
}

static int kv_parse(const char *buf, size_t len, enum kv_kind kind, struct kv_set *out)
{
	const char *p = buf, *end = buf + len;

	out->n = 0;
	if (len == 0 || buf[len - 1] != '\n')
		return -1;
	while (p < end) {
		if (out->n == KV_MAX || !(p = parse_line(p, kind, &out->e[out->n])))
			return -1;
		out->n++;
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
