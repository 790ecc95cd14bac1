/* SPDX-License-Identifier: GPL-2.0-only */
/* server: libmicrohttpd setup, limits, routing and shared state; see server.h. */
#include "web/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/netaddr.h"
#include "common/num.h"
#include "common/runref.h"
#include "common/sdlisten.h"
#include "web/api.h"
#include "web/escape.h"
#include "web/page.h"
#include "web/request.h"

#define CONN_MEMORY (32u * 1024)   /* per connection: request line, headers, our response headers */

/* A published /metrics body, shared by the responses still sending it. */
struct snap {
	atomic_int refs;
	size_t len;
	char data[];
};

struct web_server {
	struct MHD_Daemon *d;
	int ndb;
	char *db_path[RUNREF_MAX_DBS];
	runref_name db_name[RUNREF_MAX_DBS];
	int serve;                 /* fpusoakd serve: no daemon behind the server */
	char *version;
	unsigned threads;
	unsigned health_max_age_ms;
	unsigned port;
	pthread_mutex_t lock;      /* guards everything below */
	int healthy;
	int64_t health_at_ms;      /* clock_mono_ms() of the last web_set_health */
	char status[WEB_STATUS_MAX];
	struct snap *metrics;
	struct query *pool[WEB_MAX_THREADS][RUNREF_MAX_DBS];   /* [thread slot][database] */
	int busy[WEB_MAX_THREADS];
	char mhd_err[256];         /* libmicrohttpd's last message, for web_open's error */
};

/* Per request, from the URI log callback (which sees the raw target) to completion. */
struct req_ctx {
	int answered;
	size_t uri_len;
	char uri[URL_MAX + 1];     /* valid when uri_len <= URL_MAX */
};

#define R_DB      1u   /* needs a store handle */
#define R_CSV     2u   /* also answers CSV: ".csv" suffix or format=csv */
#define R_API     4u   /* JSON API: errors as JSON */
#define R_HTML    8u   /* an HTML page */
#define R_METRICS 16u  /* /metrics: served from the published snapshot */

static int serve_healthz(struct web_req *r);

/* The routing table: "#" is a run id segment.  A new report section or API series is one line here. */
static const struct route {
	const char *pattern;
	web_handler fn;
	unsigned flags;
} routes[] = {
	{ "/", page_index, R_DB | R_HTML },
	{ "/runs", page_runs, R_DB | R_HTML },
	{ "/runs/#", page_run, R_DB | R_HTML },
	{ "/compare", page_compare, R_DB | R_HTML },
	{ "/healthz", serve_healthz, 0 },
	{ "/metrics", NULL, R_METRICS },
	{ "/api/v1/status", api_status, R_DB | R_API },
	{ "/api/v1/runs", api_runs, R_DB | R_API | R_CSV },
	{ "/api/v1/runs/#", api_run, R_DB | R_API },
	{ "/api/v1/runs/#/buddyinfo", api_buddyinfo, R_DB | R_API | R_CSV },
	{ "/api/v1/runs/#/meminfo", api_meminfo, R_DB | R_API | R_CSV },
	{ "/api/v1/runs/#/vmstat", api_vmstat, R_DB | R_API | R_CSV },
	{ "/api/v1/runs/#/failures", api_failures, R_DB | R_API | R_CSV },
	{ "/api/v1/runs/#/frag", api_frag, R_DB | R_API | R_CSV },
	{ "/api/v1/runs/#/churn", api_churn, R_DB | R_API | R_CSV },
	{ "/api/v1/runs/#/probes", api_probes, R_DB | R_API | R_CSV },
	{ "/api/v1/compare", api_compare, R_DB | R_API },
};

/* ---------------------------------------------------------------- shared state */

void web_set_health(struct web_server *ws, int ok)
{
	if (!ws)
		return;
	pthread_mutex_lock(&ws->lock);
	ws->healthy = ok != 0;
	ws->health_at_ms = clock_mono_ms();
	pthread_mutex_unlock(&ws->lock);
}

int web_healthy(struct web_server *ws)
{
	int ok;
	int64_t at;

	pthread_mutex_lock(&ws->lock);
	ok = ws->healthy;
	at = ws->health_at_ms;
	pthread_mutex_unlock(&ws->lock);
	if (ok && ws->health_max_age_ms && clock_mono_ms() - at > (int64_t)ws->health_max_age_ms)
		ok = 0;
	return ok;
}

int web_set_status(struct web_server *ws, const char *line)
{
	size_t n;

	if (!ws)
		return 0;
	n = strlen(line);
	if (n >= WEB_STATUS_MAX)
		return -1;
	pthread_mutex_lock(&ws->lock);
	memcpy(ws->status, line, n + 1);
	pthread_mutex_unlock(&ws->lock);
	return 0;
}

void web_status_copy(struct web_server *ws, char *out, size_t outlen)
{
	pthread_mutex_lock(&ws->lock);
	snprintf(out, outlen, "%s", ws->status);
	pthread_mutex_unlock(&ws->lock);
}

const char *web_version(const struct web_server *ws)
{
	return ws->version;
}

static void snap_put(struct snap *s)
{
	if (s && atomic_fetch_sub(&s->refs, 1) == 1)
		free(s);
}

static void snap_free_cb(void *cls)
{
	snap_put(cls);
}

int web_publish_metrics(struct web_server *ws, const char *buf, size_t len)
{
	struct snap *s, *old;

	if (!ws)
		return 0;
	if (!(s = malloc(sizeof *s + len + 1)))
		return -1;
	atomic_init(&s->refs, 1);   /* the server's reference */
	s->len = len;
	memcpy(s->data, buf, len);
	s->data[len] = '\0';
	pthread_mutex_lock(&ws->lock);
	old = ws->metrics;
	ws->metrics = s;
	pthread_mutex_unlock(&ws->lock);
	snap_put(old);   /* freed now, or when the last scrape sending it completes */
	return 0;
}

unsigned web_port(const struct web_server *ws)
{
	return ws ? ws->port : 0;
}

/* ---------------------------------------------------------------- store handles */

/* Open (or reopen, when a writer appeared since an immutable open) handle d of slot i; 0 or -1. */
static int pool_fresh(struct web_server *ws, int i, int d)
{
	char err[512];

	if (ws->pool[i][d] && report_read_stale(ws->pool[i][d])) {
		report_read_close(ws->pool[i][d]);
		ws->pool[i][d] = NULL;
	}
	if (!ws->pool[i][d] && !(ws->pool[i][d] = report_read_open(ws->db_path[d], err, sizeof err))) {
		log_warnx("http: %s", err);
		return -1;
	}
	return 0;
}

/* Borrow an idle slot's store handles into *dbs, opening them on first use; -1 if none (503). */
static int pool_get(struct web_server *ws, struct web_dbs *dbs, int *slot)
{
	int i;

	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < (int)ws->threads && ws->busy[i]; i++)
		;
	if (i < (int)ws->threads)
		ws->busy[i] = 1;
	pthread_mutex_unlock(&ws->lock);
	if (i == (int)ws->threads)
		return -1;
	for (int d = 0; d < ws->ndb; d++) {
		if (pool_fresh(ws, i, d) < 0) {
			pthread_mutex_lock(&ws->lock);
			ws->busy[i] = 0;
			pthread_mutex_unlock(&ws->lock);
			return -1;
		}
		dbs->q[d] = ws->pool[i][d];
		/* The daemon's own server runs beside the writer; serve asks the kernel who holds the lock. */
		dbs->writing[d] = ws->serve ? report_read_writer_active(ws->pool[i][d]) == 1 : 1;
	}
	*slot = i;
	return 0;
}

static void pool_put(struct web_server *ws, int slot)
{
	pthread_mutex_lock(&ws->lock);
	ws->busy[slot] = 0;
	pthread_mutex_unlock(&ws->lock);
}

/* ---------------------------------------------------------------- responses */

static int serve_healthz(struct web_req *r)
{
	int ok = web_healthy(r->ws);

	r->status = ok ? 200 : 503;
	r->ctype = "text/plain; charset=utf-8";
	return sb_puts(&r->body, ok ? "ok\n" : "unhealthy\n");
}

static void common_headers(struct MHD_Response *resp, const char *ctype)
{
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	/* Defence in depth behind escaping: no script runs on our pages, nothing loads from elsewhere. */
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
				"form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
}

/* Queue r's body as the response; MHD frees the body. */
static enum MHD_Result queue(struct MHD_Connection *conn, struct web_req *r)
{
	static const char oom[] = "out of memory\n";
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len;
	char *body = sb_detach(&r->body, &len);

	if (!body) {
		resp = MHD_create_response_from_buffer(sizeof oom - 1, (void *)oom, MHD_RESPMEM_PERSISTENT);
		r->status = 500;
		r->ctype = "text/plain; charset=utf-8";
	} else {
		resp = MHD_create_response_from_buffer_with_free_callback(len, body, free);
		if (!resp)
			free(body);
	}
	if (!resp)
		return MHD_NO;
	common_headers(resp, r->ctype ? r->ctype : "text/plain; charset=utf-8");
	if (r->status == 405)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (r->filename[0]) {
		char cd[96];
		snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", r->filename);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, cd);
	}
	ret = MHD_queue_response(conn, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result queue_metrics(struct web_server *ws, struct MHD_Connection *conn, struct web_req *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	struct snap *s;

	pthread_mutex_lock(&ws->lock);
	if ((s = ws->metrics))
		atomic_fetch_add(&s->refs, 1);
	pthread_mutex_unlock(&ws->lock);
	if (!s) {
		web_error(r, 503, "no sample published yet");
		return queue(conn, r);
	}
	/* Zero-copy: the response holds a reference until it has been sent. */
	resp = MHD_create_response_from_buffer_with_free_callback_cls(s->len, s->data, snap_free_cb, s);
	if (!resp) {
		snap_put(s);
		return MHD_NO;
	}
	common_headers(resp, "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* ---------------------------------------------------------------- routing */

/* Match path against pattern: 1 with the "#" segment in seg, seg_len (seg_len 0 if none), 0 no match. */
static int match(const char *pat, const char *path, const char **seg, size_t *seg_len)
{
	*seg_len = 0;
	while (*pat && *path) {
		if (*pat == '#') {
			size_t n = strcspn(path, "/");
			if (n == 0)
				return 0;
			*seg = path;
			*seg_len = n;
			pat++;
			path += n;
		} else if (*pat++ != *path++) {
			return 0;
		}
	}
	return !*pat && !*path;
}

/* Find the route of path; NULL if none; the run segment as in match(). */
static const struct route *find_route(const char *path, const char **seg, size_t *seg_len)
{
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
		if (match(routes[i].pattern, path, seg, seg_len))
			return &routes[i];
	return NULL;
}

/* The run of the path's "#" segment into r->db and r->id; 0, or -1 after web_error (400, 404). */
static int resolve_run(struct web_req *r, const char *seg, size_t len)
{
	struct runref ref;

	if (runref_parse(seg, len, &ref) < 0)
		return web_error(r, 400, r->dbs.n > 1 ? "a run is NAME:ID (ID a positive integer)"
							 : "a run id must be a positive integer");
	if (web_resolve(r, &ref, &r->db) < 0)
		return -1;
	r->id = ref.id;
	return 0;
}

/* Resolve route and output format from the path and ?format=; 0 or -1 after web_error. */
static int route(struct web_req *r, struct url *u, const struct route **out)
{
	const struct route *rt;
	const char *seg = NULL;
	size_t seg_len = 0;
	struct runref ref;
	int suffix = 0;
	enum url_format f = u->p.format;

	rt = find_route(u->path, &seg, &seg_len);
	if ((!rt || (seg_len && runref_parse(seg, seg_len, &ref) < 0)) && u->path_len > 4 && strcmp(u->path + u->path_len - 4, ".csv") == 0) {
		/* "/api/v1/runs/3/buddyinfo.csv"; "/runs/1.csv" is not a page with CSV: 404 */
		const struct route *csv;
		u->path[u->path_len - 4] = '\0';
		csv = find_route(u->path, &seg, &seg_len);
		u->path[u->path_len - 4] = '.';
		if (csv) {
			rt = csv->flags & R_CSV ? csv : NULL;
			suffix = 1;
		} else if (rt) {
			find_route(u->path, &seg, &seg_len);   /* the unstripped match: its id is the one that is bad */
		}
	}
	if (!rt)
		return web_error(r, 404, "no such page");
	r->api = (rt->flags & R_API) != 0;
	if (seg_len && resolve_run(r, seg, seg_len) < 0)
		return -1;
	if (suffix) {
		if (f != URL_FMT_NONE && f != URL_FMT_CSV)
			return web_error(r, 400, "the .csv suffix conflicts with format=");
		f = URL_FMT_CSV;
	}
	if (rt->flags & R_HTML) {
		if (f != URL_FMT_NONE && f != URL_FMT_HTML)
			return web_error(r, 400, "this page is HTML only; the data is under /api/v1/");
		f = URL_FMT_HTML;
	} else if (rt->flags & R_API) {
		if (f == URL_FMT_HTML || (f == URL_FMT_CSV && !(rt->flags & R_CSV)))
			return web_error(r, 400, "format not available here");
		if (f == URL_FMT_NONE)
			f = URL_FMT_JSON;
	} else if (f != URL_FMT_NONE) {
		return web_error(r, 400, "format not available here");
	}
	r->fmt = f;
	*out = rt;
	return 0;
}

/* ---------------------------------------------------------------- libmicrohttpd callbacks */

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct req_ctx *rc = malloc(sizeof *rc);

	(void)cls;
	(void)conn;
	if (!rc)
		return NULL;   /* the access handler answers 503 */
	rc->answered = 0;
	rc->uri_len = strlen(uri);
	if (rc->uri_len <= URL_MAX)
		memcpy(rc->uri, uri, rc->uri_len + 1);
	else
		rc->uri[0] = '\0';
	return rc;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	free(*req_cls);
	*req_cls = NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_size, void **req_cls)
{
	struct web_server *ws = cls;
	struct req_ctx *rc = *req_cls;
	struct web_req r = { .ws = ws };
	const struct route *rt = NULL;
	struct url u;
	const char *why;
	enum MHD_Result ret;
	int slot = -1, st;

	(void)url;
	(void)version;
	(void)upload_data;
	if (rc && rc->answered) {
		*upload_size = 0;   /* a body we already refused: discard it */
		return MHD_YES;
	}
	sb_init(&r.body, WEB_BODY_MAX);
	if (!rc) {
		web_error(&r, 503, "out of memory");
		return queue(conn, &r);
	}
	rc->answered = 1;
	r.api = rc->uri_len >= 5 && strncmp(rc->uri, "/api/", 5) == 0;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		web_error(&r, 405, "only GET and HEAD are supported");
		return queue(conn, &r);
	}
	st = rc->uri_len > URL_MAX ? URL_TOO_LONG : url_parse(rc->uri, rc->uri_len, &u, &why);
	if (st != URL_OK) {
		web_error(&r, st == URL_TOO_LONG ? 414 : 400, st == URL_TOO_LONG ? "request-target too long" : why);
		return queue(conn, &r);
	}
	r.url = &u;
	r.dbs.n = ws->ndb;   /* names now, for the run in the path; handles once the route needs them */
	for (int d = 0; d < ws->ndb; d++)
		r.dbs.name[d] = ws->db_name[d];
	if (route(&r, &u, &rt) < 0)
		return queue(conn, &r);
	if (rt->flags & R_METRICS)
		return queue_metrics(ws, conn, &r);
	if (rt->flags & R_DB) {
		if (pool_get(ws, &r.dbs, &slot) < 0) {
			web_error(&r, 503, "database unavailable");
			return queue(conn, &r);
		}
		r.q = r.dbs.q[r.db];
	}
	if (rt->fn(&r) < 0 || r.body.err) {
		if (r.body.err)
			web_error(&r, 400, "response too large; narrow from/to or lower max_points");
		else if (r.status == 0 || r.status == 200) {
			log_warnx("http: %s: %s", u.path, r.q ? report_read_errmsg(r.q) : "handler failed");
			web_error(&r, 500, "internal error; see the daemon's log");
		}
	}
	if (slot >= 0)
		pool_put(ws, slot);
	ret = queue(conn, &r);
	sb_free(&r.body);
	return ret;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct web_server *ws = cls;
	char msg[256];
	size_t n;

	vsnprintf(msg, sizeof msg, fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	pthread_mutex_lock(&ws->lock);
	memcpy(ws->mhd_err, msg, n + 1);
	pthread_mutex_unlock(&ws->lock);
	/* Per-connection complaints are a client's doing: debug level, so clients cannot flood the log. */
	log_debug("http: %s", msg);
}

/* ---------------------------------------------------------------- open / close */

int web_listen_parse(const char *s, struct sockaddr_storage *ss, socklen_t *sslen)
{
	return netaddr_parse(s, ss, sslen);
}

/* Whether a6 is the unspecified address "::" (then we listen dual-stack). */
static int is_any6(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* The systemd-passed listening socket, or -1.  Consumes LISTEN_* so a child or a reopen cannot take it twice. */
static int systemd_socket(char *err, size_t errlen, int *bad)
{
	int fd = sdlisten_take(err, errlen);

	*bad = fd == -2;
	return fd < 0 ? -1 : fd;
}

/* The databases of cfg, named (common/runref.h), each opened once now: one we cannot read is a startup error, not a 503 later. */
static int open_dbs(struct web_server *ws, const struct web_config *cfg, char *err, size_t errlen)
{
	const char *one[1] = { cfg->db_path };
	const char *const *paths = cfg->ndb > 0 ? cfg->db_paths : one;
	int n = cfg->ndb > 0 ? cfg->ndb : 1;

	if (n > RUNREF_MAX_DBS) {
		snprintf(err, errlen, "at most %d databases", RUNREF_MAX_DBS);
		return -1;
	}
	for (int d = 0; d < n; d++) {
		if (!paths[d]) {
			snprintf(err, errlen, "no database path");
			return -1;
		}
		if (!(ws->db_path[d] = strdup(paths[d]))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (!(ws->pool[0][d] = report_read_open(paths[d], err, errlen)))
			return -1;
	}
	runref_names(paths, n, ws->db_name);
	ws->ndb = n;
	return 0;
}

int web_ndb(const struct web_server *ws)
{
	return ws ? ws->ndb : 0;
}

const char *web_db_name(const struct web_server *ws, int d)
{
	return ws && d >= 0 && d < ws->ndb ? ws->db_name[d] : NULL;
}

const char *web_db_path(const struct web_server *ws, int d)
{
	return ws && d >= 0 && d < ws->ndb ? ws->db_path[d] : NULL;
}

int web_serving(const struct web_server *ws)
{
	return ws && ws->serve;
}

struct web_server *web_open(const struct web_config *cfg, char *err, size_t errlen)
{
	struct web_server *ws = calloc(1, sizeof *ws);
	struct sockaddr_storage ss;
	socklen_t sslen = 0;
	struct MHD_OptionItem addr[2];
	/* MHD_USE_ITC: web_close quiesces first (see there), which these thread modes need it for. */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_ITC;
	const union MHD_DaemonInfo *info;
	int r, fd = -1, bad;

	if (!ws) {
		snprintf(err, errlen, "out of memory");
		if (cfg->listen_fd_set)
			close(cfg->listen_fd);
		return NULL;
	}
	pthread_mutex_init(&ws->lock, NULL);
	ws->serve = cfg->serve;
	ws->healthy = 1;   /* web_open comes after the first stored sample: the loop is healthy */
	ws->health_at_ms = clock_mono_ms();
	ws->health_max_age_ms = cfg->health_max_age_ms;
	ws->threads = cfg->threads ? cfg->threads : 2;
	if (ws->threads > WEB_MAX_THREADS) {
		snprintf(err, errlen, "at most %d HTTP threads", WEB_MAX_THREADS);
		goto fail;
	}
	if (!(ws->version = strdup(cfg->version ? cfg->version : "unknown")))
		goto oom;
	r = web_listen_parse(cfg->listen, &ss, &sslen);
	if (r < 0) {
		snprintf(err, errlen, "bad listen address \"%s\": want ADDR:PORT, [ADDR6]:PORT or none",
			 cfg->listen ? cfg->listen : "");
		goto fail;
	}
	if (r == 1)
		return ws;   /* "none": an inert server */
	if (open_dbs(ws, cfg, err, errlen) < 0)
		goto fail;
	if (cfg->listen_fd_set) {
		fd = cfg->listen_fd;
	} else if (!cfg->no_socket_activation) {
		fd = systemd_socket(err, errlen, &bad);
		if (bad)
			goto fail;
	}
	if (fd >= 0) {
		addr[0] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
	} else {
		addr[0] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &ss };
		if (is_any6(&ss))
			flags |= MHD_USE_DUAL_STACK;
		else if (ss.ss_family == AF_INET6)
			flags |= MHD_USE_IPv6;
	}
	addr[1] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	ws->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, ws,
				 MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, ws,
				 MHD_OPTION_THREAD_POOL_SIZE, ws->threads,
				 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				 MHD_OPTION_CONNECTION_LIMIT, cfg->conn_limit ? cfg->conn_limit : 256u,
				 MHD_OPTION_PER_IP_CONNECTION_LIMIT, cfg->per_ip_limit ? cfg->per_ip_limit : 64u,
				 MHD_OPTION_CONNECTION_TIMEOUT, cfg->idle_timeout_s ? cfg->idle_timeout_s : 15u,
				 MHD_OPTION_URI_LOG_CALLBACK, on_uri, ws,
				 MHD_OPTION_NOTIFY_COMPLETED, on_completed, ws,
				 MHD_OPTION_ARRAY, addr,
				 MHD_OPTION_END);
	if (!ws->d) {
		snprintf(err, errlen, "cannot listen on %s: %s",
			 cfg->listen_fd_set ? cfg->listen : fd >= 0 ? "the systemd socket" : cfg->listen,
			 ws->mhd_err[0] ? ws->mhd_err : "libmicrohttpd failed to start");
		goto fail;
	}
	info = MHD_get_daemon_info(ws->d, MHD_DAEMON_INFO_BIND_PORT);
	ws->port = info ? info->port : 0;
	return ws;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	/* A socket handed over is ours to close until libmicrohttpd took it (it closes it at stop). */
	if (cfg->listen_fd_set && !ws->d)
		close(cfg->listen_fd);
	web_close(ws);
	return NULL;
}

void web_close(struct web_server *ws)
{
	if (!ws)
		return;
	if (ws->d) {
		/*
		 * Quiesced first: a stop with the listening socket still in use shuts it down (shutdown(2)
		 * wakes the threads), and a socket is one object for every process holding it.  The
		 * daemon's core keeps the socket across web processes: a web process stopped with SIGTERM
		 * (a guest-scope fill, daemon/quiet.c) left it refusing connections for good.  Quiesced,
		 * libmicrohttpd hands it back and we close only our descriptor.
		 */
		MHD_socket lfd = MHD_quiesce_daemon(ws->d);
		MHD_stop_daemon(ws->d);   /* joins the threads; every response is destroyed */
		if (lfd != MHD_INVALID_SOCKET)
			close(lfd);
	}
	for (unsigned i = 0; i < WEB_MAX_THREADS; i++)
		for (int d = 0; d < RUNREF_MAX_DBS; d++)
			report_read_close(ws->pool[i][d]);
	snap_put(ws->metrics);
	pthread_mutex_destroy(&ws->lock);
	for (int d = 0; d < RUNREF_MAX_DBS; d++)
		free(ws->db_path[d]);
	free(ws->version);
	free(ws);
}
