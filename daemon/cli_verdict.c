/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_verdict: the comparison's part of `fpusoakd summary --compare` (report/compare.h's figures as text):
 * what differs first, then whose failures each source saw, the pair's comparability, one verdict line per
 * comparison with its caveats and what it is the effect of, and the tests used.
 */
#include "daemon/cli.h"

#include <inttypes.h>

#include "report/compare.h"

/* What differs between the runs, first: the experiment, or every difference when there are several. */
void cli_verdict_differs(const struct report_cmp *c, cli_put_fn put)
{
	if (c->diff.n == 0) {
		put("What differs: nothing recorded (same kernel, settings, load and --gfp-mode%s): a difference below is"
		    " run-to-run variation.", c->diff.vm_unknown ? "; the vm knobs of a run were not recorded" : ", vm knobs");
		return;
	}
	if (c->diff.n == 1) {
		put("What differs: %s %s (A) vs %s (B).  Each verdict below is B against A under this one difference%s.",
		    c->diff.f[0].name, c->diff.f[0].a, c->diff.f[0].b,
		    c->diff.vm_unknown ? " (the vm knobs of a run were not recorded)" : "");
		return;
	}
	put("What differs (%d): the lines below cannot tell which of these made a difference:", c->diff.n + c->diff.dropped);
	for (int i = 0; i < c->diff.n; i++)
		put("  %s %s (A) vs %s (B)", c->diff.f[i].name, c->diff.f[i].a, c->diff.f[i].b);
	if (c->diff.dropped)
		put("  and %d more", c->diff.dropped);
}

/* Whose failures the runs' sources saw: this run's own, other processes', unknown (report/whose.h). */
static void whose_lines(const struct report_cmp *c, cli_put_fn put)
{
	static const char *const src[2] = { "kernel log", "trace" };

	for (int s = 0; s < 2; s++) {
		const struct report_whose_counts *w = s ? c->trace : c->kmsg;
		if (!w[0].facts && !w[1].facts)
			continue;
		put("Failed allocations (%s), own / other processes' / unknown: A %" PRId64 " / %" PRId64 " / %" PRId64
		    ", B %" PRId64 " / %" PRId64 " / %" PRId64 "%s", src[s], w[0].n[0], w[0].n[1], w[0].n[2], w[1].n[0],
		    w[1].n[1], w[1].n[2], c->opts.all_failures ? " (the verdict counts them all: --failures all)" :
		    " (the verdict counts each run's own)");
	}
}

void cli_verdict_lines(const struct report_cmp *c, cli_put_fn put)
{
	whose_lines(c, put);
	if (!c->pair.comparable)
		put("The runs are not comparable: %s", c->pair.why);
	for (int i = 0; i < c->pair.ncaveats; i++)
		put("Note: %s", c->pair.caveat[i]);
	if (!c->pair.comparable || c->pair.ncaveats)
		put("%s", "");
	put("Verdicts, B against A (difference B-A or ratio B/A, 95%% CI):");
	for (int i = 0; i < c->n; i++) {
		const struct report_line *l = &c->line[i];
		put("%s", l->full);
		for (int k = 0; k < l->gate.ncaveats; k++)
			put("  caveat: %s", l->gate.caveat[k]);
		if (l->gate.dropped)
			put("  caveat: %d more", l->gate.dropped);
		if (l->attrib[0])
			put("  %s", l->attrib);
	}
	put("%s", "");
	put("Tests: capacity, FPU cost, spawns/s, atomic risk: Hodges-Lehmann shift CI and Mann-Whitney p (one value"
	    " per probe or minute); headroom: OLS slopes on minute rollups (under 10 minutes: per tick, AR(1)-corrected),"
	    " Welch CI; failures, spawn failures, OOM kills per hour: exact conditional binomial test, exact 95%% CIs of"
	    " each rate and of the rate ratio.  docs/verdict.md says why each.");
}
