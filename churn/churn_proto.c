/* SPDX-License-Identifier: GPL-2.0-only */
/* churn_proto: the configuration's defaults and the records' sizes on the wire; see churn_proto.h. */
#include "churn/churn_proto.h"

#include <stddef.h>
#include <string.h>

void churn_cfg_defaults(struct churn_cfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->params = (struct churn_params){ .workers = 32, .dist = CHURN_DIST_EXP, .rate_milli = 50000,
					     .lifetime_ms = 30000 };
	cfg->seed = 1;
	cfg->fpu = FPU_AUTO;
	cfg->worker_memory = 256 * 1024;
	cfg->worker_tick_ms = 10;
	cfg->worker_work_iters = 1000;
	cfg->cgroup = CGROUP_AUTO;
	cfg->nocgroup_cap = 64;
	cfg->probe_limit = 2048;
	cfg->probe_scope = CHURN_SCOPE_CGROUP;
	cfg->probe_step_timeout_ms = 10000;
	cfg->probe_timeout_ms = 300000;
	cfg->switch_threads = 64;
	cfg->switch_ms = 2000;
	cfg->status_ms = 250;
	cfg->death_records_max = 64;
}

size_t churn_rec_size(uint32_t type)
{
	size_t h = offsetof(struct churn_rec, u);

	switch (type) {
	case CHURN_REC_HELLO:
		return h + sizeof(struct churn_hello);
	case CHURN_REC_STATUS:
		return h + sizeof(struct churn_status);
	case CHURN_REC_DEATH:
		return h + sizeof(struct churn_death);
	case CHURN_REC_GFP_REFUSED:
		return h + sizeof(struct churn_gfp_refusal);
	case CHURN_REC_PROBE_START:
		return h + sizeof(struct churn_probe_start);
	case CHURN_REC_PROBE_DONE:
		return h + sizeof(struct churn_probe_done);
	case CHURN_REC_NOTE:
		return h + sizeof(struct churn_note);
	default:
		return h;
	}
}
