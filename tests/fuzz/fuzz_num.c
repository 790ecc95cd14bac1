/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_num: libFuzzer harness for common/num.h, the one bounded number
 * parser every flag, config value, /proc field and query parameter goes
 * through.  Each function is checked against a reference written here from
 * num.h's rules alone (string2ll-style: no sign but '-' for i64, no leading
 * zeros, no whitespace, no overflow, the whole span), using 128-bit
 * arithmetic, so any disagreement traps:
 *   num_parse_u64/i64, num_prefix_u64, num_parse_hex on the raw bytes;
 *   num_parse_duration_ms, num_parse_size on the bytes up to the first NUL;
 *   num_format_duration round-trips through num_parse_duration_ms.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_num.c common/num.c \
 *     -o /tmp/fz_num && /tmp/fz_num -max_total_time=60 /tmp/corpus_num
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/num.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef unsigned __int128 u128;

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Leading decimal digits of s[0..n): count in *used, value (saturated past 2^64) in *v. */
static void ref_digits(const char *s, size_t n, size_t *used, u128 *v)
{
	u128 x = 0;
	size_t i = 0;

	while (i < n && is_digit(s[i])) {
		if (x <= ((u128)1 << 64))
			x = x * 10 + (unsigned)(s[i] - '0');
		i++;
	}
	*used = i;
	*v = x;
}

/* Whole span, unsigned, canonical: 0 or -1. */
static int ref_u64(const char *s, size_t n, uint64_t *out)
{
	size_t used;
	u128 v;

	ref_digits(s, n, &used, &v);
	if (n == 0 || used != n || (n > 1 && s[0] == '0') || v > UINT64_MAX)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int ref_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t u;

	if (n > 0 && s[0] == '-') {
		if (ref_u64(s + 1, n - 1, &u) < 0 || u == 0 || u > (uint64_t)INT64_MAX + 1)
			return -1;
		*out = (int64_t)(0 - u);
		return 0;
	}
	if (ref_u64(s, n, &u) < 0 || u > INT64_MAX)
		return -1;
	*out = (int64_t)u;
	return 0;
}

static int ref_hex(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0;

	if (i == n || n - i > 16)
		return -1;
	for (; i < n; i++) {
		const char *hex = "0123456789abcdef", *p;
		char c = s[i] >= 'A' && s[i] <= 'F' ? (char)(s[i] - 'A' + 'a') : s[i];
		if (c == '\0' || !(p = strchr(hex, c)))
			return -1;
		v = v << 4 | (uint64_t)(p - hex);
	}
	*out = v;
	return 0;
}

/* Digits (canonical, like u64 but the rest is a unit) then exactly one of units[]. */
static int ref_unit(const char *s, const char *const *units, const uint64_t *mult, size_t nu, u128 *out)
{
	size_t n = strlen(s), used;
	u128 v;

	ref_digits(s, n, &used, &v);
	if (used == 0 || (used > 1 && s[0] == '0') || v > UINT64_MAX)
		return -1;
	for (size_t i = 0; i < nu; i++)
		if (strcmp(s + used, units[i]) == 0) {
			*out = v * mult[i];
			return 0;
		}
	return -1;
}

static int ref_duration(const char *s, int64_t *ms)
{
	static const char *const u[] = { "ms", "s", "m", "h", "d", "" };
	static const uint64_t m[] = { 1, 1000, 60000, 3600000, 86400000, 1000 };
	u128 v;

	if (ref_unit(s, u, m, 6, &v) < 0 || v > INT64_MAX)
		return -1;
	*ms = (int64_t)v;
	return 0;
}

static int ref_size(const char *s, uint64_t *bytes)
{
	static const char *const u[] = { "", "B", "K", "KB", "KiB", "k", "M", "MB", "MiB", "G", "GB", "GiB", "T", "TB", "TiB" };
	static const uint64_t m[] = { 1, 1, 1 << 10, 1 << 10, 1 << 10, 1 << 10, 1 << 20, 1 << 20, 1 << 20,
				      1 << 30, 1 << 30, 1 << 30, 1ULL << 40, 1ULL << 40, 1ULL << 40 };
	u128 v;

	if (ref_unit(s, u, m, 15, &v) < 0 || v > UINT64_MAX)
		return -1;
	*bytes = (uint64_t)v;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char z[256], fmt[64];
	uint64_t a, b;
	int64_t x, y;
	size_t used, ru;
	u128 rv;
	int r1, r2;

	/* Whole-span parsers on the raw bytes (NULs and all). */
	r1 = num_parse_u64(s, size, &a);
	r2 = ref_u64(s, size, &b);
	if (r1 != r2 || (r1 == 0 && a != b))
		__builtin_trap();
	r1 = num_parse_i64(s, size, &x);
	r2 = ref_i64(s, size, &y);
	if (r1 != r2 || (r1 == 0 && x != y))
		__builtin_trap();
	if (r1 == 0) {            /* canonical: prints back to the same bytes */
		int n = snprintf(z, sizeof z, "%lld", (long long)x);
		if ((size_t)n != size || memcmp(z, s, size) != 0)
			__builtin_trap();
	}
	r1 = num_parse_hex(s, size, &a);
	r2 = ref_hex(s, size, &b);
	if (r1 != r2 || (r1 == 0 && a != b))
		__builtin_trap();
	r1 = num_prefix_u64(s, size, &a, &used);
	ref_digits(s, size, &ru, &rv);
	if (r1 == 0 ? (used != ru || ru == 0 || rv > UINT64_MAX || a != (uint64_t)rv) : (ru != 0 && rv <= UINT64_MAX))
		__builtin_trap();

	/* NUL-terminated parsers on a copy (they take C strings: flags and config values). */
	if (size >= sizeof z)
		return 0;
	memcpy(z, s, size);
	z[size] = '\0';
	r1 = num_parse_duration_ms(z, &x);
	r2 = ref_duration(z, &y);
	if (r1 != r2 || (r1 == 0 && x != y))
		__builtin_trap();
	if (r1 == 0) {            /* the shortest exact form parses back to the same value */
		num_format_duration(x, fmt, sizeof fmt);
		if (num_parse_duration_ms(fmt, &y) != 0 || y != x || strlen(fmt) > strlen(z) + 2)
			__builtin_trap();
	}
	r1 = num_parse_size(z, &a);
	r2 = ref_size(z, &b);
	if (r1 != r2 || (r1 == 0 && a != b))
		__builtin_trap();
	/* Any int64 formats to something; non-negative ones round-trip. */
	if (size >= 8) {
		int64_t v;
		memcpy(&v, data, 8);
		num_format_duration(v, fmt, sizeof fmt);
		if (v >= 0 && (num_parse_duration_ms(fmt, &y) != 0 || y != v))
			__builtin_trap();
	}
	return 0;
}
