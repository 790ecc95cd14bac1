/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup_kill: who is in the group, and killing them without hitting a recycled PID; see cgroup_kill.h. */
#define _GNU_SOURCE
#include "cgroup/cgroup_kill.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgroup_fs.h"
#include "cgroup/cgroup_priv.h"
#include "common/procfile.h"

/* ---- membership and killing --------------------------------------------------------------- */

static int under(const char *path, const char *group)
{
	size_t gl = strlen(group);

	return strncmp(path, group, gl) == 0 && (path[gl] == 0 || path[gl] == '/' || strcmp(group, "/") == 0);
}

/* Is pid (now) in our group or below it, according to /proc/PID/cgroup? */
static int pid_in_group(const struct cgroup *cg, pid_t pid)
{
	char rel[32], buf[CGROUP_FS_SELF_MAX];
	struct cgroup_self s;
	ssize_t n;

	snprintf(rel, sizeof rel, "proc/%d/cgroup", (int)pid);
	n = procfile_read(NULL, rel, buf, sizeof buf);
	if (n < 0 || cgroup_parse_self(buf, (size_t)n, &s) < 0)
		return 0;
	if (cg->ver == CGROUP_V2)
		return s.has_v2 && under(s.v2, cg->rel);
	return (s.has_memory && under(s.memory, cg->rel)) ||
	       (cg->pids_rel[0] && s.has_pids && under(s.pids, cg->pids_rel));
}

/*
 * pidfd_open pins the process: if the PID was recycled between reading
 * cgroup.procs and here, the pidfd names the newcomer, the membership
 * check fails, and nothing is sent.  If the pinned process exits after
 * the check, pidfd_send_signal fails with ESRCH instead of hitting a
 * successor.
 */
static int kill_verified(const struct cgroup *cg, pid_t pid, int sig)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), rc;

	if (fd < 0)
		return -1;
	if (!pid_in_group(cg, pid)) {
		close(fd);
		return -1;
	}
	rc = (int)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
	close(fd);
	return rc;
}

/* PIDs we signalled, so that exactly those (if they are our children) get reaped. */
struct killed {
	pid_t *pid;
	size_t n, cap;
};

static void note_killed(struct killed *k, pid_t pid)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		if (k->pid[i] == pid)
			return;
	if (k->n == k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 64;
		pid_t *np = realloc(k->pid, nc * sizeof *np);
		if (!np)
			return;
		k->pid = np;
		k->cap = nc;
	}
	k->pid[k->n++] = pid;
}

/* Reap those signalled PIDs that are our children and have died; a PID not our child is skipped. */
static void reap_killed(struct killed *k)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->pid[i] > 0) {
			pid_t r = waitpid(k->pid[i], NULL, WNOHANG);
			if (r == k->pid[i] || (r < 0 && errno == ECHILD))
				k->pid[i] = 0;
		}
}

/* Signal every verified member of dir and its subgroups; count in *sent, note them in k. */
static void kill_tree(const struct cgroup *cg, const char *dir, int sig, int depth, int *sent, struct killed *k)
{
	pid_t *pids;
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	if (depth > CGROUP_FS_DEPTH)
		return;
	pids = malloc(sizeof *pids * (CGROUP_FS_PROCS_MAX / 2));
	if (pids && cgroup_fs_read_pids(dir, pids, CGROUP_FS_PROCS_MAX / 2, &n) == 0)
		for (size_t i = 0; i < n; i++)
			if (pids[i] != getpid() && kill_verified(cg, pids[i], sig) == 0) {
				(*sent)++;
				note_killed(k, pids[i]);
			}
	free(pids);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char sub[CGROUP_PATH_MAX];
		if (e->d_type != DT_DIR || e->d_name[0] == '.' || cgroup_fs_join(sub, sizeof sub, dir, e->d_name) < 0)
			continue;
		kill_tree(cg, sub, sig, depth + 1, sent, k);
	}
	closedir(d);
}

/*
 * Kill until the group is empty (bounded: 3 s).  Dead members leave
 * cgroup.procs at exit, before they are reaped, so those that are our
 * children are reaped from the list of PIDs we signalled, never with
 * waitpid(-1), which could steal an unrelated child of the caller.
 */
void cgroup_kill_empty(struct cgroup *cg)
{
	struct killed k = { 0 };

	for (int round = 0; round < 150; round++) {
		int sent = 0;
		size_t left = cgroup_fs_count_tree(cg->dir, 0) +
			      (cg->ver == CGROUP_V1 && cg->created_pids ? cgroup_fs_count_tree(cg->pids_dir, 0) : 0);
		reap_killed(&k);
		if (left == 0)
			break;
		kill_tree(cg, cg->dir, SIGKILL, 0, &sent, &k);
		if (cg->ver == CGROUP_V1 && cg->created_pids)
			kill_tree(cg, cg->pids_dir, SIGKILL, 0, &sent, &k);
		cgroup_fs_sleep_ms(20);
	}
	for (int round = 0; round < 50; round++) {
		size_t pending = 0;
		reap_killed(&k);
		for (size_t i = 0; i < k.n; i++)
			pending += k.pid[i] != 0;
		if (!pending)
			break;
		cgroup_fs_sleep_ms(20);
	}
	free(k.pid);
}

/* ---- public: the members and signalling them --------------------------------------------- */

int cgroup_procs(const struct cgroup *cg, pid_t *pids, size_t cap, size_t *n)
{
	size_t a = 0, b = 0;
	pid_t self = getpid();

	*n = 0;
	if (!cg)
		return -1;
	if (cgroup_fs_read_pids(cg->dir, pids, cap, &a) < 0)
		return -1;
	if (cg->ver == CGROUP_V1 && cg->pids_dir[0]) {
		pid_t *more = malloc(sizeof *more * (cap ? cap : 1));
		if (!more || cgroup_fs_read_pids(cg->pids_dir, more, cap, &b) < 0) {
			free(more);
			return -1;
		}
		for (size_t i = 0; i < b; i++) {
			size_t j = 0;
			while (j < a && pids[j] != more[i])
				j++;
			if (j < a)
				continue;
			if (a == cap) {
				free(more);
				errno = EFBIG;
				return -1;
			}
			pids[a++] = more[i];
		}
		free(more);
	}
	for (size_t i = 0; i < a; i++)
		if (pids[i] != self)
			pids[(*n)++] = pids[i];
	return 0;
}

int cgroup_kill(const struct cgroup *cg, int sig)
{
	int sent = 0;
	pid_t *pids;
	size_t n;

	if (!cg)
		return -1;
	pids = malloc(sizeof *pids * (CGROUP_FS_PROCS_MAX / 2));
	if (!pids || cgroup_procs(cg, pids, CGROUP_FS_PROCS_MAX / 2, &n) < 0) {
		free(pids);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (kill_verified(cg, pids[i], sig) == 0)
			sent++;
	free(pids);
	return sent;
}
