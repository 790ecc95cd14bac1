/* spawner: fork, reap, count and probe, in one single-threaded process; see spawner.h. */
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
#include "churn/maps.h"
#include "churn/probe.h"
#include "churn/worker.h"
#include "collector/cpuinfo.h"
#include "collector/procfile.h"
#include "common/num.h"
#include "common/log.h"

#define SPAWN_BATCH 64              /* forks per loop turn: stay responsive to the socket */
#define OUTBOX_MAX 32               /* undeliverable must-arrive records held for retry */
#define RETIRE_NS 3000000000LL      /* SIGTERM, then SIGKILL after this */
#define RELEASE_NS 5000000000LL
#define STOP_GIVEUP_NS 3000000000LL /* after SIGKILL: exit anyway (PDEATHSIG finishes the job) */
#define SPAWNER_MEMCG_FLOOR (32 << 20) /* below this limit the spawner stays out of the v1 memory group */
#define SHED_MAX 256                /* library mappings kept out of workers */
#define MAPS_CAP (256 * 1024)       /* /proc/self/maps: ~100 bytes a line; the daemon's spawner has ~140 */

enum role { ROLE_FREE = 0, ROLE_CHURN, ROLE_PROBE, ROLE_SWITCH };
#define SLOT_GFP_FAILED 1           /* the worker wrote its PID to the gfp pipe: its SIGKILL was its own */

struct slot {
	pid_t pid;
	int16_t role;
	uint8_t ours;                /* we sent it SIGKILL: its SIGKILL death is ours, not an OOM kill */
	uint8_t flags;               /* SLOT_GFP_FAILED */
	int64_t born_ms;
};

/* Open addressing, linear probing, backward-shift deletion: no tombstones, no allocation per spawn. */
struct table {
	struct slot *s;
	size_t mask, n;
};

struct spawner {
	const struct spawner_cfg *cfg;
	struct cgroup *cg;
	int sock, sigfd;
	pid_t self;
	enum fpu_kind kind;
	int clone_fd, procs_fd;
	struct churn_ctl ctl;
	struct churn_params want;    /* as the daemon asked, before caps */
	struct churn_counters c;     /* churn workers */
	struct churn_counters pc;    /* capacity-probe workers */
	struct table tab;
	uint64_t probe_alive;
	int state;                   /* enum churn_state */
	int stopping, stop_killed;
	int64_t stop_deadline;
	int64_t next_status;
	uint32_t seq;
	int deaths_sent;             /* this status period */
	uint64_t deaths_dropped, probes_done;
	int have_oom;
	uint64_t oom_base, oom_last, oom_attributed;   /* memory cgroup's oom_kill; kills matched to deaths */

	/* capacity probe */
	struct probe_cap cap;
	int cap_pending, cap_killed;
	int ready_rd, ready_wr;
	int64_t phase_deadline, t_retire, t_released, start_real_ms;
	uint64_t cap_oom, saved_mem_max;
	int lifted;

	/* switch probe */
	int sw_pending;
	pid_t sw_pid;
	int sw_rd, sw_have;
	struct probe_switch_result sw;
	int64_t sw_start, sw_start_real;

	int nshed;                   /* library mappings unmapped from the spawner; see shed_libraries */
	int in_memcg;                /* v1: the spawner sits in the workers' memory group (cgroup.h);
					procs_fd is then -1: workers are born there */
	int privs_dropped;           /* the spawner holds no capabilities: workers inherit that */
	int raw_ok;                  /* clone3 works here (raw_fork_ok) */

	/* --gfp-mode (gfp.h): workers HOLD; a refused one writes its PID to the pipe and SIGKILLs itself */
	enum gfp_mode gfp_mode;      /* in force; GFP_MODE_OFF when the device would not open */
	uint32_t gfp_size;
	int gfp_rd, gfp_wr;
	uint64_t cap_probes;         /* capacity probes started: alternate picks kernel/atomic by it */
	enum gfp_mode cap_gfp;       /* mode of the capacity probe in progress */
	int cap_gfp_failed;

	struct {
		struct churn_rec *rec[OUTBOX_MAX];
		size_t len[OUTBOX_MAX];
		int n;
	} out;
	uint64_t out_dropped;
};

/* ---- time --------------------------------------------------------------------------------- */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- pid table ---------------------------------------------------------------------------- */

static size_t slot_of(const struct table *t, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & t->mask;
}

static struct slot *tab_find(struct table *t, pid_t pid)
{
	for (size_t i = slot_of(t, pid);; i = (i + 1) & t->mask) {
		if (t->s[i].role == ROLE_FREE)
			return NULL;
		if (t->s[i].pid == pid)
			return &t->s[i];
	}
}

static int tab_insert(struct table *t, pid_t pid, int role, int64_t born_ms)
{
	size_t i;

	if (t->n + 1 > (t->mask + 1) / 2)
		return -1;
	for (i = slot_of(t, pid); t->s[i].role != ROLE_FREE; i = (i + 1) & t->mask)
		;
	t->s[i] = (struct slot){ pid, (int16_t)role, 0, 0, born_ms };
	t->n++;
	return 0;
}

static void tab_remove(struct table *t, struct slot *victim)
{
	size_t i = (size_t)(victim - t->s), j = i;

	for (;;) {
		j = (j + 1) & t->mask;
		if (t->s[j].role == ROLE_FREE)
			break;
		size_t k = slot_of(t, t->s[j].pid);
		/* Move j back into the hole at i unless its home slot k lies cyclically in (i, j]. */
		int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (!stays) {
			t->s[i] = t->s[j];
			i = j;
		}
	}
	t->s[i] = (struct slot){ 0, ROLE_FREE, 0, 0, 0 };
	t->n--;
}

/*
 * The table lives outside every worker: a shared mapping is neither copied
 * nor COW-marked by fork (a child's copy is an empty VMA it never touches),
 * where MADV_DONTFORK made every fork build the child's VMA tree and then
 * delete the table from it again.  Allocate it after shed_libraries, which
 * unmaps file-backed mappings and would take a shared one for a file.  It is
 * touched in full now, so the spawner's memory (charged to the same cgroup
 * as the kernel side of every worker) does not creep up as new PIDs hash
 * into fresh pages; that creep made back-to-back capacity probes drift.
 */
static struct slot *table_alloc(size_t slots)
{
	size_t len = slots * sizeof(struct slot);
	struct slot *t = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	memset(t, 0, len);
	return t;
}

/*
 * No capacity probe holds more workers than the memory it may fill over what each worker touches:
 * the workers' limit in cgroup scope, MemTotal in guest scope.  SIZE_MAX when there is no bound.
 */
static size_t probe_bound(const struct spawner *s)
{
	uint64_t mem = 0, wm = s->cfg->cc.worker_memory;
	char buf[4096];
	const char *p;
	size_t used;
	ssize_t n;

	if (s->cfg->cc.probe_scope == CHURN_SCOPE_CGROUP)
		mem = s->cg ? cgroup_memory_max(s->cg) : 0;
	else if ((n = procfile_read(NULL, "proc/meminfo", buf, sizeof buf)) > 0 && (p = strstr(buf, "MemTotal:"))) {
		p += strlen("MemTotal:");
		while (*p == ' ')
			p++;
		if (num_prefix_u64(p, (size_t)(buf + n - p), &mem, &used) < 0 || mem > UINT64_MAX / 1024)
			mem = 0;
		mem *= 1024;
	}
	return mem && wm >= 4096 ? (size_t)(mem / wm) + 1 : SIZE_MAX;
}

/*
 * Slots for a population of `workers` and a full capacity probe, at most half full: sized by what
 * is configured and what memory allows, not by the caps (CHURN_MAX_WORKERS + CHURN_MAX_PROBE made a
 * 2 MiB table of shared memory, touched in full, in every guest: memory the capacity probe could
 * not use).
 */
static size_t table_slots(const struct spawner *s, int64_t workers)
{
	size_t pop = workers < 0 ? 0 : (size_t)workers, probe = (size_t)s->cfg->cc.probe_limit, slots = 64;
	size_t bound = probe_bound(s);

	if (pop > (size_t)s->cfg->pop_cap)
		pop = (size_t)s->cfg->pop_cap;
	if (probe > (size_t)s->cfg->probe_cap)
		probe = (size_t)s->cfg->probe_cap;
	if (probe > bound)
		probe = bound;
	/* + 16: the switch probe's child and workers of a retired population not yet reaped. */
	while (slots < 2 * (pop + probe + 16))
		slots *= 2;
	return slots;
}

/* A population bigger than the table was sized for (SPAWNER_CMD_SET): move into a bigger one, touched in full. */
static int table_grow(struct spawner *s, int64_t workers)
{
	size_t slots = table_slots(s, workers);
	struct table t = { NULL, slots - 1, 0 };

	if (slots <= s->tab.mask + 1)
		return 0;
	if (!(t.s = table_alloc(slots)))
		return -1;
	for (size_t i = 0; i <= s->tab.mask; i++)
		if (s->tab.s[i].role != ROLE_FREE)
			tab_insert(&t, s->tab.s[i].pid, s->tab.s[i].role, s->tab.s[i].born_ms);
	munmap(s->tab.s, (s->tab.mask + 1) * sizeof(struct slot));
	s->tab = t;
	return 0;
}

/* Signal every child of one role (our own children: PIDs cannot be recycled before we reap). */
static void signal_role(struct spawner *s, int role, int sig)
{
	for (size_t i = 0; i <= s->tab.mask; i++)
		if (s->tab.s[i].role == role) {
			/* Marked before the kill: the death it causes is counted as ours, never as an OOM kill. */
			if (sig == SIGKILL)
				s->tab.s[i].ours = 1;
			kill(s->tab.s[i].pid, sig);
		}
}

/* ---- records ------------------------------------------------------------------------------ */

size_t spawner_rec_size(uint32_t type)
{
	size_t h = offsetof(struct churn_rec, u);

	switch (type) {
	case CHURN_REC_HELLO:
		return h + sizeof(struct churn_hello);
	case CHURN_REC_STATUS:
		return h + sizeof(struct churn_status);
	case CHURN_REC_DEATH:
		return h + sizeof(struct churn_death);
	case CHURN_REC_PROBE_START:
		return h + sizeof(struct churn_probe_start);
	case CHURN_REC_PROBE_DONE:
		return h + sizeof(struct churn_probe_done);
	case CHURN_REC_NOTE:
		return h + sizeof(struct churn_note);
	default:
		return h;
	}
}

static int try_send(struct spawner *s, const struct churn_rec *r, size_t len)
{
	ssize_t n = send(s->sock, r, len, MSG_DONTWAIT | MSG_NOSIGNAL);

	return n == (ssize_t)len ? 0 : -1;
}

/* Send; must-arrive records that do not fit now wait in the outbox (in order). */
static void emit(struct spawner *s, const struct churn_rec *r, int must)
{
	size_t len = spawner_rec_size(r->type);

	if (s->out.n == 0 && try_send(s, r, len) == 0)
		return;
	if (!must || s->out.n == OUTBOX_MAX || !(s->out.rec[s->out.n] = malloc(len))) {
		s->out_dropped++;
		return;
	}
	memcpy(s->out.rec[s->out.n], r, len);
	s->out.len[s->out.n++] = len;
}

static void flush_outbox(struct spawner *s)
{
	int i = 0;

	while (i < s->out.n && try_send(s, s->out.rec[i], s->out.len[i]) == 0)
		free(s->out.rec[i++]);
	memmove(s->out.rec, s->out.rec + i, sizeof s->out.rec[0] * (size_t)(s->out.n - i));
	memmove(s->out.len, s->out.len + i, sizeof s->out.len[0] * (size_t)(s->out.n - i));
	s->out.n -= i;
}

static void note(struct spawner *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void note(struct spawner *s, int level, const char *fmt, ...)
{
	static struct churn_rec r;
	va_list ap;

	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_NOTE;
	r.u.note.level = level;
	va_start(ap, fmt);
	vsnprintf(r.u.note.text, sizeof r.u.note.text, fmt, ap);
	va_end(ap);
	emit(s, &r, 1);
}

/*
 * Read the group's OOM counter.  Kills are attributed one by one to the workers whose deaths they
 * explain (reap), never by the phase the counter moved in: a probe's fill kills probe workers, but a
 * churn worker that dies of an OOM kill while being retired is still a churn worker.
 */
static void oom_poll(struct spawner *s)
{
	uint64_t v;

	if (!s->have_oom || cgroup_oom_kills(s->cg, &v) < 0 || v < s->oom_last)
		return;
	s->oom_last = v;
}

/* Why a worker that died of SIGKILL died: our own kill, an OOM kill the cgroup counted, or unknown. */
static enum churn_kill_cause kill_cause(struct spawner *s, int ours, int code, int status)
{
	if (code == CLD_EXITED || status != SIGKILL)
		return CHURN_KILL_UNKNOWN;
	if (ours)
		return CHURN_KILL_OURS;
	/* The kernel counts an OOM kill (memcg_memory_event) before it sends the SIGKILL: read it now. */
	oom_poll(s);
	return s->have_oom && churn_oom_attribute(s->oom_last - s->oom_base, &s->oom_attributed) ? CHURN_KILL_OOM
												 : CHURN_KILL_UNKNOWN;
}

static void send_status(struct spawner *s, int64_t now, int must)
{
	static struct churn_rec r;

	oom_poll(s);
	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_STATUS;
	r.u.status.mono_ms = now / 1000000;
	r.u.status.real_ms = real_ms();
	r.u.status.seq = ++s->seq;
	r.u.status.state = s->state;
	r.u.status.params = s->ctl.p;
	r.u.status.c = s->c;
	r.u.status.probe = s->pc;
	r.u.status.probe_alive = s->probe_alive;
	r.u.status.deaths_dropped = s->deaths_dropped;
	r.u.status.probes_done = s->probes_done;
	r.u.status.memcg_oom_total = s->oom_last - s->oom_base;
	r.u.status.oom_unattributed = s->oom_last - s->oom_base - s->oom_attributed;
	emit(s, &r, must);
	s->deaths_sent = 0;
	s->next_status = now + s->cfg->cc.status_ms * 1000000;
}

/* ---- what workers inherit ----------------------------------------------------------------- */

/*
 * This is the fallback (spawner_exec.c): normally the spawner is the exec'd
 * static fpusoakd-spawner, which maps only itself (13 mappings) and sheds
 * nothing.  The forked copy of the daemon maps all 22 of the daemon's
 * shared libraries (TLS, HTTP, SQLite, journal: 110 of its 137 mappings)
 * and every worker's fork copied them all: dup_mmap and anon_vma_fork per
 * mapping, page tables of their written .data/.got, and the same again in
 * the worker's exit_mmap.  The spawner's own code runs only in our
 * executable, libc, libm (the lifetimes' log()) and ld.so, so it unmaps
 * every other file mapping from itself: workers are born with ~34 mappings
 * and nothing is copied or taken out again for them.
 *
 * Measured on the development VM (6.18, 2 vCPUs, v1 cgroups, --lifetime 0 at
 * max rate, interleaved rounds): marking the libraries MADV_DONTFORK instead
 * (the previous way) took spawner CPU per lifecycle from 170 to 112 us, but
 * dup_mmap then spent ~30% of it taking each DONTFORK mapping back out of
 * the copied maple tree; unmapping them took the daemon from 7,121 / 8,250 /
 * 5,532 to 13,022 / 14,267 / 11,696 lifecycles/s.
 *
 * What that forbids: spawner code must never call into an unmapped library.
 * So no glibc fork() once anything is unmapped (atfork handlers live in
 * those libraries): workers and probes are forked with a raw clone3, and
 * the switch probe's child, which needs threads, execs the program afresh
 * (probe_switch_exec_main).  Under a sanitizer runtime nothing is unmapped.
 */
static int line_at(const char *buf, size_t len, size_t *pos, struct maps_entry *e)
{
	while (*pos < len) {
		const char *l = buf + *pos, *nl = memchr(l, '\n', len - *pos);
		size_t n = nl ? (size_t)(nl - l) : len - *pos;
		*pos += n + 1;
		if (maps_parse_line(l, n, e) == 0)
			return 1;
	}
	return 0;
}

static int maps_find(const char *buf, size_t len, uintptr_t addr, struct maps_entry *out)
{
	size_t pos = 0;

	while (line_at(buf, len, &pos, out))
		if (out->start <= addr && addr < out->end)
			return out->inode ? 0 : -1;
	return -1;
}

/*
 * A lazily bound PLT entry is resolved on first call by a lookup through
 * every library in load order, reading their symbol tables: in a worker
 * without them that is a SIGSEGV.  So shed only when our executable was
 * bound at load (linked with -z now, or LD_BIND_NOW); libc's own lazy
 * entries lead to ld.so internals (TLS, dlopen, malloc for them) that a
 * worker never reaches.
 */
static int bound_now(void)
{
	const char *env = getenv("LD_BIND_NOW");

	if (env && *env)
		return 1;
	for (const ElfW(Dyn) *d = _DYNAMIC; d->d_tag != DT_NULL; d++)
		if ((d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_BIND_NOW)) ||
		    (d->d_tag == DT_FLAGS_1 && (d->d_un.d_val & DF_1_NOW)))
			return 1;
	return 0;
}

static int raw_fork_ok(void)
{
	/* clone3 exists (Linux 5.3) if a too-small argument is refused with EINVAL rather than ENOSYS. */
	return syscall(SYS_clone3, NULL, (size_t)0) < 0 && errno == EINVAL;
}

static void shed_libraries(struct spawner *s)
{
	static char buf[MAPS_CAP];
	struct maps_entry keep[3], e, lm;
	ssize_t n;
	size_t pos = 0;

	if (!bound_now()) {
		note(s, LOG_LVL_INFO, "spawner: executable not linked with -z now: workers inherit every library");
		return;
	}
	if (!s->raw_ok)
		return;
	n = procfile_read(NULL, "proc/self/maps", buf, sizeof buf);
	/* Our executable, libc (a string in its rodata) and ld.so (AT_BASE): all else is not a worker's. */
	/*
	 * A sanitizer runtime (the ASan/UBSan test build) is a shared library every
	 * intercepted call goes through: a worker without it dies at its first malloc.
	 */
	if (n >= 0 && memmem(buf, (size_t)n, "san.so", 6)) {
		note(s, LOG_LVL_INFO, "spawner: a sanitizer runtime is loaded: workers inherit every library");
		return;
	}
	if (n < 0 || maps_find(buf, (size_t)n, (uintptr_t)&spawner_main, &keep[0]) < 0 ||
	    maps_find(buf, (size_t)n, (uintptr_t)gnu_get_libc_version(), &keep[1]) < 0 ||
	    maps_find(buf, (size_t)n, (uintptr_t)getauxval(AT_BASE), &keep[2]) < 0) {
		note(s, LOG_LVL_INFO, "spawner: cannot tell libraries apart (%s); workers inherit them all",
		     n < 0 ? strerror(errno) : "no match");
		return;
	}
	/* libm: churn_ctl draws exponential lifetimes with log(). */
	if (maps_find(buf, (size_t)n, (uintptr_t)&log, &lm) < 0) {
		note(s, LOG_LVL_INFO, "spawner: cannot find libm's mapping; workers inherit every library");
		return;
	}
	while (line_at(buf, (size_t)n, &pos, &e) && s->nshed < SHED_MAX) {
		if (!e.inode || maps_same_file(&e, &keep[0]) || maps_same_file(&e, &keep[1]) ||
		    maps_same_file(&e, &keep[2]) || maps_same_file(&e, &lm))
			continue;
		if (munmap((void *)(uintptr_t)e.start, e.end - e.start) == 0)
			s->nshed++;
	}
}

/*
 * fork(2) without glibc's wrapper: no pthread_atfork handler (maybe in an unmapped library) runs,
 * and none of its bookkeeping, which a single-threaded static spawner does not need either.
 */
static pid_t raw_fork(const struct spawner *s)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };

	/* raw_ok: systemd's seccomp filter answers clone3 with ENOSYS (it cannot inspect its flags). */
	if (!s->raw_ok || (!s->nshed && !s->cfg->exec_ok))
		return fork();
	return (pid_t)syscall(SYS_clone3, &ca, sizeof ca);
}

/* ---- spawning ----------------------------------------------------------------------------- */

static pid_t spawn(struct spawner *s, int role, int64_t lifetime_ms, int64_t now)
{
	struct worker_args wa = {
		.kind = s->kind,
		.memory = s->cfg->cc.worker_memory,
		.lifetime_ms = lifetime_ms,
		.tick_ms = s->cfg->cc.worker_tick_ms,
		.work_iters = s->cfg->cc.worker_work_iters,
		.parent = s->self,
		.procs_fd = s->clone_fd >= 0 ? -1 : s->procs_fd,
		.ready_fd = role == ROLE_PROBE ? s->ready_wr : -1,
		.privs_dropped = s->privs_dropped,
		.gfp_mode = role == ROLE_PROBE ? s->cap_gfp : gfpmod_churn_mode(s->gfp_mode),
		.gfp_size = s->gfp_size,
		.gfp_fd = s->gfp_wr,
	};
	pid_t pid;

	if (s->clone_fd >= 0) {
		/* Born in the group: no migration, and pids.max is checked by the fork itself. */
		struct clone_args ca = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD, .cgroup = (uint64_t)s->clone_fd };
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof ca);
		if (pid < 0 && (errno == ENOSYS || errno == E2BIG || errno == EINVAL)) {
			note(s, LOG_LVL_NOTICE, "clone3(CLONE_INTO_CGROUP) unavailable (%s): workers move themselves",
			     strerror(errno));
			s->clone_fd = -1;
			wa.procs_fd = s->procs_fd;
			pid = raw_fork(s);
		}
	} else
		pid = raw_fork(s);
	if (pid == 0)
		worker_run(&wa);
	if (pid < 0)
		return -1;
	if (tab_insert(&s->tab, pid, role, now / 1000000) < 0) {
		/* Cannot happen: caps keep the table at most half full.  Do not lose the child. */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		errno = ENOSPC;
		return -1;
	}
	return pid;
}

static void spawn_churn(struct spawner *s, int64_t now)
{
	int due = churn_ctl_due(&s->ctl, now, s->c.population);

	if (due > SPAWN_BATCH)
		due = SPAWN_BATCH;
	for (int i = 0; i < due; i++) {
		int64_t life = churn_ctl_lifetime_ms(&s->ctl);
		pid_t pid = spawn(s, ROLE_CHURN, life, now);
		churn_ctl_spent(&s->ctl, 1);
		if (pid < 0) {
			churn_count_spawn_failed(&s->c, errno);
			churn_ctl_failed(&s->ctl, now);
			return;
		}
		churn_count_spawned(&s->c);
	}
}

static void apply_params(struct spawner *s, int64_t now)
{
	struct churn_params p = s->want;

	if (p.workers > s->cfg->pop_cap)
		p.workers = s->cfg->pop_cap;
	churn_ctl_set(&s->ctl, &p, now);
}

/* ---- capacity probe ----------------------------------------------------------------------- */

static void cap_start(struct spawner *s, int64_t now)
{
	int limit = s->cfg->cc.probe_limit;
	int fds[2];

	if (s->cfg->cc.probe_scope == CHURN_SCOPE_CGROUP && limit > s->cfg->probe_cap)
		limit = s->cfg->probe_cap;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		note(s, LOG_LVL_WARN, "capacity probe: pipe: %s", strerror(errno));
		return;
	}
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	s->ready_rd = fds[0];
	s->ready_wr = fds[1];
	s->cap_pending = 0;
	s->cap_killed = 0;
	s->cap_oom = 0;
	s->lifted = 0;
	s->cap_gfp = gfpmod_probe_mode(s->gfp_mode, s->cap_probes++);
	s->cap_gfp_failed = 0;
	s->state = CHURN_PROBING;
	s->start_real_ms = real_ms();
	probe_cap_begin(&s->cap, limit, now);
	s->phase_deadline = now + RETIRE_NS;
	/* Churn workers leave politely (exit 10 = retired); nothing of theirs may be counted as the probe's. */
	signal_role(s, ROLE_CHURN, SIGTERM);
}

static void cap_probe_start_record(struct spawner *s, int64_t now)
{
	static struct churn_rec r;
	ssize_t n;

	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_PROBE_START;
	r.u.probe_start.kind = CHURN_PROBE_CAPACITY;
	r.u.probe_start.mono_ms = now / 1000000;
	r.u.probe_start.real_ms = real_ms();
	/* buddyinfo right before the first probe worker, read here so the timing is exact. */
	n = procfile_read(NULL, "proc/buddyinfo", r.u.probe_start.buddyinfo, sizeof r.u.probe_start.buddyinfo);
	if (n < 0) {
		r.u.probe_start.buddyinfo_err = errno;
		r.u.probe_start.buddyinfo[0] = 0;
	} else
		r.u.probe_start.buddyinfo_len = (uint32_t)n;
	emit(s, &r, 1);
}

static void cap_release(struct spawner *s, int64_t now)
{
	s->phase_deadline = now + RELEASE_NS;
	s->cap_killed = 0;
	signal_role(s, ROLE_PROBE, SIGTERM);
}

static void cap_act(struct spawner *s, int64_t now, enum probe_act act);

static void cap_spawn_next(struct spawner *s, int64_t now)
{
	pid_t pid = spawn(s, ROLE_PROBE, -1, now);
	int err = pid < 0 ? errno : 0;

	if (pid > 0) {
		s->probe_alive++;
		churn_count_spawned(&s->pc);
	} else
		churn_count_spawn_failed(&s->pc, err);
	cap_act(s, now, probe_cap_spawned(&s->cap, now, err, s->cfg->cc.probe_step_timeout_ms * 1000000));
}

static void cap_act(struct spawner *s, int64_t now, enum probe_act act)
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
			note(s, LOG_LVL_WARN, "guest-scope probe: cannot lift the memory limit: %s", strerror(errno));
	}
	cgroup_reset_peak(s->cg);
	cap_probe_start_record(s, now);
	if (s->have_oom)
		cgroup_oom_kills(s->cg, &oom);
	cap_act(s, now, probe_cap_retired(&s->cap, now, oom));
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

static void cap_finish(struct spawner *s, int64_t now)
{
	static struct churn_rec r;
	struct churn_probe_done *d = &r.u.probe_done;
	uint64_t cur = 0, peak = 0;
	int64_t end = s->cap.t_stop ? s->cap.t_stop : now;

	oom_poll(s);
	cgroup_memory_usage(s->cg, &cur, &peak);
	if (s->lifted && restore_limit(s) < 0)
		note(s, LOG_LVL_WARN, "guest-scope probe: cannot restore the memory limit: %s", strerror(errno));
	probe_cap_released(&s->cap, now);
	close(s->ready_rd);
	close(s->ready_wr);
	s->ready_rd = s->ready_wr = -1;
	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_PROBE_DONE;
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
	 * Where the probe ran, as it ran: the group's version and name (cgroup=none when unconfined: then
	 * the count is capped, not a capacity), the limit in force (0 while a guest-scope probe lifted it)
	 * and the pids limit.
	 */
	const char *gname = s->cg ? strrchr(cgroup_dir(s->cg), '/') : NULL;
	snprintf(d->detail, sizeof d->detail,
		 "scope=%s limit=%d spawned=%lld ready=%lld oom_kills=%llu worker_memory=%llu fpu=%s "
		 "mem_limit=%llu mem_peak=%llu retire_ms=%lld release_ms=%lld fork_charge=%s cgroup=%s%s%s "
		 "mem_limit_lifted=%d pids_limit=%llu gfp_mode=%s gfp_failed=%d",
		 d->scope == CHURN_SCOPE_GUEST ? "guest" : "cgroup", s->cap.limit, (long long)s->cap.spawned,
		 (long long)s->cap.ready, (unsigned long long)s->cap_oom,
		 (unsigned long long)s->cfg->cc.worker_memory, fpu_kind_name(s->kind),
		 (unsigned long long)(s->lifted ? 0 : cgroup_memory_max(s->cg)), (unsigned long long)peak,
		 (long long)d->retire_ms, (long long)d->release_ms, s->in_memcg ? "group" : s->cg ? "outside" : "none",
		 !s->cg ? "none" : cgroup_version(s->cg) == CGROUP_V2 ? "v2" : "v1", gname ? ":" : "",
		 gname ? gname + 1 : "", s->lifted, (unsigned long long)cgroup_pids_max(s->cg), gfpmod_mode_name(s->cap_gfp),
		 s->cap_gfp_failed);
	emit(s, &r, 1);
	s->probes_done++;
	if (s->stopping)
		return;
	s->state = CHURN_RUNNING;
	apply_params(s, now);
}

/* Deadlines and phase ends of the capacity probe. */
static void cap_progress(struct spawner *s, int64_t now)
{
	switch (s->cap.phase) {
	case PROBE_RETIRING:
		if (s->c.population == 0)
			cap_retired(s, now);
		else if (now >= s->phase_deadline && !s->cap_killed) {
			signal_role(s, ROLE_CHURN, SIGKILL);
			s->cap_killed = 1;
		}
		break;
	case PROBE_FILLING:
	case PROBE_SETTLING:
		cap_act(s, now, probe_cap_tick(&s->cap, now));
		break;
	case PROBE_RELEASING:
		if (s->probe_alive == 0)
			cap_finish(s, now);
		else if (now >= s->phase_deadline && !s->cap_killed) {
			signal_role(s, ROLE_PROBE, SIGKILL);
			s->cap_killed = 1;
		}
		break;
	default:
		break;
	}
}

static void reap(struct spawner *s, int64_t now);

/* Ready bytes: one per probe worker that has touched its memory.  Deaths are reaped first. */
static void cap_ready(struct spawner *s, int64_t now)
{
	char buf[64];
	ssize_t n;

	while ((n = read(s->ready_rd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			uint64_t oom = 0;
			reap(s, now);
			if (s->have_oom)
				cgroup_oom_kills(s->cg, &oom);
			cap_act(s, now, probe_cap_ready(&s->cap, now, oom));
		}
}

/* ---- switch probe ------------------------------------------------------------------------- */

static void sw_start(struct spawner *s, int64_t now)
{
	int fds[2], fd;
	sigset_t none;
	pid_t pid;

	s->sw_pending = 0;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		note(s, LOG_LVL_WARN, "switch probe: pipe: %s", strerror(errno));
		return;
	}
	pid = raw_fork(s);
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
		note(s, LOG_LVL_WARN, "switch probe: fork: %s", strerror(errno));
		return;
	}
	tab_insert(&s->tab, pid, ROLE_SWITCH, now / 1000000);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	s->sw_pid = pid;
	s->sw_rd = fds[0];
	s->sw_have = 0;
	s->sw_start = now;
	s->sw_start_real = real_ms();
}

static void sw_read(struct spawner *s)
{
	if (s->sw_rd >= 0 && !s->sw_have && read(s->sw_rd, &s->sw, sizeof s->sw) == (ssize_t)sizeof s->sw)
		s->sw_have = 1;
}

static void sw_done(struct spawner *s, int64_t now, int code, int status)
{
	static struct churn_rec r;
	struct churn_probe_done *d = &r.u.probe_done;
	char sig[24];

	sw_read(s);
	close(s->sw_rd);
	s->sw_rd = -1;
	s->sw_pid = 0;
	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_PROBE_DONE;
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
	emit(s, &r, 1);
	s->probes_done++;
}

/* ---- reaping ------------------------------------------------------------------------------ */

static void death_record(struct spawner *s, int64_t now, pid_t pid, int code, int sig, int64_t born_ms, int role)
{
	static struct churn_rec r;

	if (s->deaths_sent >= s->cfg->cc.death_records_max) {
		s->deaths_dropped++;
		return;
	}
	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_DEATH;
	r.u.death.mono_ms = now / 1000000;
	r.u.death.real_ms = real_ms();
	r.u.death.age_ms = now / 1000000 - born_ms;
	r.u.death.pid = pid;
	r.u.death.signal = sig;
	r.u.death.core = code == CLD_DUMPED;
	r.u.death.role = role == ROLE_PROBE ? CHURN_ROLE_PROBE : CHURN_ROLE_CHURN;
	emit(s, &r, 0);
	s->deaths_sent++;
}

/* PIDs of workers whose HOLD was refused: mark their slots (they are zombies until reaped, so present). */
static void gfp_drain(struct spawner *s)
{
	pid_t pids[64];
	ssize_t n;

	if (s->gfp_rd < 0)
		return;
	while ((n = read(s->gfp_rd, pids, sizeof pids)) > 0)
		for (ssize_t i = 0; i < n / (ssize_t)sizeof pids[0]; i++) {
			struct slot *sl = tab_find(&s->tab, pids[i]);
			if (sl)
				sl->flags |= SLOT_GFP_FAILED;
		}
}

/* A SIGKILL death of a worker that reported a refused HOLD first (it wrote before it died). */
static int gfp_death(struct spawner *s, struct slot *sl, const siginfo_t *si)
{
	if (s->gfp_rd < 0 || si->si_code != CLD_KILLED || si->si_status != SIGKILL)
		return 0;
	if (!(sl->flags & SLOT_GFP_FAILED))
		gfp_drain(s);
	return (sl->flags & SLOT_GFP_FAILED) != 0;
}

static void reap(struct spawner *s, int64_t now)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
			return;
		struct slot *sl = tab_find(&s->tab, si.si_pid);
		if (!sl)
			continue;
		int role = sl->role, ours = sl->ours;
		int64_t born = sl->born_ms;
		/* A refused HOLD (--gfp-mode) is a cause of its own, never an OOM kill or ours. */
		int gfp = role != ROLE_SWITCH && gfp_death(s, sl, &si);
		enum churn_kill_cause cause;
		tab_remove(&s->tab, sl);
		switch (role) {
		case ROLE_CHURN:
			if (gfp) {
				churn_count_gfp_failed(&s->c);
				break;
			}
			churn_count_death_cause(&s->c, si.si_code, si.si_status,
						kill_cause(s, ours, si.si_code, si.si_status));
			if (si.si_code != CLD_EXITED)
				death_record(s, now, si.si_pid, si.si_code, si.si_status, born, role);
			break;
		case ROLE_PROBE:
			s->probe_alive--;
			if (gfp) {
				churn_count_gfp_failed(&s->pc);
				s->cap_gfp_failed++;
				cap_act(s, now, probe_cap_gfp_failed(&s->cap, now, gfpmod_mode_name(s->cap_gfp)));
				break;
			}
			cause = kill_cause(s, ours, si.si_code, si.si_status);
			churn_count_death_cause(&s->pc, si.si_code, si.si_status, cause);
			s->cap_oom += cause == CHURN_KILL_OOM;
			if (si.si_code != CLD_EXITED)
				death_record(s, now, si.si_pid, si.si_code, si.si_status, born, role);
			cap_act(s, now, probe_cap_death(&s->cap, now, si.si_code, si.si_status));
			break;
		case ROLE_SWITCH:
			sw_done(s, now, si.si_code, si.si_status);
			break;
		}
	}
}

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
	signal_role(s, ROLE_CHURN, SIGTERM);
	signal_role(s, ROLE_PROBE, SIGTERM);
	signal_role(s, ROLE_SWITCH, SIGKILL);
}

/* 1 once every child is gone (or we give up: PDEATHSIG kills what is left when we exit). */
static int stop_progress(struct spawner *s, int64_t now)
{
	if (s->cap.phase == PROBE_RELEASING && s->probe_alive == 0)
		cap_finish(s, now);
	if (s->tab.n == 0)
		return 1;
	if (now >= s->stop_deadline) {
		if (s->stop_killed)
			return 1;
		signal_role(s, ROLE_CHURN, SIGKILL);
		signal_role(s, ROLE_PROBE, SIGKILL);
		s->stop_killed = 1;
		s->stop_deadline = now + STOP_GIVEUP_NS;
	}
	return 0;
}

static void command(struct spawner *s, const struct spawner_cmd *cmd, int64_t now)
{
	switch (cmd->type) {
	case SPAWNER_CMD_SET:
		if (table_grow(s, cmd->params.workers) < 0) {
			note(s, LOG_LVL_WARN, "spawner: out of memory for %lld workers; keeping the population",
			     (long long)cmd->params.workers);
			break;
		}
		s->want = cmd->params;
		apply_params(s, now);
		break;
	case SPAWNER_CMD_PROBE:
		if (cmd->probe_kind == CHURN_PROBE_CAPACITY)
			s->cap_pending = 1;
		else if (cmd->probe_kind == CHURN_PROBE_SWITCH)
			s->sw_pending = 1;
		break;
	case SPAWNER_CMD_STATUS:
		send_status(s, now, 0);
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
	now = mono_ns();
	if (pf[isig].revents)
		read_signals(s, now);
	if (pf[isock].revents & (POLLIN | POLLHUP | POLLERR))
		read_commands(s, now);
	if (iready >= 0 && pf[iready].revents)
		cap_ready(s, now);
	if (isw >= 0 && pf[isw].revents)
		sw_read(s);
}

static void start_pending(struct spawner *s, int64_t now)
{
	if (!can_start_probe(s))
		return;
	if (s->cap_pending)
		cap_start(s, now);
	else if (s->sw_pending)
		sw_start(s, now);
}

static void run(struct spawner *s)
{
	for (;;) {
		int64_t now = mono_ns();
		reap(s, now);
		if (s->stopping) {
			if (stop_progress(s, now))
				return;
		} else {
			start_pending(s, now);
			cap_progress(s, now);
			if (s->state == CHURN_RUNNING)
				spawn_churn(s, now);
		}
		if (now >= s->next_status)
			send_status(s, now, 0);
		flush_outbox(s);
		wait_events(s, mono_ns());
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
		note(s, LOG_LVL_WARN, "gfp: %s: %s: workers do not HOLD (gfp_mode=off)", FPUSOAK_GFP_DEVICE,
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
		note(s, LOG_LVL_WARN, "gfp: this process's FPU state is %u bytes, the module's objects %u: holding %u",
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
	emit(s, &r, 1);
}

static void finish(struct spawner *s)
{
	static struct churn_rec bye;
	struct pollfd pf = { s->sock, POLLOUT, 0 };

	send_status(s, mono_ns(), 1);
	memset(&bye, 0, sizeof bye);
	bye.type = CHURN_REC_BYE;
	emit(s, &bye, 1);
	/* Give the daemon up to a second to take the last records. */
	for (int i = 0; i < 20 && s->out.n; i++) {
		poll(&pf, 1, 50);
		flush_outbox(s);
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
		note(s, LOG_LVL_ERR, "spawner: cannot set up signals: %s", strerror(errno));
		_exit(1);
	}
	protected_ = protect_self() == 0;
	if (!protected_)
		note(s, LOG_LVL_WARN, "spawner: cannot set oom_score_adj -1000 (%s): the OOM killer may pick it",
		     strerror(errno));
	if (cgroup_enter_pids(s->cg) < 0)
		note(s, LOG_LVL_WARN, "spawner: cannot join the pids group (%s): pids.max will not stop forks",
		     strerror(errno));

	s->kind = fpu_resolve(cfg->cc.fpu);
	if (!fpu_supported(s->kind, why, sizeof why)) {
		note(s, LOG_LVL_ERR, "--fpu %s is not usable here: %s", fpu_kind_name(s->kind), why);
		finish(s);
		_exit(1);
	}
	amx_ok = fpu_supported(FPU_AMX, why, sizeof why);
	gfp_setup(s);

	/* The static spawner maps nothing to shed; the daemon's forked copy maps ~20 libraries. */
	if (cfg->exec_errno)
		note(s, LOG_LVL_NOTICE, "spawner: cannot exec %s (%s): running in the daemon's forked copy,"
		     " whose larger address space every fork copies", cfg->cc.spawner_exe, strerror(cfg->exec_errno));
	s->raw_ok = raw_fork_ok();
	if (!cfg->exec_ok)
		shed_libraries(s);
	slots = table_slots(s, cfg->cc.params.workers);
	s->tab.s = table_alloc(slots);
	s->tab.mask = slots - 1;
	if (!s->tab.s) {
		note(s, LOG_LVL_ERR, "spawner: out of memory");
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
		note(s, LOG_LVL_INFO, "spawner: the workers' memory limit is under %d MiB: it stays outside the group"
		     " and each worker moves itself", SPAWNER_MEMCG_FLOOR >> 20);
	else if (cgroup_version(s->cg) == CGROUP_V1) {
		if (cgroup_enter_memory(s->cg) == 0) {
			s->in_memcg = 1;
			s->procs_fd = -1;
		}
		else
			note(s, LOG_LVL_WARN, "spawner: cannot join the memory group (%s): each worker moves itself",
			     strerror(errno));
	}
	/*
	 * Nothing the spawner does from here needs a capability (its cgroup files are root's and it
	 * is root; it signals only its own children), so it drops them once for every worker: each
	 * worker's capset and ambient clear were two credential copies per lifecycle.
	 */
	s->privs_dropped = worker_drop_privileges() == 0;
	if (!s->privs_dropped)
		note(s, LOG_LVL_INFO, "spawner: cannot drop capabilities (%s): each worker drops its own", strerror(errno));
	s->have_oom = s->cg && cgroup_oom_kills(s->cg, &s->oom_base) == 0;
	s->oom_last = s->oom_base;
	s->want = cfg->cc.params;
	s->state = CHURN_RUNNING;
	churn_ctl_init(&s->ctl, &s->want, cfg->cc.seed, mono_ns());
	apply_params(s, mono_ns());
	hello(s, protected_, amx_ok, why);
	send_status(s, mono_ns(), 0);
	run(s);
	finish(s);
	_exit(0);
}
