/* SPDX-License-Identifier: GPL-2.0-only */
/* fragload_run: the load's cycle, its commands and the process's life; see fragload.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/blobexec.h"
#include "common/clock.h"
#include "common/log.h"
#include "fragload/fragload_units.h"
#include "worker/worker.h"

/* ---- the cycle ---------------------------------------------------------------------------- */

static void round_quota(struct fl *f)
{
	for (int k = 0; k < FK_NKINDS; k++) {
		uint32_t n = f->r.units[k], per = n / (uint32_t)f->r.rounds;
		/* Spread the remainder over the first rounds. */
		f->todo[k] = per + ((uint32_t)f->round < n % (uint32_t)f->r.rounds ? 1 : 0);
	}
}

static void batch_add(struct fl *f, int k, uint32_t idx)
{
	if (f->nbatch < f->batch_max)
		f->batch[f->nbatch++] = (struct unit){ (uint32_t)k, idx };
}

/*
 * One step of one kind.  Pipes take FRAGLOAD_PIPE_PAGES steps, one page each, so a pipe's pages
 * interleave with the other kinds' allocations like everything else does.
 */
static void alloc_step(struct fl *f, int k)
{
	uint32_t idx;

	if (k == FK_PIPE && f->pipe_cur != UINT32_MAX) {
		if (fl_pipe_page(f, f->pipe_cur) < 0)
			f->alloc_failed++;
		if (++f->pipe_cur_pages >= FRAGLOAD_PIPE_PAGES || f->pipes[f->pipe_cur].pages == 0) {
			f->pipe_cur = UINT32_MAX;
			f->todo[k]--;
		}
		return;
	}
	if (fl_unit_alloc(f, k, &idx) < 0) {
		f->alloc_failed++;
		f->todo[k]--;
		return;
	}
	batch_add(f, k, idx);
	if (k == FK_PIPE) {
		f->pipe_cur = idx;
		f->pipe_cur_pages = 0;
		alloc_step(f, k);
	} else
		f->todo[k]--;
}

/* A fill round: the kinds' allocations round-robin, one step each, until every quota is spent. */
static void fill_round(struct fl *f)
{
	int busy = 1;

	round_quota(f);
	while (busy) {
		busy = 0;
		for (int k = 0; k < FK_NKINDS; k++)
			if (f->todo[k]) {
				alloc_step(f, k);
				busy = 1;
			}
	}
}

static uint64_t unit_kept_bytes(struct fl *f, const struct unit *u)
{
	return fragload_kept_unit_bytes(&f->r, (int)u->kind);
}

static void kept_push(struct fl *f, const struct unit *u)
{
	uint32_t at = (f->khead + f->kn) % f->kmax;

	f->kept[at] = *u;
	f->kn++;
	f->kept_bytes += unit_kept_bytes(f, u);
	if (u->kind != FK_SOCKET)
		f->slot[u->kind][u->idx] = SLOT_KEPT;
}

/*
 * Every pipe keeps its last page and one unit in keep_every of the other kinds stays, all through
 * the batch: a cycle's first allocations get the holes the last cycle's frees left
 * (__rmqueue_smallest) and its later ones are carved from larger blocks, and survivors in both
 * leave small holes beside them, which the unusable index counts (fragload.c says what the Xen
 * test bed measured).
 */
static int is_survivor(const struct fl *f, uint32_t pos, int kind)
{
	uint32_t q = (uint32_t)f->r.keep_every;

	return kind == FK_PIPE || pos % q == q - 1;
}

/*
 * Plan the free phase: this batch's survivors join the long-lived set (whose oldest units are
 * released to make room), everything else, and what was released, is freed in a shuffled order.
 */
static void plan_free(struct fl *f)
{
	uint32_t seen[FK_NKINDS] = { 0 };
	uint64_t incoming = 0;

	f->nwork = 0;
	for (uint32_t i = 0; i < f->nbatch; i++) {
		const struct unit *u = &f->batch[i];
		if (is_survivor(f, seen[u->kind]++, (int)u->kind))
			incoming += unit_kept_bytes(f, u);
	}
	/* Release the oldest long-lived units until the survivors fit; never below an empty set. */
	while (f->kn && f->kept_bytes + incoming > f->r.keep_cap && f->nwork < f->work_max) {
		struct unit u = f->kept[f->khead];
		f->khead = (f->khead + 1) % f->kmax;
		f->kn--;
		f->kept_bytes -= unit_kept_bytes(f, &u);
		f->work[f->nwork++] = u;
	}
	memset(seen, 0, sizeof seen);
	for (uint32_t i = 0; i < f->nbatch; i++) {
		const struct unit *u = &f->batch[i];
		int keep = is_survivor(f, seen[u->kind]++, (int)u->kind) && f->kn < f->kmax &&
			   f->kept_bytes + unit_kept_bytes(f, u) <= f->r.keep_cap;
		if (keep) {
			kept_push(f, u);
			/* A surviving pipe is trimmed to its last page in the shuffled order too. */
			if (u->kind == FK_PIPE && f->nwork < f->work_max)
				f->work[f->nwork++] = (struct unit){ FK_NKINDS, u->idx };
		} else if (f->nwork < f->work_max)
			f->work[f->nwork++] = *u;
	}
	f->nbatch = 0;
	for (uint32_t i = 0; i < f->nwork; i++)
		f->order[i] = i;
	fragload_shuffle(f->order, f->nwork, &f->rng);
	f->wdone = 0;
}

static void free_round(struct fl *f)
{
	uint32_t left = (uint32_t)(f->r.rounds - f->round);
	uint32_t n = left ? (f->nwork - f->wdone + left - 1) / left : f->nwork - f->wdone;

	for (uint32_t i = 0; i < n && f->wdone < f->nwork; i++) {
		const struct unit *u = &f->work[f->order[f->wdone++]];
		if (u->kind == FK_NKINDS)
			fl_pipe_trim(f, u->idx);
		else
			fl_unit_free(f, u);
	}
}

/*
 * The cycle is paced by the clock, not by the CPU: every round and phase is due at a fixed offset
 * from the cycle's start (fill rounds over [0, fill), the hold until fill + hold, free rounds over
 * the next free_ms, the rest until the period's end), and a cycle starts one period after the last
 * one did.  A step that comes late (a slow or busy CPU) runs at once, and the hold and the rest
 * absorb the delay; only work longer than a whole period stretches a cycle.  So a guest ages by
 * cycles per minute, alike on a fast vCPU of its own and on a shared, emulated one (before, each
 * round waited its slot after the last one's work: a heavy cycle took 15-20 s in the test bed's
 * domU and 27-47 s in its dom0).
 */
static int64_t period_ms(const struct fl *f)
{
	return f->r.fill_ms + f->r.hold_ms + f->r.free_ms + f->r.rest_ms;
}

static void enter(struct fl *f, int state, int64_t first_due)
{
	f->state = state;
	f->round = 0;
	f->next_ms = first_due;
}

static void start_cycle(struct fl *f, int64_t at)
{
	f->cycle_start = at;
	enter(f, FRAGLOAD_FILLING, at);
}

/* Advance the cycle by whatever is due at now. */
static void step(struct fl *f, int64_t now)
{
	int64_t fill = f->r.fill_ms, hold = f->r.hold_ms, per;

	if (f->state == FRAGLOAD_PAUSED || f->state == FRAGLOAD_STOPPING || now < f->next_ms)
		return;
	switch (f->state) {
	case FRAGLOAD_FILLING:
		per = fill / f->r.rounds;
		fill_round(f);
		if (++f->round >= f->r.rounds)
			enter(f, FRAGLOAD_HOLDING, f->cycle_start + fill + hold);
		else
			f->next_ms = f->cycle_start + f->round * per;
		break;
	case FRAGLOAD_HOLDING:
		plan_free(f);
		enter(f, FRAGLOAD_FREEING, now);
		break;
	case FRAGLOAD_FREEING:
		per = f->r.free_ms / f->r.rounds;
		free_round(f);
		if (++f->round >= f->r.rounds) {
			f->cycles++;
			enter(f, FRAGLOAD_RESTING, f->cycle_start + period_ms(f));
			fl_send_cycle_end(f, now);
		} else
			f->next_ms = f->cycle_start + fill + hold + f->round * per;
		break;
	case FRAGLOAD_RESTING:
		/* One period after the last start, or now when the work overran the period. */
		start_cycle(f, now > f->cycle_start + period_ms(f) ? now : f->cycle_start + period_ms(f));
		break;
	}
}

/* ---- commands ----------------------------------------------------------------------------- */

static void pause_load(struct fl *f, int64_t now)
{
	if (f->state == FRAGLOAD_PAUSED || f->state == FRAGLOAD_STOPPING)
		return;
	f->paused_state = f->state;
	f->paused_at = now;
	f->state = FRAGLOAD_PAUSED;
}

/* Resume where it paused, every deadline moved by the pause. */
static void resume_load(struct fl *f, int64_t now)
{
	if (f->state != FRAGLOAD_PAUSED)
		return;
	f->state = f->paused_state;
	f->cycle_start += now - f->paused_at;
	f->next_ms += now - f->paused_at;
}

/* 1 when the daemon asked to stop (or is gone). */
static int read_commands(struct fl *f, int64_t now)
{
	struct fragload_cmd c;

	for (;;) {
		ssize_t n = recv(f->sock, &c, sizeof c, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return 1;
		if (n < 0)
			return 0;
		if (n != (ssize_t)sizeof c)
			continue;
		switch (c.type) {
		case FRAGLOAD_CMD_PAUSE:
			pause_load(f, now);
			fl_send_status(f, now);
			break;
		case FRAGLOAD_CMD_RESUME:
			resume_load(f, now);
			fl_send_status(f, now);
			break;
		case FRAGLOAD_CMD_STATUS:
			fl_send_status(f, now);
			break;
		case FRAGLOAD_CMD_STOP:
			return 1;
		}
	}
}

static void run(struct fl *f)
{
	for (;;) {
		int64_t now = clock_mono_ms(), t;
		struct pollfd pf[2] = { { f->sock, POLLIN, 0 }, { f->sigfd, POLLIN, 0 } };

		step(f, now);
		now = clock_mono_ms();
		if (now >= f->next_status)
			fl_send_status(f, now);
		t = f->next_status;
		if (f->state != FRAGLOAD_PAUSED && f->next_ms < t)
			t = f->next_ms;
		t -= now;
		if (poll(pf, 2, (int)(t < 0 ? 0 : t)) > 0) {
			if (pf[1].revents)
				return;        /* SIGTERM: stop like EOF */
			if (pf[0].revents && read_commands(f, clock_mono_ms()))
				return;
		}
	}
}

/* Close every descriptor above 2 but a and b (a < b; either may be -1). */
static void close_others(int a, int b)
{
	unsigned from = 3;

	for (int i = 0; i < 2; i++) {
		int k = i ? b : a;
		if (k < (int)from)
			continue;
		if ((unsigned)k > from)
			syscall(SYS_close_range, from, (unsigned)k - 1, 0u);
		from = (unsigned)k + 1;
	}
	syscall(SYS_close_range, from, ~0u, 0u);
}

static void set_oom_adj(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "500", 3) < 0) {
		/* Raising it needs no privilege; a failure leaves what the daemon had (protected). */
	}
	close(fd);
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void hello(struct fl *f)
{
	struct fragload_rec *r = &f->rec;

	memset(r, 0, sizeof *r);
	r->type = FRAGLOAD_REC_HELLO;
	r->u.hello.pid = getpid();
	r->u.hello.r = f->r;
	snprintf(r->u.hello.note, sizeof r->u.hello.note, "%s", f->note);
	fl_send_rec(f, r);
}

static void __attribute__((noreturn)) finish(struct fl *f, int code)
{
	struct fragload_rec *r = &f->rec;

	fl_release_all(f);
	fl_send_status(f, clock_mono_ms());
	memset(r, 0, sizeof *r);
	r->type = FRAGLOAD_REC_BYE;
	fl_send_rec(f, r);
	_exit(code);
}

void fragload_main(const struct fragload_cfg *cfg)
{
	struct fl fl;                /* the load's one context; this frame never returns */
	struct fl *f = &fl;
	sigset_t set;
	int keep[2] = { cfg->sock < cfg->dirfd ? cfg->sock : cfg->dirfd, cfg->sock < cfg->dirfd ? cfg->dirfd : cfg->sock };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != cfg->daemon)
		_exit(1);
	memset(f, 0, sizeof *f);
	f->cfg = cfg;
	f->r = cfg->r;
	f->sock = cfg->sock;
	f->page = sysconf(_SC_PAGESIZE);
	f->rng = cfg->seed ^ 0x6672616720u;
	f->pipe_cur = UINT32_MAX;
	/* Only its socket and the files' directory stay open. */
	close_others(keep[0], keep[1]);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_SETMASK, &set, NULL);
	f->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	prctl(PR_SET_NAME, "fpusoakd-frag", 0, 0, 0);
	set_oom_adj();
	raise_nofile();
	/* THP would map a read fault with the huge zero page (no PTE page) and a touch with 2 MiB. */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (worker_drop_privileges() < 0)
		fl_note(f, LOG_LVL_INFO, "fragment: cannot drop capabilities (%s)", strerror(errno));
	if (f->sigfd < 0 || fl_setup_kinds(f) < 0) {
		fl_note(f, LOG_LVL_ERR, "fragment: cannot set up the load: %s", strerror(errno));
		finish(f, 1);
	}
	hello(f);
	start_cycle(f, clock_mono_ms());
	fl_send_status(f, clock_mono_ms());
	run(f);
	f->state = FRAGLOAD_STOPPING;
	finish(f, 0);
}

int fragload_exec_main(int argc, char **argv)
{
	unsigned char blob[FRAGLOAD_BLOB_MAX + 1];
	struct fragload_cfg cfg;     /* lives on: fragload_main never returns */
	char why[256];
	ssize_t n = blobexec_read(argc, argv, "--internal-fragment", blob, sizeof blob);

	if (n == 0)
		return 0;
	if (fragload_blob_unpack(blob, (size_t)n, &cfg, why, sizeof why) < 0) {
		fprintf(stderr, "fpusoakd-fragment: %s\n", why);
		_exit(70);
	}
	fragload_main(&cfg);
}
