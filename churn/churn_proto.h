/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * churn_proto: what the daemon's handle (churn.h) and the spawner
 * (spawner.h) share: the configuration handed to the spawner at start
 * (struct churn_cfg inside struct spawner_cfg, which crosses the exec into
 * fpusoakd-spawner as bytes, spawner_exec.c), the commands the daemon sends
 * (struct spawner_cmd) and the records the spawner sends back (struct
 * churn_rec), one fixed-layout struct per SOCK_SEQPACKET message.  Types
 * only, and the size of each record on the wire; the protocol itself is
 * described in churn.h.
 */
#ifndef FPUSOAK_CHURN_PROTO_H
#define FPUSOAK_CHURN_PROTO_H

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
	int64_t probe_timeout_ms;     /* --probe-timeout: the whole fill's bound (300000; 0 = none) */
	int switch_threads;           /* FPU-cost probe threads (64) */
	int64_t switch_ms;            /* FPU-cost probe: each of its two passes (2000) */
	int64_t status_ms;            /* STATUS record period (250) */
	int death_records_max;        /* DEATH records per status period (64; the rest are only counted) */
	const char *spawner_exe;      /* the static fpusoakd-spawner to exec into (churn_spawner_path);
					 NULL or unusable: the forked copy of the caller runs the spawner */
	int fragment;                 /* --fragment: enum fragload_level; the load runs beside the spawner */
	const char *fragment_dir;     /* directory for the load's O_TMPFILE files (the DB's), NULL: none */
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

/* A worker whose HOLD the allocator refused (--gfp-mode): it died by its own SIGKILL (counted as gfp_failed). */
struct churn_gfp_refusal {
	int64_t mono_ms, real_ms;     /* when the spawner reaped it (the refusal came just before the kill) */
	int32_t pid;
	int32_t role;                 /* enum churn_role */
	int32_t mode;                 /* enum gfp_mode it held in (kernel, atomic, nowait) */
	int32_t pad;
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
	CHURN_REC_GFP_REFUSED,        /* a refused HOLD (bounded with the DEATH records) */
};

struct churn_rec {
	uint32_t type;                /* enum churn_rec_type */
	uint32_t pad;
	union {
		struct churn_hello hello;
		struct churn_status status;
		struct churn_death death;
		struct churn_gfp_refusal refusal;
		struct churn_probe_start probe_start;
		struct churn_probe_done probe_done;
		struct churn_note note;
	} u;
};

enum spawner_cmd_type { SPAWNER_CMD_SET = 1, SPAWNER_CMD_PROBE, SPAWNER_CMD_STATUS, SPAWNER_CMD_STOP };

/* Daemon → spawner, one per SEQPACKET message. */
struct spawner_cmd {
	uint32_t type;              /* enum spawner_cmd_type */
	int32_t probe_kind;         /* enum churn_probe_kind for SPAWNER_CMD_PROBE */
	struct churn_params params; /* for SPAWNER_CMD_SET */
};

struct spawner_cfg {
	struct churn_cfg cc;        /* as given to churn_open (strings not used) */
	struct cgroup *cg;          /* the workers' group, NULL when unconfined (the spawner's copy) */
	int sock;                   /* its end of the socketpair */
	pid_t daemon;               /* for the PDEATHSIG race check */
	int pop_cap, probe_cap;     /* caps in force */
	int exec_errno;             /* spawner_exec() of cc.spawner_exe failed with this; 0 if not tried */
	int exec_ok;                /* 1 in the exec'd static spawner (set by spawner_blob_unpack) */
};

/* Defaults for everything (32 workers, 50/s, 30 s exp, 256K, auto FPU, auto cgroup). */
void churn_cfg_defaults(struct churn_cfg *cfg);

/* Bytes on the wire for a record of this type (header + its union member); the header alone for an unknown type. */
size_t churn_rec_size(uint32_t type);

#endif
