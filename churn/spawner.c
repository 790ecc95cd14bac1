/* SPDX-License-Identifier: GPL-2.0-only */
/* spawner: the single-threaded loop that forks, reaps, counts and probes; see spawner.h. */
#define _GNU_SOURCE
#include "churn/spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <linux/sched.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "churn/gfpmod.h"
#include "churn/spawner_fork.h"
#include "churn/spawner_priv.h"
#include "churn/spawner_probe.h"
#include "churn/spawner_reap.h"
#include "churn/spawner_rec.h"
#include "churn/spawner_tab.h"
#include "churn/worker.h"
#include "collector/cpuinfo.h"
#include "collector/procfile.h"
#include "common/log.h"
#include "common/prio.h"

#define STOP_GIVEUP_NS 3000000000LL /* after SIGKILL: exit anyway (PDEATHSIG finishes the job) */
#define SPAWNER_MEMCG_FLOOR (32 << 20) /* below this limit the spawner stays out of the v1 memory group */

/* ---- commands and stop -------------------------------------------------------------------- */

static void begin_stop(struct spawner *s, int64_t now)
{
	if (s->stopping)
		return;
	s->stopping = 1;
	s->state = CHURN_STOPPING;
	if (s->cap.phase != PROBE_IDLE)
		probe_cap_abort(&s->cap, now, "stopped");
	s->stop_deadline = now + RETIRE_NS;
	spawner_tab_signal(s, ROLE_CHURN, SIGTERM);
	spawner_tab_signal(s, ROLE_PROBE, SIGTERM);
	spawner_tab_signal(s, ROLE_SWITCH, SIGKILL);
}

/* 1 once every child is gone (or we give up: PDEATHSIG kills what is left when we exit). */
static int stop_progress(struct spawner *s, int64_t now)
{
	if (s->cap.phase == PROBE_RELEASING && s->probe_alive == 0)
		spawner_probe_cap_finish(s, now);
	if (s->tab.n == 0)
		return 1;
	if (now >= s->stop_deadline) {
		if (s->stop_killed)
			return 1;
		spawner_tab_signal(s, ROLE_CHURN, SIGKILL);
		spawner_tab_signal(s, ROLE_PROBE, SIGKILL);
		s->stop_killed = 1;
		s->stop_deadline = now + STOP_GIVEUP_NS;
	}
	return 0;
}

static void command(struct spawner *s, const struct spawner_cmd *cmd, int64_t now)
{
	switch (cmd->type) {
	case SPAWNER_CMD_SET:
		if (spawner_tab_grow(s, cmd->params.workers) < 0) {
			spawner_rec_note(s, LOG_LVL_WARN, "spawner: out of memory for %lld workers; keeping the population",
					 (long long)cmd->params.workers);
			break;
		}
		s->want = cmd->params;
		spawner_fork_set_params(s, now);
		break;
	case SPAWNER_CMD_PROBE:
		if (cmd->probe_kind == CHURN_PROBE_CAPACITY)
			s->cap_pending = 1;
		else if (cmd->probe_kind == CHURN_PROBE_SWITCH)
			s->sw_pending = 1;
		break;
	case SPAWNER_CMD_STATUS:
		spawner_rec_status(s, now, 0);
		break;
	case SPAWNER_CMD_STOP:
		begin_stop(s, now);
		break;
	}
}

static void read_commands(struct spawner *s, int64_t now)
{
	struct spawner_cmd cmd;
	ssize_t n;

	for (;;) {
		n = recv(s->sock, &cmd, sizeof cmd, MSG_DONTWAIT);
		if (n == (ssize_t)sizeof cmd)
			command(s, &cmd, now);
		else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			/* The daemon is gone or closed its end: stop (PDEATHSIG covers a crash). */
			begin_stop(s, now);
			return;
		} else if (n < 0)
			return;
	}
}

static void read_signals(struct spawner *s, int64_t now)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
		if (si.ssi_signo == SIGTERM)
			begin_stop(s, now);
}

/* ---- loop --------------------------------------------------------------------------------- */

/* One probe at a time: the two would disturb each other's numbers. */
static int can_start_probe(const struct spawner *s)
{
	return s->cap.phase == PROBE_IDLE && !s->sw_pid;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static void wait_events(struct spawner *s, int64_t now)
{
	struct pollfd pf[4];
	int n = 0, isock, isig, iready = -1, isw = -1;
	int64_t t = s->next_status;
	struct timespec ts;

	if (s->stopping)
		t = min64(t, s->stop_deadline);
	else if (s->state == CHURN_RUNNING && (s->cap_pending || s->sw_pending) && can_start_probe(s))
		t = now;
	else if (s->state == CHURN_RUNNING)
		t = min64(t, churn_ctl_next_ns(&s->ctl, now, s->c.population));
	if (s->cap.phase == PROBE_RETIRING || s->cap.phase == PROBE_RELEASING)
		t = min64(t, s->phase_deadline);
	if ((s->cap.phase == PROBE_FILLING && s->cap.waiting) || s->cap.phase == PROBE_SETTLING)
		t = min64(t, s->cap.deadline);
	if (t < now)
		t = now;
	t -= now;
	ts.tv_sec = t / 1000000000;
	ts.tv_nsec = t % 1000000000;

	pf[isock = n++] = (struct pollfd){ s->sock, (short)(POLLIN | (s->out.n ? POLLOUT : 0)), 0 };
	pf[isig = n++] = (struct pollfd){ s->sigfd, POLLIN, 0 };
	if (s->ready_rd >= 0)
		pf[iready = n++] = (struct pollfd){ s->ready_rd, POLLIN, 0 };
	if (s->sw_rd >= 0)
		pf[isw = n++] = (struct pollfd){ s->sw_rd, POLLIN, 0 };
	if (ppoll(pf, (nfds_t)n, &ts, NULL) <= 0)
		return;
	now = spawner_mono_ns();
	if (pf[isig].revents)
		read_signals(s, now);
	if (pf[isock].revents & (POLLIN | POLLHUP | POLLERR))
		read_commands(s, now);
	if (iready >= 0 && pf[iready].revents)
		spawner_reap_ready(s, now);
	if (isw >= 0 && pf[isw].revents)
		spawner_probe_sw_read(s);
}

static void start_pending(struct spawner *s, int64_t now)
{
	if (!can_start_probe(s))
		return;
	if (s->cap_pending)
		spawner_probe_cap_start(s, now);
	else if (s->sw_pending)
		spawner_probe_sw_start(s, now);
}

static void run(struct spawner *s)
{
	for (;;) {
		int64_t now = spawner_mono_ns();
		spawner_reap_all(s, now);
		if (s->stopping) {
			if (stop_progress(s, now))
				return;
		} else {
			start_pending(s, now);
			spawner_probe_cap_progress(s, now);
			if (s->state == CHURN_RUNNING)
				spawner_fork_churn(s, now);
		}
		if (now >= s->next_status)
			spawner_rec_status(s, now, 0);
		spawner_rec_flush(s);
		wait_events(s, spawner_mono_ns());
	}
}

/* ---- setup -------------------------------------------------------------------------------- */

/* Close every inherited fd except 0-2 and the ones we need (the daemon's DB, sockets, kmsg...). */
static void close_others(const int *keep, int nkeep)
{
	int last = 2;

	for (;;) {
		int next = -1;
		for (int i = 0; i < nkeep; i++)
			if (keep[i] > last && (next < 0 || keep[i] < next))
				next = keep[i];
		if (next < 0) {
			syscall(SYS_close_range, (unsigned)last + 1, ~0u, 0u);
			return;
		}
		if (next > last + 1)
			syscall(SYS_close_range, (unsigned)last + 1, (unsigned)next - 1, 0u);
		last = next;
	}
}

/*
 * Signal dispositions are inherited by workers: reset whatever the daemon
 * installed, ignore what a `systemctl kill` or a terminal sends to the
 * whole group (the daemon handles those and tells us), keep SIGTERM for
 * the worker's retire handler and read it (and SIGCHLD) from a signalfd.
 */
static int setup_signals(struct spawner *s)
{
	sigset_t set;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	if (worker_install_handlers() < 0)
		return -1;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_SETMASK, &set, NULL) < 0)
		return -1;
	s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return s->sigfd < 0 ? -1 : 0;
}

static int protect_self(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, "-1000", 5) == 5;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * --gfp-mode: what each worker HOLDs is its FPU state size (CPUID 0xd.0 EBX, the kernel module's object
 * size too), and the pipe through which a refused worker names itself before its SIGKILL.  The daemon
 * found the module before it asked for a mode; if the device is gone now, the run goes on without.
 */
static void gfp_setup(struct spawner *s)
{
	static struct cpuinfo ci;
	struct fpusoak_gfp_info info;
	int fds[2], fd;

	s->gfp_mode = (enum gfp_mode)s->cfg->cc.gfp_mode;
	if (s->gfp_mode == GFP_MODE_OFF)
		return;
	fd = gfpmod_open();
	if (fd < 0 || gfpmod_info(fd, &info) < 0 || pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		spawner_rec_note(s, LOG_LVL_WARN, "gfp: %s: %s: workers do not HOLD (gfp_mode=off)", FPUSOAK_GFP_DEVICE,
				 strerror(errno));
		if (fd >= 0)
			close(fd);
		s->gfp_mode = GFP_MODE_OFF;
		return;
	}
	close(fd);
	s->gfp_rd = fds[0];
	s->gfp_wr = fds[1];
	cpuinfo_detect(&ci);
	s->gfp_size = ci.xstate_user_bytes > 0 ? (uint32_t)ci.xstate_user_bytes : 512;
	if (s->gfp_size > info.object_size) {
		spawner_rec_note(s, LOG_LVL_WARN, "gfp: this process's FPU state is %u bytes, the module's objects %u: holding %u",
				 s->gfp_size, info.object_size, info.object_size);
		s->gfp_size = info.object_size;
	}
}

static void hello(struct spawner *s, int protected_, int amx_ok, const char *amx_why)
{
	static struct churn_rec r;
	struct churn_hello *h = &r.u.hello;

	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_HELLO;
	h->spawner_pid = s->self;
	h->fpu_kind = s->kind;
	h->amx_ok = amx_ok;
	h->cgroup_ver = cgroup_version(s->cg);
	h->pop_cap = s->cfg->pop_cap;
	h->clone_into_cgroup = s->clone_fd >= 0;
	h->protected_ = protected_;
	h->exec_ok = s->cfg->exec_ok;
	h->gfp_mode = s->gfp_mode;
	h->gfp_size = s->gfp_mode ? s->gfp_size : 0;
	h->seed = s->cfg->cc.seed;
	snprintf(h->fpu_note, sizeof h->fpu_note, "%s%s%s%s", fpu_kind_name(s->kind),
		 s->cfg->cc.fpu == FPU_AUTO ? " (auto)" : "", amx_ok ? "; amx usable" : "; amx unavailable: ",
		 amx_ok ? "" : amx_why);
	spawner_rec_emit(s, &r, 1);
}

static void finish(struct spawner *s)
{
	static struct churn_rec bye;
	struct pollfd pf = { s->sock, POLLOUT, 0 };

	spawner_rec_status(s, spawner_mono_ns(), 1);
	memset(&bye, 0, sizeof bye);
	bye.type = CHURN_REC_BYE;
	spawner_rec_emit(s, &bye, 1);
	/* Give the daemon up to a second to take the last records. */
	for (int i = 0; i < 20 && s->out.n; i++) {
		poll(&pf, 1, 50);
		spawner_rec_flush(s);
	}
}

void spawner_main(const struct spawner_cfg *cfg)
{
	static struct spawner sp;
	struct spawner *s = &sp;
	int keep[8], nkeep = 0, protected_, amx_ok;
	char why[160] = "";
	size_t slots;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != cfg->daemon)
		_exit(1);
	memset(s, 0, sizeof *s);
	s->cfg = cfg;
	s->cg = cfg->cg;
	s->sock = cfg->sock;
	s->self = getpid();
	s->ready_rd = s->ready_wr = s->sw_rd = s->gfp_rd = s->gfp_wr = -1;
	s->clone_fd = cgroup_clone_fd(s->cg);
	s->procs_fd = cgroup_child_fd(s->cg);
	keep[nkeep++] = s->sock;
	nkeep += cgroup_fds(s->cg, keep + nkeep, 6);
	close_others(keep, nkeep);
	if (setup_signals(s) < 0) {
		spawner_rec_note(s, LOG_LVL_ERR, "spawner: cannot set up signals: %s", strerror(errno));
		_exit(1);
	}
	protected_ = protect_self() == 0;
	if (!protected_)
		spawner_rec_note(s, LOG_LVL_WARN, "spawner: cannot set oom_score_adj -1000 (%s): the OOM killer may pick it",
				 strerror(errno));
	/* Below the core, above the workers (common/prio.h): the sampler first, then forks and reaps. */
	if (prio_lower(PRIO_HELPER_STEP, PRIO_WORKER_NICE - 2) < 0)
		spawner_rec_note(s, LOG_LVL_INFO, "spawner: cannot lower its priority (%s)", strerror(errno));
	if (cgroup_enter_pids(s->cg) < 0)
		spawner_rec_note(s, LOG_LVL_WARN, "spawner: cannot join the pids group (%s): pids.max will not stop forks",
				 strerror(errno));

	s->kind = fpu_resolve(cfg->cc.fpu);
	if (!fpu_supported(s->kind, why, sizeof why)) {
		spawner_rec_note(s, LOG_LVL_ERR, "--fpu %s is not usable here: %s", fpu_kind_name(s->kind), why);
		finish(s);
		_exit(1);
	}
	amx_ok = fpu_supported(FPU_AMX, why, sizeof why);
	gfp_setup(s);

	/* The static spawner maps nothing to shed; the daemon's forked copy maps ~20 libraries. */
	if (cfg->exec_errno)
		spawner_rec_note(s, LOG_LVL_NOTICE, "spawner: cannot exec %s (%s): running in the daemon's forked copy,"
				 " whose larger address space every fork copies", cfg->cc.spawner_exe, strerror(cfg->exec_errno));
	s->raw_ok = spawner_fork_raw_ok();
	if (!cfg->exec_ok)
		spawner_fork_shed(s);
	slots = spawner_tab_slots(s, cfg->cc.params.workers);
	s->tab.s = spawner_tab_alloc(slots);
	s->tab.mask = slots - 1;
	if (!s->tab.s) {
		spawner_rec_note(s, LOG_LVL_ERR, "spawner: out of memory");
		finish(s);
		_exit(1);
	}
	/*
	 * After the table is touched: its pages stay charged where they were made (see cgroup.h).
	 * Not under a small limit: a batch of reaped-but-not-yet-freed workers (~84 KiB of kernel
	 * objects each) could fill the group with no live worker left to kill, and the OOM killer
	 * would take the spawner (measured: at 2 MiB it did).
	 */
	if (cgroup_version(s->cg) == CGROUP_V1 && cgroup_memory_max(s->cg) &&
	    cgroup_memory_max(s->cg) < SPAWNER_MEMCG_FLOOR)
		spawner_rec_note(s, LOG_LVL_INFO, "spawner: the workers' memory limit is under %d MiB: it stays outside the group"
				 " and each worker moves itself", SPAWNER_MEMCG_FLOOR >> 20);
	else if (cgroup_version(s->cg) == CGROUP_V1) {
		if (cgroup_enter_memory(s->cg) == 0) {
			s->in_memcg = 1;
			s->procs_fd = -1;
		}
		else
			spawner_rec_note(s, LOG_LVL_WARN, "spawner: cannot join the memory group (%s): each worker moves itself",
					 strerror(errno));
	}
	/*
	 * Nothing the spawner does from here needs a capability (its cgroup files are root's and it
	 * is root; it signals only its own children), so it drops them once for every worker: each
	 * worker's capset and ambient clear were two credential copies per lifecycle.
	 */
	s->privs_dropped = worker_drop_privileges() == 0;
	if (!s->privs_dropped)
		spawner_rec_note(s, LOG_LVL_INFO, "spawner: cannot drop capabilities (%s): each worker drops its own",
				 strerror(errno));
	s->have_oom = s->cg && cgroup_oom_kills(s->cg, &s->oom_base) == 0;
	s->oom_last = s->oom_base;
	s->want = cfg->cc.params;
	s->state = CHURN_RUNNING;
	churn_ctl_init(&s->ctl, &s->want, cfg->cc.seed, spawner_mono_ns());
	spawner_fork_set_params(s, spawner_mono_ns());
	hello(s, protected_, amx_ok, why);
	spawner_rec_status(s, spawner_mono_ns(), 0);
	run(s);
	finish(s);
	_exit(0);
}
