/* SPDX-License-Identifier: GPL-2.0-only */
/* loop: timers, signals, the tick and the status line; see daemon.h. */
#include "daemon/daemon.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "collector/envinfo.h"
#include "common/clock.h"
#include "common/log.h"
#include "daemon/causes.h"
#include "daemon/churnlink.h"
#include "daemon/gfplink.h"
#include "daemon/kwatch.h"
#include "daemon/tracewatch.h"
#include "daemon/notify.h"
#include "daemon/sampler.h"
#include "report/headroom.h"
#include "report/run.h"
#include "store/store.h"

/*
 * The tick timer on the grid of the first sample (FIRST_MONO_MS, CLOCK_MONOTONIC): every PERIOD_MS
 * after it.  The first sample is taken before the web process starts (READY=1 promises one); a
 * start-up longer than a period then shows as missed periods at the first read (a timer armed in
 * the past counts its overruns), not as a gap nothing explains.
 */
static int timer_arm_from(int fd, int64_t first_mono_ms, int64_t period_ms)
{
	struct itimerspec its = { 0 };
	int64_t at = first_mono_ms + period_ms;

	its.it_interval.tv_sec = period_ms / 1000;
	its.it_interval.tv_nsec = (period_ms % 1000) * 1000000;
	its.it_value.tv_sec = at / 1000;
	its.it_value.tv_nsec = (at % 1000) * 1000000;
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Arm FD to fire every PERIOD_MS from now. */
static int timer_arm(int fd, int64_t period_ms)
{
	return timer_arm_from(fd, clock_mono_ms(), period_ms);
}

/* Healthy = the sampler completed within three periods (and at least 3 s). */
static int healthy(const struct daemon *d)
{
	int64_t slack = 3 * d->cfg.sample_interval_ms;

	if (slack < 3000)
		slack = 3000;
	return d->ticks > 0 && clock_mono_ms() - d->last_tick_mono_ms <= slack;
}

void loop_publish(struct daemon *d)
{
	const struct pagetypeinfo *pt;
	struct daemon_sample s;

	if (!d->front_open || !d->hooks->sample)
		return;
	pt = sampler_pagetypeinfo(d->sampler);
	s = (struct daemon_sample){
		.run_id = d->run_id,
		.run_started_ms = d->run_started_ms,
		.label = d->run_label,
		.kernel_release = d->env ? d->env->kernel_release : NULL,
		.hypervisor = d->env ? d->env->hypervisor : NULL,
		.guest_type = d->env ? d->env->guest_type : NULL,
		.samples_total = (uint64_t)d->ticks,
		.samples_queued = store_queued(d->store),
		.samples_dropped = store_dropped(d->store),
		.sample_ts_ms = d->last_tick_wall_ms,
		.sample_us = sampler_last_cost_us(d->sampler),
		.buddy = sampler_buddyinfo(d->sampler),
		.vmstat = sampler_vmstat(d->sampler),
		.meminfo = sampler_meminfo(d->sampler),
		.churn = churnlink_counters(d->churn),
		.probe = churnlink_probe_counters(d->churn),
		.oom_unattributed = churnlink_oom_unattributed(d->churn),
		.last_capacity = churnlink_last_capacity(d->churn),
		.last_switch_us = churnlink_last_switch(d->churn),
		.alloc_failures = d->kwatch ? kwatch_failures_by_order(d->kwatch) : NULL,
		.has_oom_kills = d->kwatch != NULL,
		.oom_kills = d->kwatch ? kwatch_oom_kills(d->kwatch) : 0,
		.trace_failures = d->trace ? (const uint64_t (*)[3])tracewatch_totals(d->trace)->by_oc : NULL,
		.trace_fallbacks = tracewatch_totals(d->trace)->extfrag,
		.trace_fragmenting = tracewatch_totals(d->trace)->fragmenting,
		.gfp_holding = gfplink_mode(d->gfp) != 0,
		.model_checking = gfplink_check_interval_ms(d->gfp) > 0,
	};
	gfplink_totals(d->gfp, &s.model_checks, &s.model_agreed);
	s.failure_causes = d->causes ? causes_counts(d->causes) : NULL;
	report_orders_live(sampler_task_order(d->sampler), pt ? pt->pageblock_order : -1, &s.orders);
	s.request_orders = sampler_request(d->sampler, &s.request_atomic, &s.request_nowait, &s.request_kernel);
	d->hooks->sample(d->hooks->arg, &s);
}

/* Refused HOLDs the spawner reported: failed allocations of the module's slab, classified. */
static void hold_refusals(struct daemon *d, struct store_tick *t)
{
	struct churn_gfp_refusal r[32];
	int n, order = gfplink_hold_order(d->gfp);

	while ((n = churnlink_refusals(d->churn, r, 32)) > 0)
		for (int i = 0; i < n; i++)
			if (causes_module(d->causes, r[i].real_ms, "HOLD", r[i].mode, order < 0 ? 0 : (unsigned)order,
					  r[i].pid, t) < 0)
				log_warnx("gfp: out of memory: a refused HOLD's cause is not stored");
}

int loop_tick(struct daemon *d)
{
	int64_t now = clock_wall_ms(), mono = clock_mono_ms();
	struct store_tick *t;
	int rc;

	/* A tick's samples row is keyed (run_id, ts_ms): two ticks in one millisecond (one right after a
	 * queue flush) or a clock stepped back by less than a second would replace a stored tick.  Stamps
	 * stay strictly increasing; a larger step back is the store's to handle (zone rows, keyframes). */
	if (d->last_tick_wall_ms > 0 && now <= d->last_tick_wall_ms && d->last_tick_wall_ms - now < 1000)
		now = d->last_tick_wall_ms + 1;
	t = store_tick_new(d->store, d->run_id, now);
	if (!d->first_tick_mono_ms)
		d->first_tick_mono_ms = mono;

	if (!t) {
		log_warnx("out of memory: tick skipped");
		return -1;
	}
	store_tick_late(t, d->tick_late_ms, d->tick_missed);
	d->tick_late_ms = d->tick_missed = 0;
	sampler_fast(d->sampler, d->store, t);
	report_status_add(&d->trend, report_task_order(sampler_task_order(d->sampler)), now, sampler_buddyinfo(d->sampler));
	/* The zone state a failure of this tick's neighbourhood is judged against (daemon/causes.h). */
	causes_snapshot(d->causes, d->sampler, now);
	/* Right after zoneinfo and buddyinfo: the allocator is asked about the state the model just saw. */
	gfplink_tick(d->gfp, d->sampler, d->store, t, mono, now);
	if (!d->last_slow_mono_ms || mono - d->last_slow_mono_ms >= d->cfg.slow_interval_ms) {
		sampler_slow(d->sampler, d->store, t);
		/* The kernel sorts and prints every histogram at each read: a slow source (see tracewatch.h). */
		tracewatch_sample(d->trace);
		d->last_slow_mono_ms = mono;
	}
	kwatch_drain(d->kwatch, now, mono * 1000);
	kwatch_attach(d->kwatch, d->store, t);
	/* The pipe is drained here too: poll wake-ups are an early bonus, the tick is the guarantee. */
	tracewatch_drain(d->trace, now, mono * 1000);
	{
		int nf;
		const struct tracewatch_failure *f = tracewatch_failures(d->trace, &nf);
		/* Classified once stored: a tick that could not take them keeps them for the next. */
		if (tracewatch_attach(d->trace, d->store, t) == 0 && f)
			causes_trace(d->causes, f, nf, t);
	}
	if (d->churn) {
		churnlink_attach(d->churn, t);
		hold_refusals(d, t);
		store_tick_counter(d->store, t, "worker_oom_kills_kmsg", churnlink_worker_oom_kills(d->churn));
		if (!d->stop)   /* the last tick of a stop starts nothing */
			churnlink_schedule(d->churn, mono, 0);
	}
	quiet_update(d);
	rc = store_submit(d->store, t);
	if (rc == 0)
		store_rollup(d->store, d->run_id, now);
	d->last_tick_wall_ms = now;
	d->last_tick_mono_ms = clock_mono_ms();
	d->ticks++;
	loop_publish(d);
	quiet_after_tick(d);
	return rc;
}

/* Headroom trend for the status line: free blocks able to hold the task_struct slab's order in Normal,
 * over the last hour (report_status_headroom, from the series kept in memory). */
static const char *headroom_trend(struct daemon *d, char *buf, size_t len)
{
	struct report_status_headroom h;

	report_status_headroom(&d->trend, clock_wall_ms(), &h);
	if (!h.ok) {
		snprintf(buf, len, "headroom trend: after %d minutes", REPORT_TREND_MIN_POINTS);
		return buf;
	}
	snprintf(buf, len, "order-%d headroom %.0f, %+.0f/h [%+.0f, %+.0f]%s", h.order, h.last, h.slope_h, h.lo_h,
		 h.hi_h, h.falling ? ", falling" : "");
	return buf;
}

static void status(struct daemon *d)
{
	char line[768], churn[256], trend[160];
	int64_t up = (clock_mono_ms() - d->start_mono_ms) / 1000;
	int ok = healthy(d);

	snprintf(line, sizeof line, "run %lld, up %lldh%02lldm%02llds, %lld samples%s%s; %s; %s",
		 (long long)d->run_id, (long long)(up / 3600), (long long)(up / 60 % 60), (long long)(up % 60),
		 (long long)d->ticks, d->quiet == 1 ? ", stepping aside for a guest-scope fill" :
		 store_queued(d->store) ? ", DB not writable: samples queued" : "",
		 ok ? "" : ", sampler stalled", churnlink_status(d->churn, churn, sizeof churn),
		 headroom_trend(d, trend, sizeof trend));
	notify_status("%s", line);
	if (d->front_open && d->hooks->status)
		d->hooks->status(d->hooks->arg, line, ok);
	quiet_update(d);
	if (store_queued(d->store))
		store_flush(d->store);
	/* Retention in small slices from the status timer: a tick never waits on a large delete. */
	if (d->cfg.retain_raw_ms > 0)
		store_retain(d->store, clock_wall_ms() - d->cfg.retain_raw_ms);
}

static void watchdog(struct daemon *d)
{
	/* Ping only while the sampler really runs: a stuck sampler lets systemd's watchdog fire. */
	if (healthy(d))
		notify_watchdog();
}

static void on_signal(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			log_notice("received %s; stopping", si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
			d->stop = 1;
			break;
		case SIGHUP: {
			int64_t old = d->cfg.sample_interval_ms;
			if (config_reload(&d->cfg, d->argc, d->argv) != 0) {
				log_warnx("SIGHUP: configuration not reloaded (see the error above); keeping the old one");
				break;
			}
			log_set_level(d->cfg.log_level);
			if (d->cfg.sample_interval_ms != old)
				timer_arm(d->tick_tfd, d->cfg.sample_interval_ms);
			log_notice("SIGHUP: configuration reloaded (log level, intervals; other changes need a restart)");
			break;
		}
		case SIGUSR1:
			log_notice("SIGUSR1: capacity probe requested");
			if (d->churn) {
				churnlink_schedule(d->churn, clock_mono_ms(), 1);
				quiet_update(d);
			} else
				log_warnx("SIGUSR1: no churn engine running (--workers 0 and no probes?)");
			break;
		default:
			break;
		}
	}
}

static int add_fd(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * The tick timer fired: how late this tick is against the period it answers (the timer's interval
 * minus what is left of the next one) and how many periods passed with no tick (expirations - 1).
 * Missed periods are not replayed, one late tick never turns into a burst; but they are recorded
 * (v_tick_late), so a gap in the samples is always explained by the row after it.
 */
static void tick_timer_read(struct daemon *d)
{
	struct itimerspec its;
	uint64_t expirations = 0;
	int64_t left_ms, period = d->cfg.sample_interval_ms;

	if (read(d->tick_tfd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
		log_warn("timerfd read");
	d->tick_missed = expirations > 1 ? (int64_t)(expirations - 1) : 0;
	d->tick_late_ms = 0;
	if (expirations && timerfd_gettime(d->tick_tfd, &its) == 0) {
		left_ms = (int64_t)its.it_value.tv_sec * 1000 + its.it_value.tv_nsec / 1000000;
		if (left_ms >= 0 && left_ms <= period)
			d->tick_late_ms = period - left_ms;
	}
}

/*
 * Stopping with churn, one more tick stores what the spawner said last; reaping its workers may take
 * periods (595 ms at 200 ms under load in 10_daemon), and those periods had no tick: they are counted
 * as missed like any other, or the samples would show a gap nothing explains.
 */
int loop_tick_last(struct daemon *d)
{
	tick_timer_read(d);
	return loop_tick(d);
}

static void drain_timer(int fd)
{
	uint64_t expirations;
	/* Missed periods are not replayed: one late sample, never a burst. */
	if (read(fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
		log_warn("timerfd read");
}

int loop_run(struct daemon *d)
{
	int64_t wd_ms = (int64_t)notify_watchdog_interval_ms(), last_wd = 0;
	int64_t deadline = d->cfg.duration_ms ? d->start_mono_ms + d->cfg.duration_ms : 0;
	int front_fd = d->front_open && d->hooks->fd && d->hooks->event ? d->hooks->fd(d->hooks->arg) : -1;

	if (add_fd(d->epfd, d->sigfd) < 0 || add_fd(d->epfd, d->tick_tfd) < 0 || add_fd(d->epfd, d->status_tfd) < 0 ||
	    (d->kwatch && add_fd(d->epfd, kwatch_fd(d->kwatch)) < 0) ||
	    (tracewatch_fd(d->trace) >= 0 && add_fd(d->epfd, tracewatch_fd(d->trace)) < 0) ||
	    (d->churn && add_fd(d->epfd, churnlink_fd(d->churn)) < 0) ||
	    (churnlink_frag_fd(d->churn) >= 0 && add_fd(d->epfd, churnlink_frag_fd(d->churn)) < 0) ||
	    (front_fd >= 0 && add_fd(d->epfd, front_fd) < 0) ||
	    timer_arm_from(d->tick_tfd, d->first_tick_mono_ms ? d->first_tick_mono_ms : clock_mono_ms(),
			   d->cfg.sample_interval_ms) < 0 ||
	    timer_arm(d->status_tfd, DAEMON_STATUS_MS) < 0) {
		log_warn("event loop setup");
		return 1;
	}
	while (!d->stop) {
		struct epoll_event ev[8];
		int64_t now = clock_mono_ms(), timeout = -1;
		int n;

		if (wd_ms) {
			if (now - last_wd >= wd_ms) {
				watchdog(d);
				last_wd = now;
			}
			timeout = wd_ms - (now - last_wd);
		}
		if (deadline) {
			if (now >= deadline) {
				log_notice("--duration reached; stopping");
				d->stop = 1;        /* as a stop signal: nothing is started again on the way out (quiet.c) */
				break;
			}
			if (timeout < 0 || deadline - now < timeout)
				timeout = deadline - now;
		}
		n = epoll_wait(d->epfd, ev, 8, (int)timeout);
		if (n < 0 && errno != EINTR) {
			log_warn("epoll_wait");
			return 1;
		}
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == d->sigfd) {
				on_signal(d);
			} else if (ev[i].data.fd == d->tick_tfd) {
				tick_timer_read(d);
				loop_tick(d);
			} else if (d->kwatch && ev[i].data.fd == kwatch_fd(d->kwatch)) {
				kwatch_drain(d->kwatch, clock_wall_ms(), clock_mono_us());
			} else if (d->churn && ev[i].data.fd == churnlink_frag_fd(d->churn)) {
				int fd = churnlink_frag_fd(d->churn);
				if (churnlink_frag_drain(d->churn) < 0)
					epoll_ctl(d->epfd, EPOLL_CTL_DEL, fd, NULL);
				quiet_update(d);   /* the load paused: a guest-scope probe steps aside now */
			} else if (d->trace && ev[i].data.fd == tracewatch_fd(d->trace)) {
				if (tracewatch_drain(d->trace, clock_wall_ms(), clock_mono_us()) < 0)
					epoll_ctl(d->epfd, EPOLL_CTL_DEL, tracewatch_fd(d->trace), NULL);
			} else if (d->churn && ev[i].data.fd == churnlink_fd(d->churn)) {
				if (churnlink_drain(d->churn) < 0) {
					epoll_ctl(d->epfd, EPOLL_CTL_DEL, churnlink_fd(d->churn), NULL);
					churnlink_close(d->churn);
					d->churn = NULL;
				}
				quiet_update(d);
			} else if (front_fd >= 0 && ev[i].data.fd == front_fd) {
				d->hooks->event(d->hooks->arg);
			} else if (ev[i].data.fd == d->status_tfd) {
				drain_timer(d->status_tfd);
				status(d);
			}
		}
	}
	return 0;
}
