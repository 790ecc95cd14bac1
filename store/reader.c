/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reader: the reader's handle (query.h is the contract, reader.h lists the
 * reader's files): open, errors, the statement cache, the zones table.
 */
#include "store/query.h"

#include <stdlib.h>
#include <string.h>

#include "store/reader.h"

#define BUSY_TIMEOUT_MS 200   /* a page waits this long for a WAL reset, then fails */
#define QUERY_MIN_SCHEMA 6     /* change-only zone rows keyed (run, zone, ts) (schema/006_change_only.sql) */

static const char *const SQL[S_COUNT] = {
	[S_HAS_TABLE] = "SELECT 1 FROM sqlite_master WHERE name = ?1 AND type IN ('table', 'view')",
	[S_USER_VERSION] = "PRAGMA user_version",
	[S_ZONES] = "SELECT zone_id, node, name FROM zones ORDER BY node, zone_id",
};

sqlite3_stmt *reader_stmt(struct query *q, enum stmt_id id, const char *sql)
{
	if (!sql) {
		/* A file asked for another file's statement: a programmer error, reported, not crashed on. */
		snprintf(q->err, sizeof q->err, "prepare: statement %d has no SQL in this file", (int)id);
		return NULL;
	}
	if (!q->st[id] &&
	    sqlite3_prepare_v3(q->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &q->st[id], NULL) != SQLITE_OK) {
		set_err(q, "prepare");
		q->st[id] = NULL;
	}
	return q->st[id];
}

int reader_zones(struct query *q, struct raw_zone *z)
{
	sqlite3_stmt *st = stmt(q, S_ZONES);
	int nz = 0, rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && nz < RAW_MAX_ZONES) {
		const char *name = col_text(st, 2);
		memset(&z[nz], 0, sizeof z[nz]);
		z[nz].zone_id = sqlite3_column_int64(st, 0);
		z[nz].node = sqlite3_column_int(st, 1);
		snprintf(z[nz].name, sizeof z[nz].name, "%s", name ? name : "?");
		z[nz].first = -1;
		nz++;
	}
	if (rc != SQLITE_ROW && step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return nz;
}

struct query *query_open(const char *db_path, char *err, size_t errlen)
{
	struct query *q = calloc(1, sizeof *q);
	int r;

	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* NOMUTEX: the caller keeps a handle on one thread at a time; SQLite's own locking is not needed. */
	if (sqlite3_open_v2(db_path, &q->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "open %s read-only: %s", db_path,
			 q->db ? sqlite3_errmsg(q->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(q->db, BUSY_TIMEOUT_MS);
	sqlite3_exec(q->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
	r = query_has_table(q, "runs");
	if (r <= 0) {
		snprintf(err, errlen, "%s: %s", db_path, r < 0 ? q->err : "not an fpusoakd database (no runs table)");
		goto fail;
	}
	if ((q->has_rollup = query_has_table(q, "buddy_rollup")) < 0) {
		snprintf(err, errlen, "%s: %s", db_path, q->err);
		goto fail;
	}
	/* Read-only handles cannot migrate: an older DB is upgraded by the daemon's writer (store_open). */
	if ((r = query_schema_version(q)) < QUERY_MIN_SCHEMA) {
		snprintf(err, errlen, "%s: schema version %d is older than this fpusoakd reads (%d); run"
			 " 'fpusoakd --db %s --duration 1s --workers 0 --listen none' once to upgrade it", db_path, r,
			 QUERY_MIN_SCHEMA, db_path);
		goto fail;
	}
	return q;
fail:
	query_close(q);
	return NULL;
}

int query_cache_kib(struct query *q, int kib)
{
	char sql[64];

	snprintf(sql, sizeof sql, "PRAGMA cache_size = -%d", kib);
	return sqlite3_exec(q->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

void query_close(struct query *q)
{
	if (!q)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(q->st[i]);
	sqlite3_close(q->db);
	free(q);
}

const char *query_errmsg(const struct query *q)
{
	return q && q->err[0] ? q->err : "no error";
}

int query_has_table(struct query *q, const char *name)
{
	sqlite3_stmt *st = stmt(q, S_HAS_TABLE);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return rc == SQLITE_ROW;
}

int query_schema_version(struct query *q)
{
	sqlite3_stmt *st = stmt(q, S_USER_VERSION);
	int rc, v = -1;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	done(st);
	return v;
}
