/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sampler: read the kernel's memory sources into a store tick.
 *
 * Fast sources every tick: /proc/buddyinfo, /proc/vmstat, /proc/meminfo and
 * /proc/zoneinfo, the last feeding analysis/atomic's watermark model per
 * zone and order.  Slow sources every --slow-interval: /proc/pagetypeinfo,
 * which walks every free list with zone->lock held and interrupts off (an
 * order of magnitude dearer than the fast ones, and more on big machines:
 * sampling it every second would perturb what we measure), and
 * /proc/slabinfo (root only).  What each costs is in bench/RESULTS.md.
 *
 * Files are kept open and re-read with pread at offset 0 (a seq_file
 * regenerates): no open/close per tick.  A source that cannot be read or
 * parsed is logged once with the reason (and once when it recovers); the
 * other sources go on, and a stale snapshot is never stored or served.
 */
#ifndef FPUSOAK_SAMPLER_H
#define FPUSOAK_SAMPLER_H

#include <stdint.h>

#include "analysis/atomic.h"

#include "collector/buddyinfo.h"
#include "collector/kv.h"
#include "collector/pagetypeinfo.h"
#include "collector/slabinfo.h"
#include "collector/zoneinfo.h"

struct sampler;
struct store;
struct store_tick;

/* Open the sources under proc_root for a kernel of this release; NULL only on allocation failure. */
struct sampler *sampler_open(const char *proc_root, const char *kernel_release);

/* Close; accepts NULL. */
void sampler_close(struct sampler *s);

/* Read and parse the fast sources into t; returns sources read OK (0..4). */
int sampler_fast(struct sampler *s, struct store *st, struct store_tick *t);

/* Read and parse pagetypeinfo and slabinfo into t; returns sources read OK (0..2). */
int sampler_slow(struct sampler *s, struct store *st, struct store_tick *t);

/* Latest good parses (NULL when the last read of that source failed). */
const struct buddyinfo *sampler_buddyinfo(const struct sampler *s);
const struct kv_set *sampler_vmstat(const struct sampler *s);
const struct kv_set *sampler_meminfo(const struct sampler *s);
const struct pagetypeinfo *sampler_pagetypeinfo(const struct sampler *s);
const struct slabinfo *sampler_slabinfo(const struct sampler *s);
const struct zoneinfo *sampler_zoneinfo(const struct sampler *s);

/* Microseconds the last fast tick spent reading and parsing. */
uint32_t sampler_last_cost_us(const struct sampler *s);

/* The last fast tick's request verdicts (v_atomic_request): bit k of each mask = order k passes
 * (kernel: by reclaim if need be); returns the orders covered, 0 when that tick had none. */
int sampler_request(const struct sampler *s, uint32_t *atomic, uint32_t *nowait, uint32_t *kernel);

/* Order of the task_struct slab (from slabinfo), or -1 before it is known. */
int sampler_task_order(const struct sampler *s);

/*
 * The model's verdict on one request right now, from the last fast tick: would the page allocator
 * give a 2^order block to req (ATOMIC_REQ_ATOMIC or ATOMIC_REQ_NOWAIT, no zone modifier)?  The same
 * zonelist walk as v_atomic_request (analysis/atomic.h atomic_request_eval).  *margin is how far the
 * request is from the threshold (free pages after the deductions minus min' + lowmem_reserve): in the
 * zone that would serve it, or when none would, the largest over the zones it may use (a zone may fail
 * with a positive margin when it has no free block of the order).  0, or -1 when zoneinfo or
 * buddyinfo is not current, the kernel release is not understood, or no zone has that order.
 */
int sampler_predict(const struct sampler *s, unsigned order, enum atomic_req req, int *ok, int64_t *margin);

#endif
