/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zoneinfo_twin: the "twin" of a zoneinfo text, for test_zoneinfo and fuzz_zoneinfo.  A blank after
 * every line but those starting with 'N' (zone headers, whose grammar takes no trailing blank)
 * takes each line off zoneinfo.c's shortcut for simple lines (their shape ends in a digit), and
 * line() trims the blank away: text and twin must parse alike, both rejected or to the same struct.
 */
#ifndef FPUSOAK_TEST_ZONEINFO_TWIN_H
#define FPUSOAK_TEST_ZONEINFO_TWIN_H

#include <stddef.h>
#include <string.h>

/* The twin of in[0..n) in out (no NUL); its length, or 0 if it does not fit in cap or a line would
 * be over zoneinfo.c's LINE_MAX_LEN. */
static inline size_t zoneinfo_twin(const char *in, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int header = in[i] == 'N';   /* i is at a line's start */
		size_t j = i;

		while (j < n && in[j] != '\n')
			j++;
		if (!header && j - i >= 512)
			return 0;
		if (o + (j - i) + 2 > cap)
			return 0;
		memcpy(out + o, in + i, j - i);
		o += j - i;
		if (!header)
			out[o++] = ' ';
		if (j < n)
			out[o++] = '\n';
		i = j;
	}
	return o;
}

#endif
