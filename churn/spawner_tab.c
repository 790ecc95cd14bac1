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

/* Signal every child of one role (our own children: PIDs cannot be recycled before we reap). */
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
