/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * miniprobe: the capacity fill of a guest-scope probe, and nothing else —
 * the reference that fpusoakd's own probe is compared with (issue 20: the
 * instrument must not move the measurement).
 *
 * Same workers: each is worker/worker.c's worker_run (FPU touch, then
 * --worker-memory touched, a ready byte, FPU work every 10 ms until
 * SIGTERM), forked one at a time by this single-threaded static process
 * into a cgroup of its own (clone3 CLONE_INTO_CGROUP on v2, as the spawner
 * does) with no memory limit (guest scope) and the daemon's default pids
 * limit.  Same rules: spawner/probe.c's state machine decides every step
 * (spawn, wait for the ready byte with the step timeout, reap, compare the
 * group's oom_kill counter; the first unclean step ends the fill), and the
 * spawner's own settings: oom_score_adj -1000 for the prober, capabilities
 * dropped once so workers inherit none.  What it does not have is the rest
 * of fpusoakd: no SQLite, no sampler, no web side, no DB on disk.
 *
 *   miniprobe [--worker-memory SIZE] [--fpu KIND] [--limit N] [--pids-max N] [--step-timeout DUR]
 *
 * Prints one line: "miniprobe count=N stop=REASON duration_ms=D release_ms=R spawned=S ready=Y
 * oom_kills=K worker_memory=B fpu=KIND mem_peak=P".  Exit 0 after a fill, 1 if it could not run.
 * Static like fpusoakd-spawner (Makefile), so the workers it forks copy an address space of the
 * same shape as the spawner's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "churn/churn.h"
#include "common/num.h"
#include "spawner/probe.h"
#include "worker/worker.h"

#define MAX_CHILDREN CHURN_MAX_PROBE
#define RELEASE_KILL_NS (10LL * 1000000000)   /* SIGKILL what has not left 10 s after SIGTERM, like the spawner */

struct prober {
	struct cgroup *cg;
	struct probe_cap cap;
	struct worker_args wa;
	int clone_fd, sigfd, ready_rd;
	pid_t kids[MAX_CHILDREN];
	int nkids;
	uint64_t oom_base;
	int have_oom;
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t oom_now(const struct prober *p)
{
	uint64_t v = 0;

	if (p->have_oom)
		cgroup_oom_kills(p->cg, &v);
	return v;
}

static void forget(struct prober *p, pid_t pid)
{
	for (int i = 0; i < p->nkids; i++)
		if (p->kids[i] == pid) {
			p->kids[i] = p->kids[--p->nkids];
			return;
		}
}

/* Reap every child that has ended; during the fill a death ends it (probe_cap_death). */
static enum probe_act reap(struct prober *p, int64_t now)
{
	enum probe_act act = PROBE_ACT_NONE;
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
			return act;
		forget(p, si.si_pid);
		if (probe_cap_death(&p->cap, now, si.si_code, si.si_status) == PROBE_ACT_RELEASE)
			act = PROBE_ACT_RELEASE;
	}
}

static enum probe_act spawn(struct prober *p, int64_t now, int64_t step_ns)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	pid_t pid;

	if (p->clone_fd >= 0) {
		ca.flags = CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)p->clone_fd;
	}
	pid = p->nkids < MAX_CHILDREN ? (pid_t)syscall(SYS_clone3, &ca, sizeof ca) : (errno = EAGAIN, -1);
	if (pid == 0)
		worker_run(&p->wa);
	if (pid > 0)
		p->kids[p->nkids++] = pid;
	return probe_cap_spawned(&p->cap, now, pid < 0 ? errno : 0, step_ns);
}

/* The fill: SPAWN/READY steps until the state machine says RELEASE. */
static void fill(struct prober *p, int64_t step_ns)
{
	enum probe_act act = probe_cap_retired(&p->cap, mono_ns(), p->oom_base);

	while (act != PROBE_ACT_RELEASE) {
		struct pollfd pf[2] = { { p->ready_rd, POLLIN, 0 }, { p->sigfd, POLLIN, 0 } };
		int64_t now = mono_ns(), wait_ms = -1;

		if (act == PROBE_ACT_SPAWN) {
			act = spawn(p, now, step_ns);
			continue;
		}
		if (p->cap.phase == PROBE_FILLING || p->cap.phase == PROBE_SETTLING)
			wait_ms = p->cap.deadline > now ? (p->cap.deadline - now) / 1000000 + 1 : 0;
		if (poll(pf, 2, (int)wait_ms) < 0 && errno != EINTR)
			break;
		now = mono_ns();
		if (pf[1].revents & POLLIN) {
			struct signalfd_siginfo ssi;
			while (read(p->sigfd, &ssi, sizeof ssi) > 0)
				;
			act = reap(p, now);
			if (act == PROBE_ACT_RELEASE)
				break;
		}
		if (pf[0].revents & POLLIN) {
			char buf[64];
			ssize_t n = read(p->ready_rd, buf, sizeof buf);
			/* One ready byte per worker; deaths are reaped first, as the spawner does. */
			for (ssize_t i = 0; i < n && act != PROBE_ACT_RELEASE; i++) {
				act = reap(p, now);
				if (act != PROBE_ACT_RELEASE)
					act = probe_cap_ready(&p->cap, now, oom_now(p));
			}
			continue;
		}
		act = probe_cap_tick(&p->cap, now);
	}
}

/* SIGTERM every worker, SIGKILL after RELEASE_KILL_NS, until all are reaped. */
static void release(struct prober *p)
{
	int64_t t0 = mono_ns();
	int killed = 0;

	for (int i = 0; i < p->nkids; i++)
		kill(p->kids[i], SIGTERM);
	while (p->nkids > 0) {
		siginfo_t si;
		struct timespec ts = { 0, 20 * 1000000 };

		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) == 0 && si.si_pid) {
			forget(p, si.si_pid);
			continue;
		}
		if (!killed && mono_ns() - t0 > RELEASE_KILL_NS) {
			for (int i = 0; i < p->nkids; i++)
				kill(p->kids[i], SIGKILL);
			killed = 1;
		}
		nanosleep(&ts, NULL);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: miniprobe [--worker-memory SIZE] [--fpu KIND] [--limit N] [--pids-max N] [--step-timeout DUR]\n");
	return 64;
}

int main(int argc, char **argv)
{
	static struct prober pr;
	static const struct option lo[] = {
		{ "worker-memory", required_argument, NULL, 'm' }, { "fpu", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'l' }, { "pids-max", required_argument, NULL, 'p' },
		{ "step-timeout", required_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	};
	struct churn_cfg cc;
	struct cgroup_cfg gc = { .ver = CGROUP_AUTO, .name = "miniprobe", .leaf_self = 1 };
	struct prober *p = &pr;
	char err[512];
	uint64_t u, cur = 0, peak = 0;
	int64_t t_end, t_rel, step_ms;
	int c, fds[2], fd;
	sigset_t set;

	churn_cfg_defaults(&cc);
	step_ms = cc.probe_step_timeout_ms;
	gc.pids_max = 4096;   /* the daemon's default --cgroup-pids-max; a guest-scope probe lifts only the memory limit */
	cc.probe_limit = CHURN_MAX_PROBE;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (num_parse_size(optarg, &cc.worker_memory) < 0)
				return usage();
			break;
		case 'f':
			if (fpu_kind_parse(optarg, &cc.fpu) < 0)
				return usage();
			break;
		case 'l':
			if (num_parse_u64(optarg, strlen(optarg), &u) < 0 || u < 1 || u > CHURN_MAX_PROBE)
				return usage();
			cc.probe_limit = (int)u;
			break;
		case 'p':
			if (num_parse_u64(optarg, strlen(optarg), &gc.pids_max) < 0)
				return usage();
			break;
		case 't':
			if (num_parse_duration_ms(optarg, &step_ms) < 0 || step_ms <= 0)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (optind != argc)
		return usage();

	p->wa.kind = fpu_resolve(cc.fpu);
	if (!fpu_supported(p->wa.kind, err, sizeof err)) {
		fprintf(stderr, "miniprobe: --fpu %s: %s\n", fpu_kind_name(p->wa.kind), err);
		return 1;
	}
	if (!(p->cg = cgroup_open(&gc, err, sizeof err))) {
		fprintf(stderr, "miniprobe: %s\n", err);
		return 1;
	}
	/* As the spawner: it is the one process that must outlive the fill; its children get no privileges. */
	if ((fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC)) >= 0) {
		if (write(fd, "-1000", 5) != 5)
			fprintf(stderr, "miniprobe: cannot set oom_score_adj -1000: %s\n", strerror(errno));
		close(fd);
	}
	cgroup_enter_pids(p->cg);
	if (cgroup_version(p->cg) == CGROUP_V1)
		cgroup_enter_memory(p->cg);
	p->clone_fd = cgroup_clone_fd(p->cg);
	if (worker_install_handlers() < 0 || pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "miniprobe: setup: %s\n", strerror(errno));
		goto fail;
	}
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	p->ready_rd = fds[0];
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	p->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	p->wa = (struct worker_args){
		.kind = p->wa.kind,
		.memory = cc.worker_memory,
		.lifetime_ms = -1,
		.tick_ms = cc.worker_tick_ms,
		.work_iters = cc.worker_work_iters,
		.parent = getpid(),
		.procs_fd = p->clone_fd >= 0 ? -1 : cgroup_child_fd(p->cg),
		.ready_fd = fds[1],
		.privs_dropped = worker_drop_privileges() == 0,
	};
	p->have_oom = cgroup_oom_kills(p->cg, &p->oom_base) == 0;
	cgroup_reset_peak(p->cg);

	probe_cap_begin(&p->cap, cc.probe_limit, mono_ns());
	fill(p, step_ms * 1000000);
	t_end = p->cap.t_stop ? p->cap.t_stop : mono_ns();
	t_rel = mono_ns();
	release(p);
	cgroup_memory_usage(p->cg, &cur, &peak);
	printf("miniprobe count=%lld stop=%s duration_ms=%lld release_ms=%lld spawned=%lld ready=%lld oom_kills=%llu"
	       " worker_memory=%llu fpu=%s mem_peak=%llu\n", (long long)p->cap.count,
	       p->cap.stop_reason[0] ? p->cap.stop_reason : "?", (long long)((t_end - p->cap.t_fill) / 1000000),
	       (long long)((mono_ns() - t_rel) / 1000000), (long long)p->cap.spawned, (long long)p->cap.ready,
	       (unsigned long long)(oom_now(p) - p->oom_base), (unsigned long long)cc.worker_memory,
	       fpu_kind_name(p->wa.kind), (unsigned long long)peak);
	cgroup_close(p->cg);
	return 0;
fail:
	cgroup_close(p->cg);
	return 1;
}
