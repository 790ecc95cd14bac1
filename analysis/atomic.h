/* SPDX-License-Identifier: GPL-2.0-only */
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
 *   - ALLOC_NOFRAGMENT, cpusets, mempolicies, node_reclaim, the
 *     OOM/__GFP_MEMALLOC paths and rt-task boosts are not modelled.
 *   - a snapshot: counters move between reading zoneinfo and buddyinfo.
 *
 * The request (atomic_request_eval): a zone's verdict is not a request's.
 * get_page_from_freelist() walks the zonelist of the allocating node and
 * takes the first zone that passes; every zone is checked with
 * lowmem_reserve[highest_zoneidx] of the *request* (ZONE_NORMAL for
 * GFP_KERNEL and GFP_ATOMIC), which is how DMA is kept for DMA requests
 * (on the 6.18 development VM a Normal request sees DMA's 3840 free pages
 * behind a 4683-page reserve: DMA "fails" at every tick, and no Normal
 * request ever needs it).  The zonelist (build_zonelists, node order, the
 * 64-bit default) holds populated zones only: the local node's from the
 * highest index down, then the other nodes'.  Node distances are not read:
 * other nodes follow in ascending number.  A request fails only if every
 * zone of index <= highest_zoneidx fails.
 *   GFP_KERNEL is asked twice: before reclaim (the same check as above at
 *   the min mark), and whether it could still get the pages by sleeping,
 *   with the kernel's own tests for retrying instead of going OOM:
 *   should_reclaim_retry() (the watermark check with the zone's reclaimable
 *   pages counted as free: file LRU, anon LRU too when swap has room) and,
 *   for order > 0, compaction_zonelist_suitable() (an order-0 check at
 *   (order > PAGE_ALLOC_COSTLY_ORDER 3 ? low : min) + compact_gap(order) =
 *   2 << order, CMA counted, on the same free + reclaimable; low for every
 *   order before 4.8).  That is the best case a sleeping request has, so
 *   "GFP_ATOMIC fails where GFP_KERNEL would pass" counts exactly the
 *   requests that only the ability to sleep would have saved.  Not
 *   modelled: the fragmentation-index veto of costly-order compaction, and
 *   whether reclaim actually frees what it could.
 */
#ifndef FPUSOAK_ATOMIC_H
#define FPUSOAK_ATOMIC_H

#include <stdint.h>

#define ATOMIC_MAX_ORDER 16        /* as BUDDY_MAX_ORDER */
#define ATOMIC_MAX_ZONES 64        /* zones in one request's walk (nodes x zones, as ZONEINFO_MAX_ZONES) */
#define ATOMIC_MAX_PROT 8          /* lowmem_reserve[] entries (MAX_NR_ZONES is 2..6) */

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

/* gfp_to_alloc_flags() bits the model distinguishes (names as in mm/internal.h). */
enum {
	ATOMIC_F_WMARK_LOW = 1 << 0,      /* else WMARK_MIN (the slow path's) */
	ATOMIC_F_HIGH = 1 << 1,           /* ALLOC_HIGH (< 6.3) */
	ATOMIC_F_HARDER = 1 << 2,         /* ALLOC_HARDER (< 6.3) */
	ATOMIC_F_MIN_RESERVE = 1 << 3,    /* ALLOC_MIN_RESERVE (6.3+) */
	ATOMIC_F_NON_BLOCK = 1 << 4,      /* ALLOC_NON_BLOCK (6.3+) */
	ATOMIC_F_HIGHATOMIC = 1 << 5,     /* ALLOC_HIGHATOMIC (6.3+) */
	ATOMIC_F_CMA = 1 << 6,            /* ALLOC_CMA: free CMA pages and CMA lists count */
};

/* What gfp_to_alloc_flags() reads of a GFP mask. */
struct atomic_gfp {
	int high;                  /* __GFP_HIGH */
	int atomic;                /* __GFP_ATOMIC (4.4 .. 6.2: part of GFP_ATOMIC) */
	int direct_reclaim;        /* __GFP_DIRECT_RECLAIM (before 4.4: __GFP_WAIT) */
	int nomemalloc;            /* __GFP_NOMEMALLOC */
	int movable;               /* gfp_migratetype() is MIGRATE_MOVABLE: ALLOC_CMA (CONFIG_CMA) */
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

/* One populated zone as the zonelist walk needs it. */
struct atomic_zl_zone {
	int node;
	int idx;                                  /* zone type index (ZONE_DMA = 0, ...); -1 if unknown */
	int nprot;
	int64_t protection[ATOMIC_MAX_PROT];      /* zoneinfo protection: lowmem_reserve[] by zone type */
	uint64_t reclaimable;                     /* pages reclaim could free (zone_reclaimable_pages) */
	struct atomic_zone z;                     /* z.lowmem_reserve is ignored: protection[highest] is used */
};

/* What a request of one order gets from its whole zonelist. */
struct atomic_request {
	int atomic_ok;                 /* GFP_ATOMIC passes in some zone it may use */
	int nowait_ok;                 /* GFP_NOWAIT likewise */
	int kernel_now_ok;             /* GFP_KERNEL passes before reclaim */
	int kernel_ok;                 /* GFP_KERNEL passes now, or could by reclaim/compaction (see above) */
	int atomic_zone, nowait_zone, kernel_zone;   /* index into the caller's array of the zone that would
							serve it (the first in the walk), -1 if none */
	int exact;                     /* 0: a zone index (or highest_zoneidx) was unknown: no reserves applied */
};

/* Walk the zonelist of an order-k request from local_node with highest_zoneidx (-1: unknown) over the
 * populated zones zones[0..n); 0, or -1 on bad arguments (NULL, n over ATOMIC_MAX_ZONES, order too high). */
int atomic_request_eval(const struct atomic_zl_zone *zones, int n, int local_node, int highest_zoneidx,
			unsigned order, struct atomic_kver v, struct atomic_request *out);

/* Parse "6.18.44-fc-v669" (uname -r) into major/minor; 0 or -1. */
int atomic_kver_parse(const char *release, struct atomic_kver *out);

/* The era a kernel version falls in. */
enum atomic_era atomic_era_of(struct atomic_kver v);

/* One request at one order against one zone; 0, or -1 on bad arguments (order >= norders, norders out of range). */
int atomic_check_zone(const struct atomic_zone *z, unsigned order, enum atomic_req req,
		      struct atomic_kver v, struct atomic_check *out);

/* gfp_to_alloc_flags() of the era for an order-k request (the slow path: ALLOC_WMARK_MIN); ATOMIC_F_* bits.
 * rt tasks' extra reserve access and ALLOC_OOM are not modelled. */
unsigned atomic_alloc_flags(const struct atomic_gfp *g, unsigned order, enum atomic_era era);

/* __zone_watermark_ok() of the era with explicit ATOMIC_F_* flags (and zone_watermark_fast's order-0 retry at
 * the unboosted min, 5.8+); 0, or -1 on bad arguments as atomic_check_zone. */
int atomic_check_flags(const struct atomic_zone *z, unsigned order, unsigned flags, struct atomic_kver v,
		       struct atomic_check *out);

/* The flags may take a block from the MIGRATE_HIGHATOMIC free lists (ALLOC_HARDER < 6.3, ALLOC_HIGHATOMIC 6.3+). */
int atomic_may_use_highatomic(unsigned flags, enum atomic_era era);

/* GFP_ATOMIC, GFP_KERNEL (pre-reclaim) and fast-path verdicts for one zone and order; 0 or -1. */
int atomic_eval(const struct atomic_zone *z, unsigned order, struct atomic_kver v, struct atomic_result *out);

#endif
