/* SPDX-License-Identifier: GPL-2.0-only */
/* memdump: the Mem-Info dump of a page allocation failure, line by line; see memdump.h. */
#include "collector/memdump.h"

#include <limits.h>
#include <string.h>

#include "collector/lex.h"
#include "common/num.h"

enum { OPEN_NONE, OPEN_PROT, OPEN_BUDDY };

static const char MT_LETTERS[] = "UMEHCIR";   /* bit k of the set is MT_LETTERS[k] */

void memdump_init(struct memdump *d)
{
	memset(d, 0, sizeof *d);
	d->pending_node = -1;
	d->open_zone = -1;
	d->wmark_zone = -1;
}

/* Skip to the next blank-separated token; returns its length (0 at the end). */
static size_t token(struct lex *c, const char **tok)
{
	lex_skip_ws(c);
	*tok = c->p;
	while (c->p < c->end && !lex_is_ws(*c->p))
		c->p++;
	return (size_t)(c->p - *tok);
}

/* "Node N" at the cursor (followed by a blank or the end): 1 and *node, 0 if absent (cursor unmoved), -1 bad. */
static int node_prefix(struct lex *c, int *node)
{
	struct lex save = *c;
	uint64_t v;

	if (!lex_accept(c, "Node") || lex_skip_ws(c) == 0) {
		*c = save;
		return 0;
	}
	if (lex_number(c, &v) < 0 || v > INT_MAX || (c->p < c->end && !lex_is_ws(*c->p)))
		return -1;
	*node = (int)v;
	lex_skip_ws(c);
	return 1;
}

/* A zone name at the cursor into out: a letter, then [A-Za-z0-9_]; its length, 0 if none fits. */
static size_t zone_name(struct lex *c, char *out)
{
	const char *s = c->p;
	size_t n;

	while (c->p < c->end && lex_is_name(*c->p))
		c->p++;
	n = (size_t)(c->p - s);
	if (n == 0 || n >= ZONE_NAME_MAX || lex_is_digit(*s) || *s == '_') {
		c->p = s;
		return 0;
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return n;
}

/* "NkB" or "NKB" (reserved_highatomic prints KB) as the whole of s[0..n); 0 or -1. */
static int kb_value(const char *s, size_t n, uint64_t *v)
{
	if (n < 3 || s[n - 1] != 'B' || (s[n - 2] != 'k' && s[n - 2] != 'K'))
		return -1;
	return num_parse_u64(s, n - 2, v);
}

static struct memdump_zone *find_zone(struct memdump *d, int node, const char *name)
{
	for (int i = 0; i < d->nzones; i++)
		if (d->z[i].node == node && strcmp(d->z[i].name, name) == 0)
			return &d->z[i];
	return NULL;
}

const struct memdump_zone *memdump_find(const struct memdump *d, int node, const char *name)
{
	return find_zone((struct memdump *)d, node, name);
}

/* The zone (node, name), made if new; NULL (FULL set) past the cap. */
static struct memdump_zone *zone_for(struct memdump *d, int node, const char *name)
{
	struct memdump_zone *z = find_zone(d, node, name);

	if (z)
		return z;
	if (d->nzones == MEMDUMP_MAX_ZONES) {
		d->flags |= MEMDUMP_FULL;
		return NULL;
	}
	z = &d->z[d->nzones++];
	memset(z, 0, sizeof *z);
	z->node = node;
	memcpy(z->name, name, strlen(name) + 1);
	return z;
}

/* The node a line without its own "Node N" belongs to: a "Node N " record just before it, else -1. */
static int take_node(struct memdump *d, int have, int node)
{
	int n = have ? node : d->pending_node;

	d->pending_node = -1;
	return n;
}

struct wline {
	uint64_t free, boost, min, low, high, highatomic, cma, managed;
	unsigned have, req;    /* req: free/min/low/high seen, one bit each */
};

/* One "key:value" field of a zone line; fields the model does not need are skipped. 0, or -1 bad. */
static int wfield(struct wline *w, const char *t, size_t n)
{
	static const struct {
		const char *key;
		size_t off;
		unsigned have, req;
	} KEYS[] = {
		{ "free:", offsetof(struct wline, free), 0, 1 },
		{ "min:", offsetof(struct wline, min), 0, 2 },
		{ "low:", offsetof(struct wline, low), 0, 4 },
		{ "high:", offsetof(struct wline, high), 0, 8 },
		{ "boost:", offsetof(struct wline, boost), MEMDUMP_BOOST, 0 },
		{ "reserved_highatomic:", offsetof(struct wline, highatomic), MEMDUMP_HIGHATOMIC, 0 },
		{ "free_cma:", offsetof(struct wline, cma), MEMDUMP_FREE_CMA, 0 },
		{ "managed:", offsetof(struct wline, managed), MEMDUMP_MANAGED, 0 },
	};

	for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++) {
		size_t kl = strlen(KEYS[k].key);
		unsigned bit = KEYS[k].have | (KEYS[k].req << 16);

		if (n <= kl || memcmp(t, KEYS[k].key, kl) != 0)
			continue;
		/* A known key twice, or with a value that is not kB, is not the kernel's line. */
		if (((w->have | (w->req << 16)) & bit) ||
		    kb_value(t + kl, n - kl, (uint64_t *)((char *)w + KEYS[k].off)) < 0)
			return -1;
		w->have |= KEYS[k].have;
		w->req |= KEYS[k].req;
		return 0;
	}
	return 0;
}

/* The zone line after "[Node N ]NAME " (cursor at "free:"); MEMDUMP_LINE_USED, with BAD set when it does not parse. */
static int zone_line(struct memdump *d, struct lex *c, int node, const char *name)
{
	struct wline w = { 0 };
	struct memdump_zone *z;
	const char *t;
	size_t n;

	while ((n = token(c, &t)) > 0)
		if (wfield(&w, t, n) < 0) {
			d->flags |= MEMDUMP_BAD;
			return MEMDUMP_LINE_USED;
		}
	if (w.req != 15) {
		d->flags |= MEMDUMP_BAD;
		return MEMDUMP_LINE_USED;
	}
	if (!(z = zone_for(d, node, name)))
		return MEMDUMP_LINE_USED;
	if (z->have & MEMDUMP_WMARK) {
		/* Printed twice: the same numbers are a repeat, others a second dump interleaved with ours. */
		if (z->free_kb != w.free || z->min_kb != w.min || z->low_kb != w.low || z->high_kb != w.high)
			d->flags |= MEMDUMP_CONFLICT;
		d->open = OPEN_NONE;
		d->wmark_zone = -2;
		return MEMDUMP_LINE_USED;
	}
	z->have |= MEMDUMP_WMARK | w.have;
	z->free_kb = w.free;
	z->boost_kb = w.boost;
	z->min_kb = w.min;
	z->low_kb = w.low;
	z->high_kb = w.high;
	z->reserved_highatomic_kb = w.highatomic;
	z->free_cma_kb = w.cma;
	z->managed_kb = w.managed;
	d->open = OPEN_NONE;
	d->wmark_zone = (int)(z - d->z);   /* the lowmem_reserve[] that follows is this zone's */
	return MEMDUMP_LINE_USED;
}

/* Numbers of lowmem_reserve[] (signed, %ld) from the cursor to the end; 0 or -1 (BAD set). */
static int prot_numbers(struct memdump *d, struct lex *c)
{
	struct memdump_zone *z = &d->z[d->open_zone];
	const char *t;
	size_t n;

	while ((n = token(c, &t)) > 0) {
		int64_t v;

		if (z->nprot == MEMDUMP_MAX_PROT || num_parse_i64(t, n, &v) < 0) {
			d->flags |= MEMDUMP_BAD;
			d->open = OPEN_NONE;
			return -1;
		}
		z->prot[z->nprot++] = v;
		z->have |= MEMDUMP_PROT;
	}
	return 0;
}

/* "lowmem_reserve[]:" and what follows it on the line. */
static int prot_line(struct memdump *d, struct lex *c)
{
	int zi = d->wmark_zone;

	d->open = OPEN_NONE;
	d->wmark_zone = -1;
	if (zi == -2)
		return MEMDUMP_LINE_USED;   /* the reserve of a repeated zone line: the first one's stands */
	if (zi < 0) {
		/* No zone line right before it: whose reserve it is cannot be told. */
		d->flags |= MEMDUMP_BAD;
		return MEMDUMP_LINE_USED;
	}
	d->open = OPEN_PROT;
	d->open_zone = zi;
	prot_numbers(d, c);
	return MEMDUMP_LINE_USED;
}

/* Migrate-type letters "(UME)" in t[0..n) into *types; 0 or -1. */
static int type_letters(const char *t, size_t n, uint8_t *types)
{
	uint8_t set = 0;

	if (n < 3 || t[0] != '(' || t[n - 1] != ')')
		return -1;
	for (size_t i = 1; i + 1 < n; i++) {
		const char *at = memchr(MT_LETTERS, t[i], sizeof MT_LETTERS - 1);
		uint8_t bit;

		if (!at || t[i] == '\0')
			return -1;
		bit = (uint8_t)(1u << (at - MT_LETTERS));
		if (set & bit)
			return -1;
		set |= bit;
	}
	*types = set;
	return 0;
}

/* One "C*SkB" entry of the open buddy line; 0 or -1. */
static int buddy_entry(struct memdump *d, struct memdump_zone *z, const char *t, size_t n)
{
	const char *star = memchr(t, '*', n);
	uint64_t count, size, kb;

	if (!star || num_parse_u64(t, (size_t)(star - t), &count) < 0 ||
	    kb_value(star + 1, n - (size_t)(star + 1 - t), &size) < 0 || size == 0 ||
	    d->buddy_order >= MEMDUMP_MAX_ORDERS)
		return -1;
	if (d->buddy_order == 0)
		z->page_kb = size;
	else if (z->page_kb > (UINT64_MAX >> d->buddy_order) || size != z->page_kb << d->buddy_order)
		return -1;   /* the sizes must double from one order to the next: a lost or foreign piece */
	if (count && size > UINT64_MAX / count)
		return -1;
	kb = count * size;
	if (kb > UINT64_MAX - d->buddy_sum_kb)
		return -1;
	d->buddy_sum_kb += kb;
	z->nr[d->buddy_order++] = count;
	return 0;
}

/* Tokens of a buddy line from the cursor: entries, their letters, "= TkB". 1 done, 0 still open, -1 bad. */
static int buddy_tokens(struct memdump *d, struct lex *c)
{
	struct memdump_zone *z = &d->z[d->open_zone];
	const char *t;
	size_t n;

	while ((n = token(c, &t)) > 0) {
		if (t[0] == '(') {
			int o = d->buddy_order - 1;
			if (o < 0 || z->nr[o] == 0 || z->types[o] || type_letters(t, n, &z->types[o]) < 0)
				return -1;
		} else if (n == 1 && t[0] == '=') {
			uint64_t total;
			if ((n = token(c, &t)) == 0 || kb_value(t, n, &total) < 0 || total != d->buddy_sum_kb ||
			    d->buddy_order == 0 || token(c, &t) != 0)
				return -1;
			z->norders = d->buddy_order;
			z->total_kb = total;
			z->have |= MEMDUMP_BUDDY;
			return 1;
		} else if (buddy_entry(d, z, t, n) < 0) {
			return -1;
		}
	}
	return 0;
}

/* Run the buddy tokens of a line; BAD when they do not parse or add up. */
static int buddy_feed(struct memdump *d, struct lex *c)
{
	int rc = buddy_tokens(d, c);

	if (rc != 0)
		d->open = OPEN_NONE;
	if (rc < 0) {
		/* Leave no half line behind: a zone is complete only with a line that added up. */
		struct memdump_zone *z = &d->z[d->open_zone];
		memset(z->nr, 0, sizeof z->nr);
		memset(z->types, 0, sizeof z->types);
		z->norders = 0;
		d->flags |= MEMDUMP_BAD;
	}
	return MEMDUMP_LINE_USED;
}

/* "[Node N ]NAME: C*SkB ..." (cursor after the ':'). */
static int buddy_line(struct memdump *d, struct lex *c, int node, const char *name)
{
	struct memdump_zone *z = zone_for(d, node, name);

	d->pending_node = -1;
	d->wmark_zone = -1;
	d->open = OPEN_NONE;
	if (!z)
		return MEMDUMP_LINE_USED;
	if (z->have & MEMDUMP_BUDDY) {
		/* A second buddy line for the zone: parse it aside and compare. */
		struct memdump_zone keep = *z;
		int open_zone = d->open_zone;

		memset(z->nr, 0, sizeof z->nr);
		memset(z->types, 0, sizeof z->types);
		z->have &= ~(unsigned)MEMDUMP_BUDDY;
		d->open_zone = (int)(z - d->z);
		d->buddy_order = 0;
		d->buddy_sum_kb = 0;
		if (buddy_tokens(d, c) != 1 || z->norders != keep.norders ||
		    memcmp(z->nr, keep.nr, sizeof z->nr) != 0)
			d->flags |= MEMDUMP_CONFLICT;
		*z = keep;
		d->open_zone = open_zone;
		d->open = OPEN_NONE;
		return MEMDUMP_LINE_USED;
	}
	d->open = OPEN_BUDDY;
	d->open_zone = (int)(z - d->z);
	d->buddy_order = 0;
	d->buddy_sum_kb = 0;
	memset(z->nr, 0, sizeof z->nr);
	memset(z->types, 0, sizeof z->types);
	return buddy_feed(d, c);
}

/* Only blanks and (signed) integers: the rest of a lowmem_reserve[] split into records. */
static int all_numbers(struct lex c)
{
	const char *t;
	size_t n;
	int any = 0;

	while ((n = token(&c, &t)) > 0) {
		int64_t v;
		if (num_parse_i64(t, n, &v) < 0)
			return 0;
		any = 1;
	}
	return any;
}

/* A piece of a buddy line split into records: its first token is an entry, letters or "=". */
static int buddy_piece(struct lex c)
{
	const char *t;
	size_t n = token(&c, &t);

	return n > 0 && (t[0] == '(' || t[0] == '=' || (lex_is_digit(t[0]) && memchr(t, '*', n)));
}

/* "[Node N ]NAME free:..." or "[Node N ]NAME: ..." after the node prefix. */
static int zone_or_buddy(struct memdump *d, struct lex *c, int have_node, int node)
{
	char name[ZONE_NAME_MAX];
	struct lex at = *c;

	if (zone_name(c, name) == 0)
		return MEMDUMP_LINE_OTHER;
	/* "NAME:" may end its record: the first entry is a printk of its own. */
	if (c->p < c->end && *c->p == ':' && (c->p + 1 == c->end || lex_is_ws(c->p[1]))) {
		struct lex rest = { c->p + 1, c->end };
		if (!buddy_piece(rest) && rest.p < rest.end)
			return MEMDUMP_LINE_OTHER;
		c->p++;
		return buddy_line(d, c, take_node(d, have_node, node), name);
	}
	if (lex_skip_ws(c) > 0 && lex_accept(c, "free:")) {
		c->p -= 5;
		return zone_line(d, c, take_node(d, have_node, node), name);
	}
	*c = at;
	return MEMDUMP_LINE_OTHER;
}

/* "N total pagecache pages", "N pages RAM": the zone part is over. */
static int end_marker(struct lex c)
{
	uint64_t v;

	if (lex_number(&c, &v) < 0 || lex_skip_ws(&c) == 0)
		return 0;
	return lex_accept(&c, "total pagecache pages") || lex_accept(&c, "pages RAM");
}

static int feed(struct memdump *d, struct lex c)
{
	int node = -1, rc;

	if (lex_accept(&c, "Mem-Info:") || lex_accept(&c, "Mem-info:")) {
		if (c.p != c.end)
			return MEMDUMP_LINE_OTHER;
		if (d->nzones > 0)
			return MEMDUMP_LINE_END;   /* a second dump begins: ours is over */
		d->flags |= MEMDUMP_HEADER;
		return MEMDUMP_LINE_USED;
	}
	if (end_marker(c)) {
		d->flags |= MEMDUMP_ENDED;
		d->wmark_zone = -1;
		d->open = OPEN_NONE;
		return MEMDUMP_LINE_END;
	}
	if (lex_accept(&c, "lowmem_reserve[]:"))
		return prot_line(d, &c);
	if (d->open == OPEN_PROT && all_numbers(c)) {
		prot_numbers(d, &c);
		return MEMDUMP_LINE_USED;
	}
	if (d->open == OPEN_BUDDY && buddy_piece(c))
		return buddy_feed(d, &c);
	rc = node_prefix(&c, &node);
	if (rc < 0)
		return MEMDUMP_LINE_OTHER;
	if (rc > 0 && c.p == c.end) {
		d->pending_node = node;    /* "Node N " alone: the rest of its line is the next record */
		return MEMDUMP_LINE_USED;
	}
	return zone_or_buddy(d, &c, rc > 0, node);
}

int memdump_feed(struct memdump *d, const char *line, size_t len)
{
	struct lex c = { line, line + len };
	int rc;

	if (d->flags & MEMDUMP_ENDED || len > MEMDUMP_LINE_MAX)
		return MEMDUMP_LINE_OTHER;
	if (memchr(line, '\0', len))
		return MEMDUMP_LINE_OTHER;
	while (c.end > c.p && (lex_is_ws(c.end[-1]) || c.end[-1] == '\r'))
		c.end--;
	lex_skip_ws(&c);
	if (c.p == c.end)
		return MEMDUMP_LINE_OTHER;
	rc = feed(d, c);
	if (rc == MEMDUMP_LINE_USED)
		d->lines_used++;
	else if (rc == MEMDUMP_LINE_OTHER)
		d->lines_other++;
	return rc;
}

int memdump_complete(const struct memdump *d)
{
	const unsigned need = MEMDUMP_WMARK | MEMDUMP_PROT | MEMDUMP_BUDDY;

	if (d->nzones == 0 || (d->flags & (MEMDUMP_CONFLICT | MEMDUMP_BAD | MEMDUMP_FULL)))
		return 0;
	for (int i = 0; i < d->nzones; i++) {
		const struct memdump_zone *z = &d->z[i];
		if ((z->have & need) != need || z->nprot != d->z[0].nprot || z->norders != d->z[0].norders ||
		    z->page_kb != d->z[0].page_kb)
			return 0;
	}
	return 1;
}

int memdump_parse(const char *buf, size_t len, struct memdump *out)
{
	const char *p = buf, *end = buf + len;

	memdump_init(out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (memdump_feed(out, p, n) == MEMDUMP_LINE_END)
			break;
		p += n + (nl ? 1 : 0);
	}
	return memdump_complete(out) ? 0 : -1;
}

const char *memdump_types_str(uint8_t types, char *out, size_t cap)
{
	size_t n = 0;

	if (!cap)
		return out;
	for (int k = 0; k < (int)sizeof MT_LETTERS - 1 && n + 1 < cap; k++)
		if (types & (1u << k))
			out[n++] = MT_LETTERS[k];
	out[n] = '\0';
	return out;
}
