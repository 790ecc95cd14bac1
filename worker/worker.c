/* SPDX-License-Identifier: GPL-2.0-only */
/* worker: one FPU-using process's life; see worker.h. */
#define _GNU_SOURCE
#include "worker/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/prio.h"
#include "worker/gfpmod.h"

static void on_term(int sig)
{
	(void)sig;
	_exit(WORKER_EXIT_RETIRED);
}

int worker_install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigfillset(&sa.sa_mask);
	return sigaction(SIGTERM, &sa, NULL);
}

const char *worker_exit_name(int code)
{
	switch (code) {
	case WORKER_EXIT_OK:
		return "ok";
	case WORKER_EXIT_RETIRED:
		return "retired";
	case WORKER_EXIT_ORPHAN:
		return "orphan";
	case WORKER_EXIT_CGROUP:
		return "cgroup";
	case WORKER_EXIT_OOMADJ:
		return "oom_score_adj";
	case WORKER_EXIT_FPU:
		return "fpu";
	case WORKER_EXIT_MEMORY:
		return "memory";
	case WORKER_EXIT_CAPS:
		return "caps";
	case WORKER_EXIT_GFP:
		return "gfp";
	case WORKER_EXIT_GFP_CAP:
		return "gfp_cap";
	default:
		return "exit";
	}
}

static int set_oom_adj(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, "1000", 4) == 4;
	close(fd);
	return ok ? 0 : -1;
}

int worker_drop_privileges(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	/* capset, not libcap: libcap is one of the libraries the spawner keeps out of workers (maps.h). */
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) < 0)
		return -1;
	/* Ambient capabilities are cleared with permitted; clear them explicitly anyway (EINVAL: before 4.3). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -1 : 0;
}

/* Close every inherited fd but 0-2 and the two kept (-1: none): the spawner's socket and signalfd are not ours. */
static void close_inherited(int keep_a, int keep_b)
{
	int lo = keep_a < keep_b ? keep_a : keep_b, hi = keep_a < keep_b ? keep_b : keep_a;
	unsigned from = 3;

	if (lo == hi)
		lo = -1;
	if (lo >= 3) {
		if ((unsigned)lo > from)
			syscall(SYS_close_range, from, (unsigned)lo - 1, 0u);
		from = (unsigned)lo + 1;
	}
	if (hi >= 3) {
		if ((unsigned)hi > from)
			syscall(SYS_close_range, from, (unsigned)hi - 1, 0u);
		from = (unsigned)hi + 1;
	}
	syscall(SYS_close_range, from, ~0u, 0u);
}

/*
 * The 2014 allocation: one XSAVE-sized object, held through the open fd for the rest of this life.
 * Refused (ENOMEM): tell the spawner, then die the way the 2014 kernel killed the task.
 */
static void gfp_hold_or_die(const struct worker_args *a)
{
	int fd = gfpmod_open();
	pid_t me;
	ssize_t sent;

	if (fd < 0)
		_exit(WORKER_EXIT_GFP);
	if (gfpmod_hold(fd, a->gfp_size, (enum gfp_mode)a->gfp_mode) == 0)
		return;
	if (errno == EDQUOT)
		_exit(WORKER_EXIT_GFP_CAP);
	if (errno != ENOMEM)
		_exit(WORKER_EXIT_GFP);
	me = getpid();
	/* Non-blocking and PIPE_BUF-atomic; were the pipe full, the death would count as killed_sigkill. */
	sent = a->gfp_fd >= 0 ? write(a->gfp_fd, &me, sizeof me) : 0;
	(void)sent;
	kill(me, SIGKILL);
	_exit(WORKER_EXIT_GFP);      /* not reached: SIGKILL cannot be blocked */
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(int64_t t_ns)
{
	struct timespec ts = { t_ns / 1000000000, t_ns % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* One write per page: the kernel allocates (and charges) each page on its first write. */
static int touch_memory(uint64_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *m;

	if (bytes == 0)
		return 0;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	for (uint64_t off = 0; off < bytes; off += (uint64_t)page)
		m[off] = (char)(off >> 12 | 1);
	return 0;
}

/*
 * A probe worker's life once it holds what it came for (FPU state, its object, its memory): sleep
 * until SIGTERM (_exit RETIRED) or the spawner's death (PDEATHSIG).  A held worker that woke every
 * tick made a probe's cost CPU rather than memory: 1,000 of them asked two cores for 100,000
 * wakeups a second, the fill slowed to ~20 workers a minute and the sampler lost a third of its
 * ticks (issue 36).  The 2014 processes touched the FPU and waited, too.
 */
static void hold_still(void)
{
	for (;;)
		pause();
}

void worker_run(const struct worker_args *a)
{
	sigset_t none;
	int64_t now, end, next, tick = (a->tick_ms > 0 ? a->tick_ms : 10) * 1000000;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != a->parent)
		_exit(WORKER_EXIT_ORPHAN);
	if (a->procs_fd >= 0 && write(a->procs_fd, "0", 1) != 1)
		_exit(WORKER_EXIT_CGROUP);
	if (set_oom_adj() < 0)
		_exit(WORKER_EXIT_OOMADJ);
	/* Below the spawner and the sampler (worker.h): a churn worker at the bottom, a probe worker one step
	 * below the spawner. */
	if (a->lifetime_ms < 0)
		prio_lower(1, PRIO_WORKER_NICE);
	else
		prio_lower(PRIO_WORKER_NICE, PRIO_WORKER_NICE);
	if (!a->privs_dropped && worker_drop_privileges() < 0)
		_exit(WORKER_EXIT_CAPS);
	prctl(PR_SET_DUMPABLE, 0);
	close_inherited(a->ready_fd, a->gfp_fd);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (fpu_touch(a->kind) < 0)
		_exit(WORKER_EXIT_FPU);
	if (a->gfp_mode) {
		/*
		 * SIGTERM (a retirement, a probe's release) waits until the HOLD's answer is acted on: a
		 * refused worker that ran on_term instead died "retired", and the module's count of
		 * refusals exceeded the DB's gfp_failed by one (91_xen_domu's refusal run, 36 vs 35).
		 */
		sigset_t term;

		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_BLOCK, &term, NULL);
		gfp_hold_or_die(a);
		sigprocmask(SIG_UNBLOCK, &term, NULL);
	}
	if (a->lifetime_ms == 0)
		_exit(WORKER_EXIT_OK);
	now = mono_ns();
	end = a->lifetime_ms > 0 ? now + a->lifetime_ms * 1000000 : INT64_MAX;
	if (touch_memory(a->memory) < 0)
		_exit(WORKER_EXIT_MEMORY);
	if (a->ready_fd >= 0 && write(a->ready_fd, "r", 1) != 1)
		_exit(WORKER_EXIT_OK);
	/*
	 * Touched again, last: touch_memory's memset runs glibc's AVX2 routine on a CPU without
	 * AVX-512, and its VZEROUPPER puts the YMM upper halves back in their init state (XINUSE
	 * bit 2 clear on AMD EPYC without AVX-512), so the worker would wait with no live AVX state.
	 */
	fpu_touch(a->kind);
	if (a->lifetime_ms < 0)
		hold_still();
	for (next = now + tick;; next += tick) {
		fpu_work(a->kind, a->work_iters);
		if (next >= end) {
			sleep_until(end);
			_exit(WORKER_EXIT_OK);
		}
		sleep_until(next);
	}
}
