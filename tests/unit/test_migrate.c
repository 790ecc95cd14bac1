/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_migrate: a database written by schema 004 (meminfo and churn as
 * separate tables) keeps every value through migration 005 (one wide
 * samples row): the public views print the same text before and after,
 * read by the sqlite3 CLI.  Also: store/fields.h names the samples columns.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/fields.h"
#include "store/migrations.h"
#include "store/store.h"
#include "test.h"

static int exec(sqlite3 *db, const char *sql)
{
	char *e = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK) {
		printf("      sql error: %s\n", e ? e : "?");
		sqlite3_free(e);
		return -1;
	}
	return 0;
}

/* The sqlite3 CLI's output of sql on path into a malloc'd string (NULL on failure). */
static char *cli(const char *path, const char *sql)
{
	char cmd[1024];
	size_t cap = 1 << 20, n = 0, r;
	char *buf = malloc(cap);
	FILE *p;

	snprintf(cmd, sizeof cmd, "sqlite3 -batch '%s' \"%s\"", path, sql);
	if (!buf || !(p = popen(cmd, "r"))) {
		free(buf);
		return NULL;
	}
	while ((r = fread(buf + n, 1, cap - 1 - n, p)) > 0)
		n += r;
	buf[n] = '\0';
	pclose(p);
	return buf;
}

static int cli_int(const char *path, const char *sql)
{
	char *o = cli(path, sql);
	int v = o ? atoi(o) : -1;
	free(o);
	return v;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The columns of table in the DB at path are exactly names[0..n) (in any order). */
static void cols_match(const char *path, const char *table, const char *const *names, size_t n)
{
	char sql[200], want[2048] = "", *have;
	const char *sorted[64];

	snprintf(sql, sizeof sql, "SELECT group_concat(name, ' ') FROM (SELECT name FROM pragma_table_info('%s')"
		 " ORDER BY name)", table);
	have = cli(path, sql);
	for (size_t i = 0; i < n && i < 64; i++)
		sorted[i] = names[i];
	qsort(sorted, n, sizeof sorted[0], cmp_str);
	for (size_t i = 0; i < n; i++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? " " : "", sorted[i]);
	strcat(want, "\n");
	T_CHECK(have && strcmp(have, want) == 0, "%s columns = store/fields.h (%s)", table, have ? have : "?");
	free(have);
}

int main(void)
{
	char dir[] = "/tmp/fpusoak-test-migrate-XXXXXX", path[256], err[256], cmd[300], sql[512];
	static const char *const views[] = {
		"SELECT * FROM v_samples ORDER BY run_id, ts_ms",
		"SELECT * FROM v_meminfo ORDER BY run_id, ts_ms, name",
		/* v_churn's columns of schema 6 (schema 7 adds columns after them) */
		"SELECT run_id, ts_ms, ts, population, spawned, spawn_failed_eagain, spawn_failed_enomem, spawn_failed_other,"
		" exited, killed_sigkill, killed_sigsegv, killed_sigill, killed_other, oom_killed, exited_error"
		" FROM v_churn ORDER BY run_id, ts_ms",
		"SELECT run_id, label, started_ms FROM v_runs ORDER BY run_id",
		/* v_runs' columns up to schema 7 (012 adds xen_*); 008 redefines v_alloc_failures with in_trace */
		"SELECT run_id, label, started_at, ended_at, end_reason, kernel_release, hypervisor, guest_type, cpu_model,"
		" fpu_features, xstate_bytes, mem_total_kb, started_ms, ended_ms, kernel_version, cmdline, page_size, boot_id,"
		" hostname, version, xstate_detail, config, fpu_kind, amx_ok, cgroup, seed, churn_note FROM v_runs ORDER BY run_id",
		"SELECT run_id, ts_ms, ts, hex(comm), pid, page_order, gfp_mask, gfp_flags, nodemask, raw, seq, boot_id"
		" FROM v_alloc_failures ORDER BY run_id, ts_ms",
		"SELECT * FROM v_buddyinfo ORDER BY run_id, ts_ms, zone, page_order",
		"SELECT * FROM v_frag ORDER BY run_id, ts_ms, zone, page_order",
		"SELECT * FROM v_atomic_risk ORDER BY run_id, ts_ms, zone, page_order",
		/* pgfault changed at every tick: as a samples column (schema 006) it prints the same rows */
		"SELECT * FROM v_vmstat ORDER BY run_id, name, ts_ms",
	};
	enum { NV = sizeof views / sizeof views[0] };
	char *before[NV], *after[NV];
	sqlite3 *db;
	struct store *st;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/old.db", dir);
	T_CHECK(sqlite3_open(path, &db) == SQLITE_OK, "create a database");
	for (int i = 0; i < store_nmigrations && store_migrations[i].version <= 4; i++) {
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", store_migrations[i].version);
		if (exec(db, store_migrations[i].sql) < 0 || exec(db, sql) < 0)
			T_CHECK(0, "apply %s", store_migrations[i].name);
	}
	/* Two runs as fpusoakd 004 wrote them: 300 ticks, meminfo names, churn on the second run only. */
	T_CHECK(exec(db, "BEGIN; INSERT INTO runs (run_id, label, started_ms) VALUES (1, 'a', 1000), (2, 'b', 900000);"
			 "INSERT INTO names VALUES (1, 'meminfo', 'MemFree'), (2, 'meminfo', 'MemAvailable'),"
			 " (3, 'meminfo', 'HugePages_Free'), (4, 'vmstat', 'pgfault');"
			 "WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k < 299)"
			 " INSERT INTO samples SELECT 1 + (k >= 150), 1000 + k * 1000 + (k >= 150) * 800000, 100 + k % 7 FROM i;"
			 "INSERT INTO meminfo SELECT run_id, ts_ms, 1, 4000000 - ts_ms / 1000 FROM samples;"
			 "INSERT INTO meminfo SELECT run_id, ts_ms, 2, 6000000 - ts_ms % 977 FROM samples WHERE ts_ms % 3 = 0;"
			 "INSERT INTO meminfo SELECT run_id, ts_ms, 3, 0 FROM samples;"
			 "INSERT INTO vmstat SELECT run_id, ts_ms, 4, ts_ms FROM samples;"
			 "INSERT INTO churn SELECT run_id, ts_ms, ts_ms % 64, ts_ms % 5, 1, 0, ts_ms % 2, 3, 0, 1, 0, 0, 0, 0"
			 " FROM samples WHERE run_id = 2;"
			 /* Zone rows every tick as schema 5 stored them; Normal is missing from every 7th tick. */
			 "INSERT INTO zones VALUES (1, 0, 'DMA32'), (2, 0, 'Normal');"
			 "INSERT INTO buddy SELECT run_id, ts_ms, 1, 11, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,"
			 " NULL, NULL, NULL, NULL, NULL FROM samples;"
			 "INSERT INTO buddy SELECT run_id, ts_ms, 2, 11, 900 + ts_ms / 3000 % 5, 800, 700 - ts_ms / 9000 % 4,"
			 " 600, 500, 400, 300, 200, 100, 50, 25 - ts_ms / 5000 % 3, NULL, NULL, NULL, NULL, NULL"
			 " FROM samples WHERE ts_ms / 1000 % 7 <> 3;"
			 "INSERT INTO atomic_risk SELECT run_id, ts_ms, zone_id, 11, 2047 - (o0 % 4), 2047, o0 * 10 - 4000,"
			 " o0 * 10 - 5000, 0 FROM buddy;"
			 "INSERT INTO churn_info (run_id, fpu_kind, amx_ok, cgroup, seed, note) VALUES (2, 'avx', 0, 'v1', 7, 'n');"
			 "INSERT INTO kmsg_events (run_id, ts_ms, boot_id, seq, kind, comm, pid, page_order, gfp_mask, gfp_flags,"
			 " nodemask, raw) VALUES (1, 5000, 'b', 1, 'alloc_fail', CAST('sh' AS BLOB), NULL, 3, 2592,"
			 " 'GFP_ATOMIC|__GFP_NOWARN', '(null)', 'r1'), (2, 950000, 'b', 2, 'alloc_fail', X'ff3c', NULL, 0, 3264,"
			 " 'GFP_KERNEL', NULL, 'r2');"
			 "COMMIT;") == 0, "write 300 ticks the way schema 004 did");
	sqlite3_close(db);
	for (int v = 0; v < NV; v++)
		before[v] = cli(path, views[v]);
	T_CHECK(before[1] && strlen(before[1]) > 10000 && before[2] && strlen(before[2]) > 1000, "views readable before");

	/* fpusoakd upgrade (store_upgrade): the same migration, no run added, a backup of schema 4 first. */
	{
		char up[300], bak[400], e3[512] = "";
		int from, to;
		snprintf(up, sizeof up, "%s/up.db", dir);
		snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, up);
		T_CHECK(system(cmd) == 0, "a copy to upgrade");
		T_CHECK(store_upgrade(up, bak, sizeof bak, &from, &to, e3, sizeof e3) == 0 && from == 4 &&
			to == store_migrations[store_nmigrations - 1].version, "upgrade: 4 -> %d (%s)", to, e3);
		T_CHECK(strstr(bak, "/up.db.schema4.bak") && cli_int(bak, "PRAGMA user_version") == 4 &&
			cli_int(bak, "SELECT count(*) FROM runs") == 2, "the backup as the file was: %s", bak);
		T_EQ_I(cli_int(up, "SELECT count(*) FROM runs"), 2, "no run added");
		for (int v = 0; v < NV; v++) {
			char *u = cli(up, views[v]);
			T_CHECK(before[v] && u && strcmp(before[v], u) == 0, "upgraded, %s: same text", views[v]);
			free(u);
		}
		T_CHECK(store_upgrade(up, bak, sizeof bak, &from, &to, e3, sizeof e3) == 0 && !bak[0] && from == to,
			"a second upgrade: nothing to do, no backup");
		st = store_open(up, 1 << 20, err, sizeof err);
		T_CHECK(st && store_upgrade(up, bak, sizeof bak, &from, &to, e3, sizeof e3) < 0 && strstr(e3, "running fpusoakd"),
			"refused while a daemon holds it (%s)", e3);
		store_close(st);
		snprintf(up, sizeof up, "%s/none.db", dir);
		T_CHECK(store_upgrade(up, bak, sizeof bak, &from, &to, e3, sizeof e3) < 0 && access(up, F_OK) != 0,
			"a file that is not there: refused, and not created (%s)", e3);
	}

	st = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "store_open migrates it (%s)", st ? "ok" : err);
	store_close(st);
	T_EQ_I(cli_int(path, "PRAGMA user_version"), store_migrations[store_nmigrations - 1].version, "at the newest schema");
	for (int v = 0; v < NV; v++) {
		after[v] = cli(path, views[v]);
		T_CHECK(before[v] && after[v] && strcmp(before[v], after[v]) == 0, "%s: same text before and after (%zu bytes)",
			views[v], before[v] ? strlen(before[v]) : 0);
	}
	T_EQ_I(cli_int(path, "SELECT count(*) FROM v_meminfo"), 300 + 100 + 300, "every meminfo row kept (MemAvailable sparse)");
	T_EQ_I(cli_int(path, "SELECT count(*) FROM v_run_trace"), 0, "runs from before the trace: no tracefs note");
	T_EQ_I(cli_int(path, "SELECT count(*) FROM pragma_table_info('v_runs') WHERE name IN ('xen_domain', 'xen_domid',"
			     " 'unconfined_reason', 'pop_cap')"), 4, "v_runs has 007's and 012's columns");
	T_EQ_I(cli_int(path, "SELECT count(*) FROM v_alloc_failures WHERE in_trace = 0"), 2, "their failures: not in a trace");
	T_EQ_I(cli_int(path, "SELECT group_concat(ticks) FROM runs"), 150, "runs.ticks filled (run 1: 150)");
	T_EQ_I(cli_int(path, "SELECT count(*) FROM sqlite_master WHERE name IN ('meminfo', 'churn')"), 0, "old tables gone");
	T_CHECK(cli_int(path, "SELECT count(*) FROM v_buddyinfo WHERE zone = 'Normal'") == (300 - 43) * 11,
		"Normal's missing ticks stay missing after the migration (gap rows)");

	T_EQ_I(cli_int(path, "SELECT count(*) FROM v_churn WHERE gfp_failed != 0 OR probe_gfp_failed != 0"), 0,
	       "v_churn.gfp_failed and probe_gfp_failed (schema 009) read 0 for rows written before it");
	/* 012 redefines v_runs after 009 did: the later definition must keep 009's column. */
	T_EQ_I(cli_int(path, "SELECT count(*) FROM pragma_table_info('v_runs') WHERE name IN"
			     " ('gfp_mode', 'xen_domain', 'xen_domid', 'pop_cap', 'confinement_exact')"), 5,
	       "v_runs carries gfp_mode (009), xen_domain and xen_domid (012) and 007's columns");

	/* A database main made at schema 12 never ran 008 (merged later): opening it applies 008 late and
	 * leaves the version at 12; opening it again applies nothing.  013 adds columns to 008's trace_failures,
	 * so it comes after 008 whatever the merge order: it is left out with it (and applied by its version). */
	{
		char late[300];
		snprintf(late, sizeof late, "%s/late.db", dir);
		T_CHECK(sqlite3_open(late, &db) == SQLITE_OK, "create a database at 12 without 008");
		for (int i = 0; i < store_nmigrations; i++) {
			if (store_migrations[i].version == 8 || store_migrations[i].version == 13)
				continue;
			snprintf(sql, sizeof sql, "PRAGMA user_version = %d", store_migrations[i].version);
			if (exec(db, store_migrations[i].sql) < 0 || exec(db, sql) < 0)
				T_CHECK(0, "apply %s", store_migrations[i].name);
		}
		sqlite3_close(db);
		T_EQ_I(cli_int(late, "SELECT count(*) FROM sqlite_master WHERE name = 'trace_failures'"), 0, "no trace tables yet");
		st = store_open(late, 1 << 20, err, sizeof err);
		T_CHECK(st != NULL, "store_open applies 008 late (%s)", st ? "ok" : err);
		store_close(st);
		T_EQ_I(cli_int(late, "SELECT count(*) FROM sqlite_master WHERE name IN ('trace_failures', 'extfrag',"
				     " 'trace_rollup', 'v_run_trace', 'v_page_alloc_failures', 'v_extfrag')"), 6, "008's tables and views");
		T_EQ_I(cli_int(late, "PRAGMA user_version"), store_migrations[store_nmigrations - 1].version,
		       "the version stays the newest");
		T_EQ_I(cli_int(late, "SELECT count(*) FROM pragma_table_info('v_runs') WHERE name IN ('xen_domain', 'xen_domid')"),
		       2, "012's v_runs kept");
		st = store_open(late, 1 << 20, err, sizeof err);
		T_CHECK(st != NULL, "a second open applies nothing and works (%s)", st ? "ok" : err);
		store_close(st);
	}

	/* store/fields.h names every column of the tables a tick's scalars are stored in, once (schema 019 split
	 * the samples row into samples, churn_rare, sample_key and requests). */
	{
#define X_NAME(i, name, col) #col,
#define X_CNAME(i, col) #col,
#define X_NOCOL(i, col)
		static const char *const samples[] = { "run_id", "ts_ms", "sample_us", STORE_MEMINFO_FIELDS(X_NAME)
						       STORE_CHURN_FIELDS2(X_CNAME, X_NOCOL) STORE_VMSTAT_HOT(X_NAME) "req_id" };
		static const char *const rare[] = { "run_id", "ts_ms", STORE_CHURN_FIELDS2(X_NOCOL, X_CNAME) };
		static const char *const key[] = { "run_id", "bucket_ms", STORE_MEMINFO_FIELDS(X_NAME)
						   STORE_VMSTAT_HOT(X_NAME) };
		char req[] = "run_id, req_id, " STORE_REQUEST_COLS;
		const char *reqs[2 + STORE_NREQUEST];
		size_t n = 0;
		for (char *tok = strtok(req, ", "); tok && n < sizeof reqs / sizeof reqs[0]; tok = strtok(NULL, ", "))
			reqs[n++] = tok;
		cols_match(path, "samples", samples, sizeof samples / sizeof samples[0]);
		cols_match(path, "churn_rare", rare, sizeof rare / sizeof rare[0]);
		cols_match(path, "sample_key", key, sizeof key / sizeof key[0]);
		cols_match(path, "requests", reqs, n);
		T_EQ_I((long long)(sizeof rare / sizeof rare[0]), 2 + STORE_NCHURN_RARE, "STORE_NCHURN_RARE counts them");
	}
	for (int v = 0; v < NV; v++) {
		free(before[v]);
		free(after[v]);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	T_DONE();
}
