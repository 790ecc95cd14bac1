/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gfp: the kernel's GFP flag names, one table for every parser that meets them.
 *
 * The kernel prints a gfp mask the same way in the kernel log (warn_alloc's
 * "mode:0x%x(%pGg)") and in trace events (show_gfp_flags()): both walk
 * include/trace/events/mmflags.h's __def_gfpflag_names in order, print the
 * name of every entry whose bits are all still set, clear them, and print
 * what is left as hex ("GFP_KERNEL|__GFP_COMP|0x1000000"); 0 is "none".
 *
 * The numeric values of the bits move between kernels (__GFP_ATOMIC went away
 * in 6.3; since 6.10 bits are numbered by an enum that depends on the config),
 * the names and what they mean do not.  So this table gives each name its
 * meaning as version-independent bits (enum gfp_bit), which is what the
 * questions need: may the request sleep, did it ask for no warning, is it an
 * attempt the caller expects to fail.  The kernel-specific numbers, where they
 * are needed, come from the running kernel itself: an event's tracefs "format"
 * file carries the table with its values (gfp_table_parse_format).
 *
 * Classes (gfp_class):
 *   OPPORTUNISTIC  __GFP_NOWARN with __GFP_NORETRY or __GFP_NOMEMALLOC: an
 *                  attempt the caller retries smaller or elsewhere (SLUB's first
 *                  try at a slab's preferred order, transparent huge pages,
 *                  page_frag refills, kvmalloc's kmalloc try);
 *   ATOMIC         otherwise, no __GFP_DIRECT_RECLAIM: it could not sleep
 *                  (GFP_ATOMIC, GFP_NOWAIT, network receive with __GFP_NOWARN);
 *   SLEEPING       otherwise: it could reclaim and compact before failing.
 */
#ifndef FPUSOAK_GFP_H
#define FPUSOAK_GFP_H

#include <stddef.h>
#include <stdint.h>

/* What a flag means, independent of the kernel's numbering. */
enum gfp_bit {
	GFPB_DMA, GFPB_HIGHMEM, GFPB_DMA32, GFPB_MOVABLE, GFPB_RECLAIMABLE,
	GFPB_HIGH, GFPB_IO, GFPB_FS, GFPB_ZERO, GFPB_ATOMIC,
	GFPB_DIRECT_RECLAIM, GFPB_KSWAPD_RECLAIM, GFPB_WRITE, GFPB_NOWARN, GFPB_RETRY_MAYFAIL,
	GFPB_NOFAIL, GFPB_NORETRY, GFPB_MEMALLOC, GFPB_COMP, GFPB_NOMEMALLOC,
	GFPB_HARDWALL, GFPB_THISNODE, GFPB_ACCOUNT, GFPB_ZEROTAGS, GFPB_SKIP_ZERO,
	GFPB_SKIP_KASAN, GFPB_NOLOCKDEP, GFPB_NO_OBJ_EXT, GFPB_SENSITIVE, GFPB_COLD,
	GFPB_NOTRACK, GFPB_OTHER_NODE,
	GFPB_COUNT
};

#define GFPB(b) (UINT64_C(1) << (b))

enum gfp_class {
	GFP_CLASS_SLEEPING = 0,
	GFP_CLASS_ATOMIC,
	GFP_CLASS_OPPORTUNISTIC,
};

/* A printed flag list, decoded. */
struct gfp_info {
	uint64_t bits;      /* GFPB() of every named flag, composites expanded */
	uint64_t leftover;  /* the trailing "0x..." the kernel prints for bits it has no name for */
	int unknown;        /* names not in the table (a newer or older kernel's); their meaning is missing */
	int names;          /* names read, "none" excluded */
};

/* Decode "GFP_KERNEL|__GFP_NOWARN|0x4" or "none" from s[0..len); 0, or -1 on bad syntax or empty input (out reset). */
int gfp_decode(const char *s, size_t len, struct gfp_info *out);

/* The request could not sleep (no __GFP_DIRECT_RECLAIM). */
int gfp_is_atomic(const struct gfp_info *g);

/* __GFP_NOWARN: warn_alloc stays silent, so only a trace sees the failure. */
int gfp_is_nowarn(const struct gfp_info *g);

/* An attempt the caller expects may fail and retries lower (see the header comment). */
int gfp_is_opportunistic(const struct gfp_info *g);

/* OPPORTUNISTIC, else ATOMIC, else SLEEPING. */
enum gfp_class gfp_classify(const struct gfp_info *g);

/* "sleeping", "atomic", "opportunistic". */
const char *gfp_class_name(enum gfp_class c);

/* ---- the running kernel's numbers, from a tracefs event "format" file ---- */

#define GFP_TABLE_MAX 64
#define GFP_NAME_MAX 40

struct gfp_table {
	int n;
	struct {
		char name[GFP_NAME_MAX + 1];
		uint64_t mask;
	} e[GFP_TABLE_MAX];
};

/* Read the {mask, "NAME"} pairs of the first __print_flags(REC->gfp_flags, ...) in a format file buf[0..len);
 * 0 (at least one pair), -1 if there is none or it does not parse.  Pairs whose value is not a constant
 * expression (an enum the kernel did not substitute) are left out. */
int gfp_table_parse_format(const char *buf, size_t len, struct gfp_table *out);

/* The kernel mask that printed as s[0..len) under table t; 0, or -1 if a name is not in t or the syntax is bad. */
int gfp_table_mask(const struct gfp_table *t, const char *s, size_t len, uint64_t *mask);

#endif
