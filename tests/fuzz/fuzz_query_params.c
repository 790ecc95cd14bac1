/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_query_params: libFuzzer harness for the HTTP request-target parser
 * (web/url.c): path and query decoding, caps, parameter syntax, times.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_query_params.c \
 *     web/url.c common/num.c -o /tmp/fz_url && /tmp/fz_url -max_total_time=30 /tmp/corpus_url
 * Seed /tmp/corpus_url with targets such as "/runs/1?from=2024-06-01T12:00&to=1717243559000",
 * "/api/v1/runs/3/buddyinfo.csv?max_points=50&format=csv" and "/?name=Active(anon)".
 * Besides the sanitizers, it traps when an accepted parse breaks url.h's contract.
 */
#include <stdint.h>
#include <string.h>

#include "web/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct url u;
	const char *why = NULL;
	int64_t ms;
	int r = url_parse((const char *)data, size, &u, &why);

	if (r != URL_OK && r != URL_BAD && r != URL_TOO_LONG)
		__builtin_trap();
	if (!why)
		__builtin_trap();
	if (r == URL_TOO_LONG && size <= URL_PATH_MAX)
		__builtin_trap();   /* nothing that short can be too long */
	if (r == URL_OK) {
		const struct url_params *p = &u.p;
		if (u.path[0] != '/' || strlen(u.path) != u.path_len || u.path_len > URL_PATH_MAX)
			__builtin_trap();
		for (size_t i = 0; i < u.path_len; i++)   /* decoded: no control bytes, no NUL */
			if ((unsigned char)u.path[i] < 0x20 || (unsigned char)u.path[i] == 0x7f)
				__builtin_trap();
		if (p->nparams > URL_MAX_PARAMS)
			__builtin_trap();
		if (p->has_from && (p->from_ms < 0 || p->from_ms > URL_TIME_MAX))
			__builtin_trap();
		if (p->has_to && (p->to_ms < 0 || p->to_ms > URL_TIME_MAX))
			__builtin_trap();
		if (p->has_max_points && (p->max_points < 1 || p->max_points > URL_MAX_POINTS))
			__builtin_trap();
		if ((p->has_a && p->a.id < 1) || (p->has_b && p->b.id < 1))
			__builtin_trap();
		if (p->has_name && (strlen(p->name) == 0 || strlen(p->name) > URL_NAME_MAX))
			__builtin_trap();
	}
	/* The time parser alone, on the raw bytes. */
	if (url_parse_time((const char *)data, size, &ms) == 0 && (ms < 0 || ms > URL_TIME_MAX))
		__builtin_trap();
	return 0;
}
