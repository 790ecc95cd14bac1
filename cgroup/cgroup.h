/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup: the workers' confinement, cgroup v2 or v1.  This header is the
 * handle (open, close, where it is, moving into it, carrying it across an
 * exec) and includes the rest of the cgroup_ modules' API: cgroup_parse.h
 * (the kernel's files, parsed), cgroup_limit.h (limits and accounting),
 * cgroup_kill.h (members and signalling them).
 *
 * v2 (systemd with Delegate=yes): our own cgroup may not hold processes
 * once controllers are enabled for its children ("no internal processes"),
 * so the daemon first moves itself into a leaf <own>/daemon, enables
 * +memory +pids in <own>/cgroup.subtree_control and creates <own>/workers
 * with memory.max, memory.swap.max=0 and pids.max.  Workers are born in it
 * with clone3(CLONE_INTO_CGROUP) (Linux 5.7): no migration, and the pids
 * limit is enforced by fork itself (EAGAIN).
 *
 * v1 (memory and pids hierarchies, as on the development VM): the group is
 * created under the caller's cgroup in each hierarchy.  The spawner joins
 * the *pids* group itself, because v1 checks pids.max only at fork, never
 * on migration: forking from inside is the only way a pids limit turns into
 * EAGAIN.  It joins the *memory* group too (after touching its own tables,
 * whose charge stays where it was made), because a worker that moved
 * itself there took 50-70 us with cgroup_threadgroup_rwsem held for writing,
 * which stalls every fork on the machine.  In the group, the spawner is an
 * OOM candidate; workers run at oom_score_adj 1000 and it at -1000 (or what
 * it inherited, 0 or -900 without CAP_SYS_RESOURCE), so it is picked only if
 * no worker is alive.  Under a limit below 32 MiB it stays out: there a batch
 * of reaped workers whose kernel objects are not yet freed could fill the
 * group with no worker left to kill.  If it does not join, each worker
 * writes "0" (= itself) into the memory group's cgroup.procs as before.  memory.memsw is set to
 * the same limit so the group cannot spill into swap.
 *
 * Kernel objects of a worker (task_struct with its xstate, kernel stack,
 * the page tables fork copies) are allocated by fork in the parent's
 * context and charged to the parent's memory cgroup: on v1, with the
 * spawner inside, to the workers' group; on v2 (clone3 into the group from
 * outside) to the daemon's.  A cgroup-scope capacity probe therefore counts
 * them on v1 and not on v2; its detail says which (fork_charge=).
 *
 * Killing only verified members of our own group: cgroup_kill.h.
 */
#ifndef FPUSOAK_CGROUP_H
#define FPUSOAK_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup_kill.h"
#include "cgroup/cgroup_limit.h"
#include "cgroup/cgroup_parse.h"

struct cgroup_cfg {
	enum cgroup_ver ver;     /* CGROUP_AUTO picks v2 if it has the memory controller, else v1 */
	const char *name;        /* group to create under the caller's own cgroup: one path component;
				    NULL: cgroup_instance_name(key) */
	const char *key;         /* what makes this instance unique (the daemon: its canonical DB path, which
				    flock keeps to one live daemon); NULL: "pid:<our PID>" */
	int leaf_self;           /* v2: move the caller into <own>/daemon first (required under systemd) */
	int enter;               /* move the caller into the new group (test sandboxes) */
	uint64_t memory_max;     /* bytes; 0 = no limit */
	uint64_t pids_max;       /* 0 = no limit */
};

struct cgroup;

/*
 * The group's name for an instance key: "workers-<hash>" (v2) or "fpusoakd-workers-<hash>" (v1, a
 * hierarchy shared by everything on the host), <hash> 12 hex digits of FNV-1a 64 of key.  Two daemons
 * never share a group (they cannot share a DB), and a daemon restarted on the same DB finds the group
 * its crashed predecessor left.  0, or -1 (no key, no version, buffer too small).  Pure.
 */
int cgroup_instance_name(const char *key, enum cgroup_ver ver, char *out, size_t len);

/* Create (or adopt, if it exists and is empty, e.g. left by a crash of the same instance: its processes
 * get 2 s to exit) the group and set its limits; NULL with err on failure.  Any failure leaves nothing
 * behind that open created. */
struct cgroup *cgroup_open(const struct cgroup_cfg *cfg, char *err, size_t errlen);

/* Kill everything left in the group (verified PIDs only), reap those that are our children, undo
 * enter/leaf_self, remove what open created.  Accepts NULL. */
void cgroup_close(struct cgroup *cg);

/* Which version the group lives in. */
enum cgroup_ver cgroup_version(const struct cgroup *cg);

/* Absolute directory of the memory group (v2: the group) and of the pids group (v1; v2: same). */
const char *cgroup_dir(const struct cgroup *cg);
const char *cgroup_pids_dir(const struct cgroup *cg);

/* fd of cgroup.procs a freshly forked worker writes "0" to (v1: memory group; v2: the group). */
int cgroup_child_fd(const struct cgroup *cg);

/* v2: O_PATH fd of the group for clone3(CLONE_INTO_CGROUP); -1 in v1. */
int cgroup_clone_fd(const struct cgroup *cg);

/* The fds the handle holds (a forked spawner must keep them open); returns how many were stored. */
int cgroup_fds(const struct cgroup *cg, int *out, int max);

/* v1: move the calling process into the pids group (so its forks obey pids.max); no-op in v2; 0 or -1. */
int cgroup_enter_pids(const struct cgroup *cg);

/* v1: move the calling process into the memory group, so its forks are born there; -1 with
 * EOPNOTSUPP in v2 (clone3 places workers there) and without a group; 0 or -1. */
int cgroup_enter_memory(const struct cgroup *cg);

/* v1: move the calling process back to the parents of the pids and memory groups; no-op in v2; 0 or -1. */
int cgroup_leave(const struct cgroup *cg);

/* The handle is a plain struct (paths, flags, fd numbers): these carry it across the spawner's exec.
 * Size of the bytes; copy them out; a heap copy from them (NULL on ENOMEM).  The fds must survive
 * the exec (no FD_CLOEXEC) for the copy to be usable; cgroup_close() is not meant for a copy. */
size_t cgroup_blob_size(void);
void cgroup_blob_save(const struct cgroup *cg, void *out);
struct cgroup *cgroup_blob_load(const void *in);

#endif
