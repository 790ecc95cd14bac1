/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_pagetypeinfo: libFuzzer harness for pagetypeinfo_parse.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_pagetypeinfo.c \
 *     collector/pagetypeinfo.c common/num.c -o /tmp/fz && /tmp/fz -max_total_time=10 /tmp/corpus tests/fixtures/
 * Traps when an accepted parse breaks the header's contract.
 */
#include <stdint.h>
#include <string.h>

#include "collector/pagetypeinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pagetypeinfo p;

	if (pagetypeinfo_parse((const char *)data, size, &p) != 0)
		return 0;
	if (p.nzones < 1 || p.nzones > PAGETYPEINFO_MAX_ZONES || p.ntypes < 1 || p.ntypes > PAGETYPEINFO_MAX_TYPES ||
	    p.norders < 1 || p.norders > PAGETYPEINFO_MAX_ORDER || p.pages_per_block != (uint64_t)1 << p.pageblock_order)
		__builtin_trap();
	for (int t = 0; t < p.ntypes; t++) {
		size_t n = strnlen(p.type[t], PAGETYPEINFO_TYPE_NAME_MAX);

		if (n == 0 || n == PAGETYPEINFO_TYPE_NAME_MAX || pagetypeinfo_type_index(&p, p.type[t]) != t)
			__builtin_trap();
	}
	for (int i = 0; i < p.nzones; i++) {
		size_t n = strnlen(p.z[i].zone, ZONE_NAME_MAX);

		if (n == 0 || n == ZONE_NAME_MAX || pagetypeinfo_find_zone(&p, p.z[i].node, p.z[i].zone) != &p.z[i])
			__builtin_trap();
		for (int t = 0; t < PAGETYPEINFO_MAX_TYPES; t++)
			for (int k = 0; k < PAGETYPEINFO_MAX_ORDER; k++)
				if (p.z[i].capped[t][k] > 1 || ((t >= p.ntypes || k >= p.norders) && p.z[i].capped[t][k]))
					__builtin_trap();
	}
	return 0;
}
