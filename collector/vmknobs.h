/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vmknobs: the kernel's settings that change how it allocates, recorded with
 * each run so a comparison can say when two runs differed in them.
 *
 *   vm.min_free_kbytes, vm.watermark_scale_factor, vm.watermark_boost_factor
 *       the zone watermarks (mm/page_alloc.c: __setup_per_zone_wmarks)
 *   vm.compaction_proactiveness, vm.extfrag_threshold
 *       when the kernel compacts rather than reclaims (mm/compaction.c)
 *   vm.defrag_mode                (6.15+; absent before) watermarks kept free of fallbacks
 *   thp.enabled, thp.defrag       /sys/kernel/mm/transparent_hugepage/{enabled,defrag}: the
 *                                 bracketed choice of "always [madvise] never"
 * A knob the kernel does not have is left out (absent is not 0).
 */
#ifndef FPUSOAK_VMKNOBS_H
#define FPUSOAK_VMKNOBS_H

#include <stddef.h>

#define VMKNOBS_MAX 8
#define VMKNOB_NAME_MAX 32
#define VMKNOB_VALUE_MAX 24

struct vmknobs {
	int n;
	struct {
		char name[VMKNOB_NAME_MAX];    /* "vm.min_free_kbytes", "thp.enabled" */
		char value[VMKNOB_VALUE_MAX];  /* "67584", "madvise" */
	} k[VMKNOBS_MAX];
};

/* A /proc/sys/vm integer file buf[0..len) ("67584\n") into out: 0, or -1 (not one decimal integer). */
int vmknob_parse_int(const char *buf, size_t len, char *out, size_t outlen);

/* A THP choice file buf[0..len) ("always [madvise] never\n") into out ("madvise"): 0, or -1 (no one
 * bracketed word of printable ASCII). */
int vmknob_parse_choice(const char *buf, size_t len, char *out, size_t outlen);

/* Read every knob under proc_root and sys_root ("/proc", "/sys") that the kernel has into out; never fails. */
void vmknobs_collect(const char *proc_root, const char *sys_root, struct vmknobs *out);

#endif
