/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * slabinfo: parse /proc/slabinfo 2.1; see slabinfo.h.
 *
 * Line 1 is the version ("slabinfo - version: 2.1", with " (statistics)"
 * under CONFIG_DEBUG_SLAB), line 2 the "# name ..." legend, then one line
 * per cache.  Every line must end in '\n'.  One pass, no allocation.
 */
#include "collector/slabinfo.h"

#include <string.h>

#include "collector/lex.h"
#include "common/num.h"

/* Whitespace then a number: one column. */
static int column(struct lex *c, uint64_t *v)
{
	const char *s;

	if (lex_skip_ws(c) == 0)
		return -1;
	for (s = c->p; c->p < c->end && lex_is_digit(*c->p); c->p++)
		;
	return num_parse_u64(s, (size_t)(c->p - s), v);
}

/* Whitespace, ":", whitespace, the section word; 0 or -1. */
static int section(struct lex *c, const char *word)
{
	if (lex_skip_ws(c) == 0 || !lex_accept(c, ":") || lex_skip_ws(c) == 0 || !lex_accept(c, word))
		return -1;
	return 0;
}

/* Sections after slabdata (SLAB statistics): ": word n n ..." up to the end. */
static int extra_sections(struct lex *c)
{
	uint64_t v;
	int cols;

	for (;;) {
		lex_skip_ws(c);
		if (c->p == c->end)
			return 0;
		if (!lex_accept(c, ":") || lex_skip_ws(c) == 0)
			return -1;
		if (c->p == c->end || *c->p < 'a' || *c->p > 'z')
			return -1;
		while (c->p < c->end && *c->p >= 'a' && *c->p <= 'z')
			c->p++;
		for (cols = 0;; cols++) {
			const char *save = c->p;

			lex_skip_ws(c);
			if (c->p == c->end || !lex_is_digit(*c->p)) {
				c->p = save;
				break;
			}
			c->p = save;
			if (column(c, &v) < 0)
				return -1;
		}
		if (cols == 0)
			return -1;
	}
}

static int cache_name(struct lex *c, struct slabinfo_cache *e)
{
	const char *s = c->p;
	size_t n;

	/* Visible ASCII only: names reach logs and HTML. */
	while (c->p < c->end && *c->p > ' ' && *c->p <= '~')
		c->p++;
	n = (size_t)(c->p - s);
	if (n == 0 || n >= SLABINFO_NAME_MAX)
		return -1;
	memcpy(e->name, s, n);
	e->name[n] = '\0';
	return 0;
}

static int cache_line(struct lex *c, struct slabinfo_cache *e)
{
	uint64_t tun;

	if (cache_name(c, e) < 0)
		return -1;
	if (column(c, &e->active_objs) < 0 || column(c, &e->num_objs) < 0 ||
	    column(c, &e->objsize) < 0 || column(c, &e->objperslab) < 0 ||
	    column(c, &e->pagesperslab) < 0)
		return -1;
	/* Printed as 1 << order: anything else is not this format. */
	if (e->pagesperslab == 0 || (e->pagesperslab & (e->pagesperslab - 1)) != 0)
		return -1;
	e->order = __builtin_ctzll(e->pagesperslab);
	if (section(c, "tunables") < 0 ||
	    column(c, &tun) < 0 || column(c, &tun) < 0 || column(c, &tun) < 0)
		return -1;
	if (section(c, "slabdata") < 0 ||
	    column(c, &e->active_slabs) < 0 || column(c, &e->num_slabs) < 0 || column(c, &tun) < 0)
		return -1;
	return extra_sections(c);
}

static int version_line(struct lex *c)
{
	if (!lex_accept(c, "slabinfo - version: 2.1"))
		return -1;
	lex_accept(c, " (statistics)");
	lex_skip_ws(c);
	return c->p == c->end ? 0 : -1;
}

int slabinfo_parse(const char *buf, size_t len, struct slabinfo *out)
{
	const char *p = buf, *end = buf + len;
	int lineno = 0;

	out->n = 0;
	if (len == 0 || buf[len - 1] != '\n')
		return -1;
	for (; p < end; lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct lex c = { p, nl };

		if (lineno == 0) {
			if (version_line(&c) < 0)
				return -1;
		} else if (lineno == 1) {
			if (!lex_accept(&c, "# name"))
				return -1;
		} else {
			if (out->n == SLABINFO_MAX || cache_line(&c, &out->c[out->n]) < 0)
				return -1;
			out->n++;
		}
		p = nl + 1;
	}
	return out->n > 0 ? 0 : -1;   /* the kernel always has caches: none is truncation */
}

const struct slabinfo_cache *slabinfo_find(const struct slabinfo *s, const char *name)
{
	if (!s || !name)
		return NULL;
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->c[i].name, name) == 0)
			return &s->c[i];
	return NULL;
}
