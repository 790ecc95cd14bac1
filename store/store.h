/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store: the SQLite writer.  The only code that writes the sample tables
 * (store/writer.c is its core and the one owner of its state, and lists the writer's other files;
 * store/query.h is the reader).
 *
 * One writer (the daemon's loop thread), WAL so HTTP threads can read
 * through store/query while it writes, synchronous=NORMAL (a crash may lose
 * the last tick, never corrupt the DB).  Each tick is assembled in memory
 * and submitted; submission writes every pending tick in one transaction.
 * When the DB is locked or the disk is full, ticks stay in a bounded queue
 * (oldest dropped, and counted, past the bound) and are written when the
 * DB accepts writes again: a stall of minutes loses nothing.
 *
 * Rollups: each submitted tick is added to the minute (and hour) bucket
 * being filled (STORE_TIER_*); a bucket closes when a tick of another bucket
 * arrives and is written with that tick.  Retention deletes raw rows only,
 * never rows the minute rollup has not consumed yet.
 */
#ifndef FPUSOAK_STORE_H
#define FPUSOAK_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/buddyinfo.h"
#include "collector/kmsg.h"
#include "collector/kv.h"
#include "collector/pagetypeinfo.h"
#include "collector/slabinfo.h"
#include "store/tiers.h"

struct store;
struct store_tick;

/* What a run records about its environment once, at its start. */
struct store_run {
	const char *label, *version, *boot_id, *hostname, *kernel_release, *kernel_version;
	const char *cmdline, *hypervisor, *guest_type, *cpu_model, *fpu_features, *xstate_detail;
	const char *cpu_model_kernel;   /* the kernel's "model name" (/proc/cpuinfo); cpu_model is CPUID's brand */
	const char *config;
	const char *gfp_mode;          /* --gfp-mode in force: "alternate", "off (module not loaded)", ... */
	const char *xen_domain;           /* "dom0" | "domU" | NULL (not Xen, or unknown) */
	int64_t started_ms, xstate_bytes, mem_total_kb, page_size, pid;
	int64_t xen_domid;                /* with xen_domain only; -1: unknown */
	/* What the machine had (schema 016, v_run_memory), kB; <= 0 unknown (stored as NULL): a guest's size
	 * (Xen balloon), the pages the kernel knows (zoneinfo present), MemFree and MemAvailable at the start. */
	int64_t domain_kb, present_kb, mem_free_kb, mem_available_kb;
};

/* Open, migrate and lock the DB at path (created if absent); NULL with the reason in err (newer, corrupt, in use). */
struct store *store_open(const char *path, size_t queue_max_bytes, char *err, size_t errlen);

/* Write pending ticks (best effort) and close; accepts NULL. */
void store_close(struct store *st);

/* Called by store_import for each run of the source: its id there, its id here, and whether it was here already. */
typedef void (*store_import_fn)(void *arg, int64_t source_run, int64_t run, int already);

/* Copy every run of the database at source into st's with its provenance (v_imports), skipping runs already
 * here (same host, boot id, pid, start); the source is only read (store/import.c).  0, or -1 with err (the target
 * unchanged: one transaction per source; a newer schema, a corrupt or foreign file, the target itself). */
int store_import(struct store *st, const char *source, store_import_fn fn, void *arg, char *err, size_t errlen);

/*
 * Migrate path in place to this fpusoakd's schema without adding a run (`fpusoakd upgrade`): refused while a
 * daemon holds it, when it is not an fpusoakd database, damaged or newer; a copy is made first into
 * backup (PATH.schemaN.bak, with the time added when that exists).  *from and *to get the versions;
 * backup stays "" when nothing needed doing.  0, or -1 with err.
 */
int store_upgrade(const char *path, char *backup, size_t blen, int *from, int *to, char *err, size_t errlen);

/* Mark every run without an end (but imported ones: store_import) as ended by 'crash' at its last sample; how many, or -1. */
int store_mark_crashed(struct store *st);

/* Insert a run row (and its run_memory row when any of its memory figures is known); sets *run_id; 0 or -1
 * (message logged). */
int store_run_begin(struct store *st, const struct store_run *run, int64_t *run_id);

/* Record the end of a run (after flushing pending ticks); 0 or -1. */
int store_run_end(struct store *st, int64_t run_id, int64_t ended_ms, const char *reason);

/* Add a free-text note to a run (e.g. "source pagetypeinfo unreadable"); 0 or -1. */
int store_run_note(struct store *st, int64_t run_id, int64_t ts_ms, const char *kind, const char *text);

/* Record one of the allocator's knobs the run started under (v_run_vm); 0 or -1. */
int store_run_vm(struct store *st, int64_t run_id, const char *name, const char *value);

/* Record one of the run's own processes (v_run_procs: role daemon|spawner|load|web, its comm and cgroup lines,
 * either may be NULL); 0 or -1. */
int store_run_proc(struct store *st, int64_t run_id, int64_t ts_ms, const char *role, int64_t pid, const char *comm,
		   const char *cgroup);

/* Start assembling a tick; NULL on allocation failure. */
struct store_tick *store_tick_new(struct store *st, int64_t run_id, int64_t ts_ms);

/* Attach a buddyinfo snapshot to the tick; 0 or -1. */
int store_tick_buddyinfo(struct store *st, struct store_tick *t, const struct buddyinfo *bi);

/* Attach the vmstat counters that changed since the last stored value (all at a keyframe); 0 or -1. */
int store_tick_vmstat(struct store *st, struct store_tick *t, const struct kv_set *vm);

/* Attach the meminfo fields fpusoakd keeps (store/fields.h: STORE_MEMINFO_FIELDS); 0 or -1. */
int store_tick_meminfo(struct store *st, struct store_tick *t, const struct kv_set *mi);

/* Attach one understood kernel-log event (raw = the escaped message, cut to 1024 bytes); 0 or -1. */
int store_tick_event(struct store_tick *t, int64_t ts_ms, const char *boot_id, uint64_t seq,
		     const struct kmsg_event *ev, const char *raw, size_t raw_len);

/* The failing task of the event attached last, as /proc showed it when its record was read (collector/task.h):
 * its parent (-1 unknown) and cgroup lines (NULL unknown); 0, or -1 (no event, out of memory). */
int store_tick_event_task(struct store_tick *t, int64_t ppid, const char *cgroup);

/* Record where kernel-log reading stands for boot_id (written with the tick). */
void store_tick_cursor(struct store_tick *t, const char *boot_id, uint64_t last_seq);

/* Attach one of fpusoakd's own cumulative counters; stored only when it changed. 0 or -1. */
int store_tick_counter(struct store *st, struct store_tick *t, const char *name, uint64_t value);

/* Attach a pagetypeinfo snapshot and what reading it cost; 0 or -1. */
int store_tick_pagetypeinfo(struct store *st, struct store_tick *t, const struct pagetypeinfo *p, uint32_t cost_us);

/* Attach the slabinfo caches fpusoakd keeps (task_struct, mm_struct, kmalloc-*, ...); 0 or -1. */
int store_tick_slabinfo(struct store *st, struct store_tick *t, const struct slabinfo *s, uint32_t cost_us);

/* Attach one zone's atomic-risk verdicts (bit k = order k passes); 0 or -1. */
int store_tick_atomic(struct store *st, struct store_tick *t, int node, const char *zone, int norders,
		      uint32_t atomic_mask, uint32_t kernel_mask, int64_t margin0, int64_t kernel_margin0,
		      int legacy);

/* Last kernel-log sequence number stored for boot_id: 0 and *seq set, 1 if none, -1 on error. */
int store_kmsg_cursor(struct store *st, const char *boot_id, uint64_t *seq);

/* Churn accounting for the interval ending at the tick (counts) and the population at it. */
struct store_churn {
	uint64_t population, spawned, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other;
	uint64_t exited, killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error;
	/* schema 7: every death counted once (spawner/churn_ctl.h), churn workers' own kills and the probes' set */
	uint64_t killed_ours;
	uint64_t probe_spawned, probe_spawn_failed, probe_exited, probe_killed_sigkill, probe_killed_other;
	uint64_t probe_oom_killed, probe_killed_ours;
	uint64_t oom_unattributed;     /* a difference: may be "negative" (stored as int64) */
	uint64_t probe_population;
	uint64_t gfp_failed, probe_gfp_failed;   /* schema 9: died of a refused HOLD (worker/gfpmod.h) */
};

/* A capacity probe's conditions, as it ran (v_probe_capacity; v_probes.detail is made of them). */
struct store_probe_capacity {
	const char *scope;             /* cgroup | guest */
	const char *fpu;               /* the FPU kind its workers touched */
	const char *fork_charge;       /* group | outside | none */
	const char *cgroup;            /* v1:NAME | v2:NAME | none */
	int64_t limit, spawned, ready, oom_kills, worker_memory, mem_limit, mem_peak, retire_ms, release_ms;
	int64_t mem_limit_lifted, pids_limit, gfp_failed, time_limit_ms;
	const char *timeout;           /* fill | step: the bound that ended it; NULL or "" when none did */
};

/* An FPU-cost probe's two passes (v_probe_switch). */
struct store_probe_switch {
	const char *fpu;
	int64_t threads, yields, sys_us, user_us, base_yields, base_sys_us, base_user_us, wall_ms;
};

/* A finished probe (v_probes). */
struct store_probe {
	int64_t ts_ms;                 /* when it started */
	const char *kind;              /* capacity|switch */
	double result;
	const char *stop_reason, *buddyinfo_before;
	const char *gfp_mode;          /* capacity: the mode its workers held in; NULL for none */
	int64_t duration_ms;
	const struct store_probe_capacity *cap;   /* capacity: its conditions (NULL: none recorded) */
	const struct store_probe_switch *sw;      /* switch: its passes (NULL: its child never reported) */
};

/* A model check (v_model_check): the model's verdict on a request and the allocator's answer. */
struct store_model_check {
	int page_order;
	int mode;                      /* 2 atomic, 3 nowait (kmod/fpusoak_gfp.h numbers) */
	int predicted_ok, actual_ok;
	int64_t margin_pages;
};

/* What the requests of a tick get from their whole zonelist (analysis/atomic.h atomic_request_eval). */
struct store_request {
	uint32_t atomic_mask, nowait_mask, kernel_mask;   /* bit k: order k passes (kernel: by reclaim if need be) */
	int node[16];                   /* the zone GFP_ATOMIC of order k would be served from: node, name */
	const char *zone[16];           /* NULL: none (it fails in every zone) */
};

/* Attach the tick's request verdicts for orders 0..norders-1 (v_atomic_request); 0 or -1. */
int store_tick_request(struct store *st, struct store_tick *t, int norders, const struct store_request *r);
/* What the fragmenting load (fragload/fragload.h) held at the tick (v_fragment). */
struct store_fragment {
	int32_t state;                 /* enum fragload_state */
	uint64_t cycles;
	uint64_t anon_bytes, pipe_bytes, pgtable_bytes, socket_bytes, files, kept_bytes, alloc_failed;
};

/* Attach the load's row; 0 or -1. */
int store_tick_fragment(struct store_tick *t, const struct store_fragment *f);

/* Record the load's recipe for run_id (written at once, not queued): level, the base its bound is a
 * fraction of, the bound, the long-lived set's bound, "key=value ..." details; 0 or -1. */
int store_fragment_info(struct store *st, int64_t run_id, const char *level, uint64_t base_bytes, uint64_t cap_bytes,
			uint64_t keep_cap_bytes, const char *recipe);

/* Attach the interval's churn row; 0 or -1. */
int store_tick_churn(struct store_tick *t, const struct store_churn *c);

/* Attach a finished probe (strings are copied); 0 or -1. */
int store_tick_probe(struct store_tick *t, const struct store_probe *p);

/* Attach a model check made at this tick; 0 or -1. */
int store_tick_model_check(struct store_tick *t, const struct store_model_check *c);

/* Record what the spawner resolved for run_id (written at once, not queued); 0 or -1. */
int store_churn_info(struct store *st, int64_t run_id, const char *fpu_kind, int amx_ok, const char *cgroup,
		     int64_t pop_cap, uint64_t seed, const char *note);

/* A failed page allocation the trace saw (v_page_alloc_failures); strings are copied (comm up to 64 bytes,
 * gfp_flags up to 256: longer ones are cut). */
struct store_trace_failure {
	int64_t ts_ms, pid;
	const char *comm;
	size_t comm_len;
	int order, migratetype;
	const char *gfp_flags;
	int has_mask;
	uint64_t gfp_mask;
	int nowarn, opportunistic, atomic;
	int has_task;                  /* the task was read from /proc (collector/task.h): task_* below are facts */
	int64_t task_ppid;             /* -1 unknown */
	const char *task_cgroup;       /* NULL or "": unknown */
};

/* Fallbacks of one kind counted at the tick (v_extfrag). */
struct store_extfrag {
	int alloc_order, fallback_order, alloc_migratetype, fallback_migratetype;
	int fragmenting;               /* -1: the pageblock order was unknown */
	uint64_t events;
};

/* Mark the tick as carrying the trace (tracefs on: its rollup buckets then count zeros too) and attach
 * its failures and fallbacks, either list may be empty; 0 or -1 (nothing attached). */
int store_tick_trace(struct store_tick *t, const struct store_trace_failure *f, int nf,
		     const struct store_extfrag *x, int nx);
/* A failed allocation and its cause (v_failure_causes; daemon/causes.h): strings are copied, comm up to 64
 * bytes, gfp_flags up to 256, the zone name up to 15, the note up to 95 (longer ones are cut). */
struct store_failure_cause {
	int64_t ts_ms;
	int source;                    /* 1 kmsg, 2 trace, 3 module */
	const char *comm;              /* NULL: none */
	size_t comm_len;
	int64_t pid;                   /* -1: none */
	int order;
	const char *gfp_flags;         /* NULL: none */
	int cause;                     /* enum cause (analysis/cause.h): 0 unknown .. 3 reserve */
	int node;                      /* the zone that decided: node (-1 none or not printed) and name (NULL: none) */
	const char *zone;
	int64_t free_kb, min_kb;       /* -1: none */
	int largest_order;             /* -1: none */
	int has_lag;
	int64_t lag_ms;
	const char *note;              /* NULL: none */
};

/* Attach one classified failure; 0 or -1. */
int store_tick_failure_cause(struct store_tick *t, const struct store_failure_cause *c);

/* The confinement in force, read back from the kernel (v_runs' cgroup_* columns). */
struct store_confinement {
	int confined;                   /* 0: unconfined, reason says why */
	const char *group, *pids_group; /* memory group (v2: the group), v1 pids group ("" if none) */
	uint64_t memory_max, pids_max;  /* 0 = no limit */
	const char *reason;
};

/* Record it for run_id, after store_churn_info (written at once, not queued); 0 or -1. */
int store_confinement(struct store *st, int64_t run_id, const struct store_confinement *c);

/* Record what the tick's reads cost, in microseconds. */
void store_tick_cost(struct store_tick *t, uint32_t sample_us);

/* The tick began late_ms after its period's start, after missed periods without a tick; stored (v_tick_late)
 * when either is at least STORE_LATE_MS / 1. */
#define STORE_LATE_MS 50
void store_tick_late(struct store_tick *t, int64_t late_ms, int64_t missed);

/* The daemon's group (README "Crash safety"): a SIGKILL loses at most the ticks of the last 5 s. */
#define STORE_GROUP_MS 5000

/* Commit ticks in groups spanning at most group_ms of their stamps (0, the default: each tick at once); a run's
 * first tick, a tick with probes and every flush below still commit at once. */
void store_group(struct store *st, int64_t group_ms);

/* Queue the tick (ownership passes) and write the queue when its group is due: 0 written or waiting for its
 * group, 1 still queued (the DB refused it). */
int store_submit(struct store *st, struct store_tick *t);

/* Retry writing queued ticks now (store_submit retries at most once a second): 0 all written, 1 still queued. */
int store_flush(struct store *st);

/* Ticks held in memory because the DB refused them or is suspended (a group being filled is not counted). */
size_t store_queued(const struct store *st);

/* Bytes those ticks take (what --queue-max bounds). */
size_t store_queued_bytes(const struct store *st);

/* Ticks dropped since open because the queue was full. */
uint64_t store_dropped(const struct store *st);

/* At the run's end (now_ms = INT64_MAX) queue its last, partial minute and hour; else nothing. 0, 1 queued, -1. */
int store_rollup(struct store *st, int64_t run_id, int64_t now_ms);

/* Delete raw rows older than cutoff_ms, a bounded slice per call; rows deleted, or -1. Rollups stay. */
int64_t store_retain(struct store *st, int64_t cutoff_ms);

/* Ticks of a run, stored or queued (for status lines); -1 on error. */
int64_t store_sample_count(struct store *st, int64_t run_id);

/* The underlying path (for read-only connections). */
const char *store_path(const struct store *st);

/* What SQLite holds in memory, in bytes (footprint figures, bench/RESULTS.md). */
struct store_memory {
	int64_t cache;        /* the writer's page cache (SQLITE_DBSTATUS_CACHE_USED) */
	int64_t schema;       /* the parsed schema, views included */
	int64_t statements;   /* prepared statements */
	int64_t sqlite_now;   /* everything SQLite has allocated in this process, now and at its peak */
	int64_t sqlite_peak;
};

/* Fill *out from SQLite's counters for this writer (cache, schema and statements 0 while suspended). */
void store_memory(struct store *st, struct store_memory *out);

/*
 * Let go of the DB for a while (a guest-scope capacity probe, issue 20): write what is queued,
 * empty the WAL, close the connection (schema, statements and page cache freed) and keep the lock
 * on the file.  Until store_resume, ticks are held in the queue, in memory (its bound applies),
 * and every other call that needs the DB returns -1 (store_run_end resumes by itself).  1 if it
 * suspended, 0 if it already was.
 */
int store_suspend(struct store *st);

/* Reconnect, prepare, and write what was held; 0, or -1 with err (still suspended: ticks stay queued). */
int store_resume(struct store *st, char *err, size_t errlen);

/* 1 between store_suspend and store_resume. */
int store_suspended(const struct store *st);

#endif
