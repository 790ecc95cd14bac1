/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_meminfo: libFuzzer harness for meminfo_parse, kv_get and kv_status_kb.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_meminfo.c \
 *     collector/kv.c common/num.c -o /tmp/fz && /tmp/fz -max_total_time=10 /tmp/corpus tests/fixtures/
 * Traps when an accepted parse breaks the header's contract.
 */
#include <stdint.h>
#include <string.h>

#include "collector/kv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kv_set kv;
	uint64_t v;

	/* /proc/PID/status lookups over any input: ASan catches a read past size. */
	kv_status_kb((const char *)data, size, "RssAnon", &v);
	if (meminfo_parse((const char *)data, size, &kv) != 0)
		return 0;
	if (kv.n < 1 || kv.n > KV_MAX)
		__builtin_trap();
	for (int i = 0; i < kv.n; i++) {
		size_t n = strnlen(kv.e[i].name, KV_NAME_MAX);

		if (n == 0 || n == KV_NAME_MAX || strpbrk(kv.e[i].name, " \t\n:"))
			__builtin_trap();
		if (kv_get(&kv, kv.e[i].name, &v) != 0)
			__builtin_trap();
	}
	return 0;
}
