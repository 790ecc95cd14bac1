/* SPDX-License-Identifier: GPL-2.0-only */
/* churn: the daemon side of the churn engine; see churn.h. */
#define _GNU_SOURCE
#include "churn/churn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "churn/spawner.h"
#include "churn/worker.h"
#include "common/log.h"
#include "common/clock.h"
#include "common/helper.h"

#define HELLO_TIMEOUT_MS 5000
#define STOP_TIMEOUT_MS 10000
#define FRAG_STOP_TIMEOUT_MS 5000
#define FRAG_STATUS_MS 500

struct churn {
	struct churn_cfg cfg;
	struct cgroup *cg;
	struct churn_confinement conf;
	char nocg[256];
	int sock;
	pid_t pid;
	int gone;
	struct churn_hello hello;
	struct churn_status last;
	int stop_state;               /* churn_stop: 0 not yet, 1 the spawner said BYE, -1 it did not */
	/* the fragmenting load (fragload.h) */
	pid_t frag_pid;               /* 0: none, or reaped */
	int frag_sock;
	int frag_have_hello;
	struct fragload_hello frag_hello;
};


const char *churn_spawner_path(char *buf, size_t len)
{
	return helper_path("fpusoakd-spawner", buf, len);
}

/* Ranges a config/flag layer should already have enforced; checked again at the boundary. */
static const char *check_cfg(const struct churn_cfg *c)
{
	const struct churn_params *p = &c->params;

	if (p->workers < 0 || p->workers > CHURN_MAX_WORKERS)
		return "workers out of range (0..16384)";
	if (p->rate_milli == 0 || (p->rate_milli != CHURN_RATE_MAX && p->rate_milli > CHURN_RATE_MILLI_CAP))
		return "spawn rate out of range";
	if (p->lifetime_ms < 0 || p->lifetime_ms > CHURN_LIFETIME_CAP_MS)
		return "lifetime out of range (0..7d)";
	if (p->dist < CHURN_DIST_EXP || p->dist > CHURN_DIST_UNIFORM)
		return "bad lifetime distribution";
	if (c->fpu < FPU_AUTO || c->fpu >= FPU_NKINDS)
		return "bad fpu kind";
	if (c->worker_memory > (1ull << 30))
		return "worker memory over 1G";
	if (c->worker_tick_ms < 1 || c->worker_tick_ms > 60000 || c->worker_work_iters > 10000000)
		return "worker duty cycle out of range";
	if (c->nocgroup_cap < 1 || c->nocgroup_cap > CHURN_MAX_WORKERS)
		return "nocgroup cap out of range";
	if (c->probe_limit < 0 || c->probe_limit > CHURN_MAX_PROBE)
		return "probe limit out of range (0..16384)";
	if (c->probe_step_timeout_ms < 100 || c->probe_timeout_ms < 0 || c->switch_threads < 1 || c->switch_threads > 1024 ||
	    c->switch_ms < 10 || c->switch_ms > 600000)
		return "probe settings out of range";
	if (c->status_ms < 10 || c->status_ms > 60000 || c->death_records_max < 0)
		return "status settings out of range";
	if (c->fragment < FRAGLOAD_OFF || c->fragment > FRAGLOAD_HEAVY)
		return "bad fragment level";
	return NULL;
}

/* Take one record; 1, 0 (none now), -1 (EOF or error). */
static int take(struct churn *ch, struct churn_rec *rec)
{
	for (;;) {
		ssize_t n = recv(ch->sock, rec, sizeof *rec, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			ch->gone = 1;
			return -1;
		}
		if (n < 0)
			return 0;
		/* Same binary on both ends; a size mismatch would be a bug: skip, never misread. */
		if ((size_t)n < sizeof rec->type || (size_t)n != churn_rec_size(rec->type))
			continue;
		if (rec->type == CHURN_REC_STATUS)
			ch->last = rec->u.status;
		return 1;
	}
}

static int wait_readable(int fd, int64_t deadline_ms)
{
	struct pollfd pf = { fd, POLLIN, 0 };
	int64_t left = deadline_ms - clock_mono_ms();

	if (left < 0)
		left = 0;
	return poll(&pf, 1, (int)left);
}

/* Wait for HELLO; log NOTE records on the way (the last one explains a failure). */
static int await_hello(struct churn *ch, int *heard, char *err, size_t errlen)
{
	static struct churn_rec rec;
	int64_t deadline = clock_mono_ms() + HELLO_TIMEOUT_MS;

	*heard = 0;
	snprintf(err, errlen, "spawner did not start");
	while (clock_mono_ms() < deadline) {
		int r = take(ch, &rec);
		if (r < 0)
			return -1;
		if (r == 0) {
			wait_readable(ch->sock, deadline);
			continue;
		}
		*heard = 1;
		if (rec.type == CHURN_REC_NOTE) {
			snprintf(err, errlen, "%s", rec.u.note.text);
			if (rec.u.note.level <= LOG_LVL_WARN)
				log_warnx("churn: %s", rec.u.note.text);
			else
				log_notice("churn: %s", rec.u.note.text);
		} else if (rec.type == CHURN_REC_HELLO) {
			ch->hello = rec.u.hello;
			return 0;
		}
	}
	snprintf(err, errlen, "spawner did not report within %d ms", HELLO_TIMEOUT_MS);
	return -1;
}

/* Read back what is in force (v1: after the spawner's extra PID was added). */
static void record_confinement(struct churn *ch, const struct churn_cfg *cfg)
{
	struct churn_confinement *c = &ch->conf;
	struct cgroup_effective e;

	memset(c, 0, sizeof *c);
	if (!ch->cg || cgroup_effective(ch->cg, &e) < 0) {
		c->ver = CGROUP_NONE;
		c->pop_cap = cfg->nocgroup_cap;
		snprintf(c->reason, sizeof c->reason, "%s", ch->nocg[0] ? ch->nocg : "no cgroup");
		return;
	}
	c->ver = e.ver;
	snprintf(c->group, sizeof c->group, "%s", e.dir);
	snprintf(c->pids_group, sizeof c->pids_group, "%s", e.pids_dir);
	c->memory_max = e.memory_max;
	c->pids_max = e.pids_max;
}

static int open_cgroup(struct churn *ch, const struct churn_cfg *cfg, char *err, size_t errlen)
{
	char e[256];
	struct cgroup_cfg cc = {
		.ver = cfg->cgroup,
		.name = cfg->cgroup_name,
		.key = cfg->cgroup_key,
		.leaf_self = cfg->cgroup_leaf_self,
		.memory_max = cfg->cgroup_memory_max,
		/* The fragmenting load lives in the group too: one PID more, so workers keep theirs. */
		.pids_max = cfg->cgroup_pids_max ? cfg->cgroup_pids_max + (cfg->fragment != FRAGLOAD_OFF) : 0,
	};

	if (cfg->cgroup == CGROUP_NONE) {
		snprintf(ch->nocg, sizeof ch->nocg, "cgroup disabled by configuration");
		if (cfg->cgroup_required) {
			snprintf(err, errlen, CHURN_NOCONFINE "%s", ch->nocg);
			return -1;
		}
		return 0;
	}
	ch->cg = cgroup_open(&cc, e, sizeof e);
	if (!ch->cg) {
		snprintf(ch->nocg, sizeof ch->nocg, "%s", e);
		if (cfg->cgroup_required) {
			snprintf(err, errlen, CHURN_NOCONFINE "%s", e);
			return -1;
		}
		log_warnx("churn: cannot confine workers in a cgroup (%s); running unconfined: at most %d workers, "
			  "capacity probes stop at %d, no OOM accounting",
			  e, cfg->nocgroup_cap, cfg->nocgroup_cap);
		return 0;
	}
	/* v1: the spawner forks from inside the pids group, so it takes one of the PIDs. */
	if (cgroup_version(ch->cg) == CGROUP_V1 && cfg->cgroup_pids_max &&
	    cgroup_set_pids_max(ch->cg, cc.pids_max + 1) < 0)
		log_warn("churn: cannot adjust pids.max for the spawner");
	return 0;
}

static int reap_spawner(pid_t pid);

/*
 * Fork the spawner (which execs scfg->cc.spawner_exe if set) and wait for its HELLO; 0, or -1 with
 * err, the spawner killed and reaped and the socket closed.  *heard: it sent a record first.
 */
static int start_spawner(struct churn *ch, struct spawner_cfg *scfg, int *heard, char *err, size_t errlen)
{
	int sv[2];

	*heard = 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	scfg->sock = sv[1];
	/* Unflushed stdio would be written twice, once by each process. */
	fflush(NULL);
	ch->pid = fork();
	if (ch->pid == 0) {
		close(sv[0]);
		if (scfg->cc.spawner_exe && spawner_exec(scfg, scfg->cc.spawner_exe) < 0)
			scfg->exec_errno = errno;
		spawner_main(scfg);
	}
	close(sv[1]);
	ch->sock = sv[0];
	ch->gone = 0;
	if (ch->pid < 0) {
		snprintf(err, errlen, "cannot fork the spawner: %s", strerror(errno));
	} else if (await_hello(ch, heard, err, errlen) == 0)
		return 0;
	else {
		kill(ch->pid, SIGKILL);
		reap_spawner(ch->pid);
	}
	ch->pid = 0;
	close(ch->sock);
	ch->sock = -1;
	return -1;
}


/* ---- the fragmenting load ----------------------------------------------------------------- */

/*
 * What the load's bound is a fraction of: the workers' memory limit, because the load lives in
 * their group; MemTotal in guest scope, or when there is no limit (or one above MemTotal).
 */
static uint64_t frag_base(const struct churn *ch)
{
	struct sysinfo si;
	uint64_t total = 0, lim = ch->cg ? cgroup_memory_max(ch->cg) : 0;

	if (sysinfo(&si) == 0)
		total = (uint64_t)si.totalram * si.mem_unit;
	if (ch->cfg.probe_scope == CHURN_SCOPE_GUEST || !lim || (total && lim > total))
		return total;
	return lim;
}

/* Descriptors the load may open: its hard limit (it raises its soft one), some left over. */
static uint64_t frag_fds(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max < 128)
		return 64;
	return rl.rlim_max > 65536 ? 65536 - 64 : rl.rlim_max - 64;
}

static int frag_take(struct churn *ch, struct fragload_rec *rec)
{
	for (;;) {
		ssize_t n = recv(ch->frag_sock, rec, sizeof *rec, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return -1;
		if (n < 0)
			return 0;
		if ((size_t)n >= sizeof rec->type && (size_t)n == fragload_rec_size(rec->type))
			return 1;
	}
}

/* Reap the load (it is gone or going): its wait status, or -1 after SIGKILL if it would not go. */
static int frag_reap(struct churn *ch, int64_t wait_ms)
{
	int st = 0;
	int64_t deadline = clock_mono_ms() + wait_ms;

	if (ch->frag_pid <= 0)
		return -1;
	for (;;) {
		pid_t r = waitpid(ch->frag_pid, &st, WNOHANG);
		if (r == ch->frag_pid || r < 0)
			break;
		if (clock_mono_ms() >= deadline) {
			kill(ch->frag_pid, SIGKILL);
			waitpid(ch->frag_pid, &st, 0);
			break;
		}
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	ch->frag_pid = 0;
	if (ch->frag_sock >= 0)
		close(ch->frag_sock);
	ch->frag_sock = -1;
	return st;
}

static void frag_await_hello(struct churn *ch)
{
	static struct fragload_rec rec;
	/* Twice the spawner's: it execs right after it, while the guest is busiest. */
	int64_t deadline = clock_mono_ms() + 2 * HELLO_TIMEOUT_MS;

	while (clock_mono_ms() < deadline && !ch->frag_have_hello) {
		int r = frag_take(ch, &rec);
		if (r < 0)
			break;
		if (r == 0) {
			wait_readable(ch->frag_sock, deadline);
			continue;
		}
		if (rec.type == FRAGLOAD_REC_NOTE)
			log_warnx("fragment: %s", rec.u.note.text);
		else if (rec.type == FRAGLOAD_REC_HELLO) {
			ch->frag_hello = rec.u.hello;
			ch->frag_have_hello = 1;
		}
	}
}

/*
 * Fork the load beside the spawner.  The child joins the workers' groups before it execs (so
 * everything it allocates is charged there, and the pids limit counts it), then runs the static
 * helper, or the load itself in this forked copy when there is none.  Not fatal: churn goes on.
 */
static void start_frag(struct churn *ch, const struct churn_cfg *cfg, const char *exe)
{
	struct fragload_cfg fc;
	uint64_t base = frag_base(ch);
	int sv[2], dirfd = -1;

	ch->frag_sock = -1;
	if (cfg->fragment == FRAGLOAD_OFF)
		return;
	/* Unconfined, nothing but its recipe would bound it: it runs in the workers' group or not at all. */
	if (!ch->cg) {
		log_warnx("fragment: no cgroup to confine the load in (%s); none runs", ch->nocg);
		return;
	}
	memset(&fc, 0, sizeof fc);
	if (fragload_recipe((enum fragload_level)cfg->fragment, base, frag_fds(), &fc.r) < 0) {
		log_warnx("fragment: a %s load needs more than %llu MiB to take a fraction of; none runs",
			  fragload_level_name(cfg->fragment), (unsigned long long)(base >> 20));
		return;
	}
	if (cfg->fragment_dir)
		dirfd = open(cfg->fragment_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		log_warn("fragment: socketpair");
		goto out;
	}
	fc.seed = cfg->seed;
	fc.daemon = getpid();
	fc.sock = sv[1];
	fc.dirfd = dirfd;
	fc.status_ms = FRAG_STATUS_MS;
	fflush(NULL);
	ch->frag_pid = fork();
	if (ch->frag_pid == 0) {
		close(sv[0]);
		cgroup_enter_pids(ch->cg);
		if (write(cgroup_child_fd(ch->cg), "0", 1) != 1)
			_exit(WORKER_EXIT_CGROUP);
		if (exe)
			fragload_exec(&fc, exe);
		fragload_main(&fc);
	}
	close(sv[1]);
	if (ch->frag_pid < 0) {
		log_warn("fragment: fork");
		ch->frag_pid = 0;
		close(sv[0]);
		goto out;
	}
	ch->frag_sock = sv[0];
	frag_await_hello(ch);
	if (!ch->frag_have_hello) {
		int st;
		kill(ch->frag_pid, SIGKILL);
		st = frag_reap(ch, 1000);
		log_warnx("fragment: the load did not start (%s %d); none runs",
			  WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	}
out:
	if (dirfd >= 0)
		close(dirfd);
}

/* Ask it to stop, let it free everything, reap it; SIGKILL if it takes too long. */
static void stop_frag(struct churn *ch)
{
	static struct fragload_rec rec;
	struct fragload_cmd cmd = { .type = FRAGLOAD_CMD_STOP };
	int64_t deadline = clock_mono_ms() + FRAG_STOP_TIMEOUT_MS;

	if (ch->frag_pid <= 0)
		return;
	send(ch->frag_sock, &cmd, sizeof cmd, MSG_DONTWAIT | MSG_NOSIGNAL);
	shutdown(ch->frag_sock, SHUT_WR);
	while (clock_mono_ms() < deadline) {
		int r = frag_take(ch, &rec);
		if (r < 0 || (r == 1 && rec.type == FRAGLOAD_REC_BYE))
			break;
		if (r == 0)
			wait_readable(ch->frag_sock, deadline);
	}
	frag_reap(ch, 1000);
}

int churn_frag_fd(const struct churn *ch)
{
	return ch && ch->frag_pid > 0 ? ch->frag_sock : -1;
}

int churn_frag_read(struct churn *ch, struct fragload_rec *rec, int *status)
{
	int r;

	if (!ch || ch->frag_pid <= 0)
		return -1;
	r = frag_take(ch, rec);
	if (r >= 0)
		return r;
	*status = frag_reap(ch, 1000);
	return -1;
}

static int frag_cmd(struct churn *ch, uint32_t type)
{
	struct fragload_cmd cmd = { .type = type };

	if (!ch || ch->frag_pid <= 0) {
		errno = ESRCH;
		return -1;
	}
	return send(ch->frag_sock, &cmd, sizeof cmd, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof cmd ? 0 : -1;
}

int churn_frag_pause(struct churn *ch)
{
	return frag_cmd(ch, FRAGLOAD_CMD_PAUSE);
}

int churn_frag_resume(struct churn *ch)
{
	return frag_cmd(ch, FRAGLOAD_CMD_RESUME);
}

const struct fragload_hello *churn_frag_hello(const struct churn *ch)
{
	return ch && ch->frag_pid > 0 && ch->frag_have_hello ? &ch->frag_hello : NULL;
}

struct churn *churn_open(const struct churn_cfg *cfg, char *err, size_t errlen)
{
	struct spawner_cfg scfg;
	struct churn *ch;
	const char *bad = check_cfg(cfg);
	int heard;

	if (bad) {
		snprintf(err, errlen, "churn: %s", bad);
		return NULL;
	}
	ch = calloc(1, sizeof *ch);
	if (!ch) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ch->cfg = *cfg;
	ch->cfg.cgroup_name = ch->cfg.cgroup_key = NULL;
	ch->cfg.fragment_dir = NULL;
	ch->sock = ch->frag_sock = -1;
	if (open_cgroup(ch, cfg, err, errlen) < 0) {
		free(ch);
		return NULL;
	}
	record_confinement(ch, cfg);
	memset(&scfg, 0, sizeof scfg);
	scfg.cc = ch->cfg;
	scfg.cg = ch->cg;
	scfg.daemon = getpid();
	scfg.pop_cap = ch->cg ? CHURN_MAX_WORKERS : cfg->nocgroup_cap;
	scfg.probe_cap = ch->cg || cfg->probe_scope == CHURN_SCOPE_GUEST ? CHURN_MAX_PROBE : cfg->nocgroup_cap;
	if (start_spawner(ch, &scfg, &heard, err, errlen) == 0) {
		start_frag(ch, cfg, scfg.cc.spawner_exe);
		return ch;
	}
	/* A static spawner that died without a word (a helper from another build refuses the config,
	 * see spawner_exec.c) must not cost the run its churn: the forked copy can do the job. */
	if (!scfg.cc.spawner_exe || heard)
		goto fail;
	log_warnx("churn: %s did not start (%s); the daemon's forked copy runs the spawner instead",
		  scfg.cc.spawner_exe, err);
	scfg.cc.spawner_exe = NULL;
	if (start_spawner(ch, &scfg, &heard, err, errlen) == 0) {
		start_frag(ch, cfg, NULL);
		return ch;
	}
fail:
	churn_close(ch, NULL);
	return NULL;
}

int churn_fd(const struct churn *ch)
{
	return ch ? ch->sock : -1;
}

int churn_read(struct churn *ch, struct churn_rec *rec)
{
	if (!ch || ch->gone)
		return -1;
	return take(ch, rec);
}

static int send_cmd(struct churn *ch, const struct spawner_cmd *cmd)
{
	if (!ch || ch->gone) {
		errno = EPIPE;
		return -1;
	}
	return send(ch->sock, cmd, sizeof *cmd, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof *cmd ? 0 : -1;
}

int churn_set_params(struct churn *ch, const struct churn_params *p)
{
	struct spawner_cmd cmd = { .type = SPAWNER_CMD_SET, .params = *p };

	return send_cmd(ch, &cmd);
}

int churn_probe_request(struct churn *ch, enum churn_probe_kind kind)
{
	struct spawner_cmd cmd = { .type = SPAWNER_CMD_PROBE, .probe_kind = kind };

	return send_cmd(ch, &cmd);
}

int churn_status_request(struct churn *ch)
{
	struct spawner_cmd cmd = { .type = SPAWNER_CMD_STATUS };

	return send_cmd(ch, &cmd);
}

/* Drain records until BYE or EOF, each to on_rec when given; 0, or -1 on timeout. */
static int drain_until_bye(struct churn *ch, int64_t deadline, churn_rec_fn *on_rec, void *arg)
{
	static struct churn_rec rec;

	while (clock_mono_ms() < deadline) {
		int r = take(ch, &rec);
		if (r < 0)
			return 0;
		if (r == 0) {
			wait_readable(ch->sock, deadline);
			continue;
		}
		if (on_rec)
			on_rec(arg, &rec);
		if (rec.type == CHURN_REC_BYE)
			return 0;
	}
	return -1;
}

static int reap_spawner(pid_t pid)
{
	int st = 0;

	for (int i = 0; i < 100; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
		if (r < 0)
			return -1;
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

int churn_stop(struct churn *ch, churn_rec_fn *on_rec, void *arg)
{
	struct spawner_cmd cmd = { .type = SPAWNER_CMD_STOP };

	if (!ch)
		return 0;
	if (ch->stop_state)
		return ch->stop_state > 0 ? 0 : -1;
	stop_frag(ch);
	ch->stop_state = 1;
	if (ch->pid <= 0)
		return 0;
	if (ch->gone) {
		ch->stop_state = -1;
		return -1;
	}
	send_cmd(ch, &cmd);
	/* EOF is a stop too, in case the STOP did not fit in the socket. */
	shutdown(ch->sock, SHUT_WR);
	if (drain_until_bye(ch, clock_mono_ms() + STOP_TIMEOUT_MS, on_rec, arg) < 0) {
		log_warnx("churn: spawner did not stop within %d ms; killing it", STOP_TIMEOUT_MS);
		kill(ch->pid, SIGKILL);
		ch->stop_state = -1;
		return -1;
	}
	return 0;
}

int churn_close(struct churn *ch, struct churn_status *final)
{
	int rc = 0;

	if (!ch)
		return 0;
	if (churn_stop(ch, NULL, NULL) < 0)
		rc = -1;
	if (ch->pid > 0 && reap_spawner(ch->pid) < 0)
		rc = -1;
	if (final)
		*final = ch->last;
	/* The spawner reaps every worker before BYE: anything still in the group outlived it. */
	if (ch->cg) {
		pid_t left[1024];
		size_t n = 0;
		if (cgroup_procs(ch->cg, left, 1024, &n) < 0 || n > 0) {
			log_warnx("churn: %zu process(es) outlived the spawner in %s; killing them", n, cgroup_dir(ch->cg));
			rc = -1;
		}
	}
	cgroup_close(ch->cg);
	if (ch->sock >= 0)
		close(ch->sock);
	free(ch);
	return rc;
}

const struct churn_hello *churn_hello_info(const struct churn *ch)
{
	return ch ? &ch->hello : NULL;
}

const struct cgroup *churn_cgroup(const struct churn *ch)
{
	return ch ? ch->cg : NULL;
}

void churn_confinement(const struct churn *ch, struct churn_confinement *out)
{
	if (!ch) {
		memset(out, 0, sizeof *out);
		return;
	}
	*out = ch->conf;
}

const char *churn_confinement_line(const struct churn_confinement *c, char *buf, size_t len)
{
	char mem[32] = "none", pids[32] = "none";

	if (c->ver == CGROUP_NONE) {
		snprintf(buf, len, "none: %s", c->reason[0] ? c->reason : "no cgroup");
		return buf;
	}
	if (c->memory_max)
		snprintf(mem, sizeof mem, "%llu", (unsigned long long)c->memory_max);
	if (c->pids_max)
		snprintf(pids, sizeof pids, "%llu", (unsigned long long)c->pids_max);
	snprintf(buf, len, "%s %s memory.max=%s pids.max=%s", c->ver == CGROUP_V2 ? "v2" : "v1", c->group, mem, pids);
	return buf;
}

const char *churn_nocgroup_reason(const struct churn *ch)
{
	return ch ? ch->nocg : "";
}

pid_t churn_spawner_pid(const struct churn *ch)
{
	return ch ? ch->pid : -1;
}

const char *churn_status_line(const struct churn_status *st, const struct churn_probe_done *last, char *buf,
			      size_t len)
{
	char rate[24], probe[128] = "";
	const struct churn_counters *c = &st->c;
	uint64_t failed = c->spawn_failed_eagain + c->spawn_failed_enomem + c->spawn_failed_other;
	uint64_t killed = c->killed_sigkill + c->killed_sigsegv + c->killed_sigill + c->killed_other;
	char gfp[48] = "";

	if (last && last->kind == CHURN_PROBE_CAPACITY)
		snprintf(probe, sizeof probe, "; last probe capacity %lld (%s)", (long long)last->count,
			 last->stop_reason);
	else if (last && last->kind == CHURN_PROBE_SWITCH)
		snprintf(probe, sizeof probe, "; last probe switch %.3f sys us/yield", last->sys_us_per_yield);
	char poom[48] = "";

	/* Probe workers' OOM kills are deaths too: a line that said "oom 0" after four of them misled. */
	if (st->probe.oom_killed)
		snprintf(poom, sizeof poom, ", probe workers oom-killed %llu", (unsigned long long)st->probe.oom_killed);
	/* Refused HOLDs (--gfp-mode), churn and probe workers together: the 2014 test's deaths. */
	if (c->gfp_failed + st->probe.gfp_failed)
		snprintf(gfp, sizeof gfp, ", gfp_failed %llu", (unsigned long long)(c->gfp_failed + st->probe.gfp_failed));
	snprintf(buf, len, "churn%s %llu/%d workers, %s/s, spawned %llu, failed %llu, killed %llu (oom %llu)%s%s%s",
		 st->state == CHURN_PROBING ? " (probing)" : st->state == CHURN_STOPPING ? " (stopping)" : "",
		 (unsigned long long)c->population, st->params.workers,
		 churn_rate_format(st->params.rate_milli, rate, sizeof rate), (unsigned long long)c->spawned,
		 (unsigned long long)failed, (unsigned long long)killed, (unsigned long long)c->oom_killed, poom, gfp, probe);
	return buf;
}

int churn_scope_parse(const char *s, enum churn_probe_scope *out)
{
	if (s && strcmp(s, "cgroup") == 0)
		*out = CHURN_SCOPE_CGROUP;
	else if (s && strcmp(s, "guest") == 0)
		*out = CHURN_SCOPE_GUEST;
	else
		return -1;
	return 0;
}

const char *churn_probe_kind_name(int kind)
{
	return kind == CHURN_PROBE_CAPACITY ? "capacity" : kind == CHURN_PROBE_SWITCH ? "switch" : "?";
}
