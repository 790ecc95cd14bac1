/* SPDX-License-Identifier: GPL-2.0-only */
/* wrap: fold text at word boundaries; see wrap.h. */
#include "common/wrap.h"

#include <string.h>

int wrap_words(struct strbuf *out, const char *text, size_t width, const char *indent)
{
	size_t col = 0, ilen = indent ? strlen(indent) : 0;
	const char *p = text ? text : "";
	int first = 1;

	while (*p) {
		size_t sp = strspn(p, " "), wl;
		if (!p[sp])
			break;
		wl = strcspn(p + sp, " ");
		if (first) {
			sb_append(out, p + sp, wl);
			col = wl;
			first = 0;
		} else if (col + sp + wl <= width) {
			/* On the same line the spaces stay as written: aligned columns keep their alignment. */
			sb_append(out, p, sp + wl);
			col += sp + wl;
		} else {
			/* A new line; a word wider than the line stays whole on it rather than be cut. */
			sb_append(out, "\n", 1);
			if (ilen)
				sb_append(out, indent, ilen);
			sb_append(out, p + sp, wl);
			col = ilen + wl;
		}
		p += sp + wl;
	}
	sb_append(out, "\n", 1);
	return out->err ? -1 : 0;
}
