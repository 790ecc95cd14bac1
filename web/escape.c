/* escape: per-format escaping of untrusted strings; see escape.h. */
#include "web/escape.h"

#include <stdio.h>

#define REPLACEMENT 0xFFFDu

size_t escape_utf8_next(const char *s, size_t len, unsigned *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0], min, v;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2; v = c & 0x1F; min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3; v = c & 0x0F; min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4; v = c & 0x07; min = 0x10000;
	} else {
		goto bad;   /* continuation byte, C0/C1 overlong leads, F5..FF */
	}
	if (len < n)
		goto bad;
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xC0) != 0x80)
			goto bad;
		v = v << 6 | (u[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		goto bad;
	*cp = v;
	return n;
bad:
	*cp = REPLACEMENT;
	return 1;
}

static int put_cp(struct strbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp; n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3F)); n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | cp >> 12); b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
	} else {
		b[0] = (char)(0xF0 | cp >> 18); b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
	}
	return sb_append(sb, b, n);
}

/*
 * Walk s as UTF-8, calling one(sb, cp) per character.  Runs of characters
 * that need no escaping are copied in one append: escaping a long cmdline
 * costs one pass and a few memcpys.
 */
typedef int (*esc_one_fn)(struct strbuf *sb, unsigned cp);   /* 1: emitted, 0: copy as is, -1: error */

static int escape_walk(struct strbuf *sb, const char *s, size_t len, esc_one_fn one)
{
	size_t i = 0, run = 0;

	if (!s)
		return sb->err ? -1 : 0;
	while (i < len) {
		unsigned cp;
		size_t n = escape_utf8_next(s + i, len - i, &cp);
		int r = cp == 0 ? -2 : one(sb, cp);   /* NUL is never copied; probed first */

		if (r == 0 && cp != REPLACEMENT) {
			i += n;
			continue;
		}
		if (sb_append(sb, s + run, i - run) < 0)
			return -1;
		if (r == 0 || r == -2) {   /* invalid byte kept by one(), or NUL */
			if (put_cp(sb, REPLACEMENT) < 0)
				return -1;
		} else if (r < 0) {
			return -1;
		}
		i += n;
		run = i;
	}
	return sb_append(sb, s + run, i - run);
}

static int is_bad_control(unsigned cp)
{
	return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F;
}

static int html_one(struct strbuf *sb, unsigned cp)
{
	const char *e;

	switch (cp) {
	case '&': e = "&amp;"; break;
	case '<': e = "&lt;"; break;
	case '>': e = "&gt;"; break;
	case '"': e = "&quot;"; break;
	case '\'': e = "&#39;"; break;
	default:
		/* Not XML characters: a page must stay well-formed whatever COMM holds. */
		if (is_bad_control(cp) || cp == 0xFFFE || cp == 0xFFFF)
			return put_cp(sb, REPLACEMENT) < 0 ? -1 : 1;
		return 0;
	}
	return sb_puts(sb, e) < 0 ? -1 : 1;
}

int escape_html(struct strbuf *sb, const char *s, size_t len)
{
	return escape_walk(sb, s, len, html_one);
}

static int json_one(struct strbuf *sb, unsigned cp)
{
	switch (cp) {
	case '"': return sb_puts(sb, "\\\"") < 0 ? -1 : 1;
	case '\\': return sb_puts(sb, "\\\\") < 0 ? -1 : 1;
	case '\b': return sb_puts(sb, "\\b") < 0 ? -1 : 1;
	case '\f': return sb_puts(sb, "\\f") < 0 ? -1 : 1;
	case '\n': return sb_puts(sb, "\\n") < 0 ? -1 : 1;
	case '\r': return sb_puts(sb, "\\r") < 0 ? -1 : 1;
	case '\t': return sb_puts(sb, "\\t") < 0 ? -1 : 1;
	default:
		/* U+2028/9 are line ends to JavaScript: keep the literal safe to embed. */
		if (cp < 0x20 || cp == 0x2028 || cp == 0x2029)
			return sb_printf(sb, "\\u%04x", cp) < 0 ? -1 : 1;
		return 0;
	}
}

int escape_json(struct strbuf *sb, const char *s, size_t len)
{
	if (sb_append(sb, "\"", 1) < 0 || escape_walk(sb, s, len, json_one) < 0)
		return -1;
	return sb_append(sb, "\"", 1);
}

static int csv_one(struct strbuf *sb, unsigned cp)
{
	if (cp == '"')
		return sb_puts(sb, "\"\"") < 0 ? -1 : 1;
	if (is_bad_control(cp))
		return put_cp(sb, REPLACEMENT) < 0 ? -1 : 1;
	return 0;
}

int escape_csv(struct strbuf *sb, const char *s, size_t len)
{
	int quote = 0, formula = 0;

	if (!s || len == 0)
		return sb->err ? -1 : 0;
	formula = s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
		s[0] == '\r';
	quote = formula || s[0] == ' ' || s[len - 1] == ' ';
	for (size_t i = 0; i < len && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote)
		return escape_walk(sb, s, len, csv_one);
	if (sb_puts(sb, formula ? "\"'" : "\"") < 0 || escape_walk(sb, s, len, csv_one) < 0)
		return -1;
	return sb_append(sb, "\"", 1);
}

static int prom_one(struct strbuf *sb, unsigned cp)
{
	switch (cp) {
	case '\\': return sb_puts(sb, "\\\\") < 0 ? -1 : 1;
	case '"': return sb_puts(sb, "\\\"") < 0 ? -1 : 1;
	case '\n': return sb_puts(sb, "\\n") < 0 ? -1 : 1;
	default: return 0;
	}
}

int escape_prom_label(struct strbuf *sb, const char *s, size_t len)
{
	return escape_walk(sb, s, len, prom_one);
}

static int utf8_one(struct strbuf *sb, unsigned cp)
{
	(void)sb;
	(void)cp;
	return 0;
}

int escape_utf8(struct strbuf *sb, const char *s, size_t len)
{
	return escape_walk(sb, s, len, utf8_one);
}
