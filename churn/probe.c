/* SPDX-License-Identifier: GPL-2.0-only */
/* probe: capacity-probe rules and the switch probe; see probe.h. */
#define _GNU_SOURCE
#include "churn/probe.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/num.h"

const char *probe_signame(int sig, char *out, size_t len)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGKILL, "SIGKILL" }, { SIGSEGV, "SIGSEGV" }, { SIGILL, "SIGILL" }, { SIGTERM, "SIGTERM" },
		{ SIGBUS, "SIGBUS" }, { SIGABRT, "SIGABRT" }, { SIGFPE, "SIGFPE" }, { SIGINT, "SIGINT" },
		{ SIGHUP, "SIGHUP" }, { SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" }, { SIGQUIT, "SIGQUIT" },
		{ SIGTRAP, "SIGTRAP" }, { SIGSYS, "SIGSYS" }, { SIGXCPU, "SIGXCPU" }, { SIGPIPE, "SIGPIPE" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig) {
			snprintf(out, len, "%s", names[i].name);
			return out;
		}
	snprintf(out, len, "SIG%d", sig);
	return out;
}

const char *probe_errname(int err, char *out, size_t len)
{
	static const struct { int err; const char *name; } names[] = {
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EPERM, "EPERM" }, { EACCES, "EACCES" },
		{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" }, { EBUSY, "EBUSY" }, { ENOSYS, "ENOSYS" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].err == err) {
			snprintf(out, len, "%s", names[i].name);
			return out;
		}
	snprintf(out, len, "E%d", err);
	return out;
}

/* ---- capacity ------------------------------------------------------------------------------ */

static enum probe_act release(struct probe_cap *p)
{
	p->phase = PROBE_RELEASING;
	p->waiting = 0;
	return PROBE_ACT_RELEASE;
}

/* Record the first reason only: later deaths are consequences (or our own release). */
static enum probe_act stop(struct probe_cap *p, int64_t now, const char *reason)
{
	if (!p->stopped) {
		snprintf(p->stop_reason, sizeof p->stop_reason, "%s", reason);
		p->stopped = 1;
		p->t_stop = now;
	}
	return release(p);
}

void probe_cap_begin(struct probe_cap *p, int limit, int64_t now)
{
	memset(p, 0, sizeof *p);
	p->phase = PROBE_RETIRING;
	p->limit = limit;
	p->t_begin = now;
}

void probe_cap_bound(struct probe_cap *p, int64_t ns)
{
	p->time_limit_ns = ns > 0 ? ns : 0;
}

const char *probe_cap_timeout_name(const struct probe_cap *p)
{
	return p->timed_out == PROBE_TIMEOUT_FILL ? "fill" : p->timed_out == PROBE_TIMEOUT_STEP ? "step" : "";
}

enum probe_act probe_cap_retired(struct probe_cap *p, int64_t now, uint64_t oom_base)
{
	if (p->phase != PROBE_RETIRING)
		return PROBE_ACT_NONE;
	p->phase = PROBE_FILLING;
	p->t_fill = now;
	p->oom_base = p->oom_last = oom_base;
	if (p->limit <= 0)
		return stop(p, now, "limit");
	return PROBE_ACT_SPAWN;
}

enum probe_act probe_cap_spawned(struct probe_cap *p, int64_t now, int err, int64_t step_timeout_ns)
{
	char e[24], reason[48];

	if (p->phase != PROBE_FILLING)
		return PROBE_ACT_NONE;
	if (err) {
		snprintf(reason, sizeof reason, "spawn_failed:%s", probe_errname(err, e, sizeof e));
		return stop(p, now, reason);
	}
	p->spawned++;
	p->waiting = 1;
	p->deadline = now + step_timeout_ns;
	/* The step's wait never outlasts the fill's bound: the spawner sleeps until the nearer one. */
	if (p->time_limit_ns && p->t_fill + p->time_limit_ns < p->deadline)
		p->deadline = p->t_fill + p->time_limit_ns;
	return PROBE_ACT_NONE;
}

enum probe_act probe_cap_ready(struct probe_cap *p, int64_t now, uint64_t oom_now)
{
	if (p->phase != PROBE_FILLING || !p->waiting)
		return PROBE_ACT_NONE;
	p->waiting = 0;
	p->ready++;
	p->oom_last = oom_now;
	if (oom_now > p->oom_base) {
		/* Somebody was OOM-killed during this step: wait briefly for the body, to name the signal. */
		snprintf(p->stop_reason, sizeof p->stop_reason, "oom_kill");
		p->stopped = 1;
		p->t_stop = now;
		p->phase = PROBE_SETTLING;
		p->deadline = now + PROBE_SETTLE_NS;
		return PROBE_ACT_NONE;
	}
	p->count = p->ready;
	if (p->count >= p->limit)
		return stop(p, now, "limit");
	if (p->time_limit_ns && now >= p->t_fill + p->time_limit_ns) {
		p->timed_out = PROBE_TIMEOUT_FILL;
		return stop(p, now, "timeout");
	}
	return PROBE_ACT_SPAWN;
}

enum probe_act probe_cap_death(struct probe_cap *p, int64_t now, int code, int status)
{
	char s[24], reason[48];

	if (p->phase != PROBE_FILLING && p->phase != PROBE_SETTLING)
		return PROBE_ACT_NONE;
	if (code == CLD_EXITED)
		snprintf(reason, sizeof reason, "worker_exited:%d", status);
	else
		snprintf(reason, sizeof reason, "worker_died:%s", probe_signame(status, s, sizeof s));
	/* A death explains an OOM kill seen in the counter: the named reason replaces "oom_kill". */
	if (p->phase == PROBE_SETTLING)
		p->stopped = 0;
	return stop(p, p->phase == PROBE_SETTLING ? p->t_stop : now, reason);
}

enum probe_act probe_cap_gfp_failed(struct probe_cap *p, int64_t now, const char *mode)
{
	char reason[48];

	if (p->phase != PROBE_FILLING && p->phase != PROBE_SETTLING)
		return PROBE_ACT_NONE;
	snprintf(reason, sizeof reason, "gfp_failed:%s", mode);
	/* As for a death: it names what an OOM kill seen in the counter meanwhile was about. */
	if (p->phase == PROBE_SETTLING)
		p->stopped = 0;
	return stop(p, p->phase == PROBE_SETTLING ? p->t_stop : now, reason);
}

enum probe_act probe_cap_tick(struct probe_cap *p, int64_t now)
{
	if (p->phase == PROBE_SETTLING && now >= p->deadline)
		return release(p);
	if (p->phase == PROBE_FILLING && p->waiting && now >= p->deadline) {
		p->timed_out = p->time_limit_ns && now >= p->t_fill + p->time_limit_ns ? PROBE_TIMEOUT_FILL
										   : PROBE_TIMEOUT_STEP;
		return stop(p, now, "timeout");
	}
	return PROBE_ACT_NONE;
}

enum probe_act probe_cap_abort(struct probe_cap *p, int64_t now, const char *reason)
{
	if (p->phase == PROBE_IDLE)
		return PROBE_ACT_NONE;
	if (p->phase == PROBE_RETIRING)
		p->t_fill = now;
	return stop(p, now, reason);
}

void probe_cap_released(struct probe_cap *p, int64_t now)
{
	(void)now;
	p->phase = PROBE_IDLE;
}

/* ---- switch -------------------------------------------------------------------------------- */

struct sw {
	enum fpu_kind kind;
	int use_fpu, go;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_int stop;
	atomic_ullong yields;
};

static void *sw_thread(void *arg)
{
	struct sw *w = arg;
	unsigned long long n = 0;

	pthread_mutex_lock(&w->mu);
	while (!w->go)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		if (w->use_fpu)
			fpu_work(w->kind, 16);
		sched_yield();
		n++;
	}
	atomic_fetch_add(&w->yields, n);
	return NULL;
}

static int64_t tv_us(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

/*
 * One pass: n threads for ms.  Returns the threads started (all of them on
 * success); a shortfall (pids limit: EAGAIN) ends the pass at once.  The
 * rusage window opens once every thread exists, so creation is not counted.
 */
static int sw_pass(enum fpu_kind kind, int use_fpu, int n, int64_t ms, uint64_t *yields, int64_t *sys_us,
		   int64_t *user_us, int *err)
{
	static pthread_t tid[1024];
	static struct sw w;
	pthread_attr_t attr;
	struct rusage r0, r1;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	int started, rc = 0;

	if (n > 1024)
		n = 1024;
	memset(&w, 0, sizeof w);
	w.kind = kind;
	w.use_fpu = use_fpu;
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (started = 0; started < n; started++) {
		rc = pthread_create(&tid[started], &attr, sw_thread, &w);
		if (rc != 0)
			break;
	}
	pthread_attr_destroy(&attr);
	if (started < n) {
		*err = rc;
		atomic_store(&w.stop, 1);
	}
	getrusage(RUSAGE_SELF, &r0);
	pthread_mutex_lock(&w.mu);
	w.go = 1;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	if (started == n)
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	atomic_store(&w.stop, 1);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	getrusage(RUSAGE_SELF, &r1);
	*yields = atomic_load(&w.yields);
	*sys_us = tv_us(r1.ru_stime) - tv_us(r0.ru_stime);
	*user_us = tv_us(r1.ru_utime) - tv_us(r0.ru_utime);
	return started;
}

void probe_switch_child(enum fpu_kind kind, int threads, int64_t pass_ms, int fd)
{
	struct probe_switch_result r;
	struct timespec t0, t1;
	int n;

	memset(&r, 0, sizeof r);
	r.fpu_kind = kind;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = sw_pass(kind, 1, threads, pass_ms, &r.yields, &r.sys_us, &r.user_us, &r.err);
	r.threads = n;
	if (n == threads)
		sw_pass(kind, 0, threads, pass_ms, &r.base_yields, &r.base_sys_us, &r.base_user_us, &r.err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r.wall_ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
		_exit(2);
	_exit(0);
}

/* A decimal argument in [lo, hi] (common/num's rules), or lo - 1. */
static int64_t arg_num(const char *a, int64_t lo, int64_t hi)
{
	int64_t v;

	return num_parse_i64(a, strlen(a), &v) < 0 || v < lo || v > hi ? lo - 1 : v;
}

int probe_switch_exec_main(int argc, char **argv)
{
	int64_t kind, threads, ms, fd;

	if (argc < 2 || strcmp(argv[1], PROBE_SWITCH_ARGV1) != 0)
		return 0;
	if (argc != 6 || (kind = arg_num(argv[2], 0, 64)) < 0 || (threads = arg_num(argv[3], 1, 4096)) < 1 ||
	    (ms = arg_num(argv[4], 1, 86400000)) < 1 || (fd = arg_num(argv[5], 3, 1023)) < 3)
		_exit(2);
	probe_switch_child((enum fpu_kind)kind, (int)threads, ms, (int)fd);
}

int probe_switch_starved(const struct probe_switch_result *r)
{
	return r->yields < PROBE_SWITCH_MIN_YIELDS || r->base_yields < PROBE_SWITCH_MIN_YIELDS ||
	       r->sys_us + r->user_us < PROBE_SWITCH_MIN_CPU_US || r->base_sys_us + r->base_user_us < PROBE_SWITCH_MIN_CPU_US;
}

void probe_switch_report(const struct probe_switch_result *r, struct churn_probe_done *d)
{
	d->threads = r->threads;
	d->fpu_kind = r->fpu_kind;
	d->yields = r->yields;
	d->base_yields = r->base_yields;
	d->sys_us_per_yield = r->yields ? (double)r->sys_us / (double)r->yields : 0;
	d->user_us_per_yield = r->yields ? (double)r->user_us / (double)r->yields : 0;
	d->base_sys_us_per_yield = r->base_yields ? (double)r->base_sys_us / (double)r->base_yields : 0;
	d->base_user_us_per_yield = r->base_yields ? (double)r->base_user_us / (double)r->base_yields : 0;
	d->result = d->sys_us_per_yield;
	if (r->err) {
		char e[24];
		snprintf(d->stop_reason, sizeof d->stop_reason, "failed:%s", probe_errname(r->err, e, sizeof e));
	} else if (!r->yields || !r->base_yields)
		snprintf(d->stop_reason, sizeof d->stop_reason, "failed:no_yields");
	else if (probe_switch_starved(r))
		snprintf(d->stop_reason, sizeof d->stop_reason, "failed:starved");
	else
		snprintf(d->stop_reason, sizeof d->stop_reason, "done");
	snprintf(d->detail, sizeof d->detail,
		 "fpu=%s threads=%d yields=%llu sys_us=%lld user_us=%lld sys_us_per_yield=%.4f "
		 "user_us_per_yield=%.4f base_yields=%llu base_sys_us=%lld base_user_us=%lld "
		 "base_sys_us_per_yield=%.4f base_user_us_per_yield=%.4f wall_ms=%lld",
		 fpu_kind_name((enum fpu_kind)r->fpu_kind), r->threads, (unsigned long long)r->yields,
		 (long long)r->sys_us, (long long)r->user_us, d->sys_us_per_yield, d->user_us_per_yield,
		 (unsigned long long)r->base_yields, (long long)r->base_sys_us, (long long)r->base_user_us,
		 d->base_sys_us_per_yield, d->base_user_us_per_yield, (long long)r->wall_ms);
}
