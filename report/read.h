/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * read: the rows and series the surfaces draw, read for them here: report/ is the only reader every
 * surface has (the pages, the API, /metrics, the text summary, the offline report), so web/ and cli/
 * include no store/ header and call no query_ function (tests/integration/05_includes.sh).  A read
 * that needs a rule (a window's tier, what a line leaves out) makes it here or in the report/ module
 * of its figure; these are the reads the surfaces show as they are stored: the databases and their
 * runs, the series of a window, the latest slow samples, the probes and the failures.  The row types
 * are store/query.h's.
 */
#ifndef FPUSOAK_REPORT_READ_H
#define FPUSOAK_REPORT_READ_H

#include <stddef.h>
#include <stdint.h>

#include "store/query.h"

/* One run: 1 after calling fn, 0 if there is no such run, -1 on error. */
int report_read_run(struct query *q, int64_t run_id, query_run_fn fn, void *arg);

/* Every run, newest first, one fn call each; number of runs, or -1 (error, cap, or fn stopped). */
int report_read_runs(struct query *q, query_run_fn fn, void *arg);

/* Whether a table or view of that name exists: 1, 0, or -1 on error. */
int report_read_has_table(struct query *q, const char *name);

/* Indices and headroom of a run in rg, bucketed and tiered like query_buddy_series; fn per bucket and zone; rows or -1. */
int report_read_frag_series(struct query *q, int64_t run_id, struct query_range *rg, query_frag_fn fn, void *arg);

/* Allocation failures of a run in [from, to] (-1 = open), newest first, at most limit; *total gets the count in the window; rows or -1. */
int report_read_alloc_failures(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			       int64_t *total, query_alloc_failure_fn fn, void *arg);

/* Probes of a run in [from, to] (-1 = open), kind NULL = all, oldest first, at most limit; rows or -1. */
int report_read_probes(struct query *q, int64_t run_id, const char *kind, int64_t from_ms, int64_t to_ms, int limit,
		       query_probe_fn fn, void *arg);

/* The newest run (highest run_id): 1 with *run_id set, 0 if there is none, -1 on error. */
int report_read_latest_run(struct query *q, int64_t *run_id);

/* The last error of this handle, for a log line or a 500 page; never NULL. */
const char *report_read_errmsg(const struct query *q);

/* Whether a daemon writes this DB now (holds the writer's flock, seen in /proc/locks): 1, 0, or -1 if unknown. */
int report_read_writer_active(const struct query *q);

/* A vmstat counter of a run as a rate per second per bucket in rg (empty bucket: rate 0); rows or -1. */
int report_read_vmstat_rate(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			    query_point_fn fn, void *arg);

/* The provenance of run_id into *out: 1 when it was imported, 0 when it is this database's own, -1 on error. */
int report_read_run_import(struct query *q, int64_t run_id, struct query_import *out);

/* Open db_path read-only, writing nothing, not even side files (see reader.c); NULL with a message in err on failure. */
struct query *report_read_open(const char *db_path, char *err, size_t errlen);

/* A meminfo field (kB, bucket average) of a run in rg; rows, or -1 (an unknown name gives 0 rows). */
int report_read_meminfo_series(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			       query_point_fn fn, void *arg);

/* Finalize the cached statements and close; NULL-safe. */
void report_read_close(struct query *q);

/* Churn of a run in rg, bucketed; fn per bucket in time order; rows or -1. */
int report_read_churn_series(struct query *q, int64_t run_id, struct query_range *rg, query_churn_fn fn, void *arg);

/* Buddyinfo of a run in rg, bucketed (see top); fn per bucket and zone in time, node, zone order; rows or -1. */
int report_read_buddy_series(struct query *q, int64_t run_id, struct query_range *rg, query_buddy_fn fn, void *arg);

/* The latest buddyinfo snapshot of a run into *out (zones in node, kernel order): 1 with *ts_ms set, 0 if none, -1. */
int report_read_buddy_latest(struct query *q, int64_t run_id, struct buddyinfo *out, int64_t *ts_ms);

/* Traced failures of a run in [from, to] (-1 = open), newest first, at most limit; *total gets the count; rows or -1. */
int report_read_trace_failures(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			       int64_t *total, query_trace_failure_fn fn, void *arg);

/* 1 when q was opened while no writer had the DB and a writer has appeared since: reopen it to see new data. */
int report_read_stale(const struct query *q);

/* The latest slabinfo sample of a run, by name; rows or -1. */
int report_read_slab_latest(struct query *q, int64_t run_id, query_slab_fn fn, void *arg);

/* PRAGMA user_version (the schema migration level), or -1 on error. */
int report_read_schema_version(struct query *q);

/* The newest run with this label (NULL: without one) that started before started_ms: 1 with its id and start, 0 none, -1. */
int report_read_run_before(struct query *q, const char *label, int64_t started_ms, int64_t *run_id, int64_t *run_started_ms);

/* The latest pagetypeinfo sample of a run, node/zone/type order; rows or -1. */
int report_read_pagetype_latest(struct query *q, int64_t run_id, query_pagetype_fn fn, void *arg);

/* Whether source ("vmstat" or "meminfo") has a field called name: 1, 0, or -1. */
int report_read_has_name(struct query *q, const char *source, const char *name);

/* The load's rows of a run in rg (raw rows only, bucketed like the other series); rows or -1. */
int report_read_fragment_series(struct query *q, int64_t run_id, struct query_range *rg, query_fragment_fn fn, void *arg);

/* Time, order (-1 unknown) and GFP flags (NULL unknown) of allocation failures in [from, to], newest first, at most limit; rows or -1. */
int report_read_failure_times(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			      query_alloc_failure_fn fn, void *arg);

/* v_churn's column name of c ("spawned", "spawn_failed_eagain", ...). */
const char *report_read_churn_column(int c);

/* Open paths[0..n) read-only into *set (names from runref_names); 0, or -1 with err naming the file (nothing left open). */
int report_read_set_open(struct query_set *set, const char *const *paths, int n, char *err, size_t errlen);

/* Close every handle of set; NULL-safe. */
void report_read_set_close(struct query_set *set);

/* The FPU kind the spawner resolved for a run (churn_info) into out: 1, 0 if none recorded, -1. */
int report_read_run_fpu_kind(struct query *q, int64_t run_id, char *out, size_t outlen);

#endif
