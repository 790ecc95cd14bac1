/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rollup_write: the writer's side of the minute and hour rollups (rollup.c
 * does the sums): buckets close as ticks are submitted, a closed bucket's
 * rows ride on the tick that closed it, and they are written in that tick's
 * transaction.  See store.h (store_rollup) and writer.h.
 */
#include <stdlib.h>
#include <string.h>

#include "store/writer.h"

/* The tiers by acc[] index: the minute and the hour. */
static const int64_t TIER_MS[2] = { STORE_TIER_MINUTE_MS, STORE_TIER_HOUR_MS };

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

/* The trace a tick carried: its fallbacks, and each failure's order and class. */
static void rollup_account_trace(struct rollup_bucket *m, const struct store_tick *t)
{
	int64_t xf = 0, frag = 0;

	for (int i = 0; i < t->nxfrag; i++) {
		int64_t e = t->xfrag[i].events > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t->xfrag[i].events;
		xf += e;
		if (t->xfrag[i].fragmenting > 0)
			frag += e;
	}
	rollup_add_trace(m, xf, frag);
	for (int i = 0; i < t->ntfail; i++)
		rollup_add_trace_failure(m, t->tfail[i].order, trace_class(t->tfail[i].atomic, t->tfail[i].opportunistic));
}

int rollup_account_tick(struct store *st, struct store_tick *t)
{
	struct rollup_bucket *m = &st->acc[0];
	int64_t churn[STORE_NCHURN];

	if (rollup_close(st, t, 0) < 0)
		return -1;
	if (t->have_churn)
		tick_churn_values(&t->churn, churn);
	rollup_add_tick(m, t->ts_ms, t->sample_us, t->mem, t->mem_mask, t->have_churn ? churn : NULL);
	if (t->have_request)
		rollup_add_request(m, t->req_norders, t->req_atomic, t->req_nowait, t->req_kernel);
	for (int i = 0; i < t->nbuddy; i++)
		rollup_add_buddy(m, t->buddy[i].zone_id, t->buddy[i].norders, t->buddy[i].free);
	for (int i = 0; i < t->natomic; i++) {
		const struct tick_atomic *a = &t->atomic[i];
		rollup_add_atomic(m, a->zone_id, a->norders, a->amask, a->kmask, a->margin0, a->kmargin0, a->legacy);
	}
	if (t->trace_on)
		rollup_account_trace(m, t);
	for (int i = 0; i < t->ncauses; i++)
		rollup_add_failure_cause(m, t->causes[i].source, t->causes[i].cause, t->causes[i].order);
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

static void bind_opt_i64(sqlite3_stmt *s, int i, int have, int64_t v)
{
	if (have)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

/* A bucket's trace rows: totals when any of its ticks carried the trace, failures per order and class. */
static int rollup_write_trace(struct store *st, const struct tick_rolltick *r)
{
	const struct rollup_ticks *v = &r->v;
	int rc;

	if (v->trace_n == 0)
		return SQLITE_OK;
	{
		sqlite3_stmt *s = st->stmt[S_ROLL_TRACE];
		const int64_t a[] = { r->run_id, r->tier, r->bucket_ms, v->trace_n, v->trace_fail, v->trace_xf, v->trace_frag };
		for (int k = 0; k < (int)(sizeof a / sizeof a[0]); k++)
			sqlite3_bind_int64(s, k + 1, a[k]);
		if ((rc = stmts_step(st, S_ROLL_TRACE)) != SQLITE_OK)
			return rc;
	}
	for (int k = 0; k < ROLLUP_MAX_ORDER; k++)
		for (int c = 0; c < ROLLUP_TRACE_CLASSES; c++) {
			sqlite3_stmt *s = st->stmt[S_ROLL_TFAIL];
			if (!v->trace_fail_oc[k][c])
				continue;
			sqlite3_bind_int64(s, 1, r->run_id);
			sqlite3_bind_int64(s, 2, r->tier);
			sqlite3_bind_int64(s, 3, r->bucket_ms);
			sqlite3_bind_int(s, 4, k);
			sqlite3_bind_int(s, 5, c);
			sqlite3_bind_int64(s, 6, v->trace_fail_oc[k][c]);
			if ((rc = stmts_step(st, S_ROLL_TFAIL)) != SQLITE_OK)
				return rc;
		}
	return SQLITE_OK;
}

/* A bucket's classified failures: one row per source, cause and order that had any. */
static int rollup_write_causes(struct store *st, const struct tick_rolltick *r)
{
	int rc;

	for (int so = 0; so < ROLLUP_CAUSE_SOURCES; so++)
		for (int c = 0; c < ROLLUP_CAUSES; c++)
			for (int k = 0; k < ROLLUP_MAX_ORDER; k++) {
				sqlite3_stmt *s = st->stmt[S_ROLL_CAUSE];
				const int64_t v[] = { r->run_id, r->tier, r->bucket_ms, so + 1, c, k, r->v.cause_n[so][c][k] };
				if (!r->v.cause_n[so][c][k])
					continue;
				for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
					sqlite3_bind_int64(s, i + 1, v[i]);
				if ((rc = stmts_step(st, S_ROLL_CAUSE)) != SQLITE_OK)
					return rc;
			}
	return SQLITE_OK;
}

int rollup_write_rows(struct store *st, const struct store_tick *t)
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
		if ((rc = stmts_step(st, S_ROLL_BUDDY)) != SQLITE_OK)
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
		if ((rc = stmts_step(st, S_ROLL_WIDE)) != SQLITE_OK)
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
		bind_opt_i64(s, p++, v->n > 0, v->first_ms);
		bind_opt_i64(s, p++, v->n > 0, v->last_ms);
		if ((rc = stmts_step(st, S_ROLL_TICK)) != SQLITE_OK)
			return rc;
		for (int k = 0; k < ROLLUP_MAX_ORDER; k++) {
			sqlite3_stmt *q = st->stmt[S_ROLL_REQUEST];
			if (!v->req_n[k])
				continue;
			sqlite3_bind_int64(q, 1, r->run_id);
			sqlite3_bind_int64(q, 2, r->tier);
			sqlite3_bind_int64(q, 3, r->bucket_ms);
			sqlite3_bind_int(q, 4, k);
			sqlite3_bind_int64(q, 5, v->req_n[k]);
			sqlite3_bind_int64(q, 6, v->req_afail[k]);
			sqlite3_bind_int64(q, 7, v->req_nfail[k]);
			sqlite3_bind_int64(q, 8, v->req_kfail[k]);
			sqlite3_bind_int64(q, 9, v->req_aonly[k]);
			sqlite3_bind_int64(q, 10, v->req_nonly[k]);
			if ((rc = stmts_step(st, S_ROLL_REQUEST)) != SQLITE_OK)
				return rc;
		}
		if ((rc = rollup_write_trace(st, r)) != SQLITE_OK || (rc = rollup_write_causes(st, r)) != SQLITE_OK)
			return rc;
		sqlite3_bind_int64(st->stmt[S_ROLL_STATE], 1, r->run_id);
		sqlite3_bind_int64(st->stmt[S_ROLL_STATE], 2, r->tier);
		sqlite3_bind_int64(st->stmt[S_ROLL_STATE], 3, r->bucket_ms + r->tier);
		if ((rc = stmts_step(st, S_ROLL_STATE)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

void rollup_hand_on(struct store_tick *from, struct store_tick *to)
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
