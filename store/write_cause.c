/* SPDX-License-Identifier: GPL-2.0-only */
/* write_cause: the tick's classified failures (store_tick_failure_cause in store.h; writer.h). */
#include "store/writer.h"

static int write_one(struct store *st, const struct store_tick *t, const struct tick_cause *c)
{
	sqlite3_stmt *s = st->stmt[S_CAUSE];

	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, c->ts_ms);
	sqlite3_bind_int(s, 3, c->source);
	/* A comm is whatever bytes a local user chose: a BLOB keeps them exactly. */
	if (c->has_comm)
		sqlite3_bind_blob(s, 4, c->comm, c->comm_len, SQLITE_STATIC);
	if (c->pid >= 0)
		sqlite3_bind_int64(s, 5, c->pid);
	sqlite3_bind_int(s, 6, c->order);
	if (c->has_gfp)
		sqlite3_bind_text(s, 7, c->gfp_flags, -1, SQLITE_STATIC);
	if (c->zone[0]) {
		if (c->node >= 0)
			sqlite3_bind_int(s, 8, c->node);
		sqlite3_bind_text(s, 9, c->zone, -1, SQLITE_STATIC);
	}
	if (c->free_kb >= 0)
		sqlite3_bind_int64(s, 10, c->free_kb);
	if (c->min_kb >= 0)
		sqlite3_bind_int64(s, 11, c->min_kb);
	if (c->largest_order >= 0)
		sqlite3_bind_int(s, 12, c->largest_order);
	sqlite3_bind_int(s, 13, c->cause);
	if (c->has_lag)
		sqlite3_bind_int64(s, 14, c->lag_ms);
	if (c->note[0])
		sqlite3_bind_text(s, 15, c->note, -1, SQLITE_STATIC);
	return stmts_step(st, S_CAUSE);
}

int write_causes(struct store *st, const struct store_tick *t)
{
	int rc;

	for (int i = 0; i < t->ncauses; i++)
		if ((rc = write_one(st, t, &t->causes[i])) != SQLITE_OK)
			return rc;
	return SQLITE_OK;
}
