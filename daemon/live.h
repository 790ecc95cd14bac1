/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live: the latest sample, the status line and the loop's health, handed
 * from the daemon's core to its web process through one shared page set.
 *
 * The core owns a memfd (sealed so that nobody else can map it writable,
 * F_SEAL_FUTURE_WRITE) holding one struct live_shm; the web process gets
 * the fd at exec and maps it read-only.  Writes are a seqlock: seq is odd
 * while the core writes, a reader copies and retries until it saw the same
 * even seq before and after.  After each write the core wakes readers
 * waiting on the futex word `wake`; a reader that misses a wake-up only
 * sees the snapshot at its next wait's timeout.
 *
 * The snapshot holds values, never pointers, and only what /metrics, /,
 * /api/v1/status and /healthz show: the core builds no text for them (the
 * Prometheus exposition is built by the web process, web/metrics.h, once
 * per new sample), and a crashed or restarted web process reads the latest
 * state at once.  Of the vmstat/meminfo sets only the entries in use are
 * copied, so the pages the core touches (and locks) are those of a sample,
 * not of the whole struct.
 */
#ifndef FPUSOAK_LIVE_H
#define FPUSOAK_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "churn/churn_ctl.h"
#include "collector/buddyinfo.h"
#include "collector/kv.h"

#define LIVE_MAGIC 0x464c5631u        /* "FLV1" */
#define LIVE_VERSION 5             /* 3: the trace and fpusoak_gfp figures; 4: the run's facts, request verdicts;
				      5: failure causes */
#define LIVE_MAX_ORDERS 4
#define LIVE_STATUS_MAX 1024
#define LIVE_TRACE_ORDERS 16          /* struct daemon_sample's trace_failures[16][3] */
#define LIVE_LABEL_MAX 128            /* struct config's label */
#define LIVE_ENV_MAX 65               /* struct envinfo's kernel_release (hypervisor, guest_type: 32) */

/* One snapshot: the figures of struct daemon_sample by value, and the status period's line and health. */
struct live_data {
	int64_t run_id, run_started_ms;
	/* The run as v_runs has it (fpusoakd_run_info); "" = none. */
	char label[LIVE_LABEL_MAX], kernel_release[LIVE_ENV_MAX], hypervisor[LIVE_ENV_MAX], guest_type[LIVE_ENV_MAX];
	/* The tick's request verdicts (v_atomic_request) for orders 0..request_orders-1; bit k: order k passes. */
	int32_t request_orders;
	uint32_t request_atomic, request_nowait, request_kernel;
	uint64_t samples_total, samples_queued, samples_dropped;
	int64_t sample_ts_ms, sample_us;
	int32_t has_buddy, has_vmstat, has_meminfo, has_churn, has_alloc_failures, has_oom_kills;
	int32_t has_probe, pad0;
	int32_t norders, orders[LIVE_MAX_ORDERS];      /* headroom orders of interest */
	double last_capacity, last_switch_us;           /* NaN = none yet */
	uint64_t oom_kills;
	uint64_t oom_unattributed;                      /* OOM kills in the workers' group matched to no worker */
	uint64_t alloc_failures[BUDDY_MAX_ORDER];
	struct churn_counters churn;
	struct churn_counters probe;                    /* the capacity-probe workers' own counters */
	/* The trace (tracefs on): failed allocations by order and class (sleeping, atomic, opportunistic), extfrag. */
	int32_t has_trace, pad1;
	uint64_t trace_failures[LIVE_TRACE_ORDERS][3];
	uint64_t trace_fallbacks, trace_fragmenting;
	/* The fpusoak_gfp module: workers HOLD through it; model checks and their agreement since start. */
	int32_t gfp_holding, model_checking;
	uint64_t model_checks, model_agreed;
	/* Failures classified since start (daemon/causes.h): [source - 1][cause][order]. */
	int32_t has_causes, pad2;
	uint64_t failure_causes[3][4][16];
	/* The status period: the one-line status, the loop's health, and when the core last said so. */
	int32_t healthy, pad;
	int64_t health_mono_ms;                         /* CLOCK_MONOTONIC ms of the core's last status, 0 = none */
	char status[LIVE_STATUS_MAX];
	/* Last: the big sets, of which only the entries in use are written and read. */
	struct buddyinfo buddy;
	struct kv_set vmstat, meminfo;
};

struct live_shm {
	uint32_t magic, version;
	uint32_t size;                  /* sizeof(struct live_shm) of the writer */
	uint32_t wake;                  /* futex word: bumped after every write */
	uint64_t seq;                   /* seqlock: odd while writing; 0 = nothing written yet */
	struct live_data d;
};

struct live;

/* The core's side: create the shared snapshot (memfd, mapped, sealed); NULL with err. */
struct live *live_create(char *err, size_t errlen);

/* The fd to hand to the web process (CLOEXEC: dup2 it into place at exec). */
int live_fd(const struct live *lv);

/* Begin an update: the snapshot the core fills in (the seqlock is odd until live_commit). */
struct live_data *live_begin(struct live *lv);

/* End an update and wake readers. */
void live_commit(struct live *lv);

/* Unmap and close; accepts NULL. */
void live_close(struct live *lv);

/* Copy the used part of a kv set (n entries) into dst. Pure. */
void live_copy_kv(struct kv_set *dst, const struct kv_set *src);

/* Copy the used part of a buddyinfo (nzones zones) into dst. Pure. */
void live_copy_buddy(struct buddyinfo *dst, const struct buddyinfo *src);

/* The web process's side: map fd read-only and check it; NULL with err (not a live snapshot). */
const struct live_shm *live_map(int fd, char *err, size_t errlen);

/* Copy a consistent snapshot into *out; its seq (even, > 0), or 0 when nothing was written yet. */
uint64_t live_read(const struct live_shm *shm, struct live_data *out);

/* Wait up to timeout_ms for a write after the one read as seq; returns at once if there was one. */
void live_wait(const struct live_shm *shm, uint64_t seq, int timeout_ms);

/* Unmap what live_map mapped; accepts NULL. */
void live_unmap(const struct live_shm *shm);

#endif
