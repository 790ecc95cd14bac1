/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_slabinfo: libFuzzer harness for slabinfo_parse and slabinfo_find.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_slabinfo.c \
 *     collector/slabinfo.c common/num.c -o /tmp/fz && /tmp/fz -max_total_time=10 /tmp/corpus tests/fixtures/
 * Traps when an accepted parse breaks the header's contract.
 */
#include <stdint.h>
#include <string.h>

#include "collector/slabinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct slabinfo s;

	if (slabinfo_parse((const char *)data, size, &s) != 0)
		return 0;
	if (s.n < 1 || s.n > SLABINFO_MAX)
		__builtin_trap();
	for (int i = 0; i < s.n; i++) {
		const struct slabinfo_cache *c = &s.c[i];
		size_t n = strnlen(c->name, SLABINFO_NAME_MAX);

		if (n == 0 || n == SLABINFO_NAME_MAX || c->order < 0 || c->order > 63 ||
		    c->pagesperslab != (uint64_t)1 << c->order)
			__builtin_trap();
		for (size_t j = 0; j < n; j++)
			if (c->name[j] <= ' ' || c->name[j] > '~')
				__builtin_trap();
		const struct slabinfo_cache *f = slabinfo_find(&s, c->name);
		if (!f || f > c || strcmp(f->name, c->name) != 0)
			__builtin_trap();
	}
	return 0;
}
