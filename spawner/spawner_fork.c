/* SPDX-License-Identifier: GPL-2.0-only */
/* spawner_fork: what workers inherit, and forking them; see spawner_fork.h. */
#define _GNU_SOURCE
#include "spawner/spawner_fork.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <linux/sched.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/maps.h"
#include "common/log.h"
#include "common/procfile.h"
#include "spawner/spawner_rec.h"
#include "spawner/spawner_tab.h"
#include "spawner/state.h"
#include "worker/worker.h"

#define SPAWN_BATCH 64              /* forks per loop turn: stay responsive to the socket */
#define SHED_MAX 256                /* library mappings kept out of workers */
#define MAPS_CAP (256 * 1024)       /* /proc/self/maps: ~100 bytes a line; the daemon's spawner has ~140 */

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

int spawner_fork_raw_ok(void)
{
	/* clone3 exists (Linux 5.3) if a too-small argument is refused with EINVAL rather than ENOSYS. */
	return syscall(SYS_clone3, NULL, (size_t)0) < 0 && errno == EINVAL;
}

/* Unmap every library mapping of maps text buf[0, n) but ours, libc's, ld.so's and libm's. */
static void shed_maps(struct spawner *s, const char *buf, ssize_t n)
{
	struct maps_entry keep[3], e, lm;
	size_t pos = 0;

	/* Our executable (this function's own code), libc (a string in its rodata) and ld.so (AT_BASE): all else
	 * is not a worker's. */
	/*
	 * A sanitizer runtime (the ASan/UBSan test build) is a shared library every
	 * intercepted call goes through: a worker without it dies at its first malloc.
	 */
	if (n >= 0 && memmem(buf, (size_t)n, "san.so", 6)) {
		spawner_rec_note(s, LOG_LVL_INFO, "spawner: a sanitizer runtime is loaded: workers inherit every library");
		return;
	}
	if (n < 0 || maps_find(buf, (size_t)n, (uintptr_t)&spawner_fork_shed, &keep[0]) < 0 ||
	    maps_find(buf, (size_t)n, (uintptr_t)gnu_get_libc_version(), &keep[1]) < 0 ||
	    maps_find(buf, (size_t)n, (uintptr_t)getauxval(AT_BASE), &keep[2]) < 0) {
		spawner_rec_note(s, LOG_LVL_INFO, "spawner: cannot tell libraries apart (%s); workers inherit them all",
				 n < 0 ? strerror(errno) : "no match");
		return;
	}
	/* libm: churn_ctl draws exponential lifetimes with log(). */
	if (maps_find(buf, (size_t)n, (uintptr_t)&log, &lm) < 0) {
		spawner_rec_note(s, LOG_LVL_INFO, "spawner: cannot find libm's mapping; workers inherit every library");
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

void spawner_fork_shed(struct spawner *s)
{
	char *buf;

	if (!bound_now()) {
		spawner_rec_note(s, LOG_LVL_INFO, "spawner: executable not linked with -z now: workers inherit every library");
		return;
	}
	if (!s->raw_ok)
		return;
	/* One read at start: an anonymous buffer given back before the first worker, not held for life. */
	if (!(buf = malloc(MAPS_CAP))) {
		spawner_rec_note(s, LOG_LVL_INFO, "spawner: no memory to read its maps; workers inherit every library");
		return;
	}
	shed_maps(s, buf, procfile_read(NULL, "proc/self/maps", buf, MAPS_CAP));
	free(buf);
}

/*
 * fork(2) without glibc's wrapper: no pthread_atfork handler (maybe in an unmapped library) runs,
 * and none of its bookkeeping, which a single-threaded static spawner does not need either.
 */
pid_t spawner_fork_raw(const struct spawner *s)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };

	/* raw_ok: systemd's seccomp filter answers clone3 with ENOSYS (it cannot inspect its flags). */
	if (!s->raw_ok || (!s->nshed && !s->cfg->exec_ok))
		return fork();
	return (pid_t)syscall(SYS_clone3, &ca, sizeof ca);
}

pid_t spawner_fork_worker(struct spawner *s, int role, int64_t lifetime_ms, int64_t now)
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
			spawner_rec_note(s, LOG_LVL_NOTICE, "clone3(CLONE_INTO_CGROUP) unavailable (%s): workers move themselves",
					 strerror(errno));
			s->clone_fd = -1;
			wa.procs_fd = s->procs_fd;
			pid = spawner_fork_raw(s);
		}
	} else
		pid = spawner_fork_raw(s);
	if (pid == 0)
		worker_run(&wa);
	if (pid < 0)
		return -1;
	if (spawner_tab_insert(&s->tab, pid, role, now / 1000000) < 0) {
		/* Cannot happen: caps keep the table at most half full.  Do not lose the child. */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		errno = ENOSPC;
		return -1;
	}
	return pid;
}

void spawner_fork_churn(struct spawner *s, int64_t now)
{
	int due = churn_ctl_due(&s->ctl, now, s->c.population);

	if (due > SPAWN_BATCH)
		due = SPAWN_BATCH;
	for (int i = 0; i < due; i++) {
		int64_t life = churn_ctl_lifetime_ms(&s->ctl);
		pid_t pid = spawner_fork_worker(s, ROLE_CHURN, life, now);
		churn_ctl_spent(&s->ctl, 1);
		if (pid < 0) {
			churn_count_spawn_failed(&s->c, errno);
			churn_ctl_failed(&s->ctl, now);
			return;
		}
		churn_count_spawned(&s->c);
	}
}

void spawner_fork_set_params(struct spawner *s, int64_t now)
{
	struct churn_params p = s->want;

	if (p.workers > s->cfg->pop_cap)
		p.workers = s->cfg->pop_cap;
	churn_ctl_set(&s->ctl, &p, now);
}
