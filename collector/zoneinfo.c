/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zoneinfo: parse /proc/zoneinfo; see zoneinfo.h for the layout.
 *
 * Line by line, keyed by the words on the line rather than by indentation
 * (3.x indents per-zone counters by 4, 6.x by 6).  The only state is which
 * block of the current zone we are in: per-node stats (ignored), the zone
 * proper, or the per-cpu pagesets (where "high:" is a pcp field, not the
 * watermark).
 */
#include "collector/zoneinfo.h"

#include <limits.h>
#include <string.h>

#include "collector/lex.h"
#include "common/num.h"

#define LINE_MAX_LEN 512

enum section { SEC_ZONE_HEAD, SEC_NODE_STATS, SEC_ZONE, SEC_PCP };

/* Required fields, tracked separately from the optional ZI_* bits. */
enum {
	REQ_FREE = 1 << 0, REQ_MIN = 1 << 1, REQ_LOW = 1 << 2, REQ_HIGH = 1 << 3,
	REQ_SPANNED = 1 << 4, REQ_PRESENT = 1 << 5, REQ_PROT = 1 << 6,
	REQ_ALL = (1 << 7) - 1,
};

struct state {
	struct zoneinfo *out;
	struct zoneinfo_zone *z;   /* current zone or NULL */
	enum section sec;
	unsigned req;              /* REQ_* seen for z */
};

static void trim(struct span *s)
{
	while (s->n > 0 && lex_is_ws(s->p[0])) {
		s->p++;
		s->n--;
	}
	while (s->n > 0 && lex_is_ws(s->p[s->n - 1]))
		s->n--;
}

/* Consume at least one blank. */
static int eat_ws(struct span *s)
{
	size_t n = 0;

	while (n < s->n && (s->p[n] == ' ' || s->p[n] == '\t'))
		n++;
	s->p += n;
	s->n -= n;
	return n > 0 ? 0 : -1;
}

/* "Node N, zone NAME" (the name right-aligned by %8s). */
static int zone_header(struct state *st, struct span s)
{
	struct zoneinfo_zone *z;
	uint64_t node;
	size_t n = 0;

	if (st->out->nzones == ZONEINFO_MAX_ZONES)
		return -1;
	z = &st->out->z[st->out->nzones];
	memset(z, 0, sizeof *z);
	if (span_eat(&s, "Node") < 0 || eat_ws(&s) < 0 || span_u64(&s, &node) < 0 || node > INT_MAX ||
	    span_eat(&s, ",") < 0 || eat_ws(&s) < 0 || span_eat(&s, "zone") < 0 || eat_ws(&s) < 0)
		return -1;
	while (n < s.n && lex_is_name(s.p[n]))
		n++;
	if (n == 0 || n >= ZONE_NAME_MAX || n != s.n)
		return -1;
	memcpy(z->zone, s.p, n);
	z->node = (int)node;
	z->idx = -1;
	for (int i = 0; i < st->out->nzones; i++)
		if (st->out->z[i].node == z->node && strcmp(st->out->z[i].zone, z->zone) == 0)
			return -1;
	st->out->nzones++;
	st->z = z;
	st->sec = SEC_ZONE_HEAD;
	st->req = 0;
	return 0;
}

/* "protection: (0, 3019, 4555)" */
static int protection(struct state *st, struct span s)
{
	struct zoneinfo_zone *z = st->z;

	if (st->req & REQ_PROT || span_eat(&s, "(") < 0)
		return -1;
	for (;;) {
		if (z->nprot == ZONEINFO_MAX_PROT || span_i64(&s, &z->protection[z->nprot]) < 0)
			return -1;
		z->nprot++;
		if (span_eat(&s, ")") == 0)
			break;
		if (span_eat(&s, ", ") < 0)
			return -1;
	}
	if (s.n != 0)
		return -1;
	st->req |= REQ_PROT;
	return 0;
}

/* Set a field once; a second value for the same zone is junk, not an update. */
static int set_once(unsigned *mask, unsigned bit, uint64_t *field, int64_t v)
{
	if (*mask & bit || v < 0)
		return -1;
	*mask |= bit;
	*field = (uint64_t)v;
	return 0;
}

/* The fields of the zone proper (in the order 6.x prints them): name, required (REQ_*) or optional (ZI_*), bit, member. */
#define ZONE_FIELDS(X) \
	X("boost", 0, ZI_BOOST, boost) \
	X("min", 1, REQ_MIN, min) \
	X("low", 1, REQ_LOW, low) \
	X("high", 1, REQ_HIGH, high) \
	X("promo", 0, ZI_PROMO, promo) \
	X("spanned", 1, REQ_SPANNED, spanned) \
	X("present", 1, REQ_PRESENT, present) \
	X("managed", 0, ZI_MANAGED, managed) \
	X("cma", 0, ZI_CMA, cma) \
	X("nr_free_pages", 0, ZI_NR_FREE_PAGES, nr_free_pages) \
	X("nr_zone_inactive_anon", 0, ZI_INACTIVE_ANON, nr_zone_inactive_anon) \
	X("nr_zone_active_anon", 0, ZI_ACTIVE_ANON, nr_zone_active_anon) \
	X("nr_zone_inactive_file", 0, ZI_INACTIVE_FILE, nr_zone_inactive_file) \
	X("nr_zone_active_file", 0, ZI_ACTIVE_FILE, nr_zone_active_file) \
	X("nr_free_cma", 0, ZI_NR_FREE_CMA, nr_free_cma) \
	X("nr_unaccepted", 0, ZI_NR_UNACCEPTED, nr_unaccepted) \
	X("node_unreclaimable", 0, ZI_NODE_UNRECLAIMABLE, node_unreclaimable) \
	X("start_pfn", 0, ZI_START_PFN, start_pfn)

/* Bit n set if some field's name is n bytes long (all are under 32). */
#define ZF_LEN_BIT(name, req, bit, member) | (1u << (sizeof name - 1))
#define ZF_LENGTHS (0u ZONE_FIELDS(ZF_LEN_BIT))

/* A "key value" line of the zone proper; unknown keys are accepted and ignored. */
static int zone_field(struct state *st, struct span key, int64_t v)
{
	/* The name's length is in the table: every line of the file is matched against it. */
#define ZF(name, req, bit, member) { name, sizeof name - 1, req, bit, offsetof(struct zoneinfo_zone, member) },
	static const struct { const char *name; size_t len; int req; unsigned bit; size_t off; } fields[] = {
		ZONE_FIELDS(ZF)
	};
#undef ZF
	struct zoneinfo_zone *z = st->z;

	/* Most counters of a zone are none of ours (numa_*, nr_mlock, ...): one test of the length
	 * rejects many of them before the table is walked. */
	if (key.n >= 32 || !(ZF_LENGTHS >> key.n & 1))
		return 0;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		uint64_t *f = (uint64_t *)((char *)z + fields[i].off);

		/* The last byte first: the nr_zone_* names differ there, not in their first bytes. */
		if (key.n != fields[i].len || key.p[key.n - 1] != fields[i].name[key.n - 1] ||
		    memcmp(key.p, fields[i].name, key.n) != 0)
			continue;
		/* Watermark names only mean watermarks outside the pagesets ("high:" there is pcp->high). */
		if (fields[i].req && st->sec == SEC_PCP)
			return 0;
		return set_once(fields[i].req ? &st->req : &z->have, fields[i].bit, f, v);
	}
	return 0;
}

/*
 * Split "key value" / "key: value" / "multi word key: value": the value is
 * the last blank-separated token, a decimal integer.
 */
static int key_value(struct span s, struct span *key, int64_t *v)
{
	size_t i = s.n;
	struct span val;

	while (i > 0 && s.p[i - 1] != ' ' && s.p[i - 1] != '\t')
		i--;
	if (i == 0)
		return -1;
	val = (struct span){ s.p + i, s.n - i };
	if (span_i64(&val, v) < 0 || val.n != 0)
		return -1;
	/* s is trimmed (line()), so only the key's end can have blanks. */
	*key = (struct span){ s.p, i };
	while (key->n > 0 && lex_is_ws(key->p[key->n - 1]))
		key->n--;
	if (key->n > 0 && key->p[key->n - 1] == ':')
		key->n--;
	if (key->n == 0)
		return -1;
	for (size_t k = 0; k < key->n; k++)
		if (!lex_is_name(key->p[k]) && key->p[k] != ' ' && key->p[k] != '(' && key->p[k] != ')')
			return -1;
	return 0;
}

/*
 * The shape of ~90 % of the lines: blanks, a name, an optional ':', blanks, a decimal value of at
 * most 18 digits, and the line's '\n' ("      nr_free_pages 3840", "    cpu: 0", "  start_pfn:   1").
 * One forward pass over the byte table straight off the buffer, instead of memchr for the '\n', then
 * line()'s trim, search back for the value, second trim of the key and check of its bytes (~210
 * lines a tick here, the per-node stats included).  Precondition: the buffer ends in '\n' (no class
 * takes one, so every scan stops there).  Returns the line's '\n' with *key and *v set exactly as
 * line() would set them, or NULL: not this shape, and line() decides.  It never rejects, so there
 * is one grammar, line()'s; this is only a shortcut through it (test_zoneinfo compares the two).
 * "protection:" followed by a bare number has the shape but is line()'s (which rejects it).
 */
static const char *simple_line(const char *p, struct span *key, int64_t *v)
{
	const char *k, *d;
	uint64_t u;

	while (lex_is_ws(*p))
		p++;
	for (k = p; lex_is_name(*p); p++)
		;
	if (p == k)
		return NULL;
	*key = (struct span){ k, (size_t)(p - k) };
	if (*p == ':') {
		if (span_is(*key, "protection"))
			return NULL;
		p++;
	}
	if (!lex_is_ws(*p))
		return NULL;
	while (lex_is_ws(*p))
		p++;
	for (d = p; lex_is_digit(*p); p++)
		;
	/* 18 digits fit an int64: line()'s span_i64 takes the same digits to the same value. */
	if (*p != '\n' || p - d > 18 || num_parse_u64(d, (size_t)(p - d), &u) < 0)
		return NULL;
	*v = (int64_t)u;
	return p;
}

/* A "key value" line after the zone's header, by the block it is in; 0 or -1. */
static int counter(struct state *st, struct span key, int64_t v)
{
	switch (st->sec) {
	case SEC_NODE_STATS:
		return 0;
	case SEC_ZONE_HEAD:
		return -1;   /* a counter before "pages free" that is not a node stat */
	case SEC_PCP:
		if (span_is(key, "cpu")) {
			st->z->ncpus++;
			return 0;
		}
		if (span_is(key, "count")) {
			if (v < 0 || st->z->ncpus == 0)
				return -1;
			st->z->pcp_count += (uint64_t)v;
			st->z->have |= ZI_PCP;
			return 0;
		}
		/* fall through: node_unreclaimable and start_pfn follow the pagesets */
	case SEC_ZONE:
		break;
	}
	return zone_field(st, key, v);
}

static int line(struct state *st, struct span s)
{
	struct span key;
	int64_t v;

	if (s.n > LINE_MAX_LEN)
		return -1;
	if (s.n > 0 && s.p[0] == 'N')
		return zone_header(st, s);
	trim(&s);
	if (!st->z || s.n == 0)
		return -1;
	if (span_is(s, "per-node stats")) {
		if (st->sec != SEC_ZONE_HEAD)
			return -1;
		st->sec = SEC_NODE_STATS;
		return 0;
	}
	if (span_is(s, "pagesets")) {
		st->sec = SEC_PCP;
		return 0;
	}
	if (span_eat(&s, "protection:") == 0) {
		if (st->sec == SEC_PCP || eat_ws(&s) < 0)
			return -1;
		return protection(st, s);
	}
	if (span_eat(&s, "pages free") == 0) {
		uint64_t f;

		if (st->sec == SEC_PCP || eat_ws(&s) < 0 || span_u64(&s, &f) < 0 || s.n != 0 || f > INT64_MAX)
			return -1;
		st->sec = SEC_ZONE;
		return set_once(&st->req, REQ_FREE, &st->z->free, (int64_t)f);
	}
	if (key_value(s, &key, &v) < 0)
		return -1;
	return counter(st, key, v);
}

/* Zone index = position within the node, valid only if the node lists every zone type. */
static int finish(struct zoneinfo *zi)
{
	for (int i = 0; i < zi->nzones; i++) {
		int pos = 0, cnt = 0;

		if (zi->z[i].nprot != zi->z[0].nprot)
			return -1;
		for (int j = 0; j < zi->nzones; j++) {
			if (zi->z[j].node != zi->z[i].node)
				continue;
			if (j < i)
				pos++;
			cnt++;
		}
		zi->z[i].idx = cnt == zi->z[i].nprot ? pos : -1;
		zi->z[i].populated = zi->z[i].present > 0;
	}
	return 0;
}

int zoneinfo_parse(const char *buf, size_t len, struct zoneinfo *out)
{
	struct state st = { out, NULL, SEC_ZONE_HEAD, 0 };
	const char *p = buf, *end = buf + len;

	out->nzones = 0;
	if (!buf || len == 0 || buf[len - 1] != '\n')
		return -1;
	while (p < end) {
		const char *nl;
		struct zoneinfo_zone *prev = st.z;
		unsigned prev_req = st.req;
		struct span key;
		int64_t v;

		/* What line() would do with a simple line (its checks in its order), without cutting it first. */
		if (st.z && *p != 'N' && (nl = simple_line(p, &key, &v)) && nl - p <= LINE_MAX_LEN) {
			if (counter(&st, key, v) < 0)
				return -1;
		} else {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (line(&st, (struct span){ p, (size_t)(nl - p) }) < 0)
				return -1;
		}
		/* Leaving a zone: it must have had everything the watermark model needs. */
		if (prev && st.z != prev && prev_req != REQ_ALL)
			return -1;
		p = nl + 1;
	}
	if (!st.z || st.req != REQ_ALL)
		return -1;
	return finish(out);
}

const struct zoneinfo_zone *zoneinfo_find(const struct zoneinfo *zi, int node, const char *zone)
{
	for (int i = 0; i < zi->nzones; i++)
		if (zi->z[i].node == node && strcmp(zi->z[i].zone, zone) == 0)
			return &zi->z[i];
	return NULL;
}
