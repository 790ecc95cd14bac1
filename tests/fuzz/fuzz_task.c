/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_task: libFuzzer harness for /proc/PID/stat's parent, /proc/PID/cgroup's kept lines and the vm
 * knobs' two formats, on arbitrary bytes.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_task.c collector/task.c \
 *     collector/vmknobs.c collector/procfile.c common/num.c -o /tmp/fz && /tmp/fz -max_total_time=10
 * Traps when an accepted parse breaks the header's contract.
 */
#include <stdint.h>
#include <string.h>

#include "collector/task.h"
#include "collector/vmknobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char cg[TASK_CGROUP_MAX], v[VMKNOB_VALUE_MAX];
	int64_t ppid = -1;

	if (task_parse_ppid(s, size, &ppid) == 0 && ppid < 0)
		__builtin_trap();
	if (task_parse_cgroup(s, size, cg, sizeof cg) == 0) {
		size_t n = strlen(cg);
		if (n == 0 || n >= sizeof cg || n > size)
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)cg[i] < 0x20 || (unsigned char)cg[i] > 0x7e)
				__builtin_trap();
	}
	if (vmknob_parse_int(s, size, v, sizeof v) == 0 && (strlen(v) == 0 || strlen(v) >= sizeof v))
		__builtin_trap();
	if (vmknob_parse_choice(s, size, v, sizeof v) == 0 && (strlen(v) == 0 || strchr(v, ' ') || strchr(v, ']')))
		__builtin_trap();
	return 0;
}
