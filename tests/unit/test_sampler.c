/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sampler: sampler_predict, the model's verdict on a whole request (the
 * zones of its zonelist), which the model checks put beside the allocator's
 * answer.  Fed the Xen PV guest's own files (the tests/fixtures xenpv files, kernel
 * 6.1: ALLOC_HIGH halves min, ALLOC_HARDER takes a quarter of the rest), and
 * a variant with little free memory; every expected number worked by hand:
 *
 *   zone   free  min  lowmem_reserve[Normal]  free blocks order 9 / 10
 *   DMA    3869   60  52                       2 / 1
 *   DMA32  5156  202   0                       0 / 0
 *
 *   GFP_NOWAIT threshold: DMA 60 + 52 = 112, DMA32 202
 *   GFP_ATOMIC threshold: DMA 60-30=30, 30-7=23, +52 = 75; DMA32 202-101=101, 101-25 = 76
 *   margin = free - (2^k - 1) - threshold
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/sampler.h"
#include "store/store.h"
#include "tests/unit/test.h"

static char dir[64] = "/tmp/fpusoak-sampler-XXXXXX";
static char buf[1 << 20];

/* Write fixture NAME.xenpv into the tree as NAME; 0 or -1. */
static int put(const char *name)
{
	char fix[64], path[256];
	FILE *f;

	snprintf(fix, sizeof fix, "%s.xenpv", name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (t_fixture(fix, buf, sizeof buf) < 0 || !(f = fopen(path, "w")))
		return -1;
	fputs(buf, f);
	return fclose(f);
}

/* zoneinfo.xenpv with the DMA and DMA32 free counts replaced (4 digits each: the layout stays); 0 or -1. */
static int put_zoneinfo(int dma_free, int dma32_free)
{
	char path[256], d[8], d32[8], *a, *b;
	FILE *f;

	snprintf(path, sizeof path, "%s/zoneinfo", dir);
	if (t_fixture("zoneinfo.xenpv", buf, sizeof buf) < 0 || !(a = strstr(buf, "pages free     3869")) ||
	    !(b = strstr(buf, "pages free     5156")) || !(f = fopen(path, "w")))
		return -1;
	snprintf(d, sizeof d, "%4d", dma_free);
	snprintf(d32, sizeof d32, "%4d", dma32_free);
	memcpy(a + 15, d, 4);
	memcpy(b + 15, d32, 4);
	fputs(buf, f);
	return fclose(f);
}

/* One fast and slow sample of the tree into a throwaway store. */
static struct sampler *sample(struct store *st, const char *release, int64_t ts)
{
	struct sampler *s = sampler_open(dir, release);
	struct store_tick *t;

	if (!s || !(t = store_tick_new(st, 1, ts)))
		return s;
	sampler_fast(s, st, t);
	sampler_slow(s, st, t);
	store_submit(st, t);
	return s;
}

static void expect(struct sampler *s, unsigned order, enum atomic_req req, int rc, int ok, int64_t margin,
		   const char *what)
{
	int got_ok = -1;
	int64_t got_margin = 0;
	int got_rc = s ? sampler_predict(s, order, req, &got_ok, &got_margin) : -2;

	T_CHECK(got_rc == rc && (rc < 0 || (got_ok == ok && got_margin == margin)),
		"%s: rc %d, ok %d, margin %lld (want %d, %d, %lld)", what, got_rc, got_ok, (long long)got_margin, rc, ok,
		(long long)margin);
}

int main(void)
{
	char err[256], dbpath[128];
	struct store *st;
	struct sampler *s;

	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp: %s", strerror(errno));
		T_DONE();
	}
	snprintf(dbpath, sizeof dbpath, "%s/t.db", dir);
	st = store_open(dbpath, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "store opens%s%s", st ? "" : ": ", st ? "" : err);
	if (!st)
		T_DONE();

	T_EQ_I(put("buddyinfo") | put("pagetypeinfo") | put("vmstat") | put("meminfo") | put("slabinfo") |
	       put_zoneinfo(3869, 5156), 0, "fixture tree written");
	s = sample(st, "6.1.0-57-amd64", 1700000000000LL);
	/* Order 3: DMA32 passes with the larger margin. */
	expect(s, 3, ATOMIC_REQ_NOWAIT, 0, 1, 5156 - 7 - 202, "order 3 nowait: DMA32, margin 4947");
	expect(s, 3, ATOMIC_REQ_ATOMIC, 0, 1, 5156 - 7 - 76, "order 3 atomic: DMA32, margin 5073");
	/* Order 9: DMA32 has no free order-9+ block (margin 4443 but fails); DMA serves it. */
	expect(s, 9, ATOMIC_REQ_NOWAIT, 0, 1, 3869 - 511 - 112, "order 9 nowait: DMA, margin 3246 (not DMA32's 4443)");
	expect(s, 9, ATOMIC_REQ_ATOMIC, 0, 1, 3869 - 511 - 75, "order 9 atomic: DMA, margin 3283");
	expect(s, 10, ATOMIC_REQ_NOWAIT, 0, 1, 3869 - 1023 - 112, "order 10 nowait: DMA's one block");
	expect(s, 11, ATOMIC_REQ_NOWAIT, -1, 0, 0, "order 11: beyond buddyinfo's columns, no verdict");
	sampler_close(s);

	/* DMA nearly empty: DMA32 still serves. */
	T_EQ_I(put_zoneinfo(100, 5156), 0, "DMA at 100 free pages");
	s = sample(st, "6.1.0-57-amd64", 1700000001000LL);
	expect(s, 0, ATOMIC_REQ_NOWAIT, 0, 1, 5156 - 202, "order 0 nowait: DMA32, margin 4954");
	sampler_close(s);

	/* Both low: DMA32 at 200, under its min of 202 for GFP_NOWAIT, over 76 for GFP_ATOMIC. */
	T_EQ_I(put_zoneinfo(100, 200), 0, "DMA32 at 200 free pages too");
	s = sample(st, "6.1.0-57-amd64", 1700000002000LL);
	expect(s, 0, ATOMIC_REQ_NOWAIT, 0, 0, 200 - 202, "order 0 nowait refused; margin -2 (the best of DMA32 -2, DMA -12)");
	expect(s, 0, ATOMIC_REQ_ATOMIC, 0, 1, 200 - 76, "order 0 atomic passes on the reserves, margin 124");
	expect(s, 3, ATOMIC_REQ_ATOMIC, 0, 1, 200 - 7 - 76, "order 3 atomic passes in DMA32, margin 117");
	expect(s, 9, ATOMIC_REQ_ATOMIC, 0, 0, 200 - 511 - 76, "order 9 atomic refused: DMA32 -387 beats DMA -486");
	sampler_close(s);

	/* Without a kernel release it understands, the model says nothing. */
	s = sample(st, "not-a-release", 1700000003000LL);
	expect(s, 3, ATOMIC_REQ_ATOMIC, -1, 0, 0, "unknown kernel release: no verdict");
	sampler_close(s);
	store_close(st);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		T_EQ_I(system(cmd), 0, "temp tree removed");
	}
	T_DONE();
}
