/* SPDX-License-Identifier: GPL-2.0-only */
/* tick: assembling a tick in memory, and the names and zones it interns; see store.h and writer.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/writer.h"

const char *const store_src_names[NSRC] = { "vmstat", "meminfo", "counter", "migratetype", "slab" };

/* The meminfo fields that matter for fragmentation and churn: one column each (store/fields.h). */
#define X_NAME(i, name, col) name,
static const char *const MEMINFO_KEEP[STORE_NMEMINFO] = { STORE_MEMINFO_FIELDS(X_NAME) };
#undef X_NAME

/* The slab caches a fork/exit churn allocates from, and the kmalloc sizes around them. */
static const char *const SLAB_KEEP[] = {
	"task_struct", "mm_struct", "signal_cache", "sighand_cache", "vm_area_struct", "files_cache",
	"fs_cache", "pid", "cred_jar", "anon_vma", "anon_vma_chain", "kmalloc-",
	"fpusoak_xstate",        /* the fpusoak_gfp module's cache (kmod/): its slab order is an order of interest */
};

void tick_free(struct store_tick *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nevents; i++) {
		free(t->events[i].raw);
		free(t->events[i].task_cgroup);
	}
	free(t->events);
	for (int i = 0; i < t->nprobes; i++) {
		free(t->probes[i].detail);
		free(t->probes[i].buddy);
	}
	free(t->probes);
	free(t->checks);
	free(t->ptfree);
	free(t->slab);
	free(t->atomic);
	free(t->buddy);
	free(t->rollb);
	free(t->rollt);
	free(t->kv);
	free(t->tfail);
	free(t->xfrag);
	free(t->causes);
	free(t);
}

void *tick_grow(struct store_tick *t, void **arr, int *n, size_t sz)
{
	char *a = realloc(*arr, (size_t)(*n + 1) * sz);

	if (!a)
		return NULL;
	*arr = a;
	memset(a + (size_t)*n * sz, 0, sz);
	t->bytes += sz;
	return a + (size_t)(*n)++ * sz;
}

int tick_add_kv(struct store_tick *t, int n)
{
	struct tick_kv *kv = realloc(t->kv, (size_t)(t->nkv + n) * sizeof *kv);

	if (!kv)
		return -1;
	t->kv = kv;
	t->bytes += (size_t)n * sizeof *kv;
	return 0;
}

void tick_churn_values(const struct store_churn *c, int64_t v[STORE_NCHURN])
{
	/* struct store_churn's members are named after the columns. */
#define X_MEMBER(i, col) c->col,
	const uint64_t u[STORE_NCHURN] = { STORE_CHURN_FIELDS(X_MEMBER) };
#undef X_MEMBER

	for (int k = 0; k < STORE_NCHURN; k++)
		v[k] = (int64_t)u[k];
}

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

void store_tick_late(struct store_tick *t, int64_t late_ms, int64_t missed)
{
	t->late_ms = late_ms > 0 ? late_ms : 0;
	t->missed = missed > 0 ? missed : 0;
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

/* What to do with vmstat counter name: VM_DROP, VM_HOT(k), its interned id, or VM_FULL. */
static int vmstat_class(struct store *st, const char *name)
{
	int k, id;

	if (!vmstat_keep(name))
		return VM_DROP;
	if ((k = store_vmstat_hot(name)) >= 0)
		return VM_HOT(k);
	id = name_id(st, SRC_VMSTAT, name);
	return id < 0 ? VM_FULL : id;
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
		const char *name = vm->e[i].name;
		struct vm_memo *m = i < VM_MEMO_MAX ? &st->vmemo[i] : NULL;
		struct name_ent *ne;
		int cls;

		if (m && strcmp(m->name, name) == 0) {
			cls = m->cls;
		} else {
			cls = vmstat_class(st, name);
			/* Not remembered when the names table was full: the id is asked for again. */
			if (m && cls != VM_FULL) {
				snprintf(m->name, sizeof m->name, "%s", name);
				m->cls = (int16_t)cls;
			} else if (m) {
				m->name[0] = 0;
			}
		}
		if (cls <= VM_HOT(0)) {
			int k = VM_HOT(0) - cls;
			t->vmhot[k] = vm->e[i].value;
			t->vmhot_mask |= 1u << k;
			continue;
		}
		if (cls < 0)
			continue;
		ne = &st->names[cls];
		if (!keyframe && ne->have_last && ne->last == vm->e[i].value)
			continue;
		ne->have_last = 1;
		ne->last = vm->e[i].value;
		t->kv[t->nkv++] = (struct tick_kv){ (uint16_t)cls, SRC_VMSTAT, vm->e[i].value };
	}
	return 0;
}

int store_tick_meminfo(struct store *st, struct store_tick *t, const struct kv_set *mi)
{
	t->mem_mask = 0;
	for (int k = 0; k < STORE_NMEMINFO; k++) {
		int pos = st->mipos[k] - 1;
		uint64_t v;

		/* Where it was last tick (meminfo's order is fixed), else a search that remembers. */
		if (pos >= 0 && pos < mi->n && strcmp(mi->e[pos].name, MEMINFO_KEEP[k]) == 0) {
			v = mi->e[pos].value;
		} else {
			st->mipos[k] = 0;
			for (pos = 0; pos < mi->n && strcmp(mi->e[pos].name, MEMINFO_KEEP[k]) != 0; pos++)
				;
			if (pos == mi->n)
				continue;
			v = mi->e[pos].value;
			st->mipos[k] = (int16_t)(pos + 1);
		}
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

int store_tick_event_task(struct store_tick *t, int64_t ppid, const char *cgroup)
{
	struct tick_event *e = t->nevents ? &t->events[t->nevents - 1] : NULL;

	if (!e)
		return -1;
	e->has_task = 1;
	e->task_ppid = ppid;
	free(e->task_cgroup);
	e->task_cgroup = NULL;
	if (cgroup && cgroup[0]) {
		if (!(e->task_cgroup = strdup(cgroup)))
			return -1;
		t->bytes += strlen(cgroup) + 1;
	}
	return 0;
}

int store_tick_trace(struct store_tick *t, const struct store_trace_failure *f, int nf,
		     const struct store_extfrag *x, int nx)
{
	int nf0 = t->ntfail, nx0 = t->nxfrag;

	for (int i = 0; i < nf; i++) {
		struct tick_tfail *r = tick_grow(t, (void **)&t->tfail, &t->ntfail, sizeof *r);
		size_t cl = f[i].comm_len < sizeof r->comm ? f[i].comm_len : sizeof r->comm;

		if (!r)
			goto fail;
		*r = (struct tick_tfail){ f[i].ts_ms, f[i].pid, f[i].gfp_mask, f[i].order, f[i].migratetype,
					  f[i].has_mask, f[i].nowarn, f[i].opportunistic, f[i].atomic, (uint8_t)cl,
					  { 0 }, { 0 }, f[i].has_task, f[i].task_ppid, { 0 } };
		if (f[i].has_task && f[i].task_cgroup)
			snprintf(r->task_cgroup, sizeof r->task_cgroup, "%s", f[i].task_cgroup);
		if (cl)
			memcpy(r->comm, f[i].comm, cl);
		snprintf(r->gfp_flags, sizeof r->gfp_flags, "%s", f[i].gfp_flags ? f[i].gfp_flags : "");
	}
	for (int i = 0; i < nx; i++) {
		struct store_extfrag *r = tick_grow(t, (void **)&t->xfrag, &t->nxfrag, sizeof *r);

		if (!r)
			goto fail;
		*r = x[i];
	}
	t->trace_on = 1;
	return 0;
fail:
	t->ntfail = nf0;
	t->nxfrag = nx0;
	return -1;
}

int store_tick_churn(struct store_tick *t, const struct store_churn *c)
{
	t->churn = *c;
	t->have_churn = 1;
	return 0;
}

int store_tick_fragment(struct store_tick *t, const struct store_fragment *f)
{
	t->frag = *f;
	t->have_frag = 1;
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
	snprintf(r->gfp_mode, sizeof r->gfp_mode, "%s", p->gfp_mode ? p->gfp_mode : "");
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

int store_tick_failure_cause(struct store_tick *t, const struct store_failure_cause *c)
{
	struct tick_cause *r = tick_grow(t, (void **)&t->causes, &t->ncauses, sizeof *r);

	if (!r)
		return -1;
	r->ts_ms = c->ts_ms;
	r->source = c->source;
	r->pid = c->pid;
	r->order = c->order;
	r->cause = c->cause;
	r->node = c->node;
	r->free_kb = c->free_kb;
	r->min_kb = c->min_kb;
	r->largest_order = c->largest_order;
	r->has_lag = c->has_lag;
	r->lag_ms = c->lag_ms;
	r->has_comm = c->comm != NULL;
	r->comm_len = (uint8_t)(c->comm_len < sizeof r->comm ? c->comm_len : sizeof r->comm);
	if (c->comm)
		memcpy(r->comm, c->comm, r->comm_len);
	r->has_gfp = c->gfp_flags != NULL;
	snprintf(r->gfp_flags, sizeof r->gfp_flags, "%s", c->gfp_flags ? c->gfp_flags : "");
	snprintf(r->zone, sizeof r->zone, "%s", c->zone ? c->zone : "");
	snprintf(r->note, sizeof r->note, "%s", c->note ? c->note : "");
	return 0;
}

int store_tick_model_check(struct store_tick *t, const struct store_model_check *c)
{
	struct store_model_check *r = tick_grow(t, (void **)&t->checks, &t->nchecks, sizeof *r);

	if (!r)
		return -1;
	*r = *c;
	return 0;
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

int store_tick_request(struct store *st, struct store_tick *t, int norders, const struct store_request *r)
{
	int64_t packed[2] = { 0, 0 };

	if (norders <= 0 || norders > STORE_NORDERS)
		return -1;
	for (int k = 0; k < STORE_NORDERS; k++) {
		int zid = k < norders && r->zone[k] ? zone_id(st, r->node[k], r->zone[k]) : -1;
		uint64_t v = zid >= 0 && zid < STORE_REQ_NO_ZONE ? (uint64_t)zid : STORE_REQ_NO_ZONE;
		packed[k / 8] = (int64_t)((uint64_t)packed[k / 8] | v << (8 * (k % 8)));
	}
	t->have_request = 1;
	t->req_norders = norders;
	t->req_atomic = r->atomic_mask;
	t->req_nowait = r->nowait_mask;
	t->req_kernel = r->kernel_mask;
	t->req_zones_lo = packed[0];
	t->req_zones_hi = packed[1];
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
