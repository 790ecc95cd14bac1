/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lex: the collector parsers' two cursors over a line of kernel text: struct lex (a position and
 * the line's end: the /proc tables, read left to right) and struct span (a field as start and
 * length: the parsers that cut a line into fields first, kmsg, zoneinfo and trace).
 *
 * Header-only and static inline: the parsers call these for every byte of
 * every sample, and none of them allocates or looks past c->end.
 */
#ifndef FPUSOAK_LEX_H
#define FPUSOAK_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/num.h"

/* A cursor over one line, '\n' excluded: p <= end. */
struct lex {
	const char *p, *end;
};

/*
 * Byte classes of /proc text, one table load a byte instead of a chain of compares: the fast sample
 * walks ~11 KB of it a tick (vmstat, meminfo, zoneinfo, buddyinfo).  Bytes above 0x7f are in no class.
 */
enum { LEX_WS = 1, LEX_DIGIT = 2, LEX_NAME = 4, LEX_PAREN = 8 };
static const unsigned char lex_class[256] = {
	[' '] = LEX_WS, ['\t'] = LEX_WS,
	['0' ... '9'] = LEX_DIGIT | LEX_NAME,
	['A' ... 'Z'] = LEX_NAME, ['a' ... 'z'] = LEX_NAME, ['_'] = LEX_NAME,
	['('] = LEX_PAREN, [')'] = LEX_PAREN,
};

/* Nonzero if c is in any of the LEX_* classes in cls. */
static inline int lex_in(char c, unsigned cls)
{
	return lex_class[(unsigned char)c] & cls;
}

/* Space or tab (the only blanks /proc tables use). */
static inline int lex_is_ws(char c)
{
	return lex_in(c, LEX_WS);
}

/* ASCII decimal digit. */
static inline int lex_is_digit(char c)
{
	return lex_in(c, LEX_DIGIT);
}

/* [A-Za-z0-9_]: zone, migratetype and counter names. */
static inline int lex_is_name(char c)
{
	return lex_in(c, LEX_NAME);
}

/* Skip blanks; returns how many bytes were skipped. */
static inline size_t lex_skip_ws(struct lex *c)
{
	const char *s = c->p;

	while (c->p < c->end && lex_is_ws(*c->p))
		c->p++;
	return (size_t)(c->p - s);
}

/* Consume lit if the line continues with it; 1 if consumed, else 0 (cursor unmoved). */
static inline int lex_accept(struct lex *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
		return 0;
	c->p += n;
	return 1;
}

/* Consume a run of digits as uint64 (no leading zeros, no overflow, at least one digit); 0 or -1. */
static inline int lex_number(struct lex *c, uint64_t *v)
{
	const char *s = c->p;

	while (c->p < c->end && lex_is_digit(*c->p))
		c->p++;
	return num_parse_u64(s, (size_t)(c->p - s), v);
}

/* A field of a line: n bytes at p, not NUL-terminated. */
struct span {
	const char *p;
	size_t n;
};

/* 1 if s is exactly lit, else 0. */
static inline int span_is(struct span s, const char *lit)
{
	return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* 1 if s begins with lit, else 0. */
static inline int span_starts(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n >= n && memcmp(s.p, lit, n) == 0;
}

/* Consume lit from the front of *s; 0, or -1 with *s unmoved. */
static inline int span_eat(struct span *s, const char *lit)
{
	size_t n = strlen(lit);

	if (!span_starts(*s, lit))
		return -1;
	s->p += n;
	s->n -= n;
	return 0;
}

/* Consume a run of digits from the front of *s as uint64 (num_parse_u64's rules); 0, or -1 with *s unmoved. */
static inline int span_u64(struct span *s, uint64_t *v)
{
	size_t n = 0;

	while (n < s->n && lex_is_digit(s->p[n]))
		n++;
	if (num_parse_u64(s->p, n, v) < 0)
		return -1;
	s->p += n;
	s->n -= n;
	return 0;
}

/* Consume an optional '-' and a run of digits as int64 (num_parse_i64's rules); 0, or -1 with *s unmoved. */
static inline int span_i64(struct span *s, int64_t *v)
{
	size_t n = (s->n > 0 && s->p[0] == '-') ? 1 : 0;

	while (n < s->n && lex_is_digit(s->p[n]))
		n++;
	if (num_parse_i64(s->p, n, v) < 0)
		return -1;
	s->p += n;
	s->n -= n;
	return 0;
}

#endif
