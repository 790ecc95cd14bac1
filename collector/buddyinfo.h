/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * buddyinfo: parse /proc/buddyinfo.
 *
 * "Node 0, zone   Normal    385    128 ..." — one line per populated zone,
 * one column per order.  The order count comes from the columns (11 on
 * x86_64, 14 on arm64 with 64K pages), never assumed; every line of one
 * snapshot must have the same count.
 */
#ifndef FPUSOAK_BUDDYINFO_H
#define FPUSOAK_BUDDYINFO_H

#include <stddef.h>
#include <stdint.h>

#define BUDDY_MAX_ORDER 16   /* orders 0..15; MAX_PAGE_ORDER+1 is 11..14 in practice */
#define BUDDY_MAX_ZONES 64   /* nodes x zones */
#define ZONE_NAME_MAX 16

struct buddy_zone {
	int node;
	char zone[ZONE_NAME_MAX];          /* NUL-terminated, [A-Za-z0-9_] only */
	uint64_t free[BUDDY_MAX_ORDER];    /* free blocks per order */
};

struct buddyinfo {
	int nzones;
	int norders;                       /* columns per line, same for all lines */
	struct buddy_zone z[BUDDY_MAX_ZONES];
};

/* Parse buf[0..len); 0 on success, -1 on malformed/truncated/over-cap input (out then undefined). */
int buddyinfo_parse(const char *buf, size_t len, struct buddyinfo *out);

/* Free pages in zone z: sum(free[k] << k). */
uint64_t buddyinfo_free_pages(const struct buddy_zone *z, int norders);

#endif
