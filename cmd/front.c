/* SPDX-License-Identifier: GPL-2.0-only */
/* front: the web process as the daemon's front end, supervised; see front.h. */
#define _GNU_SOURCE
#include "cmd/front.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/live.h"
#include "common/clock.h"
#include "common/helper.h"
#include "common/log.h"
#include "common/netaddr.h"
#include "common/sdlisten.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

#define WEB_EXE "fpusoakd-web"
/* Fds of the web process: the listening socket, the snapshot, the ready pipe (web_main.c reads them as flags). */
#define CHILD_LISTEN_FD 3
#define CHILD_LIVE_FD 4
#define CHILD_READY_FD 5
/* How long the first start may take before READY=1 goes out anyway (a TCG guest loads its libraries slowly). */
#define FIRST_START_MS 30000
/* A child that lived this long was healthy: the next restart is immediate.  Quicker deaths back off. */
#define STABLE_MS 10000
#define BACKOFF_MIN_MS 500
#define BACKOFF_MAX_MS 30000
#define STOP_WAIT_MS 2000

/* Keep our fds out of 3..5, which the child's file actions dup2 into place. */
static int move_high(int fd)
{
	int hi;

	if (fd < 0 || fd >= 10)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/*
 * Our environment minus what belongs to the core: only it talks to systemd (NotifyAccess=main), and
 * the web process, threaded and not locked, keeps glibc's tcache (only our own setting is dropped).
 */
static char **child_env(void)
{
	static const char *const drop[] = { "NOTIFY_SOCKET=", "WATCHDOG_USEC=", "WATCHDOG_PID=", "LISTEN_PID=",
					    "LISTEN_FDS=", "LISTEN_FDNAMES=" };
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 1, sizeof *env)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int skip = 0;
		for (size_t j = 0; j < sizeof drop / sizeof drop[0]; j++)
			skip |= strncmp(environ[i], drop[j], strlen(drop[j])) == 0;
		skip |= strcmp(environ[i], "GLIBC_TUNABLES=" CORE_TUNABLE) == 0;
		if (!skip)
			env[k++] = environ[i];
	}
	return env;
}

/*
 * Where pidfd_open is missing (Linux < 5.3; valgrind 3.19 does not know it), the web process, our
 * child, is watched through SIGCHLD instead: blocked, read from a signalfd in the front's epoll, and
 * every SIGCHLD (the spawner's and the fragmenting load's too) reaps the web process if it is the
 * one that ended.  Set up before the first spawn, so no death goes unnoticed.  The spawner, the load
 * and the web process set their own signal masks.  0, or -1 with errno.
 */
static int watch_by_sigchld(struct front *f)
{
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t set;
	int pfd;

	if (f->chldfd >= 0)
		return 0;
	pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pfd >= 0) {
		close(pfd);
		return 0;
	}
	if (errno != ENOSYS)
		return 0;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (f->chldfd = move_high(signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC))) < 0)
		return -1;
	ev.data.fd = f->chldfd;
	if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->chldfd, &ev) < 0)
		return -1;
	log_info("http: no pidfd_open here (ENOSYS): the web process is watched through SIGCHLD");
	return 0;
}

/* Start the web process; ready_wr >= 0 is the pipe it writes a byte to once it serves.  0 or -1. */
static int spawn_child(struct front *f, int ready_wr)
{
	char lfd[8], vfd[8], rfd[8];
	char *argv[16];
	int a = 0, e;
	struct epoll_event ev;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	char **env = child_env();

	if (!env)
		return -1;
	if (watch_by_sigchld(f) < 0) {
		log_warn("http: watching the web process through SIGCHLD");
		free(env);
		return -1;
	}
	snprintf(lfd, sizeof lfd, "%d", CHILD_LISTEN_FD);
	snprintf(vfd, sizeof vfd, "%d", CHILD_LIVE_FD);
	snprintf(rfd, sizeof rfd, "%d", CHILD_READY_FD);
	argv[a++] = f->exe;
	argv[a++] = "serve";
	argv[a++] = "--db";
	argv[a++] = f->db;
	argv[a++] = "--listen";      /* for its messages: it serves the socket it is handed */
	argv[a++] = f->listen;
	argv[a++] = "--listen-fd";
	argv[a++] = lfd;
	argv[a++] = "--live-fd";
	argv[a++] = vfd;
	argv[a++] = "--log-level";
	argv[a++] = f->log_level;
	if (ready_wr >= 0) {
		argv[a++] = "--ready-fd";
		argv[a++] = rfd;
	}
	argv[a] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, f->listen_fd, CHILD_LISTEN_FD);
	posix_spawn_file_actions_adddup2(&fa, live_fd(f->live), CHILD_LIVE_FD);
	if (ready_wr >= 0)
		posix_spawn_file_actions_adddup2(&fa, ready_wr, CHILD_READY_FD);
	posix_spawn_file_actions_addclosefrom_np(&fa, CHILD_READY_FD + 1);
	/* The core blocks its signals (signalfd) and ignores SIGPIPE; the web process starts clean. */
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	/* posix_spawn is a vfork: the core's locked pages are neither copied nor COW-marked. */
	e = posix_spawn(&f->child, f->exe, &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(env);
	if (e != 0) {
		f->child = 0;
		log_warnx("http: cannot start %s: %s", f->exe, strerror(e));
		return -1;
	}
	f->started_mono_ms = clock_mono_ms();
	if (f->chldfd >= 0)
		return 0;                /* watched through SIGCHLD */
	f->pidfd = (int)syscall(SYS_pidfd_open, f->child, 0);
	if (f->pidfd < 0) {
		log_warn("http: pidfd_open of the web process");
		kill(f->child, SIGKILL);
		waitpid(f->child, NULL, 0);
		f->child = 0;
		return -1;
	}
	f->pidfd = move_high(f->pidfd);
	fcntl(f->pidfd, F_SETFD, FD_CLOEXEC);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = f->pidfd };
	if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->pidfd, &ev) < 0)
		log_warn("http: watching the web process");
	return 0;
}

/* Reap the child if it has ended (wait: block until it has); 1 and a log line saying how, 0 if it runs. */
static int reap_child(struct front *f, int wait, int expected)
{
	siginfo_t si;

	if (!f->child)
		return 1;
	memset(&si, 0, sizeof si);
	if ((f->pidfd >= 0 ? waitid(P_PIDFD, (id_t)f->pidfd, &si, WEXITED | (wait ? 0 : WNOHANG)) :
	     waitid(P_PID, (id_t)f->child, &si, WEXITED | (wait ? 0 : WNOHANG))) < 0 || si.si_pid == 0)
		return 0;
	if (expected)
		log_debug("http: the web process (pid %d) ended", (int)f->child);
	else if (si.si_code == CLD_EXITED)
		log_warnx("http: the web process (pid %d) exited with status %d", (int)f->child, si.si_status);
	else
		log_warnx("http: the web process (pid %d) was killed by signal %d", (int)f->child, si.si_status);
	if (f->pidfd >= 0) {
		epoll_ctl(f->epfd, EPOLL_CTL_DEL, f->pidfd, NULL);
		close(f->pidfd);
	}
	f->pidfd = -1;
	f->child = 0;
	return 1;
}

static int start_again(struct front *f)
{
	f->restarts++;
	log_notice("http: restarting the web process (restart %llu)", (unsigned long long)f->restarts);
	return spawn_child(f, -1);
}

/* The child is gone: start it again now if it had lived long enough, else after a pause that doubles. */
static void restart(struct front *f)
{
	struct itimerspec its = { 0 };

	if (clock_mono_ms() - f->started_mono_ms >= STABLE_MS)
		f->backoff_ms = 0;
	if (f->backoff_ms == 0) {
		f->backoff_ms = BACKOFF_MIN_MS;
		if (start_again(f) == 0)
			return;
	}
	/* It died quickly (or would not start): try again later, each time waiting twice as long. */
	its.it_value.tv_sec = f->backoff_ms / 1000;
	its.it_value.tv_nsec = (f->backoff_ms % 1000) * 1000000;
	log_notice("http: next start of the web process in %lld ms", (long long)f->backoff_ms);
	timerfd_settime(f->timerfd, 0, &its, NULL);
	f->backoff_ms = f->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : f->backoff_ms * 2;
}

/* The first start: wait (bounded) for the ready byte, so READY=1 still means the report is served. */
static int first_start(struct front *f, char *err, size_t errlen)
{
	int p[2];
	struct pollfd pf;
	char b;
	int r;

	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "http: pipe: %s", strerror(errno));
		return -1;
	}
	p[0] = move_high(p[0]);
	p[1] = move_high(p[1]);
	if (spawn_child(f, p[1]) < 0) {
		close(p[0]);
		close(p[1]);
		snprintf(err, errlen, "http: cannot start %s", f->exe);
		return -1;
	}
	close(p[1]);
	pf = (struct pollfd){ p[0], POLLIN, 0 };
	do
		r = poll(&pf, 1, FIRST_START_MS);
	while (r < 0 && errno == EINTR);
	r = r > 0 ? (int)read(p[0], &b, 1) : r;
	close(p[0]);
	if (r == 1)
		return 0;
	if (r == 0 && reap_child(f, 1, 0)) {
		/* EOF: it exited before serving (it said why on stderr: the DB, the listen socket ...). */
		snprintf(err, errlen, "http: the web process did not start (see its message above)");
		return -1;
	}
	log_warnx("http: the web process is not serving after %d s; going on, it is supervised", FIRST_START_MS / 1000);
	return 0;
}

/*
 * Before the daemon starts anything (spawner, DB, run row): systemd's socket (fpusoakd.socket) when
 * it passed one, else our own, so that a port in use stops the start-up with nothing written.
 */
static int front_bind(void *arg, const struct config *cfg, char *err, size_t errlen)
{
	struct front *f = arg;
	char why[256];

	if (strcmp(cfg->listen, "none") == 0)
		return 0;
	/* A missing web program is a start-up error too, said before the spawner, DB or run row. */
	if (!helper_path(WEB_EXE, f->exe, sizeof f->exe)) {
		snprintf(err, errlen, "http: cannot find %s beside %s or in %s (or run with --listen none)", WEB_EXE,
			 "the fpusoakd executable", FPUSOAK_LIBEXECDIR);
		return -1;
	}
	f->listen_fd = sdlisten_take(why, sizeof why);
	if (f->listen_fd == -2) {
		snprintf(err, errlen, "http: %s", why);
		f->listen_fd = -1;
		return -1;
	}
	if (f->listen_fd < 0 && (f->listen_fd = netaddr_listen(cfg->listen, why, sizeof why)) < 0) {
		snprintf(err, errlen, "http: %s", why);
		return -1;
	}
	f->listen_fd = move_high(f->listen_fd);
	return 0;
}

static int front_open(void *arg, const struct config *cfg, char *err, size_t errlen)
{
	struct front *f = arg;
	struct epoll_event ev = { .events = EPOLLIN };

	if (strcmp(cfg->listen, "none") == 0)
		return 0;
	if (f->listen_fd < 0 || !f->exe[0]) {
		snprintf(err, errlen, "http: no listening socket or web program (the bind hook did not run)");
		return -1;
	}
	snprintf(f->db, sizeof f->db, "%s", cfg->db);
	snprintf(f->listen, sizeof f->listen, "%s", cfg->listen);
	snprintf(f->log_level, sizeof f->log_level, "%s", log_level_name(cfg->log_level));
	if (!(f->live = live_create(err, errlen)))
		return -1;
	f->epfd = epoll_create1(EPOLL_CLOEXEC);
	f->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (f->epfd < 0 || f->timerfd < 0) {
		snprintf(err, errlen, "http: %s", strerror(errno));
		return -1;
	}
	f->epfd = move_high(f->epfd);
	f->timerfd = move_high(f->timerfd);
	ev.data.fd = f->timerfd;
	epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->timerfd, &ev);
	if (first_start(f, err, errlen) < 0)
		return -1;
	log_info("report on http://%s/ (web process %d)", cfg->listen, (int)f->child);
	return 0;
}

/* s (NULL = "") into dst, cut to its size: the snapshot holds values, never pointers. */
static void copy_str(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s ? s : "");
}

static void front_sample(void *arg, const struct daemon_sample *s)
{
	struct front *f = arg;
	struct live_data *d;

	if (!f->live)
		return;
	d = live_begin(f->live);
	d->run_id = s->run_id;
	d->run_started_ms = s->run_started_ms;
	copy_str(d->label, sizeof d->label, s->label);
	copy_str(d->kernel_release, sizeof d->kernel_release, s->kernel_release);
	copy_str(d->hypervisor, sizeof d->hypervisor, s->hypervisor);
	copy_str(d->guest_type, sizeof d->guest_type, s->guest_type);
	d->request_orders = s->request_orders;
	d->request_atomic = s->request_atomic;
	d->request_nowait = s->request_nowait;
	d->request_kernel = s->request_kernel;
	d->samples_total = s->samples_total;
	d->samples_queued = s->samples_queued;
	d->samples_dropped = s->samples_dropped;
	d->sample_ts_ms = s->sample_ts_ms;
	d->sample_us = s->sample_us;
	d->has_buddy = s->buddy != NULL;
	if (s->buddy)
		live_copy_buddy(&d->buddy, s->buddy);
	d->has_vmstat = s->vmstat != NULL;
	if (s->vmstat)
		live_copy_kv(&d->vmstat, s->vmstat);
	d->has_meminfo = s->meminfo != NULL;
	if (s->meminfo)
		live_copy_kv(&d->meminfo, s->meminfo);
	/* Headroom at the orders of interest: the task_struct slab's and the pageblock order (report/run.h). */
	d->norders = 0;
	for (int i = 0; i < s->orders.n && d->norders < LIVE_MAX_ORDERS; i++)
		d->orders[d->norders++] = s->orders.order[i];
	d->has_churn = s->churn != NULL;
	if (s->churn)
		d->churn = *s->churn;
	d->has_probe = s->probe != NULL;
	if (s->probe)
		d->probe = *s->probe;
	d->oom_unattributed = s->oom_unattributed;
	d->last_capacity = s->last_capacity;
	d->last_switch_us = s->last_switch_us;
	d->has_alloc_failures = s->alloc_failures != NULL;
	if (s->alloc_failures)
		memcpy(d->alloc_failures, s->alloc_failures, sizeof d->alloc_failures);
	d->has_oom_kills = s->has_oom_kills;
	d->oom_kills = s->oom_kills;
	d->has_causes = s->failure_causes != NULL;
	if (s->failure_causes)
		memcpy(d->failure_causes, s->failure_causes, sizeof d->failure_causes);
	d->has_trace = s->trace_failures != NULL;
	if (s->trace_failures)
		memcpy(d->trace_failures, s->trace_failures, sizeof d->trace_failures);
	d->trace_fallbacks = s->trace_fallbacks;
	d->trace_fragmenting = s->trace_fragmenting;
	d->gfp_holding = s->gfp_holding != 0;
	d->model_checking = s->model_checking != 0;
	d->model_checks = s->model_checks;
	d->model_agreed = s->model_agreed;
	live_commit(f->live);
}

static void front_status(void *arg, const char *line, int healthy)
{
	struct front *f = arg;
	struct live_data *d;

	if (!f->live)
		return;
	d = live_begin(f->live);
	snprintf(d->status, sizeof d->status, "%s", line);
	d->healthy = healthy != 0;
	d->health_mono_ms = clock_mono_ms();
	live_commit(f->live);
}

static int front_fd(void *arg)
{
	struct front *f = arg;

	return f->live ? f->epfd : -1;
}

static void front_event(void *arg)
{
	struct front *f = arg;
	struct epoll_event ev[4];
	int n = epoll_wait(f->epfd, ev, 4, 0);

	for (int i = 0; i < n; i++) {
		if (ev[i].data.fd == f->timerfd) {
			uint64_t x;
			if (read(f->timerfd, &x, sizeof x) != (ssize_t)sizeof x)
				continue;
			if (f->paused && f->child)
				kill(f->child, SIGKILL);   /* it did not stop within STOP_WAIT_MS */
			else if (!f->paused && !f->child && start_again(f) < 0)
				restart(f);
		} else if (f->child && ev[i].data.fd == f->pidfd && reap_child(f, 0, f->paused) && !f->paused) {
			restart(f);
		} else if (f->chldfd >= 0 && ev[i].data.fd == f->chldfd) {
			struct signalfd_siginfo si;
			while (read(f->chldfd, &si, sizeof si) == (ssize_t)sizeof si)
				;
			if (f->child && reap_child(f, 0, f->paused) && !f->paused)
				restart(f);
		}
	}
}

/* SIGTERM, STOP_WAIT_MS to finish its requests, then SIGKILL; reaped either way. */
static void stop_child(struct front *f)
{
	struct pollfd pf = { f->pidfd, POLLIN, 0 };

	if (!f->child)
		return;
	kill(f->child, SIGTERM);
	if (f->pidfd < 0) {
		/* Watched through SIGCHLD: look every 20 ms (any child's SIGCHLD would wake a poll). */
		for (int i = 0; i < STOP_WAIT_MS / 20 && f->child; i++)
			if (!reap_child(f, 0, 1))
				poll(NULL, 0, 20);
		if (f->child)
			kill(f->child, SIGKILL);
	} else if (poll(&pf, 1, STOP_WAIT_MS) <= 0) {
		kill(f->child, SIGKILL);
	}
	if (!reap_child(f, 1, 1))
		log_warnx("http: the web process (pid %d) could not be reaped", (int)f->child);
}

/*
 * A guest-scope fill: stop the web process without waiting (SIGTERM now, SIGKILL when the timer
 * fires STOP_WAIT_MS later; front_event reaps it and, paused, does not restart it); 1 once it is
 * gone.  Off: start it again.
 */
static int front_quiet(void *arg, int on)
{
	struct front *f = arg;
	struct itimerspec its = { .it_value = { STOP_WAIT_MS / 1000, (STOP_WAIT_MS % 1000) * 1000000 } };

	if (!f->live)
		return 1;
	if (on && !f->paused) {
		f->paused = 1;
		if (f->child) {
			kill(f->child, SIGTERM);
			timerfd_settime(f->timerfd, 0, &its, NULL);
		} else {
			its = (struct itimerspec){ 0 };
			timerfd_settime(f->timerfd, 0, &its, NULL);
		}
	} else if (!on && f->paused) {
		f->paused = 0;
		if (!f->child && spawn_child(f, -1) < 0)
			restart(f);
	}
	return f->child == 0;
}

static void front_close(void *arg)
{
	struct front *f = arg;

	stop_child(f);
	if (f->listen_fd >= 0)
		close(f->listen_fd);
	if (f->epfd >= 0)
		close(f->epfd);
	if (f->timerfd >= 0)
		close(f->timerfd);
	if (f->chldfd >= 0)
		close(f->chldfd);
	live_close(f->live);
	f->live = NULL;
	f->listen_fd = f->epfd = f->timerfd = f->chldfd = -1;
}

void front_hooks(struct front *f, struct daemon_hooks *h)
{
	f->listen_fd = f->pidfd = f->epfd = f->timerfd = f->chldfd = -1;
	*h = (struct daemon_hooks){ .arg = f, .bind = front_bind, .open = front_open, .sample = front_sample, .status = front_status,
				    .close = front_close, .fd = front_fd, .event = front_event, .quiet = front_quiet };
}
