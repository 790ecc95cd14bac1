/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_probe_columns: migration 015 stores a probe's conditions as columns (probe_capacity,
 * probe_switch) instead of one "key=value ..." text, and keeps every v_* view's columns and values.
 *
 *   1. A database with every migration but 015, with probes as the spawner wrote them (its two format
 *      strings, copied here as they were: the reference), older and hostile texts among them: every
 *      v_* view reads the same, column for column and row for row, before and after the migration,
 *      and the texts that have the fields are parsed into the new tables.
 *   2. Probes written now (columns only, probes.detail NULL): v_probes.detail is, byte for byte, the
 *      text the spawner printed for the same values.
 *   3. query_probes_bare (the report's reads, from the table) gives query_probes' rows (from v_probes)
 *      but the detail, on both databases, every kind and a window.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/migrations.h"
#include "store/query.h"
#include "store/store.h"
#include "test.h"

/* The spawner's capacity detail before schema 015 (spawner/spawner_probe.c, spawner_probe_cap_finish). */
static void old_capacity(char *out, size_t len, const char *scope, int limit, long long spawned, long long ready,
			 unsigned long long oom, unsigned long long wmem, const char *fpu, unsigned long long mem_limit,
			 unsigned long long peak, long long retire, long long release, const char *charge,
			 const char *cg, int lifted, unsigned long long pids, const char *gfp, int gfp_failed,
			 long long time_limit, const char *timeout)
{
	snprintf(out, len,
		 "scope=%s limit=%d spawned=%lld ready=%lld oom_kills=%llu worker_memory=%llu fpu=%s "
		 "mem_limit=%llu mem_peak=%llu retire_ms=%lld release_ms=%lld fork_charge=%s cgroup=%s "
		 "mem_limit_lifted=%d pids_limit=%llu gfp_mode=%s gfp_failed=%d time_limit_ms=%lld%s%s",
		 scope, limit, spawned, ready, oom, wmem, fpu, mem_limit, peak, retire, release, charge, cg, lifted, pids,
		 gfp, gfp_failed, time_limit, timeout[0] ? " timeout=" : "", timeout);
}

/* The FPU-cost probe's detail before schema 015 (spawner/probe.c, probe_switch_report). */
static void old_switch(char *out, size_t len, const char *fpu, int threads, unsigned long long yields, long long sys,
		       long long user, unsigned long long byields, long long bsys, long long buser, long long wall)
{
	double spy = yields ? (double)sys / (double)yields : 0, upy = yields ? (double)user / (double)yields : 0;
	double bspy = byields ? (double)bsys / (double)byields : 0, bupy = byields ? (double)buser / (double)byields : 0;

	snprintf(out, len,
		 "fpu=%s threads=%d yields=%llu sys_us=%lld user_us=%lld sys_us_per_yield=%.4f "
		 "user_us_per_yield=%.4f base_yields=%llu base_sys_us=%lld base_user_us=%lld "
		 "base_sys_us_per_yield=%.4f base_user_us_per_yield=%.4f wall_ms=%lld",
		 fpu, threads, yields, sys, user, spy, upy, byields, bsys, buser, bspy, bupy, wall);
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

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

/* Every view's columns and rows as text, the rows sorted (a view has no order of its own). */
static char *dump_views(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *v, *s;
	size_t cap = 1 << 20, n = 0, nrows;
	char *out = malloc(cap), **rows = NULL;

	if (!out || sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return NULL;
	out[0] = 0;
	sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'view' AND name LIKE 'v\\_%' ESCAPE '\\'"
			       " ORDER BY name", -1, &v, NULL);
	while (sqlite3_step(v) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(v, 0);
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", name);
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
			continue;
		n += (size_t)snprintf(out + n, cap - n, "== %s:", name);
		for (int c = 0; c < sqlite3_column_count(s); c++)
			n += (size_t)snprintf(out + n, cap - n, " %s", sqlite3_column_name(s, c));
		n += (size_t)snprintf(out + n, cap - n, "\n");
		nrows = 0;
		while (sqlite3_step(s) == SQLITE_ROW) {
			char row[8192];
			size_t r = 0;
			for (int c = 0; c < sqlite3_column_count(s); c++) {
				const char *t = (const char *)sqlite3_column_text(s, c);
				r += (size_t)snprintf(row + r, sizeof row - r, "%s%s:%s", c ? "|" : "",
						      sqlite3_column_type(s, c) == SQLITE_NULL ? "N" : "v", t ? t : "");
			}
			rows = realloc(rows, (nrows + 1) * sizeof *rows);
			rows[nrows++] = strdup(row);
		}
		sqlite3_finalize(s);
		if (nrows)
			qsort(rows, nrows, sizeof *rows, strcmp_ptr);
		for (size_t i = 0; i < nrows; i++) {
			n += (size_t)snprintf(out + n, cap - n, "%s\n", rows[i]);
			free(rows[i]);
		}
	}
	sqlite3_finalize(v);
	sqlite3_close(db);
	free(rows);
	return n < cap ? out : (free(out), NULL);
}

static char *one(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	char *r = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		r = strdup(sqlite3_column_text(s, 0) ? (const char *)sqlite3_column_text(s, 0) : "(null)");
	sqlite3_finalize(s);
	sqlite3_close(db);
	return r;
}

static long one_int(const char *path, const char *sql)
{
	char *r = one(path, sql);
	long v = r ? atol(r) : -1;
	free(r);
	return v;
}

static int one_eq(const char *path, const char *sql, const char *want)
{
	char *r = one(path, sql);
	int ok = r && !strcmp(r, want);
	if (!ok)
		printf("      %s: got '%s', want '%s'\n", sql, r ? r : "(none)", want);
	free(r);
	return ok;
}

/* Each probe as one line of every column but the detail, appended to the strbuf-like buffer in arg. */
struct rows {
	char buf[4096];
	size_t len;
	int details;    /* rows with a detail */
};

static int row_cb(void *arg, const struct query_probe *p)
{
	struct rows *r = arg;
	int n = snprintf(r->buf + r->len, sizeof r->buf - r->len, "%lld %s %.4f %s %lld %s\n", (long long)p->ts_ms,
			 p->kind ? p->kind : "-", p->result, p->stop_reason ? p->stop_reason : "-",
			 (long long)p->duration_ms, p->gfp_mode ? p->gfp_mode : "-");
	if (n > 0 && (size_t)n < sizeof r->buf - r->len)
		r->len += (size_t)n;
	r->details += p->detail != NULL;
	return 0;
}

/* Part 3 on one database: the bare read and the view's read agree row for row. */
static void bare_matches(const char *path, int64_t run, int64_t wfrom, int64_t wto, const char *what)
{
	static const char *const KINDS[] = { NULL, "capacity", "switch" };
	char err[256];
	struct query *q = query_open(path, err, sizeof err);

	T_CHECK(q != NULL, "%s: query_open (%s)", what, q ? "ok" : err);
	if (!q)
		return;
	for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++)
		for (int w = 0; w < 2; w++) {
			struct rows full = { .len = 0 }, bare = { .len = 0 };
			int64_t from = w ? wfrom : -1, to = w ? wto : -1;
			int nf = query_probes(q, run, KINDS[k], from, to, 100, row_cb, &full);
			int nb = query_probes_bare(q, run, KINDS[k], from, to, 100, row_cb, &bare);

			T_CHECK(nf > 0 && nb == nf && strcmp(full.buf, bare.buf) == 0,
				"%s, kind %s, %s: the bare read gives the view's %d rows (%d)", what,
				KINDS[k] ? KINDS[k] : "any", w ? "a window" : "the whole run", nf, nb);
			T_EQ_I(bare.details, 0, "... and no detail");
		}
	query_close(q);
}

int main(void)
{
	char dir[] = "/tmp/fpusoak-test-probecols-XXXXXX", path[256], path2[256], err[256], sql[4096];
	char cap1[512], cap2[512], cap3[512], sw1[512], sw2[512];
	char *before, *after;
	sqlite3 *db;
	sqlite3_stmt *ins;
	struct store *st;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/old.db", dir);

	/* ---- 1: a database before 015 ---- */
	T_CHECK(sqlite3_open(path, &db) == SQLITE_OK, "create a database");
	/* Every migration but 015, as a database made on a branch without it (it then applies late). */
	for (int i = 0; i < store_nmigrations; i++) {
		if (store_migrations[i].version == 15)
			continue;
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", store_migrations[i].version);
		if (exec(db, store_migrations[i].sql) < 0 || exec(db, sql) < 0)
			T_CHECK(0, "apply %s", store_migrations[i].name);
	}
	old_capacity(cap1, sizeof cap1, "cgroup", 2048, 193, 192, 1, 262144, "avx", 67108864, 66977792, 812, 35,
		     "group", "v1:fpusoakd-workers-0123456789ab", 0, 4097, "off", 0, 300000, "");
	old_capacity(cap2, sizeof cap2, "guest", 2048, 91, 91, 0, 1048576, "avx512", 0, 0, 1200, 7, "outside",
		     "v2:workers-0123456789ab", 1, 4098, "atomic", 1, 300000, "fill");
	old_capacity(cap3, sizeof cap3, "cgroup", 64, 64, 64, 0, 262144, "sse", 0, 0, 3, 4, "none", "none", 0, 0, "off", 0, 0,
		     "step");
	old_switch(sw1, sizeof sw1, "avx", 64, 1234567, 2345678, 34567, 1200000, 1111111, 22222, 4012);
	old_switch(sw2, sizeof sw2, "x87", 0, 0, 0, 0, 0, 0, 0, 2);
	struct { const char *kind, *detail, *gfp; long long ts; double result; } rows[] = {
		{ "capacity", cap1, NULL, 1000, 192 },
		{ "capacity", cap2, "atomic", 2000, 90 },
		{ "capacity", cap3, NULL, 3000, 64 },
		/* an older fpusoakd's texts: before --probe-timeout; before schema 7 and 9 (no cgroup, limits, gfp) */
		{ "capacity", "scope=cgroup limit=2048 spawned=7 ready=6 oom_kills=1 worker_memory=262144 fpu=avx"
			      " mem_limit=33554432 mem_peak=33000000 retire_ms=1 release_ms=2 fork_charge=group cgroup=v1:w"
			      " mem_limit_lifted=0 pids_limit=1001 gfp_mode=off gfp_failed=0", NULL, 4500, 6 },
		{ "capacity", "scope=cgroup limit=2048 spawned=5 ready=5 oom_kills=1 worker_memory=262144 fpu=avx mem_limit=0"
			      " mem_peak=0 retire_ms=1 release_ms=2", NULL, 4000, 5 },
		{ "capacity", "<b>held=256</b> & \"x\"", NULL, 5000, 256 },   /* what testdb.h plants */
		{ "switch", sw1, NULL, 1500, 1.9 },
		{ "switch", sw2, NULL, 2500, 0 },
		{ "switch", "", NULL, 3500, 0 },                            /* a child that never reported */
	};
	T_CHECK(exec(db, "INSERT INTO runs (run_id, label, started_ms) VALUES (1, 'a', 1000)") == 0, "a run");
	sqlite3_prepare_v2(db, "INSERT INTO probes (run_id, ts_ms, kind, result, stop_reason, duration_ms, detail,"
			       " buddyinfo_before, gfp_mode) VALUES (1, ?1, ?2, ?3, 'worker_died:SIGKILL', 900, ?4,"
			       " 'Node 0, zone DMA32 1 2 3', ?5)", -1, &ins, NULL);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		sqlite3_bind_int64(ins, 1, rows[i].ts);
		sqlite3_bind_text(ins, 2, rows[i].kind, -1, SQLITE_STATIC);
		sqlite3_bind_double(ins, 3, rows[i].result);
		sqlite3_bind_text(ins, 4, rows[i].detail, -1, SQLITE_STATIC);
		if (rows[i].gfp)
			sqlite3_bind_text(ins, 5, rows[i].gfp, -1, SQLITE_STATIC);
		T_CHECK(sqlite3_step(ins) == SQLITE_DONE, "old probe %zu stored", i);
		sqlite3_reset(ins);
		sqlite3_clear_bindings(ins);
	}
	sqlite3_finalize(ins);
	sqlite3_close(db);

	before = dump_views(path);
	T_CHECK(before && strstr(before, cap1) && strstr(before, sw1), "the views read before (%zu bytes)",
		before ? strlen(before) : 0);
	st = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "store_open applies 015 (%s)", st ? "ok" : err);
	store_close(st);
	after = dump_views(path);
	T_CHECK(after != NULL, "the views read after");
	/* The views that were there keep their columns and rows; 015 only adds v_probe_capacity and v_probe_switch. */
	{
		size_t lb = before ? strlen(before) : 0;
		char *cut = NULL;
		if (after) {
			/* drop the two new views' sections from after, then compare */
			char *p;
			while ((p = strstr(after, "== v_probe_capacity:")) || (p = strstr(after, "== v_probe_switch:"))) {
				char *e = strstr(p + 3, "\n== ");
				memmove(p, e ? e + 1 : p + strlen(p), strlen(e ? e + 1 : p + strlen(p)) + 1);
			}
			cut = after;
		}
		T_CHECK(cut && before && strcmp(before, cut) == 0, "every v_* view: the same columns and rows after 015"
			" (%zu bytes)", lb);
		if (cut && before && strcmp(before, cut)) {
			size_t i = 0;
			while (before[i] && before[i] == cut[i])
				i++;
			printf("      first difference at byte %zu: before '%.80s' after '%.80s'\n", i, before + i, cut + i);
		}
	}
	T_EQ_I(one_int(path, "SELECT count(*) FROM probe_capacity"), 5, "the 5 capacity texts with fields parsed");
	T_EQ_I(one_int(path, "SELECT count(*) FROM probe_switch"), 2, "the 2 switch texts with fields parsed");
	T_CHECK(one_eq(path, "SELECT scope || ' ' || probe_limit || ' ' || mem_limit || ' ' || cgroup || ' ' || fork_charge"
			     " || ' ' || pids_limit || ' ' || gfp_failed || ' ' || time_limit_ms || ' ' || timeout"
			     " FROM probe_capacity WHERE ts_ms = 2000",
		       "guest 2048 0 v2:workers-0123456789ab outside 4098 1 300000 fill"), "a capacity text's fields, as columns");
	T_CHECK(one_eq(path, "SELECT coalesce(timeout, 'NULL') || ' ' || time_limit_ms FROM probe_capacity WHERE ts_ms = 1000",
		       "NULL 300000"), "no timeout= in the text: NULL");
	T_CHECK(one_eq(path, "SELECT coalesce(cgroup, 'NULL') || ' ' || coalesce(pids_limit, 'NULL') || ' ' || spawned"
			     " FROM probe_capacity WHERE ts_ms = 4000", "NULL NULL 5"),
		"an older text: what it did not say stays NULL");
	T_CHECK(one_eq(path, "SELECT threads || ' ' || yields || ' ' || sys_us || ' ' || wall_ms FROM probe_switch"
			     " WHERE ts_ms = 1500", "64 1234567 2345678 4012"), "a switch text's fields, as columns");
	T_CHECK(one_eq(path, "SELECT workers || ' ' || scope || ' ' || mem_limit_lifted FROM v_probe_capacity"
			     " WHERE ts_ms = 2000", "90.0 guest 1"), "v_probe_capacity joins the probe's result");
	bare_matches(path, 1, 1200, 2600, "a database migrated to 015");

	/* ---- 2: probes written now ---- */
	snprintf(path2, sizeof path2, "%s/new.db", dir);
	st = store_open(path2, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "a new database (%s)", st ? "ok" : err);
	if (st) {
		struct store_run r = { .label = "n", .started_ms = 1700000000000 };
		int64_t run;
		T_EQ_I(store_run_begin(st, &r, &run), 0, "run begins");
		struct store_probe_capacity c1 = { .scope = "cgroup", .fpu = "avx", .fork_charge = "group",
						   .cgroup = "v1:fpusoakd-workers-0123456789ab", .limit = 2048, .spawned = 193,
						   .ready = 192, .oom_kills = 1, .worker_memory = 262144,
						   .mem_limit = 67108864, .mem_peak = 66977792, .retire_ms = 812,
						   .release_ms = 35, .pids_limit = 4097, .time_limit_ms = 300000 };
		struct store_probe_capacity c2 = { .scope = "guest", .fpu = "avx512", .fork_charge = "outside",
						   .cgroup = "v2:workers-0123456789ab", .limit = 2048, .spawned = 91, .ready = 91,
						   .worker_memory = 1048576, .retire_ms = 1200, .release_ms = 7,
						   .mem_limit_lifted = 1, .pids_limit = 4098, .gfp_failed = 1,
						   .time_limit_ms = 300000, .timeout = "fill" };
		struct store_probe_switch s1 = { .fpu = "avx", .threads = 64, .yields = 1234567, .sys_us = 2345678,
						 .user_us = 34567, .base_yields = 1200000, .base_sys_us = 1111111,
						 .base_user_us = 22222, .wall_ms = 4012 };
		struct store_probe_switch s2 = { .fpu = "x87", .wall_ms = 2 };
		struct store_probe p[] = {
			{ .ts_ms = 1700000001000, .kind = "capacity", .result = 192, .stop_reason = "worker_died:SIGKILL",
			  .duration_ms = 900, .cap = &c1 },
			{ .ts_ms = 1700000002000, .kind = "capacity", .result = 90, .stop_reason = "gfp_failed:atomic",
			  .duration_ms = 900, .gfp_mode = "atomic", .cap = &c2 },
			{ .ts_ms = 1700000001500, .kind = "switch", .result = 1.9, .stop_reason = "done", .duration_ms = 4012,
			  .sw = &s1 },
			{ .ts_ms = 1700000002500, .kind = "switch", .result = 0, .stop_reason = "failed:no_yields",
			  .duration_ms = 2, .sw = &s2 },
			{ .ts_ms = 1700000003500, .kind = "switch", .result = 0, .stop_reason = "failed:SIGKILL",
			  .duration_ms = 2 },
		};
		struct store_tick *t = store_tick_new(st, run, 1700000004000);
		for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
			T_EQ_I(store_tick_probe(t, &p[i]), 0, "probe %zu attached", i);
		T_EQ_I(store_submit(st, t), 0, "the tick with its probes written");
		T_EQ_I(store_flush(st), 0, "flushed");
		store_close(st);
		T_CHECK(one_eq(path2, "SELECT count(*) FROM probes WHERE detail IS NOT NULL", "0"), "no text stored any more");
		T_CHECK(one_eq(path2, "SELECT detail FROM v_probes WHERE ts_ms = 1700000001000", cap1),
			"a capacity probe's detail is the spawner's text, from the columns");
		old_capacity(cap2, sizeof cap2, "guest", 2048, 91, 91, 0, 1048576, "avx512", 0, 0, 1200, 7, "outside",
			     "v2:workers-0123456789ab", 1, 4098, "atomic", 1, 300000, "fill");
		T_CHECK(one_eq(path2, "SELECT detail FROM v_probes WHERE ts_ms = 1700000002000", cap2),
			"... with gfp_mode from the probe's own column");
		T_CHECK(one_eq(path2, "SELECT detail FROM v_probes WHERE ts_ms = 1700000001500", sw1),
			"a switch probe's detail, with its four per-yield figures");
		T_CHECK(one_eq(path2, "SELECT detail FROM v_probes WHERE ts_ms = 1700000002500", sw2),
			"... and without yields (per yield 0.0000, as printed)");
		T_CHECK(one_eq(path2, "SELECT '[' || detail || ']' FROM v_probes WHERE ts_ms = 1700000003500", "[]"),
			"a switch probe whose child never reported: an empty detail, as before");
		/* ---- 3: the report's bare read ---- */
		bare_matches(path2, run, 1700000001200, 1700000002600, "probes written now");
	}
	free(before);
	free(after);
	snprintf(sql, sizeof sql, "rm -rf '%s'", dir);
	if (system(sql) != 0)
		printf("      could not remove %s\n", dir);
	T_DONE();
}
