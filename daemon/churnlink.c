/* SPDX-License-Identifier: GPL-2.0-only */
/* churnlink: spawner records → store rows; see churnlink.h. */
#include "daemon/churnlink.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "churn/churn.h"
#include "churn/gfpmod.h"
#include "churn/worker.h"
#include "common/clock.h"
#include "common/log.h"
#include "store/store.h"

/* Recently dead workers remembered for tying kernel-log OOM lines to them. */
#define DEATH_RING 256
#define REFUSAL_MAX 128      /* refused HOLDs held between ticks (the spawner bounds them per status period) */
#define PROBE_QUEUE 8

struct churnlink {
	struct churn *ch;
	int64_t probe_interval_ms, switch_interval_ms;
	int64_t next_capacity_ms, next_switch_ms;   /* monotonic; 0 = not scheduled */
	struct churn_status last;                   /* latest STATUS */
	int have_status;
	struct churn_counters attached;             /* cumulative counters already turned into rows */
	struct churn_counters attached_probe;       /* ... of the probe workers */
	uint64_t attached_unattributed;             /* ... and the unattributed OOM kills */
	struct churn_probe_start start;             /* last PROBE_START (buddyinfo before a capacity probe) */
	struct churn_probe_done done[PROBE_QUEUE];  /* finished probes waiting for a tick */
	int ndone;
	double last_capacity, last_switch;
	char last_capacity_reason[48];             /* what stopped it: the status line says so */
	int32_t deaths[DEATH_RING];
	int ndeaths;
	struct churn_gfp_refusal refusals[REFUSAL_MAX];   /* refused HOLDs since the last churnlink_refusals */
	int nrefusals;
	uint64_t refusals_dropped;
	uint64_t worker_oom_kills;
	char probe_running;
	char guest_scope;                           /* --probe-scope guest */
	char guest_fill;                            /* a guest-scope capacity probe is asked for or running */
	char cap_held;                              /* ... and not yet sent to the spawner */
	char spawner_exe[4096];                     /* churn_spawner_path, "" if none */
	char frag_dir[4096];                        /* the DB's directory: the load's O_TMPFILE files */
	struct fragload_status frag;                /* the load's latest STATUS */
	int have_frag;
	int64_t cap_wait_ms;                        /* a capacity probe waits for the load's pause since (0: none) */
	char instance_key[4096];                    /* canonical DB path: names the workers' group */
	int warned_exit_code;                       /* last worker setup failure logged (0: none yet) */
};

/*
 * The instance key of the workers' group: the DB path made canonical (its folder resolved, as the
 * file may not exist yet), so "./x.db" and "/abs/x.db" name one group, and two daemons (which flock
 * keeps off each other's DB) never share one.
 */
static void instance_key(const char *db, char *out, size_t len)
{
	char dir[4096], real[4096];
	const char *slash = strrchr(db, '/'), *base = slash ? slash + 1 : db;

	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == db ? 1 : slash - db) : 1, slash ? db : ".");
	if (realpath(dir, real))
		snprintf(out, len, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
	else
		snprintf(out, len, "%s", db);
}

/* The directory the database lives in ("." for a bare name); NULL if it does not fit. */
static const char *db_dir(const char *db, char *buf, size_t len)
{
	const char *slash = strrchr(db, '/');

	if (!slash)
		return snprintf(buf, len, ".") < (int)len ? buf : NULL;
	if (slash == db)
		return snprintf(buf, len, "/") < (int)len ? buf : NULL;
	return snprintf(buf, len, "%.*s", (int)(slash - db), db) < (int)len ? buf : NULL;
}

struct churnlink *churnlink_open(const struct config *cfg, int gfp_mode, enum churnlink_why *why, char *err,
				 size_t errlen)
{
	struct churn_cfg cc;
	struct churnlink *cl;

	*why = CHURNLINK_OK;
	if (cfg->workers == 0 && cfg->probe_interval_ms == 0 && cfg->switch_probe_interval_ms == 0 &&
	    cfg->fragment == FRAGLOAD_OFF) {
		*why = CHURNLINK_OFF;
		snprintf(err, errlen, "churn off (--workers 0, no probes, no fragmenting load)");
		return NULL;
	}
	cl = calloc(1, sizeof *cl);
	if (!cl) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	churn_cfg_defaults(&cc);
	cc.params.workers = (int32_t)cfg->workers;
	cc.params.rate_milli = cfg->spawn_rate_milli;
	cc.params.lifetime_ms = cfg->lifetime_ms;
	cc.params.dist = cfg->lifetime_dist;
	/* A seed of 0 means "pick one"; the chosen one is recorded in the run so the soak replays. */
	cc.seed = cfg->seed ? cfg->seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	cc.fpu = (enum fpu_kind)cfg->fpu;
	cc.worker_memory = cfg->worker_memory;
	cc.cgroup_leaf_self = 1;
	instance_key(cfg->db, cl->instance_key, sizeof cl->instance_key);
	cc.cgroup_key = cl->instance_key;
	/* A limit the user wrote down is a condition of the experiment: without it, no run. */
	cc.cgroup_required = config_limits_explicit(cfg) && !cfg->allow_unconfined;
	cc.cgroup_memory_max = cfg->cgroup_memory_max;
	cc.cgroup_pids_max = (uint64_t)cfg->cgroup_pids_max;
	cc.probe_limit = (int)cfg->probe_limit;
	cc.probe_timeout_ms = cfg->probe_timeout_ms;
	cc.probe_scope = (enum churn_probe_scope)cfg->probe_scope;
	cl->guest_scope = cc.probe_scope == CHURN_SCOPE_GUEST;
	cc.switch_threads = (int)cfg->switch_threads;
	cc.gfp_mode = gfp_mode;
	cc.spawner_exe = churn_spawner_path(cl->spawner_exe, sizeof cl->spawner_exe);
	cc.fragment = cfg->fragment;
	cc.fragment_dir = db_dir(cfg->db, cl->frag_dir, sizeof cl->frag_dir);
	cl->ch = churn_open(&cc, err, errlen);
	if (!cl->ch) {
		*why = cc.cgroup_required && strncmp(err, CHURN_NOCONFINE, strlen(CHURN_NOCONFINE)) == 0 ?
		       CHURNLINK_REFUSED : CHURNLINK_FAILED;
		if (*why == CHURNLINK_REFUSED)
			snprintf(err + strlen(err), errlen - strlen(err),
				 " (a limit was given explicitly; --allow-unconfined runs anyway)");
		free(cl);
		return NULL;
	}
	cl->probe_interval_ms = cfg->probe_interval_ms;
	cl->switch_interval_ms = cfg->switch_probe_interval_ms;
	cl->last_capacity = cl->last_switch = NAN;
	return cl;
}

void churnlink_close(struct churnlink *cl)
{
	struct churn_status fin;

	if (!cl)
		return;
	if (churn_close(cl->ch, &fin) == 0 && churn_counters_check(&fin.c) != 0)
		log_warnx("churn: final accounting does not balance (spawned %llu)", (unsigned long long)fin.c.spawned);
	free(cl);
}

int churnlink_fd(const struct churnlink *cl)
{
	return cl ? churn_fd(cl->ch) : -1;
}

int churnlink_frag_fd(const struct churnlink *cl)
{
	return cl ? churn_frag_fd(cl->ch) : -1;
}

/*
 * How long a capacity probe waits for the fragmenting load to say it paused.  The load reads
 * commands between allocation steps, not inside a fill round, which took seconds in the Xen test
 * guest: past this the probe starts anyway and says so (the fill then measures a moving load).
 */
#define FRAG_PAUSE_WAIT_MS 10000

/*
 * Ask for the capacity probe, the fragmenting load paused (or not running).  Guest scope: the request
 * is held until the daemon has stepped aside (churnlink_probe_go, daemon/quiet.c), so the order is
 * pause the load, step aside, fill, resume the load (on_probe_done).
 */
static void capacity_request(struct churnlink *cl)
{
	cl->cap_wait_ms = 0;
	if (cl->guest_scope)
		cl->guest_fill = cl->cap_held = 1;
	else if (churn_probe_request(cl->ch, CHURN_PROBE_CAPACITY) < 0)
		log_warn("churn: capacity probe request");
}

static void frag_status(struct churnlink *cl, const struct fragload_status *st)
{
	uint64_t total = 0;

	for (int k = 0; k < FK_NKINDS; k++)
		total += st->held_bytes[k];
	if (cl->have_frag && st->cycles != cl->frag.cycles)
		log_info("fragment: cycle %llu done; holds %llu KiB (anon %llu, pipe %llu, pgtable %llu, socket %llu,"
			 " file %llu KiB), %llu KiB long-lived, %llu allocations failed; the kernel: RssAnon %llu KiB,"
			 " VmPTE %llu KiB",
			 (unsigned long long)st->cycles, (unsigned long long)(total >> 10),
			 (unsigned long long)(st->held_bytes[FK_ANON] >> 10), (unsigned long long)(st->held_bytes[FK_PIPE] >> 10),
			 (unsigned long long)(st->held_bytes[FK_PGTABLE] >> 10),
			 (unsigned long long)(st->held_bytes[FK_SOCKET] >> 10), (unsigned long long)(st->held_bytes[FK_FILE] >> 10),
			 (unsigned long long)(st->kept_bytes >> 10), (unsigned long long)st->alloc_failed,
			 (unsigned long long)st->rss_anon_kb, (unsigned long long)st->vm_pte_kb);
	if (!cl->have_frag || st->state != cl->frag.state)
		log_debug("fragment: t=%lld state %d, cycle %llu, %llu KiB held, %llu failed", (long long)st->mono_ms, st->state,
			  (unsigned long long)st->cycles, (unsigned long long)(total >> 10), (unsigned long long)st->alloc_failed);
	cl->frag = *st;
	cl->have_frag = 1;
	/* The load holds still now: the probe asked for while it was busy may fill. */
	if (cl->cap_wait_ms && st->state == FRAGLOAD_PAUSED) {
		log_info("fragment: paused for the capacity probe (%lld ms after asking)",
			 (long long)(clock_mono_ms() - cl->cap_wait_ms));
		capacity_request(cl);
	}
}

int churnlink_frag_drain(struct churnlink *cl)
{
	static struct fragload_rec rec;
	int rc, status = 0;

	if (!cl)
		return 0;
	while ((rc = churn_frag_read(cl->ch, &rec, &status)) == 1) {
		if (rec.type == FRAGLOAD_REC_STATUS)
			frag_status(cl, &rec.u.status);
		else if (rec.type == FRAGLOAD_REC_NOTE && rec.u.note.level <= LOG_LVL_WARN)
			log_warnx("fragment: %s", rec.u.note.text);
		else if (rec.type == FRAGLOAD_REC_NOTE)
			log_info("fragment: %s", rec.u.note.text);
	}
	if (rc < 0) {
		if (WIFSIGNALED(status))
			log_warnx("fragment: the load was killed by signal %d%s; the run goes on without it",
				  WTERMSIG(status), WTERMSIG(status) == SIGKILL ? " (the OOM killer?)" : "");
		else
			log_warnx("fragment: the load exited (status %d); the run goes on without it", WEXITSTATUS(status));
		return -1;
	}
	return 0;
}

static void on_probe_done(struct churnlink *cl, const struct churn_probe_done *pd)
{
	char line[256];

	cl->probe_running = 0;
	if (pd->kind == CHURN_PROBE_CAPACITY && churn_frag_resume(cl->ch) < 0 && errno != ESRCH)
		log_warn("fragment: resume after the probe");
	if (pd->kind == CHURN_PROBE_CAPACITY) {
		cl->last_capacity = pd->result;
		snprintf(cl->last_capacity_reason, sizeof cl->last_capacity_reason, "%s", pd->stop_reason);
		cl->guest_fill = 0;
	} else {
		cl->last_switch = pd->result;
	}
	if (pd->kind == CHURN_PROBE_CAPACITY)
		snprintf(line, sizeof line, "capacity probe: %lld workers, stopped by %s, %lld ms",
			 (long long)pd->count, pd->stop_reason, (long long)pd->duration_ms);
	else
		snprintf(line, sizeof line, "FPU-cost probe: %.3f us system per yield (%s)", pd->sys_us_per_yield,
			 pd->stop_reason);
	log_info("%s", line);
	if (cl->ndone < PROBE_QUEUE)
		cl->done[cl->ndone++] = *pd;
	else
		log_warnx("churn: probe result dropped (the database has been unwritable for a long time)");
}
/*
 * A worker that exits during its setup (exit code >= 10 but not 'retired': cgroup move,
 * oom_score_adj, capabilities, FPU or memory) makes churn a fork loop that holds no
 * population; say so once per cause instead of only counting it.
 */
static void warn_setup_failures(struct churnlink *cl, const struct churn_status *st)
{
	int code = st->c.last_exit_error;

	if (!cl->have_status || st->c.exited_error == cl->last.c.exited_error || code == cl->warned_exit_code)
		return;
	cl->warned_exit_code = code;
	log_warnx("churn: workers exit during setup (exit code %d: %s; %llu so far): they hold no memory or FPU state",
		  code, worker_exit_name(code), (unsigned long long)st->c.exited_error);
}

/* One record from the spawner, while it runs or on its way out (churnlink_stop). */
static void on_rec(void *arg, const struct churn_rec *rec)
{
	struct churnlink *cl = arg;

	switch (rec->type) {
	case CHURN_REC_STATUS:
		warn_setup_failures(cl, &rec->u.status);
		cl->last = rec->u.status;
		cl->have_status = 1;
		break;
	case CHURN_REC_DEATH:
		cl->deaths[cl->ndeaths++ % DEATH_RING] = rec->u.death.pid;
		break;
	case CHURN_REC_GFP_REFUSED:
		if (cl->nrefusals < REFUSAL_MAX)
			cl->refusals[cl->nrefusals++] = rec->u.refusal;
		else
			cl->refusals_dropped++;
		break;
	case CHURN_REC_PROBE_START:
		cl->start = rec->u.probe_start;
		cl->probe_running = 1;
		break;
	case CHURN_REC_PROBE_DONE:
		on_probe_done(cl, &rec->u.probe_done);
		break;
	case CHURN_REC_NOTE:
		if (rec->u.note.level <= LOG_LVL_WARN)
			log_warnx("churn: %s", rec->u.note.text);
		else
			log_info("churn: %s", rec->u.note.text);
		break;
	case CHURN_REC_BYE:
		log_notice("churn: the spawner is exiting");
		break;
	default:
		break;
	}
}

int churnlink_stop(struct churnlink *cl)
{
	if (!cl)
		return 0;
	churn_stop(cl->ch, on_rec, cl);
	return cl->ndone > 0;
}

int churnlink_drain(struct churnlink *cl)
{
	static struct churn_rec rec;   /* 8 KiB (a raw buddyinfo); the loop thread is the only caller */
	int rc;

	if (!cl)
		return 0;
	while ((rc = churn_read(cl->ch, &rec)) == 1)
		on_rec(cl, &rec);
	if (rc < 0) {
		log_warnx("churn: the spawner is gone; sampling goes on without churn");
		return -1;
	}
	return 0;
}

/* The recipe the load runs with: logged, and stored with the run (v_fragment_runs). */
static void frag_record_recipe(const struct churnlink *cl, struct store *st, int64_t run_id)
{
	const struct fragload_hello *fh = churn_frag_hello(cl->ch);
	const struct fragload_recipe *r;
	char recipe[512];

	if (!fh)
		return;
	r = &fh->r;
	snprintf(recipe, sizeof recipe, "anon_pages=%u pipes=%u pipe_pages=%d pgtables=%u messages=%u message_bytes=%u"
		 " files=%u keep_every=%d rounds=%d fill_ms=%lld hold_ms=%lld free_ms=%lld rest_ms=%lld%s%s",
		 r->units[FK_ANON], r->units[FK_PIPE], FRAGLOAD_PIPE_PAGES, r->units[FK_PGTABLE], r->units[FK_SOCKET],
		 r->unit_bytes[FK_SOCKET], r->units[FK_FILE], r->keep_every, r->rounds, (long long)r->fill_ms,
		 (long long)r->hold_ms, (long long)r->free_ms, (long long)r->rest_ms, fh->note[0] ? " note=" : "", fh->note);
	store_fragment_info(st, run_id, fragload_level_name(r->level), r->base, r->cap, r->keep_cap, recipe);
	log_info("fragment: %s load, at most %llu KiB (of %llu KiB), a long-lived set of %llu KiB; per cycle %u anon"
		 " pages, %u pipes of %d pages, %u page tables, %u socket messages (%u bytes each), %u files; one in %d"
		 " survives%s%s", fragload_level_name(r->level), (unsigned long long)(fragload_recipe_peak(r) >> 10),
		 (unsigned long long)(r->base >> 10), (unsigned long long)(r->keep_cap >> 10), r->units[FK_ANON],
		 r->units[FK_PIPE], FRAGLOAD_PIPE_PAGES, r->units[FK_PGTABLE], r->units[FK_SOCKET],
		 r->unit_bytes[FK_SOCKET], r->units[FK_FILE], r->keep_every, fh->note[0] ? "; " : "", fh->note);
}

void churnlink_run_started(struct churnlink *cl, struct store *st, int64_t run_id)
{
	const struct churn_hello *h;

	if (!cl)
		return;
	h = churn_hello_info(cl->ch);
	store_churn_info(st, run_id, fpu_kind_name((enum fpu_kind)h->fpu_kind), h->amx_ok,
			 h->cgroup_ver == CGROUP_V2 ? "v2" : h->cgroup_ver == CGROUP_V1 ? "v1" : "none", h->pop_cap,
			 h->seed, h->fpu_note[0] ? h->fpu_note : churn_nocgroup_reason(cl->ch));
	log_info("churn: %s; cgroup %s; seed %llu; spawner %s", h->fpu_note,
		 h->cgroup_ver == CGROUP_V2 ? "v2" : h->cgroup_ver == CGROUP_V1 ? "v1" : "none (population capped)",
		 (unsigned long long)h->seed, h->exec_ok ? cl->spawner_exe : "in the daemon's forked copy");
	{
		struct churn_confinement c;
		char line[2 * CGROUP_PATH_MAX + 128];
		churn_confinement(cl->ch, &c);
		log_info("churn: confinement %s", churn_confinement_line(&c, line, sizeof line));
		/* What the run ran under is stored with it, not the configuration that asked. */
		store_confinement(st, run_id, &(struct store_confinement){
			.confined = c.ver != CGROUP_NONE, .group = c.group, .pids_group = c.pids_group,
			.memory_max = c.memory_max, .pids_max = c.pids_max, .reason = c.reason });
	}
	frag_record_recipe(cl, st, run_id);
}

void churnlink_pids(const struct churnlink *cl, int64_t *spawner, int64_t *load)
{
	const struct fragload_hello *fh = cl ? churn_frag_hello(cl->ch) : NULL;

	*spawner = cl ? (int64_t)churn_spawner_pid(cl->ch) : 0;
	*load = fh && fh->pid > 0 ? fh->pid : 0;
}

void churnlink_confinement(const struct churnlink *cl, struct churn_confinement *out)
{
	if (!cl) {
		memset(out, 0, sizeof *out);
		return;
	}
	churn_confinement(cl->ch, out);
}

/* The load's latest holdings, while it runs (a load that is gone holds nothing and has no row). */
static void frag_attach(const struct churnlink *cl, struct store_tick *t)
{
	const struct fragload_status *s = &cl->frag;
	struct store_fragment f;

	if (!cl->have_frag || churn_frag_fd(cl->ch) < 0)
		return;
	f = (struct store_fragment){
		.state = s->state,
		.cycles = s->cycles,
		.anon_bytes = s->held_bytes[FK_ANON],
		.pipe_bytes = s->held_bytes[FK_PIPE],
		.pgtable_bytes = s->held_bytes[FK_PGTABLE],
		.socket_bytes = s->held_bytes[FK_SOCKET],
		.files = s->held_units[FK_FILE],
		.kept_bytes = s->kept_bytes,
		.alloc_failed = s->alloc_failed,
	};
	store_tick_fragment(t, &f);
}

void churnlink_attach(struct churnlink *cl, struct store_tick *t)
{
	const struct churn_counters *c, *a, *pc, *b;
	struct store_churn row;

	if (!cl)
		return;
	for (int i = 0; i < cl->ndone; i++) {
		const struct churn_probe_done *pd = &cl->done[i];
		char bi[CHURN_BUDDYINFO_MAX + 1];
		int cap = pd->kind == CHURN_PROBE_CAPACITY && cl->start.kind == CHURN_PROBE_CAPACITY &&
			  cl->start.buddyinfo_err == 0;
		struct store_probe p = {
			.ts_ms = pd->start_real_ms,
			.kind = churn_probe_kind_name(pd->kind),
			.result = pd->result,
			.stop_reason = pd->stop_reason,
			.detail = pd->detail,
			.duration_ms = pd->duration_ms,
			.gfp_mode = pd->kind == CHURN_PROBE_CAPACITY && pd->gfp_mode ? gfpmod_mode_name(pd->gfp_mode) : NULL,
		};
		if (cap) {
			memcpy(bi, cl->start.buddyinfo, cl->start.buddyinfo_len);
			bi[cl->start.buddyinfo_len] = 0;
			p.buddyinfo_before = bi;
		}
		store_tick_probe(t, &p);
	}
	cl->ndone = 0;
	frag_attach(cl, t);
	if (!cl->have_status)
		return;
	c = &cl->last.c;
	a = &cl->attached;
	pc = &cl->last.probe;
	b = &cl->attached_probe;
	row = (struct store_churn){
		.population = c->population,
		.spawned = c->spawned - a->spawned,
		.spawn_failed_eagain = c->spawn_failed_eagain - a->spawn_failed_eagain,
		.spawn_failed_enomem = c->spawn_failed_enomem - a->spawn_failed_enomem,
		.spawn_failed_other = c->spawn_failed_other - a->spawn_failed_other,
		.exited = c->exited - a->exited,
		.killed_sigkill = c->killed_sigkill - a->killed_sigkill,
		.killed_sigsegv = c->killed_sigsegv - a->killed_sigsegv,
		.killed_sigill = c->killed_sigill - a->killed_sigill,
		.killed_other = c->killed_other - a->killed_other,
		.oom_killed = c->oom_killed - a->oom_killed,
		.exited_error = c->exited_error - a->exited_error,
		.gfp_failed = c->gfp_failed - a->gfp_failed,
		.killed_ours = c->killed_ours - a->killed_ours,
		.probe_spawned = pc->spawned - b->spawned,
		.probe_spawn_failed = (pc->spawn_failed_eagain + pc->spawn_failed_enomem + pc->spawn_failed_other) -
				      (b->spawn_failed_eagain + b->spawn_failed_enomem + b->spawn_failed_other),
		.probe_exited = pc->exited - b->exited,
		.probe_killed_sigkill = pc->killed_sigkill - b->killed_sigkill,
		.probe_killed_other = (pc->killed_sigsegv + pc->killed_sigill + pc->killed_other) -
				      (b->killed_sigsegv + b->killed_sigill + b->killed_other),
		.probe_oom_killed = pc->oom_killed - b->oom_killed,
		.probe_killed_ours = pc->killed_ours - b->killed_ours,
		/* A difference of levels: it falls when a counted kill is matched to a death later. */
		.oom_unattributed = cl->last.oom_unattributed - cl->attached_unattributed,
		.probe_population = pc->population,
		.probe_gfp_failed = pc->gfp_failed - b->gfp_failed,
	};
	store_tick_churn(t, &row);
	cl->attached = *c;
	cl->attached_probe = *pc;
	cl->attached_unattributed = cl->last.oom_unattributed;
}

void churnlink_schedule(struct churnlink *cl, int64_t mono_ms, int force_capacity)
{
	if (!cl)
		return;
	/* The FPU-cost probe runs at run start and then every interval; capacity after the first interval. */
	if (!cl->next_switch_ms && cl->switch_interval_ms)
		cl->next_switch_ms = mono_ms;
	if (!cl->next_capacity_ms && cl->probe_interval_ms)
		cl->next_capacity_ms = mono_ms + cl->probe_interval_ms;
	if (cl->cap_wait_ms && mono_ms - cl->cap_wait_ms >= FRAG_PAUSE_WAIT_MS) {
		log_warnx("fragment: the load did not pause within %d s; the capacity probe starts anyway",
			  FRAG_PAUSE_WAIT_MS / 1000);
		capacity_request(cl);
	}
	if (force_capacity || (cl->next_capacity_ms && mono_ms >= cl->next_capacity_ms)) {
		/* The fragmenting load holds still while a probe fills: the probe measures what it left.  The
		 * probe is asked for when the load says it paused (frag_status); without a load, at once.
		 * In guest scope the daemon then steps aside before the spawner is asked (capacity_request). */
		if (!cl->cap_wait_ms && churn_frag_pause(cl->ch) == 0) {
			cl->cap_wait_ms = mono_ms > 0 ? mono_ms : 1;
		} else if (!cl->cap_wait_ms) {
			if (errno != ESRCH)
				log_warn("fragment: pause for the probe");
			capacity_request(cl);
		}
		if (cl->probe_interval_ms)
			cl->next_capacity_ms = mono_ms + cl->probe_interval_ms;
	}
	if (cl->next_switch_ms && mono_ms >= cl->next_switch_ms) {
		if (churn_probe_request(cl->ch, CHURN_PROBE_SWITCH) < 0)
			log_warn("churn: FPU-cost probe request");
		cl->next_switch_ms = mono_ms + cl->switch_interval_ms;
	}
}

int churnlink_guest_fill(const struct churnlink *cl)
{
	return cl && cl->guest_fill;
}

void churnlink_probe_go(struct churnlink *cl)
{
	if (!cl || !cl->cap_held)
		return;
	cl->cap_held = 0;
	if (churn_probe_request(cl->ch, CHURN_PROBE_CAPACITY) < 0) {
		log_warn("churn: capacity probe request");
		cl->guest_fill = 0;
	}
}

void churnlink_oom_pid(struct churnlink *cl, int64_t pid)
{
	int n;

	if (!cl)
		return;
	n = cl->ndeaths < DEATH_RING ? cl->ndeaths : DEATH_RING;
	for (int i = 0; i < n; i++)
		if (cl->deaths[i] == pid) {
			cl->worker_oom_kills++;
			return;
		}
}

const char *churnlink_status(const struct churnlink *cl, char *buf, size_t len)
{
	static const struct churn_probe_done none;
	struct churn_probe_done last = none;

	if (!cl || !cl->have_status) {
		snprintf(buf, len, cl ? "churn starting" : "no churn");
		return buf;
	}
	if (!isnan(cl->last_capacity)) {
		last.kind = CHURN_PROBE_CAPACITY;
		last.result = cl->last_capacity;
		last.count = (int64_t)cl->last_capacity;
		/* Without it the line read "last probe capacity 187 ()" (issue 31). */
		snprintf(last.stop_reason, sizeof last.stop_reason, "%s",
			 cl->last_capacity_reason[0] ? cl->last_capacity_reason : "stop reason not reported");
	}
	return churn_status_line(&cl->last, isnan(cl->last_capacity) ? NULL : &last, buf, len);
}

const struct churn_counters *churnlink_counters(const struct churnlink *cl)
{
	return cl && cl->have_status ? &cl->last.c : NULL;
}

const struct churn_counters *churnlink_probe_counters(const struct churnlink *cl)
{
	return cl && cl->have_status ? &cl->last.probe : NULL;
}

uint64_t churnlink_oom_unattributed(const struct churnlink *cl)
{
	return cl && cl->have_status ? cl->last.oom_unattributed : 0;
}

double churnlink_last_capacity(const struct churnlink *cl)
{
	return cl ? cl->last_capacity : NAN;
}

double churnlink_last_switch(const struct churnlink *cl)
{
	return cl ? cl->last_switch : NAN;
}

uint64_t churnlink_worker_oom_kills(const struct churnlink *cl)
{
	return cl ? cl->worker_oom_kills : 0;
}

int churnlink_refusals(struct churnlink *cl, struct churn_gfp_refusal *out, int cap)
{
	int n;

	if (!cl)
		return 0;
	n = cl->nrefusals < cap ? cl->nrefusals : cap;
	memcpy(out, cl->refusals, (size_t)n * sizeof *out);
	/* What did not fit stays for the next call. */
	memmove(cl->refusals, cl->refusals + n, (size_t)(cl->nrefusals - n) * sizeof *out);
	cl->nrefusals -= n;
	return n;
}
