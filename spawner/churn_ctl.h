/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * churn_ctl: the population controller and the accounting, as pure code.
 *
 * No clock, no fork, no I/O: the spawner feeds it monotonic nanoseconds and
 * outcomes, and asks how many workers to start and how long each lives.
 * That keeps rate, lifetime and accounting unit-testable with a fake clock
 * and a fake spawner.
 *
 * Rate is a token bucket: rate_milli/1000 tokens a second, one per spawn
 * attempt (a failed attempt spends its token too, so a pids limit turns
 * into R failures/s, not a busy loop), capped at 100 ms worth (at least
 * one) so a wake-up that comes late does not lose spawns and a long pause
 * does not cause a stampede.  'max' has no bucket: the gap to the target is
 * filled at once.  After a failed attempt nothing is tried for 10 ms.
 *
 * Lifetimes: exp (memoryless, like real process lifetimes: a steady
 * population of target = rate x mean by Little's law), fixed, or uniform on
 * [0, 2 x mean).  Randomness is xoshiro256** seeded through splitmix64, so
 * a --seed replays the same lifetimes.
 */
#ifndef FPUSOAK_CHURN_CTL_H
#define FPUSOAK_CHURN_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "common/rng.h"

#define CHURN_RATE_MAX UINT64_MAX        /* rate_milli for --spawn-rate max */
#define CHURN_RATE_MILLI_CAP 1000000000u /* 1,000,000 spawns/s: above that, say max */
#define CHURN_LIFETIME_CAP_MS (7LL * 24 * 3600 * 1000)
#define CHURN_BACKOFF_NS 10000000LL      /* 10 ms after a failed spawn */

enum churn_dist { CHURN_DIST_EXP = 0, CHURN_DIST_FIXED, CHURN_DIST_UNIFORM };

/* What the population should look like; changeable at run time. */
struct churn_params {
	int32_t workers;        /* target population; 0 = no churn */
	int32_t dist;           /* enum churn_dist */
	uint64_t rate_milli;    /* spawns per 1000 s (50/s = 50000); CHURN_RATE_MAX = as fast as possible */
	int64_t lifetime_ms;    /* mean lifetime; 0 = exit right after the FPU touch */
};

/*
 * Cumulative, since the spawner started; one set for churn workers and one
 * for capacity-probe workers.  Identity (churn_counters_check):
 * spawned = exited + killed_sigkill + killed_sigsegv + killed_sigill + killed_other + gfp_failed
 *           + population.
 * exited_retired and exited_error are subsets of exited; oom_killed and
 * killed_ours are disjoint subsets of killed_sigkill: an OOM kill matched
 * to this death (churn_oom_attribute), and a SIGKILL the spawner itself sent
 * (a worker that ignored SIGTERM past the retire/release/stop timeout).  The
 * rest of killed_sigkill is someone else's kill.
 * gfp_failed is a cause of its own: a worker whose HOLD of its FPU-state
 * object was refused (--gfp-mode, worker/gfpmod.h) SIGKILLs itself, as the 2014
 * kernel killed the task; those deaths are not in killed_sigkill.
 */
struct churn_counters {
	uint64_t spawned;
	uint64_t spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other;
	uint64_t exited;          /* exit() of any code */
	uint64_t exited_retired;  /* ... ended early by our SIGTERM (probe, stop) */
	uint64_t exited_error;    /* ... worker setup failed (cgroup move, FPU, memory) */
	uint64_t killed_sigkill, killed_sigsegv, killed_sigill, killed_other;
	uint64_t gfp_failed;      /* died by its own SIGKILL after the allocator refused its HOLD */
	uint64_t oom_killed;      /* ... of which OOM kills (of killed_sigkill) */
	uint64_t killed_ours;     /* ... of which our own SIGKILL (of killed_sigkill) */
	uint64_t population;      /* workers alive now */
	int32_t last_spawn_errno; /* errno of the latest failed spawn, 0 if none */
	int32_t last_exit_error;  /* latest non-zero, non-retired exit code, 0 if none */
	int32_t last_signal;      /* latest killing signal, 0 if none */
	int32_t pad;
};

struct churn_ctl {
	struct churn_params p;
	struct rng rng;
	int64_t last_ns;          /* last bucket refill */
	uint64_t tokens;          /* in units of 1e-12 spawn */
	int64_t backoff_until_ns;
};


/* Start at now_ns with a full token for an immediate first spawn. */
void churn_ctl_init(struct churn_ctl *c, const struct churn_params *p, uint64_t seed, int64_t now_ns);
/* Change parameters at now_ns (tokens earned so far are kept, re-capped to the new burst). */
void churn_ctl_set(struct churn_ctl *c, const struct churn_params *p, int64_t now_ns);
/* Spawn attempts allowed now, given 'alive' churn workers (never more than target - alive). */
int churn_ctl_due(struct churn_ctl *c, int64_t now_ns, uint64_t alive);
/* Spend n tokens for n attempts made (successful or not). */
void churn_ctl_spent(struct churn_ctl *c, int n);
/* An attempt failed at now_ns: no attempt for CHURN_BACKOFF_NS. */
void churn_ctl_failed(struct churn_ctl *c, int64_t now_ns);
/* Earliest time an attempt may become due if 'alive' stays as is; INT64_MAX if only a death can help. */
int64_t churn_ctl_next_ns(const struct churn_ctl *c, int64_t now_ns, uint64_t alive);
/* Draw the next worker's lifetime in ms (0 when the mean is 0). */
int64_t churn_ctl_lifetime_ms(struct churn_ctl *c);

/* Count a successful spawn. */
void churn_count_spawned(struct churn_counters *k);
/* Count a failed spawn by errno (EAGAIN, ENOMEM, other). */
void churn_count_spawn_failed(struct churn_counters *k, int err);
/* Count a death from waitid: code CLD_EXITED/CLD_KILLED/CLD_DUMPED, status = exit code or signal. */
void churn_count_death(struct churn_counters *k, int code, int status);
/* Count a worker that killed itself because its HOLD was refused (gfp_failed, not killed_sigkill). */
void churn_count_gfp_failed(struct churn_counters *k);

/* What the spawner knows of a SIGKILL death: nothing, its own kill, or a matched OOM kill. */
enum churn_kill_cause { CHURN_KILL_UNKNOWN = 0, CHURN_KILL_OURS, CHURN_KILL_OOM };

/* churn_count_death, with the cause of a SIGKILL (ignored for any other death). */
void churn_count_death_cause(struct churn_counters *k, int code, int status, enum churn_kill_cause cause);

/* A SIGKILL death we did not cause, with memcg_total OOM kills counted by the workers' memory cgroup
 * and *attributed of them matched to deaths so far: 1 (and ++*attributed) if it is one of them, else 0. */
int churn_oom_attribute(uint64_t memcg_total, uint64_t *attributed);
/* 0 if the invariant holds, -1 if not. */
int churn_counters_check(const struct churn_counters *k);

/* Parse "50", "0.5", "12.345" (up to 3 decimals) or "max" spawns/s into rate_milli; 0 or -1 (0/s is -1). */
int churn_rate_parse(const char *s, uint64_t *rate_milli);
/* Format rate_milli as "50", "0.5" or "max" into out; returns out. */
const char *churn_rate_format(uint64_t rate_milli, char *out, size_t outlen);
/* Parse "exp|fixed|uniform"; 0 or -1. */
int churn_dist_parse(const char *s, enum churn_dist *out);
/* "exp", "fixed", "uniform" or "?". */
const char *churn_dist_name(int dist);

#endif
