/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gfplink: the daemon's side of the optional fpusoak_gfp module (kmod/, churn/gfpmod.h).
 *
 * At start it looks for /dev/fpusoak_gfp once.  Without it (the normal case)
 * one line says so, the run records "off (module not loaded)", and nothing
 * else changes: workers do not HOLD and there are no model checks.  With it,
 * --gfp-mode is handed to the churn engine as asked, and every
 * --model-check-interval (10s by default) the daemon asks the allocator
 * directly: at each order of interest it TRYs a GFP_ATOMIC and a GFP_NOWAIT
 * allocation, right after the tick's zoneinfo and buddyinfo were read, and
 * stores the answer beside the watermark model's prediction for that tick
 * (sampler_predict): v_model_check.
 *
 * Never GFP_KERNEL: a sleeping request reclaims and compacts when it cannot
 * be met, changing the fragmentation being measured; the model's kernel_ok
 * is about the check before reclaim, which a TRY could not isolate anyway.
 * The non-sleeping TRYs are made without waking kswapd (gfp_try), for the
 * same reason.  A TRY that succeeds holds its block for microseconds.
 *
 * Orders of interest here: the task_struct slab's order (3 until slabinfo
 * says), the pageblock order (once pagetypeinfo was read), the order of
 * the module's own fpusoak_xstate slabs (what a HOLD asks for first when its
 * slab is full) and the smallest order such a slab can have (what a refused
 * HOLD was refused: SLUB falls back to it; gfplink_hold_order), each once.
 * A refused TRY is a failed allocation: its cause is recorded
 * (daemon/causes.h, v_failure_causes source 'module').
 */
#ifndef FPUSOAK_GFPLINK_H
#define FPUSOAK_GFPLINK_H

#include <stdint.h>

#include "daemon/config.h"

struct causes;
struct gfplink;
struct sampler;
struct store;
struct store_tick;

#define GFPLINK_MAX_ORDERS 4

/* One model check: the model's prediction and the allocator's answer for one order and mode. */
struct gfplink_check {
	int64_t ts_ms;               /* the tick the prediction was made from */
	int order;
	int mode;                    /* GFP_MODE_ATOMIC or GFP_MODE_NOWAIT */
	int predicted_ok, actual_ok;
	int64_t margin_pages;        /* sampler_predict's margin */
	uint64_t duration_ns;        /* what the TRY took in the allocator */
	int64_t try_ms;              /* wall clock right after the TRY */
};

/* Look for the module (nothing logged yet: see gfplink_announce); NULL only when out of memory. */
struct gfplink *gfplink_open(const struct config *cfg);

/* Log the one start-up line (module found and the mode in force, or not loaded); accepts NULL.  Called
 * once start-up cannot be refused any more, so a refusal (exit 78, 43_startup) stays a single line. */
void gfplink_announce(const struct gfplink *g);

/* Close the device and log the checks' totals; accepts NULL. */
void gfplink_close(struct gfplink *g);

/* The --gfp-mode in force (enum gfp_mode): as asked when the module is loaded, else GFP_MODE_OFF. */
int gfplink_mode(const struct gfplink *g);

/* What the run records: "alternate", "off", or "off (module not loaded)". */
const char *gfplink_describe(const struct gfplink *g);

/* The model-check period in force (0: none). */
int64_t gfplink_check_interval_ms(const struct gfplink *g);

/* At a tick (right after the fast sources were read): run the checks when due and attach them to t.
 * Returns the checks made (0 when none was due), -1 when the device failed (checks stop, logged once). */
int gfplink_tick(struct gfplink *g, const struct sampler *s, struct store *st, struct store_tick *t,
		 int64_t mono_ms, int64_t wall_ms);

/* Classify refused TRYs with c (daemon/causes.h; NULL: not recorded); c must outlive g. */
void gfplink_set_causes(struct gfplink *g, struct causes *c);

/* The order of the slab a HOLD's object comes from when its cache must grow: the smallest order whose pages
 * hold one object (SLUB's minimum, the allocation a refused HOLD was refused); -1 without the module. */
int gfplink_hold_order(const struct gfplink *g);

/* Checks so far, and how many of them the model got right. */
void gfplink_totals(const struct gfplink *g, uint64_t *checks, uint64_t *agreed);

#endif
