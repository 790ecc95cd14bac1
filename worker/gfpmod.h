/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gfpmod: fpusoakd's client of the optional fpusoak_gfp module (kmod/).
 *
 * The module repeats the 2014 FPU-state allocation on request: a worker
 * HOLDs one XSAVE-sized object right after its first FPU touch, in the mode
 * --gfp-mode says, and dies by SIGKILL when the allocator refuses, as the
 * 2014 kernel killed the task; the daemon TRYs atomic and nowait page
 * allocations to check its watermark model (analysis/atomic.h) against the
 * allocator.  Without the module the device does not exist: gfpmod_detect()
 * says "module not loaded" and everything runs as before.
 *
 * Modes and who uses which (gfp_churn_mode, gfp_probe_mode):
 *   off        nobody HOLDs
 *   kernel, atomic, nowait
 *              churn workers and capacity-probe workers alike
 *   alternate  capacity probes take turns, kernel first (kernel, atomic,
 *              kernel, ...), so both modes meet the same fragmentation
 *              history; churn workers HOLD with GFP_KERNEL: churn is what
 *              makes that history, and it must not depend on which mode the
 *              next probe will use (an atomic failure kills a churn worker and
 *              changes the population the next probe starts from).
 *
 * The device calls are thin wrappers (errno as the kernel set it); the mode
 * rules are pure and unit-tested.
 */
#ifndef FPUSOAK_GFPMOD_H
#define FPUSOAK_GFPMOD_H

#include <stddef.h>
#include <stdint.h>

#include "kmod/fpusoak_gfp.h"

enum gfp_mode {
	GFP_MODE_OFF = 0,
	GFP_MODE_KERNEL = FPUSOAK_GFP_KERNEL,
	GFP_MODE_ATOMIC = FPUSOAK_GFP_ATOMIC,
	GFP_MODE_NOWAIT = FPUSOAK_GFP_NOWAIT,
	GFP_MODE_ALTERNATE,          /* configuration value: probes alternate kernel/atomic */
};

/* Parse "off|kernel|atomic|nowait|alternate"; 0 or -1. */
int gfpmod_mode_parse(const char *s, enum gfp_mode *out);

/* "off", "kernel", "atomic", "nowait", "alternate"; "?" for anything else. */
const char *gfpmod_mode_name(int mode);

/* The mode churn workers HOLD in under configured mode m (GFP_MODE_OFF: none). */
enum gfp_mode gfpmod_churn_mode(enum gfp_mode m);

/* The mode of the n-th capacity probe (n = 0, 1, ...) under configured mode m. */
enum gfp_mode gfpmod_probe_mode(enum gfp_mode m, uint64_t n);

/* Open the device read-write (close-on-exec): fd, or -1 with errno (ENOENT: module not loaded). */
int gfpmod_open(void);

/* INFO; 0, or -1 with errno (EPROTO: the module speaks another FPUSOAK_GFP_ABI). */
int gfpmod_info(int fd, struct fpusoak_gfp_info *out);

/* HOLD one object of size bytes in mode (kernel/atomic/nowait); 0, or -1 with errno (ENOMEM: the
 * allocator refused; EDQUOT: the module's cap; EINVAL: bad size or mode). */
int gfpmod_hold(int fd, uint32_t size, enum gfp_mode mode);

/* TRY 2^order pages in mode without waking kswapd (FPUSOAK_GFP_TRY_NOKSWAPD: an observer must not
 * start reclaim or compaction): 0 with *ok = 1 (allocated and freed) or 0 (refused) and *ns the time
 * the allocator took; -1 with errno for a bad order or mode. */
int gfpmod_try(int fd, unsigned order, enum gfp_mode mode, int *ok, uint64_t *ns);

/* Is the module usable: an open fd (caller closes) with *info filled, or -1 with why: "module not
 * loaded" when the device does not exist, else what failed. */
int gfpmod_detect(struct fpusoak_gfp_info *info, char *why, size_t whylen);

#endif
