/* SPDX-License-Identifier: GPL-2.0-only */
/* maps: /proc/PID/maps lines; see maps.h. */
#include "collector/maps.h"

#include <string.h>

#include "common/num.h"

/* The span up to the next c (or the end) from *pos; the separator is consumed. 0, or -1 if empty. */
static int field(const char *buf, size_t len, size_t *pos, char c, const char **f, size_t *flen)
{
	size_t i = *pos;

	while (i < len && buf[i] != c)
		i++;
	if (i == *pos)
		return -1;
	*f = buf + *pos;
	*flen = i - *pos;
	*pos = i < len ? i + 1 : i;
	return 0;
}

static int hex_field(const char *buf, size_t len, size_t *pos, char c, uint64_t *out)
{
	const char *f;
	size_t n;

	/* num_parse_hex takes "0x"; the kernel never writes it, so refuse it here. */
	if (field(buf, len, pos, c, &f, &n) < 0 || n > 16 || (n > 1 && (f[1] == 'x' || f[1] == 'X')))
		return -1;
	return num_parse_hex(f, n, out);
}

int maps_parse_line(const char *buf, size_t len, struct maps_entry *out)
{
	const char *f;
	size_t pos = 0, n;
	uint64_t maj, min;

	memset(out, 0, sizeof *out);
	if (hex_field(buf, len, &pos, '-', &out->start) < 0 || hex_field(buf, len, &pos, ' ', &out->end) < 0 ||
	    out->start >= out->end)
		return -1;
	/* show_map_vma prints exactly [r-][w-][x-][ps] (found by fuzz_maps: a NUL got through) */
	if (field(buf, len, &pos, ' ', &f, &n) < 0 || n != 4 || (f[0] != 'r' && f[0] != '-') ||
	    (f[1] != 'w' && f[1] != '-') || (f[2] != 'x' && f[2] != '-') || (f[3] != 'p' && f[3] != 's'))
		return -1;
	memcpy(out->perms, f, 4);
	if (hex_field(buf, len, &pos, ' ', &out->offset) < 0 || hex_field(buf, len, &pos, ':', &maj) < 0 ||
	    hex_field(buf, len, &pos, ' ', &min) < 0 || maj > UINT32_MAX || min > UINT32_MAX)
		return -1;
	out->dev_major = (uint32_t)maj;
	out->dev_minor = (uint32_t)min;
	if (field(buf, len, &pos, ' ', &f, &n) < 0 || num_parse_u64(f, n, &out->inode) < 0)
		return -1;
	while (pos < len && buf[pos] == ' ')
		pos++;
	if (pos < len) {
		out->path = buf + pos;
		out->path_len = len - pos;
	}
	return 0;
}

int maps_same_file(const struct maps_entry *a, const struct maps_entry *b)
{
	return a->inode != 0 && a->inode == b->inode && a->dev_major == b->dev_major && a->dev_minor == b->dev_minor;
}
