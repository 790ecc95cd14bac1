/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * probe: the capacity probe's decisions and the FPU-cost (switch) probe.
 *
 * Capacity: the decisions are a pure state machine over events the
 * spawner observes (retired, spawned, ready, death, OOM count, timeout),
 * so the rules are testable without processes:
 *   - a step is one new worker: spawn it, wait for its ready byte (it has
 *     touched its FPU and memory), reap, then compare the memory cgroup's
 *     oom_kill counter with its value at the start;
 *   - a step is clean when the worker is ready, no probe worker has died
 *     and no OOM kill happened; the result is the count after the last
 *     clean step;
 *   - the first unclean step ends the probe.  An OOM kill seen in the
 *     counter waits up to 500 ms for the victim's death so the reason can
 *     name the signal.
 * Watching every probe worker, not just the newest, matters: the OOM
 * killer picks the largest process with the highest oom_score_adj, which
 * is usually an older worker, and the newest then reports ready.  A probe
 * that only watched the newest overshot and leaked (see issue 3).
 *
 * The spawner's PID table is touched in full before the spawner joins the
 * workers' group, so its growth is never charged there: an earlier probe
 * drifted downward because of it.  How repeatable the count is, and why it
 * varies between runs at all, is measured in README ("Capacity probe
 * repeatability").
 *
 * Switch: a forked child starts N threads that each loop {FPU work;
 * sched_yield()} for a fixed time, then N threads that only yield;
 * getrusage(RUSAGE_SELF) over each pass gives system and user CPU per
 * yield, with and without live FPU state, so eager/lazy FPU kernels can be
 * compared the way the 2014 thread did with sysbench threads.
 */
#ifndef FPUSOAK_PROBE_H
#define FPUSOAK_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "churn/churn_proto.h"

#define PROBE_SETTLE_NS 500000000LL

enum probe_phase { PROBE_IDLE = 0, PROBE_RETIRING, PROBE_FILLING, PROBE_SETTLING, PROBE_RELEASING };
enum probe_act { PROBE_ACT_NONE = 0, PROBE_ACT_SPAWN, PROBE_ACT_RELEASE };

struct probe_cap {
	int phase;                  /* enum probe_phase */
	int limit;
	int waiting;                /* the newest worker has not reported ready */
	int stopped;                /* a stop reason is set */
	int64_t count;              /* workers ready and alive after the last clean step */
	int64_t spawned, ready;
	int64_t t_begin, t_fill, t_stop, deadline;   /* monotonic ns; deadline: step or settle */
	int64_t time_limit_ns;      /* the whole fill's bound (0: none); see probe_cap_bound */
	int timed_out;              /* 0, or which bound ended it: PROBE_TIMEOUT_STEP / _FILL */
	uint64_t oom_base, oom_last;
	char stop_reason[48];
};

enum { PROBE_TIMEOUT_STEP = 1, PROBE_TIMEOUT_FILL = 2 };

/* Begin: churn must be retired first (phase RETIRING). */
void probe_cap_begin(struct probe_cap *p, int limit, int64_t now);
/* Bound the fill (from its first spawn) to ns (0: no bound); call after probe_cap_begin.  A fill the
 * bound ends stops with "timeout", as a step timeout does: its count is a lower bound. */
void probe_cap_bound(struct probe_cap *p, int64_t ns);
/* "step" or "fill" for a probe stopped by a timeout, else "": which bound it was. */
const char *probe_cap_timeout_name(const struct probe_cap *p);
/* Churn workers are gone: start filling (SPAWN), or RELEASE at once for a zero limit. */
enum probe_act probe_cap_retired(struct probe_cap *p, int64_t now, uint64_t oom_base);
/* A spawn attempt returned (err 0 = forked); RELEASE on failure, else NONE until ready. */
enum probe_act probe_cap_spawned(struct probe_cap *p, int64_t now, int err, int64_t step_timeout_ns);
/* The newest worker is ready, deaths are reaped, oom_now read: SPAWN the next, or stop (RELEASE/NONE
 * while settling). */
enum probe_act probe_cap_ready(struct probe_cap *p, int64_t now, uint64_t oom_now);
/* A probe worker died (waitid code/status): stop, naming the death. */
enum probe_act probe_cap_death(struct probe_cap *p, int64_t now, int code, int status);
/* A probe worker killed itself because its HOLD in mode (a name: "atomic") was refused: stop with
 * "gfp_failed:<mode>", the 2014 test's end. */
enum probe_act probe_cap_gfp_failed(struct probe_cap *p, int64_t now, const char *mode);
/* Time passed: a step timeout or the end of settling; RELEASE or NONE. */
enum probe_act probe_cap_tick(struct probe_cap *p, int64_t now);
/* Stop from outside (daemon stopping): RELEASE. */
enum probe_act probe_cap_abort(struct probe_cap *p, int64_t now, const char *reason);
/* Every probe worker is gone: back to IDLE. */
void probe_cap_released(struct probe_cap *p, int64_t now);

/* What the switch-probe child writes to its pipe. */
struct probe_switch_result {
	int32_t threads, err;       /* threads started in the FPU pass; errno of a failure, 0 if none */
	int32_t fpu_kind, pad;
	uint64_t yields, base_yields;
	int64_t sys_us, user_us, base_sys_us, base_user_us;
	int64_t wall_ms;
};

/* In a fresh single-threaded child: run both passes, write the result to fd; never returns. */
void probe_switch_child(enum fpu_kind kind, int threads, int64_t pass_ms, int fd) __attribute__((noreturn));

/*
 * The switch probe's child is a fresh exec of the program (the spawner has
 * unmapped libraries that threads and glibc's fork handlers may need):
 * argv = { any, PROBE_SWITCH_ARGV1, kind, threads, pass_ms, fd }.  Every
 * main() of a program that runs the churn engine calls this first: for that
 * command line it runs probe_switch_child and never returns; else it returns 0.
 */
#define PROBE_SWITCH_ARGV1 "--internal-switch-probe"
#define PROBE_SWITCH_EXIT_EXEC 3      /* the child could not exec the program again */
int probe_switch_exec_main(int argc, char **argv);

/*
 * A pass too starved of CPU to measure anything: fewer yields than PROBE_SWITCH_MIN_YIELDS, or less CPU
 * time than PROBE_SWITCH_MIN_CPU_US (rusage counts in ticks on many kernels: 129 yields and 0 us of
 * system time beside a loaded make test made a per-yield cost of 0).  Such a probe stops
 * "failed:starved" and comparisons leave it out.
 */
#define PROBE_SWITCH_MIN_YIELDS 1000
#define PROBE_SWITCH_MIN_CPU_US 10000
int probe_switch_starved(const struct probe_switch_result *r);

/* Fill d's switch fields, result, stop_reason and detail from r. */
void probe_switch_report(const struct probe_switch_result *r, struct churn_probe_done *d);

/* "SIGKILL" (or "SIG<n>") into out; returns out. */
const char *probe_signame(int sig, char *out, size_t len);
/* "EAGAIN" / "ENOMEM" / ... (or "E<n>") into out; returns out. */
const char *probe_errname(int err, char *out, size_t len);

#endif
