/* SPDX-License-Identifier: GPL-2.0-only */
/* causes: failed allocations classified against the nearest zone state; see causes.h. */
#include "daemon/causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "daemon/sampler.h"
#include "daemon/tracewatch.h"
#include "kmod/fpusoak_gfp.h"
#include "store/store.h"

/* One tick's zone state. */
struct snap {
	int64_t wall_ms;               /* 0: empty slot */
	int nzones, local;
	int nlayout;
	char layout[CAUSES_LAYOUT_MAX][ZONE_NAME_MAX];
	struct cause_zone z[CAUSE_MAX_ZONES];
};

struct causes {
	int have_kver;
	uint64_t page_kb;              /* zoneinfo and buddyinfo count pages of this many kB */
	char comm[17];                 /* the daemon's own (a model check's TRY is its allocation) */
	struct atomic_kver kver;
	int next;                      /* ring slot the next snapshot goes to */
	struct snap ring[CAUSES_RING];
	uint64_t counts[CAUSES_SOURCES][CAUSE_COUNT][CAUSES_ORDERS];
};

struct causes *causes_open(const char *kernel_release)
{
	struct causes *c = calloc(1, sizeof *c);

	long ps = sysconf(_SC_PAGESIZE);

	if (!c)
		return NULL;
	c->have_kver = kernel_release && atomic_kver_parse(kernel_release, &c->kver) == 0;
	c->page_kb = ps >= 1024 ? (uint64_t)ps / 1024 : 4;
	if (prctl(PR_GET_NAME, c->comm, 0, 0, 0) < 0)
		snprintf(c->comm, sizeof c->comm, "fpusoakd");
	return c;
}

void causes_close(struct causes *c)
{
	free(c);
}

int causes_layout(const struct zoneinfo *zi, const char **names, int cap)
{
	int n = 0, node;

	if (!zi || zi->nzones == 0)
		return 0;
	node = zi->z[0].node;
	for (int i = 0; i < zi->nzones; i++) {
		const struct zoneinfo_zone *z = &zi->z[i];
		if (z->node != node)
			continue;
		/* Before 4.12 empty zones were left out: no position is then an index. */
		if (z->idx != n || n == cap)
			return 0;
		names[n++] = z->zone;
	}
	return n;
}

static int lookup(const char *const *names, int n, const char *name)
{
	return cause_zone_index(names, n, name);
}

int causes_dump_zones(const struct memdump *d, const char *const *names, int nnames, int pageblock_order,
		      struct cause_zone *out, int cap)
{
	if (!memdump_complete(d) || d->nzones > cap || d->z[0].page_kb == 0)
		return -1;
	for (int i = 0; i < d->nzones; i++) {
		const struct memdump_zone *m = &d->z[i];
		struct cause_zone *z = &out[i];
		uint64_t pk = m->page_kb;
		int any_h = 0;

		memset(z, 0, sizeof *z);
		z->node = m->node;
		z->idx = lookup(names, nnames, m->name);
		if (z->idx < 0 || m->nprot > CAUSE_MAX_PROT || m->norders > CAUSE_MAX_ORDERS)
			return -1;
		snprintf(z->name, sizeof z->name, "%s", m->name);
		z->free = m->free_kb / pk;
		z->min = m->min_kb / pk;
		z->boost = m->boost_kb / pk;
		z->free_cma = m->free_cma_kb / pk;
		z->nprot = m->nprot;
		memcpy(z->prot, m->prot, (size_t)m->nprot * sizeof z->prot[0]);
		z->norders = m->norders;
		for (int o = 0; o < m->norders; o++) {
			z->nr[o] = m->nr[o];
			z->types[o] = m->types[o];   /* the letters are the same bits (collector/memdump.h) */
			any_h |= (m->types[o] & MEMDUMP_MT_H) != 0;
		}
		z->types_known = 1;
		if (m->have & MEMDUMP_HIGHATOMIC) {
			z->highatomic_lo = z->highatomic_hi = m->reserved_highatomic_kb / pk;
		} else {
			/* Not printed (before 5.x): H-typed free blocks mean at least one reserved pageblock. */
			uint64_t cap_pages = (m->have & MEMDUMP_MANAGED) ? cause_highatomic_cap(m->managed_kb / pk,
											pageblock_order) : 0;
			z->highatomic_lo = any_h && pageblock_order >= 0 ? UINT64_C(1) << pageblock_order : 0;
			z->highatomic_hi = cap_pages ? cap_pages : z->free;
			if (z->highatomic_hi < z->highatomic_lo)
				z->highatomic_hi = z->highatomic_lo;
		}
	}
	return d->nzones;
}

/* Every free block of the zone sits on a list any request may use: no highatomic, CMA or isolated pageblock. */
static int no_reserve_lists(const struct pagetypeinfo *pt, const struct pagetypeinfo_zone *pz,
			    const struct zoneinfo_zone *z)
{
	static const char *const RESERVED[] = { "HighAtomic", "CMA", "Isolate" };

	if (!pt || !pz || z->nr_free_cma)
		return 0;
	for (size_t k = 0; k < sizeof RESERVED / sizeof RESERVED[0]; k++) {
		int t = pagetypeinfo_type_index(pt, RESERVED[k]);
		if (t >= 0 && pz->blocks[t])
			return 0;
	}
	return 1;
}

int causes_sample_zones(const struct zoneinfo *zi, const struct buddyinfo *bi, const struct pagetypeinfo *pt,
			struct cause_zone *out, int cap)
{
	int n = 0;

	for (int i = 0; i < bi->nzones; i++) {
		const struct buddy_zone *b = &bi->z[i];
		const struct zoneinfo_zone *z = zoneinfo_find(zi, b->node, b->zone);
		const struct pagetypeinfo_zone *pz = pt ? pagetypeinfo_find_zone(pt, b->node, b->zone) : NULL;
		struct cause_zone *cz;
		int ha = pt ? pagetypeinfo_type_index(pt, "HighAtomic") : -1;

		if (!z || !z->populated)
			continue;
		if (z->idx < 0 || n == cap || bi->norders > CAUSE_MAX_ORDERS)
			return -1;
		cz = &out[n++];
		memset(cz, 0, sizeof *cz);
		cz->node = z->node;
		cz->idx = z->idx;
		snprintf(cz->name, sizeof cz->name, "%s", z->zone);
		cz->free = z->free;
		cz->min = z->min;
		cz->boost = z->boost;
		cz->free_cma = z->nr_free_cma;
		cz->unaccepted = z->nr_unaccepted;
		cz->nprot = z->nprot < CAUSE_MAX_PROT ? z->nprot : CAUSE_MAX_PROT;
		memcpy(cz->prot, z->protection, (size_t)cz->nprot * sizeof cz->prot[0]);
		cz->norders = bi->norders;
		memcpy(cz->nr, b->free, (size_t)bi->norders * sizeof cz->nr[0]);
		/* nr_reserved_highatomic is a whole number of HighAtomic pageblocks (reserve_highatomic_pageblock). */
		if (pz && ha >= 0)
			cz->highatomic_lo = cz->highatomic_hi = pz->blocks[ha] * pt->pages_per_block;
		else if (pz)
			cz->highatomic_lo = cz->highatomic_hi = 0;   /* the kernel has no such type */
		else
			cz->highatomic_hi = pt ? cause_highatomic_cap(z->managed, pt->pageblock_order) : z->free;
		cz->no_reserve_lists = no_reserve_lists(pt, pz, z);
	}
	return n;
}

void causes_add_snapshot(struct causes *c, const struct cause_zone *z, int n, const char *const *names, int nnames,
			 int64_t wall_ms)
{
	struct snap *sn;

	if (!c || n <= 0 || n > CAUSE_MAX_ZONES || nnames < 0)
		return;
	sn = &c->ring[c->next];
	if (z != sn->z)
		memcpy(sn->z, z, (size_t)n * sizeof *z);
	sn->nzones = n;
	sn->nlayout = nnames < CAUSES_LAYOUT_MAX ? nnames : CAUSES_LAYOUT_MAX;
	for (int i = 0; i < sn->nlayout; i++)
		snprintf(sn->layout[i], sizeof sn->layout[i], "%s", names[i]);
	sn->local = -1;
	sn->wall_ms = wall_ms;
	c->next = (c->next + 1) % CAUSES_RING;
}

void causes_snapshot(struct causes *c, const struct sampler *s, int64_t wall_ms)
{
	const struct zoneinfo *zi = sampler_zoneinfo(s);
	const struct buddyinfo *bi = sampler_buddyinfo(s);
	const char *names[CAUSES_LAYOUT_MAX];
	struct snap *sn;
	int n;

	if (!c || !zi || !bi)
		return;
	/* Converted straight into the slot the snapshot goes to (20 KiB: no copy). */
	sn = &c->ring[c->next];
	n = causes_sample_zones(zi, bi, sampler_pagetypeinfo(s), sn->z, CAUSE_MAX_ZONES);
	if (n <= 0) {
		sn->wall_ms = 0;   /* its zones are gone: the slot holds nothing now */
		return;
	}
	causes_add_snapshot(c, sn->z, n, names, causes_layout(zi, names, CAUSES_LAYOUT_MAX), wall_ms);
}

static void row_init(struct causes_row *r, int source, int64_t ts_ms, unsigned order)
{
	memset(r, 0, sizeof *r);
	r->ts_ms = ts_ms;
	r->source = source;
	r->order = (int)order;
	r->cause = CAUSE_UNKNOWN;
	r->node = -1;
	r->free_kb = r->min_kb = -1;
	r->largest_order = -1;
}

/* Fill the row from a classification (page_kb: kB per page). */
static void row_result(struct causes_row *r, const struct cause_zone *z, const struct cause_result *res,
		       uint64_t page_kb)
{
	r->cause = res->cause;
	r->note = res->why;
	if (res->zone < 0)
		return;
	snprintf(r->zone, sizeof r->zone, "%s", z[res->zone].name);
	r->node = z[res->zone].node;
	r->free_kb = (int64_t)(res->free_pages * page_kb);
	r->min_kb = (int64_t)(res->mark_pages * page_kb);
	r->largest_order = res->largest_usable_order;
}

/* The layout as const pointers. */
static int layout_of(const struct snap *sn, const char **names)
{
	for (int i = 0; i < sn->nlayout; i++)
		names[i] = sn->layout[i];
	return sn->nlayout;
}

/* The latest snapshot, for the layout a dump needs; NULL before the first. */
static const struct snap *latest(const struct causes *c)
{
	const struct snap *best = NULL;

	for (int i = 0; i < CAUSES_RING; i++)
		if (c->ring[i].wall_ms && (!best || c->ring[i].wall_ms > best->wall_ms))
			best = &c->ring[i];
	return best;
}

void causes_from_dump(struct causes *c, const struct memdump *d, int64_t ts_ms, unsigned order,
		      const struct gfp_info *gfp, const char *names, size_t len, struct causes_row *out)
{
	static struct cause_zone z[CAUSE_MAX_ZONES];   /* 20 KiB: static, off the loop's stack */
	const char *layout[CAUSES_LAYOUT_MAX];
	const struct snap *sn = c ? latest(c) : NULL;
	struct cause_request rq;
	struct cause_result res;
	int n, nl;

	row_init(out, CAUSES_KMSG, ts_ms, order);
	out->note = "no Mem-Info dump";
	if (!c || !d || !memdump_complete(d)) {
		if (d && d->nzones)
			out->note = "Mem-Info dump incomplete";
		return;
	}
	if (!c->have_kver || !sn || !gfp) {
		out->note = !gfp ? "GFP flags not named" : "zone layout or kernel release unknown";
		return;
	}
	nl = layout_of(sn, layout);
	n = causes_dump_zones(d, layout, nl, -1, z, CAUSE_MAX_ZONES);
	if (n <= 0) {
		out->note = "dump zones not in the zone layout";
		return;
	}
	memset(&rq, 0, sizeof rq);
	rq.order = order;
	cause_gfp(gfp, names, len, &rq.gfp);
	rq.highest_idx = cause_highest_index(layout, nl, cause_zone_type_of(gfp));
	cause_classify(z, n, &rq, c->kver, -1, &res);
	out->has_lag = 1;
	out->lag_ms = 0;
	row_result(out, z, &res, d->z[0].page_kb);
}

/* The ring's sample nearest to ts_ms within CAUSES_MAX_LAG_MS; NULL if none. */
static const struct snap *nearest(const struct causes *c, int64_t ts_ms)
{
	const struct snap *best = NULL;
	int64_t best_d = 0;

	for (int i = 0; i < CAUSES_RING; i++) {
		const struct snap *sn = &c->ring[i];
		int64_t dist = ts_ms > sn->wall_ms ? ts_ms - sn->wall_ms : sn->wall_ms - ts_ms;

		if (!sn->wall_ms || dist > CAUSES_MAX_LAG_MS)
			continue;
		if (!best || dist < best_d) {
			best = sn;
			best_d = dist;
		}
	}
	return best;
}

void causes_from_sample(struct causes *c, int source, int64_t ts_ms, unsigned order, const struct atomic_gfp *g,
			enum cause_zone_type zt, struct causes_row *out)
{
	const char *layout[CAUSES_LAYOUT_MAX];
	const struct snap *sn = c ? nearest(c, ts_ms) : NULL;
	struct cause_request rq;
	struct cause_result res;
	int nl;

	row_init(out, source, ts_ms, order);
	if (!sn) {
		out->note = "no zone state within 1 s";
		return;
	}
	out->has_lag = 1;
	out->lag_ms = ts_ms - sn->wall_ms;
	nl = layout_of(sn, layout);
	if (!c->have_kver || nl == 0) {
		out->note = "zone layout or kernel release unknown";
		return;
	}
	memset(&rq, 0, sizeof rq);
	rq.order = order;
	rq.gfp = *g;
	rq.highest_idx = cause_highest_index(layout, nl, zt);
	cause_classify(sn->z, sn->nzones, &rq, c->kver, sn->local, &res);
	row_result(out, sn->z, &res, c->page_kb);
}

/* Attach a classified row to t with what the store keeps beside it; counted once stored. */
static int store_row(struct causes *c, const struct causes_row *r, const char *comm, size_t comm_len, int64_t pid,
		     const char *gfp_flags, const char *note, struct store_tick *t)
{
	struct store_failure_cause fc = {
		.ts_ms = r->ts_ms, .source = r->source, .comm = comm, .comm_len = comm_len, .pid = pid,
		.order = r->order, .gfp_flags = gfp_flags, .cause = r->cause, .node = r->node, .zone = r->zone,
		.free_kb = r->free_kb, .min_kb = r->min_kb, .largest_order = r->largest_order, .has_lag = r->has_lag,
		.lag_ms = r->lag_ms, .note = note ? note : r->note,
	};

	if (store_tick_failure_cause(t, &fc) < 0)
		return -1;
	causes_count(c, r);
	return 0;
}

int causes_trace(struct causes *c, const struct tracewatch_failure *f, int n, struct store_tick *t)
{
	for (int i = 0; c && t && i < n; i++) {
		struct causes_row r;
		struct gfp_info g;

		if (gfp_decode(f[i].gfp_flags, strlen(f[i].gfp_flags), &g) == 0 && g.unknown == 0) {
			struct atomic_gfp ag;
			cause_gfp(&g, f[i].gfp_flags, strlen(f[i].gfp_flags), &ag);
			causes_from_sample(c, CAUSES_TRACE, f[i].ts_ms, f[i].order < 0 ? 0 : (unsigned)f[i].order, &ag,
					   cause_zone_type_of(&g), &r);
		} else {
			row_init(&r, CAUSES_TRACE, f[i].ts_ms, f[i].order < 0 ? 0 : (unsigned)f[i].order);
			r.note = "GFP flags not named";
		}
		if (store_row(c, &r, f[i].comm, strlen(f[i].comm), f[i].pid, f[i].gfp_flags, NULL, t) < 0)
			return -1;
	}
	return 0;
}

/* What the module asked the allocator for, as the kernel would print it (TRY: __GFP_NOWARN, no kswapd). */
static const char *module_flags(int mode, int try, int reserves_era)
{
	switch (mode) {
	case FPUSOAK_GFP_ATOMIC:
		return try ? (reserves_era ? "__GFP_HIGH|__GFP_NOWARN" : "__GFP_HIGH|__GFP_ATOMIC|__GFP_NOWARN")
			   : "GFP_ATOMIC|__GFP_COMP";
	case FPUSOAK_GFP_NOWAIT:
		return try ? "__GFP_NOWARN" : "GFP_NOWAIT|__GFP_COMP";
	default:
		return try ? "GFP_KERNEL|__GFP_NOWARN" : "GFP_KERNEL|__GFP_COMP";
	}
}

int causes_module(struct causes *c, int64_t ts_ms, const char *what, int mode, unsigned order, int64_t pid,
		  struct store_tick *t)
{
	struct atomic_gfp g = { 0 };
	struct causes_row r;
	char note[96];
	int try = strcmp(what, "TRY") == 0;

	if (!c || !t)
		return 0;
	g.high = g.atomic = mode == FPUSOAK_GFP_ATOMIC;
	g.direct_reclaim = mode == FPUSOAK_GFP_KERNEL;
	causes_from_sample(c, CAUSES_MODULE, ts_ms, order, &g, CAUSE_ZT_NORMAL, &r);
	snprintf(note, sizeof note, "%s: %s", what, r.note ? r.note : "");
	return store_row(c, &r, try ? c->comm : NULL, try ? strlen(c->comm) : 0, pid,
			 module_flags(mode, try, c->have_kver && atomic_era_of(c->kver) == ATOMIC_ERA_RESERVES), note, t);
}

void causes_count(struct causes *c, const struct causes_row *r)
{
	if (!c || r->source < 1 || r->source > CAUSES_SOURCES || (unsigned)r->cause >= CAUSE_COUNT)
		return;
	c->counts[r->source - 1][r->cause][r->order < 0 ? 0 : r->order >= CAUSES_ORDERS ? CAUSES_ORDERS - 1
												: r->order]++;
}

const uint64_t (*causes_counts(const struct causes *c))[CAUSE_COUNT][CAUSES_ORDERS]
{
	return (const uint64_t (*)[CAUSE_COUNT][CAUSES_ORDERS])c->counts;
}
