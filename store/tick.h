/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tick: one tick of samples assembled in memory before it is queued (store.h's store_tick_*), and what
 * assembling it remembers between ticks: the interned names and zones, the counters' last values
 * (stored on change), when the last keyframe was, and where each /proc line was found last.
 * Included by the writer's files in store/ only.
 */
#ifndef FPUSOAK_TICK_H
#define FPUSOAK_TICK_H

#include <stddef.h>
#include <stdint.h>

#include "store/dims.h"
#include "store/fields.h"
#include "store/rollup.h"
#include "store/store.h"

/*
 * vmstat counters, and a zone's buddyinfo and atomic-risk rows, are stored on
 * change; every KEYFRAME_MS all of them are stored so that any window of
 * history finds a starting value near it.
 */
#define KEYFRAME_MS (3600 * 1000)
#define VM_MEMO_MAX 320   /* vmstat lines remembered by position (6.x prints ~180-200) */

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
	char *buddy;
	int have_cap, have_sw;
	struct store_probe_capacity cap;   /* numbers only: the tick's arrays move, so its strings are copied */
	struct store_probe_switch sw;      /* ... into these, and bound from them */
	char scope[16], fpu[16], fork_charge[16], cgroup[128], timeout[8];
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

/* What assembling ticks keeps from one to the next (the store holds one). */
struct tick_ctx {
	struct dims dims;
	int64_t keyframe_run, keyframe_ms;   /* the last tick that stored every counter */
	struct vm_memo vmemo[VM_MEMO_MAX];   /* by /proc/vmstat line */
	int16_t mipos[STORE_NMEMINFO];       /* where each kept meminfo field was last found (+1; 0 = unknown) */
};

/* A new empty tick of run_id at ts_ms; NULL when out of memory. */
struct store_tick *tick_new(int64_t run_id, int64_t ts_ms);

/* Free a tick and everything it owns; accepts NULL. */
void tick_free(struct store_tick *t);

/* Grow *arr by one element of size sz (counted in t->bytes); pointer to the new zeroed element or NULL. */
void *tick_grow(struct store_tick *t, void **arr, int *n, size_t sz);

/* Make room for n more kv entries (counted in t->bytes); 0 or -1. */
int tick_add_kv(struct store_tick *t, int n);

/* The churn counts in store/fields.h's column order (counts beyond INT64_MAX do not occur). */
void tick_churn_values(const struct store_churn *c, int64_t v[STORE_NCHURN]);

/* A traced failure's class: 0 sleeping, 1 atomic, 2 opportunistic (collector/gfp.h's classes). */
static inline int tick_trace_class(int atomic, int opportunistic)
{
	return opportunistic ? 2 : atomic ? 1 : 0;
}

/* The store_tick_* of store.h that intern names or zones, against the context c (0 or -1 as there). */
int tick_buddyinfo(struct tick_ctx *c, struct store_tick *t, const struct buddyinfo *bi);
int tick_vmstat(struct tick_ctx *c, struct store_tick *t, const struct kv_set *vm);
int tick_meminfo(struct tick_ctx *c, struct store_tick *t, const struct kv_set *mi);
int tick_counter(struct tick_ctx *c, struct store_tick *t, const char *name, uint64_t value);
int tick_pagetypeinfo(struct tick_ctx *c, struct store_tick *t, const struct pagetypeinfo *p, uint32_t cost_us);
int tick_slabinfo(struct tick_ctx *c, struct store_tick *t, const struct slabinfo *s, uint32_t cost_us);
int tick_request(struct tick_ctx *c, struct store_tick *t, int norders, const struct store_request *r);
int tick_atomic(struct tick_ctx *c, struct store_tick *t, int node, const char *zone, int norders,
		uint32_t atomic_mask, uint32_t kernel_mask, int64_t margin0, int64_t kernel_margin0, int legacy);

#endif
