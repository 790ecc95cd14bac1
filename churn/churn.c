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
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "churn/spawner.h"
#include "common/log.h"
#include "common/clock.h"
#include "common/helper.h"

#define HELLO_TIMEOUT_MS 5000
#define STOP_TIMEOUT_MS 10000

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
};

void churn_cfg_defaults(struct churn_cfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->params = (struct churn_params){ .workers = 32, .dist = CHURN_DIST_EXP, .rate_milli = 50000,
					     .lifetime_ms = 30000 };
	cfg->seed = 1;
	cfg->fpu = FPU_AUTO;
	cfg->worker_memory = 256 * 1024;
	cfg->worker_tick_ms = 10;
	cfg->worker_work_iters = 1000;
	cfg->cgroup = CGROUP_AUTO;
	cfg->nocgroup_cap = 64;
	cfg->probe_limit = 2048;
	cfg->probe_scope = CHURN_SCOPE_CGROUP;
	cfg->probe_step_timeout_ms = 10000;
	cfg->switch_threads = 64;
	cfg->switch_ms = 2000;
	cfg->status_ms = 250;
	cfg->death_records_max = 64;
}

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
	if (c->probe_step_timeout_ms < 100 || c->switch_threads < 1 || c->switch_threads > 1024 ||
	    c->switch_ms < 10 || c->switch_ms > 600000)
		return "probe settings out of range";
	if (c->status_ms < 10 || c->status_ms > 60000 || c->death_records_max < 0)
		return "status settings out of range";
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
		if ((size_t)n < sizeof rec->type || (size_t)n != spawner_rec_size(rec->type))
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
		.pids_max = cfg->cgroup_pids_max,
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
	    cgroup_set_pids_max(ch->cg, cfg->cgroup_pids_max + 1) < 0)
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
	ch->sock = -1;
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
	if (start_spawner(ch, &scfg, &heard, err, errlen) == 0)
		return ch;
	/* A static spawner that died without a word (a helper from another build refuses the config,
	 * see spawner_exec.c) must not cost the run its churn: the forked copy can do the job. */
	if (!scfg.cc.spawner_exe || heard)
		goto fail;
	log_warnx("churn: %s did not start (%s); the daemon's forked copy runs the spawner instead",
		  scfg.cc.spawner_exe, err);
	scfg.cc.spawner_exe = NULL;
	if (start_spawner(ch, &scfg, &heard, err, errlen) == 0)
		return ch;
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

/* Drain records until BYE or EOF; 0, or -1 on timeout. */
static int drain_until_bye(struct churn *ch, int64_t deadline)
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

int churn_close(struct churn *ch, struct churn_status *final)
{
	struct spawner_cmd cmd = { .type = SPAWNER_CMD_STOP };
	int rc = 0;

	if (!ch)
		return 0;
	if (ch->pid > 0) {
		if (!ch->gone) {
			send_cmd(ch, &cmd);
			/* EOF is a stop too, in case the STOP did not fit in the socket. */
			shutdown(ch->sock, SHUT_WR);
			if (drain_until_bye(ch, clock_mono_ms() + STOP_TIMEOUT_MS) < 0) {
				log_warnx("churn: spawner did not stop within %d ms; killing it", STOP_TIMEOUT_MS);
				kill(ch->pid, SIGKILL);
				rc = -1;
			}
		} else
			rc = -1;
		if (reap_spawner(ch->pid) < 0)
			rc = -1;
	}
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
