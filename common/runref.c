/* SPDX-License-Identifier: GPL-2.0-only */
/* runref: run references across several databases; see runref.h. */
#include "common/runref.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/num.h"

static int name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       c == '-';
}

int runref_parse(const char *buf, size_t len, struct runref *out)
{
	const char *colon = memchr(buf, ':', len);
	size_t nl = colon ? (size_t)(colon - buf) : 0;
	const char *id = colon ? colon + 1 : buf;
	size_t il = len - (size_t)(id - buf);

	memset(out, 0, sizeof *out);
	if (colon) {
		if (nl == 0 || nl > RUNREF_NAME_MAX)
			return -1;
		for (size_t i = 0; i < nl; i++)
			if (!name_byte(buf[i]))
				return -1;
		memcpy(out->db, buf, nl);
	}
	if (num_parse_i64(id, il, &out->id) < 0 || out->id < 1)
		return -1;
	return 0;
}

/* The short name of one path, before uniqueness. */
static void one_name(const char *path, runref_name out)
{
	static const char *const suffixes[] = { ".sqlite3", ".sqlite", ".db" };
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t sl = strlen(suffixes[i]);
		if (n > sl && strcmp(base + n - sl, suffixes[i]) == 0) {
			n -= sl;
			break;
		}
	}
	if (n == 0) {
		snprintf(out, RUNREF_NAME_MAX + 1, "db");
		return;
	}
	if (n > RUNREF_NAME_MAX)
		n = RUNREF_NAME_MAX;
	for (size_t i = 0; i < n; i++)
		out[i] = name_byte(base[i]) ? base[i] : '_';
	out[n] = '\0';
}

static int taken(const runref_name *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return 1;
	return 0;
}

void runref_names(const char *const *paths, int n, runref_name *names)
{
	for (int i = 0; i < n; i++) {
		runref_name base;
		one_name(paths[i], base);
		snprintf(names[i], RUNREF_NAME_MAX + 1, "%s", base);
		/* "fpusoakd", "fpusoakd-2", ...: the suffix replaces the tail when the name is already full. */
		for (int k = 2; taken(names, i, names[i]); k++) {
			char suf[16];
			int sl = snprintf(suf, sizeof suf, "-%d", k);
			size_t keep = strlen(base);
			if (keep + (size_t)sl > RUNREF_NAME_MAX)
				keep = RUNREF_NAME_MAX - (size_t)sl;
			snprintf(names[i], RUNREF_NAME_MAX + 1, "%.*s%s", (int)keep, base, suf);
		}
	}
}

int runref_find(const struct runref *ref, const runref_name *names, int n)
{
	if (!ref->db[0])
		return n == 1 ? 0 : RUNREF_AMBIGUOUS;
	for (int i = 0; i < n; i++)
		if (strcmp(ref->db, names[i]) == 0)
			return i;
	return RUNREF_NO_DB;
}

const char *runref_format(const char *name, int n, int64_t id, char *out, size_t outlen)
{
	if (n <= 1)
		snprintf(out, outlen, "%" PRId64, id);
	else
		snprintf(out, outlen, "%s:%" PRId64, name, id);
	return out;
}
