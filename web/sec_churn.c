/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sec_churn: report sections 4 (churn: population, spawns, spawn failures
 * by errno, deaths by signal, OOM kills, from v_churn) and 5 (capacity and
 * FPU-cost probes, from v_probes, with their trends).  Rates and trends come
 * from report/run.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/headroom.h"
#include "report/run.h"
#include "web/chart.h"
#include "web/section.h"
#include "web/svg.h"

#define CHURN_POINTS CHART_POINTS   /* buckets per chart */
#define PROBES_LISTED 100    /* probes in the table, oldest first */

struct churn_series {
	size_t n;
	int64_t t[CHURN_POINTS];
	double pop[CHURN_POINTS];
	double rate[QC_N][CHURN_POINTS];   /* per second */
};

static int churn_cb(void *arg, const struct report_churn_point *c)
{
	struct churn_series *s = arg;

	if (s->n == CHURN_POINTS)
		return -1;
	s->t[s->n] = c->ts_ms;
	s->pop[s->n] = c->population;
	for (int i = 0; i < QC_N; i++)
		s->rate[i][s->n] = c->per_s[i];
	s->n++;
	return 0;
}

/* One line chart of the columns cols[0..n) of s, per second x scale. */
static void churn_chart(struct web_req *r, const struct churn_series *s, const struct run_page *p, const int *cols,
			const char *const *names, int n, double scale, const char *title, const char *unit,
			const char *caption)
{
	struct svg_series ser[8];
	double *v = malloc(sizeof(double) * CHURN_POINTS * 8);
	struct svg_chart c = { .title = title, .y_label = unit, .caption = caption, .y_from_zero = 1,
			       .t0_ms = CHART_AXIS(p->from, p->to), .t1_ms = CHART_AXIS(p->to, p->from) };

	if (!v) {
		r->body.err = 1;
		return;
	}
	for (int i = 0; i < n && i < 8; i++) {
		double *x = v + (size_t)i * CHURN_POINTS;
		for (size_t j = 0; j < s->n; j++)
			x[j] = cols[i] < 0 ? s->pop[j] : s->rate[cols[i]][j] * scale;
		ser[i] = (struct svg_series){ names[i], s->t, x, s->n, SVG_LINE, 0 };
	}
	svg_line_chart(&r->body, &c, ser, n < 8 ? n : 8);
	free(v);
}

static int64_t death_count(const struct query_churn *t)
{
	return t->c[QC_SIGKILL] + t->c[QC_SIGSEGV] + t->c[QC_SIGILL] + t->c[QC_SIGOTHER];
}

static void totals_table(struct web_req *r, const struct report_churn *ch)
{
	static const struct { int col; const char *what; } rows[] = {
		{ QC_SPAWNED, "workers spawned" },
		{ QC_FAIL_EAGAIN, "spawn failures: EAGAIN (fork: pids limit, RLIMIT_NPROC)" },
		{ QC_FAIL_ENOMEM, "spawn failures: ENOMEM (fork could not allocate, e.g. task_struct)" },
		{ QC_FAIL_OTHER, "spawn failures: other errno" },
		{ QC_EXITED, "exits (any code)" },
		{ QC_EXITED_ERROR, "&#8230; of which worker setup failed" },
		{ QC_SIGKILL, "deaths by SIGKILL" },
		{ QC_SIGSEGV, "deaths by SIGSEGV" },
		{ QC_SIGILL, "deaths by SIGILL" },
		{ QC_SIGOTHER, "deaths by another signal" },
		{ QC_OOM, "&#8230; of the SIGKILLs, OOM kills (matched to the memory cgroup's oom_kill count)" },
		{ QC_KILLED_OURS, "&#8230; of the SIGKILLs, fpusoakd's own (a worker past its retire timeout)" },
		{ QC_PROBE_SPAWNED, "capacity-probe workers spawned" },
		{ QC_PROBE_FAILED, "capacity-probe spawn failures" },
		{ QC_PROBE_EXITED, "capacity-probe workers exited (released by the probe)" },
		{ QC_PROBE_SIGKILL, "capacity-probe workers killed by SIGKILL" },
		{ QC_PROBE_OOM, "&#8230; of which OOM kills" },
		{ QC_PROBE_SIGOTHER, "capacity-probe workers killed by another signal" },
		{ QC_OOM_UNATTRIBUTED, "OOM kills in the workers' group matched to no worker" },
	};
	struct report_deaths dd;
	char dt[160];
	const struct query_churn *t = &ch->tot;
	char a[32], b[32], d[32];

	sb_printf(&r->body, "<details><summary>Totals over %s: %" PRId64 " spawned, %" PRId64 " spawn failures, %" PRId64
		  " deaths by signal, %" PRId64 " OOM kills</summary>\n", fmt_duration(t->span_ms, d, sizeof d),
		  t->c[QC_SPAWNED], ch->spawn_failures, death_count(t), t->c[QC_OOM]);
	sb_printf(&r->body, "<table class=\"churn\">\n<tr><th>over %s</th><th class=\"n\">count</th>"
		  "<th class=\"n\">per hour</th></tr>\n", fmt_duration(t->span_ms, d, sizeof d));
	sb_printf(&r->body, "<tr><td>worker population, mean / max</td><td class=\"n\">%s / %" PRId64 "</td><td></td></tr>\n",
		  fmt_sig(t->population, a, sizeof a), t->population_max);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		sb_printf(&r->body, "<tr><td>%s</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%s</td></tr>\n",
			  rows[i].what, t->c[rows[i].col],
			  fmt_sig(ch->per_hour[rows[i].col], b, sizeof b));
	sb_puts(&r->body, "</table></details>\n");
	/* Every death counted once: churn and probe workers each obey spawned = exited + killed + alive. */
	report_deaths_of(t, &dd);
	sb_puts(&r->body, "<p class=\"deaths\">Worker deaths, every one counted once: ");
	page_text(r, report_deaths_text(&dd, dt, sizeof dt));
	sb_puts(&r->body, ".</p>\n");
}

int sec_churn(struct run_page *p)
{
	static const int pop[] = { -1 }, flow[] = { QC_SPAWNED, QC_EXITED };
	static const int fails[] = { QC_FAIL_EAGAIN, QC_FAIL_ENOMEM, QC_FAIL_OTHER };
	static const int deaths[] = { QC_SIGKILL, QC_SIGSEGV, QC_SIGILL, QC_SIGOTHER, QC_OOM };
	static const char *const pop_n[] = { "workers alive (mean)" }, *const flow_n[] = { "spawned", "exited" };
	static const char *const fails_n[] = { "EAGAIN", "ENOMEM", "other errno" };
	static const char *const deaths_n[] = { "SIGKILL", "SIGSEGV", "SIGILL", "other signal", "OOM kill" };
	struct web_req *r = p->r;
	struct report_churn tot;
	struct query_range rg = { p->from, p->to, CHURN_POINTS, 0, 0 };
	struct churn_series *s;
	int got;

	if ((got = report_churn(r->q, p->ri.run_id, p->from, p->to, &tot)) < 0)
		return -1;
	if (!got) {
		sb_puts(&r->body, "<p class=\"pending\">No churn in this window (the run had --workers 0, or the "
			"window holds no sample).</p>\n");
		return sec_fragment(p);
	}
	totals_table(r, &tot);
	if (!(s = calloc(1, sizeof *s)))
		return -1;
	if (report_churn_series(r->q, p->ri.run_id, &rg, churn_cb, s) < 0) {
		free(s);
		return -1;
	}
	churn_chart(r, s, p, pop, pop_n, 1, 1, "Worker population", "workers",
		    "FPU-using workers alive, mean per interval: it holds at --workers unless spawns fail or "
		    "workers die faster than they are replaced.");
	churn_chart(r, s, p, flow, flow_n, 2, 1, "Spawns and exits", "per second",
		    "Workers spawned and exited per second; in a steady soak the two lines track each other.");
	if (tot.spawn_failures)
		churn_chart(r, s, p, fails, fails_n, 3, 60, "Spawn failures by errno", "per minute",
			    "fork() failures per minute by errno. ENOMEM is the kernel failing to allocate a new task "
			    "(task_struct with its FPU area, stack, page tables): the failure this soak looks for.");
	if (death_count(&tot.tot) || tot.tot.c[QC_OOM])
		churn_chart(r, s, p, deaths, deaths_n, 5, 60, "Worker deaths by signal, and OOM kills", "per minute",
			    "Workers killed per minute by signal, and memory-cgroup OOM kills. SIGSEGV or SIGILL point "
			    "at FPU state corruption; SIGKILL with OOM kills at memory pressure.");
	if (!tot.spawn_failures || !(death_count(&tot.tot) || tot.tot.c[QC_OOM]))
		sb_printf(&r->body, "<p class=\"pending\">%s%s%s in this window.</p>\n",
			  tot.spawn_failures ? "" : "No spawn failure",
			  !tot.spawn_failures && !(death_count(&tot.tot) || tot.tot.c[QC_OOM]) ? "; " : "",
			  death_count(&tot.tot) || tot.tot.c[QC_OOM] ? "" : "no worker killed by a signal or the OOM killer");
	free(s);
	return sec_fragment(p);
}

/* ---------------------------------------------------------------- probes */

/* Every k-th point so a chart draws at most SVG_MAX_POINTS (the trend uses them all). */
static size_t stride_of(size_t n)
{
	return n > SVG_MAX_POINTS ? (n + SVG_MAX_POINTS - 1) / SVG_MAX_POINTS : 1;
}

/* The probe chart with, when it fits, a dashed trend; then one line of figures. */
static void probe_chart(struct web_req *r, const struct run_page *p, const struct report_probe_set *l,
			const char *title, const char *unit, const char *name, const char *caption)
{
	size_t k = stride_of(l->n), m = 0;
	int64_t *t = malloc(sizeof(int64_t) * (l->n / k + 1)), tt[2];
	double *v = malloc(sizeof(double) * (l->n / k + 1)), tv[2];
	struct svg_series s[2];
	char a[32], b[32], d[32], cap[640];
	struct svg_chart c = { .title = title, .y_label = unit, .caption = cap, .y_from_zero = 1,
			       .t0_ms = CHART_AXIS(p->from, p->to), .t1_ms = CHART_AXIS(p->to, p->from) };
	int ns = 1;

	if (!t || !v) {
		r->body.err = 1;
		goto out;
	}
	if (l->n == 0 && !l->censored) {
		/* Nothing to draw: one line, not an empty frame. */
		sb_puts(&r->body, "<p class=\"pending\">");
		page_text(r, title);
		sb_puts(&r->body, ": none in this window.</p>\n");
		goto out;
	}
	for (size_t i = 0; i < l->n; i += k, m++) {
		t[m] = l->t[i];
		v[m] = l->v[i];
	}
	s[0] = (struct svg_series){ name, t, v, m, SVG_LINE_MARKERS, 0 };
	if (l->fit_ok) {
		tt[0] = l->t[0];
		tt[1] = l->t[l->n - 1];
		tv[0] = l->fit.intercept;
		tv[1] = l->fit.intercept + l->fit.slope * (double)(l->t[l->n - 1] - l->t[0]);
		s[ns++] = (struct svg_series){ "trend (least squares)", tt, tv, 2, SVG_DASHED, 2 };
	}
	/* The figures go into the caption: a paragraph here would break the row of charts. */
	if (l->fit_ok)
		snprintf(cap, sizeof cap, "%s %zu probes; trend %s %s per hour, 95%% CI [%s, %s]%s.", caption, l->n,
			 fmt_sig(l->slope_h, a, sizeof a), unit, fmt_sig(l->lo_h, b, sizeof b), fmt_sig(l->hi_h, d, sizeof d),
			 l->significant ? ": a significant trend" : ": no significant trend");
	else
		snprintf(cap, sizeof cap, "%s %zu probe%s in this window; trend: too few data (n=%zu; needs %d).", caption,
			 l->n, l->n == 1 ? "" : "s", l->n, REPORT_TREND_MIN_POINTS);
	if (l->censored) {
		size_t n = strlen(cap);
		if (strcmp(unit, "workers") == 0)
			snprintf(cap + n, sizeof cap - n, " %zu more stopped by %s, at least %s workers each: a lower bound, "
				 "not a capacity (left out of the chart and the comparison).", l->censored,
				 l->censored_reason, fmt_sig(l->censored_max, a, sizeof a));
		else
			snprintf(cap + n, sizeof cap - n, " %zu more stopped by %s before they finished (left out of the "
				 "chart and the comparison).", l->censored, l->censored_reason);
	}
	svg_line_chart(&r->body, &c, s, ns);
out:
	free(t);
	free(v);
}

static int probe_row(void *arg, const struct query_probe *pr)
{
	struct web_req *r = arg;
	char t[FMT_TIME_LEN], v[32], d[32];

	sb_printf(&r->body, "<tr><td>%s</td><td>", fmt_time_human(pr->ts_ms, t, sizeof t));
	page_text(r, pr->kind);
	sb_printf(&r->body, "</td><td class=\"n\">%s</td><td>", fmt_sig(pr->result, v, sizeof v));
	page_text(r, pr->stop_reason);
	sb_printf(&r->body, "</td><td class=\"n\">%s</td><td><code>",
		  pr->duration_ms >= 0 ? fmt_duration(pr->duration_ms, d, sizeof d) : "");
	page_text(r, pr->detail);
	sb_puts(&r->body, "</code></td></tr>\n");
	return r->body.err ? -1 : 0;
}

int sec_probes(struct run_page *p)
{
	struct web_req *r = p->r;
	struct report_probes a;
	int ret = -1;

	if (report_probes(r->q, p->ri.run_id, p->from, p->to, &a) < 0)
		return -1;
	if (a.rows == 0) {
		sb_puts(&r->body, "<p class=\"pending\">No probe in this window (--probe-interval and "
			"--switch-probe-interval 0, or the window is shorter than the interval).</p>\n");
		report_probes_free(&a);
		return 0;
	}
	probe_chart(r, p, &a.capacity, "Capacity probes", "workers", "workers held",
		    "FPU-using workers that fit before a spawn failed or one died (2014: 256 with GFP_KERNEL, 228 "
		    "with GFP_ATOMIC); a falling trend is fragmentation eating capacity.");
	probe_chart(r, p, &a.fpu_cost, "FPU-cost probes", "us per yield", "system us per yield",
		    "System time per sched_yield() of FPU-using threads: what saving and restoring FPU state costs.");
	sb_printf(&r->body, "<details><summary>The %d probe%s of this window</summary>\n", a.rows, a.rows == 1 ? "" : "s");
	sb_printf(&r->body, "<table class=\"probes\">\n<tr><th>started</th><th>kind</th><th class=\"n\">result</th>"
		  "<th>stop reason</th><th class=\"n\">duration</th><th>detail</th></tr>\n");
	if (query_probes(r->q, p->ri.run_id, NULL, p->from, p->to, PROBES_LISTED, probe_row, r) < 0)
		goto out;
	sb_puts(&r->body, "</table>\n");
	if (a.rows > PROBES_LISTED)
		sb_printf(&r->body, "<p>%d probes in this window; the first %d are listed (all are in "
			  "<code>v_probes</code> and the probes API).</p>\n", a.rows, PROBES_LISTED);
	sb_puts(&r->body, "</details>\n");
	ret = 0;
out:
	report_probes_free(&a);
	return ret;
}
