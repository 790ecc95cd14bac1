/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import: copy the runs of another fpusoakd database into this one, with
 * their provenance (store.h, store_import; schema/011_import.sql).
 *
 * The source is only ever read.  It is attached through a read-only URI
 * (immutable while no -wal file exists, so not even SQLite's side files
 * appear beside it); a source of an older schema is first copied with
 * SQLite's backup API to a temporary file beside the target, which is
 * migrated and read instead.  A newer schema, a file that is not an
 * fpusoakd database or one that fails quick_check is refused.
 *
 * What is copied: the runs row and every row of every table keyed by
 * run_id (found in the schema, so a migration's new run table is copied
 * without a change here), with run_id renumbered and the dimension ids
 * mapped: zone_id through zones (node, name), name_id and type_id through
 * names (source, name), and the zone ids packed a byte each into the
 * request columns (of samples since schema 7, of requests since 019).  A run table with another *_id
 * column, or another column naming zones, may refer to a dimension this
 * code does not know: the import is refused rather than copy ids that
 * would mean something else here.  Tables of daemon state
 * (kmsg_cursor) and the fixed ones (orders, *_fields) are not copied.
 *
 * A run is the same run wherever it is when its hostname, boot id, pid and
 * start match: such a run is skipped, so importing twice adds nothing.  One
 * transaction per source: a failure leaves the target as it was.
 */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "store/migrations.h"
#include "store/reader.h"

#define URI_MAX 8192
#define SQL_MAX 8192
#define MAX_TABLES 64

/* Columns that are ids but refer to nothing to map (boot_id is the kernel's boot UUID; req_id numbers a
 * run's request verdicts within the run, and requests is copied with it: schema 019). */
static int plain_id(const char *col)
{
	return strcmp(col, "boot_id") == 0 || strcmp(col, "req_id") == 0;
}

static int ends_with_id(const char *col)
{
	size_t n = strlen(col);

	return n > 3 && strcmp(col + n - 3, "_id") == 0;
}

/* Columns packing one zone_id per byte (schema 7: the zone each order's request is served from, 255 none). */
static int packed_zones(const char *col)
{
	return strcmp(col, "req_zones_lo") == 0 || strcmp(col, "req_zones_hi") == 0;
}

/* A column that names zones some other way than these: it may hold ids this code does not map. */
static int unknown_zone_column(const char *col)
{
	return strstr(col, "zone") && strcmp(col, "zone_id") != 0 && !packed_zones(col);
}

/* The dimension map a column's ids go through: "zmap", "nmap", "" (run_id: the new run), or NULL (not an id). */
static const char *map_of(const char *col)
{
	if (strcmp(col, "run_id") == 0)
		return "";
	if (strcmp(col, "zone_id") == 0)
		return "zmap";
	if (strcmp(col, "name_id") == 0 || strcmp(col, "type_id") == 0)
		return "nmap";
	return NULL;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* One integer from sql (bound with ?1 = a when a >= 0); 1 with *v, 0 no row or NULL, -1. */
static int one_int(sqlite3 *db, const char *sql, int64_t a, int64_t *v, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc, found = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -1;
	}
	if (a >= 0)
		sqlite3_bind_int64(st, 1, a);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*v = sqlite3_column_int64(st, 0);
		found = 1;
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		found = -1;
	}
	sqlite3_finalize(st);
	return found;
}

/* A run table of the target: its name and the SQL that copies one run's rows from src. */
struct table {
	char name[64];
	char *copy;               /* INSERT INTO main.T (...) SELECT ... WHERE x.run_id = ?1 (the new id is ?2) */
};

/* Build the copy statement of table t from its columns in the target (every *_id column mapped or refused). */
static int plan_table(sqlite3 *db, struct table *t, char *err, size_t errlen)
{
	char sql[160], cols[SQL_MAX] = "", sel[SQL_MAX] = "", joins[SQL_MAX] = "";
	size_t cl = 0, sl = 0, jl = 0;
	sqlite3_stmt *st;
	int rc, nj = 0;

	snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s')", t->name);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0), *m = map_of(c);
		if ((ends_with_id(c) && !m && !plain_id(c)) || unknown_zone_column(c)) {
			snprintf(err, errlen, "table %s has a column %s this fpusoakd does not know how to map: not imported",
				 t->name, c);
			sqlite3_finalize(st);
			return -1;
		}
		cl += (size_t)snprintf(cols + cl, sizeof cols - cl, "%s\"%s\"", cl ? ", " : "", c);
		if (m && !*m) {
			sl += (size_t)snprintf(sel + sl, sizeof sel - sl, "%s?2", sl ? ", " : "");
		} else if (packed_zones(c)) {
			sl += (size_t)snprintf(sel + sl, sizeof sel - sl, "%sfpusoak_zones(x.\"%s\")", sl ? ", " : "", c);
		} else if (m) {
			sl += (size_t)snprintf(sel + sl, sizeof sel - sl, "%sj%d.new", sl ? ", " : "", nj);
			jl += (size_t)snprintf(joins + jl, sizeof joins - jl, " JOIN temp.%s j%d ON j%d.old = x.\"%s\"", m,
					       nj, nj, c);
			nj++;
		} else {
			sl += (size_t)snprintf(sel + sl, sizeof sel - sl, "%sx.\"%s\"", sl ? ", " : "", c);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || cl >= sizeof cols || sl >= sizeof sel || jl >= sizeof joins) {
		snprintf(err, errlen, "table %s: %s", t->name, rc != SQLITE_DONE ? sqlite3_errmsg(db) : "too many columns");
		return -1;
	}
	t->copy = sqlite3_mprintf("INSERT INTO main.\"%w\" (%s) SELECT %s FROM src.\"%w\" x%s WHERE x.run_id = ?1",
				  t->name, cols, sel, t->name, joins);
	if (!t->copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* The target's run tables (a run_id column; not runs and run_import, which are written here): count or -1. */
static int plan(sqlite3 *db, struct table *t, char *err, size_t errlen)
{
	const char *sql = "SELECT m.name FROM main.sqlite_master m WHERE m.type = 'table'"
			  " AND m.name NOT IN ('runs', 'run_import') AND m.name NOT LIKE 'sqlite_%'"
			  " AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id') ORDER BY m.name";
	sqlite3_stmt *st;
	int n = 0, rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < MAX_TABLES) {
		snprintf(t[n].name, sizeof t[n].name, "%s", (const char *)sqlite3_column_text(st, 0));
		t[n].copy = NULL;
		n++;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW) {
		snprintf(err, errlen, "more than %d run tables", MAX_TABLES);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (plan_table(db, &t[i], err, errlen) < 0)
			return -1;
	return n;
}

/* The source's schema version and whether it is an fpusoakd database at all; 0 or -1 with err. */
static int check_source(sqlite3 *db, int64_t *version, char *err, size_t errlen)
{
	int64_t v, ok;
	int latest = store_migrations[store_nmigrations - 1].version;
	sqlite3_stmt *st;
	int rc;

	if (one_int(db, "SELECT count(*) FROM src.sqlite_master WHERE name = 'runs' AND type = 'table'", -1, &ok, err,
		    errlen) < 0)
		return -1;
	if (!ok) {
		snprintf(err, errlen, "not an fpusoakd database (no runs table)");
		return -1;
	}
	if (one_int(db, "PRAGMA src.user_version", -1, &v, err, errlen) < 0)
		return -1;
	if (v > latest) {
		snprintf(err, errlen, "written by a newer fpusoakd (schema %" PRId64 "; this one knows up to %d):"
			 " import with that version", v, latest);
		return -1;
	}
	/* A damaged source would copy damage: the same check the writer makes of its own DB. */
	if (sqlite3_prepare_v2(db, "PRAGMA src.quick_check", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(st, 0), "ok") != 0) {
		snprintf(err, errlen, "integrity check failed: %s",
			 rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	*version = v;
	return 0;
}

/*
 * An older source, brought to this schema without touching it: copied (backup API, from a read-only
 * handle) to a temporary file in dir, migrated there by store_open.  0 with the file's path in tmp.
 */
static int migrated_copy(const char *src_uri, const char *dir, char *tmp, size_t tmplen, char *err, size_t errlen)
{
	sqlite3 *from = NULL, *to = NULL;
	sqlite3_backup *b;
	struct store *st;
	int fd, rc;

	if (snprintf(tmp, tmplen, "%s/.fpusoakd-import-XXXXXX", dir) >= (int)tmplen || (fd = mkstemp(tmp)) < 0) {
		snprintf(err, errlen, "temporary copy in %s: %s", dir, strerror(errno));
		tmp[0] = '\0';
		return -1;
	}
	close(fd);
	if (sqlite3_open_v2(src_uri, &from, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
	    sqlite3_open(tmp, &to) != SQLITE_OK || !(b = sqlite3_backup_init(to, "main", from, "main"))) {
		snprintf(err, errlen, "temporary copy: %s", sqlite3_errmsg(to ? to : from));
		sqlite3_close(from);
		sqlite3_close(to);
		return -1;
	}
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE)
		snprintf(err, errlen, "temporary copy: %s", sqlite3_errstr(rc));
	sqlite3_close(from);
	sqlite3_close(to);
	if (rc != SQLITE_DONE)
		return -1;
	if (!(st = store_open(tmp, 1 << 20, err, errlen)))
		return -1;
	store_close(st);
	return 0;
}

/* Remove a temporary copy and the side files SQLite may have left beside it. */
static void remove_copy(const char *tmp)
{
	char p[4200];

	if (!tmp[0])
		return;
	unlink(tmp);
	snprintf(p, sizeof p, "%s-wal", tmp);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", tmp);
	unlink(p);
}

/* Fill temp.zmap and temp.nmap (source id -> target id), adding the source's zones and names the target lacks. */
static int map_dimensions(sqlite3 *db, char *err, size_t errlen)
{
	return exec(db,
		    "INSERT OR IGNORE INTO main.zones (node, name) SELECT node, name FROM src.zones;"
		    "INSERT OR IGNORE INTO main.names (source, name) SELECT source, name FROM src.names;"
		    "DROP TABLE IF EXISTS temp.zmap; DROP TABLE IF EXISTS temp.nmap;"
		    "CREATE TEMP TABLE zmap (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
		    "CREATE TEMP TABLE nmap (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
		    "INSERT INTO temp.zmap SELECT s.zone_id, t.zone_id FROM src.zones s"
		    " JOIN main.zones t ON t.node = s.node AND t.name = s.name;"
		    "INSERT INTO temp.nmap SELECT s.name_id, t.name_id FROM src.names s"
		    " JOIN main.names t ON t.source = s.source AND t.name = s.name;",
		    err, errlen);
}

/* SQL function fpusoak_zones(v): each byte of v, a source zone_id (255: none), as the target's zone_id. */
static void zones_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *map = sqlite3_user_data(ctx);
	uint64_t v, out = 0;   /* unsigned: a 255 in the top byte is a negative int64, and << into its sign is UB */

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	v = (uint64_t)sqlite3_value_int64(argv[0]);
	for (int b = 0; b < 8; b++)
		out |= (uint64_t)map[(v >> (8 * b)) & 255] << (8 * b);
	sqlite3_result_int64(ctx, (sqlite3_int64)out);
}

/* The zone map of temp.zmap as a byte table for fpusoak_zones, which the connection then owns (freed at its
 * close); ids past 254 cannot be packed: refused.  0 or -1. */
static int zone_bytes(sqlite3 *db, char *err, size_t errlen)
{
	unsigned char *map = malloc(256);
	sqlite3_stmt *st;
	int rc, bad = 0;

	if (!map) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < 256; i++)
		map[i] = 255;
	if (sqlite3_prepare_v2(db, "SELECT old, new FROM temp.zmap", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		free(map);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 o = sqlite3_column_int64(st, 0), n = sqlite3_column_int64(st, 1);
		if (o >= 0 && o < 255 && n >= 0 && n < 255)
			map[o] = (unsigned char)n;
		else if (o >= 0 && o < 255)
			bad = 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || bad) {
		snprintf(err, errlen, "%s", bad ? "a zone id past 254 in the target: it cannot be packed" : sqlite3_errmsg(db));
		free(map);
		return -1;
	}
	/* free is the map's destructor: SQLite calls it when the function goes, even if registering fails. */
	if (sqlite3_create_function_v2(db, "fpusoak_zones", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, map, zones_fn, NULL,
				       NULL, free) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

/* The run columns copied as they are (every column of runs but run_id), as "a, b, ...". */
static char *run_columns(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	char *cols = NULL;

	if (sqlite3_prepare_v2(db, "SELECT group_concat('\"' || name || '\"', ', ') FROM pragma_table_info('runs')"
				   " WHERE name <> 'run_id'", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return NULL;
	}
	cols = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return cols;
}

struct src_info {
	const char *file, *path;  /* the source's file name, and its path as given */
	int64_t schema;
};

/* Copy run id of src (already attached) unless present; 0 or -1.  *to gets the run's id here, *had 1 if it was present. */
static int copy_run(sqlite3 *db, int64_t id, const struct src_info *si, const struct table *t, int nt,
		    const char *cols, int64_t *to, int *had, char *err, size_t errlen)
{
	char *sql;
	int r;

	r = one_int(db, "SELECT m.run_id FROM main.runs m JOIN src.runs s ON s.run_id = ?1"
			" WHERE m.hostname IS s.hostname AND m.boot_id IS s.boot_id AND m.pid IS s.pid"
			" AND m.started_ms = s.started_ms ORDER BY m.run_id LIMIT 1", id, to, err, errlen);
	if (r != 0) {
		*had = r == 1;
		return r < 0 ? -1 : 0;
	}
	*had = 0;
	sql = sqlite3_mprintf("INSERT INTO main.runs (%s) SELECT %s FROM src.runs WHERE run_id = %lld", cols, cols,
			      (long long)id);
	if (!sql || exec(db, sql, err, errlen) < 0) {
		sqlite3_free(sql);
		return -1;
	}
	sqlite3_free(sql);
	*to = sqlite3_last_insert_rowid(db);
	for (int i = 0; i < nt; i++) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, t[i].copy, -1, &st, NULL) != SQLITE_OK) {
			snprintf(err, errlen, "%s: %s", t[i].name, sqlite3_errmsg(db));
			return -1;
		}
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, *to);
		r = sqlite3_step(st);
		sqlite3_finalize(st);
		if (r != SQLITE_DONE) {
			snprintf(err, errlen, "%s: %s", t[i].name, sqlite3_errmsg(db));
			return -1;
		}
	}
	sql = sqlite3_mprintf("INSERT INTO main.run_import (run_id, source_file, source_path, source_run_id, source_host,"
			      " source_boot_id, source_schema, imported_ms) SELECT %lld, %Q, %Q, run_id, hostname, boot_id,"
			      " %lld, %lld FROM src.runs WHERE run_id = %lld", (long long)*to, si->file, si->path,
			      (long long)si->schema, (long long)clock_wall_ms(), (long long)id);
	r = sql ? exec(db, sql, err, errlen) : -1;
	sqlite3_free(sql);
	return r;
}

/* Every run of the attached source, in id order, in one transaction; 0 or -1 (rolled back). */
static int copy_runs(sqlite3 *db, const struct src_info *si, store_import_fn fn, void *arg, char *err, size_t errlen)
{
	struct table *t = calloc(MAX_TABLES, sizeof *t);
	sqlite3_stmt *ids = NULL;
	char *cols = NULL;
	int nt = -1, rc = -1, step;

	if (!t || exec(db, "BEGIN IMMEDIATE", err, errlen) < 0) {
		if (!t)
			snprintf(err, errlen, "out of memory");
		free(t);
		return -1;
	}
	if ((nt = plan(db, t, err, errlen)) < 0 || map_dimensions(db, err, errlen) < 0 ||
	    zone_bytes(db, err, errlen) < 0 || !(cols = run_columns(db, err, errlen)))
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT run_id FROM src.runs ORDER BY run_id", -1, &ids, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		goto out;
	}
	while ((step = sqlite3_step(ids)) == SQLITE_ROW) {
		int64_t from = sqlite3_column_int64(ids, 0), to = 0;
		int had = 0;
		if (copy_run(db, from, si, t, nt, cols, &to, &had, err, errlen) < 0)
			goto out;
		if (fn)
			fn(arg, from, to, had);
	}
	if (step != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_finalize(ids);
	ids = NULL;
	rc = exec(db, "COMMIT", err, errlen);
out:
	sqlite3_finalize(ids);
	if (rc < 0)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	for (int i = 0; i < nt; i++)
		sqlite3_free(t[i].copy);
	sqlite3_free(cols);
	free(t);
	return rc;
}

/* Whether two paths are one file. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int store_import(struct store *st, const char *source, store_import_fn fn, void *arg, char *err, size_t errlen)
{
	char uri[URI_MAX], tmp[4200] = "", dir[4200], base[4200], *attach = NULL;
	struct src_info si = { .path = source };
	sqlite3 *db = NULL;
	int immutable, rc = -1;

	if (access(source, R_OK) != 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (same_file(source, store_path(st))) {
		snprintf(err, errlen, "is the target database itself");
		return -1;
	}
	snprintf(base, sizeof base, "%s", source);
	si.file = basename(base);
	snprintf(dir, sizeof dir, "%s", store_path(st));
	snprintf(dir, sizeof dir, "%s", dirname(dir));
	if (reader_uri(source, uri, sizeof uri, &immutable) < 0) {
		snprintf(err, errlen, "path too long");
		return -1;
	}
	/* Our own connection: the writer's has no URI filenames, and ATTACH of a read-only source needs them. */
	if (sqlite3_open_v2(store_path(st), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", store_path(st), db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(db, 5000);
	if (!(attach = sqlite3_mprintf("ATTACH %Q AS src", uri)) || exec(db, attach, err, errlen) < 0 ||
	    check_source(db, &si.schema, err, errlen) < 0)
		goto out;
	if (si.schema < store_migrations[store_nmigrations - 1].version) {
		exec(db, "DETACH src", err, errlen);
		sqlite3_free(attach);
		attach = NULL;   /* freed: a failure below must not free it again at out (it did: a double free) */
		if (migrated_copy(uri, dir, tmp, sizeof tmp, err, errlen) < 0 ||
		    reader_uri(tmp, uri, sizeof uri, &immutable) < 0 || !(attach = sqlite3_mprintf("ATTACH %Q AS src", uri)) ||
		    exec(db, attach, err, errlen) < 0)
			goto out;
	}
	rc = copy_runs(db, &si, fn, arg, err, errlen);
	exec(db, "DETACH src", err, rc < 0 ? 0 : errlen);
out:
	sqlite3_free(attach);
	sqlite3_close(db);
	remove_copy(tmp);
	return rc;
}
