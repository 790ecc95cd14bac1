/* SPDX-License-Identifier: GPL-2.0-only */
/* migrate: a database's integrity, the writer's settings and the migrations to this fpusoakd's schema; see migrate.h. */
#include "store/migrate.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "store/migrations.h"

/* The writer's page cache, the WAL's checkpoint interval (pages) and the size it is cut back to. */
#define STORE_CACHE_KIB 256
#define STORE_WAL_PAGES 256
#define STORE_WAL_LIMIT (1024 * 1024)


int migrate_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

/*
 * The writer's connection settings.  Sized for a 64 MB guest, where the writer's memory is locked and
 * every megabyte of it is one the capacity probe cannot use (issue 20).  A tick appends to ~6 B-tree
 * pages (one wide sample row, per-zone rows) and updates a few rollup pages, so the working set is a
 * few dozen pages: STORE_CACHE_KIB of page cache cost nothing measurable against 2 MiB
 * (bench/RESULTS.md).  The WAL is checkpointed every STORE_WAL_PAGES pages and cut back to
 * STORE_WAL_LIMIT after: on a tmpfs (the Xen test guest) the WAL is memory too, and SQLite's default
 * lets it reach 4 MiB.
 */
int migrate_settings(sqlite3 *db, char *err, size_t errlen)
{
	char sql[256];

	sqlite3_busy_timeout(db, MIGRATE_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(db, 1);
	snprintf(sql, sizeof sql, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;"
		 " PRAGMA cache_size=-%d; PRAGMA wal_autocheckpoint=%d; PRAGMA journal_size_limit=%d;",
		 STORE_CACHE_KIB, STORE_WAL_PAGES, STORE_WAL_LIMIT);
	return migrate_exec(db, sql, err, errlen);
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

int migrate_has_table(sqlite3 *db, const char *name)
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
	r = migrate_has_table(db, table);
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

int migrate_version(sqlite3 *db, int64_t *version)
{
	return pragma_int(db, "PRAGMA user_version", version);
}

int migrate_pending(sqlite3 *db, int64_t have)
{
	int n = 0, r;

	for (int i = 0; i < store_nmigrations; i++) {
		if ((r = have > 0 ? needs(db, &store_migrations[i], have) : 1) < 0)
			return -1;
		n += r;
	}
	return n;
}
