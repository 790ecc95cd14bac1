/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page_compare: "/compare?a=ID&b=ID", two runs side by side (typically two
 * kernels): their environments, the table of differences with a 95% CI,
 * the test used and a verdict line for each (report/compare.h computes
 * them), and overlaid headroom and probe series on a time-since-start axis.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "common/wrap.h"
#include "report/compare.h"
#include "report/headroom.h"
#include "report/run.h"
#include "web/page.h"
#include "web/svg.h"

struct side {
	struct query *q;          /* the run's database */
	int db;
	char ref[RUNREF_LEN];     /* how the pages write the run */
	struct page_run_info ri;
	char label[96], kernel[96], hyp[64], cpu[128], fpu[128], eager[32], fpu_kind[32];
	char conf[REPORT_GATE_TEXT + 64], deaths[128];
	int64_t xstate, memtotal, duration;
};

static void copy(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

static int side_cb(void *arg, const struct query_run *run)
{
	struct side *s = arg;

	page_run_info_cb(&s->ri, run);
	copy(s->label, sizeof s->label, run->label);
	copy(s->kernel, sizeof s->kernel, run->kernel_release);
	snprintf(s->hyp, sizeof s->hyp, "%s%s%s", run->hypervisor ? run->hypervisor : "", run->guest_type ? " " : "",
		 run->guest_type ? run->guest_type : "");
	copy(s->cpu, sizeof s->cpu, run->cpu_model);
	copy(s->fpu, sizeof s->fpu, run->fpu_features);
	report_eagerfpu(run->cmdline, s->eager, sizeof s->eager);
	s->xstate = run->xstate_bytes;
	s->memtotal = run->mem_total_kb;
	s->duration = report_run_duration(run);
	report_run_confinement(run, s->conf, sizeof s->conf);
	return 0;
}

static int load_side(struct web_req *r, int db, int64_t id, struct side *s)
{
	int got, has;

	memset(s, 0, sizeof *s);
	s->q = r->dbs.q[db];
	s->db = db;
	page_ref(r, db, id, s->ref, sizeof s->ref);
	if ((got = query_run(s->q, id, side_cb, s)) <= 0)
		return got;
	if ((has = query_has_table(s->q, "churn_info")) < 0 ||
	    (has && query_run_fpu_kind(s->q, id, s->fpu_kind, sizeof s->fpu_kind) < 0))
		return -1;
	if (report_run_deaths(r->q, id, s->deaths, sizeof s->deaths) < 0)
		return -1;
	return 1;
}

static void env_row(struct web_req *r, const char *key, const char *a, const char *b)
{
	sb_printf(&r->body, "<tr><th>%s</th><td>", key);
	page_text(r, a[0] ? a : NULL);
	sb_puts(&r->body, "</td><td>");
	page_text(r, b[0] ? b : NULL);
	sb_puts(&r->body, "</td></tr>\n");
}

static void env_num(struct web_req *r, const char *key, int64_t a, int64_t b, const char *unit)
{
	char x[48], y[48];

	snprintf(x, sizeof x, "%" PRId64 "%s", a, unit);
	snprintf(y, sizeof y, "%" PRId64 "%s", b, unit);
	env_row(r, key, a >= 0 ? x : "", b >= 0 ? y : "");
}

static void env_table(struct web_req *r, const struct side *a, const struct side *b)
{
	char x[96], y[96], ha[96], hb[96];

	snprintf(ha, sizeof ha, "/runs/%s", a->ref);
	snprintf(hb, sizeof hb, "/runs/%s", b->ref);
	sb_puts(&r->body, "<table class=\"env\">\n<tr><th></th><th>");
	snprintf(x, sizeof x, "A: run %s", a->ref);
	page_link(r, ha, x);
	sb_puts(&r->body, "</th><th>");
	snprintf(y, sizeof y, "B: run %s", b->ref);
	page_link(r, hb, y);
	sb_puts(&r->body, "</th></tr>\n");
	env_row(r, "label", a->label, b->label);
	env_row(r, "kernel", a->kernel, b->kernel);
	env_row(r, "hypervisor / guest", a->hyp, b->hyp);
	env_row(r, "CPU", a->cpu, b->cpu);
	env_row(r, "FPU features", a->fpu, b->fpu);
	env_row(r, "FPU kind used", a->fpu_kind, b->fpu_kind);
	env_num(r, "XSAVE area", a->xstate, b->xstate, " bytes");
	env_row(r, "eagerfpu=", a->eager, b->eager);
	env_num(r, "MemTotal", a->memtotal, b->memtotal, " kB");
	env_row(r, "duration", a->duration >= 0 ? fmt_duration(a->duration, x, sizeof x) : "",
		b->duration >= 0 ? fmt_duration(b->duration, y, sizeof y) : "");
	env_num(r, "samples", a->ri.nsamples, b->ri.nsamples, "");
	env_row(r, "confinement", a->conf, b->conf);
	env_row(r, "worker deaths", a->deaths, b->deaths);
	sb_puts(&r->body, "</table>\n");
}

/* The gate's caveats of a line or the pair, as a list (nothing when there are none). */
static void caveat_list(struct web_req *r, const struct report_gate *g)
{
	if (!g->ncaveats)
		return;
	sb_puts(&r->body, "<ul class=\"caveats\">");
	for (int i = 0; i < g->ncaveats; i++) {
		sb_puts(&r->body, "<li>");
		page_text(r, g->caveat[i]);
		sb_puts(&r->body, "</li>");
	}
	if (g->dropped)
		sb_printf(&r->body, "<li>%d more</li>", g->dropped);
	sb_puts(&r->body, "</ul>");
}

/* "12.3 [10.1, 14.5]" with unbounded ends as -inf/inf. */
static void estimate(struct web_req *r, const struct stats_cmp *c)
{
	char e[32], lo[32], hi[32];

	sb_printf(&r->body, "%s%s%s [%s, %s]", c->est_name ? c->est_name : "", c->est_name ? " " : "",
		  fmt_sig(c->est, e, sizeof e), fmt_sig(c->lo, lo, sizeof lo), fmt_sig(c->hi, hi, sizeof hi));
}

static void verdict_table(struct web_req *r, const struct report_cmp *c)
{
	char a[32], b[32];

	sb_puts(&r->body, "<table class=\"verdicts\">\n<tr><th>comparison</th><th class=\"n\">A</th><th class=\"n\">B</th>"
		"<th>B vs A, 95% CI</th><th>test</th><th>verdict</th></tr>\n");
	for (int i = 0; i < c->n; i++) {
		const struct report_line *l = &c->line[i];

		sb_puts(&r->body, "<tr><td>");
		page_text(r, l->label);
		sb_puts(&r->body, " <small>(");
		page_text(r, l->unit);
		sb_puts(&r->body, ")</small></td>");
		if (l->ok) {
			sb_printf(&r->body, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>", fmt_sig(l->c.a, a, sizeof a),
				  fmt_sig(l->c.b, b, sizeof b));
			if (l->c.est_unbounded)
				sb_printf(&r->body, "%s &gt;%s", l->c.est_name ? l->c.est_name : "",
					  fmt_sig(l->c.lo, a, sizeof a));
			else
				estimate(r, &l->c);
			sb_puts(&r->body, "</td><td>");
			page_text(r, l->test);
			sb_puts(&r->body, "</td><td><strong>");
		} else {
			sb_puts(&r->body, "<td></td><td></td><td class=\"pending\"></td><td>");
			page_text(r, l->test);
			sb_puts(&r->body, "</td><td class=\"pending\"><strong>");
		}
		page_text(r, l->word);
		sb_puts(&r->body, "</strong>");
		caveat_list(r, &l->gate);
		sb_puts(&r->body, "</td></tr>\n");
	}
	sb_puts(&r->body, "</table>\n<p>Differences are B minus A, ratios B over A. Each line ends in one of: "
		"<em>significant</em> (the 95% interval excludes no difference: 0, or 1 for ratios), <em>no significant "
		"difference</em>, <em>too few data</em> (no interval these counts could give would exclude it; what would "
		"do is said), <em>not comparable</em> (the runs differ in a way that makes the line meaningless; the "
		"reason is said). Samples of one value per probe or per minute are taken as independent.</p>\n"
		"<p>For a mailing-list reply:</p>\n<pre class=\"verdict\">");
	for (int i = 0; i < c->n; i++) {
		/* Whole lines folded at words to 72 columns, as `fpusoakd summary` prints them: no number dropped. */
		struct strbuf w;
		sb_init(&w, 4096);
		if (wrap_words(&w, c->line[i].full, STATS_VERDICT_COLS, "  ") == 0 && w.buf)
			page_text(r, w.buf);
		sb_free(&w);
	}
	sb_puts(&r->body, "</pre>\n");
}

/* The pair: comparable at all (the machines), and what differs as meant. */
static void pair_section(struct web_req *r, const struct report_cmp *c)
{
	if (c->pair.comparable && !c->pair.ncaveats)
		return;
	sb_puts(&r->body, "<h2>Comparability</h2>\n<p>");
	if (!c->pair.comparable) {
		sb_puts(&r->body, "<strong>Not comparable:</strong> ");
		page_text(r, c->pair.why);
	} else
		sb_puts(&r->body, "Comparable; read the lines with:");
	sb_puts(&r->body, "</p>\n");
	caveat_list(r, &c->pair);
}

/* ---------------------------------------------------------------- overlays */

struct overlay {
	size_t n;
	int64_t t[SVG_MAX_POINTS];
	double v[SVG_MAX_POINTS];
	int64_t tt[2];
	double tv[2];
	int trend;
	char name[80], tname[96];
};

/* Points of a trend, elapsed since start, every k-th so at most SVG_MAX_POINTS. */
static void overlay_trend(struct overlay *o, const struct report_trend *t, int64_t start, const char *who)
{
	size_t k = t->n > SVG_MAX_POINTS ? (t->n + SVG_MAX_POINTS - 1) / SVG_MAX_POINTS : 1;

	o->n = 0;
	for (size_t i = 0; i < t->n && o->n < SVG_MAX_POINTS; i += k) {
		o->t[o->n] = t->t[i] - start;
		o->v[o->n] = t->v[i];
		o->n++;
	}
	snprintf(o->name, sizeof o->name, "%s", who);
	o->trend = t->ok;
	if (t->ok) {
		o->tt[0] = t->t0_ms - start;
		o->tt[1] = t->last_ms - start;
		o->tv[0] = report_trend_at(t, t->t0_ms);
		o->tv[1] = report_trend_at(t, t->last_ms);
		snprintf(o->tname, sizeof o->tname, "%s trend", who);
	}
}

static void overlay_chart(struct web_req *r, struct overlay *o, int no, const char *title, const char *unit,
			  const char *caption, enum svg_style style)
{
	struct svg_series s[4];
	struct svg_chart c = { .title = title, .y_label = unit, .caption = caption, .y_from_zero = 1, .x_elapsed = 1 };
	int ns = 0;

	/* Both runs from their start: the axis begins at 0 and ends at the later of the two. */
	for (int i = 0; i < no; i++)
		for (size_t j = 0; j < o[i].n; j++)
			if (o[i].t[j] > c.t1_ms)
				c.t1_ms = o[i].t[j];
	for (int i = 0; i < no; i++) {
		s[ns++] = (struct svg_series){ o[i].name, o[i].t, o[i].v, o[i].n, style, i + 1 };
		if (o[i].trend)
			s[ns++] = (struct svg_series){ o[i].tname, o[i].tt, o[i].tv, 2, SVG_DASHED, i + 1 };
	}
	svg_line_chart(&r->body, &c, s, ns);
}

static int headroom_overlay(struct web_req *r, const struct report_cmp *c, const struct side *sa,
			    const struct side *sb, struct overlay *o)
{
	struct report_trend *t = calloc(REPORT_MAX_ZONES, sizeof *t);
	char title[128], cap[384];
	int ret = -1, drawn = 0;

	if (!t)
		return -1;
	for (int i = 0; i < c->orders.n; i++)
		drawn += c->zone[i][0] != 0;
	if (!drawn)
		sb_puts(&r->body, "<p class=\"pending\">Not drawn: no zone has minute rollups of headroom in both runs "
			"(a trend needs 3 complete minutes of each).</p>\n");
	for (int i = 0; i < c->orders.n; i++) {
		const struct side *sd[2] = { sa, sb };
		if (!c->zone[i][0])
			continue;
		for (int w = 0; w < 2; w++) {
			int n = report_headroom_trends(sd[w]->q, sd[w]->ri.run_id, c->orders.order[i], -1, -1, 1, t,
						       REPORT_MAX_ZONES);
			char who[64];
			if (n < 0)
				goto out;
			snprintf(who, sizeof who, "%s: run %s", w ? "B" : "A", sd[w]->ref);
			memset(&o[w], 0, sizeof o[w]);
			snprintf(o[w].name, sizeof o[w].name, "%s", who);
			for (int z = 0; z < n; z++)
				if (t[z].node == c->node[i] && strcmp(t[z].zone, c->zone[i]) == 0)
					overlay_trend(&o[w], &t[z], sd[w]->ri.started_ms, who);
			report_trends_free(t, n);
		}
		snprintf(title, sizeof title, "Headroom at order %d (%s), node %d zone %s", c->orders.order[i],
			 c->orders.why[i], c->node[i], c->zone[i]);
		snprintf(cap, sizeof cap, "Minute averages of the free blocks able to satisfy an order-%d allocation in "
			 "each run, against the time since that run started; dashed: each run's least-squares trend. "
			 "The steeper fall is the kernel that fragments faster.", c->orders.order[i]);
		overlay_chart(r, o, 2, title, "free blocks", cap, SVG_LINE);
	}
	ret = 0;
out:
	free(t);
	return ret;
}

struct probe_ov {
	struct overlay *o;
	int64_t start;
};

static int probe_pt(void *arg, const struct query_probe *p)
{
	struct probe_ov *a = arg;

	if (a->o->n == SVG_MAX_POINTS || !isfinite(p->result))
		return 0;
	a->o->t[a->o->n] = p->ts_ms - a->start;
	a->o->v[a->o->n] = p->result;
	a->o->n++;
	return 0;
}

static int probe_overlay(struct web_req *r, const struct side *sa, const struct side *sb, struct overlay *o,
			 const char *kind, const char *title, const char *unit, const char *caption)
{
	const struct side *sd[2] = { sa, sb };

	for (int w = 0; w < 2; w++) {
		struct probe_ov a = { &o[w], sd[w]->ri.started_ms };
		memset(&o[w], 0, sizeof o[w]);
		snprintf(o[w].name, sizeof o[w].name, "%s: run %s", w ? "B" : "A", sd[w]->ref);
		if (query_probes(sd[w]->q, sd[w]->ri.run_id, kind, -1, -1, SVG_MAX_POINTS, probe_pt, &a) < 0)
			return -1;
	}
	if (o[0].n + o[1].n == 0) {
		sb_puts(&r->body, "<p class=\"pending\">");
		page_text(r, title);
		sb_puts(&r->body, ": none in either run.</p>\n");
		return 0;
	}
	overlay_chart(r, o, 2, title, unit, caption, SVG_LINE_MARKERS);
	return 0;
}

struct state_ctx {
	struct web_req *r;
	int newest;
	const char *who;
};

static int state_cb(void *arg, const struct query_run *run)
{
	struct state_ctx *c = arg;

	sb_printf(&c->r->body, "<div class=\"side\"><strong>%s</strong>", c->who);
	page_state_line(c->r, run, c->newest);
	sb_puts(&c->r->body, "</div>\n");
	return 0;
}

/* One state line per run, A then B, each linked to its report. */
static int state_lines(struct web_req *r, const struct side *sa, const struct side *sb)
{
	const struct side *sd[2] = { sa, sb };

	for (int w = 0; w < 2; w++) {
		char who[96], href[96];
		struct state_ctx c = { r, 0, who };
		if ((c.newest = page_newest(r, sd[w]->db, sd[w]->ri.run_id)) < 0)
			return -1;
		snprintf(href, sizeof href, "/runs/%s", sd[w]->ref);
		if (r->offline)
			snprintf(who, sizeof who, "%s: run %s", w ? "B" : "A", sd[w]->ref);
		else
			snprintf(who, sizeof who, "%s: <a href=\"%s\">run %s</a>", w ? "B" : "A", href, sd[w]->ref);
		if (query_run(sd[w]->q, sd[w]->ri.run_id, state_cb, &c) < 0)
			return -1;
	}
	return 0;
}

int page_compare_runs(struct web_req *r, int da, int64_t a, int db, int64_t b)
{
	struct side sa, sb;
	struct report_cmp *c = NULL;
	struct overlay *o = NULL;
	char title[160];
	int ga, gb, has, ret = -1;

	if ((ga = load_side(r, da, a, &sa)) < 0 || (gb = load_side(r, db, b, &sb)) < 0)
		return -1;
	if (!ga || !gb)
		return web_error(r, 404, !ga ? "no such run (a)" : "no such run (b)");
	if (!(c = calloc(1, sizeof *c)) || !(o = calloc(2, sizeof *o)))
		goto out;
	if (report_compare_with(sa.q, a, sb.q, b, &(struct report_cmp_opts){ .all_failures = r->url->p.failures_all }, c) < 0)
		goto out;
	snprintf(title, sizeof title, "Run %s vs run %s", sa.ref, sb.ref);
	page_begin(r, title);
	if (state_lines(r, &sa, &sb) < 0)
		goto out;
	sb_puts(&r->body, "<h2 id=\"verdicts\">Verdicts: B against A</h2>\n");
	verdict_table(r, c);
	pair_section(r, c);
	sb_puts(&r->body, "<details id=\"environment\"><summary>Environments side by side</summary>\n");
	env_table(r, &sa, &sb);
	sb_puts(&r->body, "</details>\n<h2 id=\"headroom\">Headroom, overlaid</h2>\n");
	if (headroom_overlay(r, c, &sa, &sb, o) < 0)
		goto out;
	sb_puts(&r->body, "<h2 id=\"probes\">Probes, overlaid</h2>\n");
	if ((has = query_has_table(sa.q, "probes")) < 0 || (has && (has = query_has_table(sb.q, "probes")) < 0))
		goto out;
	if (!has)
		sb_puts(&r->body, "<p class=\"pending\">Not drawn: a database of these runs predates the probes.</p>\n");
	if (has && (probe_overlay(r, &sa, &sb, o, "capacity", "Capacity probes", "workers",
				  "Workers held by each capacity probe, against the time since the run started: the "
				  "256-vs-228 test, repeated through the soak.") < 0 ||
		    probe_overlay(r, &sa, &sb, o, "switch", "FPU-cost probes", "us per yield",
				  "System time per sched_yield() of FPU-using threads in each run: what saving and "
				  "restoring FPU state costs each kernel.") < 0))
		goto out;
	page_end(r);
	ret = 0;
out:
	free(c);
	free(o);
	return ret;
}

int page_compare(struct web_req *r)
{
	const struct url_params *p = &r->url->p;
	int da, db;

	if (!p->has_a || !p->has_b)
		return web_error(r, 400, "give two runs: /compare?a=ID&b=ID");
	if (web_resolve(r, &p->a, &da) < 0 || web_resolve(r, &p->b, &db) < 0)
		return -1;
	return page_compare_runs(r, da, p->a.id, db, p->b.id);
}
