/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_atomic: the __zone_watermark_ok model on hand-worked zones.  Every
 * expected number is computed in the comment next to it from the kernel's
 * rules (mm/page_alloc.c, see analysis/atomic.h): min' is min after the
 * reserve cuts, threshold = min' + lowmem_reserve, free' = free minus the
 * unusable deductions, and the order-0 stage passes iff free' > threshold.
 */
#include "analysis/atomic.h"
#include "test.h"

static const struct atomic_kver K618 = { 6, 18 }, K62 = { 6, 2 }, K54 = { 5, 4 }, K419 = { 4, 19 }, K310 = { 3, 10 };

static struct atomic_zone zone(uint64_t free_pages, uint64_t min, uint64_t low, int64_t reserve)
{
	struct atomic_zone z;

	memset(&z, 0, sizeof z);
	z.free_pages = free_pages;
	z.wmark_min = min;
	z.wmark_low = low;
	z.lowmem_reserve = reserve;
	z.norders = 11;
	z.free[0] = free_pages;        /* all order-0 unless a case says otherwise */
	return z;
}

static void check(const char *what, const struct atomic_zone *z, unsigned order, enum atomic_req req,
		  struct atomic_kver v, int ok, int64_t threshold, int64_t margin)
{
	struct atomic_check c;
	int rc = atomic_check_zone(z, order, req, v, &c);

	T_CHECK(rc == 0 && c.ok == ok && c.threshold == threshold && c.margin == margin,
		"%s: ok=%d threshold=%" PRId64 " margin=%" PRId64, what, ok, threshold, margin);
	if (!(rc == 0 && c.ok == ok && c.threshold == threshold && c.margin == margin))
		printf("      got rc=%d ok=%d threshold=%" PRId64 " margin=%" PRId64 " block_ok=%d\n",
		       rc, c.ok, c.threshold, c.margin, c.block_ok);
}

static void test_basic(void)
{
	struct atomic_zone z = zone(1000, 400, 500, 100);

	/* GFP_ATOMIC 6.x: min' = 400 - 400/2 = 200, then 200 - 200/4 = 150; threshold 150 + 100 = 250; margin 1000 - 250 = 750. */
	check("plenty, atomic", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 250, 750);
	/* GFP_KERNEL before reclaim: min 400 + 100 = 500; margin 500. */
	check("plenty, kernel", &z, 0, ATOMIC_REQ_KERNEL, K618, 1, 500, 500);
	/* Fast path: low 500 + 100 = 600; margin 400. */
	check("plenty, fast path", &z, 0, ATOMIC_REQ_FAST, K618, 1, 600, 400);

	/* free 300: atomic 300 - 250 = 50 > 0 passes; kernel 300 - 500 = -200 fails (it would reclaim). */
	z = zone(300, 400, 500, 100);
	check("below min, atomic", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 250, 50);
	check("below min, kernel", &z, 0, ATOMIC_REQ_KERNEL, K618, 0, 500, -200);

	/* The comparison is strict: free 250 = threshold 250 fails, 251 passes. */
	z = zone(250, 400, 500, 100);
	check("at threshold, atomic fails", &z, 0, ATOMIC_REQ_ATOMIC, K618, 0, 250, 0);
	z = zone(251, 400, 500, 100);
	check("one above threshold, atomic passes", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 250, 1);

	/* Odd min, rounding: 7 - 7/2 = 4, 4 - 4/4 = 3; 4.4-6.2 gives 7 - 3 = 4, 4 - 1 = 3 too. */
	z = zone(10, 7, 9, 0);
	check("min 7, 6.x", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 3, 7);
	check("min 7, 5.4", &z, 0, ATOMIC_REQ_ATOMIC, K54, 1, 3, 7);

	/* GFP_NOWAIT: 6.3+ NON_BLOCK alone leaves min at 400; 5.x no cuts; 3.x ALLOC_HARDER: 400 - 100 = 300. */
	z = zone(1000, 400, 500, 0);
	check("nowait 6.x", &z, 0, ATOMIC_REQ_NOWAIT, K618, 1, 400, 600);
	check("nowait 5.4", &z, 0, ATOMIC_REQ_NOWAIT, K54, 1, 400, 600);
	check("nowait 3.10", &z, 0, ATOMIC_REQ_NOWAIT, K310, 1, 300, 700);
}

static void test_order(void)
{
	/* 5000 free pages, all order 0: the watermark passes (5000 - 7 = 4993 > 250) but no order-3 block exists. */
	struct atomic_zone z = zone(5000, 400, 500, 100);
	struct atomic_check c;

	check("order 3, only order-0 pages, atomic", &z, 3, ATOMIC_REQ_ATOMIC, K618, 0, 250, 4993 - 250);
	check("order 3, only order-0 pages, kernel", &z, 3, ATOMIC_REQ_KERNEL, K618, 0, 500, 4993 - 500);
	T_CHECK(atomic_check_zone(&z, 3, ATOMIC_REQ_ATOMIC, K618, &c) == 0 && c.block_ok == 0 && c.free_after == 4993,
		"order 3: block_ok 0, free' = 5000 - (8 - 1) = 4993");
	/* One order-5 block is a block of order >= 3. */
	z.free[0] = 4968;
	z.free[5] = 1;
	check("order 3, one order-5 block, atomic", &z, 3, ATOMIC_REQ_ATOMIC, K618, 1, 250, 4743);
	check("order 3, one order-5 block, kernel", &z, 3, ATOMIC_REQ_KERNEL, K618, 1, 500, 4493);
	/* Order 6 has nothing at or above it. */
	check("order 6, nothing that big", &z, 6, ATOMIC_REQ_ATOMIC, K618, 0, 250, 5000 - 63 - 250);
}

static void test_highatomic(void)
{
	/* Reserve 1024 pages: GFP_KERNEL counts them unusable (1200 - 1024 = 176 <= 400), GFP_ATOMIC does not. */
	struct atomic_zone z = zone(1200, 400, 500, 0);

	z.nr_reserved_highatomic = 1024;
	check("highatomic reserve, atomic 6.x", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 150, 1050);
	check("highatomic reserve, atomic 4.19 (ALLOC_HARDER)", &z, 0, ATOMIC_REQ_ATOMIC, K419, 1, 150, 1050);
	check("highatomic reserve, kernel", &z, 0, ATOMIC_REQ_KERNEL, K618, 0, 400, 176 - 400);
	/* GFP_NOWAIT: 6.3+ ALLOC_NON_BLOCK is in ALLOC_RESERVES -> not deducted (1200 > 400); 6.2 deducts. */
	check("highatomic reserve, nowait 6.x", &z, 0, ATOMIC_REQ_NOWAIT, K618, 1, 400, 800);
	check("highatomic reserve, nowait 6.2", &z, 0, ATOMIC_REQ_NOWAIT, K62, 0, 400, -224);

	/* The only order >= 2 block sits on the HIGHATOMIC list (pagetypeinfo). */
	z = zone(5000, 400, 500, 0);
	z.nr_reserved_highatomic = 512;
	z.free[0] = 4996;
	z.free[2] = 1;
	z.free_highatomic[2] = 1;
	/* atomic: ALLOC_HIGHATOMIC may use it; free' = 5000 - 3 = 4997, threshold 150. */
	check("highatomic block, atomic order 2", &z, 2, ATOMIC_REQ_ATOMIC, K618, 1, 150, 4847);
	/* kernel: free' = 5000 - 3 - 512 = 4485 > 400, but no block it may take. */
	check("highatomic block, kernel order 2", &z, 2, ATOMIC_REQ_KERNEL, K618, 0, 400, 4085);
	/* nowait 6.x: NON_BLOCK|HIGHATOMIC (order > 0): min 400, not deducted: 4997 - 400 = 4597, block usable. */
	check("highatomic block, nowait 6.x order 2", &z, 2, ATOMIC_REQ_NOWAIT, K618, 1, 400, 4597);
	check("highatomic block, nowait 6.2 order 2", &z, 2, ATOMIC_REQ_NOWAIT, K62, 0, 400, 4085);
}

static void test_cma_isolate(void)
{
	/* 600 of 1000 free pages are CMA: free' = 400; atomic 400 > 150 passes, kernel 400 <= 400 fails. */
	struct atomic_zone z = zone(1000, 400, 500, 0);

	z.nr_free_cma = 600;
	check("cma pages, atomic", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 150, 250);
	check("cma pages, kernel", &z, 0, ATOMIC_REQ_KERNEL, K618, 0, 400, 0);
	/* Unaccepted memory is unusable for everyone: free' = 1000 - 600 - 100 = 300. */
	z.nr_unaccepted = 100;
	check("cma + unaccepted, atomic", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 150, 150);

	/* The order-4 blocks are CMA (2) and isolated (1): neither request may take them. */
	z = zone(5000, 400, 500, 0);
	z.free[0] = 4952;
	z.free[4] = 3;
	z.free_cma[4] = 2;
	z.free_isolate[4] = 1;
	check("cma/isolate blocks only, atomic order 3", &z, 3, ATOMIC_REQ_ATOMIC, K618, 0, 150, 4993 - 150);
	z.free[4] = 4;
	check("one plain order-4 block too, atomic order 3", &z, 3, ATOMIC_REQ_ATOMIC, K618, 1, 150, 4993 - 150);
}

static void test_boost(void)
{
	/* zoneinfo min 1000 includes boost 600 (unboosted min 400); free 350, order 0.
	 * First try: 1000 -> 500 -> 500 - 125 = 375; 350 <= 375 fails.  5.8+ retries with 400 -> 200 -> 150: margin 200. */
	struct atomic_zone z = zone(350, 1000, 1100, 0);

	z.boost = 600;
	check("boosted min, atomic 6.x retries unboosted", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 150, 200);
	check("boosted min, atomic 5.4 does not", &z, 0, ATOMIC_REQ_ATOMIC, K54, 0, 375, -25);
	/* Order 1 never retries: free' = 349, threshold 375. */
	check("boosted min, atomic order 1", &z, 1, ATOMIC_REQ_ATOMIC, K618, 0, 375, -26);
	/* GFP_KERNEL never retries: 350 - 1000. */
	check("boosted min, kernel", &z, 0, ATOMIC_REQ_KERNEL, K618, 0, 1000, -650);
}

static void test_legacy(void)
{
	/* free {1000,0,0,1} = 1008 pages, min 400.  Order 3 (< 4.4): 1008 - 7 = 1001 > 400;
	 * o=0: 1001 - 1000 = 1, min 200 -> 1 <= 200 fails.  4.4+: 1001 > 400 and an order-3 block exists: passes. */
	struct atomic_zone z = zone(1008, 400, 500, 0);

	z.norders = 4;
	z.free[0] = 1000;
	z.free[3] = 1;
	check("legacy per-order rule, kernel 3.10", &z, 3, ATOMIC_REQ_KERNEL, K310, 0, 400, 601);
	check("same zone, kernel 4.19", &z, 3, ATOMIC_REQ_KERNEL, K419, 1, 400, 601);

	/* free {200,100,50,10} = 200 + 200 + 200 + 80 = 680 pages.  Order 2 atomic 3.10: min' 150;
	 * 680 - 3 = 677 > 150; o=0: 477 > 75; o=1: 277 > 37: passes. */
	z = zone(680, 400, 500, 0);
	z.norders = 4;
	z.free[0] = 200;
	z.free[1] = 100;
	z.free[2] = 50;
	z.free[3] = 10;
	check("legacy order 2 atomic passes", &z, 2, ATOMIC_REQ_ATOMIC, K310, 1, 150, 527);
	/* Kernel order 2: 677 > 400; o=0: 477 > 200; o=1: 277 > 100: passes. */
	check("legacy order 2 kernel passes", &z, 2, ATOMIC_REQ_KERNEL, K310, 1, 400, 277);
	/* Without the order-3 blocks: {200,100,50,0} = 600 pages, order 3: 593 > 150; o=0: 393 > 75;
	 * o=1: 193 > 37; o=2: 193 - 200 = -7 <= 18: fails. */
	z.free[3] = 0;
	z.free_pages = 600;
	check("legacy order 3 atomic, no big block", &z, 3, ATOMIC_REQ_ATOMIC, K310, 0, 150, 443);
	/* 3.x CMA: only the first comparison subtracts it: free' = 677 - 300 = 377 > 150. */
	z.free_pages = 680;
	z.free[3] = 10;
	z.nr_free_cma = 300;
	check("legacy cma in the first test only", &z, 2, ATOMIC_REQ_ATOMIC, K310, 1, 150, 227);
}

/* Values from this VM's zoneinfo fixture (zoneinfo-6.18-fc-x86_64.txt). */
static void test_fixture_zone(void)
{
	struct atomic_zone z = zone(152175, 5984, 7480, 0);
	struct atomic_result r;

	/* Normal, order 0, protection[2] = 0: atomic min' = 5984 - 2992 = 2992, 2992 - 748 = 2244;
	 * margins: atomic 152175 - 2244 = 149931, kernel 152175 - 5984 = 146191. */
	T_CHECK(atomic_eval(&z, 0, K618, &r) == 0 && r.atomic_ok && r.kernel_ok && r.fast_ok &&
		r.margin_pages == 149931 && r.kernel_margin_pages == 146191, "fixture Normal order 0: margins 149931 / 146191");
	/* DMA asked on behalf of a Normal request: lowmem_reserve = protection[2] = 4683.
	 * min 53 -> 53 - 26 = 27 -> 27 - 6 = 21; threshold 4704; 3840 - 4704 = -864: DMA is off limits. */
	z = zone(3840, 53, 66, 4683);
	check("fixture DMA for a Normal request", &z, 0, ATOMIC_REQ_ATOMIC, K618, 0, 4704, -864);
	/* The same DMA for a DMA request: protection[0] = 0, threshold 21, margin 3819. */
	z.lowmem_reserve = 0;
	check("fixture DMA for a DMA request", &z, 0, ATOMIC_REQ_ATOMIC, K618, 1, 21, 3819);
}

/* ---- the request: the zonelist walk ------------------------------------------------------------ */

static struct atomic_zl_zone zlz(int node, int idx, uint64_t free_pages, uint64_t min, uint64_t low,
				 const int64_t *prot, int nprot, uint64_t reclaimable)
{
	struct atomic_zl_zone z;

	memset(&z, 0, sizeof z);
	z.node = node;
	z.idx = idx;
	z.nprot = nprot;
	memcpy(z.protection, prot, (size_t)nprot * sizeof *prot);
	z.reclaimable = reclaimable;
	z.z = zone(free_pages, min, low, 999999);   /* lowmem_reserve must come from protection[highest] */
	return z;
}

static void req_check(const char *what, const struct atomic_zl_zone *zl, int n, int local, int highest, unsigned order,
		      struct atomic_kver v, int a, int az, int nw, int nz, int k, int kz, int know)
{
	struct atomic_request r;
	int rc = atomic_request_eval(zl, n, local, highest, order, v, &r);
	int ok = rc == 0 && r.atomic_ok == a && r.atomic_zone == az && r.nowait_ok == nw && r.nowait_zone == nz &&
		 r.kernel_ok == k && r.kernel_zone == kz && r.kernel_now_ok == know;

	T_CHECK(ok, "%s: atomic %d (zone %d), nowait %d (zone %d), kernel %d (zone %d), kernel before reclaim %d", what, a,
		az, nw, nz, k, kz, know);
	if (!ok)
		printf("      got rc=%d atomic %d (%d) nowait %d (%d) kernel %d (%d) now %d\n", rc, r.atomic_ok, r.atomic_zone,
		       r.nowait_ok, r.nowait_zone, r.kernel_ok, r.kernel_zone, r.kernel_now_ok);
}

/*
 * One node as the 6.18 fixture has it: DMA (idx 0), DMA32 (idx 1), Normal (idx 2); GFP_KERNEL and
 * GFP_ATOMIC have highest_zoneidx = ZONE_NORMAL = 2, so every zone is checked with protection[2]:
 * DMA 4683, DMA32 1664, Normal 0.  The array is in zoneinfo order; the walk is Normal, DMA32, DMA.
 */
static void test_request(void)
{
	static const int64_t pdma[] = { 0, 3019, 4683, 4683, 4683 }, pdma32[] = { 0, 0, 1664, 1664, 1664 },
			     pnorm[] = { 0, 0, 0, 0, 0 };
	struct atomic_zl_zone zl[3];

	zl[0] = zlz(0, 0, 3840, 53, 66, pdma, 5, 0);
	zl[0].z.free[0] = 768;
	zl[0].z.free[10] = 3;                /* 768 + 3 x 1024 = 3840: DMA holds the only high-order blocks */
	zl[1] = zlz(0, 1, 20000, 2000, 2500, pdma32, 5, 5000);
	zl[2] = zlz(0, 2, 1500, 1000, 1250, pnorm, 5, 30000);

	/* Order 0.  Normal: atomic min' = 1000 - 500 = 500, 500 - 125 = 375; 1500 > 375.  nowait (6.3+ NON_BLOCK
	 * alone): 1500 > 1000.  kernel: 1500 > 1000.  All three are served from Normal (index 2). */
	req_check("order 0, Normal has room", zl, 3, 0, 2, 0, K618, 1, 2, 1, 2, 1, 2, 1);
	/* Order 3.  Normal 1500 - 7 = 1493 > 375 but has no order >= 3 block; DMA32: 19993 > 750 + 1664 = 2414,
	 * no block either; DMA has blocks but 3833 <= 21 + 4683 = 4704 (27 - 6 = 21 from min 53).  GFP_ATOMIC and
	 * GFP_NOWAIT fail in every zone.  GFP_KERNEL fails now too, but reclaim and compaction would make it:
	 * Normal with its 30000 reclaimable pages, order-0 stage 31500 - 0 > 1000 + 0; compaction (order 3 is
	 * not costly: min + compact_gap 2 << 3 = 1016) 31500 > 1016.  Served from Normal after compaction.
	 * The per-zone rows say DMA "fails"; the request says what matters: only GFP_KERNEL gets the pages. */
	req_check("order 3, fragmented: atomic fails everywhere, kernel by compaction", zl, 3, 0, 2, 3, K618,
		  0, -1, 0, -1, 1, 2, 0);
	/* The same with no reclaimable pages and Normal at 900: the reclaim stage fails in Normal
	 * (900 - 0 <= 1000); DMA32: 20000 + 5000 > 2000 + 1664 and compaction 25000 > 2016 + 1664: DMA32. */
	zl[2].z.free_pages = zl[2].z.free[0] = 900;
	zl[2].reclaimable = 0;
	req_check("order 3, Normal below min: kernel falls back to DMA32", zl, 3, 0, 2, 3, K618, 0, -1, 0, -1, 1, 1, 0);
	/* Order 0, Normal at 900: atomic 900 > 375 passes in Normal; nowait 900 <= 1000 fails there and
	 * falls back to DMA32 (20000 > 2000 + 1664); kernel before reclaim likewise DMA32. */
	req_check("order 0, Normal between the atomic and the min mark", zl, 3, 0, 2, 0, K618, 1, 2, 1, 1, 1, 1, 1);
	/* Normal at 300 (below 375): atomic falls back to DMA32 (20000 > 750 + 1664). */
	zl[2].z.free_pages = zl[2].z.free[0] = 300;
	req_check("order 0, Normal below the atomic mark: DMA32 serves", zl, 3, 0, 2, 0, K618, 1, 1, 1, 1, 1, 1, 1);
	/* DMA32 also short (2000: 2000 <= 2414 atomic): only DMA is left, and its reserve for a Normal
	 * request (4683) keeps it out: atomic fails; kernel: DMA32 2000 + 5000 = 7000 > 3664 after reclaim. */
	zl[1].z.free_pages = zl[1].z.free[0] = 2000;
	req_check("order 0, DMA32 short too: DMA's reserve keeps it out", zl, 3, 0, 2, 0, K618, 0, -1, 0, -1, 1, 1, 0);
	/* The same zones asked with highest_zoneidx 0 (a GFP_DMA request): only DMA, with protection[0] = 0. */
	req_check("a GFP_DMA request uses DMA alone", zl, 3, 0, 0, 0, K618, 1, 0, 1, 0, 1, 0, 1);

	/* A costly order (4): compaction wants low + compact_gap = 1250 + 32 = 1282 (not min). Normal at
	 * 1270 free, 0 reclaimable, no order-4 block: the reclaim stage passes (1270 - 15 > 1000 is the order-4
	 * check; its order-0 part is 1255 > 1000) but there is no block, and compaction is not suitable
	 * (1270 <= 1282); DMA32 and DMA out as above: kernel fails. */
	zl[2].z.free_pages = zl[2].z.free[0] = 1270;
	zl[1].reclaimable = 0;
	req_check("order 4: compaction needs the low mark", zl, 3, 0, 2, 4, K618, 0, -1, 0, -1, 0, -1, 0);
	zl[2].z.free_pages = zl[2].z.free[0] = 1283;
	req_check("order 4: one page above low + gap, compaction would run", zl, 3, 0, 2, 4, K618, 0, -1, 0, -1, 1, 2, 0);
}

/* The Xen PV guest of the test bed (tests/fixtures/zoneinfo.xenpv): Normal is empty (not populated,
 * so not in the zonelist), DMA32 holds the memory, DMA's protection[2] is only 52. */
static void test_request_xenpv(void)
{
	static const int64_t pdma[] = { 0, 52, 52, 52, 52 }, pdma32[] = { 0, 0, 0, 0, 0 };
	struct atomic_zl_zone zl[2];

	zl[0] = zlz(0, 0, 3869, 60, 75, pdma, 5, 0);
	zl[0].z.free[0] = 3869 - 8;
	zl[0].z.free[3] = 1;
	zl[1] = zlz(0, 1, 5156, 202, 252, pdma32, 5, 1404 + 524);
	/* Order 0: DMA32 first: atomic 202 - 101 = 101, 101 - 25 = 76; 5156 > 76. */
	req_check("xenpv order 0: DMA32", zl, 2, 0, 2, 0, K618, 1, 1, 1, 1, 1, 1, 1);
	/* Order 3, DMA32 without an order-3 block: DMA serves GFP_ATOMIC (3862 > 23 + 52 = 75, one order-3
	 * block), GFP_NOWAIT (3862 > 60 + 52), and GFP_KERNEL (3862 > 60 + 52) before any reclaim. */
	req_check("xenpv order 3: DMA serves when DMA32 has no block", zl, 2, 0, 2, 3, K618, 1, 0, 1, 0, 1, 0, 1);
}

/* Two nodes: the local node's zones first, then the other node's, each from the highest index down. */
static void test_request_numa(void)
{
	static const int64_t p0[] = { 0, 0, 0, 0 };
	struct atomic_zl_zone zl[2];
	struct atomic_request r;

	zl[0] = zlz(0, 2, 100, 1000, 1250, p0, 4, 0);     /* node 0 Normal: out of memory */
	zl[1] = zlz(1, 2, 50000, 1000, 1250, p0, 4, 0);   /* node 1 Normal: plenty */
	req_check("numa: node 0's request falls back to node 1", zl, 2, 0, 2, 0, K618, 1, 1, 1, 1, 1, 1, 1);
	zl[0].z.free_pages = zl[0].z.free[0] = 50000;
	req_check("numa: node 1's own Normal first", zl, 2, 1, 2, 0, K618, 1, 1, 1, 1, 1, 1, 1);
	req_check("numa: node 0's own Normal first", zl, 2, 0, 2, 0, K618, 1, 0, 1, 0, 1, 0, 1);
	T_CHECK(atomic_request_eval(zl, 2, 0, 2, 0, K618, &r) == 0 && r.exact == 1, "zone indexes known: exact");
	zl[1].idx = -1;
	T_CHECK(atomic_request_eval(zl, 2, 0, 2, 0, K618, &r) == 0 && r.exact == 0,
		"a zone index unknown (zoneinfo before 4.12): not exact");
	T_CHECK(atomic_request_eval(zl, 0, 0, 2, 0, K618, &r) == 0 && !r.atomic_ok && !r.kernel_ok && r.atomic_zone == -1,
		"no zones: nothing passes");
	T_CHECK(atomic_request_eval(NULL, 2, 0, 2, 0, K618, &r) < 0, "NULL zones rejected");
	T_CHECK(atomic_request_eval(zl, 2, 0, 2, 11, K618, &r) < 0, "order >= norders rejected");
	T_CHECK(atomic_request_eval(zl, ATOMIC_MAX_ZONES + 1, 0, 2, 0, K618, &r) < 0, "too many zones rejected");
}

static void test_kver(void)
{
	static const struct { const char *rel; int ok, major, minor; enum atomic_era era; } v[] = {
		{ "6.18.44-fc-v669", 1, 6, 18, ATOMIC_ERA_RESERVES }, { "6.3.0", 1, 6, 3, ATOMIC_ERA_RESERVES },
		{ "6.2.16-arch1", 1, 6, 2, ATOMIC_ERA_HARDER }, { "6.1.0-57-amd64", 1, 6, 1, ATOMIC_ERA_HARDER },
		{ "4.4.0-210-generic", 1, 4, 4, ATOMIC_ERA_HARDER }, { "4.3.5", 1, 4, 3, ATOMIC_ERA_LEGACY },
		{ "3.10.0-1160.el7.x86_64", 1, 3, 10, ATOMIC_ERA_LEGACY }, { "2.6.32", 1, 2, 6, ATOMIC_ERA_LEGACY },
		{ "10.0", 1, 10, 0, ATOMIC_ERA_RESERVES },
		{ "", 0, 0, 0, 0 }, { "6", 0, 0, 0, 0 }, { "6.", 0, 0, 0, 0 }, { "x.1", 0, 0, 0, 0 },
		{ "6.x", 0, 0, 0, 0 }, { "-6.1", 0, 0, 0, 0 }, { "99999999999999999999.1", 0, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct atomic_kver k = { -1, -1 };
		int rc = atomic_kver_parse(v[i].rel, &k);
		T_CHECK(v[i].ok ? (rc == 0 && k.major == v[i].major && k.minor == v[i].minor && atomic_era_of(k) == v[i].era) : rc < 0,
			"kver \"%s\" %s", v[i].rel, v[i].ok ? "parsed, era right" : "rejected");
	}
	T_CHECK(atomic_kver_parse(NULL, &(struct atomic_kver){ 0, 0 }) < 0, "kver NULL rejected");
}

static void test_args(void)
{
	struct atomic_zone z = zone(100, 10, 12, 0);
	struct atomic_check c;
	struct atomic_result r;

	T_CHECK(atomic_check_zone(&z, 11, ATOMIC_REQ_ATOMIC, K618, &c) < 0, "order >= norders rejected");
	T_CHECK(atomic_eval(NULL, 0, K618, &r) < 0, "NULL zone rejected");
	z.norders = 0;
	T_CHECK(atomic_check_zone(&z, 0, ATOMIC_REQ_ATOMIC, K618, &c) < 0, "norders 0 rejected");
	z.norders = ATOMIC_MAX_ORDER + 1;
	T_CHECK(atomic_check_zone(&z, 0, ATOMIC_REQ_ATOMIC, K618, &c) < 0, "norders over the cap rejected");
	/* Junk counters saturate instead of wrapping into a pass. */
	z = zone(UINT64_MAX, UINT64_MAX, UINT64_MAX, INT64_MAX);
	z.nr_free_cma = UINT64_MAX;
	T_CHECK(atomic_check_zone(&z, 0, ATOMIC_REQ_KERNEL, K618, &c) == 0 && !c.ok, "saturated junk counters do not pass");
}

int main(void)
{
	test_basic();
	test_order();
	test_highatomic();
	test_cma_isolate();
	test_boost();
	test_legacy();
	test_fixture_zone();
	test_request();
	test_request_xenpv();
	test_request_numa();
	test_kver();
	test_args();
	T_DONE();
}
