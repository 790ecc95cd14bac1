/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reader: the reader's handle (query.h is the contract, reader.h lists the
 * reader's files): open, errors, the statement cache, the zones table.
 */
#include "store/query.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "collector/locks.h"
#include "collector/procfile.h"
#include "common/pathcheck.h"
#include "store/reader.h"

#define BUSY_TIMEOUT_MS 200   /* a page waits this long for a WAL reset, then fails */
#define QUERY_MIN_SCHEMA 7     /* what a run ran under, the exact tick span, the request (schema/007_verdict.sql) */

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

/* Whether path-wal exists: a WAL writer is (or was, until it crashed) using the DB. */
static int has_wal(const char *path)
{
	char wal[4096];
	struct stat sb;

	if (snprintf(wal, sizeof wal, "%s-wal", path) >= (int)sizeof wal)
		return 1;   /* cannot tell: take the careful path */
	return stat(wal, &sb) == 0;
}

/* Whether the file's header says WAL mode (bytes 18 and 19 are 2). */
static int wal_mode(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h && h[18] == 2 && h[19] == 2;
	close(fd);
	return ok;
}

/* "file:" + path percent-encoded + "?" + query into out; 0, or -1 if it does not fit. */
static int uri_of(const char *path, const char *query, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0, ql = strlen(query);

	for (const char *s = "file:"; *s; s++)
		out[n++] = *s;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			    *p == '/' || *p == '.' || *p == '_' || *p == '-';
		if (n + 3 >= outlen)
			return -1;
		if (plain) {
			out[n++] = (char)*p;
		} else {
			out[n++] = '%';
			out[n++] = hex[*p >> 4];
			out[n++] = hex[*p & 15];
		}
	}
	if (n + 1 + ql + 1 > outlen)
		return -1;
	out[n++] = '?';
	memcpy(out + n, query, ql + 1);
	return 0;
}

int reader_uri(const char *path, char *out, size_t outlen, int *immutable)
{
	*immutable = !has_wal(path) && wal_mode(path);
	return uri_of(path, *immutable ? "immutable=1" : "mode=ro", out, outlen);
}

/*
 * Opening read-only without writing anything.  A WAL database read the
 * ordinary way makes SQLite create PATH-wal and PATH-shm beside it (and
 * fail where it cannot, e.g. a read-only directory): even a reader needs the
 * shared-memory index.  When no -wal file exists, no writer has committed
 * anything that is not in the main file, so the file is read as immutable
 * (no locks, no side files); query_stale() tells the owner of a long-lived
 * handle when a writer has appeared since, and the handle is reopened the
 * ordinary way.  With a -wal file (a live daemon, or a copy taken from a
 * guest that did not stop cleanly) the ordinary way is the only correct one:
 * the WAL's pages are part of the database.
 */
struct query *query_open(const char *db_path, char *err, size_t errlen)
{
	struct query *q = calloc(1, sizeof *q);
	char uri[4200], why[256];
	int r, wal = has_wal(db_path), flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;

	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* SQLite names a directory "disk I/O error": say what is wrong with the path first. */
	if (pathcheck_db(db_path, 0, why, sizeof why) < 0) {
		snprintf(err, errlen, "cannot read database %s: %s", db_path, why);
		goto fail;
	}
	if (access(db_path, R_OK) != 0) {
		snprintf(err, errlen, "open %s read-only: %s", db_path, strerror(errno));
		goto fail;
	}
	if (reader_uri(db_path, uri, sizeof uri, &q->immutable) < 0)
		q->immutable = 0;   /* a path too long for a URI: the ordinary way */
	if (!(q->path = strdup(db_path))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* NOMUTEX: the caller keeps a handle on one thread at a time; SQLite's own locking is not needed. */
	if (sqlite3_open_v2(q->immutable ? uri : db_path, &q->db, flags | (q->immutable ? SQLITE_OPEN_URI : 0),
			    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "open %s read-only: %s", db_path,
			 q->db ? sqlite3_errmsg(q->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(q->db, BUSY_TIMEOUT_MS);
	sqlite3_exec(q->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
	r = query_has_table(q, "runs");
	if (r <= 0) {
		if (r < 0 && wal)
			snprintf(err, errlen, "%s: %s (its -wal file holds data the main file does not have yet; reading"
				 " it needs %s-shm, which cannot be created or read here: copy the database with its -wal"
				 " file into a writable directory)", db_path, q->err, db_path);
		else if (r < 0 && sqlite3_errcode(q->db) == SQLITE_NOTADB)
			/* "prepare: file is not a database" said what failed, not what the file is. */
			snprintf(err, errlen, "%s is not an SQLite database (or its header is damaged)", db_path);
		else
			snprintf(err, errlen, "%s: %s", db_path, r < 0 ? q->err : "not an fpusoakd database (no runs table)");
		goto fail;
	}
	if ((q->has_rollup = query_has_table(q, "buddy_rollup")) < 0) {
		snprintf(err, errlen, "%s: %s", db_path, q->err);
		goto fail;
	}
	q->has_xen = sqlite3_exec(q->db, "SELECT xen_domain FROM runs LIMIT 0", NULL, NULL, NULL) == SQLITE_OK;
	q->has_cpuk = sqlite3_exec(q->db, "SELECT cpu_model_kernel FROM runs LIMIT 0", NULL, NULL, NULL) == SQLITE_OK;
	/* Read-only handles cannot migrate: an older DB is upgraded by the daemon's writer (store_open). */
	if ((r = query_schema_version(q)) < QUERY_MIN_SCHEMA) {
		/* Not the daemon: it would add a run from this machine to someone's old database. */
		snprintf(err, errlen, "%s: schema version %d is older than this fpusoakd reads (%d): 'fpusoakd upgrade --db"
			 " %s' migrates it in place (a backup first, no run added), or 'fpusoakd import --db NEW.db %s'"
			 " copies its runs into another database", db_path, r, QUERY_MIN_SCHEMA, db_path, db_path);
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

#define LOCKS_MAX (1u << 20)   /* /proc/locks of a busy host: a few hundred lines; more is "cannot tell" */

int query_writer_active(const struct query *q)
{
	struct stat sb;
	char *buf;
	ssize_t n;
	int r;

	if (!q || stat(q->path, &sb) != 0 || !(buf = malloc(LOCKS_MAX)))
		return -1;
	n = procfile_read(NULL, "/proc/locks", buf, LOCKS_MAX);
	r = n < 0 ? -1 : locks_flock_held(buf, (size_t)n, major(sb.st_dev), minor(sb.st_dev), (uint64_t)sb.st_ino);
	free(buf);
	return r;
}

int query_set_open(struct query_set *set, const char *const *paths, int n, char *err, size_t errlen)
{
	memset(set, 0, sizeof *set);
	if (n < 1 || n > RUNREF_MAX_DBS) {
		snprintf(err, errlen, "between 1 and %d databases, not %d", RUNREF_MAX_DBS, n);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (!(set->q[i] = query_open(paths[i], err, errlen))) {
			query_set_close(set);
			return -1;
		}
	set->n = n;
	runref_names(paths, n, set->name);
	return 0;
}

void query_set_close(struct query_set *set)
{
	if (!set)
		return;
	for (int i = 0; i < RUNREF_MAX_DBS; i++) {
		query_close(set->q[i]);
		set->q[i] = NULL;
	}
	set->n = 0;
}

int query_stale(const struct query *q)
{
	return q && q->immutable && has_wal(q->path);
}

void query_close(struct query *q)
{
	if (!q)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(q->st[i]);
	sqlite3_close(q->db);
	free(q->path);
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
