/* store: the SQLite writer; see store.h for the contract. */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "store/fields.h"
#include "store/migrations.h"
#include "store/rollup.h"
#include "common/clock.h"

/* How long one write may wait for another writer's lock while all is well. */
#define BUSY_TIMEOUT_MS 100
/* While the DB refuses writes: retry this often, without waiting (a tick must never stall on it). */
#define RETRY_MS 1000

/*
 * vmstat counters, and a zone's buddyinfo and atomic-risk rows, are stored on
 * change; every KEYFRAME_MS all of them are stored so that any window of
 * history finds a starting value near it.
 */
#define KEYFRAME_MS (3600 * 1000)
#define MAX_NAMES 1024
#define MAX_ZONES 256

/* The meminfo fields that matter for fragmentation and churn: one column each (store/fields.h). */
#define X_NAME(i, name, col) name,
static const char *const MEMINFO_KEEP[STORE_NMEMINFO] = { STORE_MEMINFO_FIELDS(X_NAME) };
#undef X_NAME

enum stmt_id {
	S_SAMPLE, S_BUDDY, S_VMSTAT, S_NAME, S_ZONE, S_BEGIN, S_COMMIT, S_ROLLBACK,
	S_EVENT, S_CURSOR, S_COUNTER, S_PTFREE, S_SLOW, S_SLAB, S_ATOMIC, S_PROBE,
	S_HAS_SAMPLE, S_TICKS, S_ROLL_BUDDY, S_ROLL_WIDE, S_ROLL_TICK, S_ROLL_STATE,
	S_COUNT
};

#define X_COL(i, name, col) ", " #col
#define X_CCOL(i, col) ", " #col
#define X_SUM(i, name, col) ", " #col "_sum"
#define X_CSUM(i, col) ", " #col "_sum"
#define X_SUMUP(i, name, col) ", " #col "_sum = CASE WHEN " #col "_sum IS NULL OR excluded." #col "_sum IS NULL" \
	" THEN NULL ELSE " #col "_sum + excluded." #col "_sum END"
#define X_CSUMUP(i, col) ", " #col "_sum = coalesce(" #col "_sum, 0) + coalesce(excluded." #col "_sum, 0)"
/* ?1 run, ?2 ts, ?3 sample_us, then the meminfo columns, then the churn columns. */
#define SAMPLE_PARAMS "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, " \
	"?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37"
#define ROLL_TICK_PARAMS "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, " \
	"?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37"

static const char *const STMT_SQL[S_COUNT] = {
	[S_SAMPLE] = "INSERT OR REPLACE INTO samples(run_id, ts_ms, sample_us" STORE_MEMINFO_FIELDS(X_COL)
		     STORE_CHURN_FIELDS(X_CCOL) STORE_VMSTAT_HOT(X_COL) ") VALUES (" SAMPLE_PARAMS ")",
	[S_BUDDY] = "INSERT OR REPLACE INTO buddy(run_id, ts_ms, zone_id, norders, o0, o1, o2, o3, o4,"
		    " o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
		    " ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
	[S_VMSTAT] = "INSERT OR REPLACE INTO vmstat(run_id, ts_ms, name_id, value) VALUES (?1, ?2, ?3, ?4)",
	[S_NAME] = "INSERT OR IGNORE INTO names(name_id, source, name) VALUES (?1, ?2, ?3)",
	[S_ZONE] = "INSERT OR IGNORE INTO zones(zone_id, node, name) VALUES (?1, ?2, ?3)",
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_EVENT] = "INSERT INTO kmsg_events(run_id, ts_ms, boot_id, seq, kind, comm, pid, page_order, gfp_mask,"
		    " gfp_flags, nodemask, constraint_info, count, raw) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
		    " ?10, ?11, ?12, ?13, ?14)",
	[S_CURSOR] = "INSERT OR REPLACE INTO kmsg_cursor(boot_id, last_seq) VALUES (?1, ?2)",
	[S_COUNTER] = "INSERT OR REPLACE INTO counters(run_id, ts_ms, name_id, value) VALUES (?1, ?2, ?3, ?4)",
	[S_PTFREE] = "INSERT OR REPLACE INTO pagetype_free(run_id, ts_ms, zone_id, type_id, norders, capped_mask,"
		     " blocks, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15) VALUES (?1, ?2,"
		     " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
	[S_SLOW] = "INSERT OR REPLACE INTO slow_samples(run_id, ts_ms, pageblock_order, pagetype_us, slabinfo_us)"
		   " VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_SLAB] = "INSERT OR REPLACE INTO slab(run_id, ts_ms, name_id, active_objs, num_objs, objsize, objperslab,"
		   " pagesperslab) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[S_PROBE] = "INSERT OR REPLACE INTO probes(run_id, ts_ms, kind, result, stop_reason, duration_ms, detail,"
		    " buddyinfo_before) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[S_ATOMIC] = "INSERT OR REPLACE INTO atomic_risk(run_id, ts_ms, zone_id, norders, atomic_mask, kernel_mask,"
		     " margin0, kernel_margin0, legacy) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[S_HAS_SAMPLE] = "SELECT 1 FROM samples WHERE run_id = ?1 AND ts_ms = ?2",
	[S_TICKS] = "UPDATE runs SET ticks = ticks + 1 WHERE run_id = ?1",
	/* A bucket seen twice (the wall clock stepped back into it) is merged, not overwritten. */
	[S_ROLL_BUDDY] = "INSERT INTO buddy_rollup(run_id, tier, bucket_ms, zone_id, page_order, n, free_min, free_max,"
			 " free_sum, free_last, head_min, head_max, head_sum, head_last, unusable_max, atomic_n,"
			 " atomic_fail_n, atomic_only_n, kernel_fail_n, margin_min, kernel_margin_min) VALUES (?1, ?2, ?3,"
			 " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)"
			 " ON CONFLICT (run_id, tier, zone_id, page_order, bucket_ms) DO UPDATE SET n = n + excluded.n,"
			 " free_min = min(free_min, excluded.free_min), free_max = max(free_max, excluded.free_max),"
			 " free_sum = free_sum + excluded.free_sum, free_last = excluded.free_last,"
			 " head_min = min(head_min, excluded.head_min), head_max = max(head_max, excluded.head_max),"
			 " head_sum = head_sum + excluded.head_sum, head_last = excluded.head_last,"
			 " unusable_max = max(unusable_max, excluded.unusable_max),"
			 " atomic_n = coalesce(atomic_n, 0) + excluded.atomic_n,"
			 " atomic_fail_n = coalesce(atomic_fail_n, 0) + excluded.atomic_fail_n,"
			 " atomic_only_n = coalesce(atomic_only_n, 0) + excluded.atomic_only_n,"
			 " kernel_fail_n = coalesce(kernel_fail_n, 0) + excluded.kernel_fail_n,"
			 " margin_min = coalesce(min(margin_min, excluded.margin_min), margin_min, excluded.margin_min),"
			 " kernel_margin_min = coalesce(min(kernel_margin_min, excluded.kernel_margin_min),"
			 " kernel_margin_min, excluded.kernel_margin_min)",
	[S_ROLL_WIDE] = "INSERT INTO buddy_wide_rollup(run_id, tier, bucket_ms, zone_id, n, norders, f0, f1, f2, f3, f4, f5,"
			" f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11, h12,"
			" h13, h14, h15, u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, u12, u13, u14, u15) VALUES (?1, ?2,"
			" ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,"
			" ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39, ?40, ?41, ?42, ?43,"
			" ?44, ?45, ?46, ?47, ?48, ?49, ?50, ?51, ?52, ?53, ?54) ON CONFLICT (run_id, tier, zone_id,"
			" bucket_ms) DO UPDATE SET n = n + excluded.n, norders = max(norders, excluded.norders), f0 ="
			" coalesce(f0 + excluded.f0, f0, excluded.f0), f1 = coalesce(f1 + excluded.f1, f1, excluded.f1), f2 ="
			" coalesce(f2 + excluded.f2, f2, excluded.f2), f3 = coalesce(f3 + excluded.f3, f3, excluded.f3), f4 ="
			" coalesce(f4 + excluded.f4, f4, excluded.f4), f5 = coalesce(f5 + excluded.f5, f5, excluded.f5), f6 ="
			" coalesce(f6 + excluded.f6, f6, excluded.f6), f7 = coalesce(f7 + excluded.f7, f7, excluded.f7), f8 ="
			" coalesce(f8 + excluded.f8, f8, excluded.f8), f9 = coalesce(f9 + excluded.f9, f9, excluded.f9), f10 ="
			" coalesce(f10 + excluded.f10, f10, excluded.f10), f11 = coalesce(f11 + excluded.f11, f11,"
			" excluded.f11), f12 = coalesce(f12 + excluded.f12, f12, excluded.f12), f13 = coalesce(f13 +"
			" excluded.f13, f13, excluded.f13), f14 = coalesce(f14 + excluded.f14, f14, excluded.f14), f15 ="
			" coalesce(f15 + excluded.f15, f15, excluded.f15), h0 = coalesce(h0 + excluded.h0, h0, excluded.h0),"
			" h1 = coalesce(h1 + excluded.h1, h1, excluded.h1), h2 = coalesce(h2 + excluded.h2, h2, excluded.h2),"
			" h3 = coalesce(h3 + excluded.h3, h3, excluded.h3), h4 = coalesce(h4 + excluded.h4, h4, excluded.h4),"
			" h5 = coalesce(h5 + excluded.h5, h5, excluded.h5), h6 = coalesce(h6 + excluded.h6, h6, excluded.h6),"
			" h7 = coalesce(h7 + excluded.h7, h7, excluded.h7), h8 = coalesce(h8 + excluded.h8, h8, excluded.h8),"
			" h9 = coalesce(h9 + excluded.h9, h9, excluded.h9), h10 = coalesce(h10 + excluded.h10, h10,"
			" excluded.h10), h11 = coalesce(h11 + excluded.h11, h11, excluded.h11), h12 = coalesce(h12 +"
			" excluded.h12, h12, excluded.h12), h13 = coalesce(h13 + excluded.h13, h13, excluded.h13), h14 ="
			" coalesce(h14 + excluded.h14, h14, excluded.h14), h15 = coalesce(h15 + excluded.h15, h15,"
			" excluded.h15), u0 = coalesce(max(u0, excluded.u0), u0, excluded.u0), u1 = coalesce(max(u1,"
			" excluded.u1), u1, excluded.u1), u2 = coalesce(max(u2, excluded.u2), u2, excluded.u2), u3 ="
			" coalesce(max(u3, excluded.u3), u3, excluded.u3), u4 = coalesce(max(u4, excluded.u4), u4,"
			" excluded.u4), u5 = coalesce(max(u5, excluded.u5), u5, excluded.u5), u6 = coalesce(max(u6,"
			" excluded.u6), u6, excluded.u6), u7 = coalesce(max(u7, excluded.u7), u7, excluded.u7), u8 ="
			" coalesce(max(u8, excluded.u8), u8, excluded.u8), u9 = coalesce(max(u9, excluded.u9), u9,"
			" excluded.u9), u10 = coalesce(max(u10, excluded.u10), u10, excluded.u10), u11 = coalesce(max(u11,"
			" excluded.u11), u11, excluded.u11), u12 = coalesce(max(u12, excluded.u12), u12, excluded.u12), u13 ="
			" coalesce(max(u13, excluded.u13), u13, excluded.u13), u14 = coalesce(max(u14, excluded.u14), u14,"
			" excluded.u14), u15 = coalesce(max(u15, excluded.u15), u15, excluded.u15)",
	[S_ROLL_TICK] = "INSERT INTO tick_rollup(run_id, tier, bucket_ms, n, sample_us_sum" STORE_MEMINFO_FIELDS(X_SUM)
			", churn_n, population_max" STORE_CHURN_FIELDS(X_CSUM) ") VALUES (" ROLL_TICK_PARAMS ")"
			" ON CONFLICT (run_id, tier, bucket_ms) DO UPDATE SET n = n + excluded.n,"
			" sample_us_sum = sample_us_sum + excluded.sample_us_sum" STORE_MEMINFO_FIELDS(X_SUMUP)
			", churn_n = churn_n + excluded.churn_n,"
			" population_max = coalesce(max(population_max, excluded.population_max), population_max,"
			" excluded.population_max)" STORE_CHURN_FIELDS(X_CSUMUP),
	[S_ROLL_STATE] = "INSERT INTO rollup_state(run_id, tier, next_ms) VALUES (?1, ?2, ?3)"
			 " ON CONFLICT (run_id, tier) DO UPDATE SET next_ms = max(next_ms, excluded.next_ms)",
};

enum kv_src { SRC_VMSTAT, SRC_MEMINFO, SRC_COUNTER, SRC_MIGRATETYPE, SRC_SLAB, NSRC };

static const char *const SRC_NAME[NSRC] = { "vmstat", "meminfo", "counter", "migratetype", "slab" };

/* The slab caches a fork/exit churn allocates from, and the kmalloc sizes around them. */
static const char *const SLAB_KEEP[] = {
	"task_struct", "mm_struct", "signal_cache", "sighand_cache", "vm_area_struct", "files_cache",
	"fs_cache", "pid", "cred_jar", "anon_vma", "anon_vma_chain", "kmalloc-",
};

struct name_ent {
	char name[KV_NAME_MAX];
	uint8_t src;
	uint8_t persisted;
	uint8_t have_last;   /* change detection (vmstat, counters) */
	uint64_t last;
	int64_t last_run;    /* counters: a new run stores its first value */
};

struct zone_ent {
	int node;
	char name[ZONE_NAME_MAX];
	uint8_t persisted;
};

struct tick_kv {
	uint16_t name_id;
	uint8_t src;
	uint64_t value;
};

struct tick_buddy {
	uint16_t zone_id;
	uint8_t norders;
	uint64_t free[BUDDY_MAX_ORDER];
};

struct tick_event {
	int64_t ts_ms;
	uint64_t seq;
	char boot_id[40];
	struct kmsg_event ev;
	char *raw;
};

struct tick_ptfree {
	uint16_t zone_id, type_id;
	uint8_t norders;
	uint32_t capped_mask;
	uint64_t blocks;
	uint64_t free[PAGETYPEINFO_MAX_ORDER];
};

struct tick_slab {
	uint16_t name_id;
	uint64_t active, num, objsize, perslab, pages;
};

struct tick_atomic {
	uint16_t zone_id;
	uint8_t norders, legacy;
	uint32_t amask, kmask;
	int64_t margin0, kmargin0;
};

struct tick_probe {
	int64_t ts_ms, duration_ms;
	double result;
	char kind[16], stop_reason[64];
	char *detail, *buddy;
};

/* A completed rollup bucket travelling with the tick that completed it. */
struct tick_rollbuddy {
	int64_t run_id, tier, bucket_ms;
	uint16_t zone_id;
	uint8_t order;
	struct rollup_zo v;
};

struct tick_rolltick {
	int64_t run_id, tier, bucket_ms;
	struct rollup_ticks v;
};

struct store_tick {
	struct store_tick *next;
	int no_sample;        /* carries only rollup rows (the run's last, partial buckets) */
	uint32_t mem_mask;    /* bit k: mem[k] was read */
	uint32_t vmhot_mask;  /* bit k: vmhot[k] was read */
	uint64_t vmhot[STORE_NVMHOT];
	int64_t mem[STORE_NMEMINFO];
	int nrollb, nrollt;
	struct tick_rollbuddy *rollb;
	struct tick_rolltick *rollt;
	int have_churn;
	struct store_churn churn;
	int nprobes;
	struct tick_probe *probes;
	int64_t run_id, ts_ms;
	uint32_t sample_us;
	int nbuddy, nkv, nevents, nptfree, nslab, natomic;
	struct tick_buddy *buddy;
	struct tick_kv *kv;
	struct tick_event *events;
	struct tick_ptfree *ptfree;
	struct tick_slab *slab;
	struct tick_atomic *atomic;
	int have_slow, pageblock_order;
	int64_t pagetype_us, slabinfo_us;    /* -1: not read this tick */
	char cursor_boot[40];
	uint64_t cursor_seq;
	size_t bytes;        /* accounted against the queue bound */
};

/*
 * The zone row last written for a (run, zone): a tick's row is written only
 * when it differs (schema 006).  Kept at write time, not at submit, so a tick
 * dropped from a full queue never makes a later tick look unchanged.
 */
struct zone_seen {
	int64_t run_id, ts_ms, max_ts;    /* max_ts: a tick at or before it (clock stepped back) is always written */
};

struct zone_last {
	struct zone_seen bs, as;          /* of the buddy row, of the atomic-risk row */
	struct tick_buddy b;              /* norders 0: nothing in force (a gap row) */
	struct tick_atomic a;
};

struct store {
	sqlite3 *db;
	char *path;
	int lockfd;
	sqlite3_stmt *stmt[S_COUNT];
	struct name_ent names[MAX_NAMES];
	int nnames;
	struct zone_ent zones[MAX_ZONES];
	int nzones;
	int64_t keyframe_run, keyframe_ms;
	struct store_tick *qhead, *qtail;
	size_t qcount, qbytes, qmax;
	uint64_t dropped;
	int failing;          /* last flush failed: log once per episode */
	int64_t retry_ms;     /* while failing: no new attempt before this (monotonic ms) */
	struct rollup_bucket acc[2];         /* the minute and the hour being filled */
	int64_t wlast_run, wlast_ts;         /* the newest sample row written (duplicate check) */
	struct zone_last zlast[MAX_ZONES];   /* per zone_id */
	struct zone_last zsaved[MAX_ZONES];  /* zlast at BEGIN: restored when the transaction fails */
};

static int step_reset(struct store *st, enum stmt_id id);

static void tick_free(struct store_tick *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nevents; i++)
		free(t->events[i].raw);
	free(t->events);
	for (int i = 0; i < t->nprobes; i++) {
		free(t->probes[i].detail);
		free(t->probes[i].buddy);
	}
	free(t->probes);
	free(t->ptfree);
	free(t->slab);
	free(t->atomic);
	free(t->buddy);
	free(t->rollb);
	free(t->rollt);
	free(t->kv);
	free(t);
}

/* Grow *arr by one element of size sz (counted in t->bytes); pointer to the new zeroed element or NULL. */
static void *tick_grow(struct store_tick *t, void **arr, int *n, size_t sz)
{
	char *a = realloc(*arr, (size_t)(*n + 1) * sz);

	if (!a)
		return NULL;
	*arr = a;
	memset(a + (size_t)*n * sz, 0, sz);
	t->bytes += sz;
	return a + (size_t)(*n)++ * sz;
}

static int exec_sql(sqlite3 *db, const char *sql, char *err, size_t errlen)
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

/* PRAGMA quick_check: "ok" or the first problem. Never repairs anything. */
static int check_integrity(sqlite3 *db, char *err, size_t errlen)
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

static int migrate(sqlite3 *db, char *err, size_t errlen)
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

		if (m->version <= have)
			continue;
		if (exec_sql(db, "BEGIN IMMEDIATE", err, errlen) < 0)
			return -1;
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", m->version);
		if (exec_sql(db, m->sql, e2, sizeof e2) < 0 || exec_sql(db, sql, e2, sizeof e2) < 0 ||
		    exec_sql(db, "COMMIT", e2, sizeof e2) < 0) {
			snprintf(err, errlen, "migration %s failed: %s", m->name, e2);
			exec_sql(db, "ROLLBACK", e2, sizeof e2);
			return -1;
		}
		log_info("database: applied migration %s", m->name);
	}
	return 0;
}

static int load_dimensions(struct store *st)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, "SELECT name_id, source, name FROM names", -1, &s, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int id = sqlite3_column_int(s, 0);
		const char *src = (const char *)sqlite3_column_text(s, 1);
		const char *name = (const char *)sqlite3_column_text(s, 2);
		if (id < 0 || id >= MAX_NAMES || !src || !name)
			continue;
		snprintf(st->names[id].name, sizeof st->names[id].name, "%s", name);
		st->names[id].src = SRC_VMSTAT;
		for (int k = 0; k < NSRC; k++)
			if (strcmp(src, SRC_NAME[k]) == 0)
				st->names[id].src = (uint8_t)k;
		st->names[id].persisted = 1;
		if (id >= st->nnames)
			st->nnames = id + 1;
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(st->db, "SELECT zone_id, node, name FROM zones", -1, &s, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int id = sqlite3_column_int(s, 0);
		const char *name = (const char *)sqlite3_column_text(s, 2);
		if (id < 0 || id >= MAX_ZONES || !name)
			continue;
		st->zones[id].node = sqlite3_column_int(s, 1);
		snprintf(st->zones[id].name, sizeof st->zones[id].name, "%s", name);
		st->zones[id].persisted = 1;
		if (id >= st->nzones)
			st->nzones = id + 1;
	}
	sqlite3_finalize(s);
	return 0;
}

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
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(st->db, 1);
	if (check_integrity(st->db, e2, sizeof e2) < 0) {
		snprintf(err, errlen, "%s: refusing to use this database (it is left untouched): %s", path, e2);
		goto fail;
	}
	/*
	 * 2 MiB of page cache: a tick appends to ~6 B-tree pages (one wide sample row, per-zone rows),
	 * so the writer's working set is a few dozen pages; a bigger cache only lengthened the RSS
	 * warm-up (bench/RESULTS.md, soak).
	 */
	if (exec_sql(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
			     " PRAGMA foreign_keys=OFF; PRAGMA cache_size=-2048;"
			     " PRAGMA journal_size_limit=16777216;", e2, sizeof e2) < 0) {
		snprintf(err, errlen, "%s: %s", path, e2);
		goto fail;
	}
	if (migrate(st->db, e2, sizeof e2) < 0) {
		snprintf(err, errlen, "%s: %s", path, e2);
		goto fail;
	}
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v3(st->db, STMT_SQL[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[i], NULL)
		    != SQLITE_OK) {
			snprintf(err, errlen, "%s: preparing statement: %s", path, sqlite3_errmsg(st->db));
			goto fail;
		}
	if (load_dimensions(st) < 0) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(st->db));
		goto fail;
	}
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
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	rollup_free(&st->acc[0]);
	rollup_free(&st->acc[1]);
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
	const char *sql =
		"UPDATE runs SET end_reason = 'crash',"
		" ended_ms = COALESCE((SELECT max(ts_ms) FROM samples s WHERE s.run_id = runs.run_id), started_ms)"
		" WHERE ended_ms IS NULL";

	if (exec_sql(st->db, sql, err, sizeof err) < 0) {
		log_warnx("database: marking crashed runs: %s", err);
		return -1;
	}
	return sqlite3_changes(st->db);
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

int store_run_begin(struct store *st, const struct store_run *r, int64_t *run_id)
{
	const char *sql =
		"INSERT INTO runs(label, started_ms, pid, version, boot_id, hostname, kernel_release,"
		" kernel_version, cmdline, hypervisor, guest_type, cpu_model, fpu_features, xstate_bytes,"
		" xstate_detail, mem_total_kb, page_size, config)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
	sqlite3_stmt *s;
	int rc;

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
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		log_warnx("database: recording the run: %s", sqlite3_errmsg(st->db));
		return -1;
	}
	*run_id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_run_end(struct store *st, int64_t run_id, int64_t ended_ms, const char *reason)
{
	sqlite3_stmt *s;
	int rc;

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

int64_t store_sample_count(struct store *st, int64_t run_id)
{
	sqlite3_stmt *s;
	int64_t n = -1;

	if (sqlite3_prepare_v2(st->db, "SELECT ticks FROM runs WHERE run_id = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n + (int64_t)st->qcount;
}

/* ------------------------------------------------------------ rollups and retention */

#define RETAIN_SLICE_MS (10 * 60 * 1000)   /* raw history deleted per call: ~600 ticks at 1 s */

static const int64_t TIER_MS[2] = { 60000, 3600000 };

static int64_t query_i64(struct store *st, const char *sql, int64_t a, int64_t b, int64_t dflt)
{
	sqlite3_stmt *s;
	int64_t v = dflt;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return dflt;
	sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_int64(s, 2, b);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static int exec_bind(struct store *st, const char *sql, int64_t a, int64_t b, int64_t c)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return sqlite3_errcode(st->db);
	sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_int64(s, 2, b);
	sqlite3_bind_int64(s, 3, c);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Copy a completed bucket's rows onto the tick that carries them to the DB; 0 or -1. */
static int rollup_emit(struct store_tick *t, const struct rollup_bucket *b, int tier)
{
	struct tick_rolltick *rt;

	if (!b->active)
		return 0;
	for (int z = 0; z < ROLLUP_MAX_ZONES; z++) {
		if (!b->z[z])
			continue;
		for (int k = 0; k < b->z[z]->norders; k++) {
			struct tick_rollbuddy *rb;
			if (b->z[z]->o[k].n == 0)
				continue;
			if (!(rb = tick_grow(t, (void **)&t->rollb, &t->nrollb, sizeof *rb)))
				return -1;
			*rb = (struct tick_rollbuddy){ b->run_id, TIER_MS[tier], b->bucket_ms, (uint16_t)z, (uint8_t)k,
						       b->z[z]->o[k] };
		}
	}
	if (!(rt = tick_grow(t, (void **)&t->rollt, &t->nrollt, sizeof *rt)))
		return -1;
	*rt = (struct tick_rolltick){ b->run_id, TIER_MS[tier], b->bucket_ms, b->t };
	return 0;
}

/*
 * Close the minute (and the hour) when t belongs to another bucket or run,
 * or always when t is NULL-run (final); the rows ride on t.  A minute folds
 * into its hour when it closes, so the hour needs no second pass.
 */
static int rollup_close(struct store *st, struct store_tick *t, int final)
{
	struct rollup_bucket *m = &st->acc[0], *h = &st->acc[1];
	int64_t mb = t->ts_ms - t->ts_ms % TIER_MS[0], hb = t->ts_ms - t->ts_ms % TIER_MS[1];

	if (m->active && (final || m->run_id != t->run_id || m->bucket_ms != mb)) {
		if (rollup_emit(t, m, 0) < 0)
			return -1;
		if (h->active && (h->run_id != m->run_id || h->bucket_ms != m->bucket_ms - m->bucket_ms % TIER_MS[1])) {
			if (rollup_emit(t, h, 1) < 0)
				return -1;
			rollup_reset(h, m->run_id, m->bucket_ms - m->bucket_ms % TIER_MS[1]);
		}
		if (!h->active)
			rollup_reset(h, m->run_id, m->bucket_ms - m->bucket_ms % TIER_MS[1]);
		if (rollup_merge(h, m) < 0)
			return -1;
		rollup_reset(m, t->run_id, mb);
	}
	if (h->active && (final || h->run_id != t->run_id || h->bucket_ms != hb)) {
		if (rollup_emit(t, h, 1) < 0)
			return -1;
		rollup_reset(h, t->run_id, hb);
	}
	if (!m->active)
		rollup_reset(m, t->run_id, mb);
	return 0;
}

/* The churn counts in store/fields.h's column order (counts beyond INT64_MAX do not occur). */
static void churn_values(const struct store_churn *c, int64_t v[STORE_NCHURN])
{
	const uint64_t u[STORE_NCHURN] = { c->population, c->spawned, c->spawn_failed_eagain, c->spawn_failed_enomem,
					   c->spawn_failed_other, c->exited, c->killed_sigkill, c->killed_sigsegv,
					   c->killed_sigill, c->killed_other, c->oom_killed, c->exited_error };

	for (int k = 0; k < STORE_NCHURN; k++)
		v[k] = (int64_t)u[k];
}

/* Account t in the minute being filled (closing buckets first); 0 or -1 (the tick is then not rolled up). */
static int rollup_account(struct store *st, struct store_tick *t)
{
	struct rollup_bucket *m = &st->acc[0];
	int64_t churn[STORE_NCHURN];

	if (rollup_close(st, t, 0) < 0)
		return -1;
	if (t->have_churn)
		churn_values(&t->churn, churn);
	rollup_add_tick(m, t->sample_us, t->mem, t->mem_mask, t->have_churn ? churn : NULL);
	for (int i = 0; i < t->nbuddy; i++)
		rollup_add_buddy(m, t->buddy[i].zone_id, t->buddy[i].norders, t->buddy[i].free);
	for (int i = 0; i < t->natomic; i++) {
		const struct tick_atomic *a = &t->atomic[i];
		rollup_add_atomic(m, a->zone_id, a->norders, a->amask, a->kmask, a->margin0, a->kmargin0, a->legacy);
	}
	return 0;
}

int store_rollup(struct store *st, int64_t run_id, int64_t now_ms)
{
	struct store_tick *t;

	/* Buckets close as ticks are submitted; only the run's end has work: its partial buckets. */
	if (now_ms != INT64_MAX || !st->acc[0].active || st->acc[0].run_id != run_id)
		return 0;
	if (!(t = store_tick_new(st, run_id, st->acc[0].bucket_ms)))
		return -1;
	t->no_sample = 1;
	if (rollup_close(st, t, 1) < 0) {
		tick_free(t);
		return -1;
	}
	st->acc[0].active = st->acc[1].active = 0;
	return store_submit(st, t) == 0 ? 0 : 1;
}

int store_headroom_minutes(struct store *st, int64_t run_id, int node, const char *zone, int order,
			   int64_t since_ms, double *x, double *y, int max)
{
	sqlite3_stmt *s;
	int n = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT r.bucket_ms, CAST(r.head_sum AS REAL) / r.n FROM buddy_rollup r"
				       " JOIN zones z USING (zone_id) WHERE r.run_id = ?1 AND r.tier = 60000"
				       " AND z.node = ?2 AND z.name = ?3 AND r.page_order = ?4 AND r.bucket_ms >= ?5"
				       " ORDER BY r.bucket_ms", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int(s, 2, node);
	sqlite3_bind_text(s, 3, zone, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, order);
	sqlite3_bind_int64(s, 5, since_ms);
	while (n < max && sqlite3_step(s) == SQLITE_ROW) {
		x[n] = (double)sqlite3_column_int64(s, 0);
		y[n] = sqlite3_column_double(s, 1);
		n++;
	}
	sqlite3_finalize(s);
	return n;
}

int64_t store_retain(struct store *st, int64_t cutoff_ms)
{
	/* Tables whose key starts (run_id, ts_ms): one range delete each. */
	static const char *const by_ts[] = {
		/* A run's last slow sample stays: the report's orders of interest (task_struct's slab
		 * order, the pageblock order) come from it. */
		"DELETE FROM pagetype_free WHERE run_id = ?1 AND ts_ms < ?2"
		" AND ts_ms < (SELECT max(ts_ms) FROM pagetype_free WHERE run_id = ?1)",
		"DELETE FROM slab WHERE run_id = ?1 AND ts_ms < ?2 AND ts_ms < (SELECT max(ts_ms) FROM slab WHERE run_id = ?1)",
		"DELETE FROM slow_samples WHERE run_id = ?1 AND ts_ms < ?2"
		" AND ts_ms < (SELECT max(ts_ms) FROM slow_samples WHERE run_id = ?1)",
		"DELETE FROM samples WHERE run_id = ?1 AND ts_ms < ?2",
	};
	/* Keyed (run_id, name_id, ts_ms): one range delete per name. */
	static const char *const by_name[] = {
		"DELETE FROM vmstat WHERE run_id = ?1 AND name_id = ?3 AND ts_ms < ?2",
	};
	/* Keyed (run_id, zone_id, ts_ms), change-only: the row in force at the cutoff stays. */
	static const char *const by_zone[] = {
		"DELETE FROM buddy WHERE run_id = ?1 AND zone_id = ?3 AND ts_ms < ?2 AND ts_ms < "
		"(SELECT max(ts_ms) FROM buddy WHERE run_id = ?1 AND zone_id = ?3 AND ts_ms <= ?2)",
		"DELETE FROM atomic_risk WHERE run_id = ?1 AND zone_id = ?3 AND ts_ms < ?2 AND ts_ms < "
		"(SELECT max(ts_ms) FROM atomic_risk WHERE run_id = ?1 AND zone_id = ?3 AND ts_ms <= ?2)",
	};
	sqlite3_stmt *s;
	int64_t run, oldest, upto, rolled, deleted = 0;
	int rc = SQLITE_OK;

	if (st->qcount || st->failing)
		return 0;
	if (sqlite3_prepare_v2(st->db, "SELECT run_id, min(ts_ms) FROM samples WHERE ts_ms < ?1 GROUP BY run_id"
				       " ORDER BY 2 LIMIT 1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, cutoff_ms);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return 0;
	}
	run = sqlite3_column_int64(s, 0);
	oldest = sqlite3_column_int64(s, 1);
	sqlite3_finalize(s);
	/* A bounded slice per call: the tick that follows never waits on a big delete. */
	upto = oldest + RETAIN_SLICE_MS < cutoff_ms ? oldest + RETAIN_SLICE_MS : cutoff_ms;
	/* Never delete raw rows the minute rollup has not consumed yet. */
	rolled = query_i64(st, "SELECT next_ms FROM rollup_state WHERE run_id = ?1 AND tier = ?2", run, 60000, 0);
	if (upto > rolled)
		upto = rolled;
	if (upto <= oldest || step_reset(st, S_BEGIN) != SQLITE_OK)
		return 0;
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_ts / sizeof by_ts[0]; i++) {
		rc = exec_bind(st, by_ts[i], run, upto, 0);
		deleted += sqlite3_changes(st->db);
	}
	for (int id = 0; rc == SQLITE_OK && id < st->nnames; id++)
		for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_name / sizeof by_name[0]; i++) {
			if (!st->names[id].name[0] || st->names[id].src != SRC_VMSTAT)
				continue;
			rc = exec_bind(st, by_name[i], run, upto, id);
			deleted += sqlite3_changes(st->db);
		}
	for (int id = 0; rc == SQLITE_OK && id < st->nzones; id++)
		for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_zone / sizeof by_zone[0]; i++) {
			rc = exec_bind(st, by_zone[i], run, upto, id);
			deleted += sqlite3_changes(st->db);
		}
	if (rc != SQLITE_OK || step_reset(st, S_COMMIT) != SQLITE_OK) {
		step_reset(st, S_ROLLBACK);
		return -1;
	}
	return deleted;
}

/* ------------------------------------------------------------ ticks */

/* Interned id of (src, name); new names are persisted by the next flush. -1 when full. */
static int name_id(struct store *st, uint8_t src, const char *name)
{
	for (int i = 0; i < st->nnames; i++)
		if (st->names[i].src == src && st->names[i].name[0] && strcmp(st->names[i].name, name) == 0)
			return i;
	if (st->nnames >= MAX_NAMES)
		return -1;
	snprintf(st->names[st->nnames].name, KV_NAME_MAX, "%s", name);
	st->names[st->nnames].src = src;
	return st->nnames++;
}

static int zone_id(struct store *st, int node, const char *name)
{
	for (int i = 0; i < st->nzones; i++)
		if (st->zones[i].node == node && strcmp(st->zones[i].name, name) == 0)
			return i;
	if (st->nzones >= MAX_ZONES)
		return -1;
	st->zones[st->nzones].node = node;
	snprintf(st->zones[st->nzones].name, ZONE_NAME_MAX, "%s", name);
	return st->nzones++;
}

struct store_tick *store_tick_new(struct store *st, int64_t run_id, int64_t ts_ms)
{
	struct store_tick *t = calloc(1, sizeof *t);

	(void)st;
	if (!t)
		return NULL;
	t->run_id = run_id;
	t->ts_ms = ts_ms;
	t->bytes = sizeof *t;
	t->pagetype_us = t->slabinfo_us = -1;
	return t;
}

void store_tick_cost(struct store_tick *t, uint32_t sample_us)
{
	t->sample_us = sample_us;
}

int store_tick_buddyinfo(struct store *st, struct store_tick *t, const struct buddyinfo *bi)
{
	struct tick_buddy *b = calloc((size_t)bi->nzones, sizeof *b);

	if (!b && bi->nzones)
		return -1;
	for (int i = 0; i < bi->nzones; i++) {
		int id = zone_id(st, bi->z[i].node, bi->z[i].zone);
		if (id < 0) {
			free(b);
			return -1;
		}
		b[i].zone_id = (uint16_t)id;
		b[i].norders = (uint8_t)bi->norders;
		memcpy(b[i].free, bi->z[i].free, sizeof b[i].free);
	}
	free(t->buddy);
	t->buddy = b;
	t->nbuddy = bi->nzones;
	t->bytes += (size_t)bi->nzones * sizeof *b;
	return 0;
}

static int tick_add_kv(struct store_tick *t, int n)
{
	struct tick_kv *kv = realloc(t->kv, (size_t)(t->nkv + n) * sizeof *kv);

	if (!kv)
		return -1;
	t->kv = kv;
	t->bytes += (size_t)n * sizeof *kv;
	return 0;
}

/* The vmstat counters worth a row: the ones that describe allocation, compaction, reclaim, OOM. */
static int vmstat_keep(const char *name)
{
	/*
	 * Not nr_free_pages, nr_slab_*, nr_kernel_stack, nr_page_table_pages: they
	 * move every second and are MemFree, SReclaimable/SUnreclaim, KernelStack
	 * and PageTables of the meminfo row, which is stored every tick anyway.
	 */
	static const char *const prefixes[] = {
		"compact_", "allocstall_", "pgalloc_", "pgmigrate_", "oom_kill", "thp_",
		"pgscan_", "pgsteal_", "kswapd_", "pageoutrun", "drop_", "pgfree",
		"pgfault", "pgmajfault", "workingset_refault",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

int store_tick_vmstat(struct store *st, struct store_tick *t, const struct kv_set *vm)
{
	int keyframe = t->run_id != st->keyframe_run || t->ts_ms - st->keyframe_ms >= KEYFRAME_MS;

	if (tick_add_kv(t, vm->n) < 0)
		return -1;
	if (keyframe) {
		st->keyframe_run = t->run_id;
		st->keyframe_ms = t->ts_ms;
	}
	for (int i = 0; i < vm->n; i++) {
		int id, k;
		struct name_ent *ne;

		if (!vmstat_keep(vm->e[i].name))
			continue;
		if ((k = store_vmstat_hot(vm->e[i].name)) >= 0) {
			t->vmhot[k] = vm->e[i].value;
			t->vmhot_mask |= 1u << k;
			continue;
		}
		id = name_id(st, SRC_VMSTAT, vm->e[i].name);
		if (id < 0)
			continue;
		ne = &st->names[id];
		if (!keyframe && ne->have_last && ne->last == vm->e[i].value)
			continue;
		ne->have_last = 1;
		ne->last = vm->e[i].value;
		t->kv[t->nkv++] = (struct tick_kv){ (uint16_t)id, SRC_VMSTAT, vm->e[i].value };
	}
	return 0;
}

int store_tick_meminfo(struct store *st, struct store_tick *t, const struct kv_set *mi)
{
	(void)st;
	t->mem_mask = 0;
	for (int k = 0; k < STORE_NMEMINFO; k++) {
		uint64_t v;
		if (kv_get(mi, MEMINFO_KEEP[k], &v) < 0)
			continue;
		/* kB values beyond INT64_MAX do not occur; store the bit pattern as vmstat does. */
		t->mem[k] = (int64_t)v;
		t->mem_mask |= 1u << k;
	}
	return 0;
}

int store_tick_event(struct store_tick *t, int64_t ts_ms, const char *boot_id, uint64_t seq,
		     const struct kmsg_event *ev, const char *raw, size_t raw_len)
{
	struct tick_event *e = tick_grow(t, (void **)&t->events, &t->nevents, sizeof *e);

	if (!e)
		return -1;
	if (raw_len > 1024)
		raw_len = 1024;
	e->raw = malloc(raw_len + 1);
	if (!e->raw) {
		t->nevents--;
		return -1;
	}
	memcpy(e->raw, raw, raw_len);
	e->raw[raw_len] = 0;
	t->bytes += raw_len + 1;
	e->ts_ms = ts_ms;
	e->seq = seq;
	snprintf(e->boot_id, sizeof e->boot_id, "%s", boot_id);
	e->ev = *ev;
	return 0;
}

int store_tick_churn(struct store_tick *t, const struct store_churn *c)
{
	t->churn = *c;
	t->have_churn = 1;
	return 0;
}

int store_tick_probe(struct store_tick *t, const struct store_probe *p)
{
	struct tick_probe *r = tick_grow(t, (void **)&t->probes, &t->nprobes, sizeof *r);

	if (!r)
		return -1;
	r->ts_ms = p->ts_ms;
	r->duration_ms = p->duration_ms;
	r->result = p->result;
	snprintf(r->kind, sizeof r->kind, "%s", p->kind);
	snprintf(r->stop_reason, sizeof r->stop_reason, "%s", p->stop_reason ? p->stop_reason : "");
	r->detail = strdup(p->detail ? p->detail : "");
	r->buddy = p->buddyinfo_before ? strdup(p->buddyinfo_before) : NULL;
	if (!r->detail || (p->buddyinfo_before && !r->buddy)) {
		free(r->detail);
		free(r->buddy);
		t->nprobes--;
		return -1;
	}
	t->bytes += strlen(r->detail) + (r->buddy ? strlen(r->buddy) : 0);
	return 0;
}

int store_churn_info(struct store *st, int64_t run_id, const char *fpu_kind, int amx_ok, const char *cgroup,
		     int64_t pop_cap, uint64_t seed, const char *note)
{
	sqlite3_stmt *s;
	int rc;

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

void store_tick_cursor(struct store_tick *t, const char *boot_id, uint64_t last_seq)
{
	snprintf(t->cursor_boot, sizeof t->cursor_boot, "%s", boot_id);
	t->cursor_seq = last_seq;
}

int store_tick_counter(struct store *st, struct store_tick *t, const char *name, uint64_t value)
{
	int id = name_id(st, SRC_COUNTER, name);
	struct name_ent *ne;

	if (id < 0)
		return -1;
	ne = &st->names[id];
	if (ne->have_last && ne->last == value && ne->last_run == t->run_id)
		return 0;
	if (tick_add_kv(t, 1) < 0)
		return -1;
	ne->have_last = 1;
	ne->last = value;
	ne->last_run = t->run_id;
	t->kv[t->nkv++] = (struct tick_kv){ (uint16_t)id, SRC_COUNTER, value };
	return 0;
}

int store_tick_pagetypeinfo(struct store *st, struct store_tick *t, const struct pagetypeinfo *p, uint32_t cost_us)
{
	for (int zi = 0; zi < p->nzones; zi++) {
		const struct pagetypeinfo_zone *z = &p->z[zi];
		int zid = zone_id(st, z->node, z->zone);
		if (zid < 0)
			return -1;
		for (int ty = 0; ty < p->ntypes; ty++) {
			int tid = name_id(st, SRC_MIGRATETYPE, p->type[ty]);
			struct tick_ptfree *r;
			if (tid < 0)
				return -1;
			r = tick_grow(t, (void **)&t->ptfree, &t->nptfree, sizeof *r);
			if (!r)
				return -1;
			r->zone_id = (uint16_t)zid;
			r->type_id = (uint16_t)tid;
			r->norders = (uint8_t)p->norders;
			r->blocks = z->blocks[ty];
			for (int k = 0; k < p->norders && k < PAGETYPEINFO_MAX_ORDER; k++) {
				r->free[k] = z->free[ty][k];
				if (z->capped[ty][k])
					r->capped_mask |= 1u << k;
			}
		}
	}
	t->have_slow = 1;
	t->pageblock_order = p->pageblock_order;
	t->pagetype_us = cost_us;
	return 0;
}

static int slab_keep(const char *name)
{
	for (size_t i = 0; i < sizeof SLAB_KEEP / sizeof SLAB_KEEP[0]; i++) {
		size_t n = strlen(SLAB_KEEP[i]);
		if (SLAB_KEEP[i][n - 1] == '-' ? strncmp(name, SLAB_KEEP[i], n) == 0 : strcmp(name, SLAB_KEEP[i]) == 0)
			return 1;
	}
	return 0;
}

int store_tick_slabinfo(struct store *st, struct store_tick *t, const struct slabinfo *sl, uint32_t cost_us)
{
	for (int i = 0; i < sl->n; i++) {
		const struct slabinfo_cache *c = &sl->c[i];
		struct tick_slab *r;
		int id;
		if (!slab_keep(c->name) || (id = name_id(st, SRC_SLAB, c->name)) < 0)
			continue;
		r = tick_grow(t, (void **)&t->slab, &t->nslab, sizeof *r);
		if (!r)
			return -1;
		*r = (struct tick_slab){ (uint16_t)id, c->active_objs, c->num_objs, c->objsize, c->objperslab,
					 c->pagesperslab };
	}
	if (!t->have_slow)
		t->pageblock_order = -1;
	t->have_slow = 1;
	t->slabinfo_us = cost_us;
	return 0;
}

int store_tick_atomic(struct store *st, struct store_tick *t, int node, const char *zone, int norders,
		      uint32_t atomic_mask, uint32_t kernel_mask, int64_t margin0, int64_t kernel_margin0,
		      int legacy)
{
	int zid = zone_id(st, node, zone);
	struct tick_atomic *r;

	if (zid < 0 || !(r = tick_grow(t, (void **)&t->atomic, &t->natomic, sizeof *r)))
		return -1;
	*r = (struct tick_atomic){ (uint16_t)zid, (uint8_t)norders, (uint8_t)(legacy != 0), atomic_mask,
				   kernel_mask, margin0, kernel_margin0 };
	return 0;
}

int store_kmsg_cursor(struct store *st, const char *boot_id, uint64_t *seq)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT last_seq FROM kmsg_cursor WHERE boot_id = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, boot_id, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*seq = (uint64_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

/* ------------------------------------------------------------ writing */

static int step_reset(struct store *st, enum stmt_id id)
{
	sqlite3_stmt *s = st->stmt[id];
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

static void bind_opt_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static int write_event(struct store *st, const struct store_tick *t, const struct tick_event *e)
{
	sqlite3_stmt *s = st->stmt[S_EVENT];
	const struct kmsg_event *ev = &e->ev;

	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, e->ts_ms);
	sqlite3_bind_text(s, 3, e->boot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)e->seq);
	sqlite3_bind_text(s, 5, kmsg_kind_name(ev->kind), -1, SQLITE_STATIC);
	/* COMM is whatever bytes a local user chose: a BLOB keeps them exactly. */
	sqlite3_bind_blob(s, 6, ev->comm, (int)ev->comm_len, SQLITE_STATIC);
	if (ev->pid >= 0)
		sqlite3_bind_int64(s, 7, ev->pid);
	if (ev->order >= 0)
		sqlite3_bind_int(s, 8, ev->order);
	if (ev->has_gfp)
		sqlite3_bind_int64(s, 9, (sqlite3_int64)ev->gfp_mask);
	bind_opt_text(s, 10, ev->gfp_flags);
	bind_opt_text(s, 11, ev->nodemask);
	bind_opt_text(s, 12, ev->constraint);
	if (ev->kind == KMSG_ALLOC_SUPPRESSED)
		sqlite3_bind_int64(s, 13, (sqlite3_int64)ev->count);
	sqlite3_bind_text(s, 14, e->raw, -1, SQLITE_STATIC);
	return step_reset(st, S_EVENT);
}

/* Everything a tick carries besides the fast sources. */
static int write_tick_slow(struct store *st, const struct store_tick *t)
{
	int rc;

	for (int i = 0; i < t->nevents; i++)
		if ((rc = write_event(st, t, &t->events[i])) != SQLITE_OK)
			return rc;
	if (t->cursor_boot[0]) {
		sqlite3_bind_text(st->stmt[S_CURSOR], 1, t->cursor_boot, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st->stmt[S_CURSOR], 2, (sqlite3_int64)t->cursor_seq);
		if ((rc = step_reset(st, S_CURSOR)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < t->nptfree; i++) {
		const struct tick_ptfree *r = &t->ptfree[i];
		sqlite3_stmt *s = st->stmt[S_PTFREE];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		sqlite3_bind_int(s, 3, r->zone_id);
		sqlite3_bind_int(s, 4, r->type_id);
		sqlite3_bind_int(s, 5, r->norders);
		sqlite3_bind_int64(s, 6, r->capped_mask);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)r->blocks);
		for (int k = 0; k < r->norders && k < PAGETYPEINFO_MAX_ORDER; k++)
			sqlite3_bind_int64(s, 8 + k, (sqlite3_int64)r->free[k]);
		if ((rc = step_reset(st, S_PTFREE)) != SQLITE_OK)
			return rc;
	}
	if (t->have_slow) {
		sqlite3_stmt *s = st->stmt[S_SLOW];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		if (t->pageblock_order >= 0)
			sqlite3_bind_int(s, 3, t->pageblock_order);
		if (t->pagetype_us >= 0)
			sqlite3_bind_int64(s, 4, t->pagetype_us);
		if (t->slabinfo_us >= 0)
			sqlite3_bind_int64(s, 5, t->slabinfo_us);
		if ((rc = step_reset(st, S_SLOW)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < t->nslab; i++) {
		const struct tick_slab *r = &t->slab[i];
		sqlite3_stmt *s = st->stmt[S_SLAB];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		sqlite3_bind_int(s, 3, r->name_id);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)r->active);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)r->num);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)r->objsize);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)r->perslab);
		sqlite3_bind_int64(s, 8, (sqlite3_int64)r->pages);
		if ((rc = step_reset(st, S_SLAB)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < t->nprobes; i++) {
		const struct tick_probe *r = &t->probes[i];
		sqlite3_stmt *s = st->stmt[S_PROBE];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, r->ts_ms);
		sqlite3_bind_text(s, 3, r->kind, -1, SQLITE_STATIC);
		sqlite3_bind_double(s, 4, r->result);
		sqlite3_bind_text(s, 5, r->stop_reason, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 6, r->duration_ms);
		sqlite3_bind_text(s, 7, r->detail, -1, SQLITE_STATIC);
		if (r->buddy)
			sqlite3_bind_text(s, 8, r->buddy, -1, SQLITE_STATIC);
		if ((rc = step_reset(st, S_PROBE)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}


static int write_dimensions(struct store *st)
{
	int rc;

	for (int i = 0; i < st->nnames; i++) {
		struct name_ent *ne = &st->names[i];
		if (ne->persisted || !ne->name[0])
			continue;
		sqlite3_bind_int(st->stmt[S_NAME], 1, i);
		sqlite3_bind_text(st->stmt[S_NAME], 2, SRC_NAME[ne->src], -1, SQLITE_STATIC);
		sqlite3_bind_text(st->stmt[S_NAME], 3, ne->name, -1, SQLITE_STATIC);
		if ((rc = step_reset(st, S_NAME)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < st->nzones; i++) {
		struct zone_ent *ze = &st->zones[i];
		if (ze->persisted)
			continue;
		sqlite3_bind_int(st->stmt[S_ZONE], 1, i);
		sqlite3_bind_int(st->stmt[S_ZONE], 2, ze->node);
		sqlite3_bind_text(st->stmt[S_ZONE], 3, ze->name, -1, SQLITE_STATIC);
		if ((rc = step_reset(st, S_ZONE)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* The sample row: cost, the meminfo columns, the churn columns; counted in runs.ticks when new. */
static int write_sample(struct store *st, const struct store_tick *t)
{
	sqlite3_stmt *s = st->stmt[S_SAMPLE];
	int rc, fresh = 1;

	/* Ticks arrive in time order; only a wall-clock step back can repeat a timestamp. */
	if (t->run_id == st->wlast_run && t->ts_ms <= st->wlast_ts) {
		sqlite3_bind_int64(st->stmt[S_HAS_SAMPLE], 1, t->run_id);
		sqlite3_bind_int64(st->stmt[S_HAS_SAMPLE], 2, t->ts_ms);
		fresh = sqlite3_step(st->stmt[S_HAS_SAMPLE]) != SQLITE_ROW;
		sqlite3_reset(st->stmt[S_HAS_SAMPLE]);
	}
	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, t->ts_ms);
	sqlite3_bind_int64(s, 3, t->sample_us);
	for (int k = 0; k < STORE_NMEMINFO; k++)
		if (t->mem_mask & (1u << k))
			sqlite3_bind_int64(s, 4 + k, t->mem[k]);
	if (t->have_churn) {
		int64_t v[STORE_NCHURN];
		churn_values(&t->churn, v);
		for (int k = 0; k < STORE_NCHURN; k++)
			sqlite3_bind_int64(s, 4 + STORE_NMEMINFO + k, v[k]);
	}
	for (int k = 0; k < STORE_NVMHOT; k++)
		if (t->vmhot_mask & (1u << k))
			sqlite3_bind_int64(s, 4 + STORE_NMEMINFO + STORE_NCHURN + k, (sqlite3_int64)t->vmhot[k]);
	if ((rc = step_reset(st, S_SAMPLE)) != SQLITE_OK)
		return rc;
	if (t->run_id != st->wlast_run || t->ts_ms > st->wlast_ts) {
		st->wlast_run = t->run_id;
		st->wlast_ts = t->ts_ms;
	}
	if (fresh) {
		sqlite3_bind_int64(st->stmt[S_TICKS], 1, t->run_id);
		if ((rc = step_reset(st, S_TICKS)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static void bind_opt_i64(sqlite3_stmt *s, int i, int have, int64_t v)
{
	if (have)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

/* The completed rollup buckets the tick carries, and the cursor retention reads. */
static int write_rollups(struct store *st, const struct store_tick *t)
{
	int rc;

	for (int i = 0; i < t->nrollb; i++) {
		const struct tick_rollbuddy *r = &t->rollb[i];
		const struct rollup_zo *o = &r->v;
		sqlite3_stmt *s = st->stmt[S_ROLL_BUDDY];
		const int64_t v[] = { r->run_id, r->tier, r->bucket_ms, r->zone_id, r->order, o->n,
				      o->free_min, o->free_max, o->free_sum, o->free_last, o->head_min, o->head_max,
				      o->head_sum, o->head_last, o->unusable_max, o->atomic_n, o->atomic_fail_n,
				      o->atomic_only_n, o->kernel_fail_n };
		int k;
		for (k = 0; k < (int)(sizeof v / sizeof v[0]); k++)
			sqlite3_bind_int64(s, k + 1, v[k]);
		bind_opt_i64(s, k + 1, o->has_margin, o->margin_min);
		bind_opt_i64(s, k + 2, o->has_margin, o->kernel_margin_min);
		if ((rc = step_reset(st, S_ROLL_BUDDY)) != SQLITE_OK)
			return rc;
	}
	/* The chart form: a zone's orders in one row (rows of one bucket and zone are consecutive). */
	for (int i = 0; i < t->nrollb;) {
		const struct tick_rollbuddy *r = &t->rollb[i];
		sqlite3_stmt *s = st->stmt[S_ROLL_WIDE];
		int j = i, norders = 0;
		sqlite3_bind_int64(s, 1, r->run_id);
		sqlite3_bind_int64(s, 2, r->tier);
		sqlite3_bind_int64(s, 3, r->bucket_ms);
		sqlite3_bind_int64(s, 4, r->zone_id);
		sqlite3_bind_int64(s, 5, r->v.n);
		for (; j < t->nrollb && t->rollb[j].run_id == r->run_id && t->rollb[j].tier == r->tier &&
		       t->rollb[j].bucket_ms == r->bucket_ms && t->rollb[j].zone_id == r->zone_id; j++) {
			const struct tick_rollbuddy *o = &t->rollb[j];
			if (o->order >= ROLLUP_MAX_ORDER)
				continue;
			sqlite3_bind_int64(s, 7 + o->order, o->v.free_sum);
			sqlite3_bind_int64(s, 7 + ROLLUP_MAX_ORDER + o->order, o->v.head_sum);
			sqlite3_bind_int64(s, 7 + 2 * ROLLUP_MAX_ORDER + o->order, o->v.unusable_max);
			if (o->order + 1 > norders)
				norders = o->order + 1;
		}
		sqlite3_bind_int64(s, 6, norders);
		if ((rc = step_reset(st, S_ROLL_WIDE)) != SQLITE_OK)
			return rc;
		i = j;
	}
	for (int i = 0; i < t->nrollt; i++) {
		const struct tick_rolltick *r = &t->rollt[i];
		const struct rollup_ticks *v = &r->v;
		sqlite3_stmt *s = st->stmt[S_ROLL_TICK];
		int p = 1;
		sqlite3_bind_int64(s, p++, r->run_id);
		sqlite3_bind_int64(s, p++, r->tier);
		sqlite3_bind_int64(s, p++, r->bucket_ms);
		sqlite3_bind_int64(s, p++, v->n);
		sqlite3_bind_int64(s, p++, v->us_sum);
		for (int k = 0; k < STORE_NMEMINFO; k++, p++)
			bind_opt_i64(s, p, v->mem_n[k] == v->n && v->n > 0, v->mem_sum[k]);
		sqlite3_bind_int64(s, p++, v->churn_n);
		bind_opt_i64(s, p++, v->churn_n > 0, v->pop_max);
		for (int k = 0; k < STORE_NCHURN; k++, p++)
			bind_opt_i64(s, p, v->churn_n > 0, v->churn_sum[k]);
		if ((rc = step_reset(st, S_ROLL_TICK)) != SQLITE_OK)
			return rc;
		sqlite3_bind_int64(st->stmt[S_ROLL_STATE], 1, r->run_id);
		sqlite3_bind_int64(st->stmt[S_ROLL_STATE], 2, r->tier);
		sqlite3_bind_int64(st->stmt[S_ROLL_STATE], 3, r->bucket_ms + r->tier);
		if ((rc = step_reset(st, S_ROLL_STATE)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* Whether a zone row is due: a new run, a change, a keyframe, or a tick at or before one already written. */
static int zone_due(const struct zone_seen *l, int64_t run_id, int64_t ts_ms, int same)
{
	return l->run_id != run_id || !same || ts_ms <= l->max_ts || ts_ms - l->ts_ms >= KEYFRAME_MS;
}

static void zone_wrote(struct zone_seen *l, int64_t run_id, int64_t ts_ms)
{
	if (l->run_id != run_id)
		l->max_ts = INT64_MIN;
	l->run_id = run_id;
	l->ts_ms = ts_ms;
	if (ts_ms > l->max_ts)
		l->max_ts = ts_ms;
}

static int buddy_same(const struct tick_buddy *a, const struct tick_buddy *b)
{
	return a->norders == b->norders && memcmp(a->free, b->free, sizeof a->free[0] * a->norders) == 0;
}

static int atomic_same(const struct tick_atomic *a, const struct tick_atomic *b)
{
	return a->norders == b->norders && a->legacy == b->legacy && a->amask == b->amask && a->kmask == b->kmask &&
	       a->margin0 == b->margin0 && a->kmargin0 == b->kmargin0;
}

static int write_buddy_row(struct store *st, int64_t run_id, int64_t ts_ms, const struct tick_buddy *b)
{
	sqlite3_stmt *s = st->stmt[S_BUDDY];

	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, ts_ms);
	sqlite3_bind_int(s, 3, b->zone_id);
	sqlite3_bind_int(s, 4, b->norders);
	for (int k = 0; k < b->norders && k < BUDDY_MAX_ORDER; k++)
		sqlite3_bind_int64(s, 5 + k, (sqlite3_int64)b->free[k]);
	return step_reset(st, S_BUDDY);
}

static int write_atomic_row(struct store *st, int64_t run_id, int64_t ts_ms, const struct tick_atomic *r)
{
	sqlite3_stmt *s = st->stmt[S_ATOMIC];

	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, ts_ms);
	sqlite3_bind_int(s, 3, r->zone_id);
	sqlite3_bind_int(s, 4, r->norders);
	sqlite3_bind_int64(s, 5, r->amask);
	sqlite3_bind_int64(s, 6, r->kmask);
	sqlite3_bind_int64(s, 7, r->margin0);
	sqlite3_bind_int64(s, 8, r->kmargin0);
	sqlite3_bind_int(s, 9, r->legacy);
	return step_reset(st, S_ATOMIC);
}

/*
 * A tick's zone rows, change-only: a zone's row is written when it differs
 * from the zone's last row in this run (or hourly), and a zone in force that
 * the tick lacks gets a norders = 0 row, so the views show a gap, not the
 * previous counts.  buddy_at / atomic_at (schema 006) fill the ticks between.
 */
static int write_zones(struct store *st, const struct store_tick *t)
{
	uint8_t bseen[MAX_ZONES] = { 0 }, aseen[MAX_ZONES] = { 0 };
	int rc;

	for (int i = 0; i < t->nbuddy; i++) {
		const struct tick_buddy *b = &t->buddy[i];
		struct zone_last *l = &st->zlast[b->zone_id];
		bseen[b->zone_id] = 1;
		if (!zone_due(&l->bs, t->run_id, t->ts_ms, buddy_same(&l->b, b)))
			continue;
		if ((rc = write_buddy_row(st, t->run_id, t->ts_ms, b)) != SQLITE_OK)
			return rc;
		l->b = *b;
		zone_wrote(&l->bs, t->run_id, t->ts_ms);
	}
	for (int i = 0; i < t->natomic; i++) {
		const struct tick_atomic *r = &t->atomic[i];
		struct zone_last *l = &st->zlast[r->zone_id];
		aseen[r->zone_id] = 1;
		if (!zone_due(&l->as, t->run_id, t->ts_ms, atomic_same(&l->a, r)))
			continue;
		if ((rc = write_atomic_row(st, t->run_id, t->ts_ms, r)) != SQLITE_OK)
			return rc;
		l->a = *r;
		zone_wrote(&l->as, t->run_id, t->ts_ms);
	}
	for (int z = 0; z < st->nzones; z++) {
		struct zone_last *l = &st->zlast[z];
		if (!bseen[z] && l->bs.run_id == t->run_id && l->b.norders) {
			struct tick_buddy gap = { .zone_id = (uint16_t)z };
			if ((rc = write_buddy_row(st, t->run_id, t->ts_ms, &gap)) != SQLITE_OK)
				return rc;
			l->b = gap;
			zone_wrote(&l->bs, t->run_id, t->ts_ms);
		}
		if (!aseen[z] && l->as.run_id == t->run_id && l->a.norders) {
			struct tick_atomic gap = { .zone_id = (uint16_t)z };
			if ((rc = write_atomic_row(st, t->run_id, t->ts_ms, &gap)) != SQLITE_OK)
				return rc;
			l->a = gap;
			zone_wrote(&l->as, t->run_id, t->ts_ms);
		}
	}
	return SQLITE_OK;
}

static int write_tick(struct store *st, const struct store_tick *t)
{
	int rc;

	if ((rc = write_rollups(st, t)) != SQLITE_OK)
		return rc;
	if (t->no_sample)
		return SQLITE_OK;
	if ((rc = write_sample(st, t)) != SQLITE_OK)
		return rc;
	if ((rc = write_zones(st, t)) != SQLITE_OK)
		return rc;
	for (int i = 0; i < t->nkv; i++) {
		enum stmt_id id = t->kv[i].src == SRC_COUNTER ? S_COUNTER : S_VMSTAT;
		sqlite3_stmt *s = st->stmt[id];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		sqlite3_bind_int(s, 3, t->kv[i].name_id);
		/* Counters beyond INT64_MAX do not occur in practice; store the bit pattern. */
		sqlite3_bind_int64(s, 4, (sqlite3_int64)t->kv[i].value);
		if ((rc = step_reset(st, id)) != SQLITE_OK)
			return rc;
	}
	return write_tick_slow(st, t);
}

/* Write every queued tick in one transaction; on failure the queue is kept whole. */
static int flush_queue(struct store *st)
{
	int rc;

	if (!st->qhead)
		return 0;
	if (st->failing && clock_mono_ms() < st->retry_ms)
		return 1;
	memcpy(st->zsaved, st->zlast, (size_t)st->nzones * sizeof st->zlast[0]);
	rc = step_reset(st, S_BEGIN);
	if (rc == SQLITE_OK)
		rc = write_dimensions(st);
	for (struct store_tick *t = st->qhead; rc == SQLITE_OK && t; t = t->next)
		rc = write_tick(st, t);
	if (rc == SQLITE_OK)
		rc = step_reset(st, S_COMMIT);
	if (rc != SQLITE_OK) {
		if (!sqlite3_get_autocommit(st->db))
			step_reset(st, S_ROLLBACK);
		/* The rolled-back zone rows were never stored: compare the retry with what is. */
		memcpy(st->zlast, st->zsaved, (size_t)st->nzones * sizeof st->zlast[0]);
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
		sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	}
	st->failing = 0;
	for (int i = 0; i < st->nnames; i++)
		st->names[i].persisted = 1;
	for (int i = 0; i < st->nzones; i++)
		st->zones[i].persisted = 1;
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

/* A tick dropped from a full queue hands its rollup rows (whole minutes) to the next one. */
static void rollups_hand_on(struct store_tick *from, struct store_tick *to)
{
	void *b = realloc(to->rollb, (size_t)(to->nrollb + from->nrollb) * sizeof *to->rollb);
	void *t = b ? realloc(to->rollt, (size_t)(to->nrollt + from->nrollt) * sizeof *to->rollt) : NULL;

	if (b)
		to->rollb = b;
	if (!b || !t)
		return;            /* out of memory: those buckets are lost with the tick */
	to->rollt = t;
	memmove(to->rollb + from->nrollb, to->rollb, (size_t)to->nrollb * sizeof *to->rollb);
	memcpy(to->rollb, from->rollb, (size_t)from->nrollb * sizeof *to->rollb);
	memmove(to->rollt + from->nrollt, to->rollt, (size_t)to->nrollt * sizeof *to->rollt);
	memcpy(to->rollt, from->rollt, (size_t)from->nrollt * sizeof *to->rollt);
	to->nrollb += from->nrollb;
	to->nrollt += from->nrollt;
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

int store_submit(struct store *st, struct store_tick *t)
{
	if (!t->no_sample && rollup_account(st, t) < 0)
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
			rollups_hand_on(old, st->qhead);
		kv_hand_on(st, old, st->qhead);
		if (st->dropped == 1 || st->dropped % 1000 == 0)
			log_warnx("database: sample queue full; dropped %llu oldest tick(s) so far",
				  (unsigned long long)st->dropped);
		tick_free(old);
	}
	return flush_queue(st);
}

int store_flush(struct store *st)
{
	st->retry_ms = 0;      /* an explicit flush always tries now */
	return flush_queue(st);
}

size_t store_queued(const struct store *st)
{
	return st->qcount;
}

uint64_t store_dropped(const struct store *st)
{
	return st->dropped;
}
