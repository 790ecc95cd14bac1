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

#include "common/num.h"

/* A cursor over one line, '\n' excluded. */
struct cur {
	const char *p, *end;
};

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
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_';
}

/* Skip whitespace; returns how many bytes were skipped. */
static size_t skip_ws(struct cur *c)
{
	const char *s = c->p;

	while (c->p < c->end && is_ws(*c->p))
		c->p++;
	return (size_t)(c->p - s);
}

/* Consume the literal lit; 0 or -1. */
static int expect(struct cur *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
		return -1;
	c->p += n;
	return 0;
}

/* Consume a run of digits as uint64 (no leading zeros, no overflow); 0 or -1. */
static int number(struct cur *c, uint64_t *v)
{
	const char *s = c->p;

	while (c->p < c->end && is_digit(*c->p))
		c->p++;
	return num_parse_u64(s, (size_t)(c->p - s), v);
}

/* "Node N, zone NAME" prefix into z; 0 or -1. */
static int zone_prefix(struct cur *c, struct buddy_zone *z)
{
	uint64_t node;
	const char *s;
	size_t n;

	if (expect(c, "Node") < 0 || skip_ws(c) == 0 || number(c, &node) < 0 || node > INT_MAX)
		return -1;
	if (expect(c, ",") < 0 || skip_ws(c) == 0 || expect(c, "zone") < 0 || skip_ws(c) == 0)
		return -1;
	s = c->p;
	while (c->p < c->end && is_name(*c->p))
		c->p++;
	n = (size_t)(c->p - s);
	/* Kernel zone names start with a letter; "zone 1 2" is a missing name, not zone "1". */
	if (n == 0 || n >= ZONE_NAME_MAX || is_digit(*s))
		return -1;
	memcpy(z->zone, s, n);
	z->zone[n] = '\0';
	z->node = (int)node;
	return 0;
}

/* Parse one line into z; returns the number of order columns or -1. */
static int parse_line(struct cur *c, struct buddy_zone *z)
{
	int k = 0;

	if (zone_prefix(c, z) < 0)
		return -1;
	for (;;) {
		/* Every column, the first included, is preceded by whitespace. */
		if (skip_ws(c) == 0 && c->p < c->end)
			return -1;
		if (c->p == c->end)
			break;
		if (k == BUDDY_MAX_ORDER || number(c, &z->free[k]) < 0)
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
		struct cur c = { p, nl };
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
