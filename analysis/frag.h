/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * frag: the kernel's external-fragmentation indices, computed exactly as
 * mm/vmstat.c computes them (CONFIG_COMPACTION; debugfs extfrag/), from one
 * zone's free-block counts per order (a /proc/buddyinfo row).
 *
 *   fill_contig_page_info(order):  free_pages = sum free[o] << o
 *                                  free_blocks_total = sum free[o]
 *                                  free_blocks_suitable = sum_{o >= order} free[o] << (o - order)
 *   unusable_free_index:  1000 if free_pages == 0 (the kernel reads "no free
 *                         memory" as "all unusable"), else
 *                         (free_pages - (suitable << order)) * 1000 / free_pages
 *   __fragmentation_index: 0 if no free blocks; -1000 if a suitable block
 *                         exists; else 1000 - (1000 + free_pages*1000/2^order) / total.
 *                         It is not confined to [0, 1000]: one free order-2
 *                         block asked for order 3 gives 1000 - 1500 = -500.
 * Arithmetic is unsigned 64-bit with the kernel's truncating divisions and
 * the same int conversion, so values match debugfs byte for byte (the
 * oracle test checks this against the running kernel).  Orders at or past
 * the number of columns give 0, as the kernel's WARN_ON_ONCE path does.
 *
 * debugfs prints unusable_index with "%d.%03d " and extfrag_index with
 * "%2d.%03d " of (index / 1000, index % 1000), so -1000 is "-1.000" and
 * -500 comes out as " 0.-500"; frag_format_* reproduce that exactly.
 *
 * Headroom (ours, not the kernel's): how many blocks of order k could be
 * carved from the free lists, sum_{o >= k} free[o] << (o - k), saturating.
 */
#ifndef FPUSOAK_FRAG_H
#define FPUSOAK_FRAG_H

#include <stddef.h>
#include <stdint.h>

#define FRAG_MAX_ORDER 16          /* as BUDDY_MAX_ORDER */
#define FRAG_FMT_MAX 16            /* longest formatted index, with NUL */

struct frag_info {
	uint64_t free_pages;
	uint64_t free_blocks_total;
	uint64_t free_blocks_suitable;
};

/* fill_contig_page_info over free[0..norders) for suitable_order (u64, wrapping as the kernel's unsigned long). */
void frag_fill(const uint64_t *free, int norders, unsigned suitable_order, struct frag_info *out);

/* unusable_free_index(): 0..1000 (thousandths). */
int frag_unusable_index(unsigned order, const struct frag_info *info);

/* __fragmentation_index(): -1000, 0 or 1000 - ...; norders bounds order as MAX_PAGE_ORDER does. */
int frag_fragmentation_index(unsigned order, int norders, const struct frag_info *info);

/* Both indices for one order straight from the free counts. */
void frag_indices(const uint64_t *free, int norders, unsigned order, int *unusable, int *extfrag);

/* Format as debugfs unusable_index prints one value ("%d.%03d", no separator); returns out. */
const char *frag_format_unusable(int index, char *out, size_t cap);

/* Format as debugfs extfrag_index prints one value ("%2d.%03d", no separator); returns out. */
const char *frag_format_extfrag(int index, char *out, size_t cap);

/* Blocks of order k obtainable from free lists of order >= k; saturates at UINT64_MAX. */
uint64_t frag_headroom(const uint64_t *free, int norders, unsigned k);

#endif
