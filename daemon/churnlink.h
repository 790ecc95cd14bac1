/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * churnlink: the daemon's side of the churn engine.
 *
 * The spawner (churn/) is forked before any thread exists and reports in
 * records over a socket; this module drains them from the event loop, turns
 * its cumulative counters into per-tick rows (v_churn), stores finished
 * probes (v_probes), schedules capacity and FPU-cost probes, ties kernel-log
 * OOM kills to our workers by PID, and keeps the status line.
 */
#ifndef FPUSOAK_CHURNLINK_H
#define FPUSOAK_CHURNLINK_H

#include <stdint.h>

#include "churn/churn.h"
#include "daemon/config.h"

struct churnlink;
struct store;
struct store_tick;

enum churnlink_why { CHURNLINK_OK = 0, CHURNLINK_OFF, CHURNLINK_FAILED, CHURNLINK_REFUSED };

/*
 * Fork the spawner and the fragmenting load (call before any thread exists) with workers HOLDing
 * in gfp_mode (enum gfp_mode in force: gfplink_mode); NULL with err set and *why when churn is off
 * (--workers 0, no probes, --fragment off: CHURNLINK_OFF), could not start (CHURNLINK_FAILED), or a
 * cgroup limit the user gave explicitly cannot be applied and --allow-unconfined was not given
 * (CHURNLINK_REFUSED).  The workers' group is named after the canonical DB path (cgroup_instance_name).
 */
struct churnlink *churnlink_open(const struct config *cfg, int gfp_mode, enum churnlink_why *why, char *err,
				 size_t errlen);

/* The confinement in force (CGROUP_NONE with a reason when unconfined); zeroed for NULL. */
void churnlink_confinement(const struct churnlink *cl, struct churn_confinement *out);

/* The fragmenting load's fd to poll (-1: none); drain its records, -1 once it is gone and reaped. */
int churnlink_frag_fd(const struct churnlink *cl);
int churnlink_frag_drain(struct churnlink *cl);

/* Stop the workers and the spawner, keeping what it reports on the way out (a probe the stop cut short,
 * "stopped"; the last counts); 1 when a finished probe waits for a tick (the caller's last), else 0.
 * Accepts NULL; churnlink_close after it only reaps and cleans up. */
int churnlink_stop(struct churnlink *cl);

/* Stop every worker, reap the spawner, remove the cgroup; accepts NULL. */
void churnlink_close(struct churnlink *cl);

/* The fd to poll, -1 for NULL. */
int churnlink_fd(const struct churnlink *cl);

/* Drain records; -1 when the spawner is gone (churn stops, the daemon goes on). */
int churnlink_drain(struct churnlink *cl);

/* Record what the spawner resolved, once the run exists. */
void churnlink_run_started(struct churnlink *cl, struct store *st, int64_t run_id);

/* Attach this interval's churn row and any finished probe to t. */
void churnlink_attach(struct churnlink *cl, struct store_tick *t);

/* Start probes that are due (by the monotonic clock); SIGUSR1 asks for a capacity probe now. */
void churnlink_schedule(struct churnlink *cl, int64_t mono_ms, int force_capacity);

/* 1 from the request of a guest-scope capacity probe until its result arrives, else 0 (also for NULL). */
int churnlink_guest_fill(const struct churnlink *cl);

/* A guest-scope capacity probe waits for this before the spawner is asked for it: the daemon steps
 * aside first (daemon/quiet.c), so the whole fill sees it small.  No-op when none is waiting. */
void churnlink_probe_go(struct churnlink *cl);

/* The spawner's pid and the fragmenting load's (0: none). */
void churnlink_pids(const struct churnlink *cl, int64_t *spawner, int64_t *load);

/* A kernel-log OOM kill of pid: counted as one of ours if a worker with that PID just died. */
void churnlink_oom_pid(struct churnlink *cl, int64_t pid);

/* One status line (population, spawn rate, failures, last probe) into buf; returns buf. */
const char *churnlink_status(const struct churnlink *cl, char *buf, size_t len);

/* Cumulative counters for /metrics; NULL when churn is off. */
const struct churn_counters *churnlink_counters(const struct churnlink *cl);

/* The capacity-probe workers' cumulative counters; NULL when churn is off. */
const struct churn_counters *churnlink_probe_counters(const struct churnlink *cl);

/* OOM kills in the workers' group matched to no worker's death (yet); 0 when churn is off. */
uint64_t churnlink_oom_unattributed(const struct churnlink *cl);

/* Last capacity and FPU-cost results (NaN if none yet). */
double churnlink_last_capacity(const struct churnlink *cl);
double churnlink_last_switch(const struct churnlink *cl);

/* OOM kills in the kernel log that hit our workers. */
uint64_t churnlink_worker_oom_kills(const struct churnlink *cl);

/* Move the refused HOLDs the spawner reported since the last call into out (at most cap); how many. */
int churnlink_refusals(struct churnlink *cl, struct churn_gfp_refusal *out, int cap);

#endif
