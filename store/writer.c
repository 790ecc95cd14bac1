/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * writer: the store, and the one owner of its state (store.h is the contract).  It opens, migrates
 * and locks the database, writes the run rows, queues the ticks and flushes them, and hands each of
 * the writer's files the part of the state that file works on:
 *
 *   tick.c          a tick assembled in memory (store_tick_*), against the tick context
 *   dims.c          the names and zones interned for it
 *   rollup_write.c  the minute and hour buckets closed as ticks arrive, and their rows
 *   write.c         the queue's rows in one transaction (write_trace.c: the trace's, write_cause.c:
 *                   the classified failures')
 *   statements.c    the prepared statements
 *   migrate.c       the database's integrity, the connection's settings, the migrations
 *   upgrade.c       an older database migrated in place, a backup first (store_upgrade)
 *   retain.c        deleting old raw rows in bounded slices
 *   write_facts.c   what a run records once for its comparisons (vm knobs, its own processes)
 *
 * Data flow: store_submit accounts a tick in the rollups and queues it; the flush writes every queued
 * tick in one transaction (write_ticks) and forgets them once it committed.  With a group set
 * (store_group), ticks are committed in groups: a transaction's fixed cost (BEGIN, COMMIT, the WAL
 * frames of the pages every tick touches) was most of a tick's insert cost (bench/RESULTS.md).
 */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "store/migrate.h"
#include "store/retain.h"
#include "store/rollup_write.h"
#include "store/statements.h"
#include "store/tick.h"
#include "store/write.h"
#include "store/write_facts.h"

/* While the DB refuses writes: retry this often, without waiting (a tick must never stall on it). */
#define RETRY_MS 1000

/* ------------------------------------------------------------ the store */

/*
 * The writer's one state, owned here: every other file of the writer is handed the part it works on
 * (the statements, the tick context, the rows last written, the rollup buckets) and nothing else.
 */
struct store {
	sqlite3 *db;                 /* NULL while suspended (store_suspend) */
	char *path;
	int lockfd;                  /* flock: one fpusoakd per database */
	struct stmts stmts;
	struct tick_ctx tc;          /* interned names and zones, what the last ticks held */
	struct rowlog rows;          /* the zone rows last written */
	struct rollacc acc;          /* the minute and the hour being filled */
	struct store_tick *qhead, *qtail;
	size_t qcount, qbytes, qmax;
	int64_t group_ms;            /* commit when the queue spans this much tick time; 0: every tick */
	int64_t group_run;           /* the run whose first tick was committed last (a new run's first is at once) */
	uint64_t dropped;
	int failing;                 /* last flush failed: log once per episode */
	int64_t retry_ms;            /* while failing: no new attempt before this (monotonic ms) */
};

/* ------------------------------------------------------------ open, lock */

struct store *store_open(const char *path, size_t queue_max_bytes, char *err, size_t errlen)
{
	struct store *st = calloc(1, sizeof *st);
	char e2[256];

	if (!st) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	st->lockfd = -1;
	st->qmax = queue_max_bytes;
	st->path = strdup(path);
	if (!st->path)
		goto fail;
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, st->db ? sqlite3_errmsg(st->db) : "cannot open");
		goto fail;
	}
	/*
	 * One fpusoakd per DB: a second one would mark the first one's run as
	 * crashed.  flock() is independent of SQLite's fcntl() locks on Linux.
	 */
	st->lockfd = open(path, O_RDONLY | O_CLOEXEC);
	if (st->lockfd < 0 || flock(st->lockfd, LOCK_EX | LOCK_NB) < 0) {
		snprintf(err, errlen, "%s: %s", path, errno == EWOULDBLOCK ?
			 "another fpusoakd is using this database" : strerror(errno));
		goto fail;
	}
	/*
	 * Opening waits longer for a lock than a tick does: after a crash the old daemon's web process
	 * or a reader may still hold the DB for a moment, and under load (60_crash.sh beside
	 * stress-ng) 100 ms was not enough for quick_check, which then refused a good database.
	 */
	sqlite3_busy_timeout(st->db, STORE_OPEN_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(st->db, 1);
	if (migrate_check(st->db, e2, sizeof e2) < 0) {
		snprintf(err, errlen, "%s: refusing to use this database (it is left untouched): %s", path, e2);
		goto fail;
	}
	if (migrate_settings(st->db, e2, sizeof e2) < 0) {
		snprintf(err, errlen, "%s: %s", path, e2);
		goto fail;
	}
	sqlite3_busy_timeout(st->db, STORE_OPEN_BUSY_TIMEOUT_MS);
	if (migrate_apply(st->db, e2, sizeof e2) < 0) {
		snprintf(err, errlen, "%s: %s", path, e2);
		goto fail;
	}
	if (stmts_prepare(&st->stmts, st->db, st->path, err, errlen) < 0)
		goto fail;
	if (dims_load(&st->tc.dims, st->db) < 0) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(st->db));
		goto fail;
	}
	sqlite3_busy_timeout(st->db, MIGRATE_BUSY_TIMEOUT_MS);
	return st;
fail:
	store_close(st);
	return NULL;
}

static int flush_queue(struct store *st);

void store_close(struct store *st)
{
	if (!st)
		return;
	if (st->qhead && st->db) {
		st->retry_ms = 0;
		sqlite3_busy_timeout(st->db, 1000);   /* last chance: worth a short wait */
		flush_queue(st);
	}
	if (st->qcount)
		log_warnx("database: %zu tick(s) could not be written before exit", st->qcount);
	while (st->qhead) {
		struct store_tick *n = st->qhead->next;
		tick_free(st->qhead);
		st->qhead = n;
	}
	stmts_finalize(&st->stmts);
	rollup_acc_free(&st->acc);
	if (st->db) {
		/* Leave a small WAL behind: the next open has less to replay. */
		sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
		sqlite3_close(st->db);
	}
	if (st->lockfd >= 0)
		close(st->lockfd);
	free(st->path);
	free(st);
}

const char *store_path(const struct store *st)
{
	return st->path;
}

int store_mark_crashed(struct store *st)
{
	char err[256];

	if (!st->db)
		return -1;
	const char *sql =
		"UPDATE runs SET end_reason = 'crash',"
		" ended_ms = COALESCE((SELECT max(ts_ms) FROM samples s WHERE s.run_id = runs.run_id), started_ms)"
		" WHERE ended_ms IS NULL"
		/* A run imported before it ended is not this daemon's: its writer may well still be running. */
		" AND run_id NOT IN (SELECT run_id FROM run_import)";

	if (migrate_exec(st->db, sql, err, sizeof err) < 0) {
		log_warnx("database: marking crashed runs: %s", err);
		return -1;
	}
	return sqlite3_changes(st->db);
}

/* ------------------------------------------------------------ run rows (written at once, not queued) */

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static int run_memory(struct store *st, int64_t run_id, const struct store_run *r);

int store_run_begin(struct store *st, const struct store_run *r, int64_t *run_id)
{
	const char *sql =
		"INSERT INTO runs(label, started_ms, pid, version, boot_id, hostname, kernel_release,"
		" kernel_version, cmdline, hypervisor, guest_type, cpu_model, fpu_features, xstate_bytes,"
		" xstate_detail, mem_total_kb, page_size, config, xen_domain, xen_domid, gfp_mode, cpu_model_kernel)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)";
	sqlite3_stmt *s;
	int rc;

	if (!st->db)   /* suspended (store_suspend) */
		return -1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		log_warnx("database: %s", sqlite3_errmsg(st->db));
		return -1;
	}
	bind_text_or_null(s, 1, r->label);
	sqlite3_bind_int64(s, 2, r->started_ms);
	sqlite3_bind_int64(s, 3, r->pid);
	bind_text_or_null(s, 4, r->version);
	bind_text_or_null(s, 5, r->boot_id);
	bind_text_or_null(s, 6, r->hostname);
	bind_text_or_null(s, 7, r->kernel_release);
	bind_text_or_null(s, 8, r->kernel_version);
	bind_text_or_null(s, 9, r->cmdline);
	bind_text_or_null(s, 10, r->hypervisor);
	bind_text_or_null(s, 11, r->guest_type);
	bind_text_or_null(s, 12, r->cpu_model);
	bind_text_or_null(s, 13, r->fpu_features);
	sqlite3_bind_int64(s, 14, r->xstate_bytes);
	bind_text_or_null(s, 15, r->xstate_detail);
	sqlite3_bind_int64(s, 16, r->mem_total_kb);
	sqlite3_bind_int64(s, 17, r->page_size);
	bind_text_or_null(s, 18, r->config);
	bind_text_or_null(s, 19, r->xen_domain);
	/* An id without a domain is a zero-initialised struct, not domain 0. */
	if (r->xen_domain && r->xen_domid >= 0)
		sqlite3_bind_int64(s, 20, r->xen_domid);
	else
		sqlite3_bind_null(s, 20);
	bind_text_or_null(s, 21, r->gfp_mode);
	bind_text_or_null(s, 22, r->cpu_model_kernel);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		log_warnx("database: recording the run: %s", sqlite3_errmsg(st->db));
		return -1;
	}
	*run_id = sqlite3_last_insert_rowid(st->db);
	/* The run goes on without its memory row (logged): it only describes the machine. */
	run_memory(st, *run_id, r);
	return 0;
}

static void bind_kb(sqlite3_stmt *s, int i, int64_t kb)
{
	if (kb > 0)
		sqlite3_bind_int64(s, i, kb);
	else
		sqlite3_bind_null(s, i);
}

/* The run's memory row (schema 016); none when nothing is known (a run of a test, an old caller).  0 or -1
 * (logged). */
static int run_memory(struct store *st, int64_t run_id, const struct store_run *r)
{
	const char *sql = "INSERT INTO run_memory(run_id, domain_kb, present_kb, mem_total_kb, mem_free_kb,"
			  " mem_available_kb) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
	sqlite3_stmt *s;
	int rc;

	if (r->domain_kb <= 0 && r->present_kb <= 0 && r->mem_free_kb <= 0 && r->mem_available_kb <= 0)
		return 0;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		log_warnx("database: %s", sqlite3_errmsg(st->db));
		return -1;
	}
	sqlite3_bind_int64(s, 1, run_id);
	bind_kb(s, 2, r->domain_kb);
	bind_kb(s, 3, r->present_kb);
	bind_kb(s, 4, r->mem_total_kb);
	bind_kb(s, 5, r->mem_free_kb);
	bind_kb(s, 6, r->mem_available_kb);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		log_warnx("database: recording the run's memory: %s", sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

int store_run_end(struct store *st, int64_t run_id, int64_t ended_ms, const char *reason)
{
	sqlite3_stmt *s;
	int rc;
	char err[256];

	/* The run's end is written at once: a suspended writer comes back for it. */
	if (!st->db && store_resume(st, err, sizeof err) < 0) {
		log_warnx("database: recording the end of run %lld: %s", (long long)run_id, err);
		return -1;
	}
	flush_queue(st);
	if (sqlite3_prepare_v2(st->db, "UPDATE runs SET ended_ms = ?1, end_reason = ?2 WHERE run_id = ?3",
			       -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, ended_ms);
	sqlite3_bind_text(s, 2, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, run_id);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		log_warnx("database: recording the end of run %lld: %s", (long long)run_id, sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

int store_run_note(struct store *st, int64_t run_id, int64_t ts_ms, const char *kind, const char *text)
{
	sqlite3_stmt *s;
	int rc;

	if (!st->db)   /* suspended (store_suspend) */
		return -1;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO run_notes(run_id, ts_ms, kind, text) VALUES (?1, ?2, ?3, ?4)",
			       -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, ts_ms);
	sqlite3_bind_text(s, 3, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 4, text, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* What a run records once for its comparisons: write_facts.c, on this store's connection. */
int store_run_vm(struct store *st, int64_t run_id, const char *name, const char *value)
{
	return st->db ? facts_run_vm(st->db, run_id, name, value) : -1;   /* -1 while suspended */
}

int store_run_proc(struct store *st, int64_t run_id, int64_t ts_ms, const char *role, int64_t pid, const char *comm,
		   const char *cgroup)
{
	return st->db ? facts_run_proc(st->db, run_id, ts_ms, role, pid, comm, cgroup) : -1;
}

int store_churn_info(struct store *st, int64_t run_id, const char *fpu_kind, int amx_ok, const char *cgroup,
		     int64_t pop_cap, uint64_t seed, const char *note)
{
	sqlite3_stmt *s;
	int rc;

	if (!st->db)   /* suspended (store_suspend) */
		return -1;

	if (sqlite3_prepare_v2(st->db, "INSERT OR REPLACE INTO churn_info(run_id, fpu_kind, amx_ok, cgroup, pop_cap,"
				       " seed, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_text(s, 2, fpu_kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 3, amx_ok);
	sqlite3_bind_text(s, 4, cgroup, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 5, pop_cap);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)seed);
	sqlite3_bind_text(s, 7, note, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		log_warnx("database: recording churn info: %s", sqlite3_errmsg(st->db));
	return rc == SQLITE_DONE ? 0 : -1;
}

int store_confinement(struct store *st, int64_t run_id, const struct store_confinement *c)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "UPDATE churn_info SET cgroup_group = ?2, cgroup_pids_group = ?3,"
				       " cgroup_memory_max = ?4, cgroup_pids_max = ?5, unconfined_reason = ?6,"
				       " confinement_exact = 1 WHERE run_id = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	if (c->confined) {
		sqlite3_bind_text(s, 2, c->group, -1, SQLITE_TRANSIENT);
		if (c->pids_group && c->pids_group[0])
			sqlite3_bind_text(s, 3, c->pids_group, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)c->memory_max);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)c->pids_max);
	} else
		sqlite3_bind_text(s, 6, c->reason ? c->reason : "no cgroup", -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		log_warnx("database: recording the confinement: %s", sqlite3_errmsg(st->db));
	return rc == SQLITE_DONE ? 0 : -1;
}

int store_fragment_info(struct store *st, int64_t run_id, const char *level, uint64_t base_bytes, uint64_t cap_bytes,
			uint64_t keep_cap_bytes, const char *recipe)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT OR REPLACE INTO fragment_info(run_id, level, base_bytes, cap_bytes,"
				       " keep_cap_bytes, recipe) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_text(s, 2, level, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)base_bytes);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)cap_bytes);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)keep_cap_bytes);
	sqlite3_bind_text(s, 6, recipe, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		log_warnx("database: recording the fragmenting load's recipe: %s", sqlite3_errmsg(st->db));
	return rc == SQLITE_DONE ? 0 : -1;
}

int store_kmsg_cursor(struct store *st, const char *boot_id, uint64_t *seq)
{
	sqlite3_stmt *s;
	int rc;

	if (!st->db)   /* suspended (store_suspend) */
		return -1;

	if (sqlite3_prepare_v2(st->db, "SELECT last_seq FROM kmsg_cursor WHERE boot_id = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, boot_id, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*seq = (uint64_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

/* ------------------------------------------------------------ reads for the status line */

int64_t store_sample_count(struct store *st, int64_t run_id)
{
	sqlite3_stmt *s;
	int64_t n = -1;

	if (!st->db)   /* suspended (store_suspend) */
		return -1;

	if (sqlite3_prepare_v2(st->db, "SELECT ticks FROM runs WHERE run_id = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n < 0 ? -1 : n + (int64_t)st->qcount;
}

/* ------------------------------------------------------------ the bounded queue */

/* Write every queued tick in one transaction; on failure the queue is kept whole. */
static int flush_queue(struct store *st)
{
	int rc;

	if (!st->qhead)
		return 0;
	if (!st->db || (st->failing && clock_mono_ms() < st->retry_ms))
		return 1;
	rc = write_ticks(&st->rows, &st->stmts, &st->tc.dims, st->qhead);
	if (rc != SQLITE_OK) {
		if (!st->failing)
			log_warnx("database: cannot write (%s); keeping up to %zu KiB of samples in memory"
				  " until it can", sqlite3_errstr(rc), st->qmax / 1024);
		/* Retries must not stall the loop: no busy wait until writes succeed again. */
		sqlite3_busy_timeout(st->db, 0);
		st->failing = 1;
		st->retry_ms = clock_mono_ms() + RETRY_MS;
		return 1;
	}
	if (st->failing) {
		log_notice("database: writable again; wrote %zu queued tick(s)", st->qcount);
		sqlite3_busy_timeout(st->db, MIGRATE_BUSY_TIMEOUT_MS);
	}
	st->failing = 0;
	dims_committed(&st->tc.dims);
	while (st->qhead) {
		struct store_tick *n = st->qhead->next;
		tick_free(st->qhead);
		st->qhead = n;
	}
	st->qtail = NULL;
	st->qcount = 0;
	st->qbytes = 0;
	return 0;
}

/*
 * A dropped tick's changed counters (vmstat, kernel-signal counters) are stored only on change: the
 * next tick of the same run with a sample lists only what changed *since the dropped one*, so a
 * counter the next tick lacks still has the dropped tick's value.  Hand those on, or the change
 * would not reach the DB until the next hourly keyframe.  (Zone rows are compared at write time.)
 */
static void kv_hand_on(struct store *st, struct store_tick *from, struct store_tick *to)
{
	while (to && (to->no_sample || to->run_id != from->run_id))
		to = to->run_id == from->run_id ? to->next : NULL;
	if (!to || !from->nkv)
		return;
	for (int i = 0; i < from->nkv; i++) {
		int have = 0;
		for (int j = 0; j < to->nkv && !have; j++)
			have = to->kv[j].name_id == from->kv[i].name_id && to->kv[j].src == from->kv[i].src;
		if (have)
			continue;
		if (tick_add_kv(to, 1) < 0) {
			log_warnx("database: out of memory handing on a dropped tick's counters");
			return;
		}
		to->kv[to->nkv++] = from->kv[i];
		st->qbytes += sizeof *to->kv;
	}
}

void store_group(struct store *st, int64_t group_ms)
{
	st->group_ms = group_ms > 0 ? group_ms : 0;
}

/*
 * Whether the queue, t last, is to be committed now: a group spans at most group_ms of tick stamps
 * (so a SIGKILL loses at most that much), a new run's first tick and a tick carrying probes are
 * seen at once (a reader waits on them), a failing DB retries on its own clock, and a group never
 * grows to a quarter of the queue's bound (a group must never make the queue drop ticks).
 */
static int group_due(const struct store *st, const struct store_tick *t)
{
	int64_t span = t->ts_ms - st->qhead->ts_ms;

	return !st->group_ms || st->failing || t->run_id != st->group_run || t->no_sample || t->nprobes ||
	       span >= st->group_ms || span < 0 || st->qbytes > st->qmax / 4;
}

int store_submit(struct store *st, struct store_tick *t)
{
	int64_t run_id;

	if (!t->no_sample && rollup_account_tick(&st->acc, t) < 0)
		log_warnx("database: out of memory rolling up the tick at %lld", (long long)t->ts_ms);
	if (st->qtail)
		st->qtail->next = t;
	else
		st->qhead = t;
	st->qtail = t;
	st->qcount++;
	st->qbytes += t->bytes;
	while (st->qbytes > st->qmax && st->qhead != st->qtail) {
		struct store_tick *old = st->qhead;
		st->qhead = old->next;
		st->qbytes -= old->bytes;
		st->qcount--;
		st->dropped++;
		if (old->nrollb || old->nrollt)
			rollup_hand_on(old, st->qhead);
		kv_hand_on(st, old, st->qhead);
		if (st->dropped == 1 || st->dropped % 1000 == 0)
			log_warnx("database: sample queue full; dropped %llu oldest tick(s) so far",
				  (unsigned long long)st->dropped);
		tick_free(old);
	}
	if (!group_due(st, t))
		return 0;
	run_id = t->run_id;   /* t is freed once written */
	if (flush_queue(st) != 0)
		return 1;
	st->group_run = run_id;
	return 0;
}

int store_flush(struct store *st)
{
	st->retry_ms = 0;      /* an explicit flush always tries now */
	return flush_queue(st);
}

static int64_t db_status(sqlite3 *db, int op)
{
	int cur = 0, hi = 0;

	sqlite3_db_status(db, op, &cur, &hi, 0);
	return cur;
}

void store_memory(struct store *st, struct store_memory *out)
{
	sqlite3_int64 cur = 0, hi = 0;

	memset(out, 0, sizeof *out);
	sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &cur, &hi, 0);
	out->sqlite_now = cur;
	out->sqlite_peak = hi;
	if (!st->db)
		return;
	out->cache = db_status(st->db, SQLITE_DBSTATUS_CACHE_USED);
	out->schema = db_status(st->db, SQLITE_DBSTATUS_SCHEMA_USED);
	out->statements = db_status(st->db, SQLITE_DBSTATUS_STMT_USED);
}

/* ------------------------------------------------------------ letting go of the DB for a while */

int store_suspend(struct store *st)
{
	if (!st->db)
		return 0;
	/* What is queued goes first; a DB that refuses it keeps it queued, in memory, as ever. */
	flush_queue(st);
	/* Empty the WAL: on a tmpfs its pages are memory the fill could use. */
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	stmts_finalize(&st->stmts);
	sqlite3_close(st->db);
	st->db = NULL;
	/* Schema, statements and page cache are gone; hand the heap pages they held back to the kernel. */
	sqlite3_release_memory(INT32_MAX);
	return 1;
}

int store_resume(struct store *st, char *err, size_t errlen)
{
	char e2[256];

	if (st->db)
		return 0;
	if (sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", st->path, st->db ? sqlite3_errmsg(st->db) : "cannot open");
		goto fail;
	}
	if (migrate_settings(st->db, e2, sizeof e2) < 0) {
		snprintf(err, errlen, "%s: %s", st->path, e2);
		goto fail;
	}
	if (stmts_prepare(&st->stmts, st->db, st->path, err, errlen) < 0)
		goto fail;
	st->retry_ms = 0;
	flush_queue(st);
	return 0;
fail:
	stmts_finalize(&st->stmts);
	sqlite3_close(st->db);
	st->db = NULL;
	return -1;
}

int store_suspended(const struct store *st)
{
	return st->db == NULL;
}

size_t store_queued(const struct store *st)
{
	return st->failing || !st->db ? st->qcount : 0;
}

size_t store_queued_bytes(const struct store *st)
{
	return st->qbytes;
}

uint64_t store_dropped(const struct store *st)
{
	return st->dropped;
}

/* ------------------------------------------------------------ ticks, rollups, retention */

struct store_tick *store_tick_new(struct store *st, int64_t run_id, int64_t ts_ms)
{
	(void)st;
	return tick_new(run_id, ts_ms);
}

int store_tick_buddyinfo(struct store *st, struct store_tick *t, const struct buddyinfo *bi)
{
	return tick_buddyinfo(&st->tc, t, bi);
}

int store_tick_vmstat(struct store *st, struct store_tick *t, const struct kv_set *vm)
{
	return tick_vmstat(&st->tc, t, vm);
}

int store_tick_meminfo(struct store *st, struct store_tick *t, const struct kv_set *mi)
{
	return tick_meminfo(&st->tc, t, mi);
}

int store_tick_counter(struct store *st, struct store_tick *t, const char *name, uint64_t value)
{
	return tick_counter(&st->tc, t, name, value);
}

int store_tick_pagetypeinfo(struct store *st, struct store_tick *t, const struct pagetypeinfo *p, uint32_t cost_us)
{
	return tick_pagetypeinfo(&st->tc, t, p, cost_us);
}

int store_tick_slabinfo(struct store *st, struct store_tick *t, const struct slabinfo *s, uint32_t cost_us)
{
	return tick_slabinfo(&st->tc, t, s, cost_us);
}

int store_tick_request(struct store *st, struct store_tick *t, int norders, const struct store_request *r)
{
	return tick_request(&st->tc, t, norders, r);
}

int store_tick_atomic(struct store *st, struct store_tick *t, int node, const char *zone, int norders,
		      uint32_t atomic_mask, uint32_t kernel_mask, int64_t margin0, int64_t kernel_margin0,
		      int legacy)
{
	return tick_atomic(&st->tc, t, node, zone, norders, atomic_mask, kernel_mask, margin0, kernel_margin0, legacy);
}

int store_rollup(struct store *st, int64_t run_id, int64_t now_ms)
{
	struct store_tick *t;
	int failed;

	/* Buckets close as ticks are submitted; only the run's end has work: its partial buckets. */
	if (now_ms != INT64_MAX)
		return 0;
	if (!(t = rollup_final(&st->acc, run_id, &failed)))
		return failed ? -1 : 0;
	return store_submit(st, t) == 0 ? 0 : 1;
}

int64_t store_retain(struct store *st, int64_t cutoff_ms)
{
	/* Suspended, or failing (its ticks wait in memory).  A group being filled is newer than any cutoff,
	 * and retention never deletes what the minute rollup has not consumed (retain.c). */
	if (!st->db || st->failing)
		return 0;
	return retain(st->db, &st->stmts, &st->tc.dims, cutoff_ms);
}
