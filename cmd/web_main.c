/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpusoakd-web: the web process, and the subcommands that render HTML.
 *
 *   fpusoakd-web serve --db PATH [--listen ADDR:PORT] [--log-level L]
 *   fpusoakd-web report|summary ...        (daemon/cli.h)
 *
 * Users reach it as `fpusoakd serve` and `fpusoakd report`, which exec this
 * program (cmd/main.c): the daemon's core must not map libmicrohttpd,
 * cJSON or the TLS libraries Debian's libmicrohttpd pulls in, since every
 * page it maps is locked.  serve opens the DB read-only and serves the
 * report until SIGTERM; with a listening socket from systemd (LISTEN_FDS)
 * it serves on that one.
 *
 * The daemon's core runs it with three more flags (cmd/front.c):
 * --listen-fd N (the socket the core bound and keeps), --live-fd N (the
 * snapshot of cmd/live.h: /metrics, the status line and /healthz come from
 * there), --ready-fd N (one byte once it serves).  Before it starts a
 * thread it gives up what the core keeps: every capability, new privileges,
 * and most system calls (sandbox.h); its oom_score_adj goes up to 0, so an
 * OOM kill takes it before the core, which then starts it again.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "churn/worker.h"
#include "daemon/live.h"
#include "web/sandbox.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/num.h"
#include "common/strbuf.h"
#include "daemon/cli.h"
#include "daemon/daemon.h"
#include "daemon/pin.h"
#include "web/metrics.h"
#include "web/offline.h"
#include "web/server.h"

/* /healthz turns 503 when the core has not reported health for 3 status periods. */
#define HEALTH_MAX_AGE_MS (3 * DAEMON_STATUS_MS)
/* How long the snapshot watcher sleeps without news: the bound on noticing a stalled core's age. */
#define LIVE_WAIT_MS 1000

_Static_assert(LIVE_MAX_ORDERS <= METRICS_MAX_ORDERS, "live orders must fit metrics_input");
_Static_assert(LIVE_STATUS_MAX <= WEB_STATUS_MAX, "the status line must fit the server's");

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

struct serve_args {
	const char *db, *listen;
	int listen_fd, live_fd, ready_fd;
	enum log_level level;
};

static int serve_usage(void)
{
	fprintf(stderr, "usage: fpusoakd serve --db PATH [--listen ADDR:PORT] [--log-level LEVEL]\n");
	return 64;
}

static int fd_arg(const char *s, int *out)
{
	uint64_t v;

	if (num_parse_u64(s, strlen(s), &v) < 0 || v < 3 || v > 1024)
		return -1;
	*out = (int)v;
	return 0;
}

static int serve_parse(int argc, char **argv, struct serve_args *a)
{
	static const struct option lo[] = {
		{ "db", required_argument, NULL, 'd' }, { "listen", required_argument, NULL, 'l' },
		{ "log-level", required_argument, NULL, 'v' }, { "listen-fd", required_argument, NULL, 'L' },
		{ "live-fd", required_argument, NULL, 'S' }, { "ready-fd", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	*a = (struct serve_args){ .listen = "127.0.0.1:8089", .listen_fd = -1, .live_fd = -1, .ready_fd = -1,
				  .level = LOG_LVL_INFO };
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': a->db = optarg; break;
		case 'l': a->listen = optarg; break;
		case 'v':
			if (log_level_parse(optarg, &a->level) < 0)
				return -1;
			break;
		case 'L': if (fd_arg(optarg, &a->listen_fd) < 0) return -1; break;
		case 'S': if (fd_arg(optarg, &a->live_fd) < 0) return -1; break;
		case 'R': if (fd_arg(optarg, &a->ready_fd) < 0) return -1; break;
		default: return -1;
		}
	}
	return optind == argc && a->db ? 0 : -1;
}

/* 1024 connections per client on loopback (every local client is 127.0.0.1), else 64 (see front.h). */
static unsigned per_address_limit(int fd, const char *listen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;

	if (fd >= 0 ? getsockname(fd, (struct sockaddr *)&ss, &len) < 0 : web_listen_parse(listen, &ss, &len) != 0)
		return 64;
	if (ss.ss_family == AF_INET && ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24 == 127)
		return 1024;
	if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr))
		return 1024;
	return 64;
}

/* What the daemon's old in-process front end handed web/metrics.h, now from the snapshot. */
static void publish_metrics(struct web_server *ws, const struct live_data *d, int *warned)
{
	struct metrics_input in = {
		.version = FPUSOAK_VERSION,
		.run_id = d->run_id,
		.run_started_ms = d->run_started_ms,
		.samples_total = d->samples_total,
		.samples_queued = d->samples_queued,
		.samples_dropped = d->samples_dropped,
		.sample_ts_ms = d->sample_ts_ms,
		.sample_us = d->sample_us,
		.buddy = d->has_buddy ? &d->buddy : NULL,
		.vmstat = d->has_vmstat ? &d->vmstat : NULL,
		.meminfo = d->has_meminfo ? &d->meminfo : NULL,
		.indices = 1,
		.churn = d->has_churn ? &d->churn : NULL,
		.last_capacity = d->last_capacity,
		.last_switch_us = d->last_switch_us,
		.alloc_failures = d->has_alloc_failures ? d->alloc_failures : NULL,
		.has_oom_kills = d->has_oom_kills,
		.oom_kills = d->oom_kills,
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

/* Follow the core's snapshot until SIGTERM: /metrics once per sample, the status line, /healthz. */
static void follow(struct web_server *ws, const struct live_shm *shm)
{
	static struct live_data d;     /* ~60 KiB: not on the stack */
	uint64_t seen = 0, seq;
	int64_t health_seen = -1;
	int64_t status_seen = -1;
	int warned = 0;

	while (!stop) {
		seq = live_read(shm, &d);
		if (seq && seq != seen) {
			seen = seq;
			if (d.sample_ts_ms)
				publish_metrics(ws, &d, &warned);
			if (d.health_mono_ms != status_seen) {
				status_seen = d.health_mono_ms;
				web_set_status(ws, d.status);
			}
			/*
			 * Health is stamped when the core says so, never when we merely read it: a restarted web
			 * process must not vouch for a core that stalled before it started.
			 */
			if (d.health_mono_ms && d.health_mono_ms != health_seen) {
				health_seen = d.health_mono_ms;
				if (clock_mono_ms() - d.health_mono_ms <= HEALTH_MAX_AGE_MS)
					web_set_health(ws, d.healthy);
				else
					web_set_health(ws, 0);
			}
		}
		live_wait(shm, seen, LIVE_WAIT_MS);
	}
}

static int serve_main(int argc, char **argv)
{
	struct serve_args a;
	struct web_config wc = { .version = FPUSOAK_VERSION, .conn_limit = 1024 };
	struct web_server *ws = NULL;
	const struct live_shm *shm = NULL;
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t term, old;
	char err[512];
	int fd;

	if (serve_parse(argc, argv, &a) < 0)
		return serve_usage();
	log_init(a.level);
	if (a.live_fd >= 0 && !(shm = live_map(a.live_fd, err, sizeof err))) {
		log_errx("serve: %s", err);
		return 1;
	}
	/* Above the core's -900 (an OOM kill takes us first; we are restarted); raising it needs no privilege. */
	if ((fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC)) >= 0) {
		if (write(fd, "0", 1) != 1)
			log_debug("serve: cannot set oom_score_adj 0");
		close(fd);
	}
	/* Capabilities are per thread: gone before the first one starts, and no way back (no_new_privs). */
	if (worker_drop_privileges() < 0)
		log_info("serve: cannot drop capabilities (%s)", strerror(errno));
	if (sandbox_web(err, sizeof err) < 0)
		log_info("serve: %s; serving without a system call filter", err);
	/* Request threads never take SIGTERM: the main thread alone gets it, and it interrupts the wait. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_sigmask(SIG_BLOCK, &term, &old);
	wc.db_path = a.db;
	wc.listen = a.listen;
	wc.per_ip_limit = per_address_limit(a.listen_fd, a.listen);
	if (a.listen_fd >= 0) {
		wc.listen_fd_set = 1;
		wc.listen_fd = a.listen_fd;
	}
	if (shm)
		wc.health_max_age_ms = HEALTH_MAX_AGE_MS;
	if (!(ws = web_open(&wc, err, sizeof err))) {
		log_errx("http: %s", err);
		return 1;
	}
	/*
	 * Idle until the first request: the file pages the dynamic loader read ahead (libgnutls and the
	 * rest of what Debian's libmicrohttpd pulls in) go back, so an idle report costs the guest little
	 * and the core's locked code is not mapped around what we cached (daemon/pin.h).
	 */
	pin_hand_back();
	if (a.ready_fd >= 0) {
		if (write(a.ready_fd, "r", 1) != 1)
			log_debug("serve: ready byte: %s", strerror(errno));
		close(a.ready_fd);
	}
	if (shm) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		follow(ws, shm);
	} else {
		/* Checked with SIGTERM blocked, waited for with it unblocked: none is missed in between. */
		while (!stop)
			sigsuspend(&old);
	}
	web_close(ws);
	live_unmap(shm);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct cli_html html = { offline_run, offline_compare };

	if (argc > 1 && (!strcmp(argv[1], "report") || !strcmp(argv[1], "summary")))
		return cli_main(argc - 1, argv + 1, &html);
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return serve_main(argc - 1, argv + 1);
	fprintf(stderr, "usage: fpusoakd-web serve|report|summary ... (run as `fpusoakd serve`, `fpusoakd report`)\n");
	return 64;
}
