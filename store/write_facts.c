/* SPDX-License-Identifier: GPL-2.0-only */
/* write_facts: what a run records once for its comparisons (store_run_vm, store_run_proc in store.h). */
#include <sqlite3.h>
#include <stdint.h>

#include "store/writer.h"

/* One row of a prepared INSERT of up to 7 columns: ints where txt[i] is NULL and the flag says, else text or NULL. */
static int insert_row(struct store *st, const char *sql, int n, const int64_t *iv, const char *const *tv)
{
	sqlite3_stmt *s;
	int rc;

	if (!st->db)   /* suspended (store_suspend) */
		return -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	for (int i = 0; i < n; i++) {
		if (tv[i])
			sqlite3_bind_text(s, i + 1, tv[i], -1, SQLITE_TRANSIENT);
		else if (iv[i] != INT64_MIN)
			sqlite3_bind_int64(s, i + 1, iv[i]);
	}
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

int store_run_vm(struct store *st, int64_t run_id, const char *name, const char *value)
{
	int64_t iv[3] = { run_id, INT64_MIN, INT64_MIN };
	const char *tv[3] = { NULL, name, value };

	return insert_row(st, "INSERT OR REPLACE INTO run_vm(run_id, name, value) VALUES (?1, ?2, ?3)", 3, iv, tv);
}

int store_run_proc(struct store *st, int64_t run_id, int64_t ts_ms, const char *role, int64_t pid, const char *comm,
		   const char *cgroup)
{
	int64_t iv[6] = { run_id, ts_ms, INT64_MIN, pid, INT64_MIN, INT64_MIN };
	const char *tv[6] = { NULL, NULL, role, NULL, comm && comm[0] ? comm : NULL, cgroup && cgroup[0] ? cgroup : NULL };

	return insert_row(st, "INSERT INTO run_procs(run_id, ts_ms, role, pid, comm, cgroup) VALUES (?1, ?2, ?3, ?4,"
			  " CAST(?5 AS BLOB), ?6)", 6, iv, tv);
}
