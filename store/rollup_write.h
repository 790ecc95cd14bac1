/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rollup_write: the writer's side of the minute and hour rollups (rollup.c does the sums): buckets
 * close as ticks are submitted, a closed bucket's rows ride on the tick that closed it, and they are
 * written in that tick's transaction.  Included by the writer's files in store/ only.
 */
#ifndef FPUSOAK_ROLLUP_WRITE_H
#define FPUSOAK_ROLLUP_WRITE_H

#include <stdint.h>

#include "store/rollup.h"
#include "store/statements.h"
#include "store/tick.h"

/* The buckets being filled: the minute and the hour. */
struct rollacc {
	struct rollup_bucket b[2];
};

/* Account t in the minute being filled, closing buckets first (their rows ride on t); 0 or -1. */
int rollup_account_tick(struct rollacc *acc, struct store_tick *t);

/* The run's end: its partial buckets closed onto a tick of their own (no sample row), or NULL when run_id
 * has none open (*failed 0) or memory ran out (*failed 1). */
struct store_tick *rollup_final(struct rollacc *acc, int64_t run_id, int *failed);

/* Free what the buckets hold; a is reusable (empty) after. */
void rollup_acc_free(struct rollacc *acc);

/* Write the completed buckets t carries and advance rollup_state; SQLITE_OK or the error code. */
int rollup_write_rows(struct stmts *ps, const struct store_tick *t);

/* Move the rollup rows of a tick dropped from the queue onto the next one (lost only when out of memory). */
void rollup_hand_on(struct store_tick *from, struct store_tick *to);

#endif
