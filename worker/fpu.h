/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpu: make a process's FPU state real, of a chosen kind.
 *
 * Since Linux 4.2 (eager FPU) every task_struct carries an xstate buffer
 * sized for all XCR0-enabled components, so fork() already allocates it;
 * what touching adds is live, non-init register state that XSAVES must
 * write out at every context switch, as "math-using processes" do.  Each
 * kind leaves values in registers that libc and vzeroupper leave alone
 * between duty cycles (xmm15 for SSE, the upper half of ymm15 for AVX,
 * zmm31 and k7 for AVX-512, tmm0 for AMX), so the state stays non-init
 * while the worker sleeps.
 *
 * AMX is different: its 8 KiB TILEDATA is dynamic.  A process must first
 * ask for it (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)); its
 * first tile instruction then traps (#NM via XFD) and the kernel vzallocs a
 * larger fpstate.  If that allocation fails the task gets SIGSEGV; without
 * the permission, SIGILL.  Those are the deaths churn counts.
 *
 * fpu_touch/fpu_work do not check support: CPUID is a VM exit (7-9 us
 * each on the development VM, and cpuinfo_detect issues ~30), too much per
 * worker life.  The spawner calls fpu_supported() once; a kind the CPU
 * lacks raises SIGILL, which churn counts like any other death.
 */
#ifndef FPUSOAK_FPU_H
#define FPUSOAK_FPU_H

#include <stddef.h>

enum fpu_kind {
	FPU_AUTO = -1,    /* configuration value only: resolve with fpu_resolve() */
	FPU_X87 = 0,
	FPU_SSE,
	FPU_AVX,
	FPU_AVX512,
	FPU_AMX,
	FPU_NKINDS
};

/* Parse "auto|x87|sse|avx|avx512|amx"; 0 or -1. */
int fpu_kind_parse(const char *s, enum fpu_kind *out);

/* "auto", "x87", ... ; "?" for out-of-range values. */
const char *fpu_kind_name(enum fpu_kind k);

/* 1 if CPU and kernel support kind k (AMX: also asks the kernel for permission, which sticks to the
 * process and its children); 0 if not, with the reason in why ("cpu lacks amx-tile"). */
int fpu_supported(enum fpu_kind k, char *why, size_t whylen);

/* The widest supported kind (AMX, AVX-512, AVX, SSE, x87 in that order); never one fpu_supported() denies. */
enum fpu_kind fpu_auto(void);

/* FPU_AUTO → fpu_auto(); a concrete kind is returned unchanged (support is not checked). */
enum fpu_kind fpu_resolve(enum fpu_kind k);

/* Execute one operation of kind k and leave its registers non-init; 0, or -1 for a non-concrete kind
 * or a refused AMX permission.  Unchecked: a kind fpu_supported() denies raises SIGILL. */
int fpu_touch(enum fpu_kind k);

/* Do 'iterations' (0 counts as 1) dependent operations of kind k (~1 ns each; AMX: a tile load each);
 * 0 or -1 as fpu_touch.  Registers stay live afterwards; asm volatile, so never optimised away. */
int fpu_work(enum fpu_kind k, unsigned iterations);

#endif
