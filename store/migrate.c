/* SPDX-License-Identifier: GPL-2.0-only */
/* migrate: a database's integrity and its migrations to this fpusoakd's schema; see migrate.h. */
#include "store/migrate.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "store/migrations.h"

int migrate_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

static int pragma_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

int migrate_check(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc, ok = 0;

	rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &s, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(s, 0);
		ok = r && strcmp(r, "ok") == 0;
		if (!ok)
			snprintf(err, errlen, "integrity check failed: %s", r ? r : "?");
	} else {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(s);
	return ok ? 0 : -1;
}

/* The table a migration names in its "-- applied-if-table: NAME" line, into out; 1, or 0 without one. */
static int marker_table(const char *sql, char *out, size_t len)
{
	static const char key[] = "-- applied-if-table: ";
	const char *p = strstr(sql, key);
	size_t n = 0;

	if (!p)
		return 0;
	p += sizeof key - 1;
	while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9'))
		n++;
	if (!n || n >= len)
		return 0;
	memcpy(out, p, n);
	out[n] = 0;
	return 1;
}

/* 1 if db has a table called name, 0 if not, -1 on error. */
static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Should migration m run on a database at version have?  Every one above it;
 * and one at or below it that says "-- applied-if-table: NAME" when NAME is
 * missing: migration numbers are handed out per task and merged in any order,
 * so a database made between two merges (at 12, say) never ran a lower number
 * merged later (008).  Only a migration that says so is checked (a table some
 * migration makes may be dropped by a later one).  1, 0, or -1 on error.
 */
static int needs(sqlite3 *db, const struct migration *m, int64_t have)
{
	char table[64];
	int r;

	if (m->version > have)
		return 1;
	if (!marker_table(m->sql, table, sizeof table))
		return 0;
	r = has_table(db, table);
	return r < 0 ? -1 : !r;
}

int migrate_apply(sqlite3 *db, char *err, size_t errlen)
{
	int64_t have;
	int latest = store_migrations[store_nmigrations - 1].version;

	if (pragma_int(db, "PRAGMA user_version", &have) < 0) {
		snprintf(err, errlen, "cannot read schema version: %s", sqlite3_errmsg(db));
		return -1;
	}
	if (have > latest) {
		snprintf(err, errlen, "database schema version %lld is newer than this fpusoakd knows (%d):"
			 " use a newer fpusoakd or another --db", (long long)have, latest);
		return -1;
	}
	for (int i = 0; i < store_nmigrations; i++) {
		const struct migration *m = &store_migrations[i];
		char sql[64], e2[256];
		int need = have > 0 ? needs(db, m, have) : 1;

		if (need < 0) {
			snprintf(err, errlen, "cannot read the schema: %s", sqlite3_errmsg(db));
			return -1;
		}
		if (!need)
			continue;
		if (migrate_exec(db, "BEGIN IMMEDIATE", err, errlen) < 0)
			return -1;
		/* A late one (below the version) leaves the version as it is. */
		snprintf(sql, sizeof sql, "PRAGMA user_version = %lld", (long long)(m->version > have ? m->version : have));
		if (migrate_exec(db, m->sql, e2, sizeof e2) < 0 || migrate_exec(db, sql, e2, sizeof e2) < 0 ||
		    migrate_exec(db, "COMMIT", e2, sizeof e2) < 0) {
			snprintf(err, errlen, "migration %s failed: %s", m->name, e2);
			migrate_exec(db, "ROLLBACK", e2, sizeof e2);
			return -1;
		}
		log_info("database: applied migration %s%s", m->name, m->version > have ? "" : " (merged after a later one)");
		if (m->version > have)
			have = m->version;
	}
	return 0;
}
