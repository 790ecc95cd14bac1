/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * server: fpusoakd's HTTP side — libmicrohttpd setup, limits, routing, and
 * the little state the web process's main thread (cmd/serve.c) shares with
 * the request threads: the /metrics buffer, the status line and the health
 * it takes from the core's snapshot (daemon/live.h).  It runs in
 * fpusoakd-web, a process of its own; the core maps none of it.
 *
 * libmicrohttpd runs an internal pool of epoll threads (MHD 0.9.75 has no
 * PostProcessor use here: GET and HEAD only, anything else is 405).  Each
 * request thread borrows one read-only store handle (store/query.h) from a
 * pool as large as the thread pool, so no SQLite connection is ever used
 * by two threads at once, and a page never blocks the core's writer (WAL:
 * readers and the writer do not wait for each other).
 * Limits: total and per-IP connections, an idle timeout (libmicrohttpd's
 * default is none), 32 KiB of memory per connection, request-target
 * URL_MAX (414), query caps (400, web/url.h), response bodies of at most
 * WEB_BODY_MAX.  Every error is a short HTML page, or {"error": "..."}
 * under /api/, with the right 4xx/5xx.
 *
 * Databases: the daemon's server reads its one DB; `fpusoakd serve`'s reads
 * up to RUNREF_MAX_DBS (web_config.db_paths), and a run in a path or in
 * ?a=&b= is then "NAME:ID" (common/runref.h); "ID" alone works with one DB
 * (400 with several; 404 for a name no DB has).  Pages and links write runs
 * the way they are accepted.
 *
 * Routes (public contract):
 *   /                            current run: status, environment, latest buddyinfo, charts
 *   /runs                        every run
 *   /runs/{id}                   one run's report; ?from=&to= window
 *   /compare?a=ID&b=ID           two runs: differences with 95% CIs and verdicts, overlays
 *   /healthz                     200 "ok\n" while the loop is healthy, else 503
 *   /metrics                     Prometheus text 0.0.4, the buffer last published
 *   /api/v1/status               JSON
 *   /api/v1/runs                 JSON, CSV (.csv or ?format=csv)
 *   /api/v1/runs/{id}            JSON, with orders_of_interest and headroom_trends
 *   /api/v1/runs/{id}/buddyinfo  JSON, CSV; from, to, max_points
 *   /api/v1/runs/{id}/meminfo    JSON, CSV; name (required), from, to, max_points
 *   /api/v1/runs/{id}/vmstat     JSON, CSV; name (required), from, to, max_points (rates per second)
 *   /api/v1/runs/{id}/failures   JSON, CSV; from, to, max_points (= most rows, newest first); total counts all
 *   /api/v1/runs/{id}/frag       JSON, CSV; from, to, max_points: unusable/fragmentation index, headroom per order
 *   /api/v1/runs/{id}/churn      JSON, CSV; from, to, max_points: churn counts per bucket
 *   /api/v1/runs/{id}/probes     JSON, CSV; name (capacity|switch), from, to, max_points (= most rows, oldest first)
 *   /api/v1/compare?a=ID&b=ID    JSON: the comparison of /compare
 *
 * Integration contract (cmd/serve.c keeps it in fpusoakd-web, which the core
 * starts once its first sample is stored, cmd/front.c; bench/webserve.c and
 * the tests call it directly):
 *   1. With a database that holds a run, call web_open() with the effective
 *      listen address and the DB path.  With
 *      listen "none" it returns a server that serves nothing (every web_*
 *      call stays valid).  A listening socket passed by systemd
 *      (LISTEN_FDS, fd 3) is used instead of binding, and LISTEN_* are
 *      removed from the environment: call web_open() before creating other
 *      threads that read the environment.
 *   2. After each sample: build the exposition with metrics_build()
 *      (web/metrics.h) and call web_publish_metrics() (cmd/serve.c does both when the
 *      core's snapshot says a new sample is in).  Every status period:
 *      web_set_health(ws, ok) (0 when the sampler is stalled) and
 *      web_set_status() with the one-line status (the sd_notify STATUS= text).
 *      If health_max_age_ms is set, /healthz turns 503 when web_set_health
 *      has not been called for that long: a stuck loop cannot report itself.
 *   3. At exit (after the last sample is stored): web_close().  It stops
 *      the threads, waiting for requests in progress.
 *   All web_set_* / web_publish_* calls are thread-safe and cheap (a mutex
 *   and a copy); none touches the DB or blocks on a request.
 */
#ifndef FPUSOAK_SERVER_H
#define FPUSOAK_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define WEB_MAX_THREADS 64
#define WEB_BODY_MAX (16u << 20)   /* largest response body; bigger is a 400 asking for a smaller window */
#define WEB_STATUS_MAX 1024        /* status line bytes */

struct web_server;

struct web_config {
	const char *listen;            /* "127.0.0.1:8089", "[::1]:8089", "0.0.0.0:8089", "[::]:8089" (dual stack), or "none"; port 0 = any */
	const char *db_path;           /* the daemon's database; opened read-only */
	const char *const *db_paths;   /* fpusoakd serve: several databases [0..ndb), runs addressed NAME:ID; NULL = db_path */
	int ndb;                       /* entries of db_paths (1..RUNREF_MAX_DBS), 0 = db_path alone */
	int serve;                     /* fpusoakd serve: no daemon behind the server (a run is live only while its DB's writer lock is held) */
	const char *version;           /* shown in pages, /api/v1/status; NULL = "unknown" */
	unsigned threads;              /* request threads (and DB handles); 0 = 2 */
	unsigned conn_limit;           /* open connections in total; 0 = 256 */
	unsigned per_ip_limit;         /* open connections per client address; 0 = 64 */
	unsigned idle_timeout_s;       /* close a connection idle this long; 0 = 15 */
	unsigned health_max_age_ms;    /* /healthz is 503 if web_set_health is older; 0 = no age check */
	int no_socket_activation;      /* ignore LISTEN_FDS even if set */
	int listen_fd_set;             /* serve on listen_fd, a socket the caller bound and listens on */
	int listen_fd;                 /* ... which the server then owns: web_close (or a failed web_open) closes it */
};

/* Start serving per cfg; NULL with a message in err (bad listen, bind failure, DB not readable). */
struct web_server *web_open(const struct web_config *cfg, char *err, size_t errlen);

/* Stop the threads (waiting for requests in progress) and free everything; NULL-safe. */
void web_close(struct web_server *ws);

/* Databases served (0 with listen "none"). */
int web_ndb(const struct web_server *ws);

/* The short name runs of database d are addressed by ("NAME:ID", common/runref.h), or NULL. */
const char *web_db_name(const struct web_server *ws, int d);

/* The path of database d as given, or NULL. */
const char *web_db_path(const struct web_server *ws, int d);

/* The bound TCP port (useful with port 0), or 0 when not listening. */
unsigned web_port(const struct web_server *ws);

/* Loop health for /healthz: ok != 0 is healthy; stamps the time of the call. NULL-safe. */
void web_set_health(struct web_server *ws, int ok);

/* The one-line status shown on / and in /api/v1/status; 0, or -1 if longer than WEB_STATUS_MAX-1 bytes (kept unchanged). NULL-safe. */
int web_set_status(struct web_server *ws, const char *line);

/* Replace the /metrics body with a copy of buf[0..len); 0 or -1 (out of memory; the old body stays). NULL-safe. */
int web_publish_metrics(struct web_server *ws, const char *buf, size_t len);

/* Parse a listen address ("ADDR:PORT", "[V6]:PORT") into *ss; 0, 1 for "none", -1 if malformed. Pure. */
int web_listen_parse(const char *s, struct sockaddr_storage *ss, socklen_t *sslen);

#endif
