/* SPDX-License-Identifier: GPL-2.0-only */
/* report/run: the figures of one run; see run.h. */
#include "report/run.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "collector/gfp.h"
#include "common/num.h"
#include "report/gate.h"
#include "report/headroom.h"

#define HOUR_MS 3600000.0

/* ---------------------------------------------------------------- orders of interest */

static const char *const order_why[] = { [REPORT_ORDER_TASK] = "task_struct slab", [REPORT_ORDER_PAGEBLOCK] = "pageblock" };

int report_task_order(int measured)
{
	return measured >= 0 ? measured : REPORT_DEFAULT_TASK_ORDER;
}

void report_orders_add(struct report_orders *o, int k, enum report_order_kind kind)
{
	if (k < 0 || k >= BUDDY_MAX_ORDER)
		return;
	for (int i = 0; i < o->n; i++)
		if (o->order[i] == k)
			return;
	if (o->n == REPORT_MAX_ORDERS)
		return;
	o->order[o->n] = k;
	o->kind[o->n] = kind;
	o->why[o->n] = order_why[kind];
	o->n++;
}

int report_order_measured(const struct report_orders *o, int i)
{
	return o->kind[i] == REPORT_ORDER_PAGEBLOCK || o->task_order_known;
}

static void orders_init(struct report_orders *out)
{
	memset(out, 0, sizeof *out);
	out->task_order = REPORT_DEFAULT_TASK_ORDER;
	out->task_objsize = -1;
	out->pageblock_order = -1;
}

void report_orders_live(int task_order, int pageblock_order, struct report_orders *out)
{
	orders_init(out);
	out->task_order = report_task_order(task_order);
	out->task_order_known = task_order >= 0;
	report_orders_add(out, out->task_order, REPORT_ORDER_TASK);
	if (pageblock_order >= 0) {
		out->pageblock_order = pageblock_order;
		report_orders_add(out, pageblock_order, REPORT_ORDER_PAGEBLOCK);
	}
}

int report_orders(struct query *q, int64_t run_id, struct report_orders *out)
{
	int has, order = -1, r;
	int64_t objsize = -1;

	orders_init(out);
	if ((has = query_has_table(q, "slab")) < 0)
		return -1;
	if (has) {
		if ((r = query_task_slab(q, run_id, &order, &objsize)) < 0)
			return -1;
		if (r && order >= 0) {
			out->task_order = order;
			out->task_order_known = 1;
			out->task_objsize = objsize;
		}
	}
	report_orders_add(out, out->task_order, REPORT_ORDER_TASK);
	if ((has = query_has_table(q, "slow_samples")) < 0)
		return -1;
	if (has) {
		if ((r = query_pageblock_order(q, run_id, &order)) < 0)
			return -1;
		if (r) {
			out->pageblock_order = order;
			report_orders_add(out, order, REPORT_ORDER_PAGEBLOCK);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- the run itself */

const char *report_run_state(const struct query_run *run, int newest)
{
	if (run->end_reason)
		return run->end_reason;
	return newest ? "running" : "unfinished";
}

int64_t report_run_duration(const struct query_run *run)
{
	int64_t end = run->ended_ms >= 0 ? run->ended_ms : run->last_sample_ms;

	return end >= 0 && run->started_ms >= 0 && end >= run->started_ms ? end - run->started_ms : -1;
}

int report_run_memory(struct query *q, const struct query_run *run, struct report_run_memory *out)
{
	struct query_run_memory m = { -1, -1, -1, -1, -1 };
	int r = query_run_memory(q, run->run_id, &m);

	if (r < 0)
		return -1;
	out->known = r;
	out->domain_kb = m.domain_kb;
	out->present_kb = m.present_kb;
	out->total_kb = m.mem_total_kb >= 0 ? m.mem_total_kb : run->mem_total_kb;
	out->free_kb = m.mem_free_kb;
	out->available_kb = m.mem_available_kb;
	out->reserved_kb = out->present_kb > 0 && out->total_kb > 0 && out->present_kb >= out->total_kb
			   ? out->present_kb - out->total_kb : -1;
	out->outside_kb = out->domain_kb > 0 && out->present_kb > 0 && out->domain_kb >= out->present_kb
			  ? out->domain_kb - out->present_kb : -1;
	return 0;
}

int64_t report_run_exposure_ms(const struct query_run *run)
{
	return run->first_sample_ms >= 0 && run->last_sample_ms > run->first_sample_ms
	       ? run->last_sample_ms - run->first_sample_ms : 0;
}

const char *report_cpu_model(const struct query_run *run, char *out, size_t outlen)
{
	const char *c = run->cpu_model, *k = run->cpu_model_kernel;

	/* A hypervisor may tell the kernel and CPUID different names (issue 34): both are facts. */
	if (c && *c && k && *k && strcmp(c, k) != 0)
		snprintf(out, outlen, "%s (the kernel says %s)", c, k);
	else
		snprintf(out, outlen, "%s", c && *c ? c : k ? k : "");
	return out;
}

const char *report_eagerfpu(const char *cmdline, char *out, size_t outlen)
{
	const char *p = cmdline;

	out[0] = '\0';
	while (p && *p) {
		size_t n;
		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (n > 9 && strncmp(p, "eagerfpu=", 9) == 0) {
			/* The last one wins, as the kernel's early_param parsing does. */
			snprintf(out, outlen, "%.*s", (int)(n - 9), p + 9);
		}
		p += n;
	}
	return out;
}

/* ---------------------------------------------------------------- rates */

double report_per_hour(double count, int64_t exposure_ms)
{
	return exposure_ms > 0 ? count * HOUR_MS / (double)exposure_ms : NAN;
}

double report_per_s(double count, int64_t exposure_ms)
{
	return exposure_ms > 0 ? count * 1000.0 / (double)exposure_ms : NAN;
}

int report_gfp_atomic(const char *flags)
{
	struct gfp_info g;

	return flags && gfp_decode(flags, strlen(flags), &g) == 0 && !g.unknown && gfp_is_atomic(&g);
}

static int exposure_cb(void *arg, const struct query_run *run)
{
	*(int64_t *)arg = report_run_exposure_ms(run);
	return 0;
}

int report_failures(struct query *q, int64_t run_id, struct report_failures *out)
{
	memset(out, 0, sizeof *out);
	if (query_run(q, run_id, exposure_cb, &out->exposure_ms) < 0 ||
	    query_alloc_failures(q, run_id, -1, -1, 0, &out->count, NULL, NULL) < 0)
		return -1;
	out->per_hour = report_per_hour((double)out->count, out->exposure_ms);
	return 0;
}

const char *report_trace_class_name(int cls)
{
	return cls == REPORT_OPPORTUNISTIC ? "opportunistic" : cls == REPORT_ATOMIC ? "atomic" : "sleeping";
}

struct trace_series {
	double *x, *y;
	size_t n, cap;
	int64_t t0, tier;
};

static int trace_bucket(void *arg, const struct query_trace_bucket *b)
{
	struct trace_series *s = arg;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		double *x = realloc(s->x, cap * sizeof *x), *y = x ? realloc(s->y, cap * sizeof *y) : NULL;
		if (x)
			s->x = x;
		if (!x || !y)
			return -1;
		s->y = y;
		s->cap = cap;
	}
	if (s->n == 0)
		s->t0 = b->ts_ms;
	s->x[s->n] = (double)(b->ts_ms - s->t0);
	/* fragmenting fallbacks per hour in this bucket */
	s->y[s->n] = (double)b->fragmenting * STORE_TIER_HOUR_MS / (double)s->tier;
	s->n++;
	return 0;
}

/* The fragmenting rate's trend over the run's buckets (minutes, or hours past two days, as headroom trends). */
static int trace_trend(struct query *q, int64_t run_id, struct report_trace *out)
{
	struct trace_series s = { NULL, NULL, 0, 0, 0, 0 };
	int rc = 0;

	s.tier = out->exposure_ms > 2 * 24 * (int64_t)STORE_TIER_HOUR_MS ? STORE_TIER_HOUR_MS : STORE_TIER_MINUTE_MS;
	out->trend_tier = s.tier;
	if (query_trace_buckets(q, run_id, s.tier, trace_bucket, &s) < 0) {
		rc = -1;
		goto out;
	}
	if (s.n >= REPORT_TREND_POINTS && trend_fit(s.x, s.y, s.n, &out->fit) == TREND_OK) {
		out->trend_ok = 1;
		out->slope_h = trend_per_hour(out->fit.slope);
		out->lo_h = trend_per_hour(out->fit.ci_lo);
		out->hi_h = trend_per_hour(out->fit.ci_hi);
		out->significant = out->fit.ci_hi < 0 || out->fit.ci_lo > 0;
	}
out:
	free(s.x);
	free(s.y);
	return rc;
}

/* The "Slab +N kB" daemon/traceinst.c puts in its note, or -1 (absent, or a negative delta: other slab freed). */
static int64_t note_slab_kb(const char *note)
{
	const char *p = strstr(note, ", Slab +");
	int64_t kb;
	size_t n = 0;

	if (!p)
		return -1;
	p += 8;
	while (p[n] >= '0' && p[n] <= '9')
		n++;
	return n && strncmp(p + n, " kB", 3) == 0 && num_parse_i64(p, n, &kb) == 0 ? kb : -1;
}

int report_trace(struct query *q, int64_t run_id, struct report_trace *out)
{
	int has;

	memset(out, 0, sizeof *out);
	out->per_hour = out->extfrag_per_hour = out->fragmenting_per_hour = NAN;
	out->setup_slab_kb = -1;
	for (int c = 0; c < QUERY_TRACE_CLASSES; c++)
		out->class_per_hour[c] = NAN;
	if ((has = query_has_table(q, "trace_rollup")) <= 0)
		return has;
	out->tables = 1;
	if (query_run(q, run_id, exposure_cb, &out->exposure_ms) < 0 || query_trace(q, run_id, &out->t) < 0)
		return -1;
	snprintf(out->note, sizeof out->note, "%s", out->t.note);
	out->on = strncmp(out->note, "tracefs=on", 10) == 0;
	if (out->on)
		out->setup_slab_kb = note_slab_kb(out->note);
	for (int k = 0; k < QUERY_TRACE_ORDERS; k++)
		for (int c = 0; c < QUERY_TRACE_CLASSES; c++) {
			out->by_class[c] += out->t.by_oc[k][c];
			out->by_order[k] += out->t.by_oc[k][c];
		}
	out->per_hour = report_per_hour((double)out->t.failures, out->exposure_ms);
	for (int c = 0; c < QUERY_TRACE_CLASSES; c++)
		out->class_per_hour[c] = report_per_hour((double)out->by_class[c], out->exposure_ms);
	out->extfrag_per_hour = report_per_hour((double)out->t.extfrag, out->exposure_ms);
	out->fragmenting_per_hour = report_per_hour((double)out->t.fragmenting, out->exposure_ms);
	return out->on ? trace_trend(q, run_id, out) : 0;
}

int report_churn(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_churn *out)
{
	int got;

	memset(out, 0, sizeof *out);
	if ((got = query_churn_totals(q, run_id, from_ms, to_ms, &out->tot)) <= 0)
		return got;
	for (int i = 0; i < QC_N; i++)
		out->per_hour[i] = report_per_hour((double)out->tot.c[i], out->tot.span_ms);
	out->spawns_per_s = report_per_s((double)out->tot.c[QC_SPAWNED], out->tot.span_ms);
	out->spawn_failures = out->tot.c[QC_FAIL_EAGAIN] + out->tot.c[QC_FAIL_ENOMEM] + out->tot.c[QC_FAIL_OTHER];
	return 1;
}

void report_deaths_of(const struct query_churn *c, struct report_deaths *d)
{
	memset(d, 0, sizeof *d);
	d->churn_alive = d->probe_alive = -1;
	if (!c)
		return;
	d->churn_spawned = c->c[QC_SPAWNED];
	d->churn_exited = c->c[QC_EXITED];
	d->churn_killed = c->c[QC_SIGKILL] + c->c[QC_SIGSEGV] + c->c[QC_SIGILL] + c->c[QC_SIGOTHER];
	d->churn_oom = c->c[QC_OOM];
	d->churn_ours = c->c[QC_KILLED_OURS];
	d->probe_spawned = c->c[QC_PROBE_SPAWNED];
	d->probe_exited = c->c[QC_PROBE_EXITED];
	d->probe_killed = c->c[QC_PROBE_SIGKILL] + c->c[QC_PROBE_SIGOTHER];
	d->probe_oom = c->c[QC_PROBE_OOM];
	d->probe_ours = c->c[QC_PROBE_KILLED_OURS];
	d->unattributed = c->c[QC_OOM_UNATTRIBUTED];
	d->oom_total = d->churn_oom + d->probe_oom + d->unattributed;
	d->churn_gfp = c->c[QC_GFP_FAILED];
	d->probe_gfp = c->c[QC_PROBE_GFP_FAILED];
	d->churn_alive = d->probe_alive = -1;
	d->span_ms = c->span_ms;
}

/* "spawned 204 = exited 196 + killed 0 + alive 8 at the end" (what does not add up is said). */
static void identity(const char *who, int64_t spawned, int64_t exited, int64_t killed, int64_t oom, int64_t alive,
		     char *buf, size_t len)
{
	char a[40], o[40] = "";

	if (oom)
		snprintf(o, sizeof o, " (%" PRId64 " by the OOM killer)", oom);
	if (alive < 0) {
		snprintf(buf, len, "%s: spawned %" PRId64 " = exited %" PRId64 " + killed %" PRId64 "%s + alive at the end"
			 " (not kept: raw ticks deleted)", who, spawned, exited, killed, o);
		return;
	}
	snprintf(a, sizeof a, "%" PRId64, alive);
	if (spawned == exited + killed + alive)
		snprintf(buf, len, "%s: spawned %" PRId64 " = exited %" PRId64 " + killed %" PRId64 "%s + alive %s at the"
			 " end", who, spawned, exited, killed, o, a);
	else
		snprintf(buf, len, "%s: spawned %" PRId64 ", exited %" PRId64 " + killed %" PRId64 "%s + alive %s at the end"
			 " = %" PRId64 " (%" PRId64 " unaccounted)", who, spawned, exited, killed, o, a,
			 exited + killed + alive, spawned - exited - killed - alive);
}

int report_deaths_identity(const struct report_deaths *d, char *churn, size_t clen, char *probe, size_t plen)
{
	if (!d->churn_spawned && !d->probe_spawned && d->churn_alive <= 0 && d->probe_alive <= 0) {
		snprintf(churn, clen, "no workers");
		probe[0] = 0;
		return 0;
	}
	/* Every death once (schema 7, 9): signals, the spawner's own kills, refused HOLDs. */
	identity("churn workers", d->churn_spawned, d->churn_exited, d->churn_killed + d->churn_ours + d->churn_gfp,
		 d->churn_oom, d->churn_alive, churn, clen);
	if (d->probe_alive == -2)
		snprintf(probe, plen, "probe workers: not accounted (a run of an fpusoakd before schema 7)");
	else
		identity("probe workers", d->probe_spawned, d->probe_exited, d->probe_killed + d->probe_ours + d->probe_gfp,
			 d->probe_oom, d->probe_alive, probe, plen);
	return 1;
}

int report_run_population(struct query *q, int64_t run_id, struct report_deaths *d)
{
	struct report_churn ch;
	int got = report_churn(q, run_id, -1, -1, &ch);

	if (got < 0)
		return -1;
	report_deaths_of(got ? &ch.tot : NULL, d);
	if (!got)
		return 0;
	return query_churn_alive(q, run_id, &d->churn_alive, &d->probe_alive) < 0 ? -1 : 1;
}

const char *report_deaths_text(const struct report_deaths *d, char *buf, size_t len)
{
	char un[48] = "";

	if (!d->churn_spawned && !d->probe_spawned) {
		snprintf(buf, len, "no workers");
		return buf;
	}
	if (d->unattributed)
		snprintf(un, sizeof un, ", unmatched %" PRId64, d->unattributed);
	snprintf(buf, len, "OOM kills %" PRId64 " (churn %" PRId64 ", probe %" PRId64 "%s); killed %" PRId64
		 ", exited %" PRId64, d->oom_total, d->churn_oom, d->probe_oom, un, d->churn_killed + d->probe_killed,
		 d->churn_exited + d->probe_exited);
	return buf;
}

int report_run_deaths(struct query *q, int64_t run_id, char *buf, size_t len)
{
	struct report_churn ch;
	struct report_deaths d;
	int got = report_churn(q, run_id, -1, -1, &ch);

	if (got < 0)
		return -1;
	report_deaths_of(got ? &ch.tot : NULL, &d);
	report_deaths_text(&d, buf, len);
	return 0;
}

/* "48 MiB" / "no limit" */
static const char *limit_text(int64_t v, int bytes, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "?");
	else if (v == 0)
		snprintf(buf, len, "no limit");
	else if (bytes && v % (1 << 20) == 0)
		snprintf(buf, len, "%" PRId64 " MiB", v >> 20);
	else
		snprintf(buf, len, "%" PRId64, v);
	return buf;
}

const char *report_run_confinement(const struct query_run *r, char *buf, size_t len)
{
	char m[32], p[32];
	const char *g;

	if (!r->cgroup) {
		snprintf(buf, len, "not recorded (no churn engine, or an older fpusoakd)");
	} else if (strcmp(r->cgroup, "none") == 0) {
		if (r->pop_cap > 0)
			snprintf(buf, len, "unconfined: %s (capped at %" PRId64 " workers)",
				 r->unconfined_reason ? r->unconfined_reason : "no cgroup", r->pop_cap);
		else
			snprintf(buf, len, "unconfined: %s", r->unconfined_reason ? r->unconfined_reason : "no cgroup");
	} else if (r->confinement_exact != 1) {
		snprintf(buf, len, "%s (limits not read back: an older fpusoakd)", r->cgroup);
	} else {
		g = r->cgroup_group ? strrchr(r->cgroup_group, '/') : NULL;
		snprintf(buf, len, "%s %s, memory %s, pids %s", r->cgroup, g ? g + 1 : "?",
			 limit_text(r->cgroup_memory_max, 1, m, sizeof m), limit_text(r->cgroup_pids_max, 0, p, sizeof p));
	}
	return buf;
}

struct churn_series {
	report_churn_fn fn;
	void *arg;
};

static int churn_point(void *arg, const struct query_churn *c)
{
	struct churn_series *s = arg;
	struct report_churn_point p = { c->ts_ms, c->span_ms, c->population, { 0 } };

	for (int i = 0; i < QC_N; i++)
		p.per_s[i] = report_per_s((double)c->c[i], c->span_ms);
	return s->fn(s->arg, &p);
}

int report_churn_series(struct query *q, int64_t run_id, struct query_range *rg, report_churn_fn fn, void *arg)
{
	struct churn_series s = { fn, arg };

	return query_churn_series(q, run_id, rg, churn_point, &s);
}

/* ---------------------------------------------------------------- probes */

static int set_push(struct report_probe_set *s, int64_t t, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		int64_t *nt = realloc(s->t, cap * sizeof *nt);
		double *nv;
		if (!nt)
			return -1;
		s->t = nt;
		if (!(nv = realloc(s->v, cap * sizeof *nv)))
			return -1;
		s->v = nv;
		s->cap = cap;
	}
	s->t[s->n] = t;
	s->v[s->n] = v;
	s->n++;
	return 0;
}

static int set_censor(struct report_probe_set *s, const char *reason, double v)
{
	if (!s->censored++) {
		snprintf(s->censored_reason, sizeof s->censored_reason, "%s", reason ? reason : "?");
		s->censored_max = v;
	} else if (v > s->censored_max)
		s->censored_max = v;
	return 0;
}

struct probe_filter {
	struct report_probes *p;
	int mode;                 /* capacity probes of this enum report_gfp_mode only; -1: all */
};

static void set_duration(struct report_probe_set *s, int64_t ms)
{
	if (ms < 0)
		return;
	if (s->dur_min_ms < 0 || ms < s->dur_min_ms)
		s->dur_min_ms = ms;
	if (ms > s->dur_max_ms)
		s->dur_max_ms = ms;
}

static int probe_cb(void *arg, const struct query_probe *pr)
{
	struct probe_filter *f = arg;
	struct report_probes *p = f->p;

	if (!pr->kind || !isfinite(pr->result))
		return 0;
	if (strcmp(pr->kind, "capacity") == 0) {
		if (f->mode >= 0 && report_gfp_mode_of(pr->gfp_mode) != f->mode)
			return 0;
		set_duration(&p->capacity, pr->duration_ms);
		/* A probe stopped by its limit, a timeout or the daemon's stop held at least that many: no capacity. */
		if (report_probe_censored(pr->stop_reason))
			return set_censor(&p->capacity, pr->stop_reason, pr->result);
		return set_push(&p->capacity, pr->ts_ms, pr->result);
	}
	if (strcmp(pr->kind, "switch") == 0) {
		if (pr->stop_reason && strcmp(pr->stop_reason, "done") != 0)
			return set_censor(&p->fpu_cost, pr->stop_reason, pr->result);
		return set_push(&p->fpu_cost, pr->ts_ms, pr->result);
	}
	return 0;
}

/* Median, range and the least-squares trend of a set; 0 or -1 (out of memory). */
static int set_finish(struct report_probe_set *s)
{
	double *scratch;

	s->median = s->min = s->max = NAN;
	if (s->n == 0)
		return 0;
	s->min = INFINITY;
	s->max = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		s->min = fmin(s->min, s->v[i]);
		s->max = fmax(s->max, s->v[i]);
	}
	if (!(scratch = malloc((s->n + 1) * sizeof *scratch)))
		return -1;
	if (stats_median(s->v, s->n, scratch, &s->median) != STATS_OK)
		s->median = NAN;
	/* x relative to the first probe: small numbers, no precision lost to epoch offsets. */
	for (size_t i = 0; i < s->n; i++)
		scratch[i] = (double)(s->t[i] - s->t[0]);
	s->fit_ok = s->n >= REPORT_TREND_MIN_POINTS && trend_fit(scratch, s->v, s->n, &s->fit) == TREND_OK;
	free(scratch);
	if (s->fit_ok) {
		s->slope_h = trend_per_hour(s->fit.slope);
		s->lo_h = trend_per_hour(s->fit.ci_lo);
		s->hi_h = trend_per_hour(s->fit.ci_hi);
		s->significant = s->fit.ci_hi < 0 || s->fit.ci_lo > 0;
	}
	return 0;
}

int report_probes(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_probes *out)
{
	return report_probes_mode(q, run_id, from_ms, to_ms, -1, out);
}

int report_probes_mode(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int mode,
		       struct report_probes *out)
{
	struct probe_filter f = { out, mode };

	memset(out, 0, sizeof *out);
	out->capacity.dur_min_ms = out->capacity.dur_max_ms = -1;
	out->fpu_cost.dur_min_ms = out->fpu_cost.dur_max_ms = -1;
	out->rows = query_probes_bare(q, run_id, NULL, from_ms, to_ms, QUERY_MAX_ROWS, probe_cb, &f);
	if (out->rows < 0 || set_finish(&out->capacity) < 0 || set_finish(&out->fpu_cost) < 0) {
		report_probes_free(out);
		return -1;
	}
	return 0;
}

void report_probes_free(struct report_probes *p)
{
	if (!p)
		return;
	free(p->capacity.t);
	free(p->capacity.v);
	free(p->fpu_cost.t);
	free(p->fpu_cost.v);
	memset(&p->capacity, 0, sizeof p->capacity);
	memset(&p->fpu_cost, 0, sizeof p->fpu_cost);
}

/* ---------------------------------------------------------------- atomic risk */

int report_request(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
		   struct report_request *out)
{
	struct query_request r;
	int got = query_request_summary(q, run_id, order, from_ms, to_ms, &r);
	double n = (double)r.samples;

	out->samples = got > 0 ? r.samples : 0;
	out->atomic_only_pct = got > 0 ? 100.0 * (double)r.atomic_only / n : NAN;
	out->nowait_only_pct = got > 0 ? 100.0 * (double)r.nowait_only / n : NAN;
	out->atomic_fail_pct = got > 0 ? 100.0 * (double)r.atomic_fail / n : NAN;
	out->kernel_fail_pct = got > 0 ? 100.0 * (double)r.kernel_fail / n : NAN;
	return got;
}

struct atomic_rows {
	report_atomic_fn fn;
	void *arg;
};

static int atomic_row(void *arg, const struct query_atomic *a)
{
	struct atomic_rows *r = arg;
	double n = a->samples > 0 ? (double)a->samples : NAN;
	struct report_atomic x = {
		.node = a->node, .zone = a->zone, .samples = a->samples, .risk = a->risk,
		.risk_pct = 100.0 * (double)a->risk / n, .atomic_fail_pct = 100.0 * (double)a->atomic_fail / n,
		.kernel_fail_pct = 100.0 * (double)a->kernel_fail / n, .has_margin = a->has_margin,
		.min_margin = a->min_margin,
	};

	return r->fn(r->arg, &x);
}

int report_atomic_summary(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			  report_atomic_fn fn, void *arg)
{
	struct atomic_rows r = { fn, arg };

	return query_atomic_summary(q, run_id, order, from_ms, to_ms, atomic_row, &r);
}

struct atomic_pct {
	query_zone_fn fn;
	void *arg;
};

static int atomic_pct_cb(void *arg, const struct query_zone_point *p)
{
	struct atomic_pct *a = arg;
	struct query_zone_point x = *p;

	x.v = 100.0 * p->v;
	x.lo = 100.0 * p->lo;
	x.hi = 100.0 * p->hi;
	return a->fn(a->arg, &x);
}

int report_atomic_series(struct query *q, int64_t run_id, int order, struct query_range *rg, query_zone_fn fn,
			 void *arg)
{
	struct atomic_pct a = { fn, arg };

	return query_atomic_series(q, run_id, order, rg, atomic_pct_cb, &a);
}

/* ---------------------------------------------------------------- the fragmenting load */

static int fragment_info_cb(void *arg, const struct query_fragment_info *f)
{
	struct report_fragment *o = arg;

	snprintf(o->level, sizeof o->level, "%s", f->level ? f->level : "?");
	snprintf(o->recipe, sizeof o->recipe, "%s", f->recipe ? f->recipe : "");
	o->base_bytes = f->base_bytes;
	o->cap_bytes = f->cap_bytes;
	o->keep_cap_bytes = f->keep_cap_bytes;
	return 0;
}

int report_fragment(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_fragment *out)
{
	int r;

	memset(out, 0, sizeof *out);
	out->peak_pct_of_cap = NAN;
	if ((r = query_fragment_info(q, run_id, fragment_info_cb, out)) <= 0)
		return r;
	if (query_fragment_totals(q, run_id, from_ms, to_ms, &out->tot) < 0)
		return -1;
	if (out->tot.rows > 0 && out->cap_bytes > 0)
		out->peak_pct_of_cap = 100.0 * (double)out->tot.held_max / (double)out->cap_bytes;
	return 1;
}

/* ---------------------------------------------------------------- --gfp-mode */

static const char *const GFP_MODE_NAMES[4] = { "off", "kernel", "atomic", "nowait" };

const char *report_gfp_mode_name(int mode)
{
	return mode >= 0 && mode < 4 ? GFP_MODE_NAMES[mode] : "?";
}

int report_gfp_mode_of(const char *name)
{
	for (int m = REPORT_GFP_KERNEL; m <= REPORT_GFP_NOWAIT; m++)
		if (name && strcmp(name, GFP_MODE_NAMES[m]) == 0)
			return m;
	return REPORT_GFP_NONE;
}

static int modes_cb(void *arg, const struct query_probe *p)
{
	unsigned *mask = arg;

	*mask |= 1u << report_gfp_mode_of(p->gfp_mode);
	return 0;
}

int report_probe_modes(struct query *q, int64_t run_id, unsigned *mask)
{
	*mask = 0;
	return query_probes_bare(q, run_id, "capacity", -1, -1, QUERY_MAX_ROWS, modes_cb, mask) < 0 ? -1 : 0;
}
