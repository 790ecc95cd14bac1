/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpuinfo: what the CPU (CPUID) and the kernel (XCR0) say about FPU state.
 *
 * The size of a task's FPU/xstate area decides the size of task_struct
 * (the area is embedded in it: ~2.7 KiB with AVX-512, which pushes the
 * task_struct slab to order-3 pages) and, with AMX, whether the kernel must
 * later vzalloc ~11 KiB more on the first tile instruction (#NM via XFD).
 * CPUID leaf 0xD gives those sizes: sub-leaf 0 EBX is the XSAVE area for
 * the components enabled in XCR0, ECX the maximum, sub-leaf 1 EBX the
 * compacted (XSAVES) size including supervisor state, sub-leaves 2..18 the
 * per-component sizes (17/18 are AMX TILECFG/TILEDATA).
 *
 * CPUID says what the CPU has; XCR0 (xgetbv, only when OSXSAVE is set)
 * says what the kernel enabled.  The kernel clears a /proc/cpuinfo flag when
 * it does not enable the state, so "usable" needs both.
 *
 * Xen PV guests may not see a trustworthy CPUID (no faulting on old
 * hardware): /sys/hypervisor is the authority there, hence cpuinfo_hv_sys.
 */
#ifndef FPUSOAK_CPUINFO_H
#define FPUSOAK_CPUINFO_H

#include <stddef.h>
#include <stdint.h>

/* CPUID feature bits we care about (what the CPU reports, not what the OS enabled). */
enum cpuinfo_feature {
	CPUINFO_X87 = 1u << 0,
	CPUINFO_SSE = 1u << 1,
	CPUINFO_SSE2 = 1u << 2,
	CPUINFO_XSAVE = 1u << 3,
	CPUINFO_OSXSAVE = 1u << 4,
	CPUINFO_AVX = 1u << 5,
	CPUINFO_FMA = 1u << 6,
	CPUINFO_AVX2 = 1u << 7,
	CPUINFO_AVX512F = 1u << 8,
	CPUINFO_AVX512BW = 1u << 9,
	CPUINFO_AVX512VL = 1u << 10,
	CPUINFO_AMX_TILE = 1u << 11,
	CPUINFO_AMX_INT8 = 1u << 12,
	CPUINFO_AMX_BF16 = 1u << 13,
	CPUINFO_XSAVEOPT = 1u << 14,
	CPUINFO_XSAVEC = 1u << 15,
	CPUINFO_XSAVES = 1u << 16,
	CPUINFO_XFD = 1u << 17,
	CPUINFO_HYPERVISOR = 1u << 18,
};

/* XCR0 / XSAVE component numbers (Intel SDM vol. 1, 13.1). */
enum cpuinfo_xfeature {
	XFEATURE_FP = 0, XFEATURE_SSE = 1, XFEATURE_YMM = 2, XFEATURE_BNDREGS = 3,
	XFEATURE_BNDCSR = 4, XFEATURE_OPMASK = 5, XFEATURE_ZMM_HI256 = 6,
	XFEATURE_HI16_ZMM = 7, XFEATURE_PKRU = 9, XFEATURE_TILECFG = 17,
	XFEATURE_TILEDATA = 18,
};

#define CPUINFO_NCOMP 19     /* components 0..18 */

struct cpuinfo {
	int valid;                    /* 1 if CPUID ran (x86), 0 otherwise: everything else zero */
	char vendor[13];              /* "GenuineIntel", "AuthenticAMD", ... */
	char model[49];               /* leaves 0x80000002-4, leading/trailing blanks trimmed; "" if absent */
	uint32_t family, model_id, stepping;
	uint32_t max_leaf, max_ext_leaf;
	uint32_t features;            /* enum cpuinfo_feature bits */
	uint64_t xcr0;                /* 0 when !OSXSAVE (xgetbv would #UD) */
	uint64_t xsave_user_mask;     /* 0xD.0 EDX:EAX: user components the CPU supports */
	int64_t xstate_user_bytes;    /* 0xD.0 EBX: XSAVE area for XCR0 (standard format) */
	int64_t xstate_max_bytes;     /* 0xD.0 ECX: for every supported user component */
	int64_t xstate_compact_bytes; /* 0xD.1 EBX: XSAVES area for XCR0|IA32_XSS (what the kernel uses) */
	uint32_t comp_size[CPUINFO_NCOMP];   /* 0xD.i EAX for i >= 2, 0 if unsupported */
	uint32_t comp_offset[CPUINFO_NCOMP]; /* 0xD.i EBX (standard-format offset; 0 for supervisor) */
	uint32_t comp_flags[CPUINFO_NCOMP];  /* 0xD.i ECX: bit0 supervisor, bit1 64-byte aligned, bit2 XFD */
	char hv_signature[13];        /* raw 12-byte signature at the hypervisor base, "" if none */
	char hypervisor[32];          /* xen|kvm|hyperv|vmware|none|other:<sig> */
};

/* Fill *out from CPUID and XCR0; returns 0, or -1 (out->valid = 0) where CPUID is unavailable. */
int cpuinfo_detect(struct cpuinfo *out);

/* "x87 sse sse2 ... amx-tile": the CPUID features present, space-separated; 0 or -1 if outlen is too small. */
int cpuinfo_features(const struct cpuinfo *ci, char *out, size_t outlen);

/* "xcr0=0x2e7 user=2696 max=2696 compacted=2440 avx=256 ...": sizes of the XCR0-enabled components; 0 or -1. */
int cpuinfo_xstate_detail(const struct cpuinfo *ci, char *out, size_t outlen);

/* The hypervisor's name for a CPUID signature sig: xen|kvm|hyperv|vmware, else "other:<sig>" without the
 * signature's blank padding; returns out. */
const char *cpuinfo_hv_name(const char *sig, char *out, size_t len);

/*
 * The first "model name" of /proc/cpuinfo text in buf[0..len), blanks trimmed, into out: 1, 0 if there is
 * none (out ""), -1 if it does not fit or holds a control character.  What the kernel was told, which a
 * hypervisor may set apart from CPUID's brand string (cpuinfo.model): both are recorded (issue 34).
 */
int cpuinfo_proc_model(const char *buf, size_t len, char *out, size_t outlen);

/* xen|kvm|hyperv|vmware|none|other:<sig> from the CPUID hypervisor leaves. */
const char *cpuinfo_hypervisor_name(const struct cpuinfo *ci);

/* Name of one feature bit ("avx512f"), or NULL for an unknown bit. */
const char *cpuinfo_feature_name(uint32_t bit);

/* The /proc/cpuinfo flag the kernel prints for one feature bit ("fpu" for x87), or NULL if it prints none. */
const char *cpuinfo_feature_procname(uint32_t bit);

/* Component name for XSAVE component i ("avx512_zmm_hi256"), or NULL. */
const char *cpuinfo_xfeature_name(int i);

/* Read <sys_root>/hypervisor/type and guest_type ("xen", "PV"); 0 if type exists (guest may be ""), -1 if not.
 * Values are trimmed and restricted to [A-Za-z0-9_.-]; anything else is -1. */
int cpuinfo_hv_sys(const char *sys_root, char *type, size_t typelen, char *guest, size_t guestlen);

#endif
