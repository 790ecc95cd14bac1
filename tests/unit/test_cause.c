/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_cause: the failure-cause rule (analysis/cause.h), table-driven.
 * Zones are written in kB as a Mem-Info dump prints them and converted at 4 kB
 * pages; every expected cause was worked out by hand from __zone_watermark_ok()
 * of the kernel named in the row (the arithmetic is in each row's comment).
 * Then the real dumps of tests/fixtures through the daemon's conversion
 * (daemon/causes.h causes_dump_zones).
 */
#include "analysis/cause.h"
#include "collector/gfp.h"
#include "collector/memdump.h"
#include "collector/pagetypeinfo.h"
#include "collector/zoneinfo.h"
#include "daemon/causes.h"
#include "tests/unit/test.h"

enum { U = CAUSE_MT_U, M = CAUSE_MT_M, E = CAUSE_MT_E, H = CAUSE_MT_H, C = CAUSE_MT_C, I = CAUSE_MT_I };

/* A zone from dump-like numbers: kB, orders as counts with their letters. */
struct zspec {
	const char *name;
	int idx;
	uint64_t free_kb, min_kb, boost_kb, highatomic_kb, cma_kb;
	int64_t prot2;                 /* lowmem_reserve[] against Normal (index 2), pages */
	uint64_t nr[11];
	uint8_t types[11];
	int types_unknown;
};

struct row {
	const char *what;
	const char *kver;
	const char *gfp;               /* as printed */
	unsigned order;
	int nz;
	struct zspec z[3];
	enum cause want;
	const char *want_zone;         /* NULL: any */
};

#define UME (U | M | E)
#define UM (U | M)
/* 8,000 kB free: 400*4kB 300*8kB 250*16kB = 1600 + 2400 + 4000 kB, nothing of order 3 or more. */
#define FRAG_NR { 400, 300, 250 }
#define FRAG_TY { UME, UME, M }

static const struct row ROWS[] = {
	/* The first example: 2,000 pages free, min 256, no block of order >= 3. */
	{ "issue: 8,000 kB free above a 1,024 kB min, no order >= 3 block, GFP_ATOMIC order 3 (6.1)", "6.1.0",
	  "GFP_ATOMIC|__GFP_COMP", 3, 1, { { "DMA32", 1, 8000, 1024, 0, 0, 0, 0, FRAG_NR, FRAG_TY, 0 } },
	  CAUSE_FRAGMENTATION, "DMA32" },
	{ "issue: the same as GFP_KERNEL order 3 (6.8)", "6.8.0", "GFP_KERNEL|__GFP_COMP", 3, 1,
	  { { "DMA32", 1, 8000, 1024, 0, 0, 0, 0, FRAG_NR, FRAG_TY, 0 } }, CAUSE_FRAGMENTATION, "DMA32" },
	{ "the same with one movable order-4 block: the state would serve it", "6.1.0", "GFP_ATOMIC|__GFP_COMP", 3, 1,
	  { { "DMA32", 1, 8064, 1024, 0, 0, 0, 0, { 400, 300, 250, 0, 1 }, { UME, UME, M, 0, M }, 0 } },
	  CAUSE_UNKNOWN, "DMA32" },
	/* The second example: 216 kB = 54 pages; GFP_ATOMIC's min 256 -> 128 (HIGH) -> 96 (HARDER). */
	{ "issue: 216 kB free, under the 384 kB GFP_ATOMIC may dip to (6.1)", "6.1.0", "GFP_ATOMIC", 0, 1,
	  { { "DMA32", 1, 216, 1024, 0, 0, 0, 0, { 54 }, { U }, 0 } }, CAUSE_WATERMARK, "DMA32" },
	{ "the same on 6.3+ (MIN_RESERVE then NON_BLOCK: 96 pages too)", "6.8.0", "GFP_ATOMIC", 0, 1,
	  { { "DMA32", 1, 216, 1024, 0, 0, 0, 0, { 54 }, { U }, 0 } }, CAUSE_WATERMARK, "DMA32" },
	{ "96 pages free: not above the 96-page mark, watermark", "6.1.0", "GFP_ATOMIC", 0, 1,
	  { { "DMA32", 1, 384, 1024, 0, 0, 0, 0, { 96 }, { U }, 0 } }, CAUSE_WATERMARK, "DMA32" },
	{ "97 pages free: above it, the state would serve it", "6.1.0", "GFP_ATOMIC", 0, 1,
	  { { "DMA32", 1, 388, 1024, 0, 0, 0, 0, { 97 }, { U }, 0 } }, CAUSE_UNKNOWN, "DMA32" },
	{ "GFP_NOWAIT gets no cut before 6.3: 200 pages under the min of 256", "6.1.0",
	  "GFP_NOWAIT", 0, 1, { { "DMA32", 1, 800, 1024, 0, 0, 0, 0, { 200 }, { U }, 0 } }, CAUSE_WATERMARK, "DMA32" },
	{ "GFP_NOWAIT, 6.3+: NON_BLOCK alone cuts nothing either", "6.8.0", "GFP_NOWAIT", 0, 1,
	  { { "DMA32", 1, 800, 1024, 0, 0, 0, 0, { 200 }, { U }, 0 } }, CAUSE_WATERMARK, "DMA32" },
	/* Reserves: a 2 MB block, only on the highatomic list. */
	{ "order 9 only in H, GFP_KERNEL (6.1): reserve", "6.1.0", "GFP_KERNEL", 9, 1,
	  { { "Normal", 2, 10048, 1024, 0, 2048, 0, 0, { 400, 300, 250, 0, 0, 0, 0, 0, 0, 1 },
	      { UME, UME, M, 0, 0, 0, 0, 0, 0, H }, 0 } }, CAUSE_RESERVE, "Normal" },
	{ "... GFP_ATOMIC (6.1, ALLOC_HARDER may take H): the state would serve it", "6.1.0", "GFP_ATOMIC", 9, 1,
	  { { "Normal", 2, 10048, 1024, 0, 2048, 0, 0, { 400, 300, 250, 0, 0, 0, 0, 0, 0, 1 },
	      { UME, UME, M, 0, 0, 0, 0, 0, 0, H }, 0 } }, CAUSE_UNKNOWN, "Normal" },
	{ "... GFP_NOWAIT (6.8, ALLOC_HIGHATOMIC above order 0): served", "6.8.0", "GFP_NOWAIT", 9, 1,
	  { { "Normal", 2, 10048, 1024, 0, 2048, 0, 0, { 400, 300, 250, 0, 0, 0, 0, 0, 0, 1 },
	      { UME, UME, M, 0, 0, 0, 0, 0, 0, H }, 0 } }, CAUSE_UNKNOWN, "Normal" },
	{ "... GFP_NOWAIT (6.1: no ALLOC_HARDER without __GFP_ATOMIC): reserve", "6.1.0", "GFP_NOWAIT", 9, 1,
	  { { "Normal", 2, 10048, 1024, 0, 2048, 0, 0, { 400, 300, 250, 0, 0, 0, 0, 0, 0, 1 },
	      { UME, UME, M, 0, 0, 0, 0, 0, 0, H }, 0 } }, CAUSE_RESERVE, "Normal" },
	/* CMA: usable only by movable requests; free CMA pages count only for them. */
	{ "order 4 only in C, GFP_HIGHUSER_MOVABLE (ALLOC_CMA): served", "6.8.0", "GFP_HIGHUSER_MOVABLE", 4, 1,
	  { { "Normal", 2, 8064, 1024, 0, 0, 64, 0, { 400, 300, 250, 0, 1 }, { UME, UME, M, 0, C }, 0 } },
	  CAUSE_UNKNOWN, "Normal" },
	{ "... GFP_KERNEL: reserve", "6.8.0", "GFP_KERNEL", 4, 1,
	  { { "Normal", 2, 8064, 1024, 0, 0, 64, 0, { 400, 300, 250, 0, 1 }, { UME, UME, M, 0, C }, 0 } },
	  CAUSE_RESERVE, "Normal" },
	{ "... an isolated block serves nobody", "6.8.0", "GFP_HIGHUSER_MOVABLE", 4, 1,
	  { { "Normal", 2, 8064, 1024, 0, 0, 0, 0, { 400, 300, 250, 0, 1 }, { UME, UME, M, 0, I }, 0 } },
	  CAUSE_RESERVE, "Normal" },
	{ "free CMA does not count for GFP_KERNEL: 2,016 - 1,800 pages of CMA, under the min of 256", "6.8.0", "GFP_KERNEL", 0, 1,
	  { { "Normal", 2, 8064, 1024, 0, 0, 7200, 0, { 400, 300, 250, 0, 1 }, { UME, UME, M, 0, C }, 0 } },
	  CAUSE_WATERMARK, "Normal" },
	/* lowmem_reserve: DMA is kept from Normal requests. */
	{ "DMA32 under its min, DMA plenty but behind 3,801 pages of reserve: watermark in DMA32", "5.10.0",
	  "GFP_KERNEL", 0, 2,
	  { { "DMA32", 1, 600, 1024, 0, 0, 0, 0, { 150 }, { U }, 0 },
	    { "DMA", 0, 15456, 272, 0, 0, 0, 3801, { 3864 }, { UM }, 0 } }, CAUSE_WATERMARK, "DMA32" },
	{ "a GFP_DMA request meets no reserve in DMA: served", "5.10.0", "GFP_KERNEL|GFP_DMA", 0, 2,
	  { { "DMA32", 1, 600, 1024, 0, 0, 0, 0, { 150 }, { U }, 0 },
	    { "DMA", 0, 15456, 272, 0, 0, 0, 3801, { 3864 }, { UM }, 0 } }, CAUSE_UNKNOWN, "DMA" },
	{ "DMA32 under its min, DMA above its mark without a block: fragmentation in DMA", "6.1.0", "GFP_KERNEL", 3, 2,
	  { { "DMA32", 1, 600, 1024, 0, 0, 0, 0, { 150 }, { U }, 0 },
	    { "DMA", 0, 8000, 272, 0, 0, 0, 10, FRAG_NR, FRAG_TY, 0 } }, CAUSE_FRAGMENTATION, "DMA" },
	/* Free lists of unknown type (a sample without a current pagetypeinfo). */
	{ "blocks of the order, types unknown: reserve or served cannot be told", "6.8.0", "GFP_KERNEL", 3, 1,
	  { { "Normal", 2, 8032, 1024, 0, 0, 0, 0, { 400, 300, 250, 1 }, { 0 }, 1 } }, CAUSE_UNKNOWN, NULL },
	{ "no block of the order, types unknown: fragmentation all the same", "6.8.0", "GFP_KERNEL", 3, 1,
	  { { "Normal", 2, 8000, 1024, 0, 0, 0, 0, FRAG_NR, { 0 }, 1 } }, CAUSE_FRAGMENTATION, "Normal" },
	/* zone_watermark_fast's retry at the unboosted min (5.8+): min 1,000 pages of which 744 boost. */
	{ "boosted min 4,000 kB, 1,200 kB free, GFP_ATOMIC order 0 (5.10): the unboosted retry serves it", "5.10.0",
	  "GFP_ATOMIC", 0, 1, { { "Normal", 2, 1200, 4000, 2976, 0, 0, 0, { 300 }, { U }, 0 } }, CAUSE_UNKNOWN, "Normal" },
	{ "... before 5.8 there is no retry: watermark", "5.4.0", "GFP_ATOMIC", 0, 1,
	  { { "Normal", 2, 1200, 4000, 2976, 0, 0, 0, { 300 }, { U }, 0 } }, CAUSE_WATERMARK, "Normal" },
	/* Before 4.4: the per-order halving (3.10): 2,000 pages, 400 of order 0 drop, min 256 -> 128 ... */
	{ "3.10: the order loop fails where the free test passes: fragmentation", "3.10.0", "GFP_KERNEL", 3, 1,
	  { { "Normal", 2, 8000, 1024, 0, 0, 0, 0, FRAG_NR, FRAG_TY, 0 } }, CAUSE_FRAGMENTATION, "Normal" },
};

static char err[256];

static int build(const struct row *r, struct cause_zone *z)
{
	for (int i = 0; i < r->nz; i++) {
		const struct zspec *s = &r->z[i];
		memset(&z[i], 0, sizeof z[i]);
		z[i].node = 0;
		z[i].idx = s->idx;
		snprintf(z[i].name, sizeof z[i].name, "%s", s->name);
		z[i].free = s->free_kb / 4;
		z[i].min = s->min_kb / 4;
		z[i].boost = s->boost_kb / 4;
		z[i].highatomic_lo = z[i].highatomic_hi = s->highatomic_kb / 4;
		z[i].free_cma = s->cma_kb / 4;
		z[i].nprot = 5;
		z[i].prot[2] = s->prot2;
		z[i].prot[1] = s->idx < 1 ? s->prot2 : 0;
		z[i].norders = 11;
		memcpy(z[i].nr, s->nr, sizeof s->nr);
		memcpy(z[i].types, s->types, sizeof s->types);
		z[i].types_known = !s->types_unknown;
	}
	return r->nz;
}

static const char *const LAYOUT[] = { "DMA", "DMA32", "Normal", "Movable", "Device" };

/* The request a printed GFP list makes on a 5-zone x86_64 layout. */
static int request(const char *gfp, unsigned order, struct cause_request *rq)
{
	struct gfp_info g;

	if (gfp_decode(gfp, strlen(gfp), &g) < 0)
		return -1;
	memset(rq, 0, sizeof *rq);
	rq->order = order;
	cause_gfp(&g, gfp, strlen(gfp), &rq->gfp);
	rq->highest_idx = cause_highest_index(LAYOUT, 5, cause_zone_type_of(&g));
	return 0;
}

static void table(void)
{
	for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
		const struct row *r = &ROWS[i];
		struct cause_zone z[3];
		struct cause_request rq;
		struct cause_result res;
		struct atomic_kver v;
		int n = build(r, z);

		atomic_kver_parse(r->kver, &v);
		T_CHECK(request(r->gfp, r->order, &rq) == 0, "%s: '%s' decodes", r->what, r->gfp);
		T_EQ_I(cause_classify(z, n, &rq, v, -1, &res), 0, "%s: classified", r->what);
		T_EQ_S(cause_name(res.cause), cause_name(r->want), "%s (%s)", r->what, res.why);
		if (r->want_zone)
			T_EQ_S(res.zone >= 0 ? z[res.zone].name : "-", r->want_zone, "%s: the zone that decided", r->what);
	}
}

/* The free-page mark and the largest usable order of the examples, exactly. */
static void figures(void)
{
	struct cause_zone z[1];
	struct cause_request rq;
	struct cause_result res;
	struct atomic_kver v = { 6, 1 };

	build(&ROWS[0], z);
	request("GFP_ATOMIC|__GFP_COMP", 3, &rq);
	cause_classify(z, 1, &rq, v, -1, &res);
	/* min 256 -> 128 -> 96 pages, plus 2^3 - 1 pages it may not count: 103 pages, 412 kB. */
	T_EQ_I(res.mark_pages, 103, "fragmentation: free pages had to exceed 103 (96 + 7)");
	T_EQ_I(res.free_pages, 2000, "fragmentation: 2,000 pages free");
	T_EQ_I(res.largest_usable_order, 2, "fragmentation: the largest block it could use is order 2");
	build(&ROWS[3], z);
	request("GFP_ATOMIC", 0, &rq);
	cause_classify(z, 1, &rq, v, -1, &res);
	T_EQ_I(res.mark_pages, 96, "watermark: 54 pages against a mark of 96");
	/* Order 9 with fewer free pages than the 511 it may not count: the mark still holds all 511. */
	request("GFP_ATOMIC", 9, &rq);
	cause_classify(z, 1, &rq, v, -1, &res);
	T_EQ_S(cause_name(res.cause), "watermark", "order 9, 54 pages free: watermark");
	T_EQ_I(res.mark_pages, 96 + 511, "... against a mark of 96 + 511 pages (the Xen guest's fill showed 304 kB here)");
}

/* The highatomic reserve as an interval: decided only when both ends agree. */
static void uncertain_reserve(void)
{
	struct cause_zone z[1];
	struct cause_request rq;
	struct cause_result res;
	struct atomic_kver v = { 5, 3 };

	build(&ROWS[0], z);
	/* 2,000 free, GFP_KERNEL order 0: mark 256.  A reserve up to 1,000 pages may or may not tip it. */
	request("GFP_KERNEL", 0, &rq);
	z[0].highatomic_lo = 0;
	z[0].highatomic_hi = 1000;
	cause_classify(z, 1, &rq, v, -1, &res);
	T_EQ_S(cause_name(res.cause), "unknown", "reserve in [0, 1000]: served or watermark, undecided");
	z[0].highatomic_lo = 1800;
	z[0].highatomic_hi = 1900;
	cause_classify(z, 1, &rq, v, -1, &res);
	T_EQ_S(cause_name(res.cause), "watermark", "reserve in [1800, 1900]: under the mark at both ends");
	z[0].highatomic_lo = 0;
	z[0].highatomic_hi = 500;
	cause_classify(z, 1, &rq, v, -1, &res);
	T_EQ_S(cause_name(res.cause), "unknown", "reserve in [0, 500]: served at both ends (the state passes)");
	T_EQ_S(res.why, "the state would have served it", "... and says why");
}

static void bad_input(void)
{
	struct cause_zone z[1];
	struct cause_request rq;
	struct cause_result res;
	struct atomic_kver v = { 6, 1 };

	build(&ROWS[0], z);
	request("GFP_KERNEL", 3, &rq);
	T_EQ_I(cause_classify(z, 0, &rq, v, -1, &res), -1, "no zones: -1");
	rq.highest_idx = -1;
	T_EQ_I(cause_classify(z, 1, &rq, v, -1, &res), -1, "unknown highest zone: -1, unknown");
	T_EQ_I(res.cause, CAUSE_UNKNOWN, "... cause unknown");
	request("GFP_KERNEL", 11, &rq);
	T_EQ_I(cause_classify(z, 1, &rq, v, -1, &res), -1, "order past the zone's orders: -1");
	request("GFP_KERNEL", 3, &rq);
	z[0].idx = -1;
	T_EQ_I(cause_classify(z, 1, &rq, v, -1, &res), -1, "a zone without an index: -1");
	z[0].idx = 3;
	T_EQ_I(cause_classify(z, 1, &rq, v, -1, &res), 0, "a zone above the request's: classified");
	T_EQ_S(res.why, "no zone the request may use", "... with no zone in its walk");
}

static void names(void)
{
	struct atomic_gfp g;
	struct gfp_info gi;
	enum cause c;

	gfp_decode("GFP_ATOMIC|__GFP_COMP", 21, &gi);
	cause_gfp(&gi, "GFP_ATOMIC|__GFP_COMP", 21, &g);
	T_CHECK(g.high && g.atomic && !g.direct_reclaim, "GFP_ATOMIC: __GFP_HIGH, __GFP_ATOMIC (before 6.3), no reclaim");
	gfp_decode("__GFP_HIGH|__GFP_NOWARN", 23, &gi);
	cause_gfp(&gi, "__GFP_HIGH|__GFP_NOWARN", 23, &g);
	T_CHECK(g.high && !g.atomic, "__GFP_HIGH alone is not __GFP_ATOMIC");
	gfp_decode("GFP_HIGHUSER_MOVABLE", 20, &gi);
	T_EQ_I(cause_zone_type_of(&gi), CAUSE_ZT_MOVABLE, "GFP_HIGHUSER_MOVABLE: ZONE_MOVABLE");
	T_EQ_I(cause_highest_index(LAYOUT, 5, CAUSE_ZT_HIGHMEM), 2, "no HighMem zone: Normal (OPT_ZONE_HIGHMEM)");
	T_EQ_I(cause_parse("fragmentation", 13, &c), 0, "cause names parse");
	T_EQ_I(c, CAUSE_FRAGMENTATION, "... back to the cause");
	T_EQ_I(cause_highatomic_cap(808584, 9), 8085 + 1024, "highatomic cap: managed/100 + 2 pageblocks");
}

/* A real dump through the daemon's conversion: the fixture's zones against its request. */
static void from_fixture(const char *name, const char *kver, const char *gfp, unsigned order, int pageblock_order,
			 const char *want, const char *want_zone, int want_largest)
{
	static char raw[1 << 16], msg[1 << 16];
	static struct memdump d;
	struct cause_zone z[CAUSE_MAX_ZONES];
	struct cause_request rq;
	struct cause_result res;
	struct atomic_kver v;
	long n = t_fixture(name, raw, sizeof raw);
	size_t o = 0;
	int nz;

	for (const char *p = raw; n > 0 && *p;) {   /* dmesg stamps off */
		const char *nl = strchr(p, '\n'), *b = p;
		if (*p == '[' && strchr(p, ']') && (!nl || strchr(p, ']') < nl))
			b = strchr(p, ']') + 2;
		size_t len = nl ? (size_t)(nl - b) : strlen(b);
		memcpy(msg + o, b, len);
		o += len;
		msg[o++] = '\n';
		p = nl ? nl + 1 : b + len;
	}
	T_EQ_I(memdump_parse(msg, o, &d), 0, "%s: complete", name);
	nz = causes_dump_zones(&d, LAYOUT, 5, pageblock_order, z, CAUSE_MAX_ZONES);
	T_EQ_I(nz, d.nzones, "%s: every zone converted", name);
	atomic_kver_parse(kver, &v);
	request(gfp, order, &rq);
	T_EQ_I(cause_classify(z, nz, &rq, v, -1, &res), 0, "%s: classified", name);
	T_EQ_S(cause_name(res.cause), want, "%s, order %u %s, pageblock order %d (%s)", name, order, gfp,
	       pageblock_order, res.why);
	if (want_zone)
		T_EQ_S(res.zone >= 0 ? z[res.zone].name : "-", want_zone, "%s: decided in %s", name, want_zone);
	if (want_largest >= -1)
		T_EQ_I(res.largest_usable_order, want_largest, "%s: largest order it could use", name);
}

/* A sample of the Xen test guest (the .xenpv fixtures): zoneinfo + buddyinfo + pagetypeinfo of one moment. */
static void from_sample(void)
{
	static char buf[1 << 17];
	static struct zoneinfo zi;
	static struct buddyinfo bi;
	static struct pagetypeinfo pt;
	struct cause_zone z[CAUSE_MAX_ZONES];
	const char *names[CAUSES_LAYOUT_MAX];
	struct cause_request rq;
	struct cause_result res;
	struct atomic_kver v = { 6, 1 };
	long n;
	int nz, nl;

	n = t_fixture("zoneinfo.xenpv", buf, sizeof buf);
	T_CHECK(n > 0 && zoneinfo_parse(buf, (size_t)n, &zi) == 0, "xenpv: zoneinfo parses");
	n = t_fixture("buddyinfo.xenpv", buf, sizeof buf);
	T_CHECK(n > 0 && buddyinfo_parse(buf, (size_t)n, &bi) == 0, "xenpv: buddyinfo parses");
	n = t_fixture("pagetypeinfo.xenpv", buf, sizeof buf);
	T_CHECK(n > 0 && pagetypeinfo_parse(buf, (size_t)n, &pt) == 0, "xenpv: pagetypeinfo parses");
	nl = causes_layout(&zi, names, CAUSES_LAYOUT_MAX);
	T_EQ_I(nl, 5, "xenpv: the layout has the kernel's 5 zone types");
	T_EQ_S(nl > 2 ? names[2] : "-", "Normal", "xenpv: index 2 is Normal (empty in this guest)");
	nz = causes_sample_zones(&zi, &bi, &pt, z, CAUSE_MAX_ZONES);
	T_EQ_I(nz, 2, "xenpv: DMA and DMA32 are populated");
	T_CHECK(nz == 2 && z[1].no_reserve_lists && !z[1].types_known && z[1].highatomic_hi == 0,
		"xenpv: no HighAtomic/CMA/Isolate pageblock: every free block usable, reserve 0");
	T_EQ_I(nz == 2 ? z[0].prot[2] : -1, 52, "xenpv: DMA keeps 52 pages from Normal requests");
	memset(&rq, 0, sizeof rq);
	rq.highest_idx = cause_highest_index(names, nl, CAUSE_ZT_NORMAL);
	rq.gfp.high = rq.gfp.atomic = 1;
	rq.order = 9;
	cause_classify(z, nz, &rq, v, -1, &res);
	/* DMA32 has no order-9 block; DMA (3,869 free, far above min and its 52-page reserve) has two. */
	T_EQ_S(cause_name(res.cause), "unknown", "xenpv: GFP_ATOMIC order 9 would be served (from DMA)");
	T_EQ_S(res.zone >= 0 ? z[res.zone].name : "-", "DMA", "xenpv: ... by DMA");
	z[0].nr[9] = z[0].nr[10] = 0;
	z[0].free -= 4 * 512;
	cause_classify(z, nz, &rq, v, -1, &res);
	T_EQ_S(cause_name(res.cause), "fragmentation", "xenpv: without DMA's big blocks: fragmentation");
	T_EQ_S(res.zone >= 0 ? z[res.zone].name : "-", "DMA32", "xenpv: ... decided in DMA32, the first zone of the walk");
	T_EQ_I(res.largest_usable_order, 8, "xenpv: DMA32's largest block is order 8");
}

int main(void)
{
	(void)err;
	table();
	figures();
	uncertain_reserve();
	bad_input();
	names();
	/* 5.3: every zone under min + reserve; DMA32 only once its H blocks are known to reserve a pageblock. */
	from_fixture("memdump-5.3-arch.txt", "5.3.0", "__GFP_IO|__GFP_FS|__GFP_COMP|__GFP_RECLAIMABLE", 0, 9,
		     "watermark", "Normal", 2);   /* order 3 is H only: 2 (UH) is the largest it may use */
	from_fixture("memdump-5.3-arch.txt", "5.3.0", "__GFP_IO|__GFP_FS|__GFP_COMP|__GFP_RECLAIMABLE", 0, -1,
		     "unknown", NULL, -2);
	/* 6.3: order 9 exists only as Normal's one H block; DMA32 has none; DMA is behind its reserve. */
	from_fixture("memdump-6.3-gentoo-nonuma.txt", "6.3.9", "GFP_KERNEL|__GFP_HIGHMEM|__GFP_ZERO", 9, 9,
		     "reserve", "Normal", 8);
	/* The two examples, hand-made in 6.1's layout (tests/fixtures/README.md). */
	from_fixture("memdump-issue-fragmentation.txt", "6.1.0", "GFP_ATOMIC|__GFP_COMP", 3, 9, "fragmentation", "DMA32", 2);
	from_fixture("memdump-issue-watermark.txt", "6.1.0", "GFP_ATOMIC", 0, 9, "watermark", "DMA32", 0);
	from_sample();
	T_DONE();
}
