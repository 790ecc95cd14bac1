/* SPDX-License-Identifier: GPL-2.0-only */
/* spawner_probe: the capacity probe's steps and the switch probe's child; see spawner_probe.h. */
#define _GNU_SOURCE
#include "spawner/spawner_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/procfile.h"
#include "spawner/spawner_fork.h"
#include "spawner/spawner_rec.h"
#include "spawner/spawner_tab.h"
#include "spawner/state.h"
#include "worker/worker.h"

#define RELEASE_NS 5000000000LL

/*
 * Workers are retired RETIRE_BATCH at a time, topped up as they are reaped: the churn's before a
 * probe, the probe's own at its release.  A SIGTERM to all of them at once woke them together for
 * their exits (91 of 569 runnable in one 100 ms sample of /proc on the development VM; 30 of 32
 * churn workers), right when the sampler should run.  Exits are slow only under a CPU load (churn
 * workers run at nice 19), so the deadline to SIGKILL what is left counts from the last death, not
 * from the start.
 */
#define RETIRE_BATCH 4

static uint64_t role_alive(const struct spawner *s, int role)
{
	return role == ROLE_PROBE ? s->probe_alive : (uint64_t)s->c.population;
}

static void retire_begin(struct spawner *s, int role, int64_t deadline_ns)
{
	s->retire.role = role;
	s->retire.alive_seen = role_alive(s, role);
	s->phase_deadline = deadline_ns;
	s->cap_killed = 0;
}

static int settle_prune(struct spawner *s);

/*
 * Keep RETIRE_BATCH retiring; a death seen moves the deadline on by step_ns.  At a probe's release
 * the fill's last workers may still be on their way to pause() (the settle slots, below): they count
 * against the batch, or the spawner, 4 SIGTERMed workers and 2 settling ones made 7 of the daemon's
 * processes above nice 19 runnable at once (69_probe_scale in a fresh root beside stress-ng).
 */
static void retire_progress(struct spawner *s, int64_t now, int64_t step_ns)
{
	uint64_t alive = role_alive(s, s->retire.role);
	int batch = RETIRE_BATCH;

	if (alive != s->retire.alive_seen) {
		s->retire.alive_seen = alive;
		s->phase_deadline = now + step_ns;
	}
	if (s->retire.role == ROLE_PROBE) {
		batch -= settle_prune(s);
		if (batch < 1)
			batch = 1;
	}
	if (!s->cap_killed)
		spawner_tab_release(s, s->retire.role, batch);
}

void spawner_probe_cap_start(struct spawner *s, int64_t now)
{
	int limit = s->cfg->cc.probe_limit;
	int fds[2];

	if (s->cfg->cc.probe_scope == CHURN_SCOPE_CGROUP && limit > s->cfg->probe_cap)
		limit = s->cfg->probe_cap;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		spawner_rec_note(s, LOG_LVL_WARN, "capacity probe: pipe: %s", strerror(errno));
		return;
	}
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	s->ready_rd = fds[0];
	s->ready_wr = fds[1];
	s->cap_pending = 0;
	s->cap_oom = 0;
	s->lifted = 0;
	s->cap_gfp = gfpmod_probe_mode(s->gfp_mode, s->cap_probes++);
	s->cap_gfp_failed = 0;
	memset(&s->settle, 0, sizeof s->settle);
	s->state = CHURN_PROBING;
	s->start_real_ms = spawner_real_ms();
	probe_cap_begin(&s->cap, limit, now);
	probe_cap_bound(&s->cap, s->cfg->cc.probe_timeout_ms * 1000000);
	/* Churn workers leave politely (exit 10 = retired); nothing of theirs may be counted as the probe's. */
	retire_begin(s, ROLE_CHURN, now + RETIRE_NS);
	retire_progress(s, now, RETIRE_NS);
}

static void cap_probe_start_record(struct spawner *s, int64_t now)
{
	struct churn_rec *r = &s->rec;
	ssize_t n;

	memset(r, 0, sizeof *r);
	r->type = CHURN_REC_PROBE_START;
	r->u.probe_start.kind = CHURN_PROBE_CAPACITY;
	r->u.probe_start.mono_ms = now / 1000000;
	r->u.probe_start.real_ms = spawner_real_ms();
	/* buddyinfo right before the first probe worker, read here so the timing is exact. */
	n = procfile_read(NULL, "proc/buddyinfo", r->u.probe_start.buddyinfo, sizeof r->u.probe_start.buddyinfo);
	if (n < 0) {
		r->u.probe_start.buddyinfo_err = errno;
		r->u.probe_start.buddyinfo[0] = 0;
	} else
		r->u.probe_start.buddyinfo_len = (uint32_t)n;
	spawner_rec_emit(s, r, 1);
}

static void cap_release(struct spawner *s, int64_t now)
{
	/* The settle slots stay: retire_progress counts their runnable workers against the batch. */
	s->settle.until = 0;
	retire_begin(s, ROLE_PROBE, now + RELEASE_NS);
	retire_progress(s, now, RELEASE_NS);
}

/*
 * A probe worker that has written "ready" still has a return and a call to make before it sleeps in
 * pause().  The write woke the spawner, one nice step above it, which forked the next worker at once;
 * beside CPU hogs the readied workers then queued runnable behind them: 7 and 8 of the daemon's
 * processes above nice 19 runnable at once in 69_probe_scale beside `stress-ng --cpu 2` and its own
 * two busy loops.  So the next worker is forked once the last one is no longer runnable (looked up in
 * its /proc stat; the spawner sleeps meanwhile, which is what lets it run).  A worker that does not
 * get a CPU within SETTLE_MAX_NS must not stall the fill on its own, so then one more is forked
 * beside it (counted in the note the probe logs), but never a third: with every slot runnable the
 * fill waits, backing off to SETTLE_STEP_MAX_NS between looks.  A bound that forked anyway after
 * 50 ms let runnable workers pile up one per 50 ms (7 above nice 19 in a make test beside a QEMU):
 * forking more while the last ones wait for a CPU does not make the fill faster, only the queue
 * longer.  A worker runnable for good (in reclaim at the limit) ends the fill by the probe's time
 * bound, which says so.
 */
#define SETTLE_SLOTS 2
#define SETTLE_STEP_NS 200000
#define SETTLE_STEP_MAX_NS 5000000
#define SETTLE_MAX_NS 50000000

/* Frees the slots whose worker is asleep, gone, or unreadable (a worker we cannot see is no reason to
 * stop filling); how many are left. */
static int settle_prune(struct spawner *s)
{
	char path[32], buf[512];
	ssize_t n;
	int i, left = 0;

	for (i = 0; i < SETTLE_SLOTS; i++) {
		if (s->settle.pid[i] <= 0)
			continue;
		snprintf(path, sizeof path, "proc/%d/stat", (int)s->settle.pid[i]);
		n = procfile_read(NULL, path, buf, sizeof buf);
		if (n > 0 && procfile_stat_state(buf, (size_t)n) == 'R')
			left++;
		else
			s->settle.pid[i] = 0;
	}
	return left;
}

/* 1 if the fork waits for a probe worker to sleep (look again at settle.until), else 0. */
static int settle_wait(struct spawner *s, int64_t now)
{
	int i, left = settle_prune(s);
	int64_t newest = 0;

	if (left == 0) {
		s->settle.step = 0;
		return 0;
	}
	for (i = 0; i < SETTLE_SLOTS; i++)
		if (s->settle.pid[i] > 0 && s->settle.since[i] > newest)
			newest = s->settle.since[i];
	if (left < SETTLE_SLOTS && now - newest >= SETTLE_MAX_NS) {
		s->settle.gave_up++;
		s->settle.step = 0;
		return 0;
	}
	if (!s->settle.step) {
		s->settle.waits++;
		s->settle.step = SETTLE_STEP_NS;
	} else if (left == SETTLE_SLOTS) {
		if (s->settle.step == SETTLE_STEP_NS)
			s->settle.full++;
		s->settle.step = s->settle.step * 2 < SETTLE_STEP_MAX_NS ? s->settle.step * 2 : SETTLE_STEP_MAX_NS;
	}
	s->settle.until = now + s->settle.step;
	return 1;
}

/* Puts a just-forked probe worker in a free slot (settle_wait left one). */
static void settle_add(struct spawner *s, pid_t pid, int64_t now)
{
	int i;

	for (i = 0; i < SETTLE_SLOTS; i++)
		if (s->settle.pid[i] <= 0) {
			s->settle.pid[i] = pid;
			s->settle.since[i] = now;
			return;
		}
}

static void cap_spawn_next(struct spawner *s, int64_t now)
{
	pid_t pid;
	int err;

	if (settle_wait(s, now))
		return;
	pid = spawner_fork_worker(s, ROLE_PROBE, -1, now);
	err = pid < 0 ? errno : 0;
	if (pid > 0) {
		settle_add(s, pid, now);
		s->probe_alive++;
		churn_count_spawned(&s->pc);
	} else
		churn_count_spawn_failed(&s->pc, err);
	spawner_probe_cap_act(s, now, probe_cap_spawned(&s->cap, now, err, s->cfg->cc.probe_step_timeout_ms * 1000000));
}

void spawner_probe_cap_act(struct spawner *s, int64_t now, enum probe_act act)
{
	if (act == PROBE_ACT_SPAWN)
		cap_spawn_next(s, now);
	else if (act == PROBE_ACT_RELEASE)
		cap_release(s, now);
}

static void cap_retired(struct spawner *s, int64_t now)
{
	uint64_t oom = 0;

	s->t_retire = now;
	if (s->cfg->cc.probe_scope == CHURN_SCOPE_GUEST && s->cg && cgroup_memory_max(s->cg)) {
		s->saved_mem_max = cgroup_memory_max(s->cg);
		if (cgroup_set_memory_max(s->cg, 0) == 0)
			s->lifted = 1;
		else
			spawner_rec_note(s, LOG_LVL_WARN, "guest-scope probe: cannot lift the memory limit: %s",
					 strerror(errno));
	}
	cgroup_reset_peak(s->cg);
	cap_probe_start_record(s, now);
	if (s->have_oom)
		cgroup_oom_kills(s->cg, &oom);
	spawner_probe_cap_act(s, now, probe_cap_retired(&s->cap, now, oom));
}

/*
 * A reaped worker's task_struct and kernel stack are freed an RCU grace period later.  On v1 they
 * are charged to the workers' group (the spawner forks from inside, cgroup.h), so right after a
 * fill their charge can hold usage above the old limit, and v1 refuses a limit below usage (EBUSY)
 * until the callbacks have run: retry for up to a second.
 */
static int restore_limit(struct spawner *s)
{
	for (int i = 0; i < 100; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		if (cgroup_set_memory_max(s->cg, s->saved_mem_max) == 0)
			return 0;
		if (errno != EBUSY)
			return -1;
		nanosleep(&ts, NULL);
	}
	return -1;
}

void spawner_probe_cap_finish(struct spawner *s, int64_t now)
{
	struct churn_rec *r = &s->rec;
	struct churn_probe_done *d = &r->u.probe_done;
	uint64_t cur = 0, peak = 0;
	int64_t end = s->cap.t_stop ? s->cap.t_stop : now;

	spawner_rec_oom_poll(s);
	cgroup_memory_usage(s->cg, &cur, &peak);
	if (s->lifted && restore_limit(s) < 0)
		spawner_rec_note(s, LOG_LVL_WARN, "guest-scope probe: cannot restore the memory limit: %s",
				 strerror(errno));
	probe_cap_released(&s->cap, now);
	if (s->settle.gave_up || s->settle.full)
		spawner_rec_note(s, LOG_LVL_INFO, "capacity probe: %llu of %llu forks waited for a worker to sleep; "
				 "%llu forked beside one runnable for 50 ms, %llu waited for one of two runnable",
				 (unsigned long long)s->settle.waits, (unsigned long long)s->cap.spawned,
				 (unsigned long long)s->settle.gave_up, (unsigned long long)s->settle.full);
	close(s->ready_rd);
	close(s->ready_wr);
	s->ready_rd = s->ready_wr = -1;
	memset(r, 0, sizeof *r);
	r->type = CHURN_REC_PROBE_DONE;
	d->kind = CHURN_PROBE_CAPACITY;
	d->scope = s->cfg->cc.probe_scope;
	d->start_mono_ms = s->cap.t_begin / 1000000;
	d->start_real_ms = s->start_real_ms;
	d->duration_ms = (end - s->cap.t_fill) / 1000000;
	d->count = s->cap.count;
	d->result = (double)s->cap.count;
	d->oom_kills = (int64_t)s->cap_oom;
	d->retire_ms = (s->t_retire - s->cap.t_begin) / 1000000;
	d->release_ms = (now - end) / 1000000;
	d->mem_peak = peak;
	d->gfp_mode = s->cap_gfp;
	d->gfp_failed = s->cap_gfp_failed;
	snprintf(d->stop_reason, sizeof d->stop_reason, "%s", s->cap.stop_reason);
	/*
	 * Where the probe ran, as it ran: the group's version and name (none when unconfined: then the
	 * count is capped, not a capacity), the limit in force (0 while a guest-scope probe lifted it)
	 * and the pids limit.
	 */
	const char *gname = s->cg ? strrchr(cgroup_dir(s->cg), '/') : NULL;
	d->fpu_kind = s->kind;
	d->limit = s->cap.limit;
	d->spawned = s->cap.spawned;
	d->ready = s->cap.ready;
	d->worker_memory = s->cfg->cc.worker_memory;
	d->mem_limit = s->lifted ? 0 : cgroup_memory_max(s->cg);
	d->pids_limit = cgroup_pids_max(s->cg);
	d->mem_limit_lifted = s->lifted;
	d->fork_charge = s->in_memcg ? CHURN_FORK_GROUP : s->cg ? CHURN_FORK_OUTSIDE : CHURN_FORK_NONE;
	d->cgroup_ver = !s->cg ? CGROUP_NONE : cgroup_version(s->cg) == CGROUP_V2 ? CGROUP_V2 : CGROUP_V1;
	if (gname)
		snprintf(d->cgroup_group, sizeof d->cgroup_group, "%s", gname + 1);
	d->time_limit_ms = s->cfg->cc.probe_timeout_ms;
	snprintf(d->timeout, sizeof d->timeout, "%s", probe_cap_timeout_name(&s->cap));
	spawner_rec_emit(s, r, 1);
	s->probes_done++;
	if (s->stopping)
		return;
	s->state = CHURN_RUNNING;
	spawner_fork_set_params(s, now);
}

/* Deadlines and phase ends of the capacity probe. */
void spawner_probe_cap_progress(struct spawner *s, int64_t now)
{
	switch (s->cap.phase) {
	case PROBE_RETIRING:
		if (s->c.population == 0) {
			cap_retired(s, now);
			break;
		}
		retire_progress(s, now, RETIRE_NS);
		if (now >= s->phase_deadline && !s->cap_killed) {
			spawner_tab_signal(s, ROLE_CHURN, SIGKILL);
			s->cap_killed = 1;
		}
		break;
	case PROBE_FILLING:
		if (s->settle.until && now >= s->settle.until) {
			s->settle.until = 0;
			cap_spawn_next(s, now);
			if (s->cap.phase != PROBE_FILLING)
				break;
		}
		/* fall through */
	case PROBE_SETTLING:
		spawner_probe_cap_act(s, now, probe_cap_tick(&s->cap, now));
		break;
	case PROBE_RELEASING:
		if (s->probe_alive == 0) {
			spawner_probe_cap_finish(s, now);
			break;
		}
		retire_progress(s, now, RELEASE_NS);
		if (now >= s->phase_deadline && !s->cap_killed) {
			spawner_tab_signal(s, ROLE_PROBE, SIGKILL);
			s->cap_killed = 1;
		}
		break;
	default:
		break;
	}
}

void spawner_probe_sw_start(struct spawner *s, int64_t now)
{
	int fds[2], fd;
	sigset_t none;
	pid_t pid;

	s->sw_pending = 0;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		spawner_rec_note(s, LOG_LVL_WARN, "switch probe: pipe: %s", strerror(errno));
		return;
	}
	pid = spawner_fork_raw(s);
	if (pid == 0) {
		char k[16], t[16], ms[24];
		char *argv[] = { "fpusoakd-switch-probe", PROBE_SWITCH_ARGV1, k, t, ms, "3", NULL };
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != s->self)
			_exit(1);
		/* Its threads must not eat the workers' pids.max or memory (v1: we sit in those groups). */
		cgroup_leave(s->cg);
		fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, "1000", 4) < 0)
				_exit(1);
			close(fd);
		}
		if (!s->privs_dropped && worker_drop_privileges() < 0)
			_exit(1);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(fds[0]);
		/* The result pipe becomes fd 3 of the new image; nothing else crosses the exec. */
		if (fds[1] == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(fds[1], 3) < 0)
			_exit(1);
		syscall(SYS_close_range, 4u, ~0u, 0u);
		snprintf(k, sizeof k, "%d", (int)s->kind);
		snprintf(t, sizeof t, "%d", s->cfg->cc.switch_threads);
		snprintf(ms, sizeof ms, "%lld", (long long)s->cfg->cc.switch_ms);
		/* A fresh image: every library mapped again, glibc state of its own for the threads. */
		execve("/proc/self/exe", argv, environ);
		_exit(PROBE_SWITCH_EXIT_EXEC);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		spawner_rec_note(s, LOG_LVL_WARN, "switch probe: fork: %s", strerror(errno));
		return;
	}
	spawner_tab_insert(&s->tab, pid, ROLE_SWITCH, now / 1000000);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	s->sw_pid = pid;
	s->sw_rd = fds[0];
	s->sw_have = 0;
	s->sw_start = now;
	s->sw_start_real = spawner_real_ms();
}

void spawner_probe_sw_read(struct spawner *s)
{
	if (s->sw_rd >= 0 && !s->sw_have && read(s->sw_rd, &s->sw, sizeof s->sw) == (ssize_t)sizeof s->sw)
		s->sw_have = 1;
}

void spawner_probe_sw_done(struct spawner *s, int64_t now, int code, int status)
{
	struct churn_rec *r = &s->rec;
	struct churn_probe_done *d = &r->u.probe_done;
	char sig[24];

	spawner_probe_sw_read(s);
	close(s->sw_rd);
	s->sw_rd = -1;
	s->sw_pid = 0;
	memset(r, 0, sizeof *r);
	r->type = CHURN_REC_PROBE_DONE;
	d->kind = CHURN_PROBE_SWITCH;
	d->start_mono_ms = s->sw_start / 1000000;
	d->start_real_ms = s->sw_start_real;
	d->duration_ms = (now - s->sw_start) / 1000000;
	if (s->sw_have)
		probe_switch_report(&s->sw, d);
	else if (code == CLD_EXITED)
		snprintf(d->stop_reason, sizeof d->stop_reason, "failed:exit:%d", status);
	else
		snprintf(d->stop_reason, sizeof d->stop_reason, "failed:%s", probe_signame(status, sig, sizeof sig));
	spawner_rec_emit(s, r, 1);
	s->probes_done++;
}
