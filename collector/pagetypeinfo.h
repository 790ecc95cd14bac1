/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pagetypeinfo: parse /proc/pagetypeinfo (free blocks per migratetype and
 * order, and pageblocks per migratetype).
 *
 * Cost: the kernel walks every free list with zone->lock held and IRQs
 * off to produce this file, so it is sampled rarely (the slow timer), not
 * every tick.  For the same reason it caps each count: a list with 100000
 * or more entries prints as ">100000" (mm/vmstat.c since 5.4).  Such cells
 * keep the capped flag so a lower bound never passes for an exact value.
 *
 * Layout, printed once per node with memory (mm/vmstat.c pagetypeinfo_show):
 *   Page block order: 9
 *   Pages per block:  512
 *
 *   Free pages count per migrate type at order       0      1 ...
 *   Node    0, zone      DMA, type    Unmovable      0      0 ...
 *
 *   Number of blocks type     Unmovable      Movable ...
 *   Node 0, zone      DMA            1            7 ...
 *  [Number of mixed blocks ... (CONFIG_PAGE_OWNER, same shape as above)]
 *
 * Migratetype names come from the file (free-table rows and the blocks
 * header), never from a fixed list: they vary with CONFIG_CMA,
 * CONFIG_MEMORY_ISOLATION and kernel version.  Both tables use one type
 * index space, p->type[t].  Order columns come from the free header.
 * Each node's block must be complete: every zone has a free row for every
 * type and one blocks row (and a mixed row when that table is printed).
 */
#ifndef FPUSOAK_PAGETYPEINFO_H
#define FPUSOAK_PAGETYPEINFO_H

#include <stddef.h>
#include <stdint.h>

#include "collector/buddyinfo.h"    /* ZONE_NAME_MAX: the same zones are joined by name */

#define PAGETYPEINFO_MAX_ORDER 16      /* as BUDDY_MAX_ORDER */
#define PAGETYPEINFO_MAX_TYPES 8       /* MIGRATE_TYPES is 4..6 in practice (+Reserve/Mirror in old kernels) */
#define PAGETYPEINFO_MAX_ZONES 64      /* nodes x zones */
#define PAGETYPEINFO_TYPE_NAME_MAX 16  /* incl. NUL; [A-Za-z0-9_] only */

struct pagetypeinfo_zone {
	int node;
	char zone[ZONE_NAME_MAX];          /* NUL-terminated, [A-Za-z0-9_] only */
	uint64_t free[PAGETYPEINFO_MAX_TYPES][PAGETYPEINFO_MAX_ORDER];   /* free blocks [type][order] */
	uint8_t capped[PAGETYPEINFO_MAX_TYPES][PAGETYPEINFO_MAX_ORDER];  /* 1: printed ">N", free is a lower bound */
	uint64_t blocks[PAGETYPEINFO_MAX_TYPES];  /* pageblocks per type ("Number of blocks type") */
	uint64_t mixed[PAGETYPEINFO_MAX_TYPES];   /* "Number of mixed blocks", valid if has_mixed */
	int has_mixed;
};

struct pagetypeinfo {
	int pageblock_order;               /* "Page block order:", same for every node */
	uint64_t pages_per_block;          /* "Pages per block:", == 1 << pageblock_order */
	int norders;                       /* order columns of the free table */
	int ntypes;
	char type[PAGETYPEINFO_MAX_TYPES][PAGETYPEINFO_TYPE_NAME_MAX];  /* migratetype names, first-seen order */
	int nzones;
	struct pagetypeinfo_zone z[PAGETYPEINFO_MAX_ZONES];
};

/* Parse buf[0..len); 0 on success, -1 on malformed/truncated/over-cap input (out then undefined). */
int pagetypeinfo_parse(const char *buf, size_t len, struct pagetypeinfo *out);

/* Index of migratetype name in p->type, or -1 if the file did not name it. */
int pagetypeinfo_type_index(const struct pagetypeinfo *p, const char *name);

/* Zone (node, name), or NULL if absent. */
const struct pagetypeinfo_zone *pagetypeinfo_find_zone(const struct pagetypeinfo *p, int node, const char *zone);

#endif
