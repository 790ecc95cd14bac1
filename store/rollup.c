/* SPDX-License-Identifier: GPL-2.0-only */
/* rollup: in-memory minute/hour buckets; see rollup.h. */
#include "store/rollup.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/frag.h"

static void zo_reset(struct rollup_zo *o)
{
	memset(o, 0, sizeof *o);
}

void rollup_reset(struct rollup_bucket *b, int64_t run_id, int64_t bucket_ms)
{
	for (int i = 0; i < ROLLUP_MAX_ZONES; i++)
		if (b->z[i]) {
			b->z[i]->norders = 0;
			for (int k = 0; k < ROLLUP_MAX_ORDER; k++)
				zo_reset(&b->z[i]->o[k]);
		}
	memset(&b->t, 0, sizeof b->t);
	b->run_id = run_id;
	b->bucket_ms = bucket_ms;
	b->active = 0;
}

void rollup_free(struct rollup_bucket *b)
{
	for (int i = 0; i < ROLLUP_MAX_ZONES; i++) {
		free(b->z[i]);
		b->z[i] = NULL;
	}
	b->active = 0;
}

void rollup_add_tick(struct rollup_bucket *b, int64_t ts_ms, uint32_t sample_us, const int64_t *mem,
		     uint32_t mem_mask, const int64_t *churn)
{
	struct rollup_ticks *t = &b->t;

	b->active = 1;
	/* The exact span: a run's exposure must not start at its first bucket's start. */
	if (t->n == 0 || ts_ms < t->first_ms)
		t->first_ms = ts_ms;
	if (t->n == 0 || ts_ms > t->last_ms)
		t->last_ms = ts_ms;
	t->n++;
	t->us_sum += sample_us;
	for (int k = 0; k < STORE_NMEMINFO; k++)
		if (mem_mask & (1u << k)) {
			t->mem_sum[k] += mem[k];
			t->mem_n[k]++;
		}
	if (churn) {
		if (t->churn_n == 0 || churn[0] > t->pop_max)
			t->pop_max = churn[0];
		t->churn_n++;
		for (int k = 0; k < STORE_NCHURN; k++)
			t->churn_sum[k] += churn[k];
	}
}

void rollup_add_trace(struct rollup_bucket *b, int64_t fallbacks, int64_t fragmenting)
{
	b->active = 1;
	b->t.trace_n++;
	b->t.trace_xf += fallbacks;
	b->t.trace_frag += fragmenting;
}

void rollup_add_trace_failure(struct rollup_bucket *b, int order, int cls)
{
	int k = order < 0 ? 0 : order >= ROLLUP_MAX_ORDER ? ROLLUP_MAX_ORDER - 1 : order;

	b->active = 1;
	b->t.trace_fail++;
	b->t.trace_fail_oc[k][cls < 0 || cls >= ROLLUP_TRACE_CLASSES ? 0 : cls]++;
}

void rollup_add_failure_cause(struct rollup_bucket *b, int source, int cause, int order)
{
	int k = order < 0 ? 0 : order >= ROLLUP_MAX_ORDER ? ROLLUP_MAX_ORDER - 1 : order;

	if (source < 1 || source > ROLLUP_CAUSE_SOURCES || cause < 0 || cause >= ROLLUP_CAUSES)
		return;
	b->active = 1;
	b->t.cause_n[source - 1][cause][k]++;
}

static struct rollup_zone *zone_slot(struct rollup_bucket *b, int zone_id)
{
	if (zone_id < 0 || zone_id >= ROLLUP_MAX_ZONES)
		return NULL;
	if (!b->z[zone_id])
		b->z[zone_id] = calloc(1, sizeof *b->z[zone_id]);
	return b->z[zone_id];
}

/* Saturate: free-block counts are u64 from the kernel, columns are SQLite's i64. */
static int64_t clamp64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Fold s (a later tick or bucket) into d: the one rule for ticks, minutes and hours. */
static void zo_merge(struct rollup_zo *d, const struct rollup_zo *s)
{
	if (s->n) {
		if (d->n == 0) {
			d->free_min = s->free_min;
			d->free_max = s->free_max;
			d->head_min = s->head_min;
			d->head_max = s->head_max;
			d->unusable_max = s->unusable_max;
		} else {
			if (s->free_min < d->free_min) d->free_min = s->free_min;
			if (s->free_max > d->free_max) d->free_max = s->free_max;
			if (s->head_min < d->head_min) d->head_min = s->head_min;
			if (s->head_max > d->head_max) d->head_max = s->head_max;
			if (s->unusable_max > d->unusable_max) d->unusable_max = s->unusable_max;
		}
		d->n += s->n;
		d->free_sum += s->free_sum;
		d->head_sum += s->head_sum;
		d->free_last = s->free_last;   /* src is the later bucket */
		d->head_last = s->head_last;
	}
	d->atomic_n += s->atomic_n;
	d->atomic_fail_n += s->atomic_fail_n;
	d->atomic_only_n += s->atomic_only_n;
	d->kernel_fail_n += s->kernel_fail_n;
	if (s->has_margin) {
		if (!d->has_margin || s->margin_min < d->margin_min)
			d->margin_min = s->margin_min;
		if (!d->has_margin || s->kernel_margin_min < d->kernel_margin_min)
			d->kernel_margin_min = s->kernel_margin_min;
		d->has_margin = 1;
	}
}

/* The zone's slot for one tick's row of norders orders (clamped), the bucket marked used; NULL if unusable. */
static struct rollup_zone *zone_open(struct rollup_bucket *b, int zone_id, int *norders)
{
	struct rollup_zone *z = *norders < 0 ? NULL : zone_slot(b, zone_id);

	if (!z)
		return NULL;
	if (*norders > ROLLUP_MAX_ORDER)
		*norders = ROLLUP_MAX_ORDER;
	b->active = 1;
	return z;
}

int rollup_add_buddy(struct rollup_bucket *b, int zone_id, int norders, const uint64_t *free)
{
	struct rollup_zone *z = zone_open(b, zone_id, &norders);

	if (!z)
		return -1;
	if (norders > z->norders)
		z->norders = norders;
	for (int k = 0; k < norders; k++) {
		struct rollup_zo *o = &z->o[k];
		struct frag_info fi;
		int64_t f = clamp64(free[k]), h = clamp64(frag_headroom(free, norders, (unsigned)k));
		int64_t u;

		frag_fill(free, norders, (unsigned)k, &fi);
		u = frag_unusable_index((unsigned)k, &fi);
		zo_merge(o, &(struct rollup_zo){ .n = 1, .free_min = f, .free_max = f, .free_sum = f, .free_last = f,
						 .head_min = h, .head_max = h, .head_sum = h, .head_last = h,
						 .unusable_max = u });
	}
	return 0;
}

int rollup_add_atomic(struct rollup_bucket *b, int zone_id, int norders, uint32_t atomic_mask, uint32_t kernel_mask,
		      int64_t margin0, int64_t kernel_margin0, int legacy)
{
	struct rollup_zone *z = zone_open(b, zone_id, &norders);

	if (!z)
		return -1;
	for (int k = 0; k < norders; k++) {
		int aok = (atomic_mask >> k) & 1, kok = (kernel_mask >> k) & 1;
		/* As v_atomic_risk: margin_pages(k) = margin0 - ((1 << k) - 1) on kernels >= 4.4. */
		int64_t step = ((int64_t)1 << k) - 1;

		zo_merge(&z->o[k], &(struct rollup_zo){ .atomic_n = 1, .atomic_fail_n = !aok, .atomic_only_n = !aok && kok,
							 .kernel_fail_n = !kok, .has_margin = !legacy,
							 .margin_min = margin0 - step, .kernel_margin_min = kernel_margin0 - step });
	}
	return 0;
}

void rollup_add_request(struct rollup_bucket *b, int norders, uint32_t atomic_mask, uint32_t nowait_mask,
			uint32_t kernel_mask)
{
	struct rollup_ticks *t = &b->t;

	for (int k = 0; k < norders && k < ROLLUP_MAX_ORDER; k++) {
		int a = (atomic_mask >> k) & 1, nw = (nowait_mask >> k) & 1, kr = (kernel_mask >> k) & 1;
		t->req_n[k]++;
		t->req_afail[k] += !a;
		t->req_nfail[k] += !nw;
		t->req_kfail[k] += !kr;
		t->req_aonly[k] += !a && kr;
		t->req_nonly[k] += !nw && kr;
	}
}

int rollup_merge(struct rollup_bucket *dst, const struct rollup_bucket *src)
{
	const struct rollup_ticks *s = &src->t;
	struct rollup_ticks *d = &dst->t;

	if (!src->active)
		return 0;
	for (int i = 0; i < ROLLUP_MAX_ZONES; i++) {
		struct rollup_zone *dz;
		if (!src->z[i])
			continue;
		if (!(dz = zone_slot(dst, i)))
			return -1;
		if (src->z[i]->norders > dz->norders)
			dz->norders = src->z[i]->norders;
		for (int k = 0; k < ROLLUP_MAX_ORDER; k++)
			zo_merge(&dz->o[k], &src->z[i]->o[k]);
	}
	dst->active = 1;
	if (s->churn_n && (d->churn_n == 0 || s->pop_max > d->pop_max))
		d->pop_max = s->pop_max;
	if (s->n && (d->n == 0 || s->first_ms < d->first_ms))
		d->first_ms = s->first_ms;
	if (s->n && (d->n == 0 || s->last_ms > d->last_ms))
		d->last_ms = s->last_ms;
	d->n += s->n;
	d->us_sum += s->us_sum;
	for (int k = 0; k < STORE_NMEMINFO; k++) {
		d->mem_sum[k] += s->mem_sum[k];
		d->mem_n[k] += s->mem_n[k];
	}
	d->churn_n += s->churn_n;
	for (int k = 0; k < STORE_NCHURN; k++)
		d->churn_sum[k] += s->churn_sum[k];
	d->trace_n += s->trace_n;
	d->trace_fail += s->trace_fail;
	d->trace_xf += s->trace_xf;
	d->trace_frag += s->trace_frag;
	for (int k = 0; k < ROLLUP_MAX_ORDER; k++)
		for (int c = 0; c < ROLLUP_TRACE_CLASSES; c++)
			d->trace_fail_oc[k][c] += s->trace_fail_oc[k][c];
	for (int so = 0; so < ROLLUP_CAUSE_SOURCES; so++)
		for (int c = 0; c < ROLLUP_CAUSES; c++)
			for (int k = 0; k < ROLLUP_MAX_ORDER; k++)
				d->cause_n[so][c][k] += s->cause_n[so][c][k];
	for (int k = 0; k < ROLLUP_MAX_ORDER; k++) {
		d->req_n[k] += s->req_n[k];
		d->req_afail[k] += s->req_afail[k];
		d->req_nfail[k] += s->req_nfail[k];
		d->req_kfail[k] += s->req_kfail[k];
		d->req_aonly[k] += s->req_aonly[k];
		d->req_nonly[k] += s->req_nonly[k];
	}
	return 0;
}
