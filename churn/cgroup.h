/*
 * cgroup: the workers' confinement, cgroup v2 or v1.
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
 * Killing: only PIDs in our own group are signalled.  Each PID read from
 * cgroup.procs is pinned with pidfd_open() and then verified against
 * /proc/PID/cgroup before pidfd_send_signal(), so a recycled PID is never
 * hit.  (v2's cgroup.kill would be simpler but gives no list of whom it hit,
 * and close must reap exactly the PIDs it killed that are its children.)
 */
#ifndef FPUSOAK_CGROUP_H
#define FPUSOAK_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CGROUP_PATH_MAX 1024

enum cgroup_ver { CGROUP_NONE = 0, CGROUP_V1 = 1, CGROUP_V2 = 2, CGROUP_AUTO = 3 };

/* The caller's position in each hierarchy, from /proc/self/cgroup. */
struct cgroup_self {
	int has_v2, has_memory, has_pids;
	char v2[CGROUP_PATH_MAX];       /* "0::<path>" */
	char memory[CGROUP_PATH_MAX];   /* v1 line whose controller list has "memory" */
	char pids[CGROUP_PATH_MAX];
};

/* One hierarchy's mount, from /proc/self/mountinfo. */
struct cgroup_mnt {
	int found;
	char root[CGROUP_PATH_MAX];     /* the hierarchy path mounted there ("/" unless bind-mounted) */
	char dir[CGROUP_PATH_MAX];      /* the mount point */
};

struct cgroup_mounts {
	struct cgroup_mnt v2, memory, pids;
};

/* Parse /proc/self/cgroup; 0 or -1 on malformed or over-long lines. */
int cgroup_parse_self(const char *buf, size_t len, struct cgroup_self *out);

/* Parse /proc/self/mountinfo for cgroup2 and the v1 memory and pids hierarchies (first mount wins);
 * octal escapes (\040) decoded; 0 or -1 on malformed input. */
int cgroup_parse_mountinfo(const char *buf, size_t len, struct cgroup_mounts *out);

/* Parse cgroup.procs (one decimal PID per line) into pids[0..cap); sets *n; 0, or -1 on junk or > cap. */
int cgroup_parse_pids(const char *buf, size_t len, pid_t *pids, size_t cap, size_t *n);

/* Find "key value" in a flat-keyed file (memory.events, memory.oom_control); 0 and *out, -1 if absent/bad. */
int cgroup_parse_key(const char *buf, size_t len, const char *key, uint64_t *out);

/* 1 if word w is in the space-separated list buf[0..len) (cgroup.controllers), else 0. */
int cgroup_has_word(const char *buf, size_t len, const char *w);

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

/* Reset the peak-usage counter where the kernel allows it (v1 max_usage_in_bytes); 0 or -1. */
int cgroup_reset_peak(const struct cgroup *cg);

/* v1: move the calling process into the pids group (so its forks obey pids.max); no-op in v2; 0 or -1. */
int cgroup_enter_pids(const struct cgroup *cg);

/* v1: move the calling process into the memory group, so its forks are born there; -1 with
 * EOPNOTSUPP in v2 (clone3 places workers there) and without a group; 0 or -1. */
int cgroup_enter_memory(const struct cgroup *cg);

/* v1: move the calling process back to the parents of the pids and memory groups; no-op in v2; 0 or -1. */
int cgroup_leave(const struct cgroup *cg);

/* Set the memory limit (0 = none); v1 orders memsw/memory writes as the kernel requires; 0 or -1. */
int cgroup_set_memory_max(struct cgroup *cg, uint64_t bytes);

/* Set pids.max (0 = none); 0 or -1 (also when the hierarchy has no pids controller). */
int cgroup_set_pids_max(struct cgroup *cg, uint64_t n);

/* The current limits (0 = none). */
uint64_t cgroup_memory_max(const struct cgroup *cg);
uint64_t cgroup_pids_max(const struct cgroup *cg);

/* What is in force, read back from the kernel's files (not what was asked). */
struct cgroup_effective {
	enum cgroup_ver ver;
	char dir[CGROUP_PATH_MAX];       /* memory group (v2: the group) */
	char pids_dir[CGROUP_PATH_MAX];  /* pids group ("" if none) */
	uint64_t memory_max;             /* bytes; 0 = no limit (v2 "max", v1 the unlimited value) */
	uint64_t pids_max;               /* 0 = no limit or no pids controller */
	int memory_known, pids_known;    /* the file was read */
};

/* Fill out from the kernel's memory.max / memory.limit_in_bytes and pids.max; 0, or -1 without a group. */
int cgroup_effective(const struct cgroup *cg, struct cgroup_effective *out);

/* OOM kills of processes in the group since its creation (v2 memory.events, v1 memory.oom_control); 0 or -1. */
int cgroup_oom_kills(const struct cgroup *cg, uint64_t *out);

/* Memory charged to the group now and its peak (v2 memory.current/peak, v1 usage/max_usage); 0 or -1.
 * peak is 0 where the kernel has no such file. */
int cgroup_memory_usage(const struct cgroup *cg, uint64_t *current, uint64_t *peak);

/* PIDs in the group (v1: memory and pids groups merged), without the caller; 0 or -1 (EFBIG past cap). */
int cgroup_procs(const struct cgroup *cg, pid_t *pids, size_t cap, size_t *n);

/* Send sig to every verified PID in the group except the caller; returns how many were signalled, -1 on error. */
int cgroup_kill(const struct cgroup *cg, int sig);

/* The handle is a plain struct (paths, flags, fd numbers): these carry it across the spawner's exec.
 * Size of the bytes; copy them out; a heap copy from them (NULL on ENOMEM).  The fds must survive
 * the exec (no FD_CLOEXEC) for the copy to be usable; cgroup_close() is not meant for a copy. */
size_t cgroup_blob_size(void);
void cgroup_blob_save(const struct cgroup *cg, void *out);
struct cgroup *cgroup_blob_load(const void *in);

#endif
