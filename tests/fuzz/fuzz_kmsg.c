/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_kmsg: libFuzzer harness for the /dev/kmsg record parser, \xNN
 * decoding and every kernel-log line parser (kmsg_parse_line dispatches to
 * all of them).  The input is tried three ways: as one /dev/kmsg record
 * (whose message then goes through the line parser), as a bare message
 * line, and as escaped text to decode.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_kmsg.c \
 *     collector/kmsg.c common/num.c -o /tmp/fz_kmsg && /tmp/fz_kmsg -max_total_time=10 /tmp/corpus_kmsg
 * Seed /tmp/corpus_kmsg with single records, e.g. one file per line of
 * tests/fixtures/kmsg-6.18-fc-x86_64.txt and the lines of tests/unit/test_kmsg.c.
 * Besides the sanitizers, it traps when an accepted parse breaks the header's contract.
 */
#include <stdint.h>
#include <string.h>

#include "collector/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap + 1);

	if (n > cap)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)     /* copied from escaped text: printable ASCII only */
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			__builtin_trap();
}

static void check_line(const char *msg, size_t len)
{
	struct kmsg_event ev;
	struct kmsg_task t;
	int rc = kmsg_parse_line(msg, len, &ev);

	/* A task line: a pid in range, the rest inside the line; matching it never reads past it. */
	if (kmsg_parse_task(msg, len, &t) == 0) {
		if (t.pid < 0 || t.pid > INT32_MAX || t.rest < msg || t.rest + t.rest_len != msg + len)
			__builtin_trap();
		(void)kmsg_task_is(&t, msg, len > 20 ? 20 : len);
	}

	switch (rc) {
	case KMSG_LINE_OTHER:
		if (ev.kind != KMSG_NONE)
			__builtin_trap();
		return;
	case KMSG_LINE_MALFORMED:
		if (ev.kind == KMSG_NONE || ev.comm_len != 0 || ev.comm[0] != '\0')
			__builtin_trap();
		return;
	case KMSG_LINE_EVENT:
		break;
	default:
		__builtin_trap();
	}
	if (ev.kind == KMSG_NONE || ev.comm_len > KMSG_COMM_MAX || ev.comm[ev.comm_len] != '\0' ||
	    memchr(ev.comm, '\0', ev.comm_len) != NULL)
		__builtin_trap();
	if (ev.order < -1 || ev.order > 63 || ev.pid < -1 || ev.pid > INT32_MAX)
		__builtin_trap();
	check_text(ev.gfp_flags, KMSG_GFP_FLAGS_MAX);
	check_text(ev.nodemask, KMSG_NODEMASK_MAX);
	check_text(ev.constraint, KMSG_CONSTRAINT_MAX);
	if ((ev.kind == KMSG_ALLOC_FAIL || ev.kind == KMSG_OOM_INVOKED) && !ev.has_gfp)
		__builtin_trap();
	if ((ev.kind == KMSG_OOM_KILL || ev.kind == KMSG_OOM_CONSTRAINT) && ev.pid < 0)
		__builtin_trap();
	(void)kmsg_kind_name(ev.kind);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct kmsg_record rec;
	char out[64];
	ssize_t n;

	if (kmsg_parse_record(buf, size, &rec) == 0) {
		const char *k, *v;
		size_t pos = 0, kl, vl;
		int r;

		if (rec.msg < buf || rec.msg + rec.msg_len > buf + size || memchr(rec.msg, '\n', rec.msg_len) ||
		    rec.facility < 0 || rec.facility > 255 || rec.level < 0 || rec.level > 7)
			__builtin_trap();
		while ((r = kmsg_dict_next(&rec, &pos, &k, &kl, &v, &vl)) > 0)
			if (k < buf || v + vl > buf + size || kl == 0)
				__builtin_trap();
		if (r < 0)
			__builtin_trap();   /* the record parser already validated the dictionary */
		check_line(rec.msg, rec.msg_len);
	}
	check_line(buf, size);
	n = kmsg_unescape(buf, size, out, sizeof out);
	if (n > (ssize_t)sizeof out || (n >= 0 && (size_t)n > size))
		__builtin_trap();
	return 0;
}
