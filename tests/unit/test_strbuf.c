/* SPDX-License-Identifier: GPL-2.0-only */
/* test_strbuf: the bounded buffer — growth, the cap as an error, reset, detach. */
#include "test.h"
#include "common/strbuf.h"

int main(void)
{
	struct strbuf sb;
	char big[5000];
	size_t len;
	char *p;

	sb_init(&sb, 16);
	T_CHECK(sb.buf == NULL && sb.len == 0 && !sb.err, "init allocates nothing");
	T_EQ_I(sb_append(&sb, "0123456789", 10), 0, "append 10 of 16");
	T_EQ_I(sb_printf(&sb, "%s-%d", "ab", 7), 0, "printf 4 more");
	T_EQ_S(sb.buf, "0123456789ab-7", "content and NUL termination");
	T_EQ_I(sb.len, 14, "length 14");
	T_EQ_I(sb_append(&sb, "xyz", 3), -1, "17 bytes is past the cap of 16");
	T_CHECK(sb.err, "the cap sets the error flag");
	T_EQ_S(sb.buf, "0123456789ab-7", "a refused append leaves the content as it was");
	T_EQ_I(sb_append(&sb, "x", 1), -1, "the error is sticky: later appends refused even if they fit");
	T_EQ_I(sb_printf(&sb, "%d", 1), -1, "printf refused too");
	T_CHECK((p = sb_detach(&sb, &len)) == NULL && len == 0, "detach of a buffer in error gives NULL");
	T_CHECK(sb.buf == NULL && !sb.err, "and leaves it empty and usable");

	sb_init(&sb, 16);
	T_EQ_I(sb_append(&sb, "0123456789abcdef", 16), 0, "exactly the cap is fine");
	T_EQ_I(sb_append(&sb, "", 0), 0, "an empty append at the cap is fine");
	sb_reset(&sb);
	T_CHECK(sb.len == 0 && !sb.err && sb.buf && sb.buf[0] == 0, "reset empties and clears the error");
	T_EQ_I(sb_printf(&sb, "%016d", 5), 0, "printf to exactly the cap");
	T_EQ_I(sb_printf(&sb, "%s", "z"), -1, "printf one past the cap");
	sb_free(&sb);
	sb_free(NULL);

	/* growth across many doublings, content checked byte by byte */
	sb_init(&sb, 1 << 20);
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (char)('a' + i % 26);
	for (int i = 0; i < 100; i++)
		if (sb_append(&sb, big, sizeof big) < 0)
			break;
	T_EQ_I(sb.len, 100 * sizeof big, "500000 bytes appended in 100 steps");
	{
		int ok = 1;
		for (size_t i = 0; i < sb.len && ok; i++)
			ok = sb.buf[i] == (char)('a' + (i % sizeof big) % 26);
		T_CHECK(ok && sb.buf[sb.len] == 0, "every byte in place, NUL after");
	}
	T_CHECK(sb.alloc <= (1u << 20) + 1, "never allocates past cap+1 (%zu)", sb.alloc);
	for (int i = 0; i < 150; i++)
		sb_printf(&sb, "%.*s", (int)sizeof big, big);
	T_CHECK(sb.err && sb.len <= (1u << 20), "printf growth stops at the cap with an error (len %zu)", sb.len);
	sb_free(&sb);

	sb_init(&sb, 100);
	p = sb_detach(&sb, &len);
	T_CHECK(p && len == 0 && p[0] == 0, "detach of an empty buffer gives an empty string");
	free(p);
	sb_puts(&sb, "hello");
	p = sb_detach(&sb, &len);
	T_CHECK(p && len == 5 && strcmp(p, "hello") == 0 && sb.buf == NULL, "detach hands over the content");
	free(p);
	sb_init(&sb, 0);
	T_EQ_I(sb_append(&sb, "a", 1), -1, "cap 0 holds nothing");
	T_EQ_I(sb_printf(&sb, "%s", ""), -1, "not even after the error");
	sb_free(&sb);
	T_DONE();
}
