/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * buddyinfo: parse /proc/buddyinfo; see buddyinfo.h.
 *
 * The kernel prints each zone as "Node %d, zone %8s " followed by
 * "%6lu " per order (mm/vmstat.c frag_show_print), so a line is
 *   "Node" WS node "," WS "zone" WS name WS count (WS count)* WS* "\n".
 * Every line must end in '\n': a buffer cut mid-line is truncation.
 * One pass over the bytes, no allocation.
 */
#include "collector/buddyinfo.h"

#include <limits.h>
#include <string.h>

#include "collector/lex.h"
#include "common/num.h"

/* "Node N, zone NAME" prefix into z; 0 or -1. */
static int zone_prefix(struct lex *c, struct buddy_zone *z)
{
	uint64_t node;
	const char *s;
	size_t n;

	if (!lex_accept(c, "Node") || lex_skip_ws(c) == 0 || lex_number(c, &node) < 0 || node > INT_MAX)
		return -1;
	if (!lex_accept(c, ",") || lex_skip_ws(c) == 0 || !lex_accept(c, "zone") || lex_skip_ws(c) == 0)
		return -1;
	s = c->p;
	while (c->p < c->end && lex_is_name(*c->p))
		c->p++;
	n = (size_t)(c->p - s);
	/* Kernel zone names start with a letter; "zone 1 2" is a missing name, not zone "1". */
	if (n == 0 || n >= ZONE_NAME_MAX || lex_is_digit(*s))
		return -1;
	memcpy(z->zone, s, n);
	z->zone[n] = '\0';
	z->node = (int)node;
	return 0;
}

/* Parse one line into z; returns the number of order columns or -1. */
static int parse_line(struct lex *c, struct buddy_zone *z)
{
	int k = 0;

	if (zone_prefix(c, z) < 0)
		return -1;
	for (;;) {
		/* Every column, the first included, is preceded by whitespace. */
		if (lex_skip_ws(c) == 0 && c->p < c->end)
			return -1;
		if (c->p == c->end)
			break;
		if (k == BUDDY_MAX_ORDER || lex_number(c, &z->free[k]) < 0)
			return -1;
		k++;
	}
	return k > 0 ? k : -1;
}

/* A second line for the same (node, zone) is junk, not an update. */
static int is_duplicate(const struct buddyinfo *bi, const struct buddy_zone *z)
{
	for (int i = 0; i < bi->nzones; i++)
		if (bi->z[i].node == z->node && strcmp(bi->z[i].zone, z->zone) == 0)
			return 1;
	return 0;
}

int buddyinfo_parse(const char *buf, size_t len, struct buddyinfo *out)
{
	const char *p = buf, *end = buf + len;

	out->nzones = 0;
	out->norders = 0;
	if (len == 0 || buf[len - 1] != '\n')
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct lex c = { p, nl };
		struct buddy_zone *z;
		int k;

		if (out->nzones == BUDDY_MAX_ZONES)
			return -1;
		z = &out->z[out->nzones];
		memset(z, 0, sizeof *z);
		k = parse_line(&c, z);
		if (k < 0 || (out->norders != 0 && k != out->norders) || is_duplicate(out, z))
			return -1;
		out->norders = k;
		out->nzones++;
		p = nl + 1;
	}
	return 0;
}

uint64_t buddyinfo_free_pages(const struct buddy_zone *z, int norders)
{
	uint64_t sum = 0;

	if (norders > BUDDY_MAX_ORDER)
		norders = BUDDY_MAX_ORDER;
	for (int k = 0; k < norders; k++) {
		/* Saturate rather than wrap: junk must not look like a small number. */
		if (z->free[k] > (UINT64_MAX >> k) || (z->free[k] << k) > UINT64_MAX - sum)
			return UINT64_MAX;
		sum += z->free[k] << k;
	}
	return sum;
}
