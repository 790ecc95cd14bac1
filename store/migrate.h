/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * migrate: bringing a database to this fpusoakd's schema (schema/NNN_name.sql, embedded at build time:
 * store/migrations.h), after checking it is one, whole, with the writer's connection settings.  A migration numbered below the database's
 * version runs late when it names a table it makes ("-- applied-if-table: NAME") and that table is
 * missing: numbers are handed out per task and merged in any order.  Included by the writer's files
 * (writer.c for store_open, upgrade.c for store_upgrade).
 */
#ifndef FPUSOAK_MIGRATE_H
#define FPUSOAK_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* How long one write may wait for another writer's lock while all is well. */
#define MIGRATE_BUSY_TIMEOUT_MS 100
/* How long opening a database (quick_check, migrations) may wait for another connection's lock. */
#define STORE_OPEN_BUSY_TIMEOUT_MS 5000

/* Run sql (any number of statements); 0, or -1 with the message in err. */
int migrate_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);

/* PRAGMA quick_check: 0 when it says "ok", else -1 with the first problem in err.  Never repairs anything. */
int migrate_check(sqlite3 *db, char *err, size_t errlen);

/* 1 if db has a table called name, 0 if not, -1 on error. */
int migrate_has_table(sqlite3 *db, const char *name);

/* The writer's connection settings (WAL, cache and WAL sizes, the busy timeout); 0, or -1 with err. */
int migrate_settings(sqlite3 *db, char *err, size_t errlen);

/* The schema version (user_version) into *version; 0 or -1. */
int migrate_version(sqlite3 *db, int64_t *version);

/* How many migrations a database at version have still needs (a later number, or a late one by its
 * marker); -1 on error. */
int migrate_pending(sqlite3 *db, int64_t have);

/* Apply every migration db lacks, each in a transaction of its own; 0, or -1 with why in err (a database
 * of a newer fpusoakd is refused untouched). */
int migrate_apply(sqlite3 *db, char *err, size_t errlen);

#endif
