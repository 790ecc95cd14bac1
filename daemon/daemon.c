/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon: the daemon's lifecycle (daemon.h): configuration, the spawner
 * fork, the store, the run record, the first sample, the front end, the
 * loop, and a clean end.
 */
#include "daemon/daemon.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "collector/envinfo.h"
#include "collector/task.h"
#include "collector/vmknobs.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/netaddr.h"
#include "common/pathcheck.h"
#include "common/procfile.h"
#include "daemon/causes.h"
#include "daemon/churnlink.h"
#include "daemon/gfplink.h"
#include "daemon/kwatch.h"
#include "daemon/notify.h"
#include "daemon/pin.h"
#include "daemon/sampler.h"
#include "daemon/tracewatch.h"
#include "store/query.h"
#include "store/store.h"

/* Start the run: crash-mark leftovers, record the environment. 0 or -1. */
static int begin_run(struct daemon *d, struct envinfo *env)
{
	char cfgtext[8192];
	struct store_run r;
	char dom[48] = "";
	int crashed = store_mark_crashed(d->store);

	if (crashed > 0)
		log_notice("marked %d earlier run(s) without an end as 'crash'", crashed);
	envinfo_collect(d->cfg.proc_root, d->cfg.sys_root, env);
	config_describe(&d->cfg, cfgtext, sizeof cfgtext);
	r = (struct store_run){
		.label = d->cfg.label[0] ? d->cfg.label : NULL,
		.version = FPUSOAK_VERSION,
		.boot_id = env->boot_id,
		.hostname = env->hostname,
		.kernel_release = env->kernel_release,
		.kernel_version = env->kernel_version,
		.cmdline = env->cmdline,
		.hypervisor = env->hypervisor,
		.guest_type = env->guest_type[0] ? env->guest_type : NULL,
		.xen_domain = env->xen_domain[0] ? env->xen_domain : NULL,
		.xen_domid = env->xen_domid,
		.cpu_model = env->cpu_model,
		.cpu_model_kernel = env->cpu_model_kernel[0] ? env->cpu_model_kernel : NULL,
		.fpu_features = env->fpu_features,
		.xstate_detail = env->xstate_detail,
		.config = cfgtext,
		.gfp_mode = gfplink_describe(d->gfp),
		.started_ms = clock_wall_ms(),
		.xstate_bytes = env->xstate_bytes,
		.mem_total_kb = env->mem_total_kb,
		.page_size = env->page_size,
		.domain_kb = env->domain_kb,
		.present_kb = env->mem_present_kb,
		.mem_free_kb = env->mem_free_kb,
		.mem_available_kb = env->mem_available_kb,
		.pid = getpid(),
	};
	d->run_started_ms = r.started_ms;
	snprintf(d->run_label, sizeof d->run_label, "%s", d->cfg.label);
	if (store_run_begin(d->store, &r, &d->run_id) < 0)
		return -1;
	if (env->xen_domain[0] && env->xen_domid >= 0)
		snprintf(dom, sizeof dom, ", %s id %lld", env->xen_domain, (long long)env->xen_domid);
	else if (env->xen_domain[0])
		snprintf(dom, sizeof dom, ", %s (id unknown)", env->xen_domain);
	log_info("run %lld started: kernel %s, hypervisor %s%s%s%s, db %s", (long long)d->run_id,
		 env->kernel_release, env->hypervisor, env->guest_type[0] ? "/" : "", env->guest_type, dom, d->cfg.db);
	return 0;
}

/*
 * What a comparison needs from the start of a run: the allocator's knobs (vm sysctls, THP), and the
 * run's own processes with their cgroups, so a failure in the kernel log can be told apart from the
 * rest of the machine's (report/whose.h).  Best effort: a knob or process not recorded is said so there.
 */
static void record_facts(struct daemon *d)
{
	static const char *const role[3] = { "daemon", "spawner", "load" };
	int64_t pid[3] = { getpid(), 0, 0 };
	struct vmknobs k;
	int64_t now = clock_wall_ms();

	vmknobs_collect(d->cfg.proc_root, d->cfg.sys_root, &k);
	for (int i = 0; i < k.n; i++)
		store_run_vm(d->store, d->run_id, k.k[i].name, k.k[i].value);
	churnlink_pids(d->churn, &pid[1], &pid[2]);
	for (int i = 0; i < 3; i++) {
		struct task_facts f;
		char rel[64], comm[32] = "";
		ssize_t n;
		if (pid[i] <= 0)
			continue;
		snprintf(rel, sizeof rel, "%lld/comm", (long long)pid[i]);
		if ((n = procfile_read("/proc", rel, comm, sizeof comm)) > 0 && comm[n - 1] == '\n')
			comm[n - 1] = 0;
		if (task_read("/proc", pid[i], NULL, 0, &f) < 0)
			f.cgroup[0] = 0;
		store_run_proc(d->store, d->run_id, now, role[i], pid[i], comm, f.cgroup);
	}
}

/* Signals are blocked in every thread and read from a signalfd by the loop. */
static int setup_fds(struct daemon *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->tick_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	d->status_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	return d->sigfd < 0 || d->epfd < 0 || d->tick_tfd < 0 || d->status_tfd < 0 ? -1 : 0;
}

/*
 * The soak pushes the guest to OOM on purpose: the one process that must
 * survive it is ours.  -1000 exempts us from the OOM killer when permitted
 * (CAP_SYS_RESOURCE); systemd's OOMScoreAdjust= does the same for the unit.
 */
static void protect_from_oom(void)
{
	FILE *f = fopen("/proc/self/oom_score_adj", "r+");
	int cur = 0, bad;

	if (!f) {
		log_info("cannot set oom_score_adj to -1000 (%s); the OOM killer may pick fpusoakd", strerror(errno));
		return;
	}
	/* systemd's OOMScoreAdjust= may have done it already, without giving us the capability to. */
	if (fscanf(f, "%d", &cur) == 1 && cur <= -900) {
		fclose(f);
		return;
	}
	rewind(f);
	bad = fputs("-1000", f) < 0;
	bad |= fclose(f) != 0;       /* the write happens at fclose: EACCES shows up here */
	if (bad)
		log_info("cannot set oom_score_adj to -1000 (%s); the OOM killer may pick fpusoakd", strerror(errno));
}

/* Lock the pages the core uses (daemon/pin.h); memory locks are not inherited by children anyway. */
static void lock_memory(void)
{
	struct pin_report pr;

	pin_self(&pr);
	if (!pr.locked)
		log_info("cannot lock fpusoakd in memory (%s); under memory pressure sampling may stall",
			 strerror(pr.err));
	else
		log_debug("memory: %d file mappings handed back before locking", pr.mappings);
}

/* The tracefs source: on, or off with one line saying why; the run records which. */
static void open_trace(struct daemon *d)
{
	struct tracewatch_opts o = { .sys_root = d->cfg.sys_root, .proc_root = d->cfg.proc_root };
	char why[TRACEWATCH_DESC_MAX], note[TRACEWATCH_DESC_MAX + 32];

	if (d->cfg.trace == CONFIG_TRACE_NONE)
		snprintf(why, sizeof why, "--trace none");
	else
		d->trace = tracewatch_open(&o, why, sizeof why);
	snprintf(note, sizeof note, "tracefs=%s (%s)", d->trace ? "on" : "off", why);
	if (d->trace)
		log_info("%s", note);
	else
		log_notice("%s", note);
	store_run_note(d->store, d->run_id, clock_wall_ms(), "tracefs", note);
}

static void oom_hook(void *arg, int64_t pid)
{
	struct daemon *d = arg;
	churnlink_oom_pid(d->churn, pid);
}

/* Soft RLIMIT_NOFILE up to the hard limit: every HTTP connection of the front end is an fd, and 1024 is too few. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_info("cannot raise the open-file limit (%s)", strerror(errno));
	}
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

#define EX_UNAVAILABLE_ 69

int daemon_main(int argc, char **argv, const struct daemon_hooks *h)
{
	static const struct daemon_hooks none = { 0 };
	struct daemon *d = calloc(1, sizeof *d);
	char err[512];
	int rc, code = 1;

	if (!d)
		return 1;
	d->sigfd = d->epfd = d->tick_tfd = d->status_tfd = -1;
	d->argc = argc;
	d->argv = argv;
	d->hooks = h ? h : &none;
	rc = config_load(&d->cfg, argc, argv);
	if (rc != 0) {
		free(d);
		return rc == 1 ? 0 : rc;
	}
	log_init(d->cfg.log_level);
	notify_init();
	/*
	 * The front end claims its socket first, before the spawner, the database or the run row
	 * exist: a busy or forbidden address then costs nothing but one line and exit 69.
	 */
	if (d->hooks->bind && d->hooks->bind(d->hooks->arg, &d->cfg, err, sizeof err) < 0) {
		log_errx("%s", err);
		code = EX_UNAVAILABLE_;
		goto out;
	}
	/*
	 * A database path that cannot work is the one line the user sees, before the OOM-score and
	 * confinement warnings of a start that is not going to happen (issue 31).
	 */
	/* No SQLite connection exists yet in this process: reading the header is safe here (pathcheck.h). */
	if (pathcheck_db(d->cfg.db, 1, err, sizeof err) < 0 || pathcheck_db_header(d->cfg.db, err, sizeof err) < 0) {
		log_errx("cannot use database %s: %s", d->cfg.db, err);
		goto out;
	}
	protect_from_oom();
	if (setup_fds(d) < 0) {
		log_warn("cannot set up signals and timers");
		goto out;
	}
	/*
	 * The spawner forks now, while this process is single-threaded and small:
	 * no SQLite, no HTTP threads yet.  Workers are forked from it, never from us.
	 */
	/* Before the spawner: it needs the --gfp-mode in force, i.e. whether the module is loaded. */
	d->gfp = gfplink_open(&d->cfg);
	if (!d->gfp) {
		log_errx("out of memory");
		goto out;
	}
	{
		enum churnlink_why why;
		d->churn = churnlink_open(&d->cfg, gfplink_mode(d->gfp), &why, err, sizeof err);
		if (!d->churn && why == CHURNLINK_REFUSED) {
			log_errx("%s", err);
			code = EX_CONFIG_;
			goto out;
		}
		if (!d->churn && why != CHURNLINK_OFF) {
			log_errx("churn: %s", err);
			goto out;
		}
	}
	lock_memory();
	raise_nofile();
	/* SQLite says "unable to open database file" for every cause: name the cause first. */
	if (pathcheck_db(d->cfg.db, 1, err, sizeof err) < 0) {
		log_errx("cannot use database %s: %s", d->cfg.db, err);
		goto out;
	}
	/* The integrity check and a migration that rewrites a table take ~25 s for a month of ticks on tmpfs
	 * (schema 19), longer on a slow disk: more than the unit's start timeout, so ask for more first. */
	notify_status("opening %s (integrity check, migrations)", d->cfg.db);
	notify_extend(UINT64_C(15) * 60 * 1000000);
	d->store = store_open(d->cfg.db, d->cfg.queue_max, err, sizeof err);
	if (!d->store) {
		log_errx("%s", err);
		goto out;
	}
	/* One transaction every few ticks: at one a tick it was 39 % of an idle daemon's CPU. */
	store_group(d->store, STORE_GROUP_MS);
	report_status_init(&d->trend);
	if (begin_run(d, &d->run_env) < 0)
		goto out;
	d->env = &d->run_env;
	log_set_run_id(d->run_id);
	/* After the start-up refusals (confinement, the DB: 41_confinement, 43_startup): each stays one line. */
	gfplink_announce(d->gfp);
	churnlink_run_started(d->churn, d->store, d->run_id);
	record_facts(d);
	d->sampler = sampler_open(d->cfg.proc_root, d->run_env.kernel_release);
	d->causes = causes_open(d->run_env.kernel_release);
	if (!d->sampler || !d->causes) {
		log_errx("out of memory");
		goto out;
	}
	gfplink_set_causes(d->gfp, d->causes);
	d->start_mono_ms = clock_mono_ms();

	if (strcmp(d->cfg.kmsg_path, "none") != 0)
		d->kwatch = kwatch_open(d->cfg.kmsg_path, d->run_env.boot_id, d->store);
	kwatch_on_oom_kill(d->kwatch, oom_hook, d);
	kwatch_set_proc_root(d->kwatch, d->cfg.proc_root);
	kwatch_set_causes(d->kwatch, d->causes);
	open_trace(d);

	/* READY=1 promises: DB open, first sample stored, the front end (HTTP) serving. */
	loop_tick(d);
	if (d->hooks->open) {
		if (d->hooks->open(d->hooks->arg, &d->cfg, err, sizeof err) < 0) {
			log_errx("%s", err);
			store_run_end(d->store, d->run_id, clock_wall_ms(), "error");
			goto out;
		}
		d->front_open = 1;
		loop_publish(d);
	}
	/*
	 * Start-up is done: the integrity check, migrations, config parsing and the first sample's
	 * transients go back to the kernel, heap and code alike; what the loop runs is locked as it runs.
	 */
	{
		struct pin_report pr;
		pin_again(&pr);
	}
	notify_ready();

	code = loop_run(d);
	d->stop = 1;
	notify_stopping();
	quiet_end(d);
	/*
	 * Workers go first: their exits are accounted before the run is closed.  A probe the stop cut
	 * short (stop reason "stopped": a lower bound, as the reports read it) or one that ended after
	 * the last tick would be lost with the spawner: one last tick stores it.
	 */
	if (churnlink_stop(d->churn))
		loop_tick_last(d);
	churnlink_close(d->churn);
	d->churn = NULL;
	store_rollup(d->store, d->run_id, INT64_MAX);     /* the last, partial minute and hour */
	store_run_end(d->store, d->run_id, clock_wall_ms(), code == 0 ? "stopped" : "error");
	log_info("run %lld ended: %lld samples", (long long)d->run_id, (long long)d->ticks);
out:
	if (d->hooks->close)
		d->hooks->close(d->hooks->arg);
	churnlink_close(d->churn);
	gfplink_close(d->gfp);
	kwatch_close(d->kwatch);
	tracewatch_close(d->trace);
	causes_close(d->causes);
	sampler_close(d->sampler);
	store_close(d->store);
	close_fd(d->sigfd);
	close_fd(d->epfd);
	close_fd(d->tick_tfd);
	close_fd(d->status_tfd);
	free(d);
	return code;
}
