/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/gate: may a line of a comparison get a verdict at all?
 *
 * A wrong "significant" is worse than none: the people who read it decide
 * whether a kernel change is safe.  Before a line is tested, the gate
 * compares what each run actually ran under (its effective conditions, as
 * stored, not the configuration it asked for) and answers, per line:
 *   - not comparable, with the first reason: a difference that makes the
 *     line meaningless whatever the numbers (A ran unconfined and its
 *     probes stopped at the cap; different worker memory; another
 *     hypervisor; MemTotal more than 1% apart; ...);
 *   - comparable, with caveats: differences it should be read with.
 * Differences the user meant -- kernel, its command line, the label -- are
 * the experiment: shown as caveats of the pair, never a reason to refuse.
 *
 * What matters for which line (H: not comparable, c: a caveat, -: nothing):
 *
 *   condition                     capacity FPU-cost headroom alloc-fail spawn-fail spawns atomic traced extfrag oom
 *   unconfined (cgroup scope)        H        -        H         H          H          H      H      H   H   H
 *   unconfined (guest scope)         -        -        H         H          H          H      H      H   H   H
 *   cgroup v1 vs v2 (fork charge)    H        -        c         c          c          c      c      c   c   c
 *   memory limit                     H*       -        c         c          c          c      c      c   c   H
 *   pids limit                       H*       -        c         c          H          H      c      c   c   c
 *   worker memory                    H        -        H         H          c          c      H      H   H   H
 *   workers, lifetime, rate, dist    c        c        H         H          H          H      H      H   H   H
 *   probe scope                      H        -        c         c          c          c      c      c   c   c
 *   probe limit                      c        -        -         -          -          -      -      -   -   -
 *   FPU kind                         H        H        c         c          c          c      c      c   c   c
 *   FPU-cost probe threads           -        H        -         -          -          -      -      -   -   -
 *   sample interval                  -        -        c         -          -          -      H      -   -   -
 *   hypervisor / guest type          H        H        H         H          H          H      H      H   H   H
 *   MemTotal beyond 1%               H        c        H         H          H          H      H      H   H   H
 *   XSAVE size                       H        H        c         c          c          c      c      c   c   c
 *   tracefs on in one run, its       H        c        H         H          H          H      H      H   H   H
 *     instance over 1% of MemTotal
 *   ... within 1%, or size unknown   c        -        c         c          c          c      c      H   H   c
 *   tracefs off or not recorded      -        -        -         -          -          -      -      H   H   -
 *   (* cgroup scope only: a guest-scope probe lifts the memory limit)
 *   (an instance holds kernel memory: before Linux 6.6 every event's files, ~10 MB)
 *   (traced: failed allocations the trace saw; extfrag: fragmenting fallbacks; oom: OOM kills of churn
 *    workers; all per hour)
 *   (not recorded: a run before schema 8, which made no instance; report_compare makes the trace
 *    lines only when both runs traced, so the last row shows there as a caveat of the pair)
 *
 * Capacity probes stopped by "limit", "timeout" or "stopped" are censored:
 * a lower bound, not a capacity.  They are left out of the comparison and
 * said in a caveat; a side with no probe left is not comparable.
 *
 * Pure: no store, no I/O.  Texts are printable ASCII (kernel and label
 * strings are cut at the first byte outside 0x20..0x7e).
 */
#ifndef FPUSOAK_REPORT_GATE_H
#define FPUSOAK_REPORT_GATE_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_GATE_MAX 10        /* caveats kept per line or pair; more are counted in dropped */
#define REPORT_GATE_TEXT 320      /* bytes of one reason or caveat, NUL included */
#define REPORT_MEMTOTAL_TOLERANCE 0.01
#define REPORT_VM_MAX 8           /* knobs kept per run */
#define REPORT_MAX_FACTORS 32     /* differences listed for a pair */

enum report_line_kind {
	REPORT_LINE_CAPACITY = 0,
	REPORT_LINE_FPU_COST,
	REPORT_LINE_HEADROOM,
	REPORT_LINE_ALLOC_FAIL,
	REPORT_LINE_SPAWN_FAIL,
	REPORT_LINE_SPAWNS,
	REPORT_LINE_ATOMIC,
	REPORT_LINE_TRACE_FAIL,
	REPORT_LINE_EXTFRAG,
	REPORT_LINE_OOM,
	REPORT_LINE_NKINDS
};

/* What a run ran under, as stored.  Strings "" and numbers -1 when not recorded. */
struct report_cond {
	/* confinement in force, read back at start (schema 7); an older run has only the version */
	char cgroup[8];                /* "v1", "v2", "none", "" unknown */
	int conf_exact;                /* 1: the limits below were read back from the kernel */
	char unconfined_why[REPORT_GATE_TEXT];
	int64_t memory_max, pids_max;  /* read back (else as set): 0 = no limit, -1 unknown */
	int64_t memory_set, pids_set;  /* what the user set (--cgroup-memory-max, --cgroup-pids-max); -1 unknown */
	int64_t pop_cap;               /* unconfined: the population and probe cap in force; -1 unknown */
	/* the workload and the probes, from the stored configuration */
	int has_churn;                 /* the run had churn at all */
	int64_t workers, lifetime_ms, worker_memory, probe_limit, switch_threads, sample_interval_ms;
	char spawn_rate[16], lifetime_dist[12], probe_scope[8];
	/* the machine */
	char fpu_kind[16], hypervisor[32], guest_type[16];
	int64_t mem_total_kb, xstate_bytes;
	/* the trace (schema 8): "on", "off", "" not recorded (an older fpusoakd) */
	char tracefs[4];
	char trace_why[REPORT_GATE_TEXT];   /* off: the reason the run recorded */
	int64_t trace_kb;                   /* on: Slab the instance took when it was made, kB; -1 unknown */
	/* what the user meant to vary */
	char kernel_release[96], label[96], cmdline[256];
	char fragment[8];              /* the fragmenting load that ran: off|light|heavy; "" unknown */
	char gfp_mode[16];             /* --gfp-mode in force: off|kernel|atomic|nowait|alternate; "" unknown */
	int vm_known;                  /* the knobs below were recorded (schema 13) */
	int nvm;
	struct {
		char name[32], value[24];
	} vm[REPORT_VM_MAX];           /* vm.min_free_kbytes, ..., thp.enabled (collector/vmknobs.h) */
};

/* A verdict's precondition: comparable or not, with the reason and the caveats. */
struct report_gate {
	int comparable;                              /* 0: not comparable; why says the first reason */
	char why[REPORT_GATE_TEXT];
	int ncaveats, dropped;                       /* caveats kept, and those over REPORT_GATE_MAX */
	char caveat[REPORT_GATE_MAX][REPORT_GATE_TEXT];
};

/* One thing the two runs differ in: its name and each side's value, as said in "what differs". */
struct report_factor {
	char name[40];                /* "fragmenting load", "vm.min_free_kbytes", "kernel" */
	char a[96], b[96];
	const char *rule;             /* one char per line kind (gate.c's table): '-' where it cannot matter */
};

struct report_factors {
	int n, dropped;
	struct report_factor f[REPORT_MAX_FACTORS];
	int vm_unknown;               /* a run without recorded vm knobs: they may differ unseen */
};

/* An empty condition: every field unknown ("" / -1). */
void report_cond_init(struct report_cond *c);

/* The pair: the machine (hypervisor, guest type, MemTotal, XSAVE size, FPU kind) decides comparable;
 * caveats: what differs as meant (kernel, cmdline, label) and what was not recorded. */
void report_gate_pair(const struct report_cond *a, const struct report_cond *b, struct report_gate *out);

/* Every difference in what a and b ran under, the experiment's first (load, --gfp-mode, kernel, command line,
 * vm knobs, trace, MemTotal), then the machine and the settings the gate weighs. */
void report_gate_factors(const struct report_cond *a, const struct report_cond *b, struct report_factors *out);

/* 1 if factor f can matter to a line of kind k (its rule is not '-' there), else 0. */
int report_factor_matters(const struct report_factor *f, enum report_line_kind k);

/* One line of the comparison, by the table above. */
void report_gate_line(enum report_line_kind kind, const struct report_cond *a, const struct report_cond *b,
		      struct report_gate *out);

/* 1 if a capacity probe's stop reason makes its count a lower bound, not a capacity, else 0. */
int report_probe_censored(const char *stop_reason);

/* Add what censoring did to one side (side 'A' or 'B'): kept probes, censored ones and the most common
 * reason; a side with none kept makes the line not comparable. */
void report_gate_censored(char side, size_t kept, size_t censored, const char *reason, struct report_gate *g);

/* Append a caveat (printf); kept if there is room, else counted in dropped. */
void report_gate_caveat(struct report_gate *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Make g not comparable with this reason, unless it already has one (the first reason stands). */
void report_gate_refuse(struct report_gate *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shorten every absolute path in s to its last component, in place ("cgroup /sys/fs/cgroup/memory/x/
 * fpusoakd-workers-HASH exists" -> "cgroup fpusoakd-workers-HASH exists"): a reason printed in a verdict stays
 * readable; the whole path is in the run's confinement row. */
void report_gate_short_paths(char *s);

#endif
