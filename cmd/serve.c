/* SPDX-License-Identifier: GPL-2.0-only */
/* serve: `fpusoakd serve`, the report of databases, with or without a daemon; see serve.h. */
#include "cmd/serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "churn/worker.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/netaddr.h"
#include "common/num.h"
#include "common/prio.h"
#include "common/runref.h"
#include "common/sdlisten.h"
#include "common/strbuf.h"
#include "daemon/daemon.h"
#include "daemon/live.h"
#include "daemon/notify.h"
#include "daemon/pin.h"
#include "store/query.h"
#include "web/metrics.h"
#include "web/sandbox.h"
#include "web/server.h"

#define EX_OK 0
#define EX_FAIL 1
#define EX_USAGE 64
#define EX_UNAVAILABLE 69
#define DEFAULT_LISTEN "127.0.0.1:8089"
#define LISTEN_BACKLOG 64
/* Under the daemon: /healthz turns 503 when the core has not reported health for 3 status periods. */
#define HEALTH_MAX_AGE_MS (3 * DAEMON_STATUS_MS)
/* How long the snapshot watcher sleeps without news: the bound on noticing a stalled core's age. */
#define LIVE_WAIT_MS 1000

_Static_assert(LIVE_MAX_ORDERS <= METRICS_MAX_ORDERS, "live orders must fit metrics_input");
_Static_assert(LIVE_STATUS_MAX <= WEB_STATUS_MAX, "the status line must fit the server's");

struct serve_args {
	const char *db[RUNREF_MAX_DBS];
	int ndb;
	const char *listen;
	unsigned threads;
	enum log_level level;
	int help;
	/* Under the daemon (cmd/front.c): the socket it bound, its snapshot, the pipe for the ready byte; -1 = none. */
	int listen_fd, live_fd, ready_fd;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: fpusoakd serve --db PATH [--db PATH...] [--listen ADDR:PORT]\n"
		   "                      [--threads N] [--log-level err|warn|notice|info|debug]\n"
		   "  Serve the report of one or more fpusoakd databases over HTTP, read-only:\n"
		   "  the same pages, API and CSV as the daemon's server, no run started,\n"
		   "  nothing written (a database copied from a guest, a read-only file and\n"
		   "  one a running daemon writes all work).  With more than one --db a run\n"
		   "  is NAME:ID, NAME the file name without .db (a.db's run 3 is a:3).\n"
		   "  --listen   default %s; port 0 picks a free one (printed)\n"
		   "  --threads  request threads, 1 to %d (default 2)\n"
		   "Exit status: 0 after SIGTERM or SIGINT; 1 if a database cannot be read;\n"
		   "64 for bad arguments; 69 if the address cannot be bound (e.g. in use).\n",
		DEFAULT_LISTEN, WEB_MAX_THREADS);
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fpusoakd serve: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(fpusoakd serve --help for usage)\n");
	return EX_USAGE;
}

/* A flag's single value: refused when given twice (a second one never silently wins). */
static int once(const char **slot, const char *flag, const char *v)
{
	if (*slot)
		return bad("%s given twice", flag);
	*slot = v;
	return 0;
}

/* An fd the daemon hands over: 3..1024, once. */
static int fd_flag(int *slot, const char *flag, const char *v)
{
	uint64_t n;

	if (*slot >= 0)
		return bad("%s given twice", flag);
	if (num_parse_u64(v, strlen(v), &n) < 0 || n < 3 || n > 1024)
		return bad("%s: '%s' is not a file descriptor from 3 to 1024", flag, v);
	*slot = (int)n;
	return 0;
}

static int parse(int argc, char **argv, struct serve_args *a)
{
	const char *threads = NULL, *level = NULL;
	struct sockaddr_storage ss;
	socklen_t sslen;

	memset(a, 0, sizeof *a);
	a->listen_fd = a->live_fd = a->ready_fd = -1;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
			a->help = 1;
			return 0;
		}
		if (strcmp(o, "--db") && strcmp(o, "--listen") && strcmp(o, "--threads") && strcmp(o, "--log-level") &&
		    strcmp(o, "--listen-fd") && strcmp(o, "--live-fd") && strcmp(o, "--ready-fd"))
			return bad("unknown argument '%s'", o);
		if (!v)
			return bad("%s needs a value", o);
		i++;
		if (strcmp(o, "--listen-fd") == 0) {
			rc = fd_flag(&a->listen_fd, o, v);
		} else if (strcmp(o, "--live-fd") == 0) {
			rc = fd_flag(&a->live_fd, o, v);
		} else if (strcmp(o, "--ready-fd") == 0) {
			rc = fd_flag(&a->ready_fd, o, v);
		} else if (strcmp(o, "--db") == 0) {
			if (a->ndb == RUNREF_MAX_DBS)
				return bad("at most %d --db", RUNREF_MAX_DBS);
			a->db[a->ndb++] = v;
		} else if (strcmp(o, "--listen") == 0) {
			rc = once(&a->listen, o, v);
		} else if (strcmp(o, "--threads") == 0) {
			rc = once(&threads, o, v);
		} else {
			rc = once(&level, o, v);
		}
		if (rc)
			return rc;
	}
	if (!a->ndb)
		return bad("--db PATH is required");
	if (a->live_fd >= 0 && a->ndb > 1)
		return bad("--live-fd serves the daemon's one database");
	for (int i = 0; i < a->ndb; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(a->db[i], a->db[j]) == 0)
				return bad("--db %s given twice", a->db[i]);
	if (!a->listen)
		a->listen = DEFAULT_LISTEN;
	if (web_listen_parse(a->listen, &ss, &sslen) != 0)
		return bad("--listen: '%s' is not ADDR:PORT or [ADDR6]:PORT (a numeric address, port 0-65535)", a->listen);
	a->threads = 2;
	if (threads) {
		uint64_t n;
		if (num_parse_u64(threads, strlen(threads), &n) < 0 || n < 1 || n > WEB_MAX_THREADS)
			return bad("--threads: '%s' is not a number from 1 to %d", threads, WEB_MAX_THREADS);
		a->threads = (unsigned)n;
	}
	a->level = LOG_LVL_NOTICE;
	if (level && log_level_parse(level, &a->level) < 0)
		return bad("--log-level: '%s' is not err, warn, notice, info or debug", level);
	return 0;
}

/* Whether systemd (or a supervisor doing the same) handed us a listening socket. */
static int socket_handed_over(void)
{
	return sdlisten_count(getenv("LISTEN_PID"), getenv("LISTEN_FDS"), (long)getpid()) > 0;
}

/* 1024 connections per client on loopback (every local client is 127.0.0.1), else 64 (cmd/front.h). */
static unsigned per_address_limit(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 64;
	if (ss.ss_family == AF_INET && ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24 == 127)
		return 1024;
	if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr))
		return 1024;
	return 64;
}

/*
 * Give up what the daemon's core keeps, before the first thread starts (capabilities are per thread):
 * a raised oom_score_adj (an OOM kill takes us before the core, which starts us again), every
 * capability, new privileges, and most system calls (web/sandbox.h); under the core, its priority too.
 * Raising oom_score_adj and nice needs no privilege.
 */
static void harden(int under_core)
{
	char err[256];
	int fd = open("/proc/self/oom_score_adj", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		char cur[16] = "";
		ssize_t n = read(fd, cur, sizeof cur - 1);
		if (n > 0 && atoi(cur) < 0 && (lseek(fd, 0, SEEK_SET) < 0 || write(fd, "0", 1) != 1))
			log_debug("serve: cannot set oom_score_adj 0");
		close(fd);
	}
	if (worker_drop_privileges() < 0)
		log_info("serve: cannot drop capabilities (%s)", strerror(errno));
	/* Under the daemon, below its core (common/prio.h): a report never delays a tick. */
	if (under_core && prio_lower(PRIO_HELPER_STEP, PRIO_WORKER_NICE - 2) < 0)
		log_info("serve: cannot lower its priority (%s)", strerror(errno));
	if (sandbox_web(err, sizeof err) < 0)
		log_info("serve: %s; serving without a system call filter", err);
}

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* /metrics from the core's snapshot, as the daemon's in-process front end used to build it. */
static void publish_metrics(struct web_server *ws, const struct live_data *d, int *warned)
{
	struct metrics_input in = {
		.version = FPUSOAK_VERSION,
		.run_id = d->run_id,
		.run_started_ms = d->run_started_ms,
		.label = d->label,
		.kernel_release = d->kernel_release,
		.hypervisor = d->hypervisor,
		.guest_type = d->guest_type,
		.samples_total = d->samples_total,
		.samples_queued = d->samples_queued,
		.samples_dropped = d->samples_dropped,
		.sample_ts_ms = d->sample_ts_ms,
		.sample_us = d->sample_us,
		.buddy = d->has_buddy ? &d->buddy : NULL,
		.vmstat = d->has_vmstat ? &d->vmstat : NULL,
		.meminfo = d->has_meminfo ? &d->meminfo : NULL,
		.indices = 1,
		.request_orders = d->request_orders,
		.request_atomic = d->request_atomic,
		.request_nowait = d->request_nowait,
		.request_kernel = d->request_kernel,
		.churn = d->has_churn ? &d->churn : NULL,
		.probe = d->has_probe ? &d->probe : NULL,
		.oom_unattributed = d->oom_unattributed,
		.last_capacity = d->last_capacity,
		.last_switch_us = d->last_switch_us,
		.alloc_failures = d->has_alloc_failures ? d->alloc_failures : NULL,
		.failure_causes = d->has_causes ? (const uint64_t (*)[4][16])d->failure_causes : NULL,
		.has_oom_kills = d->has_oom_kills,
		.oom_kills = d->oom_kills,
		.trace_failures = d->has_trace ? (const uint64_t (*)[3])d->trace_failures : NULL,
		.trace_fallbacks = d->trace_fallbacks,
		.trace_fragmenting = d->trace_fragmenting,
		.gfp_holding = d->gfp_holding,
		.model_checking = d->model_checking,
		.model_checks = d->model_checks,
		.model_agreed = d->model_agreed,
	};
	struct strbuf sb;

	for (int i = 0; i < d->norders; i++)
		in.headroom_orders[in.nheadroom_orders++] = d->orders[i];
	sb_init(&sb, METRICS_MAX_BYTES);
	if (metrics_build(&sb, &in) == 0 && !sb.err && sb.buf)
		web_publish_metrics(ws, sb.buf, sb.len);
	else if (!(*warned)++)
		log_warnx("metrics: snapshot did not fit its buffer; /metrics keeps the previous one");
	sb_free(&sb);
}

/* Under the daemon: follow its snapshot until SIGTERM (/metrics once per sample, the status line, /healthz). */
static void follow(struct web_server *ws, const struct live_shm *shm)
{
	static struct live_data d;     /* ~60 KiB: not on the stack */
	uint64_t seen = 0, seq;
	int64_t stamp = -1;
	int warned = 0;

	while (!stop_flag) {
		seq = live_read(shm, &d);
		if (seq && seq != seen) {
			seen = seq;
			if (d.sample_ts_ms)
				publish_metrics(ws, &d, &warned);
			/*
			 * Health is stamped when the core says so, never when we merely read it: a restarted web
			 * process must not vouch for a core that stalled before it started.
			 */
			if (d.health_mono_ms && d.health_mono_ms != stamp) {
				stamp = d.health_mono_ms;
				web_set_status(ws, d.status);
				web_set_health(ws, d.healthy && clock_mono_ms() - d.health_mono_ms <= HEALTH_MAX_AGE_MS);
			}
		}
		live_wait(shm, seen, LIVE_WAIT_MS);
	}
}

int serve_main(int argc, char **argv)
{
	struct serve_args a;
	struct query_set set;
	struct web_config wc = { 0 };
	struct web_server *ws = NULL;
	const struct live_shm *shm = NULL;
	struct sigaction sa = { .sa_handler = on_stop };
	char err[1024], status[WEB_STATUS_MAX];
	sigset_t stop;
	int rc, fd = -1, sig = 0;

	if ((rc = parse(argc, argv, &a)) != 0)
		return rc;
	if (a.help) {
		usage(stdout);
		return EX_OK;
	}
	log_init(a.level);
	notify_init();
	signal(SIGPIPE, SIG_IGN);
	if (a.live_fd >= 0 && !(shm = live_map(a.live_fd, err, sizeof err))) {
		fprintf(stderr, "fpusoakd serve: %s\n", err);
		return EX_FAIL;
	}
	/* Under the daemon: go when the core goes (a core killed outright left us holding its socket). */
	if (a.live_fd >= 0 && prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
		log_warn("serve: PR_SET_PDEATHSIG");
	/* Every database readable before anything listens: one that is not is the answer, exit 1. */
	if (query_set_open(&set, a.db, a.ndb, err, sizeof err) < 0) {
		fprintf(stderr, "fpusoakd serve: %s\n", err);
		return EX_FAIL;
	}
	query_set_close(&set);
	if (a.listen_fd >= 0)
		fd = a.listen_fd;
	else if (!socket_handed_over() && (fd = netaddr_listen(a.listen, err, sizeof err)) < 0) {
		fprintf(stderr, "fpusoakd serve: %s%s\n", err, errno == EADDRINUSE ?
			" (another fpusoakd? choose another --listen; port 0 picks a free one)" : "");
		return EX_UNAVAILABLE;
	}
	harden(a.live_fd >= 0);
	/* The request threads inherit this mask: only this thread takes the stop signals. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	wc = (struct web_config){ .listen = a.listen, .db_paths = a.db, .ndb = a.ndb, .serve = !shm,
				  .version = FPUSOAK_VERSION, .threads = a.threads, .conn_limit = 1024,
				  .per_ip_limit = 1024, .listen_fd_set = fd >= 0, .listen_fd = fd };
	if (shm) {
		/* The daemon's own report: its health ages, and the limit per client follows the address. */
		wc.health_max_age_ms = HEALTH_MAX_AGE_MS;
		wc.per_ip_limit = per_address_limit(fd);
	}
	if (!(ws = web_open(&wc, err, sizeof err))) {
		fprintf(stderr, "fpusoakd serve: %s\n", err);
		return EX_FAIL;
	}
	/*
	 * Idle until the first request: the file pages the dynamic loader read ahead (libgnutls and the
	 * rest of what Debian's libmicrohttpd pulls in) go back, so an idle report costs the guest little
	 * and the daemon's locked core is not mapped around what we cached (daemon/pin.h).
	 */
	pin_hand_back();
	if (shm) {
		if (a.ready_fd >= 0) {
			if (write(a.ready_fd, "r", 1) != 1)
				log_debug("serve: ready byte: %s", strerror(errno));
			close(a.ready_fd);
		}
		/* The stop signals interrupt the snapshot wait, in this thread only: the request threads keep them blocked. */
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		signal(SIGHUP, SIG_IGN);
		pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
		follow(ws, shm);
		web_close(ws);
		live_unmap(shm);
		return EX_OK;
	}
	snprintf(status, sizeof status, "read-only: %d database%s, no daemon", a.ndb, a.ndb > 1 ? "s" : "");
	web_set_status(ws, status);
	/* The address as bound: port 0 becomes the port the kernel chose. */
	fprintf(stderr, "fpusoakd serve: http://%.*s:%u/", (int)(strrchr(a.listen, ':') - a.listen), a.listen,
		web_port(ws));
	for (int i = 0; i < a.ndb; i++)
		fprintf(stderr, "%s %s=%s", i ? "," : "", web_db_name(ws, i), a.db[i]);
	fprintf(stderr, "\n");
	notify_status("%s", status);
	notify_ready();
	while (sigwait(&stop, &sig) == 0 && sig == SIGHUP)
		log_info("serve: SIGHUP ignored (nothing to reload: each request reads the databases afresh)");
	notify_stopping();
	web_close(ws);
	return EX_OK;
}
