/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon: the one daemon context, its lifecycle and the event loop over it.
 *
 * Everything mutable lives in struct daemon, owned by the loop thread.
 * Signals arrive through a signalfd, timers through timerfds (CLOCK_MONOTONIC:
 * a wall-clock jump never makes the sampler burst or stall); stored
 * timestamps are CLOCK_REALTIME milliseconds.
 *
 * The daemon knows nothing of HTTP: what serves its data (the web process,
 * run and supervised by cmd/front.c) is a front end reached through struct
 * daemon_hooks.  The daemon opens it once the first sample is stored, hands
 * it every sample and every status line, watches the one fd it names (its
 * child, its restart timer), and closes it at exit; a front end only reads
 * what it is handed, and the DB through its own read-only handles.
 */
#ifndef FPUSOAK_DAEMON_H
#define FPUSOAK_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "collector/buddyinfo.h"
#include "collector/envinfo.h"
#include "collector/kv.h"
#include "daemon/config.h"
#include "report/headroom.h"
#include "report/run.h"
#include "spawner/churn_ctl.h"

#define DAEMON_STATUS_MS 5000   /* the status line, health, queue flush and retention period */

struct store;
struct sampler;
struct kwatch;
struct tracewatch;
struct churnlink;
struct gfplink;
struct causes;
struct envinfo;
struct query;

/* The latest sample as the front end sees it (for /metrics); pointers are valid during the hook only. */
struct daemon_sample {
	int64_t run_id;                  /* current run, > 0 */
	int64_t run_started_ms;          /* epoch ms */
	/* The run as v_runs has it (label, kernel_release, hypervisor, guest_type); NULL = "". */
	const char *label, *kernel_release, *hypervisor, *guest_type;
	uint64_t samples_total;          /* ticks taken in this run */
	uint64_t samples_queued;         /* ticks waiting for the DB to accept writes */
	uint64_t samples_dropped;        /* ticks dropped since start because that queue was full */
	int64_t sample_ts_ms;            /* when the last tick was taken, epoch ms */
	int64_t sample_us;               /* read+parse time of the last tick, microseconds */
	const struct buddyinfo *buddy;   /* NULL when the last read failed */
	const struct kv_set *vmstat;     /* NULL when the last read failed */
	const struct kv_set *meminfo;    /* NULL when the last read failed */
	struct report_orders orders;     /* the orders of interest of this sample (report_orders_live) */
	int request_orders;              /* request verdicts of the tick for orders 0..request_orders-1; 0 = none */
	uint32_t request_atomic, request_nowait, request_kernel;   /* bit k: order k passes (v_atomic_request) */
	const struct churn_counters *churn;   /* NULL = churn off */
	const struct churn_counters *probe;   /* with churn: the capacity-probe workers' own counters */
	uint64_t oom_unattributed;       /* with churn: OOM kills in the workers' group matched to no worker */
	double last_capacity;            /* with churn: last capacity probe; NaN = none yet */
	double last_switch_us;           /* with churn: last FPU-cost probe, system us per yield; NaN = none yet */
	const uint64_t *alloc_failures;  /* BUDDY_MAX_ORDER kernel-log counters by order, NULL without a kernel log */
	const uint64_t (*trace_failures)[3];   /* 16 orders x (sleeping, atomic, opportunistic), NULL = tracefs off */
	uint64_t trace_fallbacks, trace_fragmenting;   /* with trace_failures: extfrag events since start */
	int has_oom_kills;               /* 1: oom_kills is a kernel-log count */
	uint64_t oom_kills;
	int gfp_holding;                 /* workers HOLD through the fpusoak_gfp module (--gfp-mode in force) */
	int model_checking;              /* model checks run (the module is loaded and the interval is not 0) */
	uint64_t model_checks, model_agreed;   /* since start */
	/* Failures classified since start, [source - 1][cause][order] (daemon/causes.h); NULL: none kept. */
	const uint64_t (*failure_causes)[4][16];
};

/* The front end's side of the daemon; any hook may be NULL. */
struct daemon_hooks {
	void *arg;
	/* Once, right after the configuration is read and before anything is started or written: claim what
	 * the front end needs from the system (its listening socket); 0, or -1 with err (exit 69). */
	int (*bind)(void *arg, const struct config *cfg, char *err, size_t errlen);
	/* Once, after the first sample is stored and before READY=1; 0, or -1 with err set (the run ends "error"). */
	int (*open)(void *arg, const struct config *cfg, char *err, size_t errlen);
	/* After every sample once open succeeded. */
	void (*sample)(void *arg, const struct daemon_sample *s);
	/* Every status period: the one-line status (as sd_notify STATUS=) and whether the sampler is healthy. */
	void (*status)(void *arg, const char *line, int healthy);
	/* At exit, after the last sample is stored; also when open was never called. */
	void (*close)(void *arg);
	/* After open: an fd the loop polls for input on the front end's behalf, or -1 (asked once). */
	int (*fd)(void *arg);
	/* That fd is readable: the front end's own work (a child to reap and restart); it must not block. */
	void (*event)(void *arg);
	/* on = 1: a guest-scope fill begins, let go of what can be let go of (the web process), without
	 * blocking; asked again until it returns 1 = all of it is gone.  on = 0: it ended, take it back. */
	int (*quiet)(void *arg, int on);
};

struct daemon {
	struct config cfg;
	int argc;
	char **argv;
	const struct daemon_hooks *hooks;
	int front_open;              /* hooks->open succeeded */
	struct store *store;
	struct report_status_series trend;   /* the status line's headroom trend, from the ticks sampled */
	struct sampler *sampler;
	struct kwatch *kwatch;
	struct tracewatch *trace;    /* NULL: tracefs=off (the run's note says why) */
	struct churnlink *churn;     /* NULL: no churn (off, or the spawner is gone) */
	struct gfplink *gfp;         /* the fpusoak_gfp module (mode in force, model checks) */
	struct causes *causes;       /* why failed allocations failed (daemon/causes.h) */
	struct envinfo run_env;      /* the run's environment, read once at start (5 KiB) */
	const struct envinfo *env;   /* &run_env once it is read; NULL before */
	char run_label[sizeof ((struct config *)0)->label];   /* as stored with the run: SIGHUP does not change it */
	int64_t last_slow_mono_ms;   /* 0: the next tick reads the slow sources */
	int64_t run_id;
	int64_t run_started_ms;
	int64_t last_tick_wall_ms;
	int64_t tick_late_ms, tick_missed;   /* of the tick about to run (tick_timer_read) */
	int64_t start_mono_ms;
	int64_t first_tick_mono_ms;          /* the first sample's: the tick timer's grid (loop.c) */
	int64_t last_tick_mono_ms;   /* health: when the sampler last completed */
	int64_t ticks;
	int quiet;                   /* 1: stepping aside for a guest-scope fill; 2: gave up on it (quiet.c) */
	int quiet_pinned;            /* while quiet: the locked pages were taken again from scratch */
	int64_t quiet_since_mono_ms;
	int64_t trace_retry_mono_ms; /* the trace instance could not be made again after a fill: next try */
	int epfd, sigfd, tick_tfd, status_tfd;   /* created by daemon_main before the spawner forks */
	int stop;                    /* set by SIGTERM/SIGINT or --duration */
};

/* Run the daemon with argv's configuration and the front end h: the process's exit code. */
int daemon_main(int argc, char **argv, const struct daemon_hooks *h);

/* Register the fds with epoll, arm the timers and run until stopped; the process exit code. */
int loop_run(struct daemon *d);

/* Hand the latest sample to the front end (a no-op until it is open). */
void loop_publish(struct daemon *d);

/* Take one sample (fast sources, slow ones when due, kernel-log events) and submit it; 0 if written, 1 if queued, -1. */
int loop_tick(struct daemon *d);

/* The last tick, off the timer (stopping): its lateness and the periods since the last tick, then loop_tick. */
int loop_tick_last(struct daemon *d);

/*
 * Step aside while a guest-scope capacity probe fills the guest, and come back when it is done
 * (quiet.c): the fill counts what the guest holds, and the daemon is part of the guest.  Call after
 * anything that may start or end a probe; cheap when nothing changed.
 */
void quiet_update(struct daemon *d);

/* After a tick is stored: the trace instance removed for a fill is made again (quiet.c). */
void quiet_after_tick(struct daemon *d);

/* Come back now if stepped aside (at exit). */
void quiet_end(struct daemon *d);

#endif
