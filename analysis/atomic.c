/* SPDX-License-Identifier: GPL-2.0-only */
/* atomic: model of __zone_watermark_ok for GFP_ATOMIC vs GFP_KERNEL; see atomic.h. */
#include "analysis/atomic.h"

#include <string.h>

#include "common/num.h"

/* Short names for the ATOMIC_F_* bits (atomic.h). */
enum {
	F_WMARK_LOW = ATOMIC_F_WMARK_LOW,
	F_HIGH = ATOMIC_F_HIGH,
	F_HARDER = ATOMIC_F_HARDER,
	F_MIN_RESERVE = ATOMIC_F_MIN_RESERVE,
	F_NON_BLOCK = ATOMIC_F_NON_BLOCK,
	F_HIGHATOMIC = ATOMIC_F_HIGHATOMIC,
	F_CMA = ATOMIC_F_CMA,
};

/* Saturating int64 helpers: junk counters must not wrap into a plausible verdict. */
static int64_t sat(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

static int64_t ssub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b > 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static int64_t sadd(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static uint64_t usub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

int atomic_kver_parse(const char *release, struct atomic_kver *out)
{
	uint64_t maj, min;
	size_t len, used, used2;

	if (!release)
		return -1;
	len = strlen(release);
	if (num_prefix_u64(release, len, &maj, &used) < 0 || maj > 1000 || used >= len ||
	    release[used] != '.' ||
	    num_prefix_u64(release + used + 1, len - used - 1, &min, &used2) < 0 || min > 1000)
		return -1;
	out->major = (int)maj;
	out->minor = (int)min;
	return 0;
}

static int kver_ge(struct atomic_kver v, int major, int minor)
{
	return v.major > major || (v.major == major && v.minor >= minor);
}

enum atomic_era atomic_era_of(struct atomic_kver v)
{
	if (!kver_ge(v, 4, 4))
		return ATOMIC_ERA_LEGACY;
	if (!kver_ge(v, 6, 3))
		return ATOMIC_ERA_HARDER;
	return ATOMIC_ERA_RESERVES;
}

unsigned atomic_alloc_flags(const struct atomic_gfp *g, unsigned order, enum atomic_era era)
{
	unsigned f = 0;
	/* The kernel's CMA rule is the same in every era that has CMA: movable requests may use it. */
	unsigned cma = g->movable ? F_CMA : 0;

	if (era == ATOMIC_ERA_RESERVES) {
		/* 6.3+: __GFP_HIGH is ALLOC_MIN_RESERVE; not sleeping is ALLOC_NON_BLOCK (+HIGHATOMIC above order 0). */
		if (g->high)
			f |= F_MIN_RESERVE;
		if (!g->direct_reclaim && !g->nomemalloc)
			f |= F_NON_BLOCK | (order > 0 ? F_HIGHATOMIC : 0);
		return f | cma;
	}
	if (g->high)
		f |= F_HIGH;
	/* 4.4 .. 6.2: ALLOC_HARDER from __GFP_ATOMIC; before 4.4 from not being able to wait. */
	if (era == ATOMIC_ERA_HARDER ? g->atomic && !g->nomemalloc : !g->direct_reclaim && !g->nomemalloc)
		f |= F_HARDER;
	return f | cma;
}

/* gfp_to_alloc_flags() (or the fast path's ALLOC_WMARK_LOW) for each modelled request. */
static unsigned alloc_flags(enum atomic_req req, enum atomic_era era, unsigned order)
{
	static const struct atomic_gfp ATOMIC = { .high = 1, .atomic = 1 }, NOWAIT = { 0 },
					KERNEL = { .direct_reclaim = 1 };

	switch (req) {
	case ATOMIC_REQ_FAST:
		return F_WMARK_LOW;
	case ATOMIC_REQ_KERNEL:
		return atomic_alloc_flags(&KERNEL, order, era);
	case ATOMIC_REQ_ATOMIC:
		return atomic_alloc_flags(&ATOMIC, order, era);
	case ATOMIC_REQ_NOWAIT:
		return atomic_alloc_flags(&NOWAIT, order, era);
	}
	return 0;
}

/* min after the reserve discounts; the order of the two cuts matters for rounding. */
static int64_t adjust_min(int64_t min, unsigned f, enum atomic_era era)
{
	if (era == ATOMIC_ERA_RESERVES) {
		if (f & F_MIN_RESERVE) {
			min -= min / 2;
			if (f & F_NON_BLOCK)
				min -= min / 4;
		}
		return min;
	}
	if (f & F_HIGH)
		min -= min / 2;
	if (f & F_HARDER)
		min -= min / 4;
	return min;
}

/* The request does not see the highatomic reserve as unusable (ALLOC_RESERVES / ALLOC_HARDER). */
static int reserve_access(unsigned f, enum atomic_era era)
{
	if (era == ATOMIC_ERA_RESERVES)
		return (f & (F_MIN_RESERVE | F_NON_BLOCK | F_HIGHATOMIC)) != 0;
	return (f & F_HARDER) != 0;
}

int atomic_may_use_highatomic(unsigned f, enum atomic_era era)
{
	if (era == ATOMIC_ERA_RESERVES)
		return (f & F_HIGHATOMIC) != 0;
	return (f & F_HARDER) != 0;
}

/* 4.4+: a free block of order >= k on a list this request may use. */
static int block_available(const struct atomic_zone *z, unsigned order, unsigned f, enum atomic_era era)
{
	for (unsigned o = order; o < (unsigned)z->norders; o++) {
		uint64_t usable = usub0(z->free[o], z->free_isolate[o]);

		if (!(f & F_CMA))
			usable = usub0(usable, z->free_cma[o]);
		if (!atomic_may_use_highatomic(f, era))
			usable = usub0(usable, z->free_highatomic[o]);
		if (usable > 0)
			return 1;
	}
	return 0;
}

/* __zone_watermark_ok() of 4.4 .. 6.x, on free_pages (NR_FREE_PAGES, or more when reclaim is counted). */
static void check_modern_free(const struct atomic_zone *z, uint64_t free_pages, unsigned order, int64_t mark,
			      unsigned f, enum atomic_era era, struct atomic_check *c)
{
	int64_t free_after = sat(free_pages);

	free_after = ssub(free_after, ((int64_t)1 << order) - 1);
	if (!reserve_access(f, era))
		free_after = ssub(free_after, sat(z->nr_reserved_highatomic));
	if (!(f & F_CMA))
		free_after = ssub(free_after, sat(z->nr_free_cma));
	free_after = ssub(free_after, sat(z->nr_unaccepted));
	c->free_after = free_after;
	c->threshold = sadd(adjust_min(mark, f, era), z->lowmem_reserve);
	c->margin = ssub(free_after, c->threshold);
	c->block_ok = order == 0 ? 1 : block_available(z, order, f, era);
	c->ok = free_after > c->threshold && c->block_ok;
}

static void check_modern(const struct atomic_zone *z, unsigned order, int64_t mark, unsigned f,
			 enum atomic_era era, struct atomic_check *c)
{
	check_modern_free(z, z->free_pages, order, mark, f, era, c);
}

/* __zone_watermark_ok() before 4.4: each lower order's pages drop out and min halves per order. */
static void check_legacy(const struct atomic_zone *z, unsigned order, int64_t mark, unsigned f,
			 struct atomic_check *c)
{
	int64_t free_pages = ssub(sat(z->free_pages), ((int64_t)1 << order) - 1);
	int64_t min = adjust_min(mark, f, ATOMIC_ERA_LEGACY);

	c->free_after = (f & F_CMA) ? free_pages : ssub(free_pages, sat(z->nr_free_cma));
	c->threshold = sadd(min, z->lowmem_reserve);
	c->margin = ssub(c->free_after, c->threshold);
	c->block_ok = 1;
	if (c->free_after <= c->threshold) {
		c->ok = 0;
		return;
	}
	/* The loop uses free_pages with CMA still in it, as the kernel did. */
	for (unsigned o = 0; o < order; o++) {
		uint64_t pages = z->free[o] > (UINT64_MAX >> o) ? UINT64_MAX : z->free[o] << o;

		free_pages = ssub(free_pages, sat(pages));
		min >>= 1;
		if (free_pages <= min) {
			c->block_ok = 0;
			break;
		}
	}
	c->ok = c->block_ok;
}

int atomic_check_flags(const struct atomic_zone *z, unsigned order, unsigned f, struct atomic_kver v,
		       struct atomic_check *out)
{
	enum atomic_era era = atomic_era_of(v);
	int64_t mark;

	memset(out, 0, sizeof *out);
	if (!z || z->norders <= 0 || z->norders > ATOMIC_MAX_ORDER || order >= (unsigned)z->norders)
		return -1;
	mark = sat((f & F_WMARK_LOW) ? z->wmark_low : z->wmark_min);
	if (era == ATOMIC_ERA_LEGACY) {
		check_legacy(z, order, mark, f, out);
		return 0;
	}
	check_modern(z, order, mark, f, era, out);
	/*
	 * zone_watermark_fast(), 5.8+: an order-0 request with __GFP_HIGH (or __GFP_ATOMIC, < 6.3) failing at
	 * the (boosted) min watermark retries against the unboosted one.
	 */
	if (!out->ok && order == 0 && !(f & F_WMARK_LOW) && (f & (F_HIGH | F_HARDER | F_MIN_RESERVE)) &&
	    z->boost > 0 && kver_ge(v, 5, 8))
		check_modern(z, order, sat(usub0(z->wmark_min, z->boost)), f, era, out);
	return 0;
}

int atomic_check_zone(const struct atomic_zone *z, unsigned order, enum atomic_req req,
		      struct atomic_kver v, struct atomic_check *out)
{
	return atomic_check_flags(z, order, alloc_flags(req, atomic_era_of(v), order), v, out);
}

int atomic_eval(const struct atomic_zone *z, unsigned order, struct atomic_kver v, struct atomic_result *out)
{
	struct atomic_check a, k, fast;

	memset(out, 0, sizeof *out);
	if (atomic_check_zone(z, order, ATOMIC_REQ_ATOMIC, v, &a) < 0 ||
	    atomic_check_zone(z, order, ATOMIC_REQ_KERNEL, v, &k) < 0 ||
	    atomic_check_zone(z, order, ATOMIC_REQ_FAST, v, &fast) < 0)
		return -1;
	out->atomic_ok = a.ok;
	out->kernel_ok = k.ok;
	out->fast_ok = fast.ok;
	out->margin_pages = a.margin;
	out->kernel_margin_pages = k.margin;
	return 0;
}

/* ---- the request ------------------------------------------------------------------------------- */

/* Saturating add of reclaimable pages to the free count. */
static uint64_t uadd(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * GFP_KERNEL, sleeping: should_reclaim_retry() asks the watermark check (min, order k) with reclaimable
 * pages counted as free; a free block of order >= k must still exist.  For order > 0 without such a block,
 * compaction_zonelist_suitable() asks an order-0 check at compaction's mark on the same count.
 */
static int kernel_by_reclaim(const struct atomic_zone *z, uint64_t reclaimable, unsigned order, struct atomic_kver v)
{
	enum atomic_era era = atomic_era_of(v);
	uint64_t avail = uadd(z->free_pages, reclaimable);
	struct atomic_check c;
	uint64_t base;
	int64_t mark;

	if (era == ATOMIC_ERA_LEGACY) {
		struct atomic_zone moved = *z;
		moved.free_pages = avail;
		check_legacy(&moved, order, sat(z->wmark_min), 0, &c);
	} else
		check_modern_free(z, avail, order, sat(z->wmark_min), 0, era, &c);
	if (c.ok)
		return 1;
	if (order == 0 || c.free_after <= c.threshold)
		return 0;
	/* Since 4.8 a non-costly order needs only the min mark for compaction to run (low before). */
	base = order > 3 || !kver_ge(v, 4, 8) ? z->wmark_low : z->wmark_min;
	mark = sadd(sat(base), (int64_t)2 << order);
	check_modern_free(z, avail, 0, mark, F_CMA, era == ATOMIC_ERA_LEGACY ? ATOMIC_ERA_HARDER : era, &c);
	return c.ok;
}

/* Zonelist order: the local node first, other nodes by number; in a node, highest zone index first. */
static int zl_before(const struct atomic_zl_zone *zones, int a, int b, int local)
{
	const struct atomic_zl_zone *x = &zones[a], *y = &zones[b];

	if (x->node != y->node) {
		if ((x->node == local) != (y->node == local))
			return x->node == local;
		return x->node < y->node;
	}
	if (x->idx != y->idx && x->idx >= 0 && y->idx >= 0)
		return x->idx > y->idx;
	return a > b;   /* zoneinfo lists a node's zones by ascending index */
}

int atomic_request_eval(const struct atomic_zl_zone *zones, int n, int local_node, int highest_zoneidx,
			unsigned order, struct atomic_kver v, struct atomic_request *out)
{
	int walk[ATOMIC_MAX_ZONES], nw = 0;
	int *first[3];

	if (!out)
		return -1;
	memset(out, 0, sizeof *out);
	out->atomic_zone = out->nowait_zone = out->kernel_zone = -1;
	out->exact = highest_zoneidx >= 0;
	if ((!zones && n > 0) || n < 0 || n > ATOMIC_MAX_ZONES)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct atomic_zl_zone *zz = &zones[i];
		if (zz->z.norders <= 0 || zz->z.norders > ATOMIC_MAX_ORDER || order >= (unsigned)zz->z.norders ||
		    zz->nprot < 0 || zz->nprot > ATOMIC_MAX_PROT)
			return -1;
		if (zz->idx < 0)
			out->exact = 0;
		if (zz->idx >= 0 && highest_zoneidx >= 0 && zz->idx > highest_zoneidx)
			continue;   /* above the request's highest zone: not in its walk */
		int at = nw++;
		while (at > 0 && zl_before(zones, i, walk[at - 1], local_node)) {
			walk[at] = walk[at - 1];
			at--;
		}
		walk[at] = i;
	}
	first[0] = &out->atomic_zone;
	first[1] = &out->nowait_zone;
	first[2] = &out->kernel_zone;
	for (int w = 0; w < nw; w++) {
		const struct atomic_zl_zone *zz = &zones[walk[w]];
		static const enum atomic_req reqs[3] = { ATOMIC_REQ_ATOMIC, ATOMIC_REQ_NOWAIT, ATOMIC_REQ_KERNEL };
		struct atomic_zone z = zz->z;
		struct atomic_check c;

		/* Every zone is checked with the reserve it keeps against the request's highest zone. */
		z.lowmem_reserve = out->exact && highest_zoneidx < zz->nprot ? zz->protection[highest_zoneidx] : 0;
		for (int r = 0; r < 3; r++)
			if (*first[r] < 0 && atomic_check_zone(&z, order, reqs[r], v, &c) == 0 && c.ok)
				*first[r] = walk[w];
	}
	out->atomic_ok = out->atomic_zone >= 0;
	out->nowait_ok = out->nowait_zone >= 0;
	out->kernel_now_ok = out->kernel_ok = out->kernel_zone >= 0;
	/* Nothing passes before reclaim: would a sleeping GFP_KERNEL get there by reclaim or compaction? */
	for (int w = 0; w < nw && !out->kernel_ok; w++) {
		const struct atomic_zl_zone *zz = &zones[walk[w]];
		struct atomic_zone z = zz->z;

		z.lowmem_reserve = out->exact && highest_zoneidx < zz->nprot ? zz->protection[highest_zoneidx] : 0;
		if (kernel_by_reclaim(&z, zz->reclaimable, order, v)) {
			out->kernel_ok = 1;
			out->kernel_zone = walk[w];
		}
	}
	return 0;
}
