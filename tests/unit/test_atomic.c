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
	test_kver();
	test_args();
	T_DONE();
}
