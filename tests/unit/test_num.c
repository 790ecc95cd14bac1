/* SPDX-License-Identifier: GPL-2.0-only */
/* test_num: the bounded number parsers, table-driven (after git's u-parse-int). */
#include "common/num.h"
#include "test.h"

static void test_i64(void)
{
	static const struct { const char *in; int ok; int64_t want; } cases[] = {
		{ "0", 1, 0 }, { "1", 1, 1 }, { "-1", 1, -1 }, { "42", 1, 42 },
		{ "9223372036854775807", 1, INT64_MAX }, { "-9223372036854775808", 1, INT64_MIN },
		{ "9223372036854775808", 0, 0 }, { "-9223372036854775809", 0, 0 },
		{ "99999999999999999999999", 0, 0 }, { "", 0, 0 }, { "-", 0, 0 }, { "+1", 0, 0 },
		{ " 1", 0, 0 }, { "1 ", 0, 0 }, { "01", 0, 0 }, { "-0", 0, 0 }, { "1a", 0, 0 },
		{ "0x10", 0, 0 }, { "1.5", 0, 0 }, { "--1", 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t v = 0;
		int rc = num_parse_i64(cases[i].in, strlen(cases[i].in), &v);
		T_CHECK((rc == 0) == cases[i].ok && (!cases[i].ok || v == cases[i].want),
			"num_parse_i64(\"%s\") %s", cases[i].in, cases[i].ok ? "accepted" : "rejected");
	}
}

static void test_u64_hex(void)
{
	uint64_t v;
	size_t used;

	T_CHECK(num_parse_u64("18446744073709551615", 20, &v) == 0 && v == UINT64_MAX, "u64 max");
	T_CHECK(num_parse_u64("18446744073709551616", 20, &v) < 0, "u64 max+1 rejected");
	T_CHECK(num_parse_u64("-1", 2, &v) < 0, "u64 rejects sign");
	/* The unchecked fast path stops at 19 digits, the checked one takes 20. */
	T_CHECK(num_parse_u64("9999999999999999999", 19, &v) == 0 && v == 9999999999999999999ULL, "u64: 19 nines (fast path)");
	T_CHECK(num_parse_u64("10000000000000000000", 20, &v) == 0 && v == 10000000000000000000ULL, "u64: 10^19 (checked path)");
	T_CHECK(num_parse_u64("99999999999999999999", 20, &v) < 0, "u64: 20 nines rejected (overflow)");
	T_CHECK(num_parse_u64("999999999999999999x", 19, &v) < 0, "u64: junk in the 19th byte rejected");
	T_CHECK(num_parse_u64("1999999999999999999/", 20, &v) < 0, "u64: junk in the 20th byte rejected");
	T_CHECK(num_parse_u64("12:4", 4, &v) < 0 && num_parse_u64("1 2", 3, &v) < 0, "u64: ':' and ' ' rejected");
	T_CHECK(num_parse_u64("", 0, &v) < 0 && num_parse_u64("00", 2, &v) < 0, "u64: empty and 00 rejected");
	T_CHECK(num_parse_u64("0", 1, &v) == 0 && v == 0, "u64: 0");
	T_CHECK(num_parse_u64("7\x80", 2, &v) < 0 && num_parse_u64("\xb7", 1, &v) < 0, "u64: bytes above 0x7f rejected");
	T_CHECK(num_parse_u64("12", 1, &v) == 0 && v == 1, "u64: only len bytes are read");
	T_CHECK(num_prefix_u64("123 kB", 6, &v, &used) == 0 && v == 123 && used == 3, "prefix stops at space");
	T_CHECK(num_prefix_u64("x1", 2, &v, &used) < 0, "prefix needs a digit");
	T_CHECK(num_parse_hex("0x24000c0", 9, &v) == 0 && v == 0x24000c0, "hex with 0x");
	T_CHECK(num_parse_hex("cc0", 3, &v) == 0 && v == 0xcc0, "hex without 0x");
	T_CHECK(num_parse_hex("0x", 2, &v) < 0, "bare 0x rejected");
	T_CHECK(num_parse_hex("0x10000000000000000", 19, &v) < 0, "hex overflow rejected");
	T_CHECK(num_parse_hex("0xg", 3, &v) < 0, "hex junk rejected");
}

static void test_duration(void)
{
	static const struct { const char *in; int ok; int64_t ms; } cases[] = {
		{ "250ms", 1, 250 }, { "1s", 1, 1000 }, { "5m", 1, 300000 }, { "2h", 1, 7200000 },
		{ "1d", 1, 86400000 }, { "0", 1, 0 }, { "30", 1, 30000 }, { "14d", 1, 1209600000 },
		{ "", 0, 0 }, { "s", 0, 0 }, { "1x", 0, 0 }, { "-1s", 0, 0 }, { "1.5s", 0, 0 },
		{ "1 s", 0, 0 }, { "01s", 0, 0 }, { "99999999999999999d", 0, 0 }, { "1S", 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t v = -1;
		int rc = num_parse_duration_ms(cases[i].in, &v);
		T_CHECK((rc == 0) == cases[i].ok && (!cases[i].ok || v == cases[i].ms),
			"duration \"%s\" %s", cases[i].in, cases[i].ok ? "accepted" : "rejected");
	}
	char buf[32];
	T_EQ_S(num_format_duration(1500, buf, sizeof buf), "1500ms", "format 1500ms");
	T_EQ_S(num_format_duration(7200000, buf, sizeof buf), "2h", "format 2h");
	T_EQ_S(num_format_duration(0, buf, sizeof buf), "0", "format 0");
}

static void test_size(void)
{
	static const struct { const char *in; int ok; uint64_t b; } cases[] = {
		{ "4096", 1, 4096 }, { "256K", 1, 262144 }, { "64M", 1, 67108864 }, { "2G", 1, 2147483648ULL },
		{ "1MiB", 1, 1048576 }, { "0", 1, 0 }, { "1KB", 1, 1024 },
		{ "", 0, 0 }, { "K", 0, 0 }, { "1Q", 0, 0 }, { "-1M", 0, 0 }, { "17179869184G", 0, 0 },
		{ "1.5M", 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 0;
		int rc = num_parse_size(cases[i].in, &v);
		T_CHECK((rc == 0) == cases[i].ok && (!cases[i].ok || v == cases[i].b),
			"size \"%s\" %s", cases[i].in, cases[i].ok ? "accepted" : "rejected");
	}
}

int main(void)
{
	test_i64();
	test_u64_hex();
	test_duration();
	test_size();
	T_DONE();
}
