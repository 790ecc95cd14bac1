/* SPDX-License-Identifier: GPL-2.0-only */
/* gfp: GFP flag names and what they mean; see gfp.h. */
#include "collector/gfp.h"

#include <string.h>

#include "collector/cexpr.h"
#include "common/num.h"

#define B(x) GFPB(GFPB_##x)
#define RECLAIM (B(DIRECT_RECLAIM) | B(KSWAPD_RECLAIM))
#define KERNEL (RECLAIM | B(IO) | B(FS))
#define USER (KERNEL | B(HARDWALL))
#define HIGHUSER_MOVABLE (USER | B(HIGHMEM) | B(MOVABLE))
#define TRANSHUGE_LIGHT ((HIGHUSER_MOVABLE | B(COMP) | B(NOMEMALLOC) | B(NOWARN)) & ~RECLAIM)

/*
 * Every name __def_gfpflag_names has printed from 3.x to 6.x, with its
 * meaning (include/linux/gfp_types.h, formerly gfp.h).  A composite's
 * meaning is the union of the flags it is defined as; bits whose meaning
 * changed between kernels without changing what the questions ask (whether
 * GFP_ATOMIC also set __GFP_ATOMIC) are left out of the composite.
 */
static const struct {
	const char *name;
	uint64_t bits;
} NAMES[] = {
	{ "GFP_TRANSHUGE", TRANSHUGE_LIGHT | B(DIRECT_RECLAIM) },
	{ "GFP_TRANSHUGE_LIGHT", TRANSHUGE_LIGHT },
	{ "GFP_HIGHUSER_MOVABLE", HIGHUSER_MOVABLE },
	{ "GFP_HIGHUSER", USER | B(HIGHMEM) },
	{ "GFP_USER", USER },
	{ "GFP_TEMPORARY", KERNEL | B(RECLAIMABLE) },      /* until 4.14 */
	{ "GFP_KERNEL_ACCOUNT", KERNEL | B(ACCOUNT) },
	{ "GFP_KERNEL", KERNEL },
	{ "GFP_NOFS", RECLAIM | B(IO) },
	{ "GFP_ATOMIC", B(HIGH) | B(KSWAPD_RECLAIM) },
	{ "GFP_NOIO", RECLAIM },
	{ "GFP_NOWAIT", B(KSWAPD_RECLAIM) },
	{ "GFP_DMA", B(DMA) },
	{ "GFP_DMA32", B(DMA32) },
	{ "GFP_IOFS", B(IO) | B(FS) },                      /* 3.x */
	{ "GFP_NOWAIT_NOKSWAPD", 0 },                       /* never printed; keeps the list honest */
	{ "__GFP_HIGHMEM", B(HIGHMEM) },
	{ "__GFP_DMA", B(DMA) },
	{ "__GFP_DMA32", B(DMA32) },
	{ "__GFP_HIGH", B(HIGH) },
	{ "__GFP_ATOMIC", B(ATOMIC) },                      /* 4.4 .. 6.2 */
	{ "__GFP_IO", B(IO) },
	{ "__GFP_FS", B(FS) },
	{ "__GFP_NOWARN", B(NOWARN) },
	{ "__GFP_RETRY_MAYFAIL", B(RETRY_MAYFAIL) },
	{ "__GFP_REPEAT", B(RETRY_MAYFAIL) },               /* until 4.13 */
	{ "__GFP_NOFAIL", B(NOFAIL) },
	{ "__GFP_NORETRY", B(NORETRY) },
	{ "__GFP_COMP", B(COMP) },
	{ "__GFP_ZERO", B(ZERO) },
	{ "__GFP_NOMEMALLOC", B(NOMEMALLOC) },
	{ "__GFP_MEMALLOC", B(MEMALLOC) },
	{ "__GFP_HARDWALL", B(HARDWALL) },
	{ "__GFP_THISNODE", B(THISNODE) },
	{ "__GFP_RECLAIMABLE", B(RECLAIMABLE) },
	{ "__GFP_MOVABLE", B(MOVABLE) },
	{ "__GFP_ACCOUNT", B(ACCOUNT) },
	{ "__GFP_NOACCOUNT", 0 },                           /* 4.2 .. 4.5, a no-op by then */
	{ "__GFP_WRITE", B(WRITE) },
	{ "__GFP_RECLAIM", RECLAIM },
	{ "__GFP_DIRECT_RECLAIM", B(DIRECT_RECLAIM) },
	{ "__GFP_KSWAPD_RECLAIM", B(KSWAPD_RECLAIM) },
	{ "__GFP_WAIT", B(DIRECT_RECLAIM) },                /* until 4.4: "may sleep" */
	{ "GFP_WAIT", B(DIRECT_RECLAIM) },
	{ "__GFP_NO_KSWAPD", 0 },                           /* until 4.4: the absence of kswapd */
	{ "__GFP_ZEROTAGS", B(ZEROTAGS) },
	{ "__GFP_SKIP_ZERO", B(SKIP_ZERO) },
	{ "__GFP_SKIP_KASAN", B(SKIP_KASAN) },
	{ "__GFP_SKIP_KASAN_POISON", B(SKIP_KASAN) },
	{ "__GFP_SKIP_KASAN_UNPOISON", B(SKIP_KASAN) },
	{ "__GFP_NOLOCKDEP", B(NOLOCKDEP) },
	{ "__GFP_NO_OBJ_EXT", B(NO_OBJ_EXT) },
	{ "__GFP_SENSITIVE", B(SENSITIVE) },
	{ "__GFP_COLD", B(COLD) },                          /* until 4.15 */
	{ "__GFP_NOTRACK", B(NOTRACK) },                    /* until 4.15 */
	{ "__GFP_NOTRACK_FALSE_POSITIVE", B(NOTRACK) },
	{ "__GFP_OTHER_NODE", B(OTHER_NODE) },              /* until 4.10 */
};

/* [A-Z0-9_]: how every GFP name is spelled. */
static int name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int lookup(const char *s, size_t n, uint64_t *bits)
{
	for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
		if (strlen(NAMES[i].name) == n && memcmp(NAMES[i].name, s, n) == 0) {
			*bits = NAMES[i].bits;
			return 0;
		}
	return -1;
}

/* The hex tail "0x1f" the kernel prints for bits without a name; 0 or -1. */
static int leftover(const char *s, size_t n, uint64_t *v)
{
	if (n < 3 || s[0] != '0' || s[1] != 'x')
		return -1;
	return num_parse_hex(s, n, v);
}

/*
 * Walk "A|B|0x..": fn(arg, token, len) for every token; -1 on an empty token
 * or a character that no name or hex tail has.  The hex tail must be last.
 */
static int tokens(const char *s, size_t len, int (*fn)(void *, const char *, size_t), void *arg)
{
	size_t i = 0;
	int hex_seen = 0;

	while (i <= len) {
		size_t j = i;

		while (j < len && s[j] != '|')
			j++;
		if (j == i || hex_seen)
			return -1;
		for (size_t k = i; k < j; k++)
			if (!name_char(s[k]) && !(s[k] >= 'a' && s[k] <= 'f') && s[k] != 'x')
				return -1;
		hex_seen = s[i] == '0' && j - i > 1 && s[i + 1] == 'x';
		if (fn(arg, s + i, j - i) < 0)
			return -1;
		i = j + 1;
	}
	return 0;
}

static int decode_one(void *arg, const char *s, size_t n)
{
	struct gfp_info *g = arg;
	uint64_t v;

	if (leftover(s, n, &v) == 0) {
		g->leftover = v;
		return 0;
	}
	if (s[0] == '0')            /* a name never starts with a digit */
		return -1;
	for (size_t k = 0; k < n; k++)
		if (!name_char(s[k]))
			return -1;
	g->names++;
	if (lookup(s, n, &v) == 0)
		g->bits |= v;
	else
		g->unknown++;
	return 0;
}

int gfp_decode(const char *s, size_t len, struct gfp_info *out)
{
	memset(out, 0, sizeof *out);
	if (!s || len == 0)
		return -1;
	if (len == 4 && memcmp(s, "none", 4) == 0)
		return 0;
	if (tokens(s, len, decode_one, out) < 0) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	return 0;
}

int gfp_is_atomic(const struct gfp_info *g)
{
	return !(g->bits & B(DIRECT_RECLAIM));
}

int gfp_is_nowarn(const struct gfp_info *g)
{
	return (g->bits & B(NOWARN)) != 0;
}

int gfp_is_opportunistic(const struct gfp_info *g)
{
	return gfp_is_nowarn(g) && (g->bits & (B(NORETRY) | B(NOMEMALLOC))) != 0;
}

enum gfp_class gfp_classify(const struct gfp_info *g)
{
	if (gfp_is_opportunistic(g))
		return GFP_CLASS_OPPORTUNISTIC;
	return gfp_is_atomic(g) ? GFP_CLASS_ATOMIC : GFP_CLASS_SLEEPING;
}

const char *gfp_class_name(enum gfp_class c)
{
	switch (c) {
	case GFP_CLASS_ATOMIC: return "atomic";
	case GFP_CLASS_OPPORTUNISTIC: return "opportunistic";
	case GFP_CLASS_SLEEPING: break;
	}
	return "sleeping";
}

/* ------------------------------------------------ the format file's table */

/* Offset of needle in h[0..hl), or -1. */
static long find(const char *h, size_t hl, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = 0; nl <= hl && i + nl <= hl; i++)
		if (memcmp(h + i, needle, nl) == 0)
			return (long)i;
	return -1;
}

/*
 * One "{ EXPR, "NAME"}" pair from *p; 1 and the pair kept (if its value is a
 * constant), 0 at the list's closing ')', -1 on bad syntax.  The expression
 * runs to the last ',' before the name's opening quote.
 */
static int one_pair(const char **p, const char *end, struct gfp_table *out)
{
	const char *s = *p, *close, *q1, *q2, *comma;
	uint64_t v;

	while (s < end && (*s == ' ' || *s == ','))
		s++;
	if (s < end && *s == ')') {
		*p = s;
		return 0;
	}
	if (s >= end || *s != '{')
		return -1;
	close = memchr(s, '}', (size_t)(end - s));
	if (!close || close[-1] != '"')
		return -1;
	q2 = close - 1;
	q1 = q2;
	while (q1 > s && q1[-1] != '"')
		q1--;
	if (q1 <= s + 1 || q1[-1] != '"')
		return -1;
	q1--;                      /* opening quote */
	comma = q1;
	while (comma > s && comma[-1] == ' ')
		comma--;
	if (comma <= s + 1 || comma[-1] != ',')
		return -1;
	comma--;
	if (cexpr_eval(s + 1, (size_t)(comma - s - 1), &v) == 0) {
		size_t n = (size_t)(q2 - q1 - 1);
		int ok = n > 0 && n <= GFP_NAME_MAX;

		/* kept only if the printed form can name it again: [A-Z0-9_], not a hex tail */
		for (size_t i = 0; ok && i < n; i++)
			ok = name_char(q1[1 + i]);
		ok = ok && !(n > 1 && q1[1] == '0' && q1[2] == 'x');
		if (ok && out->n < GFP_TABLE_MAX) {
			memcpy(out->e[out->n].name, q1 + 1, n);
			out->e[out->n].name[n] = '\0';
			out->e[out->n].mask = v;
			out->n++;
		}
	}
	*p = close + 1;
	return 1;
}

int gfp_table_parse_format(const char *buf, size_t len, struct gfp_table *out)
{
	static const char head[] = "__print_flags(REC->gfp_flags, \"|\",";
	const char *p, *end = buf + len;
	long at;
	int rc;

	memset(out, 0, sizeof *out);
	if (!buf || (at = find(buf, len, head)) < 0)
		return -1;
	p = buf + at + sizeof head - 1;
	/* A line of the format file: the list ends at ')' before the end of the line. */
	{
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (nl)
			end = nl;
	}
	while ((rc = one_pair(&p, end, out)) == 1)
		;
	if (rc < 0 || out->n == 0) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	return 0;
}

struct mask_ctx {
	const struct gfp_table *t;
	uint64_t mask;
};

static int mask_one(void *arg, const char *s, size_t n)
{
	struct mask_ctx *m = arg;
	uint64_t v;

	if (leftover(s, n, &v) == 0) {
		m->mask |= v;
		return 0;
	}
	for (int i = 0; i < m->t->n; i++)
		if (strlen(m->t->e[i].name) == n && memcmp(m->t->e[i].name, s, n) == 0) {
			m->mask |= m->t->e[i].mask;
			return 0;
		}
	return -1;
}

int gfp_table_mask(const struct gfp_table *t, const char *s, size_t len, uint64_t *mask)
{
	struct mask_ctx m = { t, 0 };

	if (len == 0 || (len == 4 && memcmp(s, "none", 4) == 0)) {
		*mask = 0;
		return 0;
	}
	if (tokens(s, len, mask_one, &m) < 0)
		return -1;
	*mask = m.mask;
	return 0;
}
