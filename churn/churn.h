/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * churn: the daemon's handle on the churn engine (the process side of the soak).
 *
 * The daemon never forks workers itself: churn_open() forks one
 * single-threaded spawner process at start, before SQLite is opened (the
 * core is one thread since the web process is its own; a fork from a
 * threaded process copies only the forking thread); that child execs the small static
 * fpusoakd-spawner when cfg->spawner_exe names one (spawner.h: every worker
 * is a fork of the spawner, and a fork costs more the more the forking
 * process maps), else it runs the spawner itself.  The spawner runs the population
 * controller itself (no IPC per spawn), forks workers, reaps them, counts
 * every fate, runs the probes, and reports over a SOCK_SEQPACKET
 * socketpair: one fixed-layout struct churn_rec per message.  Counters are
 * cumulative, so a dropped STATUS record loses nothing; the daemon turns
 * them into per-interval values (v_churn) by differencing.
 *
 * Workers are forks, never posix_spawn + exec: exec throws away the address
 * space fork just copied and builds a new one, and what a fork costs grows
 * with the forking process's mappings, hence the small static spawner.  The
 * measurements behind this are in bench/RESULTS.md ("Why fork, not
 * posix_spawn") and docs/measurement.md ("Why a forked spawner"); cgroup.h says what
 * joining the memory group changes for the capacity probe.
 *
 * Lifetimes of the processes involved:
 * - the spawner has PR_SET_PDEATHSIG(SIGKILL) and treats EOF on its socket
 *   as "stop": if the daemon dies, so does the spawner;
 * - workers have PR_SET_PDEATHSIG(SIGKILL) against the spawner, and live in
 *   the workers' cgroup, which churn_close() empties and removes.
 * PDEATHSIG fires when the *thread* that forked dies: call churn_open()
 * from the thread that lives as long as the process (the main thread).
 * Do not set SIGCHLD to SIG_IGN and do not waitpid(-1) in the daemon: the
 * spawner is the daemon's child and churn_close() reaps it.
 *
 * Probes:
 * - capacity: churn pauses, its workers are retired (SIGTERM; they exit
 *   with code 10 and count as exited, never as killed), /proc/buddyinfo is
 *   read and shipped in PROBE_START, then probe workers (same FPU and
 *   memory as churn workers) are started one at a time, each holding its
 *   memory, until a spawn fails, any probe worker dies or the memory
 *   cgroup reports an OOM kill, or the limit is reached; then all are
 *   released and churn resumes.  Result = workers alive and holding memory
 *   after the last clean step.
 * - switch: a forked child runs N threads that use the FPU and sched_yield
 *   for a fixed time, then the same without FPU use; getrusage gives system
 *   and user CPU per yield.  Churn keeps running during it.
 */
#ifndef FPUSOAK_CHURN_H
#define FPUSOAK_CHURN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "fragload/fragload.h"
#include "spawner/churn_ctl.h"
#include "spawner/churn_proto.h"
#include "worker/fpu.h"

struct churn;

/* The static spawner to exec: fpusoakd-spawner next to the running executable, else in
 * FPUSOAK_LIBEXECDIR; written into buf and returned, or NULL if neither is executable. */
const char *churn_spawner_path(char *buf, size_t len);

/* Create the workers' cgroup and fork the spawner; waits for its HELLO (<= 5 s).  Call before any
 * thread exists.  Without a cgroup: one warning, and the population is capped (cgroup_required: NULL,
 * err CHURN_NOCONFINE "...", nothing logged).  NULL with err. */
#define CHURN_NOCONFINE "cannot confine workers: "
struct churn *churn_open(const struct churn_cfg *cfg, char *err, size_t errlen);

/* The fd to poll for POLLIN (records) and POLLHUP (spawner gone). */
int churn_fd(const struct churn *ch);

/* Take one record without blocking: 1 = *rec filled, 0 = none pending, -1 = spawner gone (EOF). */
int churn_read(struct churn *ch, struct churn_rec *rec);

/* Change population parameters (caps applied in the spawner); 0, or -1 (errno EAGAIN if the socket is full). */
int churn_set_params(struct churn *ch, const struct churn_params *p);

/* Ask for a probe; one of each kind can be pending (a second request is dropped); 0 or -1. */
int churn_probe_request(struct churn *ch, enum churn_probe_kind kind);

/* Ask for an immediate STATUS record; 0 or -1. */
int churn_status_request(struct churn *ch);

/* What churn_stop hands on: each record the spawner sends on its way out. */
typedef void churn_rec_fn(void *arg, const struct churn_rec *rec);

/* Ask the spawner to stop (the fragmenting load first) and hand each record it sends until BYE to on_rec
 * (NULL: dropped): a probe the stop cuts short ends there, stop reason "stopped".  0, or -1 when it had
 * died or did not say BYE within 10 s (then it is SIGKILLed).  Once; churn_close after it only reaps. */
int churn_stop(struct churn *ch, churn_rec_fn *on_rec, void *arg);

/* Stop: retire every worker, wait for the spawner (<= 10 s, then SIGKILL), reap it, empty and remove
 * the cgroup.  *final (may be NULL) gets the last STATUS.  0 if the spawner stopped cleanly and left
 * nothing in the group; -1 if it had to be killed, had died, or processes outlived it; accepts NULL. */
int churn_close(struct churn *ch, struct churn_status *final);

/*
 * The fragmenting load (fragload.h), when cfg->fragment asked for it: started by churn_open after
 * the spawner, in the workers' cgroup, stopped and reaped by churn_close.
 */

/* The fd to poll for its records, -1 when there is none (off, failed, or gone and reaped). */
int churn_frag_fd(const struct churn *ch);

/* Take one record without blocking: 1, 0 (none now), -1 = it is gone (reaped; *status = its wait status). */
int churn_frag_read(struct churn *ch, struct fragload_rec *rec, int *status);

/* Freeze it in place (a capacity probe measures a still guest) and let it go on; 0 or -1. */
int churn_frag_pause(struct churn *ch);
int churn_frag_resume(struct churn *ch);

/* What it said at start (NULL when it is not running); the base its recipe is a fraction of. */
const struct fragload_hello *churn_frag_hello(const struct churn *ch);

/* What the spawner said at start. */
const struct churn_hello *churn_hello_info(const struct churn *ch);

/* The workers' cgroup (NULL when unconfined). */
const struct cgroup *churn_cgroup(const struct churn *ch);

/* The confinement in force, read back from the kernel at churn_open: what a run stores, not what it asked. */
struct churn_confinement {
	int ver;                            /* enum cgroup_ver; CGROUP_NONE: unconfined */
	char group[CGROUP_PATH_MAX];        /* memory group (v2: the group); "" when unconfined */
	char pids_group[CGROUP_PATH_MAX];   /* pids group; "" if none */
	uint64_t memory_max, pids_max;      /* 0 = no limit */
	int pop_cap;                        /* unconfined: the population and probe cap in force; else 0 */
	char reason[256];                   /* unconfined: why; else "" */
};

/* Fill out (zeroed, CGROUP_NONE with the reason, when unconfined). */
void churn_confinement(const struct churn *ch, struct churn_confinement *out);

/* One line: "v1 <group> memory.max=N pids.max=N" or "none: <reason>"; returns buf. */
const char *churn_confinement_line(const struct churn_confinement *c, char *buf, size_t len);

/* Why there is no cgroup ("" when there is one). */
const char *churn_nocgroup_reason(const struct churn *ch);

/* PID of the spawner (the daemon's child). */
pid_t churn_spawner_pid(const struct churn *ch);

/* One-line status for STATUS= and the web page; last may be NULL; returns buf. */
const char *churn_status_line(const struct churn_status *st, const struct churn_probe_done *last,
			      char *buf, size_t len);

/* Parse "cgroup|guest"; 0 or -1. */
int churn_scope_parse(const char *s, enum churn_probe_scope *out);
/* "capacity" / "switch" / "?". */
const char *churn_probe_kind_name(int kind);

#endif
