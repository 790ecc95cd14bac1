/*
 * atomic: would a GFP_ATOMIC allocation of order k pass the page
 * allocator's watermark check in a zone right now, and would GFP_KERNEL?
 * A model of mm/page_alloc.c __zone_watermark_ok() / zone_watermark_fast()
 * as the running kernel applies them, fed from zoneinfo + buddyinfo
 * (+ pagetypeinfo when available).
 *
 * What each request gets (x86_64, gfp_zone = ZONE_NORMAL for both):
 *   fast path, every request     ALLOC_WMARK_LOW, no reserve access
 *   GFP_KERNEL slow path, before direct reclaim/compaction
 *                                ALLOC_WMARK_MIN, no reserve access  -> kernel_ok
 *   GFP_ATOMIC slow path (it never reclaims, so this is its last word)
 *                                ALLOC_WMARK_MIN and
 *       6.3+      ALLOC_MIN_RESERVE (__GFP_HIGH): min -= min/2,
 *                 ALLOC_NON_BLOCK (no direct reclaim): min -= min/4 (of the rest),
 *                 ALLOC_HIGHATOMIC if order > 0 (may use the highatomic free lists);
 *                 any of these (ALLOC_RESERVES) stops nr_reserved_highatomic
 *                 from being counted as unusable.
 *       4.4-6.2   ALLOC_HIGH: min -= min/2;  ALLOC_HARDER (__GFP_ATOMIC): min -= min/4,
 *                 highatomic reserve usable.  Same numbers as 6.3+.
 *       < 4.4     ALLOC_HIGH + ALLOC_HARDER on min as above, no highatomic reserve,
 *                 and the old high-order rule: for each order o < k, drop the
 *                 free pages of order o and halve min; fail if free <= min.
 *   GFP_NOWAIT (no __GFP_HIGH): 6.3+ NON_BLOCK only (min unchanged, highatomic
 *                 usable); 4.4-6.2 nothing; < 4.4 HARDER (min -= min/4).
 * The check itself (4.4+):
 *   free  = NR_FREE_PAGES - ((1 << k) - 1)
 *                         - nr_reserved_highatomic   unless reserve access
 *                         - NR_FREE_CMA_PAGES        (ALLOC_CMA only for movable; never here)
 *                         - NR_UNACCEPTED            (6.5+, CONFIG_UNACCEPTED_MEMORY)
 *   fail if free <= min' + lowmem_reserve[highest_zoneidx]
 *   order 0: pass; else pass iff a free block of order >= k sits on a list
 *   the request may use (unmovable/movable/reclaimable; CMA with ALLOC_CMA;
 *   HIGHATOMIC with ALLOC_HIGHATOMIC/HARDER).
 * Boost: zoneinfo's min/low include watermark_boost.  Since 5.8, an order-0
 *   GFP_ATOMIC that fails at min is retried against the unboosted min.
 * margin_pages = free (after the deductions) - (min' + lowmem_reserve):
 *   the order-0 headroom; the check needs margin > 0.
 *
 * Limits (what the model cannot see):
 *   - per-cpu page lists: pages parked there are not in NR_FREE_PAGES nor in
 *     buddyinfo; an order-0 (and, 5.13+, order <= 3) request that passes the
 *     check is often served from them.  The kernel checks the same counters,
 *     so the verdict is right; only "where the page comes from" differs.
 *   - highatomic reserve: nr_reserved_highatomic is not exported; pass
 *     HighAtomic pageblocks x pages-per-block from pagetypeinfo, else 0
 *     (then GFP_KERNEL looks slightly better off than it is).  Per-order
 *     HighAtomic/CMA/Isolate free blocks also come from pagetypeinfo; without
 *     them any free block of order >= k is assumed usable (buddyinfo only).
 *   - CMA: counted as unusable for both requests (neither is movable).
 *   - watermark_boost: modelled only for the order-0 atomic retry above.
 *   - ALLOC_NOFRAGMENT, cpusets, mempolicies, zonelist order, node_reclaim,
 *     the OOM/__GFP_MEMALLOC paths and rt-task boosts are not modelled; the
 *     caller combines zones (a request succeeds if any zone of its zonelist,
 *     index <= highest_zoneidx, passes with lowmem_reserve[highest_zoneidx]).
 *   - a snapshot: counters move between reading zoneinfo and buddyinfo.
 */
#ifndef FPUSOAK_ATOMIC_H
#define FPUSOAK_ATOMIC_H

#include <stdint.h>

#define ATOMIC_MAX_ORDER 16        /* as BUDDY_MAX_ORDER */

struct atomic_kver {
	int major, minor;
};

/* Which __zone_watermark_ok the kernel has. */
enum atomic_era {
	ATOMIC_ERA_LEGACY,         /* < 4.4: per-order min halving */
	ATOMIC_ERA_HARDER,         /* 4.4 .. 6.2: ALLOC_HIGH / ALLOC_HARDER */
	ATOMIC_ERA_RESERVES,       /* 6.3+: ALLOC_MIN_RESERVE / ALLOC_NON_BLOCK / ALLOC_HIGHATOMIC */
};

enum atomic_req {
	ATOMIC_REQ_ATOMIC,         /* GFP_ATOMIC slow path (its final attempt) */
	ATOMIC_REQ_NOWAIT,         /* GFP_NOWAIT slow path */
	ATOMIC_REQ_KERNEL,         /* GFP_KERNEL slow path before reclaim (WMARK_MIN) */
	ATOMIC_REQ_FAST,           /* any request's fast path (WMARK_LOW) */
};

/* One zone as the model needs it; counts in pages unless noted. */
struct atomic_zone {
	uint64_t free_pages;               /* zoneinfo "pages free" (NR_FREE_PAGES) */
	uint64_t wmark_min, wmark_low;     /* zoneinfo "min"/"low" (boost included) */
	uint64_t boost;                    /* zoneinfo "boost" (0 before 5.0) */
	int64_t lowmem_reserve;            /* zoneinfo protection[highest_zoneidx] */
	uint64_t nr_reserved_highatomic;   /* pagetypeinfo HighAtomic blocks x pages per block, or 0 */
	uint64_t nr_free_cma;              /* zoneinfo nr_free_cma */
	uint64_t nr_unaccepted;            /* zoneinfo nr_unaccepted */
	int norders;                       /* buddyinfo columns */
	uint64_t free[ATOMIC_MAX_ORDER];   /* buddyinfo free blocks per order */
	/* Optional (pagetypeinfo): free blocks per order on lists a request may not use; zero = unknown. */
	uint64_t free_highatomic[ATOMIC_MAX_ORDER];
	uint64_t free_cma[ATOMIC_MAX_ORDER];
	uint64_t free_isolate[ATOMIC_MAX_ORDER];
};

struct atomic_check {
	int ok;
	int64_t free_after;                /* free_pages minus the unusable deductions (may be < 0) */
	int64_t threshold;                 /* min' + lowmem_reserve */
	int64_t margin;                    /* free_after - threshold; order-0 stage passes iff > 0 */
	int block_ok;                      /* a usable free block of order >= k exists (1 for k = 0) */
};

/* Per zone and order, the verdicts the product asks about. */
struct atomic_result {
	int atomic_ok;                     /* GFP_ATOMIC passes */
	int kernel_ok;                     /* GFP_KERNEL passes before reclaim */
	int fast_ok;                       /* fast path (low watermark) passes */
	int64_t margin_pages;              /* GFP_ATOMIC margin */
	int64_t kernel_margin_pages;       /* GFP_KERNEL margin */
};

/* Parse "6.18.44-fc-v669" (uname -r) into major/minor; 0 or -1. */
int atomic_kver_parse(const char *release, struct atomic_kver *out);

/* The era a kernel version falls in. */
enum atomic_era atomic_era_of(struct atomic_kver v);

/* One request at one order against one zone; 0, or -1 on bad arguments (order >= norders, norders out of range). */
int atomic_check_zone(const struct atomic_zone *z, unsigned order, enum atomic_req req,
		      struct atomic_kver v, struct atomic_check *out);

/* GFP_ATOMIC, GFP_KERNEL (pre-reclaim) and fast-path verdicts for one zone and order; 0 or -1. */
int atomic_eval(const struct atomic_zone *z, unsigned order, struct atomic_kver v, struct atomic_result *out);

#endif
