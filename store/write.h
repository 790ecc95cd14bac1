/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * write: the queued ticks' rows, all in one transaction (write.c: the sample row, the zone rows on
 * change, the counters, what the slow sources, the kernel log and the probes brought; write_trace.c: the
 * trace's rows; write_cause.c: the classified failures), with the closed rollup buckets each tick
 * carries (rollup_write.h).  Included by the writer's files in store/ only.
 */
#ifndef FPUSOAK_WRITE_H
#define FPUSOAK_WRITE_H

#include <stdint.h>

#include "store/dims.h"
#include "store/statements.h"
#include "store/tick.h"

/*
 * The zone row last written for a (run, zone): a tick's row is written only
 * when it differs (schema 006).  Kept at write time, not at submit, so a tick
 * dropped from a full queue never makes a later tick look unchanged.
 */
struct zone_seen {
	int64_t run_id, ts_ms, max_ts;    /* max_ts: a tick at or before it (clock stepped back) is always written */
};

struct zone_last {
	struct zone_seen bs, as;          /* of the buddy row, of the atomic-risk row */
	struct tick_buddy b;              /* norders 0: nothing in force (a gap row) */
	struct tick_atomic a;
};

/*
 * The minute key a run's sample rows are written against (schema 019): the meminfo and hot vmstat
 * values of the minute's first tick, as its sample_key row holds them.  A row stores each value less
 * the key's, or the value itself where the key lacks the field (mask bit clear).
 */
struct sample_key {
	int64_t run_id, bucket_ms;           /* run_id 0: none loaded */
	uint32_t mem_mask, hot_mask;
	int64_t mem[STORE_NMEMINFO];
	int64_t hot[STORE_NVMHOT];
};

/* The request verdict last written and its id in requests (schema 019). */
struct req_last {
	int64_t run_id, req_id;              /* run_id 0: none */
	int norders;
	uint32_t atomic, nowait, kernel;
	int64_t zones_lo, zones_hi;
};

/* What was last written, kept between transactions so a zone's rows are written on change only. */
struct rowlog {
	struct zone_last zlast[MAX_ZONES];   /* per zone_id */
	struct zone_last zsaved[MAX_ZONES];  /* zlast at BEGIN: restored when the transaction fails */
	int64_t wlast_run, wlast_ts;         /* the newest sample row written (duplicate check) */
	struct sample_key key;               /* forgotten when a transaction fails: its row may be gone */
	struct req_last req;                 /* the same */
};

/*
 * Write the ticks from head on (next-linked), with the names and zones d interned since it last
 * committed, in one transaction; SQLITE_OK, or the error code with the transaction rolled back and rl as
 * it was (the caller keeps the ticks and tries again).
 */
int write_ticks(struct rowlog *rl, struct stmts *s, const struct dims *d, const struct store_tick *head);

/* write_trace.c: the tick's traced failures and fallbacks; SQLITE_OK or the error code. */
int write_trace(struct stmts *s, const struct store_tick *t);

/* write_cause.c: the tick's classified failures; SQLITE_OK or the error code. */
int write_causes(struct stmts *s, const struct store_tick *t);

#endif
