/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zoneinfo: parse /proc/zoneinfo: per node and zone, the free-page count,
 * the watermarks and the lowmem reserve ("protection") that the page
 * allocator's watermark check uses (mm/vmstat.c zoneinfo_show_print).
 *
 * Shape (6.x; older kernels lack boost/promo/cma/pcp high_min etc.):
 *   Node 0, zone   Normal
 *     per-node stats                  <- only under a node's first populated zone
 *         nr_inactive_anon 2331
 *     pages free     69250
 *           boost    0                 (5.0+)
 *           min      5678              (min/low/high/promo include boost)
 *           low      7097
 *           high     8516
 *           promo    9935              (6.x, memory tiering)
 *           spanned  5505024
 *           present  5505024
 *           managed  393216            (3.8+)
 *           cma      0                 (5.x+)
 *           protection: (0, 0, 0, 0, 0)   <- lowmem_reserve[], one per zone type
 *         nr_free_pages 69250          <- per-zone vmstat; 3.x prints these before protection
 *         ...
 *     pagesets
 *       cpu: 0
 *                 count:    5743       <- pages parked on this CPU's pcp lists
 *     ...
 *     node_unreclaimable:  0
 *     start_pfn:           1048576
 * Since 4.12 every zone is printed, populated or not ("present 0" zones stop
 * after protection); a zone's index (ZONE_DMA=0, ...) is then its position
 * within its node, which is what lowmem_reserve[] is indexed by.  Before 4.12
 * empty zones were skipped, so idx is -1 when a node lists fewer zones than
 * its protection array has entries.  nr_reserved_highatomic is not printed
 * anywhere here; derive it from pagetypeinfo's HighAtomic block count.
 * Unknown "name value" / "label: value" lines are accepted (new kernels add
 * counters); anything else is an error.
 */
#ifndef FPUSOAK_ZONEINFO_H
#define FPUSOAK_ZONEINFO_H

#include <stddef.h>
#include <stdint.h>

#include "collector/buddyinfo.h"   /* ZONE_NAME_MAX: zones are joined with buddyinfo by (node, name) */

#define ZONEINFO_MAX_ZONES 64      /* nodes x zones */
#define ZONEINFO_MAX_PROT 8        /* MAX_NR_ZONES is 2..6 */

/* Bits of zoneinfo_zone.have for fields that only some kernels print. */
enum {
	ZI_BOOST = 1 << 0,
	ZI_PROMO = 1 << 1,
	ZI_MANAGED = 1 << 2,
	ZI_CMA = 1 << 3,
	ZI_NR_FREE_PAGES = 1 << 4,
	ZI_NR_FREE_CMA = 1 << 5,
	ZI_NR_UNACCEPTED = 1 << 6,
	ZI_START_PFN = 1 << 7,
	ZI_PCP = 1 << 8,           /* at least one "cpu:" pageset with a count */
	ZI_NODE_UNRECLAIMABLE = 1 << 9,
	ZI_INACTIVE_ANON = 1 << 10,    /* nr_zone_* LRU counters (4.8+): what reclaim could free in the zone */
	ZI_ACTIVE_ANON = 1 << 11,
	ZI_INACTIVE_FILE = 1 << 12,
	ZI_ACTIVE_FILE = 1 << 13,
	ZI_LRU = ZI_INACTIVE_ANON | ZI_ACTIVE_ANON | ZI_INACTIVE_FILE | ZI_ACTIVE_FILE,
};

struct zoneinfo_zone {
	int node;
	int idx;                           /* zone type index within the node, or -1 if unknown */
	char zone[ZONE_NAME_MAX];          /* NUL-terminated, [A-Za-z0-9_] only */
	unsigned have;                     /* ZI_* bits */
	uint64_t free;                     /* "pages free": NR_FREE_PAGES as the allocator sees it */
	uint64_t boost, min, low, high, promo;
	uint64_t spanned, present, managed, cma;
	int nprot;
	int64_t protection[ZONEINFO_MAX_PROT];   /* lowmem_reserve[] (printed %ld) */
	int populated;                     /* per-zone stats were printed (present > 0) */
	uint64_t nr_free_pages, nr_free_cma, nr_unaccepted;
	uint64_t nr_zone_inactive_anon, nr_zone_active_anon, nr_zone_inactive_file, nr_zone_active_file;
	uint64_t pcp_count;                /* sum of "count:" over CPUs: free pages not in the buddy lists */
	int ncpus;                         /* pagesets seen */
	uint64_t node_unreclaimable;
	uint64_t start_pfn;
};

struct zoneinfo {
	int nzones;
	struct zoneinfo_zone z[ZONEINFO_MAX_ZONES];
};

/* Parse buf[0..len); 0 on success, -1 on malformed/truncated/over-cap input (out then undefined). */
int zoneinfo_parse(const char *buf, size_t len, struct zoneinfo *out);

/* Zone (node, name), or NULL if absent. */
const struct zoneinfo_zone *zoneinfo_find(const struct zoneinfo *zi, int node, const char *zone);

#endif
