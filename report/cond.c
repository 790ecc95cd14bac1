/* SPDX-License-Identifier: GPL-2.0-only */
/* report/cond: what a stored run ran under; see cond.h. */
#include "report/cond.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/num.h"

/* "key=value" of config_describe's text (one per line) into out; 1 if the key is there, else 0. */
static int config_value(const char *config, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = config; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			snprintf(out, len, "%.*s", (int)(n - kl - 1), p + kl + 1);
			return 1;
		}
		p += n + (nl ? 1 : 0);
	}
	return 0;
}

static int64_t config_dur(const char *config, const char *key)
{
	char v[64];
	int64_t ms;

	return config_value(config, key, v, sizeof v) && num_parse_duration_ms(v, &ms) == 0 ? ms : -1;
}

static int64_t config_size(const char *config, const char *key)
{
	char v[64];
	uint64_t b;

	return config_value(config, key, v, sizeof v) && num_parse_size(v, &b) == 0 && b <= INT64_MAX ? (int64_t)b : -1;
}

static int64_t config_int(const char *config, const char *key)
{
	char v[64];
	int64_t n;

	return config_value(config, key, v, sizeof v) && num_parse_i64(v, strlen(v), &n) == 0 ? n : -1;
}

void report_cond_of_run(const struct query_run *r, struct report_cond *c)
{
	const char *cfg = r->config;

	report_cond_init(c);
	/* The confinement: as read back (schema 7), or the version an older run recorded, limits as configured. */
	if (r->cgroup) {
		snprintf(c->cgroup, sizeof c->cgroup, "%s", r->cgroup);
		c->conf_exact = r->confinement_exact == 1;
		c->pop_cap = strcmp(r->cgroup, "none") == 0 ? r->pop_cap : -1;
		if (r->unconfined_reason)
			snprintf(c->unconfined_why, sizeof c->unconfined_why, "%s", r->unconfined_reason);
		report_gate_short_paths(c->unconfined_why);
		if (strcmp(r->cgroup, "none") != 0) {
			/* What the user set is compared; the read-back says whether the kernel took it. */
			c->memory_set = config_size(cfg, "cgroup-memory-max");
			c->pids_set = config_int(cfg, "cgroup-pids-max");
			c->memory_max = c->conf_exact ? r->cgroup_memory_max : c->memory_set;
			c->pids_max = c->conf_exact ? r->cgroup_pids_max : c->pids_set;
		}
	}
	/* --gfp-mode in force, as the run recorded it ("off (module not loaded)": its first word). */
	if (r->gfp_mode)
		snprintf(c->gfp_mode, sizeof c->gfp_mode, "%.*s", (int)strcspn(r->gfp_mode, " "), r->gfp_mode);
	c->workers = config_int(cfg, "workers");
	c->has_churn = r->cgroup != NULL && c->workers != 0;
	c->lifetime_ms = config_dur(cfg, "lifetime");
	c->worker_memory = config_size(cfg, "worker-memory");
	c->probe_limit = config_int(cfg, "probe-limit");
	c->switch_threads = config_int(cfg, "switch-threads");
	c->sample_interval_ms = config_dur(cfg, "sample-interval");
	config_value(cfg, "spawn-rate", c->spawn_rate, sizeof c->spawn_rate);
	config_value(cfg, "lifetime-dist", c->lifetime_dist, sizeof c->lifetime_dist);
	config_value(cfg, "probe-scope", c->probe_scope, sizeof c->probe_scope);
	/* The FPU kind in use (auto resolved by the spawner), else as configured. */
	if (r->fpu_kind)
		snprintf(c->fpu_kind, sizeof c->fpu_kind, "%s", r->fpu_kind);
	snprintf(c->hypervisor, sizeof c->hypervisor, "%s", r->hypervisor ? r->hypervisor : "");
	/* An fpusoakd before issue 31 kept the CPUID signature's blank padding ("other:bhyve bhyve "). */
	for (size_t n = strlen(c->hypervisor); n && c->hypervisor[n - 1] == ' '; n--)
		c->hypervisor[n - 1] = 0;
	snprintf(c->guest_type, sizeof c->guest_type, "%s", r->guest_type ? r->guest_type : "");
	c->mem_total_kb = r->mem_total_kb;
	c->xstate_bytes = r->xstate_bytes;
	snprintf(c->kernel_release, sizeof c->kernel_release, "%s", r->kernel_release ? r->kernel_release : "");
	snprintf(c->label, sizeof c->label, "%s", r->label ? r->label : "");
	snprintf(c->cmdline, sizeof c->cmdline, "%s", r->cmdline ? r->cmdline : "");
}

struct cond_ctx {
	struct report_cond *c;
	struct report_side *s;
	int newest;               /* the run is the newest of a database a daemon writes */
};

/* Copy s into dst (s may be dst) keeping printable ASCII only (kernel, label and host strings come from the DB). */
static void side_text(char *dst, size_t len, const char *s)
{
	if (s != dst)
		snprintf(dst, len, "%s", s ? s : "");
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
}

static int cond_cb(void *arg, const struct query_run *r)
{
	struct cond_ctx *x = arg;
	struct report_side *s = x->s;

	report_cond_of_run(r, x->c);
	s->run_id = r->run_id;
	s->started_ms = r->started_ms;
	s->first_sample_ms = r->first_sample_ms;
	s->last_sample_ms = r->last_sample_ms;
	s->nsamples = r->nsamples;
	s->duration_ms = report_run_duration(r);
	side_text(s->state, sizeof s->state, report_run_state(r, x->newest));
	side_text(s->label, sizeof s->label, r->label);
	side_text(s->kernel, sizeof s->kernel, r->kernel_release);
	snprintf(s->hypervisor, sizeof s->hypervisor, "%s%s%.15s", x->c->hypervisor, r->guest_type ? " " : "",
		 r->guest_type ? r->guest_type : "");
	side_text(s->hypervisor, sizeof s->hypervisor, s->hypervisor);
	side_text(s->hostname, sizeof s->hostname, r->hostname);
	side_text(s->cpu, sizeof s->cpu, r->cpu_model);
	side_text(s->fpu, sizeof s->fpu, r->fpu_features);
	report_eagerfpu(r->cmdline, s->eager, sizeof s->eager);
	side_text(s->eager, sizeof s->eager, s->eager);
	s->xstate = r->xstate_bytes;
	s->memtotal = r->mem_total_kb;
	report_run_confinement(r, s->conf, sizeof s->conf);
	side_text(s->conf, sizeof s->conf, s->conf);
	s->unconfined = r->cgroup && strcmp(r->cgroup, "none") == 0;
	return 0;
}

/* What the page says of one run besides its row: FPU kind, deaths and both populations' identities. */
static int side_more(struct query *q, int64_t run, struct report_side *s)
{
	struct report_deaths d;
	int has;

	if ((has = query_has_table(q, "churn_info")) < 0 ||
	    (has && query_run_fpu_kind(q, run, s->fpu_kind, sizeof s->fpu_kind) < 0))
		return -1;
	side_text(s->fpu_kind, sizeof s->fpu_kind, s->fpu_kind);
	if (report_run_deaths(q, run, s->deaths, sizeof s->deaths) < 0 || report_run_population(q, run, &d) < 0)
		return -1;
	if (!report_deaths_identity(&d, s->churn_identity, sizeof s->churn_identity, s->probe_identity,
				    sizeof s->probe_identity))
		s->churn_identity[0] = s->probe_identity[0] = 0;
	return 0;
}

/* Whether run is the newest of q while a daemon writes q (then an unended run is "running"). */
static int newest_running(struct query *q, int64_t run)
{
	int64_t latest;
	int got = query_latest_run(q, &latest);

	if (got < 0)
		return -1;
	return got && latest == run && query_writer_active(q) == 1;
}

static int exists_cb(void *arg, const struct query_run *r)
{
	(void)r;
	*(int *)arg = 1;
	return 0;
}

int report_run_exists(struct query *q, int64_t run)
{
	int found = 0;

	return query_run(q, run, exists_cb, &found) < 0 ? -1 : found;
}

/* The trace's part of what a run ran under: on or off (with the reason), and the slab its instance took. */
static void cond_trace(const struct report_trace *t, struct report_cond *c)
{
	const char *why = strchr(t->note, '(');
	size_t n;

	if (!t->note[0])
		return;   /* before schema 8: not recorded */
	snprintf(c->tracefs, sizeof c->tracefs, "%s", t->on ? "on" : "off");
	c->trace_kb = t->on ? t->setup_slab_kb : -1;
	if (!t->on && why) {
		/* "tracefs=off (not mounted: ...)": the reason inside the parentheses. */
		snprintf(c->trace_why, sizeof c->trace_why, "%s", why + 1);
		n = strlen(c->trace_why);
		if (n && c->trace_why[n - 1] == ')')
			c->trace_why[n - 1] = 0;
		/* Paths kept whole: "neither /sys/kernel/tracing nor /sys/kernel/debug/tracing" says which. */
	}
}

static int vm_cb(void *arg, const char *name, const char *value)
{
	struct report_cond *c = arg;

	if (c->nvm == REPORT_VM_MAX || !name || !value)
		return 0;
	snprintf(c->vm[c->nvm].name, sizeof c->vm[c->nvm].name, "%s", name);
	snprintf(c->vm[c->nvm].value, sizeof c->vm[c->nvm].value, "%s", value);
	c->nvm++;
	return 0;
}

/* What a run ran under beyond its row: the fragmenting load that ran, the allocator's knobs. */
static int cond_more(struct query *q, int64_t run, struct report_cond *c)
{
	struct report_fragment f;
	int r = 0, has;

	if ((has = query_has_table(q, "fragment")) < 0 || (has && (r = report_fragment(q, run, -1, -1, &f)) < 0))
		return -1;
	/* Before schema 10 no load could run: off.  A load asked for that never started is off too. */
	snprintf(c->fragment, sizeof c->fragment, "%s", has && r > 0 ? f.level : "off");
	if ((has = query_has_table(q, "run_vm")) < 0)
		return -1;
	if (has && (r = query_run_vm(q, run, vm_cb, c)) < 0)
		return -1;
	c->vm_known = has && r > 0;
	return 0;
}

int report_cond_load(struct query *q, int64_t run_id, const struct report_trace *t, struct report_cond *c,
		     struct report_side *s)
{
	struct cond_ctx x = { c, s, 0 };

	report_cond_init(c);
	memset(s, 0, sizeof *s);
	if ((x.newest = newest_running(q, run_id)) < 0 || query_run(q, run_id, cond_cb, &x) < 0 || side_more(q, run_id, s) < 0)
		return -1;
	cond_trace(t, c);
	return cond_more(q, run_id, c);
}
