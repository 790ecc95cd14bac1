/* SPDX-License-Identifier: GPL-2.0-only */
/* spawner_tab: the spawner's PID table; see spawner_tab.h. */
#define _GNU_SOURCE
#include "churn/spawner_tab.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "churn/spawner_priv.h"
#include "collector/procfile.h"
#include "common/num.h"

static size_t slot_of(const struct table *t, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & t->mask;
}

struct slot *spawner_tab_find(struct table *t, pid_t pid)
{
	for (size_t i = slot_of(t, pid);; i = (i + 1) & t->mask) {
		if (t->s[i].role == ROLE_FREE)
			return NULL;
		if (t->s[i].pid == pid)
			return &t->s[i];
	}
}

int spawner_tab_insert(struct table *t, pid_t pid, int role, int64_t born_ms)
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

void spawner_tab_remove(struct table *t, struct slot *victim)
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
 * delete the table from it again.  Allocate it after spawner_fork_shed, which
 * unmaps file-backed mappings and would take a shared one for a file.  It is
 * touched in full now, so the spawner's memory (charged to the same cgroup
 * as the kernel side of every worker) does not creep up as new PIDs hash
 * into fresh pages; that creep made back-to-back capacity probes drift.
 */
struct slot *spawner_tab_alloc(size_t slots)
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
 * Sized by what is configured and what memory allows, not by the caps (CHURN_MAX_WORKERS +
 * CHURN_MAX_PROBE made a 2 MiB table of shared memory, touched in full, in every guest: memory the
 * capacity probe could not use; --probe-limit 4000 in the Xen soak made 128 KiB, 4 KiB now).
 */
size_t spawner_tab_slots(const struct spawner *s, int64_t workers)
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

int spawner_tab_grow(struct spawner *s, int64_t workers)
{
	size_t slots = spawner_tab_slots(s, workers);
	struct table t = { NULL, slots - 1, 0 };

	if (slots <= s->tab.mask + 1)
		return 0;
	if (!(t.s = spawner_tab_alloc(slots)))
		return -1;
	for (size_t i = 0; i <= s->tab.mask; i++)
		if (s->tab.s[i].role != ROLE_FREE)
			spawner_tab_insert(&t, s->tab.s[i].pid, s->tab.s[i].role, s->tab.s[i].born_ms);
	munmap(s->tab.s, (s->tab.mask + 1) * sizeof(struct slot));
	s->tab = t;
	return 0;
}

/* Signal every child of one role (our own children: PIDs cannot be recycled before we reap). */
int spawner_tab_release(struct spawner *s, int role, int batch)
{
	int sent = 0, inflight = 0;

	for (size_t i = 0; i <= s->tab.mask; i++)
		inflight += s->tab.s[i].role == role && (s->tab.s[i].flags & SLOT_RELEASED);
	for (size_t i = 0; i <= s->tab.mask && inflight + sent < batch; i++)
		if (s->tab.s[i].role == role && !(s->tab.s[i].flags & SLOT_RELEASED)) {
			s->tab.s[i].flags |= SLOT_RELEASED;
			kill(s->tab.s[i].pid, SIGTERM);
			sent++;
		}
	return sent;
}

void spawner_tab_signal(struct spawner *s, int role, int sig)
{
	for (size_t i = 0; i <= s->tab.mask; i++)
		if (s->tab.s[i].role == role) {
			/* Marked before the kill: the death it causes is counted as ours, never as an OOM kill. */
			if (sig == SIGKILL)
				s->tab.s[i].ours = 1;
			kill(s->tab.s[i].pid, sig);
		}
}
