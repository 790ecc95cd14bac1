/* SPDX-License-Identifier: GPL-2.0-only */
/* test_rare: the rare-event comparison line (report/rare.h): words, exposures, bounds, the gate kept. */
#include <math.h>

#include "report/rare.h"
#include "test.h"

static void line(struct report_line *l, const char *label)
{
	memset(l, 0, sizeof *l);
	snprintf(l->label, sizeof l->label, "%s", label);
	l->comparable = l->gate.comparable = 1;
}

int main(void)
{
	struct report_line l;
	char buf[32];

	/* The 4-minute pair with no failure on either side: exposure and each side's 95% upper bound. */
	line(&l, "alloc failures/h");
	T_EQ_I(report_rare_line(&l, 0, 238200, 0, 239000), 0, "0 vs 0 fills the line");
	T_CHECK(l.w == REPORT_W_TOO_FEW && strcmp(l.word, "too few data (n=0+0 events; needs 6)") == 0, "0 vs 0: %s", l.word);
	T_CHECK(strstr(l.full, "A 0 in 3m 58.2s = 0 [0, 55.75]/h vs B 0 in 3m 59.0s = 0 [0, 55.56]/h") != NULL,
		"0 vs 0 says each exposure and each upper bound (-ln 0.025 / t): %s", l.full);
	T_CHECK(strlen(l.verdict) <= STATS_VERDICT_COLS && strstr(l.verdict, "too few data"), "72 columns: %s", l.verdict);
	T_CHECK(l.has_ab && l.fa == 0 && l.fb == 0 && l.is_rare, "the figures are kept for every surface");

	/* 0 vs 9 over equal hours: significant, the ratio's lower bound stands, the exact p (2 * 0.5^9) is said. */
	line(&l, "churn OOM kills/h");
	report_rare_line(&l, 0, 3600000, 9, 3600000);
	T_CHECK(l.ok && l.significant && l.w == REPORT_W_SIGNIFICANT && strstr(l.full, "rate ratio >") &&
		strstr(l.full, "exact conditional p=0.00391") && strcmp(l.word, "significant") == 0, "0 vs 9: %s", l.full);
	T_CHECK(l.c.is_ratio && l.c.est_unbounded && l.c.a == 0 && fabs(l.c.b - 9) < 1e-12, "stats_cmp for the table");

	/* 10 vs 10: no significant difference, p = 1. */
	line(&l, "spawn failures/h");
	report_rare_line(&l, 10, 3600000, 10, 3600000);
	T_CHECK(l.ok && !l.significant && strstr(l.full, "rate ratio 1 [") && strstr(l.full, "p=1: no significant difference"),
		"10 vs 10: %s", l.full);

	/* A line the gate refused keeps its reason, and the counts and rates are still said. */
	line(&l, "spawn failures/h");
	report_gate_refuse(&l.gate, "workload differs: workers 4 vs 8");
	l.comparable = 0;
	snprintf(l.word, sizeof l.word, "not comparable: %s", l.gate.why);
	l.w = REPORT_W_NOT_COMPARABLE;
	report_rare_line(&l, 3, 60000, 1, 60000);
	T_CHECK(!l.ok && l.w == REPORT_W_NOT_COMPARABLE && l.has_ab && fabs(l.fa - 180) < 1e-9 &&
		strstr(l.full, "A 3 in 1m 00.0s = 180 [") && strstr(l.full, ": not comparable: workload differs"),
		"refused: %s", l.full);

	/* No exposure on a side: said, no rate invented. */
	line(&l, "alloc failures/h");
	report_rare_line(&l, 2, 60000, 0, 0);
	T_CHECK(l.w == REPORT_W_TOO_FEW && strstr(l.word, "run B has no exposure") && !l.has_ab, "%s", l.full);

	T_EQ_S(report_exposure_text(238200, buf, sizeof buf), "3m 58.2s", "exposure under an hour");
	T_EQ_S(report_exposure_text(41700, buf, sizeof buf), "41.7s", "exposure under a minute");
	T_EQ_S(report_exposure_text(7391000, buf, sizeof buf), "2h 03m 11s", "exposure over an hour");
	T_DONE();
}
