/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cause: why a page allocation failed, from the request (order, GFP flags)
 * and the zones' state near the failure: watermark, fragmentation, reserve,
 * or unknown.  The rule is the allocator's own last test of a zone,
 * __zone_watermark_ok() as zone_watermark_fast() calls it from
 * get_page_from_freelist() (mm/page_alloc.c), with the request's
 * gfp_to_alloc_flags() (analysis/atomic.h has the arithmetic of each era):
 *
 *   1. free-page test: NR_FREE_PAGES minus what the request may not count
 *      (2^order - 1, the highatomic reserve unless ALLOC_HIGH/HARDER (< 6.3)
 *      or ALLOC_MIN_RESERVE/NON_BLOCK/HIGHATOMIC (6.3+), free CMA without
 *      ALLOC_CMA, unaccepted memory) must exceed min (after the cuts those
 *      flags give: min/2 for __GFP_HIGH, another quarter for atomic requests)
 *      plus lowmem_reserve[highest_zoneidx];
 *   2. block test (order > 0): a free block of order >= k on a free list the
 *      request may use: unmovable, movable, reclaimable always; CMA with
 *      ALLOC_CMA (movable requests); highatomic with ALLOC_HARDER (< 6.3) or
 *      ALLOC_HIGHATOMIC/ALLOC_OOM (6.3+); isolated never.  Before 4.4 the
 *      block test is the per-order halving of min instead.
 *
 * Over the zones the request may use (index <= gfp_zone(), its zonelist):
 *   watermark      every zone failed the free-page test;
 *   fragmentation  some zone passed it, but none of those had a block of
 *                  the order on a list the request may use, and none had one
 *                  only on lists it may not use;
 *   reserve        some zone that passed it had blocks of the order, but only
 *                  highatomic/CMA/isolated ones this request may not take;
 *   unknown        the state cannot decide: an uncertain quantity (the
 *                  highatomic reserve when not printed, migrate types when
 *                  not known) could tip it either way, or the state says the
 *                  request should have been served (it moved since, or the
 *                  kernel refused for a reason the rule does not see).
 * The zone that decided: for watermark the first zone of the walk (where the
 * allocator looked first), else the first zone of the walk that passed the
 * free-page test.
 *
 * Uncertain inputs are intervals, never guesses: the highatomic reserve is
 * [lo, hi] pages (exact when the dump prints reserved_highatomic or
 * pagetypeinfo counts HighAtomic pageblocks; else from one pageblock if any
 * free block is H-typed, up to the kernel's cap, managed/100 + pageblock),
 * and the free-page test is decided only when both ends agree.
 *
 * Not modelled (documented in docs/failure-causes.md): per-cpu lists,
 * cpusets and mempolicies, __GFP_THISNODE, ALLOC_NOFRAGMENT's first pass,
 * ALLOC_OOM / __GFP_MEMALLOC, rt tasks' ALLOC_HARDER, node distances.
 */
#ifndef FPUSOAK_CAUSE_H
#define FPUSOAK_CAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/atomic.h"
#include "collector/gfp.h"

#define CAUSE_MAX_ZONES 64
#define CAUSE_MAX_ORDERS 16
#define CAUSE_MAX_PROT 8
#define CAUSE_ZONE_NAME_MAX 16

enum cause {
	CAUSE_UNKNOWN = 0,
	CAUSE_WATERMARK = 1,
	CAUSE_FRAGMENTATION = 2,
	CAUSE_RESERVE = 3,
};
#define CAUSE_COUNT 4

/* Zone types gfp_zone() picks from; a type the kernel lacks falls back as the kernel's OPT_ZONE_* do. */
enum cause_zone_type {
	CAUSE_ZT_DMA,
	CAUSE_ZT_DMA32,
	CAUSE_ZT_NORMAL,
	CAUSE_ZT_HIGHMEM,
	CAUSE_ZT_MOVABLE,
};

/* Migrate-type bits of a free list (the letters show_migration_types prints: U M E H C I R). */
enum {
	CAUSE_MT_U = 1 << 0, CAUSE_MT_M = 1 << 1, CAUSE_MT_E = 1 << 2, CAUSE_MT_H = 1 << 3,
	CAUSE_MT_C = 1 << 4, CAUSE_MT_I = 1 << 5, CAUSE_MT_R = 1 << 6,
};

/* The request as gfp_to_alloc_flags() and gfp_zone() read it. */
struct cause_request {
	unsigned order;
	struct atomic_gfp gfp;
	int highest_idx;                   /* gfp_zone() as a zone type index (cause_highest_index), -1 unknown */
};

/* One zone near the failure; pages unless said. */
struct cause_zone {
	int node;
	int idx;                           /* zone type index (position in the kernel's zone list), -1 unknown */
	char name[CAUSE_ZONE_NAME_MAX];
	uint64_t free, min, boost;         /* NR_FREE_PAGES; min watermark with its boost; the boost */
	uint64_t highatomic_lo, highatomic_hi;   /* nr_reserved_highatomic lies in [lo, hi] */
	uint64_t free_cma, unaccepted;
	int nprot;
	int64_t prot[CAUSE_MAX_PROT];      /* lowmem_reserve[] */
	int norders;
	uint64_t nr[CAUSE_MAX_ORDERS];     /* free blocks per order */
	uint8_t types[CAUSE_MAX_ORDERS];   /* CAUSE_MT_* lists with a free block of that order; see types_known */
	int types_known;                   /* 1: types[] is exact (a dump's letters, a current pagetypeinfo);
					      0: unknown, unless no_reserve_lists says every list is usable */
	int no_reserve_lists;              /* with types unknown: the zone has no highatomic, CMA or isolated
					      pageblock, so every free block sits on a list any request may use */
};

struct cause_result {
	enum cause cause;
	int zone;                          /* index into the caller's zones of the zone that decided, -1 none */
	uint64_t free_pages;               /* that zone's NR_FREE_PAGES */
	uint64_t mark_pages;               /* the level free pages had to exceed there: min after the request's
					      cuts + lowmem_reserve + what it may not count (its lower end) */
	int largest_usable_order;          /* there: largest order with a free block the request may use, -1 none */
	int zones_used;                    /* zones in the request's walk */
	const char *why;                   /* one phrase, for logs and the store's note */
};

/* Classify a failed request against zones[0..n); local_node starts the walk (-1: the lowest node).
 * 0, or -1 on bad arguments (out then says unknown). */
int cause_classify(const struct cause_zone *zones, int n, const struct cause_request *r, struct atomic_kver v,
		   int local_node, struct cause_result *out);

/* What gfp_to_alloc_flags() reads, from a decoded flag list g and the names as printed (names[0..len): a
 * "GFP_ATOMIC" there meant __GFP_ATOMIC too before 6.3, which the decoded bits leave out). */
void cause_gfp(const struct gfp_info *g, const char *names, size_t len, struct atomic_gfp *out);

/* gfp_zone()'s zone type for the decoded flags. */
enum cause_zone_type cause_zone_type_of(const struct gfp_info *g);

/* "watermark", "fragmentation", "reserve", "unknown". */
const char *cause_name(enum cause c);

/* Parse a cause name; 0 and *out, or -1. */
int cause_parse(const char *s, size_t len, enum cause *out);

/* The zone type index of name in the kernel's zone list names[0..n) ("DMA", "DMA32", "Normal", ...), -1 if absent. */
int cause_zone_index(const char *const *names, int n, const char *name);

/* gfp_zone(): the highest zone index a request of zone_type may use with the kernel's zone list names[0..n),
 * following the kernel's fallbacks (no DMA/DMA32/HighMem zone: Normal); -1 if the list has no Normal. */
int cause_highest_index(const char *const *names, int n, enum cause_zone_type zt);

/* The highatomic reserve's cap, managed/100 + pageblock_nr_pages, rounded up to whole pageblocks, the most
 * reserve_highatomic_pageblock() lets nr_reserved_highatomic reach (pages); 0 for a bad pageblock order. */
uint64_t cause_highatomic_cap(uint64_t managed_pages, int pageblock_order);

#endif
