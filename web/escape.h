/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * escape: one escaping function per output format, applied at the output
 * boundary to every string that came from the kernel or the database.
 *
 * COMM and similar kernel strings are set by any local user, and run labels
 * by whoever started the daemon: they may hold markup, quotes, control bytes
 * and invalid UTF-8.  Every function here writes valid UTF-8 only: an
 * invalid byte becomes U+FFFD, and so does NUL.  Each appends to sb and
 * returns 0, or -1 when the buffer hit its cap (sb->err is then set).
 */
#ifndef FPUSOAK_ESCAPE_H
#define FPUSOAK_ESCAPE_H

#include <stddef.h>

#include "common/strbuf.h"

/* HTML/SVG/XML text or quoted attribute value: & < > " ' as entities; C0 controls (but tab, LF, CR), DEL, U+FFFE/U+FFFF as U+FFFD. */
int escape_html(struct strbuf *sb, const char *s, size_t len);

/* A complete JSON string literal with its quotes: \" \\ \b \f \n \r \t, other controls and U+2028/9 as \uXXXX. */
int escape_json(struct strbuf *sb, const char *s, size_t len);

/* A complete CSV field (RFC 4180): quoted when it holds , " CR LF or starts/ends with a space; a leading = + - @ TAB CR is prefixed with ' (spreadsheet formula injection). */
int escape_csv(struct strbuf *sb, const char *s, size_t len);

/* A Prometheus text-format label value (without quotes): \\ \" \n escaped. */
int escape_prom_label(struct strbuf *sb, const char *s, size_t len);

/* A valid-UTF-8 copy (invalid bytes and NUL as U+FFFD), e.g. before handing text to cJSON. */
int escape_utf8(struct strbuf *sb, const char *s, size_t len);

/* Decode one UTF-8 character at s[0..len) (len >= 1): returns bytes used (>= 1) and *cp, which is U+FFFD for an invalid, overlong, surrogate or truncated sequence (1 byte used). */
size_t escape_utf8_next(const char *s, size_t len, unsigned *cp);

#endif
