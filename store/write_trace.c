/* SPDX-License-Identifier: GPL-2.0-only */
/* write_trace: the tick's traced failures and fallbacks (store_tick_trace in store.h; writer.h). */
#include "store/writer.h"

int trace_class(int atomic, int opportunistic)
{
	return opportunistic ? 2 : atomic ? 1 : 0;
}

static int write_failure(struct store *st, const struct store_tick *t, const struct tick_tfail *f)
{
	sqlite3_stmt *s = st->stmt[S_TFAIL];

	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, f->ts_ms);
	/* The saved comm is whatever bytes a local user chose: a BLOB keeps them exactly. */
	sqlite3_bind_blob(s, 3, f->comm, f->comm_len, SQLITE_STATIC);
	if (f->pid >= 0)
		sqlite3_bind_int64(s, 4, f->pid);
	sqlite3_bind_int(s, 5, f->order);
	if (f->has_mask)
		sqlite3_bind_int64(s, 6, (sqlite3_int64)f->gfp_mask);
	sqlite3_bind_text(s, 7, f->gfp_flags, -1, SQLITE_STATIC);
	if (f->migratetype >= 0)
		sqlite3_bind_int(s, 8, f->migratetype);
	sqlite3_bind_int(s, 9, f->nowarn);
	sqlite3_bind_int(s, 10, f->opportunistic);
	sqlite3_bind_int(s, 11, f->atomic);
	sqlite3_bind_int(s, 12, trace_class(f->atomic, f->opportunistic));
	if (f->has_task && f->task_ppid >= 0)
		sqlite3_bind_int64(s, 13, f->task_ppid);
	if (f->has_task && f->task_cgroup[0])
		sqlite3_bind_text(s, 14, f->task_cgroup, -1, SQLITE_STATIC);
	return stmts_step(st, S_TFAIL);
}

static int write_extfrag(struct store *st, const struct store_tick *t, const struct store_extfrag *x)
{
	sqlite3_stmt *s = st->stmt[S_XFRAG];

	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, t->ts_ms);
	sqlite3_bind_int(s, 3, x->alloc_order);
	sqlite3_bind_int(s, 4, x->fallback_order);
	sqlite3_bind_int(s, 5, x->alloc_migratetype);
	sqlite3_bind_int(s, 6, x->fallback_migratetype);
	sqlite3_bind_int64(s, 7, x->events > (uint64_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)x->events);
	if (x->fragmenting >= 0)
		sqlite3_bind_int(s, 8, x->fragmenting);
	return stmts_step(st, S_XFRAG);
}

int write_trace(struct store *st, const struct store_tick *t)
{
	int rc;

	for (int i = 0; i < t->ntfail; i++)
		if ((rc = write_failure(st, t, &t->tfail[i])) != SQLITE_OK)
			return rc;
	for (int i = 0; i < t->nxfrag; i++)
		if ((rc = write_extfrag(st, t, &t->xfrag[i])) != SQLITE_OK)
			return rc;
	return SQLITE_OK;
}
