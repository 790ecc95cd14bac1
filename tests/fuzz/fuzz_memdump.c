/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_memdump: libFuzzer harness for memdump_parse, and for the failure-cause
 * rule on whatever complete dump it yields.
 *   make fuzz FUZZ_SECONDS=10   (tests/integration/66_fuzz.sh runs every harness)
 * Besides the sanitizers, it traps when an accepted dump breaks the header's
 * contract: a buddy line taken only when its blocks add up to its total, sizes
 * doubling from the order-0 size, letters only the kernel's, names [A-Za-z0-9_];
 * and when the classifier answers a cause outside its four.
 */
#include <stdint.h>
#include <string.h>

#include "analysis/cause.h"
#include "collector/memdump.h"
#include "daemon/causes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int name_ok(const char *s)
{
	size_t n = strnlen(s, ZONE_NAME_MAX);

	if (n == 0 || n == ZONE_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

static void check_zone(const struct memdump_zone *z)
{
	unsigned __int128 sum = 0;

	if (!name_ok(z->name) || z->nprot < 0 || z->nprot > MEMDUMP_MAX_PROT || z->norders < 0 ||
	    z->norders > MEMDUMP_MAX_ORDERS)
		__builtin_trap();
	for (int o = 0; o < MEMDUMP_MAX_ORDERS; o++)
		if (z->types[o] & ~0x7fu)
			__builtin_trap();
	if (!(z->have & MEMDUMP_BUDDY))
		return;
	for (int o = 0; o < z->norders; o++)
		sum += (unsigned __int128)z->nr[o] * ((unsigned __int128)z->page_kb << o);
	if (z->norders == 0 || sum != z->total_kb)
		__builtin_trap();
}

/* Classify the dump with a request made of the input's first bytes. */
static void classify(const struct memdump *d, const uint8_t *data, size_t size)
{
	static const char *const LAYOUT[] = { "DMA", "DMA32", "Normal", "Movable", "Device" };
	static struct cause_zone z[CAUSE_MAX_ZONES];
	struct cause_request rq;
	struct cause_result res;
	struct atomic_kver v = { 6, size > 1 ? data[1] % 12 : 1 };
	int n = causes_dump_zones(d, LAYOUT, 5, size > 2 ? data[2] % 12 - 1 : 9, z, CAUSE_MAX_ZONES);

	if (n <= 0)
		return;
	memset(&rq, 0, sizeof rq);
	rq.order = size > 0 ? data[0] % 12 : 0;
	rq.gfp.high = size > 3 && (data[3] & 1);
	rq.gfp.atomic = size > 3 && (data[3] & 2);
	rq.gfp.direct_reclaim = size > 3 && (data[3] & 4);
	rq.gfp.movable = size > 3 && (data[3] & 8);
	rq.highest_idx = size > 4 ? data[4] % 5 : 2;
	if (cause_classify(z, n, &rq, v, -1, &res) == 0 && (unsigned)res.cause >= CAUSE_COUNT)
		__builtin_trap();
	if (res.zone >= n)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct memdump d;
	int complete = memdump_parse((const char *)data, size, &d) == 0;

	if (d.nzones < 0 || d.nzones > MEMDUMP_MAX_ZONES)
		__builtin_trap();
	for (int i = 0; i < d.nzones; i++)
		check_zone(&d.z[i]);
	if (complete != memdump_complete(&d))
		__builtin_trap();
	if (complete)
		classify(&d, data, size);
	return 0;
}
