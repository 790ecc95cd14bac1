/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pagetypeinfo: parse /proc/pagetypeinfo; see pagetypeinfo.h.
 *
 * A line-driven state machine.  Headers move the state; "Node" rows are
 * read according to the table they sit in; blank lines separate tables
 * and are otherwise ignored.  A node's block (from "Page block order:" to
 * the next one or EOF) is checked for completeness when it closes, which
 * is what catches a file cut at a line boundary.  Lookups are linear in
 * the zones of one block (a handful), so a parse is linear in the input.
 */
#include "collector/pagetypeinfo.h"

#include <limits.h>
#include <string.h>

#include "collector/lex.h"
#include "common/num.h"

enum pti_state {
	PTI_START,     /* expect "Page block order:" */
	PTI_PPB,       /* expect "Pages per block:" */
	PTI_FREEHDR,   /* expect the free-table header */
	PTI_FREE,      /* free rows, or the blocks header */
	PTI_BLOCKS,    /* blocks rows, mixed header, or the next node */
	PTI_MIXED,     /* mixed rows, or the next node */
};

/* Parser state beyond what *out holds; lives on the stack. */
struct pti {
	struct pagetypeinfo *out;
	enum pti_state state;
	int first;                               /* first zone index of the current node block */
	int ncols;                               /* columns of the current blocks/mixed table */
	int col_type[PAGETYPEINFO_MAX_TYPES];    /* column -> type index */
	int has_mixed_hdr;                       /* current block printed a mixed table */
	uint32_t free_seen[PAGETYPEINFO_MAX_ZONES];   /* bit t: free row for type t */
	uint8_t blocks_seen[PAGETYPEINFO_MAX_ZONES];
};

/*
 * A [A-Za-z0-9_] name shorter than cap into dst; 0 or -1.  Kernel zone
 * and migratetype names start with a letter, so a leading digit means
 * the name is missing and a count took its place.
 */
static int get_name(struct lex *c, char *dst, size_t cap)
{
	const char *s = c->p;
	size_t n;

	while (c->p < c->end && lex_is_name(*c->p))
		c->p++;
	n = (size_t)(c->p - s);
	if (n == 0 || n >= cap || lex_is_digit(*s))
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* A field separator: at least one blank, or the end of the line. */
static int sep(struct lex *c)
{
	return lex_skip_ws(c) > 0 || c->p == c->end ? 0 : -1;
}

/* Type index of name, adding it if new; -1 when over the cap. */
static int type_intern(struct pagetypeinfo *p, const char *nm)
{
	int t = pagetypeinfo_type_index(p, nm);

	if (t >= 0)
		return t;
	if (p->ntypes == PAGETYPEINFO_MAX_TYPES)
		return -1;
	memcpy(p->type[p->ntypes], nm, strlen(nm) + 1);
	return p->ntypes++;
}

/* "Page block order: N" / "Pages per block: N": the value after the label. */
static int label_value(struct lex *c, uint64_t *v)
{
	lex_skip_ws(c);
	if (lex_number(c, v) < 0)
		return -1;
	lex_skip_ws(c);
	return c->p == c->end ? 0 : -1;
}

/* "Free pages count per migrate type at order 0 1 ... n-1". */
static int free_header(struct pti *st, struct lex *c)
{
	struct pagetypeinfo *p = st->out;
	uint64_t v;
	int k = 0;

	while (sep(c) == 0 && c->p < c->end) {
		if (k == PAGETYPEINFO_MAX_ORDER || lex_number(c, &v) < 0 || v != (uint64_t)k)
			return -1;
		k++;
	}
	if (c->p != c->end || k == 0 || (p->norders != 0 && k != p->norders))
		return -1;
	p->norders = k;
	return 0;
}

/* "Number of blocks type" / "Number of mixed blocks" column names. */
static int column_header(struct pti *st, struct lex *c)
{
	char nm[PAGETYPEINFO_TYPE_NAME_MAX];
	uint32_t seen = 0;
	int t;

	st->ncols = 0;
	while (sep(c) == 0 && c->p < c->end) {
		if (st->ncols == PAGETYPEINFO_MAX_TYPES || get_name(c, nm, sizeof nm) < 0)
			return -1;
		if ((t = type_intern(st->out, nm)) < 0 || (seen & 1u << t))
			return -1;
		seen |= 1u << t;
		st->col_type[st->ncols++] = t;
	}
	return c->p == c->end && st->ncols > 0 ? 0 : -1;
}

/* Index of (node, zone) at or after index from, or -1. */
static int zone_find(const struct pagetypeinfo *p, int from, int node, const char *zone)
{
	for (int i = from; i < p->nzones; i++)
		if (p->z[i].node == node && strcmp(p->z[i].zone, zone) == 0)
			return i;
	return -1;
}

/* "Node N, zone NAME" into *node and zone; 0 or -1. */
static int row_prefix(struct lex *c, int *node, char *zone)
{
	uint64_t v;

	if (lex_skip_ws(c) == 0 || lex_number(c, &v) < 0 || v > INT_MAX || !lex_accept(c, ","))
		return -1;
	if (lex_skip_ws(c) == 0 || !lex_accept(c, "zone") || lex_skip_ws(c) == 0)
		return -1;
	*node = (int)v;
	return get_name(c, zone, ZONE_NAME_MAX);
}

/* The zone a free row belongs to: found in this block, or new; -1 if junk. */
static int free_zone(struct pti *st, int node, const char *zone)
{
	struct pagetypeinfo *p = st->out;
	int i = zone_find(p, 0, node, zone);

	if (i >= 0)
		return i >= st->first ? i : -1;   /* a zone printed by two node blocks is junk */
	if (p->nzones == PAGETYPEINFO_MAX_ZONES)
		return -1;
	i = p->nzones++;
	memset(&p->z[i], 0, sizeof p->z[i]);
	p->z[i].node = node;
	memcpy(p->z[i].zone, zone, strlen(zone) + 1);
	st->free_seen[i] = 0;
	st->blocks_seen[i] = 0;
	return i;
}

/* ", type NAME c0 c1 ..." of a free row; cells may read ">N" (capped). */
static int free_row(struct pti *st, struct lex *c, int node, const char *zone)
{
	struct pagetypeinfo *p = st->out;
	char nm[PAGETYPEINFO_TYPE_NAME_MAX];
	struct pagetypeinfo_zone *z;
	int i, t, k = 0;

	if (!lex_accept(c, ",") || lex_skip_ws(c) == 0 || !lex_accept(c, "type") || lex_skip_ws(c) == 0)
		return -1;
	if (get_name(c, nm, sizeof nm) < 0 || (t = type_intern(p, nm)) < 0)
		return -1;
	if ((i = free_zone(st, node, zone)) < 0 || (st->free_seen[i] & 1u << t))
		return -1;
	st->free_seen[i] |= 1u << t;
	z = &p->z[i];
	while (sep(c) == 0 && c->p < c->end) {
		if (k == p->norders)
			return -1;
		z->capped[t][k] = (uint8_t)lex_accept(c, ">");
		if (lex_number(c, &z->free[t][k]) < 0)
			return -1;
		k++;
	}
	return c->p == c->end && k == p->norders ? 0 : -1;
}

/* The counts of a blocks or mixed row, in header column order. */
static int count_row(struct pti *st, struct lex *c, int node, const char *zone)
{
	struct pagetypeinfo *p = st->out;
	struct pagetypeinfo_zone *z;
	int i, k = 0;

	if ((i = zone_find(p, st->first, node, zone)) < 0)
		return -1;   /* every zone was introduced by the free table */
	z = &p->z[i];
	if (st->state == PTI_BLOCKS) {
		if (st->blocks_seen[i])
			return -1;
		st->blocks_seen[i] = 1;
	} else {
		if (z->has_mixed)
			return -1;
		z->has_mixed = 1;
	}
	while (sep(c) == 0 && c->p < c->end) {
		uint64_t *dst = st->state == PTI_BLOCKS ? z->blocks : z->mixed;

		if (k == st->ncols || lex_number(c, &dst[st->col_type[k]]) < 0)
			return -1;
		k++;
	}
	return c->p == c->end && k == st->ncols ? 0 : -1;
}

static int node_row(struct pti *st, struct lex *c)
{
	char zone[ZONE_NAME_MAX];
	int node;

	if (row_prefix(c, &node, zone) < 0)
		return -1;
	switch (st->state) {
	case PTI_FREE:
		return free_row(st, c, node, zone);
	case PTI_BLOCKS:
	case PTI_MIXED:
		return count_row(st, c, node, zone);
	default:
		return -1;
	}
}

/*
 * Close the current node block: every zone has a free row for every type
 * named so far and a blocks row, the blocks header named every type, and
 * the mixed table (if printed) covered every zone.
 */
static int block_done(struct pti *st)
{
	struct pagetypeinfo *p = st->out;
	uint32_t all = p->ntypes == 32 ? UINT32_MAX : (1u << p->ntypes) - 1;

	if (st->state != PTI_BLOCKS && st->state != PTI_MIXED)
		return -1;
	if (st->first == p->nzones)
		return -1;
	for (int i = st->first; i < p->nzones; i++) {
		if (st->free_seen[i] != all || !st->blocks_seen[i])
			return -1;
		if (st->has_mixed_hdr != p->z[i].has_mixed)
			return -1;
	}
	return 0;
}

/* The blocks header must name exactly the types the free rows used. */
static int columns_cover_types(const struct pti *st)
{
	return st->ncols == st->out->ntypes ? 0 : -1;
}

static int page_block_order(struct pti *st, struct lex *c)
{
	struct pagetypeinfo *p = st->out;
	uint64_t v;

	if (st->state != PTI_START && block_done(st) < 0)
		return -1;
	if (label_value(c, &v) < 0 || v > 62)
		return -1;
	if (st->state != PTI_START && (int)v != p->pageblock_order)
		return -1;
	p->pageblock_order = (int)v;
	st->first = p->nzones;
	st->has_mixed_hdr = 0;
	st->state = PTI_PPB;
	return 0;
}

static int line(struct pti *st, struct lex *c)
{
	struct pagetypeinfo *p = st->out;
	uint64_t v;

	lex_skip_ws(c);
	if (c->p == c->end)
		return 0;   /* blank lines separate tables */
	if (lex_accept(c, "Page block order:"))
		return page_block_order(st, c);
	if (lex_accept(c, "Pages per block:")) {
		if (st->state != PTI_PPB || label_value(c, &v) < 0)
			return -1;
		if (v != (uint64_t)1 << p->pageblock_order)
			return -1;
		p->pages_per_block = v;
		st->state = PTI_FREEHDR;
		return 0;
	}
	if (lex_accept(c, "Free pages count per migrate type at order")) {
		if (st->state != PTI_FREEHDR || free_header(st, c) < 0)
			return -1;
		st->state = PTI_FREE;
		return 0;
	}
	if (lex_accept(c, "Number of blocks type")) {
		if (st->state != PTI_FREE || st->first == p->nzones)
			return -1;
		if (column_header(st, c) < 0 || columns_cover_types(st) < 0)
			return -1;
		st->state = PTI_BLOCKS;
		return 0;
	}
	if (lex_accept(c, "Number of mixed blocks")) {
		if (st->state != PTI_BLOCKS || column_header(st, c) < 0 || columns_cover_types(st) < 0)
			return -1;
		st->has_mixed_hdr = 1;
		st->state = PTI_MIXED;
		return 0;
	}
	if (lex_accept(c, "Node"))
		return node_row(st, c);
	return -1;
}

int pagetypeinfo_parse(const char *buf, size_t len, struct pagetypeinfo *out)
{
	const char *p = buf, *end = buf + len;
	struct pti st;

	memset(&st, 0, sizeof st);
	st.out = out;
	st.state = PTI_START;
	out->pageblock_order = 0;
	out->pages_per_block = 0;
	out->norders = 0;
	out->ntypes = 0;
	out->nzones = 0;
	if (len == 0 || buf[len - 1] != '\n')
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct lex c = { p, nl };

		if (line(&st, &c) < 0)
			return -1;
		p = nl + 1;
	}
	return block_done(&st);
}

int pagetypeinfo_type_index(const struct pagetypeinfo *p, const char *name)
{
	for (int t = 0; t < p->ntypes; t++)
		if (strcmp(p->type[t], name) == 0)
			return t;
	return -1;
}

const struct pagetypeinfo_zone *pagetypeinfo_find_zone(const struct pagetypeinfo *p, int node, const char *zone)
{
	int i = zone_find(p, 0, node, zone);

	return i >= 0 ? &p->z[i] : NULL;
}
