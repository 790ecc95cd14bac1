/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_buddyinfo: libFuzzer harness for buddyinfo_parse.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_buddyinfo.c \
 *     collector/buddyinfo.c common/num.c -o /tmp/fz && /tmp/fz -max_total_time=10 /tmp/corpus tests/fixtures/
 * (the first directory receives new inputs: keep it out of tests/fixtures).
 * Besides the sanitizers, it traps when an accepted parse breaks the header's contract.
 */
#include <stdint.h>
#include <string.h>

#include "collector/buddyinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int name_ok(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == 0 || n == cap)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct buddyinfo bi;

	if (buddyinfo_parse((const char *)data, size, &bi) != 0)
		return 0;
	if (bi.nzones < 1 || bi.nzones > BUDDY_MAX_ZONES || bi.norders < 1 || bi.norders > BUDDY_MAX_ORDER)
		__builtin_trap();
	for (int i = 0; i < bi.nzones; i++) {
		if (bi.z[i].node < 0 || !name_ok(bi.z[i].zone, ZONE_NAME_MAX))
			__builtin_trap();
		(void)buddyinfo_free_pages(&bi.z[i], bi.norders);
	}
	return 0;
}
