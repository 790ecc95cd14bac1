/*
 * daemon: the one daemon context, and the event loop over it.
 *
 * Everything mutable lives in struct daemon, owned by the loop thread.
 * Signals arrive through a signalfd, timers through timerfds (CLOCK_MONOTONIC:
 * a wall-clock jump never makes the sampler burst or stall); stored
 * timestamps are CLOCK_REALTIME milliseconds.
 */
#ifndef FPUSOAK_DAEMON_H
#define FPUSOAK_DAEMON_H

#include <stdint.h>

#include "daemon/config.h"

struct store;
struct sampler;
struct web_server;
struct kwatch;
struct churnlink;
struct envinfo;

struct daemon {
	struct config cfg;
	int argc;
	char **argv;
	struct store *store;
	struct sampler *sampler;
	struct web_server *web;
	struct kwatch *kwatch;
	struct churnlink *churn;     /* NULL: no churn (off, or the spawner is gone) */
	const struct envinfo *env;   /* the run's environment, read once at start; NULL before */
	char run_label[sizeof ((struct config *)0)->label];   /* as stored with the run: SIGHUP does not change it */
	int64_t last_slow_mono_ms;   /* 0: the next tick reads the slow sources */
	int64_t run_id;
	int64_t run_started_ms;
	int64_t last_tick_wall_ms;
	int64_t start_mono_ms;
	int64_t last_tick_mono_ms;   /* health: when the sampler last completed */
	int64_t ticks;
	int epfd, sigfd, tick_tfd, status_tfd;
	int stop;                    /* set by SIGTERM/SIGINT or --duration */
	int ready_sent;
	char metrics_err_logged;
};

/* Create the fds, run until stopped, return the process exit code. */
int loop_run(struct daemon *d);

/* Rebuild the /metrics snapshot from the latest sample and hand it to the web server. */
void loop_publish(struct daemon *d);

/* Take one sample (fast sources, slow ones when due, kernel-log events) and submit it; 0 if written, 1 if queued, -1. */
int loop_tick(struct daemon *d);

#endif
