/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * strbuf: a bounded, growable byte buffer with printf-append.
 *
 * Web pages, JSON, CSV and the /metrics body are built in one of these.
 * Every buffer has a hard cap fixed at sb_init(): a response that would
 * grow past it is an error (sb->err set, later appends refused), never a
 * silently cut page.  Memory grows by doubling, so building N bytes costs
 * O(N) copies; the contents are always NUL-terminated once allocated.
 *
 * Not thread-safe: one buffer belongs to one thread at a time.
 */
#ifndef FPUSOAK_STRBUF_H
#define FPUSOAK_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;      /* NULL until the first append; then NUL-terminated at len */
	size_t len;     /* bytes of content, excluding the NUL */
	size_t alloc;   /* bytes allocated (> len when buf != NULL) */
	size_t cap;     /* hard limit on len */
	int err;        /* sticky: set when an append hit the cap or malloc failed */
};

/* Empty buffer that may hold at most cap_limit bytes of content; allocates nothing. */
void sb_init(struct strbuf *sb, size_t cap_limit);

/* Append formatted text; 0, or -1 (and sb->err set, content unchanged) if it would pass the cap or memory ran out. */
int sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append len bytes; 0, or -1 (sb->err set, content unchanged) past the cap or on allocation failure. */
int sb_append(struct strbuf *sb, const void *data, size_t len);

/* Append a NUL-terminated string; same contract as sb_append. */
int sb_puts(struct strbuf *sb, const char *s);

/* Empty the buffer and clear the error flag; keeps the allocation for reuse. */
void sb_reset(struct strbuf *sb);

/* Release the memory; the buffer is then empty and may be reused with the same cap. NULL-safe. */
void sb_free(struct strbuf *sb);

/* Hand the malloc'd contents (NUL-terminated, *len bytes) to the caller, who frees them; NULL if in error or out of memory. The buffer is left empty. */
char *sb_detach(struct strbuf *sb, size_t *len);

#endif
