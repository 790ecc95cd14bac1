/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * state: the spawner's state, shared by the files of the spawner
 * (spawner/spawner*.c) and by no one else: the daemon holds a struct churn
 * (churn.h) and talks to the spawner only through churn_proto.h's records.
 *
 *   spawner.c        the loop, commands, stop, setup (spawner_main)
 *   spawner_tab.c    the PID table
 *   spawner_rec.c    records to the daemon, the group's OOM counter
 *   spawner_fork.c   what workers inherit, forking them
 *   spawner_probe.c  the capacity and switch probes
 *   spawner_reap.c   reaping, and what each death was
 */
#ifndef FPUSOAK_SPAWNER_STATE_H
#define FPUSOAK_SPAWNER_STATE_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cgroup/cgroup.h"
#include "spawner/churn_ctl.h"
#include "spawner/churn_proto.h"
#include "spawner/probe.h"
#include "worker/fpu.h"
#include "worker/gfpmod.h"

#define OUTBOX_MAX 32               /* undeliverable must-arrive records held for retry */
#define RETIRE_NS 3000000000LL      /* SIGTERM, then SIGKILL after this */

enum role { ROLE_FREE = 0, ROLE_CHURN, ROLE_PROBE, ROLE_SWITCH };
#define SLOT_GFP_FAILED 1           /* the worker wrote its PID to the gfp pipe: its SIGKILL was its own */
#define SLOT_RELEASED 2             /* a probe worker the release has sent SIGTERM */

struct slot {
	pid_t pid;
	int16_t role;
	uint8_t ours;                /* we sent it SIGKILL: its SIGKILL death is ours, not an OOM kill */
	uint8_t flags;               /* SLOT_GFP_FAILED, SLOT_RELEASED */
	int64_t born_ms;
};

/* Open addressing, linear probing, backward-shift deletion: no tombstones, no allocation per spawn. */
struct table {
	struct slot *s;
	size_t mask, n;
};

struct spawner {
	const struct spawner_cfg *cfg;
	struct cgroup *cg;
	int sock, sigfd;
	pid_t self;
	enum fpu_kind kind;
	int clone_fd, procs_fd;
	struct churn_ctl ctl;
	struct churn_params want;    /* as the daemon asked, before caps */
	struct churn_counters c;     /* churn workers */
	struct churn_counters pc;    /* capacity-probe workers */
	struct table tab;
	uint64_t probe_alive;
	int state;                   /* enum churn_state */
	int stopping, stop_killed;
	int64_t stop_deadline;
	int64_t next_status;
	uint32_t seq;
	int deaths_sent;             /* this status period */
	uint64_t deaths_dropped, probes_done;
	int have_oom;
	uint64_t oom_base, oom_last, oom_attributed;   /* memory cgroup's oom_kill; kills matched to deaths */

	/* capacity probe */
	struct probe_cap cap;
	int cap_pending, cap_killed;
	int ready_rd, ready_wr;
	int64_t phase_deadline, t_retire, t_released, start_real_ms;
	uint64_t cap_oom, saved_mem_max;
	struct {                     /* the retirement in progress (churn, then probe workers): spawner_probe.c */
		int role;
		uint64_t alive_seen;         /* alive at the last death seen (the deadline moves on) */
	} retire;
	int lifted;
	struct {                     /* the last probe workers, until they sleep (spawner_probe.c, settle) */
		pid_t pid[2];                /* SETTLE_SLOTS; 0: free */
		int64_t since[2];            /* when pid[i] was forked (monotonic ns) */
		int64_t until, step;         /* look again at until; step: the current back-off */
		uint64_t waits, gave_up, full; /* this probe: forks deferred, forks beside a runnable one, waits with every slot runnable */
	} settle;

	/* switch probe */
	int sw_pending;
	pid_t sw_pid;
	int sw_rd, sw_have;
	struct probe_switch_result sw;
	int64_t sw_start, sw_start_real;

	int nshed;                   /* library mappings unmapped from the spawner; see shed_libraries */
	int in_memcg;                /* v1: the spawner sits in the workers' memory group (cgroup.h);
					procs_fd is then -1: workers are born there */
	int privs_dropped;           /* the spawner holds no capabilities: workers inherit that */
	int raw_ok;                  /* clone3 works here (raw_fork_ok) */

	/* --gfp-mode (gfp.h): workers HOLD; a refused one writes its PID to the pipe and SIGKILLs itself */
	enum gfp_mode gfp_mode;      /* in force; GFP_MODE_OFF when the device would not open */
	uint32_t gfp_size;
	int gfp_rd, gfp_wr;
	uint64_t cap_probes;         /* capacity probes started: alternate picks kernel/atomic by it */
	enum gfp_mode cap_gfp;       /* mode of the capacity probe in progress */
	int cap_gfp_failed;

	struct {
		struct churn_rec *rec[OUTBOX_MAX];
		size_t len[OUTBOX_MAX];
		int n;
	} out;
	uint64_t out_dropped;
	/*
	 * The record being composed (8 KiB with a raw buddyinfo: not on the stack of every caller).  Each
	 * record is filled and emitted by one function, which calls no other composer in between.
	 */
	struct churn_rec rec;
};

static inline int64_t spawner_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t spawner_real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
