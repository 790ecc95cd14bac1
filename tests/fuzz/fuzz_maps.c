/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_maps: libFuzzer harness for maps_parse_line (collector/maps.h), fed one
 * line at a time as the spawner does with /proc/self/maps.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_maps.c collector/maps.c \
 *     common/num.c -o /tmp/fz_maps && /tmp/fz_maps -max_total_time=10 /tmp/corpus_maps
 * Besides the sanitizers, it traps when an accepted line breaks the header's
 * contract: start < end, a 4-character permission string, a path (if any)
 * inside the line, and maps_same_file true of an entry with itself exactly
 * when it has an inode.
 */
#include <stdint.h>
#include <string.h>

#include "collector/maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t pos = 0;

	while (pos < size) {
		const char *nl = memchr(buf + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : size - pos;
		struct maps_entry e;

		if (maps_parse_line(buf + pos, n, &e) == 0) {
			if (e.start >= e.end || strnlen(e.perms, sizeof e.perms) != 4)
				__builtin_trap();
			if (e.path && (e.path < buf + pos || e.path + e.path_len > buf + pos + n || e.path_len == 0))
				__builtin_trap();
			if (!e.path && e.path_len)
				__builtin_trap();
			if (maps_same_file(&e, &e) != (e.inode != 0))
				__builtin_trap();
		}
		pos += n + 1;
	}
	return 0;
}
