/*
 * churn: the daemon's handle on the churn engine (the process side of the soak).
 *
 * The daemon is multithreaded (libmicrohttpd), so it never forks workers:
 * churn_open() forks one single-threaded spawner process, which must happen
 * before any thread exists; that child execs the small static
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
 * posix_spawn") and README ("Why a forked spawner"); cgroup.h says what
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

#include "churn/cgroup.h"
#include "churn/churn_ctl.h"
#include "churn/fpu.h"

#define CHURN_MAX_WORKERS 16384      /* target population cap (pid table sizing) */
#define CHURN_MAX_PROBE 16384        /* --probe-limit cap */
#define CHURN_BUDDYINFO_MAX 8192     /* raw /proc/buddyinfo shipped in PROBE_START */

enum churn_probe_kind { CHURN_PROBE_CAPACITY = 1, CHURN_PROBE_SWITCH = 2 };
enum churn_probe_scope { CHURN_SCOPE_CGROUP = 0, CHURN_SCOPE_GUEST = 1 };
enum churn_state { CHURN_RUNNING = 1, CHURN_PROBING = 2, CHURN_STOPPING = 3 };

struct churn_cfg {
	struct churn_params params;   /* --workers, --spawn-rate, --lifetime, --lifetime-dist */
	uint64_t seed;                /* --seed: lifetimes replay exactly */
	enum fpu_kind fpu;            /* --fpu (FPU_AUTO resolved in the spawner; see the HELLO record) */
	uint64_t worker_memory;       /* --worker-memory bytes (256K) */
	int64_t worker_tick_ms;       /* duty-cycle period (10) */
	unsigned worker_work_iters;   /* FPU operations per tick (1000: a few µs) */

	enum cgroup_ver cgroup;       /* CGROUP_AUTO; CGROUP_NONE = run unconfined (capped) */
	const char *cgroup_name;      /* NULL: cgroup_instance_name(cgroup_key); used only by churn_open */
	const char *cgroup_key;       /* the instance key (the daemon: canonical DB path); NULL: our PID */
	int cgroup_required;          /* no group, no churn: churn_open fails instead of running unconfined */
	int cgroup_leaf_self;         /* v2: move this process into <own>/daemon first (the daemon: 1) */
	uint64_t cgroup_memory_max;   /* --cgroup-memory-max bytes, 0 = none */
	uint64_t cgroup_pids_max;     /* --cgroup-pids-max, 0 = none (v1: +1 is added for the spawner) */
	int nocgroup_cap;             /* population and probe cap when no cgroup could be made (64) */

	int probe_limit;              /* --probe-limit (2048) */
	enum churn_probe_scope probe_scope; /* --probe-scope */
	int64_t probe_step_timeout_ms;/* one probe worker must be ready within this (10000) */
	int switch_threads;           /* FPU-cost probe threads (64) */
	int64_t switch_ms;            /* FPU-cost probe: each of its two passes (2000) */
	int64_t status_ms;            /* STATUS record period (250) */
	int death_records_max;        /* DEATH records per status period (64; the rest are only counted) */
	const char *spawner_exe;      /* the static fpusoakd-spawner to exec into (churn_spawner_path);
					 NULL or unusable: the forked copy of the caller runs the spawner */
	int gfp_mode;                 /* --gfp-mode (enum gfp_mode, churn/gfpmod.h); GFP_MODE_OFF unless the
					 caller found the module (gfp_detect) */
};

/* A spawner is up: what it resolved.  First record after churn_open(). */
struct churn_hello {
	int32_t spawner_pid;
	int32_t fpu_kind;             /* enum fpu_kind, resolved */
	int32_t amx_ok;               /* 1 if AMX is usable here */
	int32_t cgroup_ver;           /* enum cgroup_ver of the workers' group; CGROUP_NONE if unconfined */
	int32_t pop_cap;              /* population cap in force */
	int32_t clone_into_cgroup;    /* 1: workers born in the group (clone3); 0: fork + self-move */
	int32_t protected_;           /* 1: the spawner runs at oom_score_adj -1000 */
	int32_t exec_ok;              /* 1: it runs as the exec'd static fpusoakd-spawner; 0: in the forked copy */
	int32_t gfp_mode;             /* --gfp-mode in force (enum gfp_mode); off if the device would not open */
	uint32_t gfp_size;            /* bytes each worker HOLDs (its FPU state size), 0 when off */
	uint64_t seed;
	char fpu_note[192];           /* e.g. "avx512 (auto); amx unavailable: cpu lacks amx-tile" */
};

/*
 * Every death counted once.  c and probe each obey churn_counters_check; an OOM kill is counted in
 * the set of the worker that died, whichever phase it died in (a churn worker during a probe's
 * retire phase stays a churn worker).  memcg_oom_total = c.oom_killed + probe.oom_killed +
 * oom_unattributed: kills the cgroup counted that matched no worker's death (the spawner itself, or
 * a victim not reaped yet when the record was made).
 */
struct churn_status {
	int64_t mono_ms, real_ms;     /* CLOCK_MONOTONIC / CLOCK_REALTIME at sampling */
	uint32_t seq;
	int32_t state;                /* enum churn_state */
	struct churn_params params;   /* in force (after caps) */
	struct churn_counters c;      /* churn workers, cumulative */
	struct churn_counters probe;  /* capacity-probe workers, cumulative (population = probe_alive) */
	uint64_t probe_alive;         /* capacity-probe workers alive */
	uint64_t deaths_dropped;      /* DEATH records not sent (over the per-period cap) */
	uint64_t probes_done;
	uint64_t memcg_oom_total;     /* every OOM kill in the group since start (churn + probe + other) */
	uint64_t oom_unattributed;    /* ... matched to no worker's death (yet) */
};

enum churn_role { CHURN_ROLE_CHURN = 1, CHURN_ROLE_PROBE = 2 };

/* One worker killed by a signal (for tying to kernel-log OOM lines by PID). */
struct churn_death {
	int64_t mono_ms, real_ms, age_ms;
	int32_t pid, signal, core;
	int32_t role;                 /* enum churn_role */
};

struct churn_probe_start {
	int32_t kind;                 /* enum churn_probe_kind */
	int32_t buddyinfo_err;        /* errno if the read failed (EFBIG: over CHURN_BUDDYINFO_MAX) */
	int64_t mono_ms, real_ms;
	uint32_t buddyinfo_len, pad;
	char buddyinfo[CHURN_BUDDYINFO_MAX]; /* raw text (capacity only), not NUL-terminated */
};

struct churn_probe_done {
	int32_t kind;                 /* enum churn_probe_kind */
	int32_t scope;                /* capacity: enum churn_probe_scope */
	int64_t start_mono_ms, start_real_ms;  /* v_probes.ts_ms = start_real_ms */
	int64_t duration_ms;          /* capacity: first spawn to stop; switch: both passes */
	double result;                /* capacity: workers held; switch: system µs per yield (FPU pass) */
	char stop_reason[48];         /* capacity: spawn_failed:EAGAIN | worker_died:SIGKILL | worker_exited:15 |
					 gfp_failed:atomic | oom_kill | limit | timeout | stopped;
					 switch: done | failed:... */
	char detail[400];             /* "key=value ..." (v_probes.detail) */
	/* capacity */
	int64_t count, oom_kills, retire_ms, release_ms;
	uint64_t mem_peak;            /* memory cgroup peak during the probe (bytes), 0 if unknown */
	int32_t gfp_mode;             /* enum gfp_mode its workers HOLDed in (GFP_MODE_OFF: none) */
	int32_t gfp_failed;           /* probe workers that died of a refused HOLD (the first stops it) */
	/* switch */
	int32_t threads, fpu_kind;
	uint64_t yields, base_yields;
	double sys_us_per_yield, user_us_per_yield, base_sys_us_per_yield, base_user_us_per_yield;
};

/* Something the spawner wants logged (level: enum log_level). */
struct churn_note {
	int32_t level, pad;
	char text[256];
};

enum churn_rec_type {
	CHURN_REC_HELLO = 1,
	CHURN_REC_STATUS,
	CHURN_REC_DEATH,
	CHURN_REC_PROBE_START,
	CHURN_REC_PROBE_DONE,
	CHURN_REC_NOTE,
	CHURN_REC_BYE,                /* the spawner is exiting; a final STATUS came just before */
};

struct churn_rec {
	uint32_t type;                /* enum churn_rec_type */
	uint32_t pad;
	union {
		struct churn_hello hello;
		struct churn_status status;
		struct churn_death death;
		struct churn_probe_start probe_start;
		struct churn_probe_done probe_done;
		struct churn_note note;
	} u;
};

struct churn;

/* Defaults for everything (32 workers, 50/s, 30 s exp, 256K, auto FPU, auto cgroup). */
void churn_cfg_defaults(struct churn_cfg *cfg);

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

/* Stop: retire every worker, wait for the spawner (<= 10 s, then SIGKILL), reap it, empty and remove
 * the cgroup.  *final (may be NULL) gets the last STATUS.  0 if the spawner stopped cleanly and left
 * nothing in the group; -1 if it had to be killed, had died, or processes outlived it; accepts NULL. */
int churn_close(struct churn *ch, struct churn_status *final);

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
