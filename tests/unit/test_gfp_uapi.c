/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gfp_uapi: kmod/fpusoak_gfp.h, the contract between the module and user
 * space, pinned: struct sizes and field offsets (the same for 32- and 64-bit
 * callers, so compat_ptr_ioctl is all the module needs), the ioctl numbers
 * as literals (an edit that changes a struct changes its number, which an
 * old module would refuse as ENOTTY: this test makes that edit visible), and
 * the constants both sides agree on.
 */
#include <stddef.h>
#include <sys/ioctl.h>

#include "kmod/fpusoak_gfp.h"
#include "tests/unit/test.h"

#define OFF(type, field) ((long long)offsetof(struct type, field))

int main(void)
{
	T_EQ_I(sizeof(struct fpusoak_gfp_hold), 16, "hold is 16 bytes");
	T_EQ_I(OFF(fpusoak_gfp_hold, size), 0, "hold.size at 0");
	T_EQ_I(OFF(fpusoak_gfp_hold, mode), 4, "hold.mode at 4");
	T_EQ_I(OFF(fpusoak_gfp_hold, object_size), 8, "hold.object_size at 8");
	T_EQ_I(OFF(fpusoak_gfp_hold, reserved), 12, "hold.reserved at 12");

	T_EQ_I(sizeof(struct fpusoak_gfp_try), 24, "try is 24 bytes");
	T_EQ_I(OFF(fpusoak_gfp_try, order), 0, "try.order at 0");
	T_EQ_I(OFF(fpusoak_gfp_try, mode), 4, "try.mode at 4");
	T_EQ_I(OFF(fpusoak_gfp_try, ok), 8, "try.ok at 8");
	T_EQ_I(OFF(fpusoak_gfp_try, flags), 12, "try.flags at 12");
	T_EQ_I(OFF(fpusoak_gfp_try, duration_ns), 16, "try.duration_ns at 16 (8-aligned without padding)");
	T_EQ_I(_Alignof(struct fpusoak_gfp_try), 8, "try is 8-aligned");

	T_EQ_I(sizeof(struct fpusoak_gfp_info), 32, "info is 32 bytes");
	T_EQ_I(OFF(fpusoak_gfp_info, abi), 0, "info.abi at 0");
	T_EQ_I(OFF(fpusoak_gfp_info, object_size), 4, "info.object_size at 4");
	T_EQ_I(OFF(fpusoak_gfp_info, object_align), 8, "info.object_align at 8");
	T_EQ_I(OFF(fpusoak_gfp_info, max_order), 12, "info.max_order at 12");
	T_EQ_I(OFF(fpusoak_gfp_info, max_held), 16, "info.max_held at 16");
	T_EQ_I(OFF(fpusoak_gfp_info, held), 20, "info.held at 20");
	T_EQ_I(OFF(fpusoak_gfp_info, held_here), 24, "info.held_here at 24");
	T_EQ_I(OFF(fpusoak_gfp_info, reserved), 28, "info.reserved at 28");

	T_EQ_I(sizeof(struct fpusoak_gfp_drain), 24, "drain is 24 bytes");
	T_EQ_I(OFF(fpusoak_gfp_drain, order), 0, "drain.order at 0");
	T_EQ_I(OFF(fpusoak_gfp_drain, mode), 4, "drain.mode at 4");
	T_EQ_I(OFF(fpusoak_gfp_drain, flags), 8, "drain.flags at 8");
	T_EQ_I(OFF(fpusoak_gfp_drain, max_blocks), 12, "drain.max_blocks at 12");
	T_EQ_I(OFF(fpusoak_gfp_drain, blocks), 16, "drain.blocks at 16");
	T_EQ_I(OFF(fpusoak_gfp_drain, refused), 20, "drain.refused at 20");

	/* Every size a multiple of 8: no tail padding that differs between i386 and x86_64. */
	T_CHECK(sizeof(struct fpusoak_gfp_hold) % 8 == 0 && sizeof(struct fpusoak_gfp_try) % 8 == 0 &&
		sizeof(struct fpusoak_gfp_info) % 8 == 0 && sizeof(struct fpusoak_gfp_drain) % 8 == 0,
		"every struct is a multiple of 8 bytes");

	T_EQ_I(FPUSOAK_GFP_IOC_HOLD, 0xC010F601u, "HOLD is _IOWR(0xF6, 1, 16 bytes)");
	T_EQ_I(FPUSOAK_GFP_IOC_TRY, 0xC018F602u, "TRY is _IOWR(0xF6, 2, 24 bytes)");
	T_EQ_I(FPUSOAK_GFP_IOC_INFO, 0x8020F603u, "INFO is _IOR(0xF6, 3, 32 bytes)");
	T_EQ_I(FPUSOAK_GFP_IOC_DRAIN, 0xC018F604u, "DRAIN is _IOWR(0xF6, 4, 24 bytes)");
	T_EQ_I(FPUSOAK_GFP_DRAIN_MAX_BLOCKS, 65536, "DRAIN holds at most 65536 blocks");
	T_EQ_I(_IOC_SIZE(FPUSOAK_GFP_IOC_TRY), sizeof(struct fpusoak_gfp_try), "TRY encodes its struct size");
	T_EQ_I(_IOC_DIR(FPUSOAK_GFP_IOC_INFO), _IOC_READ, "INFO only reads");

	T_EQ_I(FPUSOAK_GFP_ABI, 1, "interface version 1");
	T_EQ_I(FPUSOAK_GFP_KERNEL, 1, "mode kernel = 1 (0 is never valid)");
	T_EQ_I(FPUSOAK_GFP_ATOMIC, 2, "mode atomic = 2");
	T_EQ_I(FPUSOAK_GFP_NOWAIT, 3, "mode nowait = 3");
	T_EQ_I(FPUSOAK_GFP_NMODES, 3, "three modes");
	T_EQ_I(FPUSOAK_GFP_TRY_NOKSWAPD, 1, "TRY flag NOKSWAPD = 1");
	T_EQ_S(FPUSOAK_GFP_DEVICE, "/dev/fpusoak_gfp", "the device path");
	T_DONE();
}
