/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * golden_dump: the report's output on a fixed database, for the golden test
 * (tests/integration/12_golden.sh compares it with tests/golden/expected/).
 *
 *   golden_dump DIR
 *
 * Builds DIR/test.db with tests/unit/testdb.h (fixed content, no "now" in
 * it), serves it with web_open() exactly as the daemon does (version
 * "golden", a fixed status line, healthy), publishes a /metrics body built
 * by metrics_build() from fixed inputs (the Xen PV fixtures' buddyinfo,
 * vmstat and meminfo, fixed churn and kernel-log counters), then GETs every
 * route in the table below over loopback and writes each response to
 * DIR/out/NAME: the status line, every header but Date (in the order sent),
 * a blank line and the body.  Nothing in the output depends on the clock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "tests/unit/testdb.h"

#include "collector/buddyinfo.h"
#include "collector/kv.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "report/metrics.h"
#include "web/metrics.h"
#include "web/server.h"

/* Every route of server.h, JSON and CSV, plus a few errors: output file name, request target. */
static const struct {
	const char *name, *target;
} routes[] = {
	{ "index.html", "/" },
	{ "runs.html", "/runs" },
	{ "run1.html", "/runs/1" },
	{ "run1-window.html", "/runs/1?from=1717243300000&to=1717243330000" },
	{ "run2.html", "/runs/2" },
	{ "run3.html", "/runs/3" },
	{ "run99.html", "/runs/99" },
	{ "compare-1-3.html", "/compare?a=1&b=3" },
	{ "compare-3-1.html", "/compare?a=3&b=1" },
	{ "compare-1-2.html", "/compare?a=1&b=2" },
	{ "compare-missing.html", "/compare?a=1" },
	{ "healthz.txt", "/healthz" },
	{ "metrics.txt", "/metrics" },
	{ "nopage.html", "/nope" },
	{ "api-status.json", "/api/v1/status" },
	{ "api-runs.json", "/api/v1/runs" },
	{ "api-runs.csv", "/api/v1/runs.csv" },
	{ "api-runs-format.csv", "/api/v1/runs?format=csv" },
	{ "api-run1.json", "/api/v1/runs/1" },
	{ "api-run2.json", "/api/v1/runs/2" },
	{ "api-run3.json", "/api/v1/runs/3" },
	{ "api-run99.json", "/api/v1/runs/99" },
	{ "api-run1-buddyinfo.json", "/api/v1/runs/1/buddyinfo?max_points=40" },
	{ "api-run1-buddyinfo.csv", "/api/v1/runs/1/buddyinfo.csv?max_points=20" },
	{ "api-run3-buddyinfo-window.json",
	  "/api/v1/runs/3/buddyinfo?from=2024-06-01T13:01:00Z&to=2024-06-01T13:02:00Z&max_points=10" },
	{ "api-run1-meminfo.json", "/api/v1/runs/1/meminfo?name=MemFree&max_points=50" },
	{ "api-run1-meminfo.csv", "/api/v1/runs/1/meminfo.csv?name=MemAvailable&max_points=50" },
	{ "api-run1-meminfo-noname.json", "/api/v1/runs/1/meminfo" },
	{ "api-run1-meminfo-unknown.json", "/api/v1/runs/1/meminfo?name=NoSuchField" },
	{ "api-run1-vmstat.json", "/api/v1/runs/1/vmstat?name=compact_stall&max_points=60" },
	{ "api-run1-vmstat.csv", "/api/v1/runs/1/vmstat.csv?name=pgfault&max_points=60" },
	{ "api-run1-failures.json", "/api/v1/runs/1/failures" },
	{ "api-run1-failures.csv", "/api/v1/runs/1/failures.csv" },
	{ "api-run1-failures-limit.json", "/api/v1/runs/1/failures?max_points=2" },
	{ "api-run3-failures.json", "/api/v1/runs/3/failures" },
	{ "api-run1-frag.json", "/api/v1/runs/1/frag?max_points=12" },
	{ "api-run1-frag.csv", "/api/v1/runs/1/frag.csv?max_points=6" },
	{ "api-run1-churn.json", "/api/v1/runs/1/churn?max_points=30" },
	{ "api-run3-churn.csv", "/api/v1/runs/3/churn.csv?max_points=30" },
	{ "api-run1-probes.json", "/api/v1/runs/1/probes" },
	{ "api-run1-probes.csv", "/api/v1/runs/1/probes.csv" },
	{ "api-run3-probes-capacity.json", "/api/v1/runs/3/probes?name=capacity" },
	{ "api-run3-probes-bad.json", "/api/v1/runs/3/probes?name=other" },
	{ "api-compare-1-3.json", "/api/v1/compare?a=1&b=3" },
	{ "api-compare-3-1.json", "/api/v1/compare?a=3&b=1" },
	{ "api-compare-1-2.json", "/api/v1/compare?a=1&b=2" },
	{ "api-compare-99.json", "/api/v1/compare?a=1&b=99" },
};

static int connect_lo(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 30, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* GET target and write the response (minus its Date header) to path; 0 or -1. */
static int fetch(unsigned port, const char *target, const char *path)
{
	char req[1024], *raw = NULL, *body, *line;
	size_t len = 0, cap = 0;
	FILE *f;
	int fd, n;

	n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", target);
	if (n < 0 || (size_t)n >= sizeof req || (fd = connect_lo(port)) < 0)
		return -1;
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		close(fd);
		return -1;
	}
	for (;;) {
		ssize_t got;
		if (len + 1 >= cap) {
			char *p = realloc(raw, cap = cap ? cap * 2 : 65536);
			if (!p) {
				free(raw);
				close(fd);
				return -1;
			}
			raw = p;
		}
		got = recv(fd, raw + len, cap - 1 - len, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (!raw || !(raw[len] = '\0', body = strstr(raw, "\r\n\r\n")) || !(f = fopen(path, "wb"))) {
		free(raw);
		return -1;
	}
	*body = '\0';
	body += 4;
	/* Headers one per line, CRLF as LF; Date is the only one that depends on the clock. */
	for (line = raw; line && *line; ) {
		char *end = strstr(line, "\r\n");
		if (end)
			*end = '\0';
		if (strncasecmp(line, "Date:", 5) != 0)
			fprintf(f, "%s\n", line);
		line = end ? end + 2 : NULL;
	}
	fputc('\n', f);
	fwrite(body, 1, len - (size_t)(body - raw), f);
	free(raw);
	return fclose(f) == 0 ? 0 : -1;
}

static int read_fixture(const char *name, char *buf, size_t cap, size_t *len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "tests/fixtures/%s", name);
	if (!(f = fopen(path, "rb")))
		return -1;
	*len = fread(buf, 1, cap, f);
	fclose(f);
	return *len < cap ? 0 : -1;
}

/* The /metrics body from fixed inputs: what the daemon's front end (cmd/front.c) publishes after a sample. */
static int fixed_metrics(struct strbuf *sb)
{
	static struct buddyinfo bi;
	static struct kv_set vm, mi;
	static char buf[1 << 16];
	static const uint64_t fails[BUDDY_MAX_ORDER] = { 4, 0, 1, 7, 0, 0, 0, 0, 0, 2 };
	static const uint64_t tfails[16][3] = { { 1, 365, 0 }, { 0, 0, 0 }, { 0, 2, 0 }, { 3, 0, 12 } };
	struct churn_counters c = { .spawned = 123456, .spawn_failed_eagain = 12, .spawn_failed_enomem = 3,
				    .spawn_failed_other = 1, .exited = 123000, .killed_sigkill = 400, .killed_sigsegv = 2,
				    .killed_sigill = 1, .killed_other = 5, .oom_killed = 390, .population = 32 };
	static const int orders[] = { 3, 9 };
	static struct report_frag_now frag;
	struct metrics_input in = {
		.version = "golden", .run_id = 7, .run_started_ms = TDB_T1, .samples_total = 3600,
		.samples_queued = 2, .samples_dropped = 1, .sample_ts_ms = TDB_T1 + 3599000, .sample_us = 1234,
		.buddy = &bi, .vmstat = &vm, .meminfo = &mi, .frag = &frag, .request_orders = 11, .request_atomic = 0x7,
		.request_nowait = 0x3, .request_kernel = 0x7ff,
		.churn = &c, .last_capacity = 71, .last_switch_us = 2.5, .alloc_failures = fails,
		.has_oom_kills = 1, .oom_kills = 6, .trace_failures = tfails, .trace_fallbacks = 80, .trace_fragmenting = 76,
	};
	size_t len;

	if (read_fixture("buddyinfo.xenpv", buf, sizeof buf, &len) < 0 || buddyinfo_parse(buf, len, &bi) < 0 ||
	    read_fixture("vmstat.xenpv", buf, sizeof buf, &len) < 0 || vmstat_parse(buf, len, &vm) < 0 ||
	    read_fixture("meminfo.xenpv", buf, sizeof buf, &len) < 0 || meminfo_parse(buf, len, &mi) < 0)
		return -1;
	report_frag_now(&bi, orders, 2, &frag);
	return metrics_build(sb, &in);
}

int main(int argc, char **argv)
{
	struct web_config wc = { .listen = "127.0.0.1:0", .version = "golden", .no_socket_activation = 1 };
	struct web_server *ws;
	struct strbuf sb;
	char db[512], out[512], path[600], err[512];
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: golden_dump DIR\n");
		return 64;
	}
	log_init(LOG_LVL_WARN);
	snprintf(out, sizeof out, "%s/out", argv[1]);
	if ((mkdir(out, 0755) < 0 && errno != EEXIST) || testdb_create(argv[1], db, sizeof db) < 0) {
		fprintf(stderr, "golden_dump: cannot create %s or its database\n", out);
		return 1;
	}
	wc.db_path = db;
	if (!(ws = web_open(&wc, err, sizeof err))) {
		fprintf(stderr, "golden_dump: web_open: %s\n", err);
		return 1;
	}
	web_set_health(ws, 1);
	web_set_status(ws, "run 3, up 0h05m00s, 300 samples; churn: 10 workers; golden <status> & \"line\"");
	sb_init(&sb, METRICS_MAX_BYTES);
	if (fixed_metrics(&sb) < 0 || !sb.buf || web_publish_metrics(ws, sb.buf, sb.len) < 0) {
		fprintf(stderr, "golden_dump: the fixed /metrics body could not be built\n");
		bad = 1;
	}
	sb_free(&sb);
	for (size_t i = 0; !bad && i < sizeof routes / sizeof routes[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", out, routes[i].name);
		if (fetch(web_port(ws), routes[i].target, path) < 0) {
			fprintf(stderr, "golden_dump: GET %s failed\n", routes[i].target);
			bad = 1;
		}
	}
	web_close(ws);
	return bad;
}
