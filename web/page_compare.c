/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page_compare: "/compare?a=ID&b=ID", two runs side by side (typically two
 * kernels): what differs between them, the table of differences with a 95%
 * CI, the test used and a verdict line for each, whose failures were
 * counted, the environments, and for each headroom, capacity and FPU-cost
 * line a chart of exactly the rows that line compared.  Everything comes
 * from report/compare.h (report_compare_with, its rows kept): this page
 * reads no table itself.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "common/wrap.h"
#include "report/compare.h"
#include "report/rare.h"
#include "web/page.h"
#include "web/svg.h"

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

static void env_table(struct web_req *r, const struct report_cmp *c, const char *ra, const char *rb)
{
	const struct report_side *a = &c->side[0], *b = &c->side[1];
	char x[96], y[96], ha[96], hb[96];

	snprintf(ha, sizeof ha, "/runs/%s", ra);
	snprintf(hb, sizeof hb, "/runs/%s", rb);
	sb_puts(&r->body, "<table class=\"env\">\n<tr><th></th><th>");
	snprintf(x, sizeof x, "A: run %s", ra);
	page_link(r, ha, x);
	sb_puts(&r->body, "</th><th>");
	snprintf(y, sizeof y, "B: run %s", rb);
	page_link(r, hb, y);
	sb_puts(&r->body, "</th></tr>\n");
	env_row(r, "label", a->label, b->label);
	env_row(r, "kernel", a->kernel, b->kernel);
	env_row(r, "hypervisor / guest", a->hypervisor, b->hypervisor);
	env_row(r, "CPU", a->cpu, b->cpu);
	env_row(r, "FPU features", a->fpu, b->fpu);
	env_row(r, "FPU kind used", a->fpu_kind, b->fpu_kind);
	env_num(r, "XSAVE area", a->xstate, b->xstate, " bytes");
	env_row(r, "eagerfpu=", a->eager, b->eager);
	env_num(r, "MemTotal", a->memtotal, b->memtotal, " kB");
	env_row(r, "duration", a->duration_ms >= 0 ? fmt_duration(a->duration_ms, x, sizeof x) : "",
		b->duration_ms >= 0 ? fmt_duration(b->duration_ms, y, sizeof y) : "");
	env_num(r, "samples", a->nsamples, b->nsamples, "");
	env_row(r, "confinement", a->conf, b->conf);
	env_row(r, "worker deaths", a->deaths, b->deaths);
	env_row(r, "churn workers", a->churn_identity, b->churn_identity);
	env_row(r, "probe workers", a->probe_identity, b->probe_identity);
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

/* A side's figure in a cell: the median, slope or rate, whatever the line's word (a rate with its events and
 * exposure); empty where the side has none. */
static void figure(struct web_req *r, const struct report_line *l, int side)
{
	char x[32], lo[32], hi[32], e[32];
	double v = side ? l->fb : l->fa;

	sb_puts(&r->body, "<td class=\"n\">");
	if (l->is_rare && l->has_ab) {
		const struct poisson_cmp *p = &l->rare;
		sb_printf(&r->body, "%s <small>[%s, %s]<br/>%" PRIu64 " in %s</small>", fmt_sig(v, x, sizeof x),
			  fmt_sig(side ? p->rb_lo : p->ra_lo, lo, sizeof lo), fmt_sig(side ? p->rb_hi : p->ra_hi, hi, sizeof hi),
			  side ? p->b : p->a, report_exposure_text((int64_t)llround((side ? p->tb : p->ta) * 3.6e6), e, sizeof e));
	} else if (l->has_ab && isfinite(v)) {
		sb_printf(&r->body, "%s", fmt_sig(v, x, sizeof x));
	} else if (l->ok) {
		sb_printf(&r->body, "%s", fmt_sig(side ? l->c.b : l->c.a, x, sizeof x));
	}
	sb_puts(&r->body, "</td>");
}

static void verdict_table(struct web_req *r, const struct report_cmp *c)
{
	char a[32];

	sb_puts(&r->body, "<table class=\"verdicts\">\n<tr><th>comparison</th><th class=\"n\">A</th><th class=\"n\">B</th>"
		"<th>B vs A, 95% CI</th><th>test</th><th>verdict</th></tr>\n");
	for (int i = 0; i < c->n; i++) {
		const struct report_line *l = &c->line[i];

		sb_puts(&r->body, "<tr><td>");
		page_text(r, l->label);
		sb_puts(&r->body, " <small>(");
		page_text(r, l->unit);
		sb_puts(&r->body, ")</small></td>");
		/* The figures of both runs on every line: a line without a verdict still says what each run had. */
		figure(r, l, 0);
		figure(r, l, 1);
		if (l->ok) {
			sb_puts(&r->body, "<td>");
			if (l->c.est_unbounded)
				sb_printf(&r->body, "%s &gt;%s", l->c.est_name ? l->c.est_name : "",
					  fmt_sig(l->c.lo, a, sizeof a));
			else
				estimate(r, &l->c);
			sb_puts(&r->body, "</td><td>");
			page_text(r, l->test);
			sb_puts(&r->body, "</td><td><strong>");
		} else {
			sb_puts(&r->body, "<td class=\"pending\"></td><td>");
			page_text(r, l->test);
			sb_puts(&r->body, "</td><td class=\"pending\"><strong>");
		}
		page_text(r, l->word);
		sb_puts(&r->body, "</strong>");
		caveat_list(r, &l->gate);
		if (l->attrib[0]) {
			sb_puts(&r->body, "<p class=\"attrib\">");
			page_text(r, l->attrib);
			sb_puts(&r->body, "</p>");
		}
		sb_puts(&r->body, "</td></tr>\n");
	}
	sb_puts(&r->body, "</table>\n<p>Differences are B minus A, ratios B over A. Each line ends in one of: "
		"<em>significant</em> (the 95% interval excludes no difference: 0, or 1 for ratios), <em>no significant "
		"difference</em>, <em>too few data</em> (no interval these counts could give would exclude it; what would "
		"do is said), <em>not comparable</em> (the runs differ in a way that makes the line meaningless; the "
		"reason is said). Samples of one value per probe or per minute are taken as independent; counts per hour "
		"as Poisson, each rate with its exact 95% interval.</p>\n"
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

/* What differs between the runs, before anything else: the experiment, or every difference. */
static void differs_section(struct web_req *r, const struct report_cmp *c)
{
	sb_puts(&r->body, "<div id=\"differs\"><p><strong>What differs:</strong> ");
	if (c->diff.n == 0) {
		page_text(r, "nothing recorded (kernel, settings, load, --gfp-mode, vm knobs): a difference below is "
			  "run-to-run variation.");
		if (c->diff.vm_unknown)
			page_text(r, " The vm knobs of a run were not recorded.");
		sb_puts(&r->body, "</p></div>\n");
		return;
	}
	if (c->diff.n == 1) {
		page_text(r, c->differs);
		page_text(r, ". Each verdict below is B against A under this one difference.");
		if (c->diff.vm_unknown)
			page_text(r, " The vm knobs of a run were not recorded.");
		sb_puts(&r->body, "</p></div>\n");
		return;
	}
	sb_printf(&r->body, "%d things; a line below cannot tell which of them made its difference.</p><ul>",
		  c->diff.n + c->diff.dropped);
	for (int i = 0; i < c->diff.n; i++) {
		char t[256];
		snprintf(t, sizeof t, "%s %s (A) vs %s (B)", c->diff.f[i].name, c->diff.f[i].a, c->diff.f[i].b);
		sb_puts(&r->body, "<li>");
		page_text(r, t);
		sb_puts(&r->body, "</li>");
	}
	if (c->diff.dropped)
		sb_printf(&r->body, "<li>%d more</li>", c->diff.dropped);
	sb_puts(&r->body, "</ul></div>\n");
}

/* Whose failed allocations each source saw, and which the verdict counts (report/whose.h). */
static void whose_section(struct web_req *r, const struct report_cmp *c)
{
	static const char *const src[2] = { "kernel log", "trace" };
	int any = 0;

	for (int s = 0; s < 2; s++) {
		const struct report_whose_counts *w = s ? c->trace : c->kmsg;
		if (!w[0].facts && !w[1].facts)
			continue;
		if (!any++)
			sb_puts(&r->body, "<table class=\"whose\" id=\"whose\">\n<tr><th>failed allocations</th><th>run</th>"
				"<th class=\"n\">this run's own</th><th class=\"n\">other processes'</th>"
				"<th class=\"n\">unknown</th></tr>\n");
		for (int k = 0; k < 2; k++)
			sb_printf(&r->body, "<tr><td>%s</td><td>%c</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
				  "</td><td class=\"n\">%" PRId64 "</td></tr>\n", src[s], "AB"[k], w[k].n[REPORT_WHOSE_OWN],
				  w[k].n[REPORT_WHOSE_OTHER], w[k].n[REPORT_WHOSE_UNKNOWN]);
	}
	if (any)
		sb_printf(&r->body, "</table>\n<p>The failure lines count %s. Unknown: the record named no pid, or the task "
			  "was gone before it could be read.</p>\n", c->opts.all_failures ?
			  "every process's failures (failures=all)" : "each run's own failures (failures=all counts every process's)");
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

/* ---------------------------------------------------------------- the rows of each line, overlaid */

struct overlay {
	size_t n;
	int64_t t[SVG_MAX_POINTS];
	double v[SVG_MAX_POINTS];
	int64_t tt[2];
	double tv[2];
	int trend;
	char name[96], tname[96];
};

/* A line's rows of one run against the time since that run started, every k-th when over SVG_MAX_POINTS;
 * returns k. */
static size_t overlay_series(struct overlay *o, const struct report_series *s, int64_t start, const char *who)
{
	size_t k = s->n > SVG_MAX_POINTS ? (s->n + SVG_MAX_POINTS - 1) / SVG_MAX_POINTS : 1;

	memset(o, 0, sizeof *o);
	snprintf(o->name, sizeof o->name, "%s (%zu %s)", who, s->n, s->what ? s->what : "points");
	for (size_t i = 0; i < s->n && o->n < SVG_MAX_POINTS; i += k) {
		o->t[o->n] = s->t[i] - start;
		o->v[o->n] = s->v[i];
		o->n++;
	}
	o->trend = s->has_fit;
	if (s->has_fit) {
		o->tt[0] = s->t0_ms - start;
		o->tt[1] = s->last_ms - start;
		o->tv[0] = s->fit.intercept;
		o->tv[1] = s->fit.intercept + s->fit.slope * (double)(s->last_ms - s->t0_ms);
		snprintf(o->tname, sizeof o->tname, "%s trend", who);
	}
	return k;
}

static void overlay_chart(struct web_req *r, struct overlay *o, const char *title, const char *unit,
			  const char *caption, enum svg_style style)
{
	struct svg_series s[4];
	struct svg_chart c = { .title = title, .y_label = unit, .caption = caption, .y_from_zero = 1, .x_elapsed = 1 };
	int ns = 0;

	/* Both runs from their start: the axis begins at 0 and ends at the later of the two. */
	for (int i = 0; i < 2; i++)
		for (size_t j = 0; j < o[i].n; j++)
			if (o[i].t[j] > c.t1_ms)
				c.t1_ms = o[i].t[j];
	for (int i = 0; i < 2; i++) {
		s[ns++] = (struct svg_series){ o[i].name, o[i].t, o[i].v, o[i].n, style, i + 1 };
		if (o[i].trend)
			s[ns++] = (struct svg_series){ o[i].tname, o[i].tt, o[i].tv, 2, SVG_DASHED, i + 1 };
	}
	svg_line_chart(&r->body, &c, s, ns);
}

/* The chart of one line: exactly the rows its verdict used, A and B from their starts. */
static void line_chart(struct web_req *r, const struct report_cmp *c, const struct report_line *l,
		       const char *ra, const char *rb, struct overlay *o)
{
	char title[160], cap[512], who[2][64];
	size_t k[2];
	int head = l->kind == REPORT_LINE_HEADROOM;

	if (!l->s[0].n && !l->s[1].n) {
		sb_puts(&r->body, "<p class=\"pending\">");
		page_text(r, l->label);
		page_text(r, head ? ": not drawn: no zone has headroom points in both runs." : ": not drawn: no rows in either run.");
		sb_puts(&r->body, "</p>\n");
		return;
	}
	snprintf(who[0], sizeof who[0], "A: run %s", ra);
	snprintf(who[1], sizeof who[1], "B: run %s", rb);
	for (int w = 0; w < 2; w++)
		k[w] = overlay_series(&o[w], &l->s[w], c->side[w].started_ms, who[w]);
	if (head) {
		int i = 0;
		while (i < c->orders.n && c->orders.order[i] != l->order)
			i++;
		snprintf(title, sizeof title, "Headroom at order %d (%s), node %d zone %s", l->order,
			 i < c->orders.n ? c->orders.why[i] : "?", i < c->orders.n ? c->node[i] : 0,
			 i < c->orders.n ? c->zone[i] : "?");
		snprintf(cap, sizeof cap, "The points each run's headroom trend was fitted through (%zu %s in A, %zu %s in B: "
			 "every tick of a run under %d minutes, else the minute means), against the time since that run "
			 "started; dashed: each run's fitted line. The line \"%s\" compares the two slopes.",
			 l->s[0].n, l->s[0].what ? l->s[0].what : "points", l->s[1].n, l->s[1].what ? l->s[1].what : "points",
			 REPORT_TICK_TREND_MINUTES, l->label);
	} else {
		/* "capacity" -> "Capacity probes", "capacity (atomic)" -> "Capacity probes (atomic)" */
		if (l->kind == REPORT_LINE_FPU_COST)
			snprintf(title, sizeof title, "FPU-cost probes");
		else
			snprintf(title, sizeof title, "Capacity probes%s", l->label + strlen("capacity"));
		snprintf(cap, sizeof cap, "The %zu and %zu probes the line \"%s\" compares (A, B), against the time since "
			 "each run started; probes stopped by a limit, a timeout or the stop (lower bounds) and probes of "
			 "another --gfp-mode are left out, as in the verdict.", l->s[0].n, l->s[1].n, l->label);
	}
	if (k[0] > 1 || k[1] > 1) {
		size_t n = strlen(cap);
		snprintf(cap + n, sizeof cap - n, " Drawn: every %zu-th point of A, every %zu-th of B (all are fitted).",
			 k[0], k[1]);
	}
	overlay_chart(r, o, title, head ? "free blocks" : l->unit, cap, head ? SVG_LINE : SVG_LINE_MARKERS);
}

/* One state line per run, A then B, each linked to its report. */
static void state_lines(struct web_req *r, const struct report_cmp *c, const char *ra, const char *rb)
{
	for (int w = 0; w < 2; w++) {
		const struct report_side *s = &c->side[w];
		char href[96], who[96], d[32], a[FMT_TIME_LEN], b[FMT_TIME_LEN];

		snprintf(href, sizeof href, "/runs/%s", w ? rb : ra);
		snprintf(who, sizeof who, "run %s", w ? rb : ra);
		sb_printf(&r->body, "<div class=\"side\"><strong>%s: </strong>", w ? "B" : "A");
		if (r->offline)
			page_text(r, who);
		else
			page_link(r, href, who);
		/* The state is one of fpusoakd's words (report_run_state): a CSS class as it is. */
		sb_printf(&r->body, "<p class=\"state\"><strong class=\"st st-%s\">", strspn(s->state,
			  "abcdefghijklmnopqrstuvwxyz") == strlen(s->state) ? s->state : "stopped");
		page_text(r, s->state);
		sb_puts(&r->body, "</strong> &#183; ");
		page_text(r, s->label[0] ? s->label : "(no label)");
		sb_puts(&r->body, " &#183; kernel ");
		page_text(r, s->kernel);
		sb_puts(&r->body, " &#183; ");
		page_text(r, s->hypervisor);
		if (s->hostname[0]) {
			sb_puts(&r->body, " &#183; host ");
			page_text(r, s->hostname);
		}
		sb_printf(&r->body, " &#183; %s, %" PRId64 " samples",
			  s->duration_ms >= 0 ? fmt_duration(s->duration_ms, d, sizeof d) : "no duration", s->nsamples);
		if (s->first_sample_ms >= 0)
			sb_printf(&r->body, ", %s to %s UTC", fmt_time_human(s->first_sample_ms, a, sizeof a),
				  fmt_time_human(s->last_sample_ms, b, sizeof b));
		sb_puts(&r->body, s->unconfined ? "</p><p class=\"caveat\"><strong>" : " &#183; confinement ");
		page_text(r, s->conf);
		sb_puts(&r->body, s->unconfined ? "</strong>: the workers were not confined, so probes stopped by the cap "
			"measure the cap.</p></div>\n" : "</p></div>\n");
	}
}

int page_compare_runs(struct web_req *r, int da, int64_t a, int db, int64_t b)
{
	struct report_cmp *c = NULL;
	struct overlay *o = NULL;
	char title[160], ra[RUNREF_LEN], rb[RUNREF_LEN];
	int ga, gb, ret = -1, drawn = 0;

	if ((ga = report_run_exists(r->dbs.q[da], a)) < 0 || (gb = report_run_exists(r->dbs.q[db], b)) < 0)
		return -1;
	if (!ga || !gb)
		return web_error(r, 404, !ga ? "no such run (a)" : "no such run (b)");
	page_ref(r, da, a, ra, sizeof ra);
	page_ref(r, db, b, rb, sizeof rb);
	if (!(c = calloc(1, sizeof *c)) || !(o = calloc(2, sizeof *o)))
		goto out;
	if (report_compare_with(r->dbs.q[da], a, r->dbs.q[db], b,
				&(struct report_cmp_opts){ .all_failures = r->url && r->url->p.failures_all, .keep_series = 1 },
				c) < 0)
		goto out;
	snprintf(title, sizeof title, "Run %s vs run %s", ra, rb);
	page_begin(r, title);
	state_lines(r, c, ra, rb);
	differs_section(r, c);
	sb_puts(&r->body, "<h2 id=\"verdicts\">Verdicts: B against A</h2>\n");
	verdict_table(r, c);
	whose_section(r, c);
	pair_section(r, c);
	sb_puts(&r->body, "<details id=\"environment\"><summary>Environments side by side</summary>\n");
	env_table(r, c, ra, rb);
	sb_puts(&r->body, "</details>\n<h2 id=\"headroom\">Headroom, overlaid</h2>\n");
	for (int i = 0; i < c->n; i++)
		if (c->line[i].kind == REPORT_LINE_HEADROOM) {
			line_chart(r, c, &c->line[i], ra, rb, o);
			drawn++;
		}
	if (!drawn)
		sb_puts(&r->body, "<p class=\"pending\">No headroom line in this comparison.</p>\n");
	sb_puts(&r->body, "<h2 id=\"probes\">Probes, overlaid</h2>\n");
	drawn = 0;
	for (int i = 0; i < c->n; i++)
		if (c->line[i].kind == REPORT_LINE_CAPACITY || c->line[i].kind == REPORT_LINE_FPU_COST) {
			line_chart(r, c, &c->line[i], ra, rb, o);
			drawn++;
		}
	if (!drawn)
		sb_puts(&r->body, "<p class=\"pending\">No probe line in this comparison.</p>\n");
	page_end(r);
	ret = 0;
out:
	report_compare_free(c);
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
