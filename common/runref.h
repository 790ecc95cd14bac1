/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * runref: how a run is addressed when more than one database is open.
 *
 * `fpusoakd serve`, `summary` and `report` accept several --db files; a run
 * is then "NAME:ID", where NAME is the short name of its file (the file
 * name without a .db/.sqlite/.sqlite3 suffix, bytes outside [A-Za-z0-9._-]
 * as '_', at most RUNREF_NAME_MAX bytes, made unique with "-2", "-3", ...
 * in --db order) and ID the run's id in that file.  With one database a
 * bare "ID" is enough (and "NAME:ID" still works); with more, a bare ID is
 * ambiguous and refused.  Every function here is pure.
 */
#ifndef FPUSOAK_RUNREF_H
#define FPUSOAK_RUNREF_H

#include <stddef.h>
#include <stdint.h>

#define RUNREF_NAME_MAX 32    /* a database's short name, bytes */
#define RUNREF_MAX_DBS 16     /* databases one command or server opens */
#define RUNREF_LEN (RUNREF_NAME_MAX + 22)   /* "NAME:ID" with its NUL */

typedef char runref_name[RUNREF_NAME_MAX + 1];

/* A run as the user wrote it: db "" when only the id was given. */
struct runref {
	runref_name db;
	int64_t id;               /* >= 1 */
};

/* Parse buf[0..len) as "ID" or "NAME:ID" (NAME [A-Za-z0-9._-]{1,32}, ID a positive integer); 0 or -1. */
int runref_parse(const char *buf, size_t len, struct runref *out);

/* The short names of n database paths (see top), unique among themselves, into names[0..n). */
void runref_names(const char *const *paths, int n, runref_name *names);

/* Which of n databases ref addresses: its index; RUNREF_NO_DB if no name matches; RUNREF_AMBIGUOUS for a bare id with n > 1. */
int runref_find(const struct runref *ref, const runref_name *names, int n);
#define RUNREF_NO_DB (-1)
#define RUNREF_AMBIGUOUS (-2)

/* The reference of run id in the database named name, when n databases are open: "ID" for n == 1, else "NAME:ID". */
const char *runref_format(const char *name, int n, int64_t id, char *out, size_t outlen);

#endif
