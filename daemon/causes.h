/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * causes: the cause of each failed allocation the daemon sees
 * (analysis/cause.h), judged against the zone state closest to it:
 *   - a kernel-log report: the Mem-Info dump the kernel printed with it
 *     (collector/memdump.h), exact, lag 0;
 *   - a trace failure or a module refusal: the nearest of the last
 *     CAUSES_RING zoneinfo + buddyinfo samples (pagetypeinfo, read at the slow
 *     interval, adds the highatomic reserve and whether any pageblock is
 *     highatomic, CMA or isolated), if it is at most CAUSES_MAX_LAG_MS away;
 *     the signed lag (failure minus sample) is stored.  Farther: unknown.
 * The zone layout (which index each zone name has: lowmem_reserve[] is
 * indexed by it) comes from zoneinfo, which prints every zone since 4.12.
 * It also counts what it classified, by source, cause and order (/metrics).
 */
#ifndef FPUSOAK_CAUSES_H
#define FPUSOAK_CAUSES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cause.h"
#include "collector/buddyinfo.h"
#include "collector/gfp.h"
#include "collector/memdump.h"
#include "collector/pagetypeinfo.h"
#include "collector/zoneinfo.h"

#define CAUSES_MAX_LAG_MS 1000     /* a sample farther from the failure than this says nothing about it */
#define CAUSES_RING 4              /* samples kept: the sample interval is 1 s by default */
#define CAUSES_ORDERS 16           /* counted orders; 15 counts 15 and above */
#define CAUSES_LAYOUT_MAX 8        /* zone types (MAX_NR_ZONES is 2..6) */

enum causes_source { CAUSES_KMSG = 1, CAUSES_TRACE = 2, CAUSES_MODULE = 3 };
#define CAUSES_SOURCES 3

struct causes;
struct sampler;
struct store_tick;
struct tracewatch_failure;

/* One classified failure, as the store keeps it (store_tick_failure_cause). */
struct causes_row {
	int64_t ts_ms;
	int source;                    /* enum causes_source */
	int order;
	enum cause cause;
	char zone[ZONE_NAME_MAX];      /* the zone that decided; "" none */
	int node;                      /* its node, -1 none or not printed */
	int64_t free_kb, min_kb;       /* -1: no zone */
	int largest_order;             /* -1: none (or no zone) */
	int has_lag;
	int64_t lag_ms;                /* failure minus the state's time; 0 for a dump */
	const char *note;              /* static text: why, or what the state was */
};

/* Set up for a kernel of this release (uname -r); NULL only when out of memory. */
struct causes *causes_open(const char *kernel_release);

/* Free; accepts NULL. */
void causes_close(struct causes *c);

/* After a fast tick read at wall_ms: keep its zone state (nothing when zoneinfo or buddyinfo is not current). */
void causes_snapshot(struct causes *c, const struct sampler *s, int64_t wall_ms);

/* Keep zones z[0..n) with the kernel's zone list names[0..nnames) as the state at wall_ms (what
 * causes_snapshot does with a sampler's files; tests feed it directly). */
void causes_add_snapshot(struct causes *c, const struct cause_zone *z, int n, const char *const *names, int nnames,
			 int64_t wall_ms);

/* A kernel-log failure with its dump (d NULL or incomplete: unknown); gfp as the line printed it. */
void causes_from_dump(struct causes *c, const struct memdump *d, int64_t ts_ms, unsigned order,
		      const struct gfp_info *gfp, const char *names, size_t len, struct causes_row *out);

/* A failure at ts_ms of an order-k request g for zone type zt, against the nearest sample; source as given. */
void causes_from_sample(struct causes *c, int source, int64_t ts_ms, unsigned order, const struct atomic_gfp *g,
			enum cause_zone_type zt, struct causes_row *out);

/* Classify the trace's failures f[0..n) against the nearest samples and attach them to t (and count them);
 * 0 or -1 (out of memory: the rest are not stored). */
int causes_trace(struct causes *c, const struct tracewatch_failure *f, int n, struct store_tick *t);

/* A refusal of the fpusoak_gfp module at ts_ms: what ("TRY" or "HOLD") in mode (kmod/fpusoak_gfp.h: 1 kernel,
 * 2 atomic, 3 nowait) of order-k pages, by pid (-1: none; the daemon's own for a TRY); classified against the
 * nearest sample, attached to t and counted; 0 or -1. */
int causes_module(struct causes *c, int64_t ts_ms, const char *what, int mode, unsigned order, int64_t pid,
		  struct store_tick *t);

/* Count a row for causes_counts (the caller counts what it stores). */
void causes_count(struct causes *c, const struct causes_row *r);

/* Rows counted since open: [source - 1][cause][order]. */
const uint64_t (*causes_counts(const struct causes *c))[CAUSE_COUNT][CAUSES_ORDERS];

/* ---- pure conversions (unit-tested) ---- */

/* The kernel's zone list by type index, from zoneinfo (its first node; 4.12+ prints every zone): names[i]
 * points into zi; count, 0 when zoneinfo does not give whole indices. */
int causes_layout(const struct zoneinfo *zi, const char **names, int cap);

/* A complete dump's zones for cause_classify: index from names[0..nnames), kB to pages, the highatomic reserve
 * as printed, else [a pageblock if any free list is H, the kernel's cap] (pageblock_order -1: unknown, [0, free]);
 * count, or -1 (incomplete dump, a zone not in the layout, more than cap zones). */
int causes_dump_zones(const struct memdump *d, const char *const *names, int nnames, int pageblock_order,
		      struct cause_zone *out, int cap);

/* The populated zones of one sample for cause_classify (pt NULL or stale: the reserve and types unknown);
 * count, or -1 when zoneinfo has no index for a zone. */
int causes_sample_zones(const struct zoneinfo *zi, const struct buddyinfo *bi, const struct pagetypeinfo *pt,
			struct cause_zone *out, int cap);

#endif
