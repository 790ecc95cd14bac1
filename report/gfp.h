/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/gfp: the 2014 test of one run made with the fpusoak_gfp module
 * (--gfp-mode, kmod/), for the run page's section 10, the run's JSON, the
 * summary and the comparison; computed here once, rendered by the callers.
 *
 *   - the mode the run held in (runs.gfp_mode: "alternate", "off (module not
 *     loaded)", ...; "" for runs recorded before schema 9);
 *   - capacity per mode over time: every capacity probe with the mode its
 *     workers held in, and, when the run has kernel and atomic probes, the
 *     within-run comparison atomic against kernel: the line a comparison
 *     would print (report_line_samples: medians, Hodges-Lehmann shift with
 *     its 95% CI, the verdict words, "too few data" below the test's
 *     minimum), and the trend of the gap per hour over (kernel, next atomic)
 *     pairs (analysis/gfpab.h), e.g.
 *       kernel vs atomic: 76 vs 75 (-1.3%), HL shift -1 [-4, 3]: no significant difference
 *     Probes stopped by "limit", "timeout" or "stopped" held at least that
 *     many, not a capacity (report/gate.h): they are shown, counted, and left
 *     out of the comparison and the gap, as a comparison of runs does.
 *   - deaths of a refused HOLD: churn's gfp_failed and the probes it ended;
 *   - the model checks (v_model_check): predicted x actual per order and mode,
 *     agreements, and the accuracy as one headline figure (no interval: checks
 *     a few seconds apart are not independent).
 */
#ifndef FPUSOAK_REPORT_GFP_H
#define FPUSOAK_REPORT_GFP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/gfpab.h"
#include "report/compare.h"
#include "report/run.h"
#include "store/query.h"

#define REPORT_GFP_MAX_CELLS 32      /* (order, mode) pairs of model checks shown */

/* Model checks of one order and mode. */
struct report_gfp_cell {
	int order;
	int mode;                         /* REPORT_GFP_ATOMIC or REPORT_GFP_NOWAIT */
	struct gfpab_confusion c;         /* [predicted_ok][actual_ok] */
	double accuracy;                  /* -1 without checks */
	int64_t min_margin_wrong, max_margin_wrong;   /* |margin| of disagreements; -1 when none */
};

struct report_gfp {
	char mode[48];                    /* the run's --gfp-mode in force; "" when not recorded */
	/* capacity probes with their modes, oldest first */
	size_t nprobes;
	struct gfpab_probe *probe;        /* report_gfp_free frees it */
	unsigned char *censored;          /* probe[i] stopped by limit, timeout or stopped (a lower bound) */
	size_t probes_by_mode[4];         /* indexed by enum report_gfp_mode */
	size_t censored_by_mode[4];       /* of them, left out of the comparison */
	int64_t probes_gfp_failed;        /* probes a refused HOLD ended (stop_reason gfp_failed:*) */
	int64_t churn_gfp_failed;         /* churn workers dead of a refused HOLD in the window */
	/* kernel vs atomic within the run */
	int have_ab;                      /* both modes have probes that are not censored */
	struct gfpab ab;                  /* over the probes that are not censored */
	struct report_line line;          /* the verdict line: line.verdict always says something */
	double gap_h, gap_lo_h, gap_hi_h; /* the gap's trend per hour and its 95% CI (ab.have_trend) */
	int gap_significant;
	/* model checks */
	int ncells;
	struct report_gfp_cell cell[REPORT_GFP_MAX_CELLS];
	uint64_t checks, agreed;          /* every order and mode */
	double accuracy;                  /* agreed / checks; -1 without checks */
	uint64_t mode_checks[4], mode_agreed[4];
};

/* The 2014 test of run_id (which must exist) over [from, to] (-1 = open); 0 or -1 (store error or out of memory). */
int report_gfp(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_gfp *out);

/* Free what report_gfp allocated; NULL-safe. */
void report_gfp_free(struct report_gfp *g);

#endif
