/* SPDX-License-Identifier: GPL-2.0-only */
/* cause: watermark, fragmentation, reserve or unknown for one failed allocation; see cause.h. */
#include "analysis/cause.h"

#include <string.h>

/* What one zone of the walk says, in one of the worlds the uncertain inputs allow. */
enum { FREE_FAIL, FREE_PASS, FREE_UNSURE };
enum { BLOCK_NONE, BLOCK_USABLE, BLOCK_RESERVE, BLOCK_UNSURE };

struct zone_eval {
	int free_lo, free_hi;      /* the free-page test with the reserve at its low end, at its high end */
	int block;                 /* BLOCK_*: blocks of the order on lists the request may (not) use */
	int largest;               /* largest order with a block it may certainly use, -1 none */
	uint64_t mark;             /* free pages had to exceed this (low end of the reserve) */
};

static const char *const NAMES[CAUSE_COUNT] = { "unknown", "watermark", "fragmentation", "reserve" };

const char *cause_name(enum cause c)
{
	return (unsigned)c < CAUSE_COUNT ? NAMES[c] : "unknown";
}

int cause_parse(const char *s, size_t len, enum cause *out)
{
	for (int c = 0; c < CAUSE_COUNT; c++)
		if (strlen(NAMES[c]) == len && memcmp(NAMES[c], s, len) == 0) {
			*out = (enum cause)c;
			return 0;
		}
	return -1;
}

int cause_zone_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int cause_highest_index(const char *const *names, int n, enum cause_zone_type zt)
{
	static const char *const TYPE[] = { "DMA", "DMA32", "Normal", "HighMem", "Movable" };
	int i = (unsigned)zt < sizeof TYPE / sizeof TYPE[0] ? cause_zone_index(names, n, TYPE[zt]) : -1;

	/* OPT_ZONE_DMA, OPT_ZONE_DMA32, OPT_ZONE_HIGHMEM: a type the kernel was built without is Normal. */
	return i >= 0 ? i : cause_zone_index(names, n, "Normal");
}

uint64_t cause_highatomic_cap(uint64_t managed_pages, int pageblock_order)
{
	uint64_t pb;

	if (pageblock_order < 0 || pageblock_order > 30)
		return 0;
	pb = UINT64_C(1) << pageblock_order;
	/* reserve_highatomic_pageblock() stops adding once it reaches managed/100 + one pageblock (4.x-6.x;
	 * newer kernels round that to whole pageblocks): it can end at most one pageblock above. */
	return managed_pages / 100 + 2 * pb;
}

/* The token "GFP_ATOMIC" in a printed flag list ("GFP_ATOMIC|__GFP_COMP"). */
static int has_token(const char *s, size_t len, const char *tok)
{
	size_t tl = strlen(tok);

	for (size_t i = 0; s && i + tl <= len; i++)
		if ((i == 0 || s[i - 1] == '|') && memcmp(s + i, tok, tl) == 0 && (i + tl == len || s[i + tl] == '|'))
			return 1;
	return 0;
}

void cause_gfp(const struct gfp_info *g, const char *names, size_t len, struct atomic_gfp *out)
{
	memset(out, 0, sizeof *out);
	out->high = (g->bits & GFPB(GFPB_HIGH)) != 0;
	/* collector/gfp.h leaves __GFP_ATOMIC out of GFP_ATOMIC; before 6.3 the composite had it. */
	out->atomic = (g->bits & GFPB(GFPB_ATOMIC)) != 0 || has_token(names, len, "GFP_ATOMIC");
	out->direct_reclaim = (g->bits & GFPB(GFPB_DIRECT_RECLAIM)) != 0;
	out->nomemalloc = (g->bits & GFPB(GFPB_NOMEMALLOC)) != 0;
	/* gfp_migratetype(): __GFP_MOVABLE alone is MIGRATE_MOVABLE. */
	out->movable = (g->bits & GFPB(GFPB_MOVABLE)) && !(g->bits & GFPB(GFPB_RECLAIMABLE));
}

enum cause_zone_type cause_zone_type_of(const struct gfp_info *g)
{
	if (g->bits & GFPB(GFPB_DMA))
		return CAUSE_ZT_DMA;
	if (g->bits & GFPB(GFPB_DMA32))
		return CAUSE_ZT_DMA32;
	if ((g->bits & GFPB(GFPB_HIGHMEM)) && (g->bits & GFPB(GFPB_MOVABLE)))
		return CAUSE_ZT_MOVABLE;
	if (g->bits & GFPB(GFPB_HIGHMEM))
		return CAUSE_ZT_HIGHMEM;
	return CAUSE_ZT_NORMAL;
}

/* Zonelist order: the local node first, other nodes by number; in a node, the highest zone index first. */
static int walk_before(const struct cause_zone *x, const struct cause_zone *y, int local)
{
	if (x->node != y->node) {
		if ((x->node == local) != (y->node == local))
			return x->node == local;
		return x->node < y->node;
	}
	return x->idx > y->idx;
}

/* The zones a request up to highest may use, in walk order, into walk; their count. */
static int build_walk(const struct cause_zone *zones, int n, int highest, int local, int *walk)
{
	int nw = 0;

	if (local < 0)
		for (int i = 0; i < n; i++)
			if (local < 0 || zones[i].node < local)
				local = zones[i].node;
	for (int i = 0; i < n; i++) {
		int at;

		if (zones[i].idx > highest)
			continue;
		at = nw++;
		while (at > 0 && walk_before(&zones[i], &zones[walk[at - 1]], local)) {
			walk[at] = walk[at - 1];
			at--;
		}
		walk[at] = i;
	}
	return nw;
}

/* A free list of these types may serve the request (letters; before 4.4 'R' was a fallback for all). */
static int usable_types(uint8_t t, unsigned f, enum atomic_era era)
{
	if (t & (CAUSE_MT_U | CAUSE_MT_M | CAUSE_MT_E | CAUSE_MT_R))
		return 1;
	if ((t & CAUSE_MT_C) && (f & ATOMIC_F_CMA))
		return 1;
	return (t & CAUSE_MT_H) && atomic_may_use_highatomic(f, era);
}

/* The block test over the zone's letters (4.4+): BLOCK_*, and the largest order it may certainly use. */
static int block_test(const struct cause_zone *z, unsigned order, unsigned f, enum atomic_era era, int *largest)
{
	int usable = 0, unsure = 0, reserve = 0;

	*largest = -1;
	for (int o = 0; o < z->norders; o++) {
		int ok;

		if (!z->nr[o])
			continue;
		if (z->types_known && z->types[o])
			ok = usable_types(z->types[o], f, era);
		else if (z->no_reserve_lists)
			ok = 1;
		else
			ok = -1;
		if (ok == 1)
			*largest = o;
		if (o < (int)order)
			continue;
		usable |= ok == 1;
		unsure |= ok < 0;
		reserve |= ok == 0;
	}
	if (order == 0)
		return BLOCK_USABLE;   /* __zone_watermark_ok() asks no block of an order-0 request */
	return usable ? BLOCK_USABLE : unsure ? BLOCK_UNSURE : reserve ? BLOCK_RESERVE : BLOCK_NONE;
}

/* One zone of the walk: the free-page test at both ends of the reserve, the block test. 0 or -1. */
static int eval_zone(const struct cause_zone *cz, const struct cause_request *r, unsigned f, struct atomic_kver v,
		     struct zone_eval *e)
{
	enum atomic_era era = atomic_era_of(v);
	struct atomic_zone az;
	struct atomic_check lo, hi;

	memset(&az, 0, sizeof az);
	az.free_pages = cz->free;
	az.wmark_min = cz->min;
	az.boost = cz->boost;
	az.lowmem_reserve = cz->prot[r->highest_idx];
	az.nr_free_cma = cz->free_cma;
	az.nr_unaccepted = cz->unaccepted;
	az.norders = cz->norders;
	memcpy(az.free, cz->nr, sizeof az.free);
	az.nr_reserved_highatomic = cz->highatomic_lo;
	if (atomic_check_flags(&az, r->order, f, v, &lo) < 0)
		return -1;
	az.nr_reserved_highatomic = cz->highatomic_hi;
	if (atomic_check_flags(&az, r->order, f, v, &hi) < 0)
		return -1;
	e->free_lo = lo.free_after > lo.threshold;
	e->free_hi = hi.free_after > hi.threshold;
	/* What it may not count (free - free_after) may exceed the free pages themselves (2^9 - 1 of them at
	 * order 9): then free_after is negative and the deduction is free + |free_after|. */
	e->mark = (uint64_t)(lo.threshold > 0 ? lo.threshold : 0) +
		  (lo.free_after < 0 ? cz->free + (uint64_t)-(lo.free_after + 1) + 1
				     : (uint64_t)lo.free_after > cz->free ? 0 : cz->free - (uint64_t)lo.free_after);
	if (era == ATOMIC_ERA_LEGACY) {
		/* Before 4.4 the order test is the halving loop; free lists have no reserve of their own. */
		block_test(cz, r->order, f, era, &e->largest);
		e->block = lo.block_ok ? BLOCK_USABLE : BLOCK_NONE;
	} else {
		e->block = block_test(cz, r->order, f, era, &e->largest);
	}
	return 0;
}

/*
 * The cause in one world: which zones pass the free-page test (the reserve at its low or high end) and
 * whether blocks of unknown type are usable.  *zone: the deciding zone's walk position.
 */
static enum cause decide(const struct zone_eval *e, int nw, int reserve_low, int unsure_usable, int *zone, int *pass)
{
	int first_pass = -1, first_reserve = -1;

	*pass = 0;
	for (int w = 0; w < nw; w++) {
		int block = e[w].block;

		if (!(reserve_low ? e[w].free_lo : e[w].free_hi))
			continue;
		if (block == BLOCK_UNSURE)
			block = unsure_usable ? BLOCK_USABLE : BLOCK_RESERVE;
		if (block == BLOCK_USABLE) {
			*zone = w;
			*pass = 1;
			return CAUSE_UNKNOWN;   /* the state says the request would have been served */
		}
		if (first_pass < 0)
			first_pass = w;
		if (block == BLOCK_RESERVE && first_reserve < 0)
			first_reserve = w;
	}
	if (first_reserve >= 0) {
		*zone = first_reserve;
		return CAUSE_RESERVE;
	}
	if (first_pass >= 0) {
		*zone = first_pass;
		return CAUSE_FRAGMENTATION;
	}
	*zone = 0;
	return CAUSE_WATERMARK;
}

static int bad_zone(const struct cause_zone *z, int highest)
{
	return z->idx < 0 || z->norders <= 0 || z->norders > CAUSE_MAX_ORDERS || z->nprot <= highest ||
	       z->nprot > CAUSE_MAX_PROT || z->highatomic_lo > z->highatomic_hi;
}

int cause_classify(const struct cause_zone *zones, int n, const struct cause_request *r, struct atomic_kver v,
		   int local_node, struct cause_result *out)
{
	static const int WORLDS[4][2] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 } };
	struct zone_eval e[CAUSE_MAX_ZONES];
	int walk[CAUSE_MAX_ZONES], nw, zone = 0, pass = 0, agree = 1;
	enum cause c = CAUSE_UNKNOWN;
	unsigned f;

	memset(out, 0, sizeof *out);
	out->cause = CAUSE_UNKNOWN;
	out->zone = -1;
	out->largest_usable_order = -1;
	out->why = "bad input";
	if (!zones || !r || n <= 0 || n > CAUSE_MAX_ZONES || r->highest_idx < 0 || r->order >= CAUSE_MAX_ORDERS)
		return -1;
	for (int i = 0; i < n; i++)
		if (bad_zone(&zones[i], r->highest_idx) || r->order >= (unsigned)zones[i].norders) {
			out->why = "zone state incomplete";
			return -1;
		}
	nw = build_walk(zones, n, r->highest_idx, local_node, walk);
	out->zones_used = nw;
	if (nw == 0) {
		out->why = "no zone the request may use";
		return 0;
	}
	f = atomic_alloc_flags(&r->gfp, r->order, atomic_era_of(v));
	for (int w = 0; w < nw; w++)
		if (eval_zone(&zones[walk[w]], r, f, v, &e[w]) < 0) {
			out->why = "zone state incomplete";
			return -1;
		}
	/* Decide in every world the uncertain inputs allow; a cause holds only if they all agree. */
	for (int k = 0; k < 4; k++) {
		int z, p;
		enum cause ck = decide(e, nw, WORLDS[k][0], WORLDS[k][1], &z, &p);

		if (k == 0) {
			c = ck;
			pass = p;
		} else if (ck != c || p != pass) {
			agree = 0;
		}
		if (k == 3)
			zone = z;   /* the pessimistic world: reserve at its high end, unknown lists unusable */
	}
	out->zone = walk[zone];
	out->free_pages = zones[walk[zone]].free;
	out->mark_pages = e[zone].mark;
	out->largest_usable_order = e[zone].largest;
	if (!agree) {
		out->why = "the highatomic reserve or the free lists' types could tip it";
		return 0;
	}
	if (pass) {
		out->why = "the state would have served it";
		return 0;
	}
	out->cause = c;
	out->why = c == CAUSE_WATERMARK ? "no zone above its watermark" :
		   c == CAUSE_RESERVE ? "blocks of the order only on reserve lists" :
					"free pages above the watermark, no block of the order";
	return 0;
}
