/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sec_fragment: the fragmenting background load (--fragment) in report section 4, when the run
 * had one: its recipe and bound, and what it held by kind over the window (v_fragment), on the
 * same time axis as the headroom above, so the load stands next to what it caused.  Figures from
 * report_fragment (report/run.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/run.h"
#include "web/chart.h"
#include "web/escape.h"
#include "web/section.h"
#include "web/svg.h"

#define FRAG_POINTS CHART_POINTS
#define FRAG_KINDS 4               /* anon, pipe, pgtable, socket (bytes); files are a count */

struct frag_series {
	size_t n;
	int64_t t[FRAG_POINTS];
	double v[FRAG_KINDS][FRAG_POINTS];   /* MiB */
};

static int frag_cb(void *arg, const struct query_fragment *f)
{
	struct frag_series *s = arg;

	if (s->n == FRAG_POINTS)
		return -1;
	s->t[s->n] = f->ts_ms;
	s->v[0][s->n] = f->anon / 1048576.0;
	s->v[1][s->n] = f->pipe / 1048576.0;
	s->v[2][s->n] = f->pgtable / 1048576.0;
	s->v[3][s->n] = f->socket / 1048576.0;
	s->n++;
	return 0;
}

static void table(struct web_req *r, const struct report_fragment *f)
{
	char a[32], b[32], c[32], d[32];

	sb_puts(&r->body, "<h3>Fragmenting load: ");
	escape_html(&r->body, f->level, strlen(f->level));
	sb_puts(&r->body, "</h3>\n<table class=\"churn\">\n");
	sb_printf(&r->body, "<tr><td>bound (of %s)</td><td class=\"n\">%s</td></tr>\n",
		  fmt_mib((double)f->base_bytes, a, sizeof a), fmt_mib((double)f->cap_bytes, b, sizeof b));
	sb_printf(&r->body, "<tr><td>long-lived set, at most</td><td class=\"n\">%s</td></tr>\n",
		  fmt_mib((double)f->keep_cap_bytes, c, sizeof c));
	if (f->tot.rows > 0) {
		sb_printf(&r->body, "<tr><td>cycles completed</td><td class=\"n\">%" PRId64 "</td></tr>\n", f->tot.cycles);
		sb_printf(&r->body, "<tr><td>most held at once (%% of the bound)</td><td class=\"n\">%s (%s%%)</td></tr>\n",
			  fmt_mib((double)f->tot.held_max, d, sizeof d), fmt_sig(f->peak_pct_of_cap, a, sizeof a));
		sb_printf(&r->body, "<tr><td>allocations it could not make</td><td class=\"n\">%" PRId64 "</td></tr>\n",
			  f->tot.alloc_failed);
	}
	sb_puts(&r->body, "</table>\n<p>Recipe: <code>");
	escape_html(&r->body, f->recipe, strlen(f->recipe));
	sb_puts(&r->body, "</code></p>\n");
}

int sec_fragment(struct run_page *p)
{
	static const char *const names[FRAG_KINDS] = { "anon (movable)", "pipe buffers", "page tables", "socket messages" };
	struct web_req *r = p->r;
	struct report_fragment f;
	struct query_range rg = { p->from, p->to, FRAG_POINTS, 0, 0 };
	struct frag_series *s;
	int got = report_fragment(r->q, p->ri.run_id, p->from, p->to, &f);

	if (got <= 0)
		return got;
	table(r, &f);
	if (f.tot.rows == 0)
		return 0;
	if (!(s = calloc(1, sizeof *s)))
		return -1;
	if (report_read_fragment_series(r->q, p->ri.run_id, &rg, frag_cb, s) < 0) {
		free(s);
		return -1;
	}
	{
		const double *layers[FRAG_KINDS] = { s->v[0], s->v[1], s->v[2], s->v[3] };
		struct svg_chart c = { .title = "Fragmenting load: memory held by kind", .y_label = "MiB",
				       .caption = "What the load held, stacked by kind (bucket means). Pipe buffers, page tables "
						  "and socket messages are unmovable kernel memory; their long-lived survivors "
						  "pin the pageblocks the headroom chart above loses.",
				       .y_from_zero = 1, .t0_ms = CHART_AXIS(p->from, p->to), .t1_ms = CHART_AXIS(p->to, p->from) };
		svg_stacked_area(&r->body, &c, s->t, s->n, layers, names, FRAG_KINDS);
	}
	free(s);
	return 0;
}
