/* SPDX-License-Identifier: GPL-2.0-only */
/* locks: /proc/locks; see locks.h. */
#include "collector/locks.h"

#include <string.h>

#include "common/num.h"

#define MAX_FIELDS 9

/* Split line[0..len) at spaces into at most MAX_FIELDS fields; count. */
static int fields(const char *line, size_t len, const char *f[MAX_FIELDS], size_t fl[MAX_FIELDS])
{
	int n = 0;
	size_t i = 0;

	while (i < len && n < MAX_FIELDS) {
		while (i < len && line[i] == ' ')
			i++;
		if (i == len)
			break;
		f[n] = line + i;
		while (i < len && line[i] != ' ')
			i++;
		fl[n] = (size_t)(line + i - f[n]);
		n++;
	}
	return n;
}

static int is(const char *f, size_t fl, const char *want)
{
	return fl == strlen(want) && memcmp(f, want, fl) == 0;
}

/* "MAJ:MIN:INODE" (hex, hex, decimal) equal to the wanted file. */
static int same_file(const char *f, size_t fl, unsigned maj, unsigned min, uint64_t ino)
{
	const char *c1 = memchr(f, ':', fl), *c2;
	uint64_t a, b, i;

	if (!c1 || !(c2 = memchr(c1 + 1, ':', fl - (size_t)(c1 + 1 - f))))
		return 0;
	if (num_parse_hex(f, (size_t)(c1 - f), &a) < 0 || num_parse_hex(c1 + 1, (size_t)(c2 - c1 - 1), &b) < 0 ||
	    num_parse_u64(c2 + 1, fl - (size_t)(c2 + 1 - f), &i) < 0)
		return 0;
	return a == maj && b == min && i == ino;
}

int locks_flock_held(const char *buf, size_t len, unsigned maj, unsigned min, uint64_t ino)
{
	size_t i = 0;

	while (i < len) {
		const char *line = buf + i, *nl = memchr(line, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - line) : len - i;
		const char *f[MAX_FIELDS];
		size_t fl[MAX_FIELDS];
		int n = fields(line, ll, f, fl);

		i += ll + 1;
		/* "N:" FLOCK ADVISORY WRITE PID DEV:INODE START END; a waiter has "->" as its second field. */
		if (n >= 6 && is(f[1], fl[1], "FLOCK") && is(f[3], fl[3], "WRITE") &&
		    same_file(f[5], fl[5], maj, min, ino))
			return 1;
	}
	return 0;
}
