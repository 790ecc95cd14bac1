/* SPDX-License-Identifier: GPL-2.0-only */
/* fpu: per-kind FPU touch and duty-cycle work; see fpu.h. */
#include "worker/fpu.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/cpuinfo.h"

/* arch/x86/include/uapi/asm/prctl.h (Linux 5.16); older headers lack them. */
#define ARCH_GET_XCOMP_PERM_ 0x1022
#define ARCH_REQ_XCOMP_PERM_ 0x1023
#define XFEATURE_XTILEDATA_ 18

static const char *const names[FPU_NKINDS] = { "x87", "sse", "avx", "avx512", "amx" };

int fpu_kind_parse(const char *s, enum fpu_kind *out)
{
	if (!s)
		return -1;
	if (strcmp(s, "auto") == 0) {
		*out = FPU_AUTO;
		return 0;
	}
	for (int i = 0; i < FPU_NKINDS; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum fpu_kind)i;
			return 0;
		}
	return -1;
}

const char *fpu_kind_name(enum fpu_kind k)
{
	if (k == FPU_AUTO)
		return "auto";
	return k >= 0 && k < FPU_NKINDS ? names[k] : "?";
}

/* CPU feature present and the kernel enabled every XCR0 component in need. */
static int check(const struct cpuinfo *ci, uint32_t feat, uint64_t need, char *why, size_t whylen)
{
	if (!(ci->features & feat)) {
		snprintf(why, whylen, "cpu lacks %s", cpuinfo_feature_name(feat));
		return 0;
	}
	if (!need)
		return 1;
	if (!(ci->features & CPUINFO_OSXSAVE)) {
		snprintf(why, whylen, "kernel did not enable XSAVE (no OSXSAVE)");
		return 0;
	}
	if ((ci->xcr0 & need) != need) {
		snprintf(why, whylen, "kernel does not enable %s state (XCR0 0x%llx lacks 0x%llx)",
			 cpuinfo_feature_name(feat), (unsigned long long)ci->xcr0,
			 (unsigned long long)(need & ~ci->xcr0));
		return 0;
	}
	return 1;
}

int fpu_supported(enum fpu_kind k, char *why, size_t whylen)
{
	struct cpuinfo ci;
	char dummy[8];

	if (!why || whylen == 0) {
		why = dummy;
		whylen = sizeof dummy;
	}
	why[0] = 0;
	if (cpuinfo_detect(&ci) < 0) {
		snprintf(why, whylen, "not an x86 CPU");
		return 0;
	}
	switch (k) {
	case FPU_X87:
		return check(&ci, CPUINFO_X87, 0, why, whylen);
	case FPU_SSE:
		return check(&ci, CPUINFO_SSE2, ci.features & CPUINFO_OSXSAVE ? 0x3 : 0, why, whylen);
	case FPU_AVX:
		return check(&ci, CPUINFO_AVX, 0x7, why, whylen);
	case FPU_AVX512:
		return check(&ci, CPUINFO_AVX512F, 0xe7, why, whylen);
	case FPU_AMX:
		if (!check(&ci, CPUINFO_AMX_TILE, 0x60003, why, whylen))
			return 0;
		/* Permission is per process and inherited by fork: granting it here covers workers. */
		if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM_, XFEATURE_XTILEDATA_) != 0) {
			snprintf(why, whylen, "arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) failed: %s", strerror(errno));
			return 0;
		}
		return 1;
	default:
		snprintf(why, whylen, "not a concrete FPU kind");
		return 0;
	}
}

enum fpu_kind fpu_auto(void)
{
	for (int k = FPU_AMX; k > FPU_X87; k--)
		if (fpu_supported((enum fpu_kind)k, NULL, 0))
			return (enum fpu_kind)k;
	return FPU_X87;
}

enum fpu_kind fpu_resolve(enum fpu_kind k)
{
	return k == FPU_AUTO ? fpu_auto() : k;
}

/*
 * The loops below are asm volatile, so the compiler can neither drop nor
 * hoist them; clobbers tell it which registers we leave changed.  Each
 * leaves a non-zero value in its registers on purpose: that is the live
 * state the kernel must save and restore while the worker sleeps.
 * n must be >= 1 (dec/jnz).
 */
static void x87_work(unsigned n)
{
	__asm__ volatile("fld1\n\t"
			 "fldpi\n\t"
			 "1:\n\t"
			 "fmul %%st(1), %%st\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 "fstp %%st(0)\n\t"
			 "fstp %%st(0)\n\t"
			 : "+r"(n)
			 :
			 : "cc", "st", "st(1)");
}

static const float vec16[16] __attribute__((aligned(64))) = {
	1.0001f, 0.9999f, 1.0002f, 0.9998f, 1.0003f, 0.9997f, 1.0004f, 0.9996f,
	1.0005f, 0.9995f, 1.0006f, 0.9994f, 1.0007f, 0.9993f, 1.0008f, 0.9992f,
};

static void sse_work(unsigned n)
{
	__asm__ volatile("movaps %1, %%xmm15\n\t"
			 "movaps %%xmm15, %%xmm14\n\t"
			 "1:\n\t"
			 "mulps %%xmm14, %%xmm15\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 : "+r"(n)
			 : "m"(*(const float(*)[4])vec16)
			 : "cc", "xmm14", "xmm15");
}

/*
 * No target("avx") here on purpose: GCC would then add a vzeroupper on
 * return, putting the YMM upper halves straight back into init state.
 * The assembler takes VEX code whatever -m flags say.
 */
static void avx_work(unsigned n)
{
	__asm__ volatile("vmovaps %1, %%ymm15\n\t"
			 "vmovaps %%ymm15, %%ymm14\n\t"
			 "1:\n\t"
			 "vmulps %%ymm14, %%ymm15, %%ymm15\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 : "+r"(n)
			 : "m"(*(const float(*)[8])vec16)
			 : "cc", "xmm14", "xmm15");
}

/*
 * zmm30/31 (Hi16_ZMM component) and k7 (opmask) survive vzeroupper, which
 * glibc's string functions execute; zmm15's upper half dirties ZMM_Hi256
 * too.  target("avx512f") is needed only so GCC accepts the xmm30/31 and k7
 * clobbers.
 */
__attribute__((target("avx512f"))) static void avx512_work(unsigned n)
{
	__asm__ volatile("vmovaps %1, %%zmm31\n\t"
			 "vmovaps %%zmm31, %%zmm30\n\t"
			 "vmovaps %%zmm31, %%zmm15\n\t"
			 "kxnorw %%k7, %%k7, %%k7\n\t"
			 "1:\n\t"
			 "vmulps %%zmm30, %%zmm31, %%zmm31%{%%k7%}\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 : "+r"(n)
			 : "m"(vec16)
			 : "cc", "xmm15", "xmm30", "xmm31", "k7");
}

/* Palette 1 tile configuration (Intel SDM vol. 1, 3.2 "LDTILECFG"): tile 0 = 16 rows x 64 bytes. */
struct tilecfg {
	uint8_t palette_id;
	uint8_t start_row;
	uint8_t reserved[14];
	uint16_t colsb[16];
	uint8_t rows[16];
} __attribute__((aligned(64)));

static const uint8_t tile_src[16 * 64] __attribute__((aligned(64))) = { 1, 2, 3, 4 };

/*
 * The first tile instruction of a process traps (#NM: XFD armed by the
 * kernel), the kernel enlarges the fpstate, and the instruction re-runs.
 * No tilerelease: the tile state stays live, as the worker means it to.
 */
static int amx_work(unsigned n)
{
	struct tilecfg cfg;

	if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM_, XFEATURE_XTILEDATA_) != 0)
		return -1;
	memset(&cfg, 0, sizeof cfg);
	cfg.palette_id = 1;
	cfg.colsb[0] = 64;
	cfg.rows[0] = 16;
	__asm__ volatile("ldtilecfg %0" : : "m"(cfg));
	do
		__asm__ volatile("tileloadd (%0,%1,1), %%tmm0"
				 :
				 : "r"(tile_src), "r"((long)64), "m"(*(const uint8_t(*)[sizeof tile_src])tile_src));
	while (--n);
	return 0;
}

int fpu_work(enum fpu_kind k, unsigned iterations)
{
	unsigned n = iterations ? iterations : 1;

	switch (k) {
	case FPU_X87:
		x87_work(n);
		return 0;
	case FPU_SSE:
		sse_work(n);
		return 0;
	case FPU_AVX:
		avx_work(n);
		return 0;
	case FPU_AVX512:
		avx512_work(n);
		return 0;
	case FPU_AMX:
		return amx_work(n);
	default:
		return -1;
	}
}

int fpu_touch(enum fpu_kind k)
{
	return fpu_work(k, 1);
}
