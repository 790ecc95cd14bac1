/* SPDX-License-Identifier: GPL-2.0-only */
/* frag: mm/vmstat.c fragmentation indices, bit-for-bit; see frag.h. */
#include "analysis/frag.h"

#include <stdio.h>

/* The kernel returns these u64 expressions through an int; keep its low 32 bits the same way. */
static int to_int(uint64_t v)
{
	return (int)(int32_t)(uint32_t)v;
}

static int clamp_orders(int norders)
{
	if (norders < 0)
		return 0;
	return norders > FRAG_MAX_ORDER ? FRAG_MAX_ORDER : norders;
}

void frag_fill(const uint64_t *free, int norders, unsigned suitable_order, struct frag_info *out)
{
	norders = clamp_orders(norders);
	out->free_pages = 0;
	out->free_blocks_total = 0;
	out->free_blocks_suitable = 0;
	for (unsigned o = 0; o < (unsigned)norders; o++) {
		uint64_t blocks = free[o];

		out->free_blocks_total += blocks;
		out->free_pages += blocks << o;
		if (o >= suitable_order)
			out->free_blocks_suitable += blocks << (o - suitable_order);
	}
}

int frag_unusable_index(unsigned order, const struct frag_info *info)
{
	if (info->free_pages == 0)
		return 1000;
	if (order >= 64)
		return to_int((info->free_pages * 1000ULL) / info->free_pages);
	return to_int(((info->free_pages - (info->free_blocks_suitable << order)) * 1000ULL) /
		      info->free_pages);
}

int frag_fragmentation_index(unsigned order, int norders, const struct frag_info *info)
{
	uint64_t requested;

	/* WARN_ON_ONCE(order > MAX_PAGE_ORDER): the kernel has norders = MAX_PAGE_ORDER + 1 columns. */
	if (order >= (unsigned)clamp_orders(norders))
		return 0;
	if (!info->free_blocks_total)
		return 0;
	if (info->free_blocks_suitable)
		return -1000;
	requested = 1ULL << order;
	return to_int(1000 - (1000 + info->free_pages * 1000ULL / requested) / info->free_blocks_total);
}

void frag_indices(const uint64_t *free, int norders, unsigned order, int *unusable, int *extfrag)
{
	struct frag_info info;

	frag_fill(free, norders, order, &info);
	if (unusable)
		*unusable = frag_unusable_index(order, &info);
	if (extfrag)
		*extfrag = frag_fragmentation_index(order, norders, &info);
}

const char *frag_format_unusable(int index, char *out, size_t cap)
{
	snprintf(out, cap, "%d.%03d", index / 1000, index % 1000);
	return out;
}

const char *frag_format_extfrag(int index, char *out, size_t cap)
{
	snprintf(out, cap, "%2d.%03d", index / 1000, index % 1000);
	return out;
}

uint64_t frag_headroom(const uint64_t *free, int norders, unsigned k)
{
	uint64_t sum = 0;

	norders = clamp_orders(norders);
	for (unsigned o = k; o < (unsigned)norders; o++) {
		unsigned sh = o - k;

		if (free[o] > (UINT64_MAX >> sh) || (free[o] << sh) > UINT64_MAX - sum)
			return UINT64_MAX;
		sum += free[o] << sh;
	}
	return sum;
}
