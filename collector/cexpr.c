/* SPDX-License-Identifier: GPL-2.0-only */
/* cexpr: constant C expressions from tracefs format files; see cexpr.h. */
#include "collector/cexpr.h"

#include <string.h>

#include "common/num.h"

#define DEPTH_MAX 64

struct ce {
	const char *p, *end;
	int depth;
	int bad;
};

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void ws(struct ce *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* Consume op if the input continues with it (and not with a longer operator that starts like it). */
static int accept(struct ce *c, const char *op)
{
	size_t n = strlen(op);

	ws(c);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, op, n) != 0)
		return 0;
	/* "<" must not eat "<<" or "<=", "&" not "&&", "|" not "||", "=" never alone */
	if (n == 1 && c->end - c->p > 1) {
		char a = c->p[0], b = c->p[1];
		if ((a == '<' && (b == '<' || b == '=')) || (a == '>' && (b == '>' || b == '=')) ||
		    (a == '&' && b == '&') || (a == '|' && b == '|') || (a == '!' && b == '='))
			return 0;
	}
	c->p += n;
	return 1;
}

static uint64_t expr(struct ce *c);

static uint64_t number(struct ce *c)
{
	const char *s = c->p;
	uint64_t v = 0;

	if (c->end - c->p >= 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X')) {
		c->p += 2;
		while (c->p < c->end && ((*c->p >= '0' && *c->p <= '9') || (*c->p >= 'a' && *c->p <= 'f') ||
					 (*c->p >= 'A' && *c->p <= 'F')))
			c->p++;
		if (num_parse_hex(s, (size_t)(c->p - s), &v) < 0)
			c->bad = 1;
	} else {
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
			c->p++;
		/* C reads 0-prefixed digits as octal; the kernel's constants here are never written so. */
		if (c->p == s || (c->p - s > 1 && s[0] == '0') || num_parse_u64(s, (size_t)(c->p - s), &v) < 0)
			c->bad = 1;
	}
	while (c->p < c->end && (*c->p == 'u' || *c->p == 'U' || *c->p == 'l' || *c->p == 'L'))
		c->p++;
	if (c->p < c->end && ident_char(*c->p))
		c->bad = 1;
	return v;
}

/* "(" type words ")": a cast, skipped; 1 if it was one. */
static int cast(struct ce *c)
{
	const char *q = c->p + 1;
	int words = 0;

	for (;;) {
		while (q < c->end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < c->end && *q == ')')
			break;
		if (q >= c->end || !ident_char(*q) || (*q >= '0' && *q <= '9'))
			return 0;
		while (q < c->end && ident_char(*q))
			q++;
		words++;
	}
	if (words == 0)
		return 0;
	c->p = q + 1;
	return 1;
}

static uint64_t unary(struct ce *c)
{
	uint64_t v = 0;

	if (c->bad || ++c->depth > DEPTH_MAX) {
		c->bad = 1;
		return 0;
	}
	ws(c);
	if (c->p >= c->end)
		c->bad = 1;
	else if (accept(c, "~"))
		v = ~unary(c);
	else if (accept(c, "!"))
		v = !unary(c);
	else if (accept(c, "-"))
		v = -unary(c);
	else if (*c->p == '(' && cast(c))
		v = unary(c);
	else if (accept(c, "(")) {
		v = expr(c);
		if (!accept(c, ")"))
			c->bad = 1;
	} else
		v = number(c);
	c->depth--;
	return v;
}

/* Binary levels, loosest last; each entry lists its operators. */
static const char *const LEVELS[][4] = {
	{ "*", "/", "%", NULL },
	{ "+", "-", NULL },
	{ "<<", ">>", NULL },
	{ "<=", ">=", "<", ">" },
	{ "==", "!=", NULL },
	{ "&", NULL },
	{ "^", NULL },
	{ "|", NULL },
	{ "&&", NULL },
	{ "||", NULL },
};

static uint64_t apply(struct ce *c, const char *op, uint64_t a, uint64_t b)
{
	switch (op[0]) {
	case '*': return a * b;
	case '/': if (b == 0) { c->bad = 1; return 0; } return a / b;
	case '%': if (b == 0) { c->bad = 1; return 0; } return a % b;
	case '+': return a + b;
	case '-': return a - b;
	case '^': return a ^ b;
	case '=': return a == b;
	case '!': return a != b;
	case '&': return op[1] ? (a && b) : (a & b);
	case '|': return op[1] ? (a || b) : (a | b);
	case '<':
		if (op[1] == '<') { if (b > 63) c->bad = 1; return b > 63 ? 0 : a << b; }
		return op[1] ? a <= b : a < b;
	case '>':
		if (op[1] == '>') { if (b > 63) c->bad = 1; return b > 63 ? 0 : a >> b; }
		return op[1] ? a >= b : a > b;
	}
	c->bad = 1;
	return 0;
}

static uint64_t binary(struct ce *c, int level)
{
	uint64_t v = level == 0 ? unary(c) : binary(c, level - 1);

	while (!c->bad) {
		const char *op = NULL;

		for (int i = 0; i < 4 && LEVELS[level][i] && !op; i++)
			if (accept(c, LEVELS[level][i]))
				op = LEVELS[level][i];
		if (!op)
			break;
		v = apply(c, op, v, level == 0 ? unary(c) : binary(c, level - 1));
	}
	return v;
}

/* cond ? a : b (right-associative) over the loosest binary level. */
static uint64_t expr(struct ce *c)
{
	uint64_t cond, a, b;
	int top = (int)(sizeof LEVELS / sizeof LEVELS[0]) - 1;

	if (c->bad || ++c->depth > DEPTH_MAX) {
		c->bad = 1;
		return 0;
	}
	cond = binary(c, top);
	if (accept(c, "?")) {
		a = expr(c);
		if (!accept(c, ":"))
			c->bad = 1;
		b = expr(c);
		cond = cond ? a : b;
	}
	c->depth--;
	return cond;
}

int cexpr_eval(const char *buf, size_t len, uint64_t *v)
{
	struct ce c = { buf, buf + len, 0, 0 };
	uint64_t r;

	if (!buf || len == 0)
		return -1;
	r = expr(&c);
	ws(&c);
	if (c.bad || c.p != c.end)
		return -1;
	*v = r;
	return 0;
}

/*
 * "print fmt: "FMT", ARG1, ARG2, ...": the k-th % conversion of FMT prints
 * ARGk.  Arguments are split at commas outside parentheses, braces and
 * string literals.
 */
int cexpr_print_arg(const char *buf, size_t len, const char *name, const char **arg, size_t *arglen)
{
	static const char head[] = "print fmt: \"";
	const char *p = NULL, *end = buf + len, *q, *fmt_end;
	size_t nl = strlen(name);
	int want = -1, k = 0, depth = 0;

	for (const char *s = buf; buf && s + sizeof head - 1 <= end; s++)
		if (memcmp(s, head, sizeof head - 1) == 0) {
			p = s + sizeof head - 1;
			break;
		}
	if (!p || nl == 0)
		return -1;
	{
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (eol)
			end = eol;
	}
	/* The format string: count conversions until "NAME=%". */
	for (q = p; q < end && *q != '"'; q++) {
		if (*q == '\\' && q + 1 < end) {
			q++;
			continue;
		}
		if (*q != '%')
			continue;
		if (q + 1 < end && q[1] == '%') {
			q++;
			continue;
		}
		if (want < 0 && (size_t)(q - p) >= nl + 1 && q[-1] == '=' && memcmp(q - 1 - nl, name, nl) == 0 &&
		    (q - 1 - nl == p || !ident_char(q[-2 - (long)nl])))
			want = k;
		k++;
	}
	if (q >= end || want < 0)
		return -1;
	fmt_end = q + 1;
	/* Arguments: split at commas outside brackets and string literals. */
	{
		const char *start = NULL;
		int idx = -1;

		for (q = fmt_end; q <= end; q++) {
			if (q == end || (*q == ',' && depth == 0)) {
				if (idx == want && start) {
					while (start < q && *start == ' ')
						start++;
					*arg = start;
					*arglen = (size_t)(q - start);
					while (*arglen > 0 && start[*arglen - 1] == ' ')
						(*arglen)--;
					return *arglen ? 0 : -1;
				}
				if (q == end)
					break;
				idx++;
				start = q + 1;
			} else if (*q == '"') {
				for (q++; q < end && *q != '"'; q++)
					if (*q == '\\')
						q++;
				if (q >= end)
					return -1;
			} else if (*q == '(' || *q == '{' || *q == '[') {
				depth++;
			} else if ((*q == ')' || *q == '}' || *q == ']') && --depth < 0) {
				return -1;
			}
		}
	}
	return -1;
}
