/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * migrate: bringing a database to this fpusoakd's schema (schema/NNN_name.sql, embedded at build time:
 * store/migrations.h), after checking it is one, whole.  A migration numbered below the database's
 * version runs late when it names a table it makes ("-- applied-if-table: NAME") and that table is
 * missing: numbers are handed out per task and merged in any order.  Included by the writer's files.
 */
#ifndef FPUSOAK_MIGRATE_H
#define FPUSOAK_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>

/* Run sql (any number of statements); 0, or -1 with the message in err. */
int migrate_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);

/* PRAGMA quick_check: 0 when it says "ok", else -1 with the first problem in err.  Never repairs anything. */
int migrate_check(sqlite3 *db, char *err, size_t errlen);

/* Apply every migration db lacks, each in a transaction of its own; 0, or -1 with why in err (a database
 * of a newer fpusoakd is refused untouched). */
int migrate_apply(sqlite3 *db, char *err, size_t errlen);

#endif
