/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * write: the queued ticks' rows in one transaction (see write.h): each tick's
 * sample row, the zone rows on change, the counters, and what the slow
 * sources, the kernel log and the probes brought.
 */
#include "store/write.h"

#include <string.h>

#include "store/rollup_write.h"
#include "store/tiers.h"

/* What writing one tick needs: the statements, the rows last written, the zones there are, and the new
 * ticks of one run not yet counted in runs.ticks (one UPDATE a group, not one a tick). */
struct wr {
	struct stmts *s;
	struct rowlog *rl;
	const struct dims *d;
	int64_t count_run, count_n;
};

/* Add the ticks counted so far to their run's runs.ticks. */
static int count_ticks(struct wr *w)
{
	if (!w->count_n)
		return SQLITE_OK;
	sqlite3_bind_int64(w->s->s[S_TICKS], 1, w->count_run);
	sqlite3_bind_int64(w->s->s[S_TICKS], 2, w->count_n);
	w->count_n = 0;
	return stmts_step(w->s, S_TICKS);
}

/* The minute of a sample row's key (schema 019: ts_ms - ts_ms % 60000 in the views). */
static int64_t key_bucket(int64_t ts_ms)
{
	return ts_ms - ts_ms % STORE_TIER_MINUTE_MS;
}

/*
 * The key of t's minute in w->rl->key: as stored when the minute has a row (the clock stepped back
 * into it, or an earlier transaction wrote it), else t's own values, written as the minute's row.
 */
static int load_key(struct wr *w, const struct store_tick *t)
{
	struct sample_key *k = &w->rl->key;
	int64_t bucket = key_bucket(t->ts_ms);
	sqlite3_stmt *g = w->s->s[S_KEY_GET], *p = w->s->s[S_KEY_PUT];
	int rc;

	if (k->run_id == t->run_id && k->bucket_ms == bucket)
		return SQLITE_OK;
	memset(k, 0, sizeof *k);
	sqlite3_bind_int64(g, 1, t->run_id);
	sqlite3_bind_int64(g, 2, bucket);
	rc = sqlite3_step(g);
	if (rc == SQLITE_ROW) {
		for (int i = 0; i < STORE_NMEMINFO; i++)
			if (sqlite3_column_type(g, 1 + i) != SQLITE_NULL) {
				k->mem_mask |= 1u << i;
				k->mem[i] = sqlite3_column_int64(g, 1 + i);
			}
		for (int i = 0; i < STORE_NVMHOT; i++)
			if (sqlite3_column_type(g, 1 + STORE_NMEMINFO + i) != SQLITE_NULL) {
				k->hot_mask |= 1u << i;
				k->hot[i] = sqlite3_column_int64(g, 1 + STORE_NMEMINFO + i);
			}
	}
	sqlite3_reset(g);
	sqlite3_clear_bindings(g);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return rc;
	if (rc == SQLITE_DONE) {
		k->mem_mask = t->mem_mask;
		k->hot_mask = t->vmhot_mask;
		sqlite3_bind_int64(p, 1, t->run_id);
		sqlite3_bind_int64(p, 2, bucket);
		for (int i = 0; i < STORE_NMEMINFO; i++)
			if (k->mem_mask & (1u << i))
				sqlite3_bind_int64(p, 3 + i, k->mem[i] = t->mem[i]);
		for (int i = 0; i < STORE_NVMHOT; i++)
			if (k->hot_mask & (1u << i))
				sqlite3_bind_int64(p, 3 + STORE_NMEMINFO + i, k->hot[i] = (int64_t)t->vmhot[i]);
		if ((rc = stmts_step(w->s, S_KEY_PUT)) != SQLITE_OK)
			return rc;
	}
	k->run_id = t->run_id;
	k->bucket_ms = bucket;
	return SQLITE_OK;
}

/* The id of verdict v (run, norders, the three masks, the packed zones) in requests: SQLITE_ROW with *id,
 * SQLITE_DONE when the run has no such row, or the error. */
static int request_find(struct wr *w, const int64_t v[7], int64_t *id)
{
	sqlite3_stmt *g = w->s->s[S_REQ_GET];
	int rc;

	for (int i = 0; i < 7; i++)
		sqlite3_bind_int64(g, 1 + i, v[i]);
	rc = sqlite3_step(g);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(g, 0);
	sqlite3_reset(g);
	sqlite3_clear_bindings(g);
	return rc;
}

/* t's request verdict's id in requests (added when new to the run) into *id. */
static int request_id(struct wr *w, const struct store_tick *t, int64_t *id)
{
	struct req_last *r = &w->rl->req;
	const struct req_last want = { t->run_id, 0, t->req_norders, t->req_atomic, t->req_nowait, t->req_kernel,
				       t->req_zones_lo, t->req_zones_hi };
	const int64_t v[7] = { want.run_id, want.norders, want.atomic, want.nowait, want.kernel, want.zones_lo,
			       want.zones_hi };
	int rc;

	if (r->run_id == want.run_id && r->norders == want.norders && r->atomic == want.atomic &&
	    r->nowait == want.nowait && r->kernel == want.kernel && r->zones_lo == want.zones_lo &&
	    r->zones_hi == want.zones_hi) {
		*id = r->req_id;
		return SQLITE_OK;
	}
	rc = request_find(w, v, id);
	if (rc == SQLITE_DONE) {
		/* New to the run: S_REQ_PUT numbers it after the run's others. */
		for (int i = 0; i < 7; i++)
			sqlite3_bind_int64(w->s->s[S_REQ_PUT], 1 + i, v[i]);
		if ((rc = stmts_step(w->s, S_REQ_PUT)) != SQLITE_OK)
			return rc;
		rc = request_find(w, v, id);
	}
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
	*r = want;
	r->req_id = *id;
	return SQLITE_OK;
}

/* The churn counts kept out of the sample row (1) or in it (0), by index (store/fields.h). */
#define X_KEPT(i, col) 0,
#define X_RARE(i, col) 1,
static const unsigned char churn_rare[STORE_NCHURN] = { STORE_CHURN_FIELDS2(X_KEPT, X_RARE) };
#undef X_KEPT
#undef X_RARE

/* The tick's rare churn counts as a churn_rare row. */
static int write_rare(struct wr *w, const struct store_tick *t, const int64_t churn[STORE_NCHURN])
{
	sqlite3_stmt *s = w->s->s[S_RARE];
	int p = 3;

	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, t->ts_ms);
	for (int i = 0; i < STORE_NCHURN; i++)
		if (churn_rare[i])
			sqlite3_bind_int64(s, p++, churn[i]);
	return stmts_step(w->s, S_RARE);
}

/*
 * The sample row: cost, meminfo, the churn columns it keeps, the hot vmstat counters, the request's id;
 * a churn_rare row when a rare count is not zero (or the tick replaces one); counted in runs.ticks when
 * new.
 */
static int write_sample(struct wr *w, const struct store_tick *t)
{
	sqlite3_stmt *s = w->s->s[S_SAMPLE];
	const struct sample_key *k = &w->rl->key;
	int64_t churn[STORE_NCHURN];
	int rc, fresh = 1, rare = 0, p;

	/* Ticks arrive in time order; only a wall-clock step back can repeat a timestamp. */
	if (t->run_id == w->rl->wlast_run && t->ts_ms <= w->rl->wlast_ts) {
		sqlite3_bind_int64(w->s->s[S_HAS_SAMPLE], 1, t->run_id);
		sqlite3_bind_int64(w->s->s[S_HAS_SAMPLE], 2, t->ts_ms);
		fresh = sqlite3_step(w->s->s[S_HAS_SAMPLE]) != SQLITE_ROW;
		sqlite3_reset(w->s->s[S_HAS_SAMPLE]);
	}
	if ((rc = load_key(w, t)) != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, t->ts_ms);
	sqlite3_bind_int64(s, 3, t->sample_us);
	for (int i = 0; i < STORE_NMEMINFO; i++)
		if (t->mem_mask & (1u << i))
			sqlite3_bind_int64(s, 4 + i, t->mem[i] - (k->mem_mask & (1u << i) ? k->mem[i] : 0));
	p = 4 + STORE_NMEMINFO;
	if (t->have_churn)
		tick_churn_values(&t->churn, churn);
	for (int i = 0; i < STORE_NCHURN; i++) {
		if (churn_rare[i]) {
			rare |= t->have_churn && churn[i] != 0;
			continue;
		}
		if (t->have_churn)
			sqlite3_bind_int64(s, p, churn[i]);
		p++;
	}
	for (int i = 0; i < STORE_NVMHOT; i++, p++)
		if (t->vmhot_mask & (1u << i))
			sqlite3_bind_int64(s, p, (int64_t)t->vmhot[i] - (k->hot_mask & (1u << i) ? k->hot[i] : 0));
	if (t->have_request) {
		int64_t id = 0;
		if ((rc = request_id(w, t, &id)) != SQLITE_OK) {
			sqlite3_clear_bindings(s);
			return rc;
		}
		sqlite3_bind_int64(s, p, id);
	}
	if ((rc = stmts_step(w->s, S_SAMPLE)) != SQLITE_OK)
		return rc;
	/* A replaced tick's old rare row would outlive it: write this tick's, zeros and all. */
	if ((rare || (!fresh && t->have_churn)) && (rc = write_rare(w, t, churn)) != SQLITE_OK)
		return rc;
	if (t->run_id != w->rl->wlast_run || t->ts_ms > w->rl->wlast_ts) {
		w->rl->wlast_run = t->run_id;
		w->rl->wlast_ts = t->ts_ms;
	}
	if (fresh && t->run_id != w->count_run && (rc = count_ticks(w)) != SQLITE_OK)
		return rc;
	if (fresh) {
		w->count_run = t->run_id;
		w->count_n++;
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

static int write_buddy_row(struct wr *w, int64_t run_id, int64_t ts_ms, const struct tick_buddy *b)
{
	sqlite3_stmt *s = w->s->s[S_BUDDY];

	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, ts_ms);
	sqlite3_bind_int(s, 3, b->zone_id);
	sqlite3_bind_int(s, 4, b->norders);
	for (int k = 0; k < b->norders && k < BUDDY_MAX_ORDER; k++)
		sqlite3_bind_int64(s, 5 + k, (sqlite3_int64)b->free[k]);
	return stmts_step(w->s, S_BUDDY);
}

static int write_atomic_row(struct wr *w, int64_t run_id, int64_t ts_ms, const struct tick_atomic *r)
{
	sqlite3_stmt *s = w->s->s[S_ATOMIC];

	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, ts_ms);
	sqlite3_bind_int(s, 3, r->zone_id);
	sqlite3_bind_int(s, 4, r->norders);
	sqlite3_bind_int64(s, 5, r->amask);
	sqlite3_bind_int64(s, 6, r->kmask);
	sqlite3_bind_int64(s, 7, r->margin0);
	sqlite3_bind_int64(s, 8, r->kmargin0);
	sqlite3_bind_int(s, 9, r->legacy);
	return stmts_step(w->s, S_ATOMIC);
}

/*
 * A tick's zone rows, change-only: a zone's row is written when it differs
 * from the zone's last row in this run (or hourly), and a zone in force that
 * the tick lacks gets a norders = 0 row, so the views show a gap, not the
 * previous counts.  buddy_at / atomic_at (schema 006) fill the ticks between.
 */
static int write_zones(struct wr *w, const struct store_tick *t)
{
	uint8_t bseen[MAX_ZONES] = { 0 }, aseen[MAX_ZONES] = { 0 };
	int rc;

	for (int i = 0; i < t->nbuddy; i++) {
		const struct tick_buddy *b = &t->buddy[i];
		struct zone_last *l = &w->rl->zlast[b->zone_id];
		bseen[b->zone_id] = 1;
		if (!zone_due(&l->bs, t->run_id, t->ts_ms, buddy_same(&l->b, b)))
			continue;
		if ((rc = write_buddy_row(w, t->run_id, t->ts_ms, b)) != SQLITE_OK)
			return rc;
		l->b = *b;
		zone_wrote(&l->bs, t->run_id, t->ts_ms);
	}
	for (int i = 0; i < t->natomic; i++) {
		const struct tick_atomic *r = &t->atomic[i];
		struct zone_last *l = &w->rl->zlast[r->zone_id];
		aseen[r->zone_id] = 1;
		if (!zone_due(&l->as, t->run_id, t->ts_ms, atomic_same(&l->a, r)))
			continue;
		if ((rc = write_atomic_row(w, t->run_id, t->ts_ms, r)) != SQLITE_OK)
			return rc;
		l->a = *r;
		zone_wrote(&l->as, t->run_id, t->ts_ms);
	}
	for (int z = 0; z < w->d->nzones; z++) {
		struct zone_last *l = &w->rl->zlast[z];
		if (!bseen[z] && l->bs.run_id == t->run_id && l->b.norders) {
			struct tick_buddy gap = { .zone_id = (uint16_t)z };
			if ((rc = write_buddy_row(w, t->run_id, t->ts_ms, &gap)) != SQLITE_OK)
				return rc;
			l->b = gap;
			zone_wrote(&l->bs, t->run_id, t->ts_ms);
		}
		if (!aseen[z] && l->as.run_id == t->run_id && l->a.norders) {
			struct tick_atomic gap = { .zone_id = (uint16_t)z };
			if ((rc = write_atomic_row(w, t->run_id, t->ts_ms, &gap)) != SQLITE_OK)
				return rc;
			l->a = gap;
			zone_wrote(&l->as, t->run_id, t->ts_ms);
		}
	}
	return SQLITE_OK;
}

static void bind_opt_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static int write_event(struct wr *w, const struct store_tick *t, const struct tick_event *e)
{
	sqlite3_stmt *s = w->s->s[S_EVENT];
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
	/* The task as /proc showed it when the record was read: who failed (report/whose.h decides whose). */
	if (e->has_task && e->task_ppid >= 0)
		sqlite3_bind_int64(s, 15, e->task_ppid);
	if (e->has_task && e->task_cgroup)
		sqlite3_bind_text(s, 16, e->task_cgroup, -1, SQLITE_STATIC);
	return stmts_step(w->s, S_EVENT);
}

/* Everything a tick carries besides the fast sources. */
/* A probe's conditions (capacity) or passes (switch) into its own table; SQLITE_OK when it has none. */
static int write_probe_columns(struct wr *w, int64_t run_id, const struct tick_probe *r)
{
	const struct store_probe_capacity *c = &r->cap;
	const struct store_probe_switch *sw = &r->sw;
	sqlite3_stmt *s;

	if (r->have_cap) {
		const int64_t v[] = { c->limit, c->spawned, c->ready, c->oom_kills, c->worker_memory };
		s = w->s->s[S_PROBE_CAP];
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, r->ts_ms);
		sqlite3_bind_text(s, 3, r->scope, -1, SQLITE_STATIC);
		for (int i = 0; i < 5; i++)
			sqlite3_bind_int64(s, 4 + i, v[i]);
		sqlite3_bind_text(s, 9, r->fpu, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 10, c->mem_limit);
		sqlite3_bind_int64(s, 11, c->mem_peak);
		sqlite3_bind_int64(s, 12, c->retire_ms);
		sqlite3_bind_int64(s, 13, c->release_ms);
		sqlite3_bind_text(s, 14, r->fork_charge, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 15, r->cgroup, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 16, c->mem_limit_lifted);
		sqlite3_bind_int64(s, 17, c->pids_limit);
		sqlite3_bind_int64(s, 18, c->gfp_failed);
		sqlite3_bind_int64(s, 19, c->time_limit_ms);
		if (r->timeout[0])
			sqlite3_bind_text(s, 20, r->timeout, -1, SQLITE_STATIC);
		return stmts_step(w->s, S_PROBE_CAP);
	}
	if (r->have_sw) {
		const int64_t v[] = { sw->threads, sw->yields, sw->sys_us, sw->user_us, sw->base_yields, sw->base_sys_us,
				      sw->base_user_us, sw->wall_ms };
		s = w->s->s[S_PROBE_SW];
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, r->ts_ms);
		sqlite3_bind_text(s, 3, r->fpu, -1, SQLITE_STATIC);
		for (int i = 0; i < 8; i++)
			sqlite3_bind_int64(s, 4 + i, v[i]);
		return stmts_step(w->s, S_PROBE_SW);
	}
	return SQLITE_OK;
}

static int write_tick_slow(struct wr *w, const struct store_tick *t)
{
	int rc;

	for (int i = 0; i < t->nevents; i++)
		if ((rc = write_event(w, t, &t->events[i])) != SQLITE_OK)
			return rc;
	if (t->cursor_boot[0]) {
		sqlite3_bind_text(w->s->s[S_CURSOR], 1, t->cursor_boot, -1, SQLITE_STATIC);
		sqlite3_bind_int64(w->s->s[S_CURSOR], 2, (sqlite3_int64)t->cursor_seq);
		if ((rc = stmts_step(w->s, S_CURSOR)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < t->nptfree; i++) {
		const struct tick_ptfree *r = &t->ptfree[i];
		sqlite3_stmt *s = w->s->s[S_PTFREE];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		sqlite3_bind_int(s, 3, r->zone_id);
		sqlite3_bind_int(s, 4, r->type_id);
		sqlite3_bind_int(s, 5, r->norders);
		sqlite3_bind_int64(s, 6, r->capped_mask);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)r->blocks);
		for (int k = 0; k < r->norders && k < PAGETYPEINFO_MAX_ORDER; k++)
			sqlite3_bind_int64(s, 8 + k, (sqlite3_int64)r->free[k]);
		if ((rc = stmts_step(w->s, S_PTFREE)) != SQLITE_OK)
			return rc;
	}
	if (t->have_slow) {
		sqlite3_stmt *s = w->s->s[S_SLOW];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		if (t->pageblock_order >= 0)
			sqlite3_bind_int(s, 3, t->pageblock_order);
		if (t->pagetype_us >= 0)
			sqlite3_bind_int64(s, 4, t->pagetype_us);
		if (t->slabinfo_us >= 0)
			sqlite3_bind_int64(s, 5, t->slabinfo_us);
		if ((rc = stmts_step(w->s, S_SLOW)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < t->nslab; i++) {
		const struct tick_slab *r = &t->slab[i];
		sqlite3_stmt *s = w->s->s[S_SLAB];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		sqlite3_bind_int(s, 3, r->name_id);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)r->active);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)r->num);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)r->objsize);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)r->perslab);
		sqlite3_bind_int64(s, 8, (sqlite3_int64)r->pages);
		if ((rc = stmts_step(w->s, S_SLAB)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < t->nprobes; i++) {
		const struct tick_probe *r = &t->probes[i];
		sqlite3_stmt *s = w->s->s[S_PROBE];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, r->ts_ms);
		sqlite3_bind_text(s, 3, r->kind, -1, SQLITE_STATIC);
		sqlite3_bind_double(s, 4, r->result);
		sqlite3_bind_text(s, 5, r->stop_reason, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 6, r->duration_ms);
		if (r->buddy)
			sqlite3_bind_text(s, 7, r->buddy, -1, SQLITE_STATIC);
		if (r->gfp_mode[0])
			sqlite3_bind_text(s, 8, r->gfp_mode, -1, SQLITE_STATIC);
		if ((rc = stmts_step(w->s, S_PROBE)) != SQLITE_OK || (rc = write_probe_columns(w, t->run_id, r)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < t->nchecks; i++) {
		const struct store_model_check *c = &t->checks[i];
		sqlite3_stmt *s = w->s->s[S_MODEL_CHECK];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		sqlite3_bind_int(s, 3, c->page_order);
		sqlite3_bind_int(s, 4, c->mode);
		sqlite3_bind_int(s, 5, c->predicted_ok);
		sqlite3_bind_int(s, 6, c->actual_ok);
		sqlite3_bind_int64(s, 7, c->margin_pages);
		if ((rc = stmts_step(w->s, S_MODEL_CHECK)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* The fragmenting load's row (values past INT64_MAX do not occur: they are bytes and counts). */
static int write_fragment(struct wr *w, const struct store_tick *t)
{
	sqlite3_stmt *s = w->s->s[S_FRAGMENT];
	const struct store_fragment *f = &t->frag;
	const uint64_t v[] = { f->cycles, f->anon_bytes, f->pipe_bytes, f->pgtable_bytes, f->socket_bytes, f->files,
			       f->kept_bytes, f->alloc_failed };

	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, t->ts_ms);
	sqlite3_bind_int(s, 3, f->state);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		sqlite3_bind_int64(s, 4 + (int)i, (sqlite3_int64)v[i]);
	return stmts_step(w->s, S_FRAGMENT);
}

/* A late tick's row (v_tick_late): sparse, so a healthy run stores none. */
static int write_late(struct wr *w, const struct store_tick *t)
{
	sqlite3_stmt *s = w->s->s[S_TICK_LATE];

	sqlite3_bind_int64(s, 1, t->run_id);
	sqlite3_bind_int64(s, 2, t->ts_ms);
	sqlite3_bind_int64(s, 3, t->late_ms);
	sqlite3_bind_int64(s, 4, t->missed);
	return stmts_step(w->s, S_TICK_LATE);
}

static int write_tick(struct wr *w, const struct store_tick *t)
{
	int rc;

	if ((rc = rollup_write_rows(w->s, t)) != SQLITE_OK)
		return rc;
	if (t->no_sample)
		return SQLITE_OK;
	if ((rc = write_sample(w, t)) != SQLITE_OK)
		return rc;
	if ((t->late_ms >= STORE_LATE_MS || t->missed > 0) && (rc = write_late(w, t)) != SQLITE_OK)
		return rc;
	if ((rc = write_zones(w, t)) != SQLITE_OK)
		return rc;
	if (t->have_frag && (rc = write_fragment(w, t)) != SQLITE_OK)
		return rc;
	for (int i = 0; i < t->nkv; i++) {
		enum stmt_id id = t->kv[i].src == SRC_COUNTER ? S_COUNTER : S_VMSTAT;
		sqlite3_stmt *s = w->s->s[id];
		sqlite3_bind_int64(s, 1, t->run_id);
		sqlite3_bind_int64(s, 2, t->ts_ms);
		sqlite3_bind_int(s, 3, t->kv[i].name_id);
		/* Counters beyond INT64_MAX do not occur in practice; store the bit pattern. */
		sqlite3_bind_int64(s, 4, (sqlite3_int64)t->kv[i].value);
		if ((rc = stmts_step(w->s, id)) != SQLITE_OK)
			return rc;
	}
	if ((rc = write_trace(w->s, t)) != SQLITE_OK || (rc = write_causes(w->s, t)) != SQLITE_OK)
		return rc;
	return write_tick_slow(w, t);
}

int write_ticks(struct rowlog *rl, struct stmts *s, const struct dims *d, const struct store_tick *head)
{
	struct wr w = { s, rl, d, 0, 0 };
	int rc;

	memcpy(rl->zsaved, rl->zlast, (size_t)d->nzones * sizeof rl->zlast[0]);
	rc = stmts_step(s, S_BEGIN);
	if (rc == SQLITE_OK)
		rc = dims_write(d, s);
	for (const struct store_tick *t = head; rc == SQLITE_OK && t; t = t->next)
		rc = write_tick(&w, t);
	if (rc == SQLITE_OK)
		rc = count_ticks(&w);
	if (rc == SQLITE_OK)
		rc = stmts_step(s, S_COMMIT);
	if (rc != SQLITE_OK) {
		if (!sqlite3_get_autocommit(sqlite3_db_handle(s->s[S_BEGIN])))
			stmts_step(s, S_ROLLBACK);
		/* The rolled-back zone rows were never stored: compare the retry with what is. */
		memcpy(rl->zlast, rl->zsaved, (size_t)d->nzones * sizeof rl->zlast[0]);
		/* Nor, perhaps, the key or the request rows: read them again. */
		memset(&rl->key, 0, sizeof rl->key);
		memset(&rl->req, 0, sizeof rl->req);
	}
	return rc;
}
