/* SPDX-License-Identifier: GPL-2.0-only */
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

/*
 * Walk s as UTF-8; one(cp, tmp) returns NULL to copy the character as it
 * is, or the text to write instead (tmp is scratch for numeric forms).
 * Runs of characters that need nothing are copied in one append: escaping
 * a long cmdline costs one pass and a few memcpys.  Invalid bytes and NUL
 * always become U+FFFD.
 */
typedef const char *(*esc_one_fn)(unsigned cp, char tmp[16]);

#define REPLACEMENT_UTF8 "\xef\xbf\xbd"

static int escape_walk(struct strbuf *sb, const char *s, size_t len, esc_one_fn one)
{
	size_t i = 0, run = 0;
	char tmp[16];

	if (!s)
		return sb->err ? -1 : 0;
	while (i < len) {
		unsigned cp;
		size_t n = escape_utf8_next(s + i, len - i, &cp);
		const char *rep = cp == 0 || (cp == REPLACEMENT && n == 1) ? REPLACEMENT_UTF8 : one(cp, tmp);

		if (rep) {
			if (sb_append(sb, s + run, i - run) < 0 || sb_puts(sb, rep) < 0)
				return -1;
			run = i + n;
		}
		i += n;
	}
	return sb_append(sb, s + run, i - run);
}

static int is_bad_control(unsigned cp)
{
	return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F;
}

static const char *html_one(unsigned cp, char tmp[16])
{
	(void)tmp;
	switch (cp) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	default:
		/* Not XML characters: a page must stay well-formed whatever COMM holds. */
		return is_bad_control(cp) || cp == 0xFFFE || cp == 0xFFFF ? REPLACEMENT_UTF8 : NULL;
	}
}

int escape_html(struct strbuf *sb, const char *s, size_t len)
{
	return escape_walk(sb, s, len, html_one);
}

static const char *json_one(unsigned cp, char tmp[16])
{
	switch (cp) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\b': return "\\b";
	case '\f': return "\\f";
	case '\n': return "\\n";
	case '\r': return "\\r";
	case '\t': return "\\t";
	default:
		/* U+2028/9 are line ends to JavaScript: keep the literal safe to embed. */
		if (cp < 0x20 || cp == 0x2028 || cp == 0x2029) {
			snprintf(tmp, 16, "\\u%04x", cp);
			return tmp;
		}
		return NULL;
	}
}

int escape_json(struct strbuf *sb, const char *s, size_t len)
{
	if (sb_append(sb, "\"", 1) < 0 || escape_walk(sb, s, len, json_one) < 0)
		return -1;
	return sb_append(sb, "\"", 1);
}

static const char *csv_one(unsigned cp, char tmp[16])
{
	(void)tmp;
	if (cp == '"')
		return "\"\"";
	return is_bad_control(cp) ? REPLACEMENT_UTF8 : NULL;
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

static const char *prom_one(unsigned cp, char tmp[16])
{
	(void)tmp;
	switch (cp) {
	case '\\': return "\\\\";
	case '"': return "\\\"";
	case '\n': return "\\n";
	default: return NULL;
	}
}

int escape_prom_label(struct strbuf *sb, const char *s, size_t len)
{
	return escape_walk(sb, s, len, prom_one);
}

static const char *utf8_one(unsigned cp, char tmp[16])
{
	(void)cp;
	(void)tmp;
	return NULL;
}

int escape_utf8(struct strbuf *sb, const char *s, size_t len)
{
	return escape_walk(sb, s, len, utf8_one);
}
