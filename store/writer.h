/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * writer: what the writer's files share; included only by the writer's files in store/ (the
 * public contract is store.h).
 *
 *   writer.c        open, migrate, lock, run rows, the bounded queue, submit and flush
 *   tick.c          assembling a tick in memory (store_tick_*), interning names and zones
 *   statements.c    the prepared statements: their SQL, prepare, step
 *   write.c         one tick's rows inside the flush transaction
 *   write_trace.c   the tick's traced failures and fallbacks (store_tick_trace)
 *   write_cause.c   the tick's classified failures (store_tick_failure_cause)
 *   rollup_write.c  closing minute/hour buckets as ticks arrive and writing them (rollup.c sums)
 *   retain.c        deleting old raw rows in bounded slices
 *   write_facts.c   what a run records once for its comparisons (vm knobs, its own processes)
 *   upgrade.c       an older database migrated in place, a backup first (store_upgrade)
 *
 * Data flow: a tick is filled by tick.c, accounted in the rollups and
 * queued by store_submit, and written with every other queued tick in one
 * transaction by the flush (write.c, rollup_write.c, statements.c).
 */
#ifndef FPUSOAK_WRITER_H
#define FPUSOAK_WRITER_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store/fields.h"
#include "store/rollup.h"
#include "store/store.h"

/*
 * vmstat counters, and a zone's buddyinfo and atomic-risk rows, are stored on
 * change; every KEYFRAME_MS all of them are stored so that any window of
 * history finds a starting value near it.
 */
#define KEYFRAME_MS (3600 * 1000)
#define MAX_NAMES 1024
#define MAX_ZONES 256
#define VM_MEMO_MAX 320   /* vmstat lines remembered by position (6.x prints ~180-200) */

/* The prepared statements (statements.c holds their SQL). */
enum stmt_id {
	S_SAMPLE, S_BUDDY, S_VMSTAT, S_NAME, S_ZONE, S_BEGIN, S_COMMIT, S_ROLLBACK,
	S_EVENT, S_CURSOR, S_COUNTER, S_PTFREE, S_SLOW, S_SLAB, S_ATOMIC, S_PROBE, S_MODEL_CHECK,
	S_HAS_SAMPLE, S_TICKS, S_ROLL_BUDDY, S_ROLL_WIDE, S_ROLL_TICK, S_ROLL_REQUEST, S_ROLL_STATE,
	S_TFAIL, S_XFRAG, S_ROLL_TRACE, S_ROLL_TFAIL, S_FRAGMENT, S_TICK_LATE, S_CAUSE, S_ROLL_CAUSE,
	S_COUNT
};

/* Where an interned name comes from (the names table's source column: store_src_names). */
enum kv_src { SRC_VMSTAT, SRC_MEMINFO, SRC_COUNTER, SRC_MIGRATETYPE, SRC_SLAB, NSRC };

extern const char *const store_src_names[NSRC];   /* tick.c */

struct name_ent {
	char name[KV_NAME_MAX];
	uint8_t src;
	uint8_t persisted;
	uint8_t have_last;   /* change detection (vmstat, counters) */
	uint64_t last;
	int64_t last_run;    /* counters: a new run stores its first value */
};

struct zone_ent {
	int node;
	char name[ZONE_NAME_MAX];
	uint8_t persisted;
};

struct tick_kv {
	uint16_t name_id;
	uint8_t src;
	uint64_t value;
};

struct tick_buddy {
	uint16_t zone_id;
	uint8_t norders;
	uint64_t free[BUDDY_MAX_ORDER];
};

struct tick_event {
	int64_t ts_ms;
	uint64_t seq;
	char boot_id[40];
	struct kmsg_event ev;
	char *raw;
	int has_task;             /* the task was read from /proc when the record was (store_tick_event_task) */
	int64_t task_ppid;
	char *task_cgroup;        /* NULL: none */
};

struct tick_ptfree {
	uint16_t zone_id, type_id;
	uint8_t norders;
	uint32_t capped_mask;
	uint64_t blocks;
	uint64_t free[PAGETYPEINFO_MAX_ORDER];
};

struct tick_slab {
	uint16_t name_id;
	uint64_t active, num, objsize, perslab, pages;
};

struct tick_atomic {
	uint16_t zone_id;
	uint8_t norders, legacy;
	uint32_t amask, kmask;
	int64_t margin0, kmargin0;
};

struct tick_probe {
	int64_t ts_ms, duration_ms;
	double result;
	char kind[16], stop_reason[64], gfp_mode[16];
	char *detail, *buddy;
};

/* A failed allocation the trace saw (store_trace_failure, copied). */
struct tick_tfail {
	int64_t ts_ms, pid;
	uint64_t gfp_mask;
	int order, migratetype, has_mask, nowarn, opportunistic, atomic;
	uint8_t comm_len;
	char comm[64];
	char gfp_flags[257];
	int has_task;
	int64_t task_ppid;
	char task_cgroup[512];
};

/* A classified failure (store_failure_cause, copied). */
struct tick_cause {
	int64_t ts_ms, pid, free_kb, min_kb, lag_ms;
	int source, order, cause, node, largest_order, has_lag, has_comm, has_gfp;
	uint8_t comm_len;
	char comm[64];
	char gfp_flags[257];
	char zone[16];
	char note[96];
};

/* A completed rollup bucket travelling with the tick that completed it. */
struct tick_rollbuddy {
	int64_t run_id, tier, bucket_ms;
	uint16_t zone_id;
	uint8_t order;
	struct rollup_zo v;
};

struct tick_rolltick {
	int64_t run_id, tier, bucket_ms;
	struct rollup_ticks v;
};

struct store_tick {
	struct store_tick *next;
	int no_sample;        /* carries only rollup rows (the run's last, partial buckets) */
	uint32_t mem_mask;    /* bit k: mem[k] was read */
	uint32_t vmhot_mask;  /* bit k: vmhot[k] was read */
	uint64_t vmhot[STORE_NVMHOT];
	int have_request;     /* the request verdicts below were set (store_tick_request) */
	int req_norders;
	uint32_t req_atomic, req_nowait, req_kernel;
	int64_t req_zones_lo, req_zones_hi;   /* zone_id per order, 8 bits each (255: none) */
	int64_t mem[STORE_NMEMINFO];
	int nrollb, nrollt;
	struct tick_rollbuddy *rollb;
	struct tick_rolltick *rollt;
	int have_churn;
	struct store_churn churn;
	int have_frag;
	struct store_fragment frag;
	int nprobes;
	struct tick_probe *probes;
	int nchecks;
	struct store_model_check *checks;
	int64_t run_id, ts_ms;
	uint32_t sample_us;
	int64_t late_ms, missed;     /* store_tick_late: 0, 0 for an on-time tick */
	int nbuddy, nkv, nevents, nptfree, nslab, natomic;
	struct tick_buddy *buddy;
	struct tick_kv *kv;
	struct tick_event *events;
	struct tick_ptfree *ptfree;
	struct tick_slab *slab;
	struct tick_atomic *atomic;
	int trace_on;        /* tracefs on: the tick carries the trace, even with nothing in it */
	int ntfail, nxfrag;
	struct tick_tfail *tfail;
	struct store_extfrag *xfrag;
	int ncauses;
	struct tick_cause *causes;
	int have_slow, pageblock_order;
	int64_t pagetype_us, slabinfo_us;    /* -1: not read this tick */
	char cursor_boot[40];
	uint64_t cursor_seq;
	size_t bytes;        /* accounted against the queue bound */
};

/*
 * The zone row last written for a (run, zone): a tick's row is written only
 * when it differs (schema 006).  Kept at write time, not at submit, so a tick
 * dropped from a full queue never makes a later tick look unchanged.
 */
struct zone_seen {
	int64_t run_id, ts_ms, max_ts;    /* max_ts: a tick at or before it (clock stepped back) is always written */
};

/*
 * What the writer decided about the vmstat line at one position last time:
 * /proc/vmstat prints the same names in the same order for the life of a
 * boot, so one strcmp per line confirms the line and reuses the decision
 * instead of matching it against every prefix and interned name again
 * (~60 % of a fast tick's parse-and-store CPU went to those matches).
 */
struct vm_memo {
	char name[KV_NAME_MAX];           /* "" = not decided yet */
	int16_t cls;                      /* a names[] id; VM_DROP; or VM_HOT(k), the samples column k */
};

#define VM_DROP (-1)       /* not kept */
#define VM_FULL (-2)       /* kept, but the names table is full: never remembered */
#define VM_HOT(k) (-3 - (k))

struct zone_last {
	struct zone_seen bs, as;          /* of the buddy row, of the atomic-risk row */
	struct tick_buddy b;              /* norders 0: nothing in force (a gap row) */
	struct tick_atomic a;
};

struct store {
	sqlite3 *db;
	char *path;
	int lockfd;
	sqlite3_stmt *stmt[S_COUNT];
	struct name_ent names[MAX_NAMES];
	int nnames;
	struct zone_ent zones[MAX_ZONES];
	int nzones;
	int64_t keyframe_run, keyframe_ms;
	struct vm_memo vmemo[VM_MEMO_MAX];   /* by /proc/vmstat line */
	int16_t mipos[STORE_NMEMINFO];       /* where each kept meminfo field was last found (+1; 0 = unknown) */
	struct store_tick *qhead, *qtail;
	size_t qcount, qbytes, qmax;
	uint64_t dropped;
	int failing;          /* last flush failed: log once per episode */
	int64_t retry_ms;     /* while failing: no new attempt before this (monotonic ms) */
	struct rollup_bucket acc[2];         /* the minute and the hour being filled */
	int64_t wlast_run, wlast_ts;         /* the newest sample row written (duplicate check) */
	struct zone_last zlast[MAX_ZONES];   /* per zone_id */
	struct zone_last zsaved[MAX_ZONES];  /* zlast at BEGIN: restored when the transaction fails */
};

/* statements.c */

/* Prepare every statement of st->stmt (persistent); 0, or -1 with the message in err. */
int stmts_prepare(struct store *st, char *err, size_t errlen);

/* Finalize every prepared statement (NULL ones too). */
void stmts_finalize(struct store *st);

/* Step statement id once, then reset it and clear its bindings: SQLITE_OK (done or a row) or the error code. */
int stmts_step(struct store *st, enum stmt_id id);

/* tick.c */

/* Free a tick and everything it owns; accepts NULL. */
void tick_free(struct store_tick *t);

/* Grow *arr by one element of size sz (counted in t->bytes); pointer to the new zeroed element or NULL. */
void *tick_grow(struct store_tick *t, void **arr, int *n, size_t sz);

/* Make room for n more kv entries (counted in t->bytes); 0 or -1. */
int tick_add_kv(struct store_tick *t, int n);

/* The churn counts in store/fields.h's column order (counts beyond INT64_MAX do not occur). */
void tick_churn_values(const struct store_churn *c, int64_t v[STORE_NCHURN]);

/* write.c */

/* Insert the names and zones interned since the last commit; SQLITE_OK or the error code. */
int write_dimensions(struct store *st);

/* Write one queued tick's rows (its rollup rows first); SQLITE_OK or the error code. */
int write_tick(struct store *st, const struct store_tick *t);

/* write_cause.c */

/* Write the tick's classified failures; SQLITE_OK or the error code. */
int write_causes(struct store *st, const struct store_tick *t);

/* write_trace.c */

/* Write the tick's traced failures and fallbacks; SQLITE_OK or the error code. */
int write_trace(struct store *st, const struct store_tick *t);

/* A traced failure's class: 0 sleeping, 1 atomic, 2 opportunistic (collector/gfp.h's classes). */
int trace_class(int atomic, int opportunistic);

/* rollup_write.c */

/* Account t in the minute being filled, closing buckets first (their rows ride on t); 0 or -1. */
int rollup_account_tick(struct store *st, struct store_tick *t);

/* Write the completed buckets t carries and advance rollup_state; SQLITE_OK or the error code. */
int rollup_write_rows(struct store *st, const struct store_tick *t);

/* Move the rollup rows of a tick dropped from the queue onto the next one (lost only when out of memory). */
void rollup_hand_on(struct store_tick *from, struct store_tick *to);

/* ---------------------------------------------------------------- writer.c, for upgrade.c */

/* 1 if db has table name, 0 if not, -1 on error. */
int writer_has_table(sqlite3 *db, const char *name);

/* PRAGMA quick_check: 0, or -1 with err. */
int writer_check(sqlite3 *db, char *err, size_t errlen);

/* The schema version (user_version) into *version; 0 or -1. */
int writer_version(sqlite3 *db, int64_t *version);

/* How many migrations db at version have still needs (a later number, or a late one by its marker); -1 on error. */
int writer_pending(sqlite3 *db, int64_t have);

/* The writer's settings (WAL, ...) and every pending migration; 0, or -1 with err. */
int writer_migrate(sqlite3 *db, char *err, size_t errlen);

#endif
