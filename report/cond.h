/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/cond: what a stored run ran under (report/gate.h's struct report_cond: its confinement as
 * set and as read back, its workload and probes, the machine, the trace, the fragmenting load that
 * ran, --gfp-mode, the allocator's knobs), and what a comparison says of it (struct report_side).
 * A run of an older fpusoakd leaves unknown what it did not record ("" / -1), never a guess.
 */
#ifndef FPUSOAK_REPORT_COND_H
#define FPUSOAK_REPORT_COND_H

#include <stdint.h>

#include "report/gate.h"
#include "report/run.h"
#include "store/query.h"

/* What one run of a comparison is, for the page's state lines and environment table (printable ASCII). */
struct report_side {
	int64_t run_id, started_ms, first_sample_ms, last_sample_ms, nsamples, duration_ms;
	char state[16];           /* running, stopped, crash, error, unfinished */
	int unconfined;
	char label[96], kernel[96], hypervisor[48], hostname[64], cpu[128], fpu[128], fpu_kind[32], eager[32];
	int64_t xstate, memtotal; /* -1 unknown */
	char conf[REPORT_GATE_TEXT + 64];
	char deaths[128];
	char churn_identity[256], probe_identity[256];   /* report_deaths_identity; "" without churn */
};

/* What a stored run ran under, from its row (config text, churn_info, environment). Pure. */
void report_cond_of_run(const struct query_run *r, struct report_cond *out);

/* Everything run_id of q ran under into c, and what the comparison shows of it into s; t is its trace
 * (report_trace).  0, or -1 on a store error. */
int report_cond_load(struct query *q, int64_t run_id, const struct report_trace *t, struct report_cond *c,
		     struct report_side *s);

/* 1 if run exists in q, 0 if not, -1 on a store error. */
int report_run_exists(struct query *q, int64_t run);

#endif
