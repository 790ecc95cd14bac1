/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * slabinfo: parse /proc/slabinfo, format version 2.1.
 *
 * One line per slab cache (mm/slab_common.c cache_show):
 *   name active_objs num_objs objsize objperslab pagesperslab
 *     : tunables limit batchcount sharedfactor
 *     : slabdata active_slabs num_slabs sharedavail [: more stats (SLAB debug)]
 * pagesperslab is printed as 1 << order, so the slab order is its log2;
 * a cache with order > 0 needs a contiguous high-order allocation for every
 * new slab, which is what ties slab growth to fragmentation.
 *
 * The file is root-only (0400).  Names are kept as printed (any visible
 * ASCII, no blanks, at most 64 chars).  Names are not unique in general
 * (kmem_cache_create does not enforce it); slabinfo_find returns the first.
 */
#ifndef FPUSOAK_SLABINFO_H
#define FPUSOAK_SLABINFO_H

#include <stddef.h>
#include <stdint.h>

#define SLABINFO_MAX 1024        /* caches per snapshot; ~240 on a small guest */
#define SLABINFO_NAME_MAX 65     /* 64 chars + NUL */

struct slabinfo_cache {
	char name[SLABINFO_NAME_MAX];  /* NUL-terminated, [!-~] only */
	int order;                     /* log2(pagesperslab) */
	uint64_t active_objs;
	uint64_t num_objs;
	uint64_t objsize;              /* bytes per object, incl. metadata */
	uint64_t objperslab;
	uint64_t pagesperslab;         /* a power of two */
	uint64_t active_slabs;
	uint64_t num_slabs;
};

struct slabinfo {
	int n;
	struct slabinfo_cache c[SLABINFO_MAX];
};

/* Parse buf[0..len); 0 on success, -1 on malformed/truncated/over-cap input or another version (out then undefined). */
int slabinfo_parse(const char *buf, size_t len, struct slabinfo *out);

/* First cache called name, or NULL.  Linear. */
const struct slabinfo_cache *slabinfo_find(const struct slabinfo *s, const char *name);

#endif
