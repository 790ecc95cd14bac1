/* SPDX-License-Identifier: GPL-2.0-only */
/* read_churn: churn series and totals, probes, the FPU kind of a run; see query.h. */
#include <string.h>

#include "store/fields.h"
#include "store/reader.h"

/* ", SUM(col)" per churn count, from the sample row (s) or churn_rare (r: no row, no count; schema 019),
 * ", SUM(col_sum)" (tick_rollup); in enum query_churn_col's order. */
#define X_CSUM(i, col) ", SUM(s." #col ")"
#define X_CSUM_RARE(i, col) ", SUM(r." #col ")"
#define X_CRSUM(i, col) ", SUM(" #col "_sum)"
#define SAMPLES_RARE " FROM samples s LEFT JOIN churn_rare r ON r.run_id = s.run_id AND r.ts_ms = s.ts_ms "

static const char *const SQL[S_COUNT] = {
	[S_CHURN_SERIES] = "SELECT (s.ts_ms - ?2) / ?4 AS bk, MIN(s.ts_ms), MAX(s.ts_ms), COUNT(*), AVG(s.population), "
			   "MAX(s.population)" STORE_CHURN_COUNTS2(X_CSUM, X_CSUM_RARE) SAMPLES_RARE "WHERE s.run_id = ?1 "
			   "AND s.ts_ms BETWEEN ?2 AND ?3 AND s.population IS NOT NULL GROUP BY bk ORDER BY bk",
	/* Rollup rows: population mean weighted by the churn ticks of each bucket. */
	[S_CHURN_ROLLUP] = "SELECT (bucket_ms - ?2) / ?4 AS bk, MIN(bucket_ms), MAX(bucket_ms) + ?5 - 1, SUM(churn_n), "
			   "SUM(population_sum) * 1.0 / SUM(churn_n), MAX(population_max)" STORE_CHURN_COUNTS(X_CRSUM)
			   " FROM tick_rollup WHERE run_id = ?1 AND tier = ?5 AND bucket_ms BETWEEN ?2 AND ?3 AND churn_n > 0 "
			   "GROUP BY bk ORDER BY bk",
	[S_CHURN_TOTALS] = "SELECT 0, MIN(s.ts_ms), MAX(s.ts_ms), COUNT(*), AVG(s.population), MAX(s.population)"
			   STORE_CHURN_COUNTS2(X_CSUM, X_CSUM_RARE) SAMPLES_RARE "WHERE s.run_id = ?1 "
			   "AND s.ts_ms BETWEEN ?2 AND ?3 AND s.population IS NOT NULL",
	/* Totals over whole minutes [?2, ?3): the same columns as S_CHURN_TOTALS. */
	[S_CHURN_ROLLED] = "SELECT 0, MIN(bucket_ms), MAX(bucket_ms), SUM(churn_n), SUM(population_sum) * 1.0 / SUM(churn_n), "
			   "MAX(population_max)" STORE_CHURN_COUNTS(X_CRSUM) " FROM tick_rollup WHERE run_id = ?1 AND tier = ?4 "
			   "AND bucket_ms >= ?2 AND bucket_ms < ?3 AND churn_n > 0",
	/* v_probes: since schema 015 a probe's detail is made of its columns there. */
	[S_PROBES] = "SELECT ts_ms, kind, result, stop_reason, duration_ms, detail, gfp_mode FROM v_probes "
		     "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 AND (?4 IS NULL OR kind = ?4) ORDER BY ts_ms LIMIT ?5",
	/* The same rows without the detail, from the table: v_probes builds each detail with two joins and
	 * some twenty concatenations (schema 015), ~4 us a row, which a month of probes every 10 minutes
	 * (4,320) made 20 ms a read, three reads a run page. */
	[S_PROBES_BARE] = "SELECT ts_ms, kind, result, stop_reason, duration_ms, NULL, gfp_mode FROM probes "
			  "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 AND (?4 IS NULL OR kind = ?4) ORDER BY ts_ms LIMIT ?5",
	[S_FPU_KIND] = "SELECT fpu_kind FROM churn_info WHERE run_id = ?1",
	/* No churn_rare row: zero; a NULL in one: a run of an fpusoakd before schema 7 (schema 019). */
	[S_CHURN_LAST] = "SELECT s.population, CASE WHEN r.run_id IS NULL THEN 0 ELSE r.probe_population END" SAMPLES_RARE
			 "WHERE s.run_id = ?1 "
			 "AND s.population IS NOT NULL ORDER BY s.ts_ms DESC LIMIT 1",
};

/* v_churn's count columns: enum query_churn_col is their order (STORE_CHURN_COUNTS). */
#define X_CNAME(i, col) #col,
static const char *const churn_cols[QC_N] = { STORE_CHURN_COUNTS(X_CNAME) };
#undef X_CNAME
_Static_assert(QC_N == STORE_NCHURN - 2, "enum query_churn_col lists every churn count of store/fields.h");

const char *query_churn_column(int c)
{
	return c >= 0 && c < QC_N ? churn_cols[c] : "?";
}

/* A churn row of S_CHURN_SERIES / S_CHURN_TOTALS into *c; interval_ms completes the covered span. */
static void churn_from_row(sqlite3_stmt *st, int64_t interval_ms, struct query_churn *c)
{
	c->ts_ms = col_i64(st, 1);
	c->last_ms = col_i64(st, 2);
	c->rows = sqlite3_column_int64(st, 3);
	c->population = col_real(st, 4);
	c->population_max = col_i64(st, 5);
	for (int i = 0; i < QC_N; i++)
		c->c[i] = sqlite3_column_int64(st, 6 + i);
	/* Each row counts the interval ending at its time: n rows cover n intervals. */
	c->span_ms = c->rows > 0 ? c->last_ms - c->ts_ms + interval_ms : 0;
}

int query_churn_series(struct query *q, int64_t run_id, struct query_range *rg, query_churn_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int64_t tier;
	int rc, r, n = 0;

	if ((r = range_series(q, run_id, rg, &tier)) <= 0)
		return r;
	if (!(st = stmt(q, tier ? S_CHURN_ROLLUP : S_CHURN_SERIES)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rg->from_ms);
	sqlite3_bind_int64(st, 3, rg->to_ms);
	sqlite3_bind_int64(st, 4, rg->bucket_ms);
	if (tier)
		sqlite3_bind_int64(st, 5, tier);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_churn c;

		churn_from_row(st, rg->interval_ms, &c);
		/* A rollup bucket covers its ticks, not its width: a partial edge minute is a partial span. */
		if (tier)
			c.span_ms = c.rows * rg->interval_ms;
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &c) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

/* Add the churn row in st (S_CHURN_TOTALS / S_CHURN_ROLLED columns) to *out; rows_end_pad widens the last time. */
static void churn_add(sqlite3_stmt *st, int64_t last_pad, struct query_churn *out)
{
	int64_t rows = sqlite3_column_type(st, 3) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 3);
	int64_t first = col_i64(st, 1), last = col_i64(st, 2);

	if (rows <= 0)
		return;
	last += last_pad;
	out->population = (out->population * (double)out->rows + col_real(st, 4) * (double)rows) /
			  (double)(out->rows + rows);
	if (out->rows == 0 || col_i64(st, 5) > out->population_max)
		out->population_max = col_i64(st, 5);
	if (out->rows == 0 || first < out->ts_ms)
		out->ts_ms = first;
	if (out->rows == 0 || last > out->last_ms)
		out->last_ms = last;
	out->rows += rows;
	for (int i = 0; i < QC_N; i++)
		out->c[i] += sqlite3_column_int64(st, 6 + i);
}

/* Add the churn sums of one piece to *out; 0 or -1. */
static int churn_part(struct query *q, int64_t run_id, const struct part *pt, struct query_churn *out)
{
	sqlite3_stmt *st;
	int rc;

	if (pt->from >= pt->to)
		return 0;
	if (!(st = stmt(q, pt->tier ? S_CHURN_ROLLED : S_CHURN_TOTALS)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, pt->from);
	/* raw: BETWEEN, inclusive; rolled: bucket_ms < to */
	sqlite3_bind_int64(st, 3, pt->tier ? pt->to : pt->to == INT64_MAX ? INT64_MAX : pt->to - 1);
	if (pt->tier)
		sqlite3_bind_int64(st, 4, pt->tier);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW)
		churn_add(st, pt->tier ? pt->tier - 1 : 0, out);
	done(st);
	return 0;
}

int query_churn_totals(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct query_churn *out)
{
	struct query_range rg = { from_ms, to_ms, 1, 0, 0 };
	int64_t raw_first, rollup_first;
	struct part pt[5];
	int np;

	memset(out, 0, sizeof *out);
	if (range_resolve(q, run_id, &rg, &raw_first, &rollup_first) < 0 ||
	    (np = range_split(q, run_id, lo_of(from_ms), hi_of(to_ms), pt)) < 0)
		return -1;
	for (int i = 0; i < np; i++)
		if (churn_part(q, run_id, &pt[i], out) < 0)
			return -1;
	/* Rolled pieces start and end on bucket edges; the ticks inside start and end within them. */
	if (out->rows > 0 && raw_first >= 0 && out->ts_ms < raw_first)
		out->ts_ms = raw_first;
	if (out->rows > 0 && rg.to_ms >= 0 && out->last_ms > rg.to_ms)
		out->last_ms = rg.to_ms;
	/* No raw tick left in the window (retention): its rows cover one interval each. */
	if (out->rows > 0 && raw_first < 0) {
		out->span_ms = out->rows * rg.interval_ms;
		return 1;
	}
	/* Each row counts the interval ending at its time: n rows cover n intervals. */
	out->span_ms = out->rows > 0 ? out->last_ms - out->ts_ms + rg.interval_ms : 0;
	return out->rows > 0;
}

static int probes(struct query *q, enum stmt_id id, int64_t run_id, const char *kind, int64_t from_ms, int64_t to_ms,
		  int limit, query_probe_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, id);
	int rc, n = 0;

	if (!st)
		return -1;
	bind_window(st, run_id, from_ms, to_ms);
	if (kind)
		sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, limit < 0 ? 0 : limit > QUERY_MAX_ROWS ? QUERY_MAX_ROWS : limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_probe p = { sqlite3_column_int64(st, 0), col_text(st, 1), col_real(st, 2), col_text(st, 3),
					 col_text(st, 5), col_i64(st, 4), col_text(st, 6) };
		n++;
		if (fn(arg, &p) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

int query_probes(struct query *q, int64_t run_id, const char *kind, int64_t from_ms, int64_t to_ms, int limit,
		 query_probe_fn fn, void *arg)
{
	return probes(q, S_PROBES, run_id, kind, from_ms, to_ms, limit, fn, arg);
}

int query_probes_bare(struct query *q, int64_t run_id, const char *kind, int64_t from_ms, int64_t to_ms, int limit,
		      query_probe_fn fn, void *arg)
{
	return probes(q, S_PROBES_BARE, run_id, kind, from_ms, to_ms, limit, fn, arg);
}

int query_run_fpu_kind(struct query *q, int64_t run_id, char *out, size_t outlen)
{
	sqlite3_stmt *st = stmt(q, S_FPU_KIND);
	int rc, found = 0;

	if (!st)
		return -1;
	out[0] = '\0';
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW && col_text(st, 0)) {
		snprintf(out, outlen, "%s", col_text(st, 0));
		found = 1;
	}
	done(st);
	return found;
}

int query_churn_alive(struct query *q, int64_t run_id, int64_t *churn, int64_t *probe)
{
	sqlite3_stmt *st = stmt(q, S_CHURN_LAST);
	int rc, got = 0;

	*churn = *probe = -1;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*churn = sqlite3_column_int64(st, 0);
		/* Before schema 7 probe workers were not accounted: not recorded, not none. */
		*probe = sqlite3_column_type(st, 1) == SQLITE_NULL ? -2 : sqlite3_column_int64(st, 1);
		got = 1;
	}
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return got;
}
