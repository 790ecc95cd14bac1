/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_zoneinfo: libFuzzer harness for zoneinfo_parse; every accepted zone
 * is also pushed through the atomic watermark model (three kernel eras)
 * and the fragmentation indices, so junk counters are exercised end to end.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_zoneinfo.c \
 *     collector/zoneinfo.c analysis/atomic.c analysis/frag.c common/num.c -o /tmp/fz_zi && \
 *     /tmp/fz_zi -max_total_time=10 /tmp/corpus_zi tests/fixtures/
 * (the first directory receives new inputs: keep it out of tests/fixtures).
 * Besides the sanitizers, it traps when an accepted parse breaks the header's contract, and
 * when the input and its twin (tests/unit/zoneinfo_twin.h) parse differently: the shortcut for simple lines
 * must never decide otherwise than the general path.
 */
#include <stdint.h>
#include <string.h>

#include "analysis/atomic.h"
#include "analysis/frag.h"
#include "collector/zoneinfo.h"
#include "tests/unit/zoneinfo_twin.h"

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

static void model(const struct zoneinfo_zone *z)
{
	static const struct atomic_kver kv[] = { { 6, 18 }, { 5, 4 }, { 3, 10 } };
	struct atomic_zone a;
	struct atomic_result r;

	memset(&a, 0, sizeof a);
	a.free_pages = z->free;
	a.wmark_min = z->min;
	a.wmark_low = z->low;
	a.boost = z->boost;
	a.lowmem_reserve = z->protection[z->nprot - 1];
	a.nr_free_cma = z->nr_free_cma;
	a.nr_unaccepted = z->nr_unaccepted;
	a.norders = 11;
	/* Spread the zone's numbers over the orders so every branch sees junk. */
	a.free[0] = z->free;
	a.free[3] = z->pcp_count;
	a.free[9] = z->managed;
	a.free[10] = z->present;
	a.free_cma[10] = z->cma;
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
		for (unsigned o = 0; o < 11; o++) {
			int u, e;

			if (atomic_eval(&a, o, kv[i], &r) != 0)
				__builtin_trap();
			if (r.atomic_ok < 0 || r.atomic_ok > 1 || r.kernel_ok < 0 || r.kernel_ok > 1)
				__builtin_trap();
			frag_indices(a.free, a.norders, o, &u, &e);
			(void)frag_headroom(a.free, a.norders, o);
		}
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct zoneinfo zi, zt;
	static char t[1 << 17];
	size_t tn = zoneinfo_twin((const char *)data, size, t, sizeof t);
	int rc = zoneinfo_parse((const char *)data, size, &zi);

	if (tn > 0) {
		int rt = zoneinfo_parse(t, tn, &zt);
		if (rt != rc || (rc == 0 && (zt.nzones != zi.nzones ||
					     memcmp(zt.z, zi.z, (size_t)zi.nzones * sizeof zi.z[0]) != 0)))
			__builtin_trap();
	}
	if (rc != 0)
		return 0;
	if (zi.nzones < 1 || zi.nzones > ZONEINFO_MAX_ZONES)
		__builtin_trap();
	for (int i = 0; i < zi.nzones; i++) {
		const struct zoneinfo_zone *z = &zi.z[i];

		if (z->node < 0 || !name_ok(z->zone, ZONE_NAME_MAX) || z->nprot < 1 || z->nprot > ZONEINFO_MAX_PROT ||
		    z->nprot != zi.z[0].nprot || z->idx < -1 || z->idx >= z->nprot)
			__builtin_trap();
		if (zoneinfo_find(&zi, z->node, z->zone) != z)
			__builtin_trap();
		model(z);
	}
	return 0;
}
