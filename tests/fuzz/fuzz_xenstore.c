/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_xenstore: libFuzzer harness for the Xen store reply parser, the
 * domain id parser and the capabilities word, on arbitrary bytes.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_xenstore.c \
 *     collector/xenstore.c common/clock.c -o /tmp/fz && /tmp/fz -max_total_time=10
 * Traps when an accepted parse breaks the header's contract.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "collector/xenstore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char val[64];
	size_t used = 0;
	int64_t id = -1;
	uint32_t req = size >= 8 ? (uint32_t)data[4] | (uint32_t)data[5] << 8 | (uint32_t)data[6] << 16 | (uint32_t)data[7] << 24 : 0;
	int rc = xs_parse_reply(data, size, req, val, sizeof val, &used);

	if (rc == 0) {
		if (used < XS_HDR_LEN || used > size || strlen(val) >= sizeof val)
			__builtin_trap();
		if (xs_parse_domid(val, strlen(val), &id) == 0 && (id < 0 || id > 0x7fef))
			__builtin_trap();
	} else if (rc != -EAGAIN && rc != -EPROTO && rc != -EMSGSIZE && rc > -1) {
		__builtin_trap();
	}
	if (xs_parse_domid((const char *)data, size, &id) == 0 && (id < 0 || id > 0x7fef || size > 5))
		__builtin_trap();
	(void)xen_caps_control_d((const char *)data, size);
	return 0;
}
