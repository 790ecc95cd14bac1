/* SPDX-License-Identifier: GPL-2.0-only */
/* front: the web server as the daemon's front end; see front.h. */
#include "cmd/front.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "common/log.h"
#include "common/netaddr.h"
#include "common/strbuf.h"
#include "web/metrics.h"
#include "web/server.h"

/* /healthz turns 503 when the loop has not reported health for 3 status periods. */
#define HEALTH_MAX_AGE_MS (3 * DAEMON_STATUS_MS)

/*
 * On loopback every local client, the user's browser included, comes from
 * 127.0.0.1 (or ::1): a per-address limit there lets any local user lock
 * everyone out with 64 idle sockets.  It only protects when clients have
 * addresses of their own, i.e. on a non-loopback listen address.
 */
static unsigned per_address_limit(const char *listen)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (web_listen_parse(listen, &ss, &len) != 0)
		return 64;
	if (ss.ss_family == AF_INET && ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24 == 127)
		return 1024;
	if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr))
		return 1024;
	return 64;
}

static int front_bind(void *arg, const struct config *cfg, char *err, size_t errlen)
{
	struct front *f = arg;

	if (strcmp(cfg->listen, "none") == 0 || sd_listen_fds(0) > 0)
		return 0;
	f->listen_fd = netaddr_listen(cfg->listen, err, errlen);
	return f->listen_fd < 0 ? -1 : 0;
}

static int front_open(void *arg, const struct config *cfg, char *err, size_t errlen)
{
	struct front *f = arg;
	/*
	 * 1024 connections in total, 64 per client address unless on loopback (see
	 * per_address_limit): 500 idle connections (tests/integration/64_hostile_http.sh)
	 * from other addresses or from 127.0.0.1 itself must not lock out a browser.
	 */
	struct web_config wc = { .listen = cfg->listen, .db_path = cfg->db, .version = FPUSOAK_VERSION,
				 .health_max_age_ms = HEALTH_MAX_AGE_MS, .conn_limit = 1024 };
	char why[512];

	if (strcmp(cfg->listen, "none") == 0)
		return 0;
	wc.per_ip_limit = per_address_limit(cfg->listen);
	wc.listen_fd_set = f->listen_fd >= 0;
	wc.listen_fd = f->listen_fd;
	f->listen_fd = -1;   /* the server owns it now */
	if (!(f->ws = web_open(&wc, why, sizeof why))) {
		snprintf(err, errlen, "http: %s", why);
		return -1;
	}
	web_set_health(f->ws, 1);
	log_info("report on http://%s/", cfg->listen);
	return 0;
}

static void front_sample(void *arg, const struct daemon_sample *s)
{
	struct front *f = arg;
	struct metrics_input in = {
		.version = FPUSOAK_VERSION,
		.run_id = s->run_id,
		.run_started_ms = s->run_started_ms,
		.label = s->label,
		.kernel_release = s->kernel_release,
		.hypervisor = s->hypervisor,
		.guest_type = s->guest_type,
		.samples_total = s->samples_total,
		.samples_queued = s->samples_queued,
		.samples_dropped = s->samples_dropped,
		.sample_ts_ms = s->sample_ts_ms,
		.sample_us = s->sample_us,
		.buddy = s->buddy,
		.vmstat = s->vmstat,
		.meminfo = s->meminfo,
		.indices = 1,
		.request_orders = s->request_orders,
		.request_atomic = s->request_atomic,
		.request_nowait = s->request_nowait,
		.request_kernel = s->request_kernel,
		.churn = s->churn,
		.probe = s->probe,
		.oom_unattributed = s->oom_unattributed,
		.last_capacity = s->last_capacity,
		.last_switch_us = s->last_switch_us,
		.alloc_failures = s->alloc_failures,
		.has_oom_kills = s->has_oom_kills,
		.oom_kills = s->oom_kills,
		.trace_failures = s->trace_failures,
		.trace_fallbacks = s->trace_fallbacks,
		.trace_fragmenting = s->trace_fragmenting,
		.gfp_holding = s->gfp_holding,
		.model_checking = s->model_checking,
		.model_checks = s->model_checks,
		.model_agreed = s->model_agreed,
	};
	struct strbuf sb;

	if (!f->ws)
		return;
	/* Headroom at the orders of interest: the task_struct slab's and the pageblock order (report/run.h). */
	for (int i = 0; i < s->orders.n && in.nheadroom_orders < METRICS_MAX_ORDERS; i++)
		in.headroom_orders[in.nheadroom_orders++] = s->orders.order[i];
	sb_init(&sb, METRICS_MAX_BYTES);
	if (metrics_build(&sb, &in) == 0 && !sb.err && sb.buf)
		web_publish_metrics(f->ws, sb.buf, sb.len);
	else if (!f->metrics_err_logged++)
		log_warnx("metrics: snapshot did not fit its buffer; /metrics keeps the previous one");
	sb_free(&sb);
}

static void front_status(void *arg, const char *line, int healthy)
{
	struct front *f = arg;

	web_set_health(f->ws, healthy);
	web_set_status(f->ws, line);
}

static void front_close(void *arg)
{
	struct front *f = arg;

	web_close(f->ws);
	f->ws = NULL;
	if (f->listen_fd >= 0)
		close(f->listen_fd);   /* bound, never handed over (the daemon stopped before open) */
	f->listen_fd = -1;
}

void front_hooks(struct front *f, struct daemon_hooks *h)
{
	f->listen_fd = -1;
	*h = (struct daemon_hooks){ .arg = f, .bind = front_bind, .open = front_open, .sample = front_sample, .status = front_status,
				    .close = front_close };
}
