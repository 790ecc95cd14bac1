/* SPDX-License-Identifier: GPL-2.0-only */
/* strbuf: bounded growable byte buffer; see strbuf.h. */
#include "common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(struct strbuf *sb, size_t cap_limit)
{
	sb->buf = NULL;
	sb->len = 0;
	sb->alloc = 0;
	sb->cap = cap_limit;
	sb->err = 0;
}

/* Make room for extra more bytes plus the NUL; 0 or -1 (err set). */
static int sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need, n;
	char *p;

	if (sb->err)
		return -1;
	if (extra > sb->cap || sb->len > sb->cap - extra) {
		sb->err = 1;
		return -1;
	}
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return 0;
	n = sb->alloc ? sb->alloc : 256;
	while (n < need)
		n = n > (size_t)-1 / 2 ? need : n * 2;
	/* Never allocate much past what the cap can use. */
	if (n > sb->cap + 1)
		n = sb->cap + 1;
	p = realloc(sb->buf, n);
	if (!p) {
		sb->err = 1;
		return -1;
	}
	sb->buf = p;
	sb->alloc = n;
	return 0;
}

int sb_append(struct strbuf *sb, const void *data, size_t len)
{
	if (sb_grow(sb, len) < 0)
		return -1;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sb_puts(struct strbuf *sb, const char *s)
{
	return sb_append(sb, s, strlen(s));
}

int sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->err)
		return -1;
	/* Try in the space we have; measure and grow when it does not fit. */
	if (sb->alloc == 0 && sb_grow(sb, 0) < 0)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->buf[sb->len] = '\0';
		sb->err = 1;
		return -1;
	}
	if ((size_t)n >= sb->alloc - sb->len) {
		if (sb_grow(sb, (size_t)n) < 0) {
			sb->buf[sb->len] = '\0';
			return -1;
		}
		va_start(ap, fmt);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
		va_end(ap);
		if (n < 0 || (size_t)n >= sb->alloc - sb->len) {
			sb->buf[sb->len] = '\0';
			sb->err = 1;
			return -1;
		}
	} else if (sb->len + (size_t)n > sb->cap) {
		/* It fitted the allocation but not the cap. */
		sb->buf[sb->len] = '\0';
		sb->err = 1;
		return -1;
	}
	sb->len += (size_t)n;
	return 0;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->err = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
	if (!sb)
		return;
	free(sb->buf);
	sb->buf = NULL;
	sb->len = 0;
	sb->alloc = 0;
	sb->err = 0;
}

char *sb_detach(struct strbuf *sb, size_t *len)
{
	char *p = sb->buf;

	if (sb->err) {
		*len = 0;
		sb_free(sb);
		return NULL;
	}
	if (!p && !(p = calloc(1, 1))) {   /* empty content is still a string */
		*len = 0;
		return NULL;
	}
	*len = sb->len;
	sb->buf = NULL;
	sb->len = 0;
	sb->alloc = 0;
	return p;
}
