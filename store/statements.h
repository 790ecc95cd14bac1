/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * statements: the writer's prepared statements, by id; their SQL is in statements.c.  Included by the
 * writer's files in store/ only (the public contract is store.h).
 *
 * Each is prepared once per connection (SQLITE_PREPARE_PERSISTENT) and stepped by id; a step resets the
 * statement and clears its bindings, so a writer binds, steps and forgets.
 */
#ifndef FPUSOAK_STATEMENTS_H
#define FPUSOAK_STATEMENTS_H

#include <sqlite3.h>
#include <stddef.h>

/* The prepared statements (statements.c holds their SQL). */
enum stmt_id {
	S_SAMPLE, S_BUDDY, S_VMSTAT, S_NAME, S_ZONE, S_BEGIN, S_COMMIT, S_ROLLBACK,
	S_EVENT, S_CURSOR, S_COUNTER, S_PTFREE, S_SLOW, S_SLAB, S_ATOMIC, S_PROBE, S_PROBE_CAP, S_PROBE_SW, S_MODEL_CHECK,
	S_HAS_SAMPLE, S_TICKS, S_ROLL_BUDDY, S_ROLL_WIDE, S_ROLL_TICK, S_ROLL_REQUEST, S_ROLL_STATE,
	S_TFAIL, S_XFRAG, S_ROLL_TRACE, S_ROLL_TFAIL, S_FRAGMENT, S_TICK_LATE, S_CAUSE, S_ROLL_CAUSE,
	S_RARE, S_KEY_GET, S_KEY_PUT, S_REQ_GET, S_REQ_PUT,
	S_COUNT
};

struct stmts {
	sqlite3_stmt *s[S_COUNT];    /* NULL: not prepared */
};

/* Prepare every statement on db (path names it in err); 0, or -1 with the message in err. */
int stmts_prepare(struct stmts *p, sqlite3 *db, const char *path, char *err, size_t errlen);

/* Finalize every prepared statement and leave them all NULL (NULL ones are fine). */
void stmts_finalize(struct stmts *p);

/* Step statement id once, then reset it and clear its bindings: SQLITE_OK (done or a row) or the error code. */
int stmts_step(struct stmts *p, enum stmt_id id);

#endif
