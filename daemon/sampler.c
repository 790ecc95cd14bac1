/* SPDX-License-Identifier: GPL-2.0-only */
/* sampler: kernel sources → store tick; see sampler.h. */
#include "daemon/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/atomic.h"
#include "collector/procfile.h"
#include "collector/zoneinfo.h"
#include "common/clock.h"
#include "common/log.h"
#include "store/store.h"

/* The largest of our files is slabinfo (~30 KiB) or zoneinfo on many-CPU machines (~1 KiB per CPU per zone). */
#define BUF_CAP (4 * 1024 * 1024)

enum { SRC_BUDDY, SRC_VMSTAT, SRC_MEMINFO, SRC_ZONEINFO, SRC_PAGETYPE, SRC_SLAB, NSRC };

static const char *const SRC_FILE[NSRC] = { "buddyinfo", "vmstat", "meminfo", "zoneinfo", "pagetypeinfo", "slabinfo" };

struct source {
	int fd;
	int err;             /* last errno, or -1 for a parse error, 0 if fine */
	int have;            /* the last read parsed: the snapshot is current */
};

struct sampler {
	char proc_root[4096];
	struct atomic_kver kver;
	int have_kver;
	struct source src[NSRC];
	char *buf;
	struct buddyinfo bi;
	struct kv_set vm, mi;
	struct zoneinfo *zi;
	struct pagetypeinfo *pt;
	struct slabinfo *sl;
	uint32_t cost_us;
	int task_order;
	int rq_orders;               /* orders of the last tick's request verdicts; 0: none (rq unset) */
	uint32_t rq_atomic, rq_nowait, rq_kernel;
};

struct sampler *sampler_open(const char *proc_root, const char *kernel_release)
{
	struct sampler *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->buf = malloc(BUF_CAP);
	s->zi = malloc(sizeof *s->zi);
	s->pt = malloc(sizeof *s->pt);
	s->sl = malloc(sizeof *s->sl);
	if (!s->buf || !s->zi || !s->pt || !s->sl) {
		sampler_close(s);
		return NULL;
	}
	snprintf(s->proc_root, sizeof s->proc_root, "%s", proc_root);
	s->have_kver = atomic_kver_parse(kernel_release, &s->kver) == 0;
	if (!s->have_kver)
		log_warnx("kernel release '%s' not understood; atomic-risk model disabled", kernel_release);
	s->task_order = -1;
	for (int i = 0; i < NSRC; i++)
		s->src[i].fd = -1;
	return s;
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	for (int i = 0; i < NSRC; i++)
		if (s->src[i].fd >= 0)
			close(s->src[i].fd);
	free(s->buf);
	free(s->zi);
	free(s->pt);
	free(s->sl);
	free(s);
}

/* Report a source's state change once: failing, or recovered. */
static void source_status(struct source *src, const char *name, int err)
{
	if (err == src->err)
		return;
	if (err > 0)
		log_warnx("cannot read /proc/%s: %s; other sources go on%s", name, strerror(err),
			  err == EACCES ? " (it needs root)" : "");
	else if (err < 0)
		log_warnx("cannot parse /proc/%s (unexpected format); other sources go on", name);
	else
		log_notice("/proc/%s readable again", name);
	src->err = err;
}

/* Read source i into s->buf and parse it; 0 or -1 (state reported, snapshot marked stale). */
static int source_sample(struct sampler *s, int i)
{
	struct source *src = &s->src[i];
	ssize_t n;
	int rc;

	src->have = 0;
	if (src->fd < 0) {
		char path[4200];
		if (procfile_path(s->proc_root, SRC_FILE[i], path, sizeof path) < 0) {
			source_status(src, SRC_FILE[i], ENAMETOOLONG);
			return -1;
		}
		src->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (src->fd < 0) {
			source_status(src, SRC_FILE[i], errno);
			return -1;
		}
	}
	n = procfile_pread(src->fd, s->buf, BUF_CAP);
	if (n < 0) {
		source_status(src, SRC_FILE[i], errno);
		close(src->fd);       /* reopen next time: the file may come back */
		src->fd = -1;
		return -1;
	}
	switch (i) {
	case SRC_BUDDY: rc = buddyinfo_parse(s->buf, (size_t)n, &s->bi); break;
	case SRC_VMSTAT: rc = vmstat_parse(s->buf, (size_t)n, &s->vm); break;
	case SRC_MEMINFO: rc = meminfo_parse(s->buf, (size_t)n, &s->mi); break;
	case SRC_ZONEINFO: rc = zoneinfo_parse(s->buf, (size_t)n, s->zi); break;
	case SRC_PAGETYPE: rc = pagetypeinfo_parse(s->buf, (size_t)n, s->pt); break;
	default: rc = slabinfo_parse(s->buf, (size_t)n, s->sl); break;
	}
	source_status(src, SRC_FILE[i], rc < 0 ? -1 : 0);
	src->have = rc == 0;
	return rc;
}

/* The zone index GFP_KERNEL allocations start from on this node: ZONE_NORMAL's. */
static int highest_idx(const struct zoneinfo *zi, int node, int fallback)
{
	for (int i = 0; i < zi->nzones; i++)
		if (zi->z[i].node == node && strcmp(zi->z[i].zone, "Normal") == 0 && zi->z[i].idx >= 0)
			return zi->z[i].idx;
	return fallback;
}

/* Fill the model's zone from zoneinfo + buddyinfo (+ pagetypeinfo when it is current). */
static void model_zone(const struct sampler *s, const struct zoneinfo_zone *z, const struct buddy_zone *b,
		       struct atomic_zone *az)
{
	int hi = highest_idx(s->zi, z->node, z->idx);
	/* The last good pagetypeinfo (up to --slow-interval old): pageblock types move slowly. */
	const struct pagetypeinfo_zone *pz = s->src[SRC_PAGETYPE].have ?
		pagetypeinfo_find_zone(s->pt, z->node, z->zone) : NULL;

	memset(az, 0, sizeof *az);
	az->free_pages = z->free;
	az->wmark_min = z->min;
	az->wmark_low = z->low;
	az->boost = z->boost;
	az->lowmem_reserve = hi >= 0 && hi < z->nprot ? z->protection[hi] : 0;
	az->nr_free_cma = z->nr_free_cma;
	az->nr_unaccepted = z->nr_unaccepted;
	az->norders = s->bi.norders;
	memcpy(az->free, b->free, sizeof az->free);
	if (pz) {
		int ha = pagetypeinfo_type_index(s->pt, "HighAtomic");
		int cma = pagetypeinfo_type_index(s->pt, "CMA");
		int iso = pagetypeinfo_type_index(s->pt, "Isolate");
		if (ha >= 0) {
			az->nr_reserved_highatomic = pz->blocks[ha] * s->pt->pages_per_block;
			memcpy(az->free_highatomic, pz->free[ha], sizeof az->free_highatomic);
		}
		if (cma >= 0)
			memcpy(az->free_cma, pz->free[cma], sizeof az->free_cma);
		if (iso >= 0)
			memcpy(az->free_isolate, pz->free[iso], sizeof az->free_isolate);
	}
}

/* Evaluate GFP_ATOMIC and GFP_KERNEL at every order of every populated zone. */
static void atomic_risk(struct sampler *s, struct store *st, struct store_tick *t)
{
	static struct atomic_zone az;     /* 400 B; static keeps the loop's stack small */

	if (!s->have_kver || !s->src[SRC_ZONEINFO].have || !s->src[SRC_BUDDY].have)
		return;
	for (int i = 0; i < s->bi.nzones; i++) {
		const struct buddy_zone *b = &s->bi.z[i];
		const struct zoneinfo_zone *z = zoneinfo_find(s->zi, b->node, b->zone);
		uint32_t amask = 0, kmask = 0;
		struct atomic_result r0, r;

		if (!z || !z->populated)
			continue;
		model_zone(s, z, b, &az);
		if (atomic_eval(&az, 0, s->kver, &r0) < 0)
			continue;
		for (int k = 0; k < s->bi.norders; k++)
			if (atomic_eval(&az, (unsigned)k, s->kver, &r) == 0) {
				amask |= (uint32_t)r.atomic_ok << k;
				kmask |= (uint32_t)r.kernel_ok << k;
			}
		store_tick_atomic(st, t, b->node, b->zone, s->bi.norders, amask, kmask, r0.margin_pages,
				  r0.kernel_margin_pages, atomic_era_of(s->kver) == ATOMIC_ERA_LEGACY);
	}
}

/* ZONE_NORMAL's index: the highest zone GFP_KERNEL and GFP_ATOMIC may use; -1 if zoneinfo does not say. */
static int request_highest_idx(const struct zoneinfo *zi)
{
	for (int i = 0; i < zi->nzones; i++)
		if (strcmp(zi->z[i].zone, "Normal") == 0 && zi->z[i].idx >= 0)
			return zi->z[i].idx;
	return -1;
}

/*
 * The request, not the zone: per order, would GFP_ATOMIC / GFP_NOWAIT / GFP_KERNEL get the pages from
 * the zonelist (analysis/atomic.h atomic_request_eval), and from which zone.  The request is taken to
 * come from the lowest-numbered node (node distances are not read; on one node this is exact).
 * Reclaimable pages are the zone's file LRU, and its anon LRU while swap has room.
 */
/* The populated zones as a request's zonelist sees them, into zl (bz[j]: buddyinfo's zone of zl[j]); count, 0
 * when the sources are not current.  *local: the node a request is taken to come from (the lowest). */
static int request_zones(const struct sampler *s, struct atomic_zl_zone *zl, int *bz, int *local)
{
	uint64_t swap_free = 0;
	int n = 0;

	*local = -1;
	if (!s->have_kver || !s->src[SRC_ZONEINFO].have || !s->src[SRC_BUDDY].have)
		return 0;
	if (s->src[SRC_MEMINFO].have)
		kv_get(&s->mi, "SwapFree", &swap_free);
	for (int i = 0; i < s->bi.nzones && n < ATOMIC_MAX_ZONES; i++) {
		const struct buddy_zone *b = &s->bi.z[i];
		const struct zoneinfo_zone *z = zoneinfo_find(s->zi, b->node, b->zone);
		struct atomic_zl_zone *e = &zl[n];

		if (!z || !z->populated)
			continue;
		model_zone(s, z, b, &e->z);
		e->node = z->node;
		e->idx = z->idx;
		e->nprot = z->nprot < ATOMIC_MAX_PROT ? z->nprot : ATOMIC_MAX_PROT;
		memcpy(e->protection, z->protection, (size_t)e->nprot * sizeof e->protection[0]);
		e->reclaimable = z->nr_zone_inactive_file + z->nr_zone_active_file;
		if (swap_free > 0)
			e->reclaimable += z->nr_zone_inactive_anon + z->nr_zone_active_anon;
		if (*local < 0 || z->node < *local)
			*local = z->node;
		bz[n++] = i;
	}
	return n;
}

static void atomic_request(struct sampler *s, struct store *st, struct store_tick *t)
{
	static struct atomic_zl_zone zl[ATOMIC_MAX_ZONES];   /* ~26 KiB: static, off the loop's stack */
	int bz[ATOMIC_MAX_ZONES];                             /* zl[j] is buddyinfo's zone bz[j] */
	struct store_request rq;
	int n, local, highest;

	s->rq_orders = 0;   /* a tick without verdicts publishes none, not the last tick's */
	if ((n = request_zones(s, zl, bz, &local)) == 0)
		return;
	highest = request_highest_idx(s->zi);
	memset(&rq, 0, sizeof rq);
	for (int k = 0; k < s->bi.norders && k < 16; k++) {
		struct atomic_request r;
		if (atomic_request_eval(zl, n, local, highest, (unsigned)k, s->kver, &r) < 0)
			return;
		rq.atomic_mask |= (uint32_t)r.atomic_ok << k;
		rq.nowait_mask |= (uint32_t)r.nowait_ok << k;
		rq.kernel_mask |= (uint32_t)r.kernel_ok << k;
		if (r.atomic_zone >= 0) {
			const struct buddy_zone *b = &s->bi.z[bz[r.atomic_zone]];
			rq.node[k] = b->node;
			rq.zone[k] = b->zone;
		}
	}
	s->rq_orders = s->bi.norders < 16 ? s->bi.norders : 16;
	s->rq_atomic = rq.atomic_mask;
	s->rq_nowait = rq.nowait_mask;
	s->rq_kernel = rq.kernel_mask;
	store_tick_request(st, t, s->rq_orders, &rq);
}

int sampler_predict(const struct sampler *s, unsigned order, enum atomic_req req, int *ok, int64_t *margin)
{
	static struct atomic_zl_zone zl[ATOMIC_MAX_ZONES];
	int bz[ATOMIC_MAX_ZONES], n, local, highest, serving;
	int64_t best = INT64_MIN;
	struct atomic_request r;

	*ok = 0;
	*margin = INT64_MIN;
	if ((req != ATOMIC_REQ_ATOMIC && req != ATOMIC_REQ_NOWAIT) || (n = request_zones(s, zl, bz, &local)) == 0)
		return -1;
	highest = request_highest_idx(s->zi);
	/* The verdict is v_atomic_request's (the same walk of the same zones at the same tick). */
	if (atomic_request_eval(zl, n, local, highest, order, s->kver, &r) < 0)
		return -1;
	*ok = req == ATOMIC_REQ_ATOMIC ? r.atomic_ok : r.nowait_ok;
	serving = req == ATOMIC_REQ_ATOMIC ? r.atomic_zone : r.nowait_zone;
	/* The margin: of the zone that would serve it, else the best of the zones it may use. */
	for (int j = 0; j < n; j++) {
		struct atomic_zone az = zl[j].z;
		struct atomic_check c;

		if (highest >= 0 && zl[j].idx > highest)
			continue;
		az.lowmem_reserve = highest >= 0 && highest < zl[j].nprot ? zl[j].protection[highest] : 0;
		if (atomic_check_zone(&az, order, req, s->kver, &c) < 0)
			continue;
		if (j == serving) {
			best = c.margin;
			break;
		}
		if (serving < 0 && c.margin > best)
			best = c.margin;
	}
	*margin = best;
	return 0;
}

int sampler_fast(struct sampler *s, struct store *st, struct store_tick *t)
{
	int64_t t0 = clock_mono_us(), cost;
	int ok = 0;

	for (int i = SRC_BUDDY; i <= SRC_ZONEINFO; i++)
		ok += source_sample(s, i) == 0;
	cost = clock_mono_us() - t0;
	s->cost_us = (uint32_t)(cost > UINT32_MAX ? UINT32_MAX : cost);
	if ((s->src[SRC_BUDDY].have && store_tick_buddyinfo(st, t, &s->bi) < 0) ||
	    (s->src[SRC_VMSTAT].have && store_tick_vmstat(st, t, &s->vm) < 0) ||
	    (s->src[SRC_MEMINFO].have && store_tick_meminfo(st, t, &s->mi) < 0))
		log_warnx("cannot assemble tick (out of memory?); storing what fits");
	atomic_risk(s, st, t);
	atomic_request(s, st, t);
	store_tick_cost(t, s->cost_us);
	return ok;
}

int sampler_slow(struct sampler *s, struct store *st, struct store_tick *t)
{
	int64_t t0 = clock_mono_us(), t1;
	int ok = 0;

	if (source_sample(s, SRC_PAGETYPE) == 0) {
		t1 = clock_mono_us();
		store_tick_pagetypeinfo(st, t, s->pt, (uint32_t)(t1 - t0));
		ok++;
	}
	t0 = clock_mono_us();
	if (source_sample(s, SRC_SLAB) == 0) {
		const struct slabinfo_cache *c = slabinfo_find(s->sl, "task_struct");
		t1 = clock_mono_us();
		store_tick_slabinfo(st, t, s->sl, (uint32_t)(t1 - t0));
		if (c)
			s->task_order = c->order;
		ok++;
	}
	return ok;
}

const struct buddyinfo *sampler_buddyinfo(const struct sampler *s)
{
	return s->src[SRC_BUDDY].have ? &s->bi : NULL;
}

const struct kv_set *sampler_vmstat(const struct sampler *s)
{
	return s->src[SRC_VMSTAT].have ? &s->vm : NULL;
}

const struct kv_set *sampler_meminfo(const struct sampler *s)
{
	return s->src[SRC_MEMINFO].have ? &s->mi : NULL;
}

const struct pagetypeinfo *sampler_pagetypeinfo(const struct sampler *s)
{
	return s->src[SRC_PAGETYPE].have ? s->pt : NULL;
}

const struct slabinfo *sampler_slabinfo(const struct sampler *s)
{
	return s->src[SRC_SLAB].have ? s->sl : NULL;
}

const struct zoneinfo *sampler_zoneinfo(const struct sampler *s)
{
	return s->src[SRC_ZONEINFO].have ? s->zi : NULL;
}

uint32_t sampler_last_cost_us(const struct sampler *s)
{
	return s->cost_us;
}

int sampler_request(const struct sampler *s, uint32_t *atomic, uint32_t *nowait, uint32_t *kernel)
{
	*atomic = s->rq_atomic;
	*nowait = s->rq_nowait;
	*kernel = s->rq_kernel;
	return s->rq_orders;
}

int sampler_task_order(const struct sampler *s)
{
	return s->task_order;
}
