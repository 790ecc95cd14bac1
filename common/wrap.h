/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wrap: plain text folded at word boundaries, for `summary` (<= 72 columns,
 * pasted into mailing-list replies).  Nothing is ever cut or dropped: a
 * word longer than the width (a path, a long kernel release) stands alone
 * on its line, longer than the width.  Continuation lines start with the
 * indent; columns are counted in bytes (summary text is ASCII).
 */
#ifndef FPUSOAK_WRAP_H
#define FPUSOAK_WRAP_H

#include <stddef.h>

#include "common/strbuf.h"

/* Append text folded at spaces to at most width columns per line (continuations begin with indent),
 * each line ending in '\n'; spaces between words on one line stay as written (aligned columns), spaces at
 * a break and at the start and end go.  0, or -1 if out is full (sb->err). */
int wrap_words(struct strbuf *out, const char *text, size_t width, const char *indent);

#endif
