/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpusoak_gfp.h: the user-space interface of the fpusoak_gfp module.
 *
 * One header for both sides: the module (kmod/fpusoak_gfp.c) and fpusoakd
 * (worker/gfpmod.c) include it.  Only fixed-width types, every struct a multiple
 * of 8 bytes with explicit padding, so 32- and 64-bit callers see the same
 * layout (tests/unit/test_gfp_uapi.c pins sizes, offsets and the ioctl
 * numbers; change them only with FPUSOAK_GFP_ABI).
 *
 * The device /dev/fpusoak_gfp (misc, mode 0600, root:root) answers four
 * ioctls; every reserved field must be 0 (-EINVAL otherwise):
 *
 *   HOLD {size, mode}: allocate one object from the module's slab cache
 *     "fpusoak_xstate", sized and aligned like the 2014 kernel's
 *     task_xstate_cachep (the XSAVE area the CPU reports for XCR0, 64-byte
 *     aligned), with GFP_KERNEL, GFP_ATOMIC or GFP_NOWAIT; the atomic and
 *     nowait modes allocate with preemption disabled, as the #NM handler
 *     did.  The object belongs to the open file and is freed when the file
 *     is closed (or its process exits).  One object per open file.
 *       0        held
 *       ENOMEM   the allocator said no (the 2014 kernel sent SIGKILL here); or, for
 *                tests, the module's parameter refuse_every said so
 *       EDQUOT   the module's cap on objects held (parameter max_held)
 *       EBUSY    this file already holds one
 *       EINVAL   bad mode, size 0 or above object_size, reserved bits set
 *   TRY {order, mode, flags}: alloc_pages(mode | __GFP_NOWARN, order),
 *     freed at once; ok says whether the allocator gave the pages.  Returns
 *     0 either way (EINVAL for a bad mode, an order above max_order or an
 *     unknown flag).  FPUSOAK_GFP_TRY_NOKSWAPD clears __GFP_KSWAPD_RECLAIM: a
 *     refused high-order request then does not wake kswapd and kcompactd for
 *     that order, so an observer does not start the reclaim and compaction
 *     it is measuring the absence of; the watermark check the allocator
 *     applies is the same with or without it (the flag only decides the
 *     wake-up; mm/page_alloc.c gfp_to_alloc_flags, 4.4 to 6.x).
 *   INFO: the module's constants and the number of objects held.
 *   DRAIN {order, mode, flags, max_blocks}: alloc_pages(mode | __GFP_NOWARN,
 *     order) again and again, keeping every block, until the allocator says
 *     no or max_blocks are held; then frees them all.  blocks says how many
 *     it gave, refused whether the last request was refused.  A refused
 *     allocation on demand, at any order: the trace's end-to-end check, where
 *     a TRY at the largest order would succeed.  GFP_ATOMIC or GFP_NOWAIT only
 *     (GFP_KERNEL would reclaim and call the OOM killer to satisfy it: EINVAL),
 *     and never more than the machine's RAM (the allocator keeps the min
 *     watermark for NOWAIT and most of it for ATOMIC).  Counted as TRYs.
 *
 * Counters of attempts and failures per mode (HOLD) and per mode and order
 * (TRY) are in /sys/class/misc/fpusoak_gfp/counters/ (see kmod/README).
 */
#ifndef FPUSOAK_GFP_UAPI_H
#define FPUSOAK_GFP_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define FPUSOAK_GFP_DEVICE "/dev/fpusoak_gfp"
#define FPUSOAK_GFP_NAME "fpusoak_gfp"
#define FPUSOAK_GFP_ABI 1

/* Allocation modes; 0 is never valid, so a zeroed struct is refused. */
#define FPUSOAK_GFP_KERNEL 1    /* GFP_KERNEL: may sleep, reclaim and compact */
#define FPUSOAK_GFP_ATOMIC 2    /* GFP_ATOMIC: no sleeping, may dip into reserves */
#define FPUSOAK_GFP_NOWAIT 3    /* GFP_NOWAIT: no sleeping, no reserves */
#define FPUSOAK_GFP_NMODES 3

struct fpusoak_gfp_hold {
	__u32 size;             /* in: the caller's FPU state size in bytes, 1..object_size */
	__u32 mode;             /* in: FPUSOAK_GFP_* */
	__u32 object_size;      /* out: bytes of the object held */
	__u32 reserved;         /* in: 0 */
};

#define FPUSOAK_GFP_TRY_NOKSWAPD 1u   /* TRY without __GFP_KSWAPD_RECLAIM */

struct fpusoak_gfp_try {
	__u32 order;            /* in: 0..max_order */
	__u32 mode;             /* in: FPUSOAK_GFP_* */
	__u32 ok;               /* out: 1 the pages were allocated (and freed), 0 not */
	__u32 flags;            /* in: FPUSOAK_GFP_TRY_* bits, the rest 0 */
	__u64 duration_ns;      /* out: time spent in alloc_pages */
};

#define FPUSOAK_GFP_DRAIN_MAX_BLOCKS 65536u   /* max_blocks accepted */

struct fpusoak_gfp_drain {
	__u32 order;            /* in: 0..max_order */
	__u32 mode;             /* in: FPUSOAK_GFP_ATOMIC or FPUSOAK_GFP_NOWAIT */
	__u32 flags;            /* in: FPUSOAK_GFP_TRY_* bits, the rest 0 */
	__u32 max_blocks;       /* in: 1..FPUSOAK_GFP_DRAIN_MAX_BLOCKS */
	__u32 blocks;           /* out: blocks the allocator gave (all freed again) */
	__u32 refused;          /* out: 1 the last request was refused, 0 max_blocks came first */
};

struct fpusoak_gfp_info {
	__u32 abi;              /* FPUSOAK_GFP_ABI of the module */
	__u32 object_size;      /* the cache's object size: XSAVE size for XCR0 (512 without XSAVE) */
	__u32 object_align;     /* 64 */
	__u32 max_order;        /* largest order TRY accepts (the kernel's largest buddy order) */
	__u32 max_held;         /* the cap in force */
	__u32 held;             /* objects held now, every file together */
	__u32 held_here;        /* 1 if this file holds one */
	__u32 reserved;
};

#define FPUSOAK_GFP_IOC_MAGIC 0xF6
#define FPUSOAK_GFP_IOC_HOLD _IOWR(FPUSOAK_GFP_IOC_MAGIC, 1, struct fpusoak_gfp_hold)
#define FPUSOAK_GFP_IOC_TRY _IOWR(FPUSOAK_GFP_IOC_MAGIC, 2, struct fpusoak_gfp_try)
#define FPUSOAK_GFP_IOC_INFO _IOR(FPUSOAK_GFP_IOC_MAGIC, 3, struct fpusoak_gfp_info)
#define FPUSOAK_GFP_IOC_DRAIN _IOWR(FPUSOAK_GFP_IOC_MAGIC, 4, struct fpusoak_gfp_drain)

#endif
