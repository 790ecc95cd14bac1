/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rollup: the minute and hour buckets of the per-tick series, accumulated
 * in memory as ticks are submitted.  Pure: no SQL, no I/O; rollup_write.c writes
 * what it emits.
 *
 * Computing a bucket from the values already in hand costs ~1 us per zone
 * per tick; re-reading the bucket's raw rows through v_frag_x1000 cost
 * 7-11 ms per minute and a second transaction (bench/RESULTS.md).
 * Per (zone, order): free blocks and headroom (min, max, sum, last), the
 * worst unusable index (the kernel's integer), and the atomic-risk verdicts
 * (ticks, GFP_ATOMIC failures, failures GFP_KERNEL would pass, GFP_KERNEL
 * failures, smallest margins).  Per bucket: tick count, sample cost, the
 * meminfo fields, the churn counts (store/fields.h), and the trace's failed
 * allocations (by order and class) and fallbacks over the ticks that carried it.
 */
#ifndef FPUSOAK_ROLLUP_H
#define FPUSOAK_ROLLUP_H

#include <stdint.h>

#include "store/fields.h"

#define ROLLUP_MAX_ORDER 16
#define ROLLUP_MAX_ZONES 256

struct rollup_zo {
	int64_t n, free_min, free_max, free_sum, free_last, head_min, head_max, head_sum, head_last;
	int64_t unusable_max;
	int64_t atomic_n, atomic_fail_n, atomic_only_n, kernel_fail_n;
	int64_t margin_min, kernel_margin_min;     /* valid when has_margin */
	int has_margin;
};

struct rollup_zone {
	int norders;
	struct rollup_zo o[ROLLUP_MAX_ORDER];
};

/* Failure classes of the trace (store's trace_class: 0 sleeping, 1 atomic, 2 opportunistic). */
#define ROLLUP_TRACE_CLASSES 3
/* Classified failures: sources 1..3 (kmsg, trace, module) and causes 0..3 (analysis/cause.h). */
#define ROLLUP_CAUSE_SOURCES 3
#define ROLLUP_CAUSES 4

struct rollup_ticks {
	int64_t n, us_sum;
	int64_t first_ms, last_ms;                   /* the bucket's first and last tick (valid when n > 0) */
	int64_t mem_sum[STORE_NMEMINFO], mem_n[STORE_NMEMINFO];
	int64_t churn_n, pop_max, churn_sum[STORE_NCHURN];
	/* The request per order (schema 7): ticks with a verdict, failures, failures where GFP_KERNEL passes. */
	int64_t req_n[ROLLUP_MAX_ORDER], req_afail[ROLLUP_MAX_ORDER], req_nfail[ROLLUP_MAX_ORDER];
	int64_t req_kfail[ROLLUP_MAX_ORDER], req_aonly[ROLLUP_MAX_ORDER], req_nonly[ROLLUP_MAX_ORDER];
	/* ticks that carried the trace (tracefs on), their failed allocations and fallbacks */
	int64_t trace_n, trace_fail, trace_xf, trace_frag;
	int64_t trace_fail_oc[ROLLUP_MAX_ORDER][ROLLUP_TRACE_CLASSES];   /* by order (15: 15 and above) and class */
	/* classified failures (schema 14) by source (kmsg, trace, module), cause and order */
	int64_t cause_n[ROLLUP_CAUSE_SOURCES][ROLLUP_CAUSES][ROLLUP_MAX_ORDER];
};

/* One bucket of one tier being filled. */
struct rollup_bucket {
	int64_t run_id, bucket_ms;
	int active;                                  /* has any tick */
	struct rollup_zone *z[ROLLUP_MAX_ZONES];     /* by zone_id, allocated on first use */
	struct rollup_ticks t;
};

/* Start bucket (run_id, bucket_ms), emptying what it held (keeps zone allocations). */
void rollup_reset(struct rollup_bucket *b, int64_t run_id, int64_t bucket_ms);

/* Free the zone allocations; the bucket is then empty and inactive. */
void rollup_free(struct rollup_bucket *b);

/* Account one tick at ts_ms: mem[k] valid when bit k of mem_mask; churn NULL when churn was off. */
void rollup_add_tick(struct rollup_bucket *b, int64_t ts_ms, uint32_t sample_us, const int64_t *mem,
		     uint32_t mem_mask, const int64_t *churn);

/* Account the tick's request verdicts (bit k of each mask: order k passes) for orders 0..norders-1. */
void rollup_add_request(struct rollup_bucket *b, int norders, uint32_t atomic_mask, uint32_t nowait_mask,
			uint32_t kernel_mask);

/* Account one tick that carried the trace: its fallbacks and the fragmenting ones (failures: rollup_add_trace_failure). */
void rollup_add_trace(struct rollup_bucket *b, int64_t fallbacks, int64_t fragmenting);

/* Account one failed allocation the trace saw: its order (15 counts 15 and above) and class. */
void rollup_add_trace_failure(struct rollup_bucket *b, int order, int cls);

/* Account one classified failure: source 1..3, cause 0..3, order (15 counts 15 and above); out of range: nothing. */
void rollup_add_failure_cause(struct rollup_bucket *b, int source, int cause, int order);

/* Account one zone's buddyinfo row of the tick; -1 (nothing counted) on a bad zone id or allocation failure. */
int rollup_add_buddy(struct rollup_bucket *b, int zone_id, int norders, const uint64_t *free);

/* Account one zone's atomic-risk verdicts of the tick (bit k = order k passes); -1 as above. */
int rollup_add_atomic(struct rollup_bucket *b, int zone_id, int norders, uint32_t atomic_mask, uint32_t kernel_mask,
		      int64_t margin0, int64_t kernel_margin0, int legacy);

/* Merge src (a complete earlier-or-equal bucket, e.g. a minute) into dst (e.g. its hour); 0 or -1. */
int rollup_merge(struct rollup_bucket *dst, const struct rollup_bucket *src);

#endif
