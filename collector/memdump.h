/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memdump: the Mem-Info dump that follows a "page allocation failure" in the
 * kernel log (warn_alloc -> show_mem / __show_mem -> show_free_areas, mm/
 * page_alloc.c until 6.1, mm/show_mem.c since 6.2), read one log line at a
 * time: per zone the watermarks and free pages, lowmem_reserve[], and the
 * free blocks per order with the migrate types that have one.
 *
 * The lines used (4.x .. 6.x; "Node N " only with CONFIG_NUMA):
 *   Mem-Info:
 *   [Node N ]NAME free:XkB [boost:XkB ]min:XkB low:XkB high:XkB
 *        [reserved_highatomic:XKB ]... [managed:XkB ]... [free_cma:XkB]
 *   lowmem_reserve[]: R0 R1 ... (pages, one per zone type, MAX_NR_ZONES)
 *   [Node N ]NAME: C0*4kB (UME) C1*8kB (M) ... Cn*4096kB = TkB
 *   N total pagecache pages          <- the end of the zone part
 * Every [key:value] field the kernel adds or drops between versions is
 * optional except free, min, low and high; boost (5.x+) and
 * reserved_highatomic (5.x+) are kept with a bit in .have saying they were
 * printed.  The letters are show_migration_types'(): U unmovable, M movable,
 * E reclaimable, H highatomic, C CMA, I isolate, R the pre-4.4 reserve; a
 * count of 0 prints none.  kB throughout, as printed; lowmem_reserve in pages.
 *
 * The log is not the kernel's buffer: a printk continuation (KERN_CONT)
 * becomes its own record when another CPU printed in between, so "Node 0 "
 * may arrive alone and the rest of the line in the next record, a
 * lowmem_reserve[] may come one number per record, and a buddy line in
 * pieces.  Pieces are joined in arrival order; any line the dump does not
 * know (another CPU's) is skipped without breaking a join.  A buddy line is
 * accepted only when its sizes run 1, 2, 4 ... pages and its "= TkB" equals
 * the sum of its blocks: a piece lost or misjoined fails that check.  The
 * same zone printed twice with other numbers (two CPUs dumping at once) marks
 * the dump CONFLICT; its numbers are then not to be trusted.
 * Pure: no I/O, no allocation; fuzzed (tests/fuzz/fuzz_memdump.c).
 */
#ifndef FPUSOAK_MEMDUMP_H
#define FPUSOAK_MEMDUMP_H

#include <stddef.h>
#include <stdint.h>

#include "collector/buddyinfo.h"   /* ZONE_NAME_MAX */

#define MEMDUMP_MAX_ZONES 32       /* nodes x zones printed in one dump */
#define MEMDUMP_MAX_ORDERS 16      /* as BUDDY_MAX_ORDER */
#define MEMDUMP_MAX_PROT 8         /* lowmem_reserve[] entries (MAX_NR_ZONES is 2..6) */
#define MEMDUMP_LINE_MAX 4096      /* a longer line is not one of ours */

/* Migrate types of show_migration_types(), as bits. */
enum {
	MEMDUMP_MT_U = 1 << 0,     /* unmovable */
	MEMDUMP_MT_M = 1 << 1,     /* movable */
	MEMDUMP_MT_E = 1 << 2,     /* reclaimable */
	MEMDUMP_MT_H = 1 << 3,     /* highatomic reserve */
	MEMDUMP_MT_C = 1 << 4,     /* CMA */
	MEMDUMP_MT_I = 1 << 5,     /* isolated */
	MEMDUMP_MT_R = 1 << 6,     /* MIGRATE_RESERVE (before 4.4) */
};

/* What a zone's lines gave (memdump_zone.have). */
enum {
	MEMDUMP_WMARK = 1 << 0,        /* the zone line: free, min, low, high */
	MEMDUMP_BOOST = 1 << 1,        /* boost: printed */
	MEMDUMP_HIGHATOMIC = 1 << 2,   /* reserved_highatomic: printed */
	MEMDUMP_FREE_CMA = 1 << 3,
	MEMDUMP_MANAGED = 1 << 4,
	MEMDUMP_PROT = 1 << 5,         /* lowmem_reserve[] with at least one entry */
	MEMDUMP_BUDDY = 1 << 6,        /* a buddy line whose total checked out */
};

/* Dump-wide flags (memdump.flags). */
enum {
	MEMDUMP_HEADER = 1 << 0,       /* "Mem-Info:" seen */
	MEMDUMP_ENDED = 1 << 1,        /* the line after the zone part seen */
	MEMDUMP_CONFLICT = 1 << 2,     /* a zone printed twice with different numbers */
	MEMDUMP_BAD = 1 << 3,          /* a zone or buddy line that looked like one and did not parse or add up */
	MEMDUMP_FULL = 1 << 4,         /* more zones than MEMDUMP_MAX_ZONES */
};

enum memdump_line {
	MEMDUMP_LINE_OTHER = 0,        /* not part of a dump (or past its end) */
	MEMDUMP_LINE_USED = 1,         /* a dump line, taken */
	MEMDUMP_LINE_END = 2,          /* the dump's zone part is over (this line, or a second "Mem-Info:") */
};

struct memdump_zone {
	int node;                          /* -1: printed without "Node N" (no CONFIG_NUMA) */
	char name[ZONE_NAME_MAX];          /* [A-Za-z0-9_], NUL-terminated */
	unsigned have;                     /* MEMDUMP_WMARK ... */
	uint64_t free_kb, boost_kb, min_kb, low_kb, high_kb;
	uint64_t reserved_highatomic_kb, free_cma_kb, managed_kb;
	int nprot;
	int64_t prot[MEMDUMP_MAX_PROT];    /* lowmem_reserve[], pages */
	int norders;                       /* buddy columns */
	uint64_t nr[MEMDUMP_MAX_ORDERS];   /* free blocks per order */
	uint8_t types[MEMDUMP_MAX_ORDERS]; /* MEMDUMP_MT_* letters after the count; 0 when none printed */
	uint64_t total_kb;                 /* the buddy line's "= TkB" */
	uint64_t page_kb;                  /* the order-0 block size ("4kB"), 0 before the buddy line */
};

struct memdump {
	unsigned flags;                    /* MEMDUMP_HEADER ... */
	int nzones;
	struct memdump_zone z[MEMDUMP_MAX_ZONES];
	int lines_used, lines_other;
	/* joining state: what the last dump line left open */
	int pending_node;                  /* "Node N " alone: the node of the next zone or buddy line; -1 none */
	int open;                          /* 0 none, 1 lowmem_reserve[] numbers, 2 a buddy line */
	int open_zone;                     /* index into z of the open line */
	int wmark_zone;                    /* the zone whose lowmem_reserve[] comes next; -1 none, -2 a repeat's */
	int buddy_order;                   /* next order the open buddy line expects */
	uint64_t buddy_sum_kb;             /* sum of its blocks so far */
};

/* Start an empty dump. */
void memdump_init(struct memdump *d);

/* Feed one log line (message text, no '\n', no timestamp prefix) line[0..len); enum memdump_line. */
int memdump_feed(struct memdump *d, const char *line, size_t len);

/* 1 when every zone printed has its zone line, lowmem_reserve[] (all of one length) and a buddy line that
 * added up, at least one zone was printed, and the dump is neither CONFLICT nor BAD; else 0. */
int memdump_complete(const struct memdump *d);

/* Feed every '\n'-separated line of buf[0..len) (a last line without '\n' too) until the dump ends;
 * 0 when the result is complete (memdump_complete), -1 otherwise (out holds what was read). */
int memdump_parse(const char *buf, size_t len, struct memdump *out);

/* The zone (node, name), node -1 for a dump printed without nodes; NULL if absent. */
const struct memdump_zone *memdump_find(const struct memdump *d, int node, const char *name);

/* Letters of a migrate-type set as the kernel prints them ("UME"), into out (>= 8 bytes); returns out. */
const char *memdump_types_str(uint8_t types, char *out, size_t cap);

#endif
