/* SPDX-License-Identifier: GPL-2.0-only */
/* num: bounded number parsing; see num.h for the rules. */
#include "common/num.h"

#include <stdio.h>
#include <string.h>

int num_prefix_u64(const char *buf, size_t len, uint64_t *out, size_t *used)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < len && buf[i] >= '0' && buf[i] <= '9') {
		unsigned d = (unsigned)(buf[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		i++;
	}
	if (i == 0)
		return -1;
	*out = v;
	*used = i;
	return 0;
}

int num_parse_u64(const char *buf, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t used;

	/* "0" alone is fine; "01" is not: it is never what a kernel or a user meant. */
	if (len == 0 || (len > 1 && buf[0] == '0'))
		return -1;
	/*
	 * Up to 19 digits cannot overflow (10^19 - 1 < 2^64), so the common case skips the per-digit
	 * overflow test: the samplers parse ~500 numbers a second through here.
	 */
	if (len <= 19) {
		for (size_t i = 0; i < len; i++) {
			unsigned d = (unsigned)(unsigned char)buf[i] - '0';
			if (d > 9)
				return -1;
			v = v * 10 + d;
		}
		*out = v;
		return 0;
	}
	if (num_prefix_u64(buf, len, out, &used) < 0 || used != len)
		return -1;
	return 0;
}

int num_parse_i64(const char *buf, size_t len, int64_t *out)
{
	uint64_t u;
	int neg = 0;

	if (len > 0 && buf[0] == '-') {
		neg = 1;
		buf++;
		len--;
	}
	if (num_parse_u64(buf, len, &u) < 0)
		return -1;
	if (neg) {
		if (u == 0 || u > (uint64_t)INT64_MAX + 1)   /* "-0" is junk */
			return -1;
		*out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
	} else {
		if (u > (uint64_t)INT64_MAX)
			return -1;
		*out = (int64_t)u;
	}
	return 0;
}

int num_parse_hex(const char *buf, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len >= 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		i = 2;
	if (i == len || len - i > 16)
		return -1;
	for (; i < len; i++) {
		char c = buf[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

int num_parse_duration_ms(const char *s, int64_t *out_ms)
{
	static const struct { const char *suf; int64_t ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
		{ "", 1000 },
	};
	size_t len, used;
	uint64_t v;

	if (!s)
		return -1;
	len = strlen(s);
	if (num_prefix_u64(s, len, &v, &used) < 0 || (used > 1 && s[0] == '0'))
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(s + used, units[i].suf) != 0)
			continue;
		if (v > (uint64_t)INT64_MAX / (uint64_t)units[i].ms)
			return -1;
		*out_ms = (int64_t)v * units[i].ms;
		return 0;
	}
	return -1;
}

int num_parse_size(const char *s, uint64_t *out_bytes)
{
	static const struct { const char *suf; int shift; } units[] = {
		{ "", 0 }, { "B", 0 },
		{ "K", 10 }, { "KB", 10 }, { "KiB", 10 }, { "k", 10 },
		{ "M", 20 }, { "MB", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GB", 30 }, { "GiB", 30 },
		{ "T", 40 }, { "TB", 40 }, { "TiB", 40 },
	};
	size_t len, used;
	uint64_t v;

	if (!s)
		return -1;
	len = strlen(s);
	if (num_prefix_u64(s, len, &v, &used) < 0 || (used > 1 && s[0] == '0'))
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(s + used, units[i].suf) != 0)
			continue;
		if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
			return -1;
		*out_bytes = v << units[i].shift;
		return 0;
	}
	return -1;
}

const char *num_format_duration(int64_t ms, char *out, size_t outlen)
{
	static const struct { const char *suf; int64_t ms; } units[] = {
		{ "d", 86400000 }, { "h", 3600000 }, { "m", 60000 }, { "s", 1000 },
	};

	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (ms != 0 && ms % units[i].ms == 0) {
			snprintf(out, outlen, "%lld%s", (long long)(ms / units[i].ms), units[i].suf);
			return out;
		}
	}
	snprintf(out, outlen, ms == 0 ? "0" : "%lldms", (long long)ms);
	return out;
}
