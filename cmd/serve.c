/* SPDX-License-Identifier: GPL-2.0-only */
/* serve: `fpusoakd serve`, the report of databases without a daemon; see serve.h. */
#include "cmd/serve.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "common/log.h"
#include "common/netaddr.h"
#include "common/num.h"
#include "common/runref.h"
#include "store/query.h"
#include "web/server.h"

#define EX_OK 0
#define EX_FAIL 1
#define EX_USAGE 64
#define EX_UNAVAILABLE 69
#define DEFAULT_LISTEN "127.0.0.1:8089"

struct serve_args {
	const char *db[RUNREF_MAX_DBS];
	int ndb;
	const char *listen;
	unsigned threads;
	enum log_level level;
	int help;
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

static int parse(int argc, char **argv, struct serve_args *a)
{
	const char *threads = NULL, *level = NULL;
	struct sockaddr_storage ss;
	socklen_t sslen;

	memset(a, 0, sizeof *a);
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
			a->help = 1;
			return 0;
		}
		if (strcmp(o, "--db") && strcmp(o, "--listen") && strcmp(o, "--threads") && strcmp(o, "--log-level"))
			return bad("unknown argument '%s'", o);
		if (!v)
			return bad("%s needs a value", o);
		i++;
		if (strcmp(o, "--db") == 0) {
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
	return sd_listen_fds(0) > 0;
}

int serve_main(int argc, char **argv)
{
	struct serve_args a;
	struct query_set set;
	struct web_config wc = { 0 };
	struct web_server *ws = NULL;
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
	signal(SIGPIPE, SIG_IGN);
	/* Every database readable before anything listens: one that is not is the answer, exit 1. */
	if (query_set_open(&set, a.db, a.ndb, err, sizeof err) < 0) {
		fprintf(stderr, "fpusoakd serve: %s\n", err);
		return EX_FAIL;
	}
	query_set_close(&set);
	if (!socket_handed_over() && (fd = netaddr_listen(a.listen, err, sizeof err)) < 0) {
		fprintf(stderr, "fpusoakd serve: %s%s\n", err, errno == EADDRINUSE ?
			" (another fpusoakd? choose another --listen; port 0 picks a free one)" : "");
		return EX_UNAVAILABLE;
	}
	/* The request threads inherit this mask: only this thread takes the stop signals. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	wc = (struct web_config){ .listen = a.listen, .db_paths = a.db, .ndb = a.ndb, .serve = 1,
				  .version = FPUSOAK_VERSION, .threads = a.threads, .conn_limit = 1024,
				  .per_ip_limit = 1024, .listen_fd_set = fd >= 0, .listen_fd = fd };
	if (!(ws = web_open(&wc, err, sizeof err))) {
		fprintf(stderr, "fpusoakd serve: %s\n", err);
		return EX_FAIL;
	}
	snprintf(status, sizeof status, "read-only: %d database%s, no daemon", a.ndb, a.ndb > 1 ? "s" : "");
	web_set_status(ws, status);
	/* The address as bound: port 0 becomes the port the kernel chose. */
	fprintf(stderr, "fpusoakd serve: http://%.*s:%u/", (int)(strrchr(a.listen, ':') - a.listen), a.listen,
		web_port(ws));
	for (int i = 0; i < a.ndb; i++)
		fprintf(stderr, "%s %s=%s", i ? "," : "", web_db_name(ws, i), a.db[i]);
	fprintf(stderr, "\n");
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
	while (sigwait(&stop, &sig) == 0 && sig == SIGHUP)
		log_info("serve: SIGHUP ignored (nothing to reload: each request reads the databases afresh)");
	sd_notify(0, "STOPPING=1");
	web_close(ws);
	return EX_OK;
}
