/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * worker: the life of one math-using process, from fork to _exit.
 *
 * Order matters: arm PR_SET_PDEATHSIG and re-check getppid() (the parent
 * may have died between fork and prctl), join the workers' memory cgroup
 * before anything is allocated (so every page is charged there), set
 * oom_score_adj 1000 (workers are the OOM killer's first choice, never the
 * daemon), touch the FPU as the first real act, touch --worker-memory,
 * then live.  A churn worker does a few microseconds of FPU work every
 * tick (10 ms), so the state is live at every context switch (that is the
 * save/restore path churn exercises), until its lifetime ends.  A probe
 * worker (lifetime < 0) sleeps once it is ready, until SIGTERM: a probe
 * measures memory, and 1,000 held workers waking every 10 ms made it
 * measure CPU instead (issue 36).
 *
 * Priority (common/prio.h): the daemon's core runs where the service put it,
 * the spawner PRIO_HELPER_STEP nice levels below it, and churn workers, the
 * only ones that use CPU for long, at PRIO_WORKER_NICE (19), so the sampler
 * is never queued behind its own load.  A probe worker runs one level below
 * the spawner: it needs CPU only to set itself up (one at a time, the
 * probe waits for it) and to exit (a few at a time), and sleeps between.
 * At nice 19 its setup starved beside two busy loops (a fill reached 130
 * workers in 28 s) and the workers that had written their ready byte
 * queued, runnable, for the few instructions left before pause().
 *
 * Right after oom_score_adj, before the FPU touch, every capability goes
 * (effective, permitted, inheritable, ambient) and PR_SET_NO_NEW_PRIVS is
 * set: the daemon runs as root, and a process that only does arithmetic and
 * touches its own memory needs none of it.  (Joining cgroup.procs as its
 * owner and raising oom_score_adj need none either; they come first anyway.)
 * Cost: one capset and two prctl, ~4 us (perf share of all CPU at 5,800/s).
 *
 * With --gfp-mode (churn/gfpmod.h) a worker HOLDs one FPU-state-sized object
 * through /dev/fpusoak_gfp right after the FPU touch, before its memory: the
 * 2014 #NM handler allocated the XSAVE area at the first FPU instruction.
 * The object is held through the open fd until the worker exits.  When the
 * allocator refuses (ENOMEM) the worker writes its PID to the spawner's
 * gfp pipe and SIGKILLs itself, as the 2014 kernel killed the task: the
 * spawner counts that death as gfp_failed, not killed_sigkill.  The device
 * is 0600 root: uid 0 opens it as the owner with no capability left.
 *
 * Workers are not dumpable: a SIGSEGV from a failed AMX allocation must
 * not turn into a core dump per worker.  Nothing here allocates through
 * libc or logs; failures are exit codes the spawner counts.
 */
#ifndef FPUSOAK_WORKER_H
#define FPUSOAK_WORKER_H

#include <stdint.h>
#include <sys/types.h>

#include "churn/fpu.h"

/* Exit codes: 0 and RETIRED are normal; the rest say which setup step failed. */
enum worker_exit {
	WORKER_EXIT_OK = 0,        /* lived its lifetime */
	WORKER_EXIT_RETIRED = 10,  /* SIGTERM from the spawner (probe, stop) or the service manager */
	WORKER_EXIT_ORPHAN = 11,   /* the parent died before PDEATHSIG was armed */
	WORKER_EXIT_CGROUP = 12,   /* could not join the workers' cgroup */
	WORKER_EXIT_OOMADJ = 13,   /* could not set oom_score_adj */
	WORKER_EXIT_FPU = 14,      /* FPU kind refused (AMX permission) */
	WORKER_EXIT_MEMORY = 15,   /* mmap of --worker-memory failed */
	WORKER_EXIT_CAPS = 16,     /* could not drop capabilities or set no_new_privs */
	WORKER_EXIT_GFP = 17,      /* /dev/fpusoak_gfp would not open, or refused the HOLD as invalid */
	WORKER_EXIT_GFP_CAP = 18,  /* the module's cap on objects held (max_held) was reached */
};

struct worker_args {
	enum fpu_kind kind;        /* concrete, supported */
	uint64_t memory;           /* bytes to touch */
	int64_t lifetime_ms;       /* 0: exit right after the FPU touch; < 0: until SIGTERM (probe) */
	int64_t tick_ms;           /* duty-cycle period */
	unsigned work_iters;       /* FPU operations per tick */
	pid_t parent;              /* the spawner, for the PDEATHSIG race check */
	int procs_fd;              /* cgroup.procs to write "0" into; -1 if born in the cgroup (clone3) */
	int ready_fd;              /* gets one byte after the memory touch; -1 for none */
	int privs_dropped;         /* 1: the spawner already dropped them (inherited); skip the capset */
	int gfp_mode;              /* enum gfp_mode (kernel/atomic/nowait) to HOLD in; 0 = no HOLD */
	uint32_t gfp_size;         /* bytes to HOLD: the process's FPU state size */
	int gfp_fd;                /* write end of the gfp pipe (PID of a refused HOLD); -1 for none */
};

/* Install, in the spawner, what workers inherit: SIGTERM → _exit(WORKER_EXIT_RETIRED). 0 or -1. */
int worker_install_handlers(void);

/* Drop every capability (effective, permitted, inheritable, ambient) and set no_new_privs; 0 or -1.
 * Only system calls, no allocation: for freshly forked children. */
int worker_drop_privileges(void);

/* The child side after fork: never returns. */
void worker_run(const struct worker_args *a) __attribute__((noreturn));

/* Short text for an exit code ("retired", "cgroup", ...); "exit" for unknown codes. */
const char *worker_exit_name(int code);

#endif
