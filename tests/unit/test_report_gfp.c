/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_gfp: the 2014 test of a run (report/gfp.h) and the per-mode
 * capacity lines of a comparison (report/compare.c), on a database written
 * here with SQL, every expected figure worked by hand:
 *
 *   run 1, gfp_mode "alternate": capacity probes kernel 100, atomic 90,
 *     kernel 102, atomic 91, kernel 101, atomic 89, kernel 99, atomic 86 an
 *     hour apart (four of each: a verdict, not "too few data"; one of the
 *     atomic ones stopped by gfp_failed:atomic), a kernel probe stopped by
 *     its timeout (120: a lower bound, censored, left out of the A/B), and one
 *     probe without a mode
 *     (a probe before the module: not part of the A/B);
 *     churn ticks with gfp_failed 0, 2, 1 (3 in all);
 *     model checks: order 3 atomic  ok/ok 5, refused/refused 1
 *                   order 3 nowait  ok/ok 4, ok/refused 2 (margins 7 and -40)
 *                   order 9 atomic  refused/refused 3
 *     -> 15 checks, 13 agreed; atomic 9/9, nowait 4/6
 *   run 2, no gfp_mode recorded: capacity probes 80, 82 (no mode)
 *   run 3, "kernel": capacity probes kernel 95, 97
 *   (the comparisons of runs have too few probes for a verdict: what they
 *   check is which probes each line takes, by its medians)
 */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "report/compare.h"
#include "report/gfp.h"
#include "store/store.h"
#include "tests/unit/test.h"

#define H 3600000LL
#define T0 1717243200000LL

static int exec(sqlite3 *db, const char *sql)
{
	char *e = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK) {
		printf("      sql: %s\n", e ? e : "?");
		sqlite3_free(e);
		return -1;
	}
	return 0;
}

static int fill(const char *path)
{
	char sql[4096];
	sqlite3 *db;
	int rc;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	snprintf(sql, sizeof sql,
		 "INSERT INTO runs(run_id, started_ms, ended_ms, end_reason, gfp_mode) VALUES"
		 " (1, %lld, %lld, 'stopped', 'alternate'), (2, %lld, %lld, 'stopped', NULL),"
		 " (3, %lld, %lld, 'stopped', 'kernel');"
		 "INSERT INTO probes(run_id, ts_ms, kind, result, stop_reason, duration_ms, detail, gfp_mode) VALUES"
		 " (1, %lld, 'capacity', 70, 'worker_died:SIGKILL', 1, 'x', NULL),"
		 " (1, %lld, 'capacity', 100, 'worker_died:SIGKILL', 1, 'gfp_mode=kernel gfp_failed=0', 'kernel'),"
		 " (1, %lld, 'capacity', 90, 'gfp_failed:atomic', 1, 'gfp_mode=atomic gfp_failed=1', 'atomic'),"
		 " (1, %lld, 'capacity', 102, 'worker_died:SIGKILL', 1, '', 'kernel'),"
		 " (1, %lld, 'capacity', 91, 'worker_died:SIGKILL', 1, '', 'atomic'),"
		 " (1, %lld, 'capacity', 101, 'worker_died:SIGKILL', 1, '', 'kernel'),"
		 " (1, %lld, 'capacity', 89, 'worker_died:SIGKILL', 1, '', 'atomic'),"
		 " (1, %lld, 'capacity', 120, 'timeout', 1, '', 'kernel'),"
		 " (1, %lld, 'capacity', 99, 'worker_died:SIGKILL', 1, '', 'kernel'),"
		 " (1, %lld, 'capacity', 86, 'worker_died:SIGKILL', 1, '', 'atomic'),"
		 " (1, %lld, 'switch', 3.5, 'done', 1, '', NULL),"
		 " (2, %lld, 'capacity', 80, 'oom_kill', 1, '', NULL), (2, %lld, 'capacity', 82, 'oom_kill', 1, '', NULL),"
		 " (3, %lld, 'capacity', 95, 'oom_kill', 1, '', 'kernel'), (3, %lld, 'capacity', 97, 'oom_kill', 1, '', 'kernel');"
		 "INSERT INTO samples(run_id, ts_ms, sample_us, population, spawned, exited) VALUES"
		 " (1, %lld, 10, 5, 5, 0), (1, %lld, 10, 5, 2, 0), (1, %lld, 10, 5, 1, 0);"
		 /* gfp_failed is a rare count: a churn_rare row where it is not zero (schema 019). */
		 "INSERT INTO churn_rare(run_id, ts_ms, gfp_failed) SELECT run_id, ts_ms, spawned FROM samples"
		 " WHERE run_id = 1 AND spawned < 5;"
		 "INSERT INTO model_check VALUES"
		 " (1, %lld, 3, 2, 1, 1, 100), (1, %lld, 3, 2, 1, 1, 100), (1, %lld, 3, 2, 1, 1, 100),"
		 " (1, %lld, 3, 2, 1, 1, 100), (1, %lld, 3, 2, 1, 1, 100), (1, %lld, 3, 2, 0, 0, -3),"
		 " (1, %lld, 3, 3, 1, 1, 90), (1, %lld, 3, 3, 1, 1, 90), (1, %lld, 3, 3, 1, 1, 90), (1, %lld, 3, 3, 1, 1, 90),"
		 " (1, %lld, 3, 3, 1, 0, 7), (1, %lld, 3, 3, 1, 0, -40),"
		 " (1, %lld, 9, 2, 0, 0, -5), (1, %lld, 9, 2, 0, 0, -5), (1, %lld, 9, 2, 0, 0, -5);",
		 T0, T0 + 9 * H, T0 + 10 * H, T0 + 11 * H, T0 + 12 * H, T0 + 13 * H,
		 T0 - 1, T0, T0 + H, T0 + 2 * H, T0 + 3 * H, T0 + 4 * H, T0 + 5 * H, T0 + 5 * H + 30 * 60000, T0 + 6 * H, T0 + 7 * H, T0 + 8 * H,
		 T0 + 10 * H, T0 + 10 * H + 1, T0 + 12 * H, T0 + 12 * H + 1,
		 T0 + 1000, T0 + 2000, T0 + 3000,
		 T0 + 10, T0 + 20, T0 + 30, T0 + 40, T0 + 50, T0 + 60,
		 T0 + 10, T0 + 20, T0 + 30, T0 + 40, T0 + 50, T0 + 60,
		 T0 + 10, T0 + 20, T0 + 30);
	rc = exec(db, sql);
	sqlite3_close(db);
	return rc;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static const struct report_line *line_of(const struct report_cmp *c, const char *label)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->line[i].label, label) == 0)
			return &c->line[i];
	return NULL;
}

int main(void)
{
	char dir[] = "/tmp/fpusoak-rgfp-XXXXXX", path[128], err[256];
	struct store *st;
	struct query *q;
	struct report_gfp g;
	struct report_cmp *c = calloc(1, sizeof *c);
	const struct report_line *l;

	if (!mkdtemp(dir) || !c) {
		T_CHECK(0, "temp dir");
		T_DONE();
	}
	snprintf(path, sizeof path, "%s/g.db", dir);
	st = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "store creates the schema%s%s", st ? "" : ": ", st ? "" : err);
	store_close(st);
	T_EQ_I(fill(path), 0, "rows written");
	q = query_open(path, err, sizeof err);
	T_CHECK(q != NULL, "reader opens%s%s", q ? "" : ": ", q ? "" : err);
	if (!q)
		T_DONE();

	T_EQ_I(report_gfp(q, 1, -1, -1, &g), 0, "report_gfp of run 1");
	T_EQ_S(g.mode, "alternate", "the run's mode");
	T_EQ_I(g.nprobes, 10, "ten capacity probes (the switch probe is not one)");
	T_CHECK(g.probes_by_mode[REPORT_GFP_KERNEL] == 5 && g.probes_by_mode[REPORT_GFP_ATOMIC] == 4 &&
		g.probes_by_mode[REPORT_GFP_NONE] == 1, "5 kernel, 4 atomic, 1 without a mode");
	T_CHECK(g.censored_by_mode[REPORT_GFP_KERNEL] == 1 && g.censored_by_mode[REPORT_GFP_ATOMIC] == 0 &&
		g.censored && g.censored[7] && !g.censored[6], "the timeout probe is censored, the others are not");
	T_EQ_I(g.probes_gfp_failed, 1, "one probe ended by a refused HOLD");
	T_EQ_I(g.churn_gfp_failed, 3, "churn gfp_failed 0 + 2 + 1");
	T_CHECK(g.line.ok && near(g.line.c.a, 100.5) && near(g.line.c.b, 89.5) && near(g.line.c.est, -11),
		"kernel vs atomic (censored 120 left out): medians 100.5 vs 89.5, HL shift -11 (%g, %g, %g)",
		g.line.c.a, g.line.c.b, g.line.c.est);
	T_CHECK(strncmp(g.line.verdict, "kernel vs atomic: 100.5 vs 89.5", 31) == 0 && !strstr(g.line.verdict, "too few"),
		"verdict line: %s", g.line.verdict);
	T_EQ_I(g.ab.npairs, 4, "four turns (the probe without a mode and the censored one pair with nothing)");
	T_CHECK(g.ab.have_trend && near(g.gap_h, -0.5), "gap -10, -11, -12, -13 at 1, 3, 5, 7 h: -0.5 per hour (%g)",
		g.gap_h);
	T_EQ_I(g.checks, 15, "15 model checks");
	T_EQ_I(g.agreed, 13, "13 agreed");
	T_CHECK(near(g.accuracy, 13.0 / 15), "accuracy 13/15 (%g)", g.accuracy);
	T_CHECK(g.mode_checks[REPORT_GFP_ATOMIC] == 9 && g.mode_agreed[REPORT_GFP_ATOMIC] == 9 &&
		g.mode_checks[REPORT_GFP_NOWAIT] == 6 && g.mode_agreed[REPORT_GFP_NOWAIT] == 4, "atomic 9/9, nowait 4/6");
	T_EQ_I(g.ncells, 3, "cells: (3, atomic), (3, nowait), (9, atomic)");
	if (g.ncells == 3) {
		T_CHECK(g.cell[0].order == 3 && g.cell[0].mode == REPORT_GFP_ATOMIC && g.cell[0].c.n[1][1] == 5 &&
			g.cell[0].c.n[0][0] == 1 && g.cell[0].min_margin_wrong == -1, "order 3 atomic: 5 ok/ok, 1 refused/refused, no miss");
		T_CHECK(g.cell[1].mode == REPORT_GFP_NOWAIT && g.cell[1].c.n[1][0] == 2 && near(g.cell[1].accuracy, 4.0 / 6) &&
			g.cell[1].min_margin_wrong == 7 && g.cell[1].max_margin_wrong == 40,
			"order 3 nowait: 2 misses at |margin| 7..40");
		T_CHECK(g.cell[2].order == 9 && g.cell[2].c.n[0][0] == 3, "order 9 atomic: 3 refused/refused");
	}
	report_gfp_free(&g);

	T_EQ_I(report_gfp(q, 2, -1, -1, &g), 0, "report_gfp of run 2 (no mode recorded)");
	T_CHECK(g.mode[0] == 0 && g.checks == 0 && g.accuracy < 0 && !g.line.ok && !g.have_ab && g.line.verdict[0],
		"no mode, no checks, no kernel-vs-atomic comparison (%s)", g.line.verdict);
	report_gfp_free(&g);

	/* Compare: per mode.  Run 3 (kernel 95, 97) against run 1: a kernel line only. */
	T_EQ_I(report_compare(q, 1, q, 3, c), 0, "compare 3 against 1");
	l = line_of(c, "capacity (kernel)");
	T_CHECK(l && near(l->c.a, 100.5) && near(l->c.b, 96) && strstr(l->word, "too few data"),
		"capacity (kernel): 100.5 vs 96, too few data (%s)", l ? l->word : "(no line)");
	T_CHECK(!line_of(c, "capacity (atomic)"), "no atomic line: run 3 has no atomic probe");
	T_CHECK(!line_of(c, "capacity"), "no mode-less line: run 3 has none");
	/* Run 2 (no mode) against run 3 (kernel): nothing in common. */
	T_EQ_I(report_compare(q, 3, q, 2, c), 0, "compare 2 against 3");
	l = line_of(c, "capacity");
	T_CHECK(l && !l->ok && strstr(l->word, "not comparable") && strstr(l->word, "kernel"),
		"not comparable: %s", l ? l->word : "(no line)");
	/* Run 2 against run 1: the mode-less probes (70 vs 80, 82). */
	T_EQ_I(report_compare(q, 1, q, 2, c), 0, "compare 2 against 1");
	l = line_of(c, "capacity");
	T_CHECK(l && near(l->c.a, 70) && near(l->c.b, 81) && strstr(l->word, "too few data"),
		"capacity (no HOLD): 70 vs 81, too few data (%s)", l ? l->word : "(no line)");

	query_close(q);
	free(c);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	T_EQ_I(system(path), 0, "temp dir removed");
	T_DONE();
}
