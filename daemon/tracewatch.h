/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracewatch: what fpusoakd's own tracefs instance (daemon/traceinst.h: made,
 * checked, removed) says, read from the event loop and handed to the store.
 *
 *   - Failed page allocations (kmem/mm_page_alloc, the kernel's filter keeps
 *     failures only) arrive in the instance's trace_pipe: read non-blocking
 *     whenever epoll says so and at every tick, at most TRACEWATCH_READ_MAX
 *     bytes a time, cut lines kept for the next read; each failure gets its
 *     wall time from its mono stamp, its class and, from the kernel's own
 *     table, its gfp mask.
 *   - Fallbacks (kmem/mm_page_alloc_extfrag) are counted in the kernel by
 *     the instance's hist triggers; their growth since the last read becomes
 *     the tick's counts.  Read them at the slow interval: each read makes the
 *     kernel sort and print every histogram (1.2 ms in the Xen test guest,
 *     against 23 us for an empty trace_pipe; bench/trace_cost.sh).  Where
 *     the kernel refused the triggers, the event's lines come through the
 *     pipe and are counted here instead.
 * Every tick then carries the trace (store_tick_trace), quiet ones too, so
 * the rollups know the trace was on.
 */
#ifndef FPUSOAK_TRACEWATCH_H
#define FPUSOAK_TRACEWATCH_H

#include "collector/task.h"
#include <stddef.h>
#include <stdint.h>

#include "collector/trace.h"
#include "daemon/traceinst.h"
#include "store/store.h"

struct tracewatch;

#define TRACEWATCH_READ_MAX (256 * 1024)   /* bytes of trace_pipe per drain: a storm cannot hold the loop */
#define TRACEWATCH_PENDING_MAX 512         /* failures held between two ticks; more are counted only */
#define TRACEWATCH_EXTFRAG_MAX 512         /* distinct extfrag keys per tick */
#define TRACEWATCH_DESC_MAX 768

struct tracewatch_opts {
	const char *sys_root;            /* "/sys"; any other root is taken as tracefs without the mount check (tests) */
	const char *proc_root;           /* "/proc": PID/stat for instance ownership, meminfo for the instance's cost */
	const struct traceinst_fs *fs;   /* NULL: the kernel's */
	int64_t pid;                     /* 0: getpid() */
};

/* One failed page allocation from the trace. */
struct tracewatch_failure {
	int64_t ts_ms;                   /* wall clock, from the trace's mono stamp */
	char comm[TRACE_COMM_MAX + 1];
	int32_t pid;
	int order, migratetype;
	char gfp_flags[TRACE_GFP_FLAGS_MAX + 1];
	int has_mask;                    /* gfp_mask known (the kernel's format file gave the table) */
	uint64_t gfp_mask;
	int nowarn, opportunistic, atomic;
	int has_task;                    /* task: read from /proc when the line was read (collector/task.h) */
	struct task_facts task;
};

/* Set up the instance; NULL when tracing stays off, with the reason in why ("not mounted: ...").
 * On success why describes what it got (path, instance, events and their aggregation, cost). */
struct tracewatch *tracewatch_open(const struct tracewatch_opts *o, char *why, size_t whylen);

/* Remove the instance (triggers, events, folder) and free; accepts NULL. */
void tracewatch_close(struct tracewatch *tw);

/* Read what is left, then remove the instance (a guest-scope fill: see tracewatch.c); ticks then carry
 * no trace until tracewatch_resume.  0; no-op when suspended already or NULL. */
int tracewatch_suspend(struct tracewatch *tw, int64_t wall_ms, int64_t mono_us);

/* Make the instance again after tracewatch_suspend (totals go on); 0, or -1 with why (still suspended). */
int tracewatch_resume(struct tracewatch *tw, char *why, size_t whylen);

/* 1 between tracewatch_suspend and a successful tracewatch_resume, else 0 (also for NULL). */
int tracewatch_suspended(const struct tracewatch *tw);

/* The trace_pipe fd to poll, -1 when nothing reaches the ring buffer, suspended, or tw is NULL. */
int tracewatch_fd(const struct tracewatch *tw);

/* Read what trace_pipe has now (bounded); wall_ms/mono_us map trace stamps to the wall clock; events kept, or -1. */
int tracewatch_drain(struct tracewatch *tw, int64_t wall_ms, int64_t mono_us);

/* Read the extfrag histograms and turn their growth since the last read into this tick's counts (call it at
 * the slow interval); 0 or -1 (logged once). */
int tracewatch_sample(struct tracewatch *tw);

/* Move this tick's failures and extfrag counts into t (store_tick_trace: the tick then carries the trace, even
 * empty), with the counters of what rows cannot show (failures past the bound, lost, unparsed); 0 or -1 (kept). */
int tracewatch_attach(struct tracewatch *tw, struct store *st, struct store_tick *t);

/* The pending failures and extfrag counts (what the next attach hands over), for tests. */
const struct tracewatch_failure *tracewatch_failures(const struct tracewatch *tw, int *n);
const struct store_extfrag *tracewatch_extfrags(const struct tracewatch *tw, int *n);

/* Cumulative since open: failed allocations, extfrag events, fragmenting ones, lines lost/unparsed. */
struct tracewatch_totals {
	uint64_t failures, failures_dropped, extfrag, fragmenting, lost, unparsed, other;
	uint64_t pipe_us, hist_us;       /* time spent reading the pipe, the histograms (their cost per tick) */
	uint64_t drains, empty_drains, samples;
	uint64_t by_order[16];           /* failures by order, 15 = 15 and above */
	uint64_t by_oc[16][3];           /* ... and by class: 0 sleeping, 1 atomic, 2 opportunistic */
};
const struct tracewatch_totals *tracewatch_totals(const struct tracewatch *tw);

/* The instance's name ("fpusoakd-123-4567"). */
const char *tracewatch_instance(const struct tracewatch *tw);

#endif
