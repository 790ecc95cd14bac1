/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_web: black-box HTTP tests of web/server.c on a DB of known content
 * (testdb.h).  A tiny socket client sends raw requests (so hostile ones are
 * easy); expected figures come from the sqlite3 CLI or the testdb formulas;
 * pages are checked as XML by python3's parser, CSV by python3's csv
 * module, JSON by cJSON_Parse: three implementations independent of ours.
 */
#define _GNU_SOURCE   /* memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include <math.h>

#include <cjson/cJSON.h>

#include "common/netaddr.h"
#include "test.h"
#include "testdb.h"
#include "web/server.h"

static char g_db[256], g_dir[64];

struct resp {
	int status;
	char *raw;
	size_t rawlen;
	const char *body;
	size_t blen;
	char head[16384];
};

static void resp_free(struct resp *r)
{
	free(r->raw);
	memset(r, 0, sizeof *r);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int connect_to(int family, unsigned port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	struct timeval tv = { 10, 0 };
	int fd = socket(family, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof *a;
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		a->sin6_addr = in6addr_loopback;
		len = sizeof *a;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read a whole response from fd until EOF; 0 or -1. */
static int read_resp(int fd, struct resp *r)
{
	size_t cap = 1 << 16;
	char *p;

	memset(r, 0, sizeof *r);
	r->raw = malloc(cap);
	for (;;) {
		ssize_t n;
		if (r->rawlen + 1 == cap)
			r->raw = realloc(r->raw, cap *= 2);
		n = recv(fd, r->raw + r->rawlen, cap - 1 - r->rawlen, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		r->rawlen += (size_t)n;
	}
	r->raw[r->rawlen] = '\0';
	if (r->rawlen < 12 || strncmp(r->raw, "HTTP/1.", 7) != 0)
		return -1;
	r->status = atoi(r->raw + 9);   /* test code: our own peer's status line */
	p = strstr(r->raw, "\r\n\r\n");
	if (!p)
		return -1;
	snprintf(r->head, sizeof r->head, "%.*s", (int)(p - r->raw), r->raw);
	r->body = p + 4;
	r->blen = r->rawlen - (size_t)(r->body - r->raw);
	return 0;
}

static int raw_req(int family, unsigned port, const char *req, size_t len, struct resp *r)
{
	int fd = connect_to(family, port), ret;

	memset(r, 0, sizeof *r);
	if (fd < 0)
		return -1;
	if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	ret = read_resp(fd, r);
	close(fd);
	return ret;
}

/* A raw request given as a string. */
static int raw_s(int family, unsigned port, const char *s, struct resp *r)
{
	return raw_req(family, port, s, strlen(s), r);
}

static int req(unsigned port, const char *method, const char *target, struct resp *r)
{
	size_t n = strlen(target) + 128;
	char *buf = malloc(n);
	int ret;

	snprintf(buf, n, "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", method, target);
	ret = raw_req(AF_INET, port, buf, strlen(buf), r);
	free(buf);
	return ret;
}

/* Value of header name (case-insensitive) into out; 1 found, 0 not. */
static int header(const struct resp *r, const char *name, char *out, size_t outlen)
{
	size_t nl = strlen(name);

	for (const char *l = strstr(r->head, "\r\n"); l; l = strstr(l + 2, "\r\n")) {
		const char *h = l + 2;
		if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
			const char *v = h + nl + 1, *e = strstr(v, "\r\n");
			while (*v == ' ')
				v++;
			snprintf(out, outlen, "%.*s", (int)(e ? e - v : (long)strlen(v)), v);
			return 1;
		}
	}
	return 0;
}

static int body_has(const struct resp *r, const char *s)
{
	return r->body && memmem(r->body, r->blen, s, strlen(s)) != NULL;
}

/* Run a python3 snippet on the body (in a file, argv[1]); its stdout's first line into out; exit status. */
static int py(const struct resp *r, const char *code, char *out, size_t outlen)
{
	char path[128], cmd[2048];
	FILE *f, *p;
	int st;

	snprintf(path, sizeof path, "%s/body", g_dir);
	if (!(f = fopen(path, "wb")))
		return -1;
	fwrite(r->body, 1, r->blen, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "python3 -c '%s' %s 2>&1", code, path);
	if (!(p = popen(cmd, "r")))
		return -1;
	out[0] = '\0';
	if (fgets(out, (int)outlen, p))
		out[strcspn(out, "\n")] = '\0';
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char xml_check[] =
	"import sys,xml.dom.minidom\n"
	"b=open(sys.argv[1],encoding=\"utf-8\",errors=\"strict\").read()\n"
	"assert b.startswith(\"<!DOCTYPE html>\")\n"
	"xml.dom.minidom.parseString(b[len(\"<!DOCTYPE html>\"):])\n"
	"print(\"ok\")";

static const char csv_count[] =
	"import sys,csv\n"
	"rows=list(csv.reader(open(sys.argv[1],newline=\"\",encoding=\"utf-8\")))\n"
	"assert all(len(r)==len(rows[0]) for r in rows)\n"
	"print(len(rows)-1)";

static const char csv_label2[] =
	"import sys,csv\n"
	"rows=list(csv.reader(open(sys.argv[1],newline=\"\",encoding=\"utf-8\")))\n"
	"print(rows[2][1])";


static struct web_server *start(struct web_config *c, char *err, size_t errlen)
{
	c->db_path = g_db;
	c->version = "test<v>";
	c->no_socket_activation = 1;
	return web_open(c, err, errlen);
}

/* ---------------------------------------------------------------- pages */

/*
 * Samples without the request's columns (a DB written before schema 7): the headline's first card
 * says so in one line and points at the per-zone section, instead of "no samples" as a figure.
 * A copy of the test DB with run 1's request columns and rollups cleared, served by a second server.
 */
/* /runs filters by label, kernel and host (case-insensitive substrings), each run listed or not. */
static void test_runs_filter(unsigned port)
{
	static const struct { const char *q; int r1, r2, r3; } f[] = {
		{ "/runs?kernel=6.1", 1, 0, 0 },
		{ "/runs?kernel=6.6.0-NEW", 0, 1, 1 },
		{ "/runs?label=CURR", 0, 0, 1 },
		{ "/runs?label=%3Cscript%3E", 1, 0, 0 },
		{ "/runs?host=host%3C1&kernel=new", 0, 1, 1 },
		{ "/runs?host=elsewhere", 0, 0, 0 },
	};
	struct resp r;

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		int ok = req(port, "GET", f[i].q, &r) == 0 && r.status == 200 &&
			 body_has(&r, "<a href=\"/runs/1\">1</a>") == f[i].r1 &&
			 body_has(&r, "<a href=\"/runs/2\">2</a>") == f[i].r2 &&
			 body_has(&r, "<a href=\"/runs/3\">3</a>") == f[i].r3 &&
			 body_has(&r, "No run matches.") == !(f[i].r1 || f[i].r2 || f[i].r3);
		T_CHECK(ok, "%s lists runs%s%s%s%s", f[i].q, f[i].r1 ? " 1" : "", f[i].r2 ? " 2" : "", f[i].r3 ? " 3" : "",
			f[i].r1 || f[i].r2 || f[i].r3 ? "" : " none (No run matches.)");
		resp_free(&r);
	}
}

static void test_no_request(void)
{
	struct web_config c = { .listen = "127.0.0.1:0", .version = "test", .no_socket_activation = 1 };
	struct web_server *ws;
	struct resp r;
	char path[300], cmd[700], err[256];

	snprintf(path, sizeof path, "%s/noreq.db", g_dir);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", g_db, path);
	T_EQ_I(system(cmd), 0, "copy the test DB");
	/* Run 3 relabelled as run 1: its page links to comparing it with run 1, the previous run so labelled. */
	testdb_cli(path, "UPDATE runs SET label = (SELECT label FROM runs WHERE run_id = 1) WHERE run_id = 3");
	testdb_cli(path, "UPDATE samples SET req_id = NULL WHERE run_id = 1; DELETE FROM request_rollup WHERE run_id = 1");
	T_EQ_I(testdb_cli(path, "SELECT count(*) FROM v_atomic_request WHERE run_id = 1"), 0,
	       "run 1 of the copy has no request-level sample");
	c.db_path = path;
	ws = web_open(&c, err, sizeof err);
	T_CHECK(ws != NULL, "web_open on the copy (%s)", ws ? "" : err);
	if (!ws)
		return;
	T_CHECK(req(web_port(ws), "GET", "/runs/1", &r) == 0 && r.status == 200 &&
		body_has(&r, "No request-level sample in this run") && body_has(&r, "href=\"#atomic\"") &&
		!body_has(&r, "no samples</span>"), "headline without request samples: one line saying why, no empty figure");
	resp_free(&r);
	T_CHECK(req(web_port(ws), "GET", "/runs/3", &r) == 0 && r.status == 200 &&
		body_has(&r, "<a href=\"/compare?a=1&amp;b=3\">with run 1, the previous run labelled \"&lt;script&gt;"),
		"run 3 links to comparing it with run 1, the previous run with its label");
	resp_free(&r);
	T_CHECK(req(web_port(ws), "GET", "/runs/1", &r) == 0 && body_has(&r, "no earlier run has this label"),
		"run 1, the first with that label, says no earlier run has it");
	resp_free(&r);
	web_close(ws);
}

/* The environment table names the Xen domain only when the run recorded one (012_domu.sql).
 * Run 2 is marked a domU before the server opens the DB (it reads an idle DB as immutable). */
static void test_xen_domain(unsigned port)
{
	struct resp r;

	T_CHECK(req(port, "GET", "/runs/2", &r) == 0 && r.status == 200 &&
		body_has(&r, "<tr><th>Xen domain</th><td>domU (domain id 5)</td></tr>"), "/runs/2 names its domU and id");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/runs/1", &r) == 0 && r.status == 200 && !body_has(&r, "Xen domain"),
		"/runs/1 (no domain recorded) has no Xen domain row");
	resp_free(&r);
}

static void test_pages(unsigned port)
{
	struct resp r, h;
	char v[512], exp[1024], out[256];
	int64_t last = testdb_ts(3, TDB_N2 - 1);

	T_CHECK(req(port, "GET", "/", &r) == 0 && r.status == 200, "GET / is 200");
	T_CHECK(header(&r, "Content-Type", v, sizeof v) && strcmp(v, "text/html; charset=utf-8") == 0, "/ is HTML (%s)", v);
	T_CHECK(header(&r, "Content-Security-Policy", v, sizeof v) && strstr(v, "default-src 'none'"), "/ has a CSP");
	T_EQ_S(py(&r, xml_check, out, sizeof out) == 0 ? out : out, "ok", "/ is valid UTF-8 and well-formed XML");
	T_CHECK(body_has(&r, "<h1>Current run: 3</h1>") &&
		body_has(&r, "<strong class=\"st st-running\">running</strong> &#183; current"),
		"/ shows the newest run, running, in its state line");
	T_CHECK(body_has(&r, "healthy: sampling &lt;1s&gt; &amp; well"), "/ shows the status line, escaped");
	snprintf(exp, sizeof exp, ", %lld samples, ", testdb_cli(g_db, "SELECT COUNT(*) FROM samples WHERE run_id=3"));
	T_CHECK(body_has(&r, exp), "/ sample count = CLI count (%s)", exp);
	T_CHECK(body_has(&r, "id=\"h-atomic\"") && body_has(&r, "id=\"h-headroom\"") && body_has(&r, "id=\"h-probes\"") &&
		body_has(&r, "id=\"h-failures\"") && body_has(&r, "id=\"h-churn\""), "/ opens with the five headline figures");
	snprintf(exp, sizeof exp, "<p><span class=\"big\">%lld</span> page allocation failure",
		 testdb_cli(g_db, "SELECT COUNT(*) FROM v_alloc_failures WHERE run_id=3"));
	T_CHECK(body_has(&r, exp), "headline: allocation failures of run 3 = CLI count (%s)", exp);
	snprintf(exp, sizeof exp, "<p>%lld spawned</p>", testdb_cli(g_db, "SELECT sum(spawned) FROM v_churn WHERE run_id=3"));
	T_CHECK(body_has(&r, exp), "headline: spawned workers of run 3 = CLI sum (%s)", exp);
	T_CHECK(body_has(&r, "<svg class=\"spark\"") && body_has(&r, "Free memory, node 0 zone Normal"),
		"/ has sparklines and charts");
	(void)last;
	/* HEAD: same headers and length, no body */
	T_CHECK(req(port, "HEAD", "/", &h) == 0 && h.status == 200 && h.blen == 0, "HEAD / is 200 without a body");
	T_CHECK(header(&h, "Content-Length", v, sizeof v) && (size_t)atol(v) == r.blen,
		"HEAD Content-Length %s = GET body length %zu", v, r.blen);
	resp_free(&h);
	resp_free(&r);

	T_CHECK(req(port, "GET", "/runs", &r) == 0 && r.status == 200, "GET /runs is 200");
	T_EQ_S(py(&r, xml_check, out, sizeof out) == 0 ? out : out, "ok", "/runs is well-formed XML");
	T_CHECK(body_has(&r, "&lt;script&gt;alert(1)&lt;/script&gt; &quot;q&quot; &#39;a&#39; &amp; "
			 "\xef\xbf\xbd\xef\xbf\xbd end"), "hostile label escaped, invalid bytes as U+FFFD");
	T_CHECK(!body_has(&r, "<script"), "no <script in /runs");
	snprintf(exp, sizeof exp, "<td>stopped</td><td class=\"n\">%lld</td>",
		 testdb_cli(g_db, "SELECT COUNT(*) FROM samples WHERE run_id=1"));
	T_CHECK(body_has(&r, exp), "run 1: end reason and CLI sample count");
	T_CHECK(body_has(&r, "<td>running</td><td class=\"n\">300</td>") &&
		body_has(&r, "<td>crash</td><td class=\"n\">0</td>"), "runs 3 and 2: state and samples");
	T_CHECK(body_has(&r, "<td class=\"n\">9m 59s</td>"), "run 1 duration 599.5 s shown as 9m 59s");
	resp_free(&r);

	T_CHECK(req(port, "GET", "/runs/1", &r) == 0 && r.status == 200, "GET /runs/1 is 200");
	T_EQ_S(py(&r, xml_check, out, sizeof out) == 0 ? out : out, "ok", "/runs/1 is well-formed XML");
	T_CHECK(body_has(&r, "root=/dev/xvda1 eagerfpu=on &quot;&gt;&lt;img src=x onerror=alert(1)&gt;") &&
		!body_has(&r, "<img"), "hostile cmdline escaped");
	T_CHECK(body_has(&r, "<title>Free memory, node 1 zone Mo&quot;v&lt;b&gt;</title>"),
		"a chart per zone, hostile zone name escaped");
	T_CHECK(body_has(&r, "Unusable free space index, node 0 zone DMA32"), "heatmap per zone");
	T_CHECK(!body_has(&r, "Not in this database"), "every section has its table");
	T_CHECK(body_has(&r, "<pre>sample_interval=1s\nlabel=&lt;x&gt;</pre>"), "config shown, escaped");
	T_CHECK(body_has(&r, "<td>2024-06-01 12:01:40</td><td>&lt;script&gt;alert(1)&lt;/script&gt;\xef\xbf\xbd</td>"
			 "<td class=\"n\">1234</td><td class=\"n\">3</td><td>GFP_KERNEL|__GFP_COMP</td><td><code>0x140cc0</code>"),
		"allocation failure row: time, hostile COMM escaped (invalid byte as U+FFFD), pid, order, GFP");
	T_CHECK(body_has(&r, "<summary>3 allocation failures in this window</summary>"), "failure count = 3 alloc_fail rows");
	T_CHECK(body_has(&r, "<nav class=\"toc\">") && body_has(&r, "<section id=\"headroom\">") &&
		body_has(&r, "<a href=\"#headroom\">"), "a table of contents with anchors");
	T_CHECK(body_has(&r, "<details id=\"environment\"><summary>Environment and configuration"),
		"the environment folded away");
	T_CHECK(body_has(&r, "<a href=\"/compare?a=") || body_has(&r, "<select name=\"a\">"), "a run picker");
	T_CHECK(body_has(&r, "action=\"/runs/1\"") && body_has(&r, "name=\"from\" step=\"1\" value=\"2024-06-01T12:00:00\""),
		"window form prefilled with the run's extent, to the second");
	resp_free(&r);

	T_CHECK(req(port, "GET", "/runs/1?from=2024-06-01T12:05&to=1717243559000", &r) == 0 && r.status == 200,
		"a window in ISO and epoch ms");
	T_CHECK(body_has(&r, "show 2024-06-01 12:05:00 to 2024-06-01 12:05:59."), "window shown");
	T_EQ_S(py(&r, xml_check, out, sizeof out) == 0 ? out : out, "ok", "windowed page is well-formed XML");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/runs/2", &r) == 0 && r.status == 200 &&
		body_has(&r, "No buddyinfo sample in this window.") && body_has(&r, "No minute rollup yet"),
		"a run without samples renders, each empty section saying why");
	T_CHECK(body_has(&r, "=cmd|&#39; /C calc&#39;!A0"), "formula label escaped in HTML");
	resp_free(&r);
}

/* ---------------------------------------------------------------- API */

static cJSON *get_json(unsigned port, const char *target, int want, struct resp *r)
{
	char v[128];
	cJSON *j;

	if (req(port, "GET", target, r) != 0 || r->status != want)
		return NULL;
	if (!header(r, "Content-Type", v, sizeof v) || strcmp(v, "application/json") != 0)
		return NULL;
	j = cJSON_ParseWithLength(r->body, r->blen);
	return j;
}

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(x) ? x->valuedouble : -12345;
}

static void test_api(unsigned port)
{
	struct resp r;
	cJSON *j, *x;
	char out[256], v[256];

	j = get_json(port, "/api/v1/status", 200, &r);
	T_CHECK(j != NULL, "/api/v1/status is JSON");
	x = cJSON_GetObjectItemCaseSensitive(j, "latest_run");
	T_CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "healthy")), "status: healthy");
	T_EQ_S(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "status")), "sampling <1s> & well", "status line");
	T_EQ_I(jnum(j, "schema_version"), testdb_cli(g_db, "PRAGMA user_version"), "schema version = CLI");
	T_EQ_I(jnum(x, "run_id"), 3, "latest run 3");
	T_EQ_I(jnum(x, "samples"), testdb_cli(g_db, "SELECT COUNT(*) FROM samples WHERE run_id=3"), "its samples = CLI");
	cJSON_Delete(j);
	resp_free(&r);

	j = get_json(port, "/api/v1/runs", 200, &r);
	x = cJSON_GetObjectItemCaseSensitive(j, "runs");
	T_EQ_I(cJSON_GetArraySize(x), testdb_cli(g_db, "SELECT COUNT(*) FROM runs"), "/api/v1/runs lists every run");
	T_EQ_S(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 2), "label")),
	       tdb_label1_utf8, "hostile label survives JSON with invalid bytes as U+FFFD");
	T_CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "ended_at")),
		"a running run has ended_at null");
	cJSON_Delete(j);
	resp_free(&r);

	T_CHECK(req(port, "GET", "/api/v1/runs.csv", &r) == 0 && r.status == 200, "/api/v1/runs.csv is 200");
	T_CHECK(header(&r, "Content-Type", v, sizeof v) && strcmp(v, "text/csv; charset=utf-8") == 0, "CSV type");
	T_CHECK(header(&r, "Content-Disposition", v, sizeof v) && strstr(v, "runs.csv"), "CSV file name");
	T_EQ_S(py(&r, csv_count, out, sizeof out) == 0 ? out : out, "3", "runs CSV: 3 rows (python csv)");
	T_EQ_S(py(&r, csv_label2, out, sizeof out) == 0 ? out : out, "'=cmd|' /C calc'!A0",
	       "formula label neutralised with a leading quote");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/api/v1/runs?format=csv", &r) == 0 && r.status == 200 &&
		py(&r, csv_count, out, sizeof out) == 0 && strcmp(out, "3") == 0, "?format=csv works too");
	resp_free(&r);

	j = get_json(port, "/api/v1/runs/1", 200, &r);
	T_EQ_I(jnum(j, "samples"), testdb_cli(g_db, "SELECT COUNT(*) FROM samples WHERE run_id=1"), "run 1 samples = CLI");
	T_EQ_S(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "cmdline")), tdb_cmdline1, "cmdline as stored");
	x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "latest_buddyinfo"), "zones");
	T_EQ_I(cJSON_GetArraySize(x), 4, "latest buddyinfo: 4 zones");
	T_EQ_I(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 2), "free_blocks"), 3)->valuedouble,
	       testdb_cli(g_db, "SELECT o3 FROM buddy WHERE run_id=1 AND zone_id=3 ORDER BY ts_ms DESC LIMIT 1"),
	       "latest Normal order 3 = CLI");
	cJSON_Delete(j);
	resp_free(&r);

	j = get_json(port, "/api/v1/runs/1/buddyinfo?max_points=10000", 200, &r);
	x = cJSON_GetObjectItemCaseSensitive(j, "zones");
	T_EQ_I(cJSON_GetArraySize(x), 4, "buddyinfo: 4 zones");
	{
		int ok = cJSON_GetArraySize(x) == 4;
		for (int z = 0; z < 4 && ok; z++) {
			cJSON *pts = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, z), "points");
			ok &= cJSON_GetArraySize(pts) == TDB_N1;
			for (int i = 0; i < TDB_N1 && ok; i++) {
				cJSON *p = cJSON_GetArrayItem(pts, i);
				ok &= cJSON_GetArraySize(p) == 1 + TDB_NORDERS &&
				      (int64_t)cJSON_GetArrayItem(p, 0)->valuedouble == testdb_ts(1, i);
				for (int k = 0; k < TDB_NORDERS && ok; k++)
					ok &= cJSON_GetArrayItem(p, 1 + k)->valuedouble == (double)testdb_free(1, i, z + 1, k);
			}
		}
		T_CHECK(ok, "buddyinfo JSON at full resolution: every value equals the formula");
	}
	cJSON_Delete(j);
	resp_free(&r);
	j = get_json(port, "/api/v1/runs/1/buddyinfo?max_points=7", 200, &r);
	x = cJSON_GetObjectItemCaseSensitive(j, "zones");
	T_CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "points")) == 7 &&
		jnum(j, "max_points") == 7, "max_points=7: 7 buckets of ceil(599001 / 7) ms per zone");
	cJSON_Delete(j);
	resp_free(&r);

	T_CHECK(req(port, "GET", "/api/v1/runs/1/buddyinfo.csv?max_points=10000", &r) == 0 && r.status == 200,
		"buddyinfo CSV");
	snprintf(v, sizeof v, "%lld", testdb_cli(g_db, "SELECT COUNT(*) FROM v_buddyinfo WHERE run_id=1"));
	T_EQ_S(py(&r, csv_count, out, sizeof out) == 0 ? out : out, v, "CSV rows = v_buddyinfo rows (CLI)");
	T_CHECK(body_has(&r, "\r\n1717243200000,2024-06-01T12:00:00.000Z,1,\"Mo\"\"v<b>\",0,"),
		"CSV: zone with a quote is quoted and doubled");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/api/v1/runs/1/buddyinfo?format=csv&from=1717243200000&to=1717243209999", &r) == 0 &&
		py(&r, csv_count, out, sizeof out) == 0 && strcmp(out, "440") == 0,
		"10-second window: 10 ticks x 4 zones x 11 orders = 440 rows (%s)", out);
	resp_free(&r);

	j = get_json(port, "/api/v1/runs/1/failures", 200, &r);
	x = cJSON_GetObjectItemCaseSensitive(j, "failures");
	T_EQ_I(jnum(j, "total"), testdb_cli(g_db, "SELECT COUNT(*) FROM v_alloc_failures WHERE run_id=1"), "failures total = CLI");
	T_EQ_S(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 2), "comm")),
	       "<script>alert(1)</script>\xef\xbf\xbd", "failure comm in JSON: valid UTF-8, U+FFFD for the bad byte");
	cJSON_Delete(j);
	resp_free(&r);
	T_CHECK(req(port, "GET", "/api/v1/runs/1/failures.csv", &r) == 0 && r.status == 200 &&
		py(&r, csv_count, out, sizeof out) == 0 && strcmp(out, "3") == 0, "failures CSV: 3 rows (%s)", out);
	T_CHECK(body_has(&r, ",\"'=evil,\"\"x\"\"\","), "a formula-like COMM is neutralised and quoted in CSV");
	resp_free(&r);

	j = get_json(port, "/api/v1/runs/1/meminfo?name=MemFree&max_points=10000", 200, &r);
	x = cJSON_GetObjectItemCaseSensitive(j, "points");
	T_EQ_I(cJSON_GetArraySize(x), testdb_cli(g_db, "SELECT COUNT(*) FROM v_meminfo WHERE run_id=1 AND name='MemFree'"),
	       "meminfo points = CLI rows");
	T_EQ_I(cJSON_GetArrayItem(cJSON_GetArrayItem(x, 5), 1)->valuedouble, 4000000 - 500, "MemFree at tick 5");
	cJSON_Delete(j);
	resp_free(&r);
	T_CHECK(req(port, "GET", "/api/v1/runs/1/meminfo.csv?name=MemAvailable&max_points=10000", &r) == 0 &&
		py(&r, csv_count, out, sizeof out) == 0 && strcmp(out, "600") == 0, "meminfo CSV: 600 rows");
	resp_free(&r);

	j = get_json(port, "/api/v1/runs/1/vmstat?name=compact_stall&max_points=10000", 200, &r);
	x = cJSON_GetObjectItemCaseSensitive(j, "points");
	{
		double integral = 0, prev = (double)TDB_T1;
		for (int i = 0; i < cJSON_GetArraySize(x); i++) {
			cJSON *p = cJSON_GetArrayItem(x, i);
			integral += cJSON_GetArrayItem(p, 1)->valuedouble * (cJSON_GetArrayItem(p, 0)->valuedouble - prev) / 1000;
			prev = cJSON_GetArrayItem(p, 0)->valuedouble;
		}
		T_CHECK(fabs(integral - (double)(testdb_stall(TDB_N1 - 1) - testdb_stall(0))) < 1e-6,
			"vmstat rates integrate to the counter increase (%.3f)", integral);
	}
	T_EQ_S(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "unit")), "per_second", "vmstat unit");
	cJSON_Delete(j);
	resp_free(&r);
}


/* ---------------------------------------------------------------- the report's sections, compare, new API */

static const char json_probe_detail[] =
	"import sys,json\n"
	"d=json.load(open(sys.argv[1],encoding=\"utf-8\"))\n"
	"print(d[\"probes\"][0][\"detail\"])";

static void test_report_sections(unsigned port)
{
	struct resp r;
	char exp[512], out[256], v[64];
	cJSON *j, *x;

	T_CHECK(req(port, "GET", "/runs/1", &r) == 0 && r.status == 200, "GET /runs/1");
	/* 2: headroom */
	T_CHECK(body_has(&r, "<strong>3</strong>, the task_struct slab&#39;s order (slabinfo: 6592-byte objects in slabs "
			 "of 8 pages") || body_has(&r, "<strong>3</strong>, the task_struct slab's order (slabinfo: 6592-byte objects in slabs of 8 pages"),
		"headroom: task_struct order 3 from slabinfo (6592 bytes, 8 pages)");
	T_CHECK(body_has(&r, "<title>Headroom at order 3 (task_struct slab)</title>") &&
		body_has(&r, "<title>Headroom at order 9 (pageblock)</title>"), "a headroom chart per order of interest");
	T_CHECK(body_has(&r, "stroke-dasharray"), "trend lines drawn dashed");
	snprintf(exp, sizeof exp, "<td>Normal</td><td class=\"n\">10</td>");
	T_CHECK(body_has(&r, exp), "trend table: Normal fitted on 10 minutes");
	T_CHECK(body_has(&r, "<tr><td class=\"n\">3</td><td>1</td><td>Mo&quot;v&lt;b&gt;</td><td class=\"n\">10</td>"),
		"trend table: hostile zone name escaped");
	/* 3: the heatmap's values come from v_frag (no other formula in the page) */
	T_CHECK(body_has(&r, "worst per interval"), "unusable heatmap: worst value per interval");
	/* 4: churn totals = CLI sums */
	snprintf(exp, sizeof exp, "<tr><td>workers spawned</td><td class=\"n\">%lld</td>",
		 testdb_cli(g_db, "SELECT sum(spawned) FROM v_churn WHERE run_id=1"));
	T_CHECK(body_has(&r, exp), "churn: spawned = CLI sum (%s)", exp);
	snprintf(exp, sizeof exp, "ENOMEM (fork could not allocate, e.g. task_struct)</td><td class=\"n\">%lld</td>",
		 testdb_cli(g_db, "SELECT sum(spawn_failed_enomem) FROM v_churn WHERE run_id=1"));
	T_CHECK(body_has(&r, exp), "churn: ENOMEM failures = CLI sum");
	T_CHECK(body_has(&r, "<title>Spawn failures by errno</title>") && body_has(&r, "<title>Worker deaths by signal, and OOM kills</title>"),
		"churn charts");
	/* 5: probes */
	T_CHECK(body_has(&r, "<title>Capacity probes</title>") && body_has(&r, "<title>FPU-cost probes</title>"), "probe charts");
	T_CHECK(body_has(&r, " 5 probes in this window; trend: too few data (n=5; needs 6).") && !body_has(&r, " 5 probes; trend "),
		"5 probes: too few for a trend, said with the counts (issue 31: 3 probes were a 'significant' trend)");
	T_CHECK(body_has(&r, "<code>&lt;b&gt;held=256&lt;/b&gt; &amp; &quot;x&quot;</code>") && !body_has(&r, "<b>held"),
		"probe detail escaped");
	/* 6: failures timeline */
	T_CHECK(body_has(&r, "<title>Allocation failures over time</title>"), "failure timeline chart");
	{
		/* three dots (orders 3, 0, 9), all in the "other GFP" group */
		const char *g = r.body ? memmem(r.body, r.blen, "<title>other GFP (may sleep)</title>", 36) : NULL;
		int dots = 0;
		for (const char *p = g; p && (p = strstr(p, "<circle")) && p < strstr(g, "</g>"); p++)
			dots++;
		T_EQ_I(dots, 3, "three failure dots for run 1's three alloc_fail events");
	}
	/* 8: slab and pagetype */
	T_CHECK(body_has(&r, "task_struct: <strong>6592-byte</strong> objects in <strong>order-3</strong>"), "task_struct line");
	T_CHECK(body_has(&r, "<td>&lt;img src=x&gt;</td>") && !body_has(&r, "<img"), "hostile slab name escaped");
	T_CHECK(body_has(&r, "<td>Movable</td><td class=\"n\">&gt;100000</td>"), "capped pagetypeinfo count shown as >100000");
	T_CHECK(body_has(&r, "pageblock order 9</caption>"), "pagetypeinfo at the latest slow sample, pageblock order");
	/* 9: atomic risk, hand: Normal order 3 fails atomically at i % 10 < 2: 120 of 600 samples */
	T_CHECK(body_has(&r, "<td>Normal</td><td class=\"n\">600</td><td class=\"n\"><strong>20%</strong> (120)</td>"),
		"atomic risk: Normal order 3 at risk 20%% of 600 samples (120)");
	T_CHECK(body_has(&r, "<td>DMA</td><td class=\"n\">600</td><td class=\"n\"><strong>0%</strong> (0)</td><td class=\"n\">100%</td><td class=\"n\">100%</td>"),
		"atomic risk: DMA order 9: both fail all the time, so never atomic-only");
	T_CHECK(body_has(&r, "<title>Atomic-only failures at order 3</title>"), "atomic risk chart");
	T_EQ_S(py(&r, xml_check, out, sizeof out) == 0 ? out : out, "ok", "/runs/1 with every section is well-formed XML");
	resp_free(&r);

	/* compare */
	T_CHECK(req(port, "GET", "/compare?a=1&b=3", &r) == 0 && r.status == 200, "GET /compare?a=1&b=3");
	T_EQ_S(py(&r, xml_check, out, sizeof out) == 0 ? out : out, "ok", "/compare is well-formed XML");
	T_CHECK(body_has(&r, "capacity: 254 vs 229 (-9.8%), HL shift -25 [-30, -21], Mann-Whitney\n  p=0.0079: significant\n"),
		"compare: the capacity verdict line (worked by hand in test_report.c)");
	T_CHECK(body_has(&r, "&lt;script&gt;alert(1)&lt;/script&gt;") && !body_has(&r, "<script"), "compare: hostile label escaped");
	T_CHECK(body_has(&r, "<title>Headroom at order 3 (task_struct slab), node 0 zone ") &&
		body_has(&r, "<title>Capacity probes</title>") && body_has(&r, "time since the run's start"),
		"compare: overlaid headroom and probe charts on an elapsed-time axis");
	T_CHECK(body_has(&r, "<a href=\"/runs/1\">A: run 1</a>"), "compare links to each run");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/compare?a=1", &r) == 0 && r.status == 400, "/compare without b: 400");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/compare?a=1&b=999", &r) == 0 && r.status == 404, "/compare with an unknown run: 404");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/compare?a=1&b=x", &r) == 0 && r.status == 400, "/compare with a bad id: 400");
	resp_free(&r);

	j = get_json(port, "/api/v1/compare?a=1&b=3", 200, &r);
	x = cJSON_GetObjectItemCaseSensitive(j, "comparisons");
	T_CHECK(j && cJSON_GetArraySize(x) >= 8, "/api/v1/compare: JSON with the comparison lines");
	T_EQ_S(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "verdict")),
	       "capacity: 254 vs 229 (-9.8%), HL shift -25 [-30,-21]: significant", "API verdict = page verdict");
	T_CHECK(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "ci95")) &&
		jnum(cJSON_GetArrayItem(x, 0), "p") > 0.0079 && jnum(cJSON_GetArrayItem(x, 0), "p") < 0.0080,
		"API: CI and p (2/252)");
	T_CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "comparable")) &&
		cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "caveats")),
		"API: each line carries comparable and caveats[]");
	T_EQ_S(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "word")), "significant",
	       "API: the line's word");
	T_EQ_S(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "line")),
	       "capacity: 254 vs 229 (-9.8%), HL shift -25 [-30, -21], Mann-Whitney p=0.0079: significant",
	       "API: the whole line, every number");
	{
		cJSON *pc = cJSON_GetObjectItemCaseSensitive(j, "caveats");
		int meant = 0;
		for (int i = 0; i < cJSON_GetArraySize(pc); i++)
			meant += strstr(cJSON_GetStringValue(cJSON_GetArrayItem(pc, i)), "6.1.0-old (A) vs 6.6.0-new (B), as meant") != NULL;
		T_CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "comparable")) && meant == 1,
			"API: the pair is comparable, and the kernels differ as meant (a caveat, never a refusal)");
		int fpu = -1;
		for (int i = 0; i < cJSON_GetArraySize(x); i++)
			if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, i), "label")),
				    "FPU cost us/yield"))
				fpu = i;
		T_EQ_S(fpu >= 0 ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, fpu), "word")) : NULL,
		       "too few data (n=2+2 probes; needs 4+4)", "API: 2 FPU-cost probes a side are too few data, said so");
	}
	cJSON_Delete(j);
	resp_free(&r);
	j = get_json(port, "/api/v1/compare?a=1&b=999", 404, &r);
	T_CHECK(j && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "error")), "/api/v1/compare unknown run: 404 JSON");
	cJSON_Delete(j);
	resp_free(&r);

	/* /api/v1/runs/{id}: headroom trends (2 orders x 4 zones) */
	j = get_json(port, "/api/v1/runs/1", 200, &r);
	T_EQ_I(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "headroom_trends")), 8, "run JSON: 8 headroom trends");
	T_EQ_I(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "orders_of_interest")), 2, "run JSON: 2 orders of interest");
	cJSON_Delete(j);
	resp_free(&r);

	/* frag: full resolution equals v_frag */
	T_CHECK(req(port, "GET", "/api/v1/runs/1/frag.csv?max_points=10000", &r) == 0 && r.status == 200, "frag CSV");
	snprintf(v, sizeof v, "%lld", testdb_cli(g_db, "SELECT COUNT(*) FROM v_frag WHERE run_id=1"));
	T_EQ_S(py(&r, csv_count, out, sizeof out) == 0 ? out : out, v, "frag CSV rows = v_frag rows (CLI)");
	{
		long long u = testdb_cli(g_db, "SELECT unusable_x1000 FROM v_frag WHERE run_id=1 AND zone='Normal' AND page_order=5 "
				     "AND ts_ms=1717243300000");
		long long h = testdb_cli(g_db, "SELECT headroom_blocks FROM v_frag WHERE run_id=1 AND zone='Normal' AND page_order=5 "
				     "AND ts_ms=1717243300000");
		snprintf(exp, sizeof exp, "\r\n1717243300000,2024-06-01T12:01:40.000Z,0,Normal,5,%g,-1,%lld\r\n", u / 1000.0, h);
		T_CHECK(body_has(&r, exp), "frag CSV row = v_frag (%s)", exp + 2);
	}
	resp_free(&r);
	j = get_json(port, "/api/v1/runs/1/frag?max_points=5", 200, &r);
	x = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "zones"), 0);
	T_CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "unusable_index")) == 5 &&
		cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "headroom_blocks")) == 5, "frag JSON: 5 buckets per zone");
	cJSON_Delete(j);
	resp_free(&r);

	/* churn */
	T_CHECK(req(port, "GET", "/api/v1/runs/1/churn.csv?max_points=10000", &r) == 0 && r.status == 200 &&
		py(&r, csv_count, out, sizeof out) == 0 && strcmp(out, "600") == 0, "churn CSV: 600 rows (%s)", out);
	resp_free(&r);
	j = get_json(port, "/api/v1/runs/3/churn?max_points=10000", 200, &r);
	x = cJSON_GetObjectItemCaseSensitive(j, "points");
	{
		double sum = 0;
		for (int i = 0; i < cJSON_GetArraySize(x); i++)
			sum += cJSON_GetArrayItem(cJSON_GetArrayItem(x, i), 5)->valuedouble;   /* ts, span, pop, popmax, spawned, eagain */
		T_EQ_I((long long)sum, testdb_cli(g_db, "SELECT sum(spawn_failed_eagain) FROM v_churn WHERE run_id=3"),
		       "churn JSON: EAGAIN column sums to the CLI's");
	}
	cJSON_Delete(j);
	resp_free(&r);

	/* probes */
	T_CHECK(req(port, "GET", "/api/v1/runs/1/probes", &r) == 0 && r.status == 200, "probes JSON");
	T_EQ_S(py(&r, json_probe_detail, out, sizeof out) == 0 ? out : out, "<b>held=256</b> & \"x\"",
	       "probe detail survives JSON exactly (python json)");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/api/v1/runs/1/probes.csv?name=capacity", &r) == 0 && r.status == 200 &&
		py(&r, csv_count, out, sizeof out) == 0 && strcmp(out, "5") == 0, "probes CSV, name=capacity: 5 rows (%s)", out);
	resp_free(&r);
	T_CHECK(req(port, "GET", "/api/v1/runs/1/probes?name=bogus", &r) == 0 && r.status == 400, "probes name=bogus: 400");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/api/v1/runs/999/churn", &r) == 0 && r.status == 404, "churn of an unknown run: 404");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/compare.csv?a=1&b=3", &r) == 0 && r.status == 404, "/compare has no CSV form: 404");
	resp_free(&r);
}

/* ---------------------------------------------------------------- errors */

struct bad {
	const char *method, *target;
	int status;
	int json;
};

static void test_errors(unsigned port)
{
	static const struct bad cases[] = {
		{ "GET", "/nope", 404, 0 },
		{ "GET", "/api/v1/nope", 404, 1 },
		{ "GET", "/runs/", 404, 0 },
		{ "GET", "/runs/999", 404, 0 },
		{ "GET", "/api/v1/runs/999", 404, 1 },
		{ "GET", "/api/v1/runs/999/buddyinfo", 404, 1 },
		{ "GET", "/runs/abc", 400, 0 },
		{ "GET", "/runs/-1", 400, 0 },
		{ "GET", "/runs/0", 400, 0 },
		{ "GET", "/runs/01", 400, 0 },
		{ "GET", "/runs/99999999999999999999", 400, 0 },
		{ "GET", "/api/v1/runs/1/buddyinfo?max_points=0", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?max_points=10001", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?max_points=1e3", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?max_points=+5", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?from=-1", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?from=01", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?from=99999999999999999999", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?from=abc", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?to=2024-13-01", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?to=2023-02-29T00:00", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?from=5&from=6", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?from=1717243300000&to=1717243200000", 400, 1 },
		{ "GET", "/runs/1?from=1717243300000&to=1717243200000", 400, 0 },
		{ "GET", "/api/v1/runs/1/buddyinfo?from=%zz", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?from=1%00", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo?format=xml", 400, 1 },
		{ "GET", "/api/v1/runs/1?format=csv", 400, 1 },
		{ "GET", "/api/v1/runs/1/buddyinfo.csv?format=json", 400, 1 },
		{ "GET", "/runs?format=json", 400, 0 },
		{ "GET", "/runs/1.csv", 404, 0 },
		{ "GET", "/%00", 400, 0 },
		{ "GET", "/runs/%zz", 400, 0 },
		{ "GET", "/api/v1/runs/1/meminfo", 400, 1 },
		{ "GET", "/api/v1/runs/1/meminfo?name=NoSuch", 404, 1 },
		{ "GET", "/api/v1/runs/1/meminfo?name=a;b", 400, 1 },
		{ "GET", "/api/v1/runs/1/vmstat?name=MemFree", 404, 1 },
		{ "GET", "/?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13&n=14&o=15&p=16&q=17", 400, 0 },
		{ "POST", "/", 405, 0 },
		{ "DELETE", "/api/v1/runs", 405, 1 },
		{ "PUT", "/metrics", 405, 0 },
	};
	static const struct { const char *target; int status; } ok[] = {
		{ "/runs/%31", 200 }, { "/?utm_source=x", 200 }, { "/api/v1/runs/1/buddyinfo?from=&to=&max_points=", 200 },
		{ "/api/v1/runs?&&", 200 }, { "/runs?format=html", 200 },
	};
	struct resp r;
	char v[256], *big;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct bad *c = &cases[i];
		int got = req(port, c->method, c->target, &r) == 0;
		int json_ok = 0;
		if (got && c->json) {
			cJSON *j = cJSON_ParseWithLength(r.body, r.blen);
			json_ok = header(&r, "Content-Type", v, sizeof v) && strcmp(v, "application/json") == 0 &&
				  cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "error"));
			cJSON_Delete(j);
		} else if (got) {
			json_ok = header(&r, "Content-Type", v, sizeof v) && strncmp(v, "text/html", 9) == 0 &&
				  body_has(&r, "<title>");
		}
		T_CHECK(got && r.status == c->status && json_ok, "%s %s -> %d %s (got %d)", c->method, c->target,
			c->status, c->json ? "JSON" : "HTML", got ? r.status : -1);
		if (got && c->status == 405)
			T_CHECK(header(&r, "Allow", v, sizeof v) && strcmp(v, "GET, HEAD") == 0, "405 has Allow: GET, HEAD");
		resp_free(&r);
	}
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		T_CHECK(req(port, "GET", ok[i].target, &r) == 0 && r.status == ok[i].status, "GET %s -> %d (got %d)",
			ok[i].target, ok[i].status, r.status);
		resp_free(&r);
	}

	/* over-long values and targets */
	big = malloc(70000);
	memset(big, 'a', 70000);
	memcpy(big, "/?x=", 4);
	big[4 + 200] = '\0';
	T_CHECK(req(port, "GET", big, &r) == 0 && r.status == 400, "a 200-byte parameter value is 400 (got %d)", r.status);
	resp_free(&r);
	big[4 + 200] = 'a';
	big[3000] = '\0';
	T_CHECK(req(port, "GET", big, &r) == 0 && r.status == 414 && body_has(&r, "<h1>414"),
		"a 3000-byte target is our 414 (got %d)", r.status);
	resp_free(&r);
	big[3000] = 'a';
	big[60000] = '\0';
	T_CHECK(req(port, "GET", big, &r) == 0 && r.status == 414, "a 60000-byte target (past the connection "
		"memory) is libmicrohttpd's 414 (got %d)", r.status);
	resp_free(&r);
	free(big);

	/* raw oddities */
	T_CHECK(raw_s(AF_INET, port, "GET /r\xffns HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r) == 0 &&
		r.status >= 400 && r.status < 500, "a raw non-ASCII byte in the path is 4xx (got %d)", r.status);
	resp_free(&r);
	T_CHECK(raw_s(AF_INET, port, "GET http://x/runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r) == 0 &&
		r.status == 200, "absolute-form target is served (got %d)", r.status);
	resp_free(&r);
	T_CHECK(raw_s(AF_INET, port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello", &r) == 0 && r.status == 405, "POST with a body is 405 (got %d)", r.status);
	resp_free(&r);
	T_CHECK(raw_s(AF_INET, port, "garbage\r\n\r\n", &r) == 0 ? r.status >= 400 : 1,
		"a garbage request line gets a 4xx or a close");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/healthz", &r) == 0 && r.status == 200, "server unharmed after hostile requests");
	resp_free(&r);
}

/* ---------------------------------------------------------------- health, status, metrics */

struct scraper {
	unsigned port;
	int bad;
	int n;
};

static void *scrape_loop(void *arg)
{
	struct scraper *s = arg;

	for (int i = 0; i < s->n; i++) {
		struct resp r;
		if (req(s->port, "GET", "/metrics", &r) != 0 || r.status != 200 || r.blen < 10 ||
		    strncmp(r.body, "# metrics ", 10) != 0)
			s->bad++;
		resp_free(&r);
	}
	return NULL;
}

static void test_health_metrics(struct web_server *ws, unsigned port)
{
	struct resp r;
	char v[256];
	struct web_config c = { .listen = "127.0.0.1:0", .health_max_age_ms = 300 };
	struct web_server *ws2;
	char err[256];
	struct scraper s = { port, 0, 200 };
	pthread_t th;
	int64_t t0;

	T_CHECK(req(port, "GET", "/metrics", &r) == 0 && r.status == 503, "/metrics before any publish is 503");
	resp_free(&r);
	T_EQ_I(web_publish_metrics(ws, "# metrics 0\nx 1\n", 16), 0, "publish metrics");
	T_CHECK(req(port, "GET", "/metrics", &r) == 0 && r.status == 200 && r.blen == 16 &&
		memcmp(r.body, "# metrics 0\nx 1\n", 16) == 0, "/metrics serves the published bytes");
	T_CHECK(header(&r, "Content-Type", v, sizeof v) && strcmp(v, "text/plain; version=0.0.4; charset=utf-8") == 0,
		"/metrics content type is the 0.0.4 exposition");
	resp_free(&r);
	/* republish while scraping: a scrape always gets one whole buffer (ASan checks the refcounting) */
	pthread_create(&th, NULL, scrape_loop, &s);
	for (int i = 0; i < 2000; i++) {
		char buf[64];
		int n = snprintf(buf, sizeof buf, "# metrics %d\nx %d\n", i, i);
		web_publish_metrics(ws, buf, (size_t)n);
	}
	pthread_join(th, NULL);
	T_EQ_I(s.bad, 0, "200 scrapes during 2000 republishes: all whole");

	T_CHECK(req(port, "GET", "/healthz", &r) == 0 && r.status == 200 && r.blen == 3 && memcmp(r.body, "ok\n", 3) == 0,
		"/healthz is 200 ok");
	resp_free(&r);
	web_set_health(ws, 0);
	T_CHECK(req(port, "GET", "/healthz", &r) == 0 && r.status == 503, "/healthz is 503 when unhealthy");
	resp_free(&r);
	T_CHECK(req(port, "GET", "/api/v1/status", &r) == 0 && body_has(&r, "\"healthy\":false"), "status says unhealthy");
	resp_free(&r);
	web_set_health(ws, 1);
	T_CHECK(req(port, "GET", "/healthz", &r) == 0 && r.status == 200, "/healthz is 200 again");
	resp_free(&r);
	{
		char longline[WEB_STATUS_MAX + 10];
		memset(longline, 'x', sizeof longline - 1);
		longline[sizeof longline - 1] = '\0';
		T_EQ_I(web_set_status(ws, longline), -1, "an over-long status line is refused");
		T_CHECK(req(port, "GET", "/api/v1/status", &r) == 0 && body_has(&r, "sampling <1s> & well"),
			"and the old status stays");
		resp_free(&r);
	}

	/* staleness: a loop that stops calling web_set_health turns /healthz 503 */
	ws2 = start(&c, err, sizeof err);
	T_CHECK(ws2 != NULL, "second server with health_max_age_ms=300");
	if (ws2) {
		T_CHECK(req(web_port(ws2), "GET", "/healthz", &r) == 0 && r.status == 200, "fresh: 200");
		resp_free(&r);
		usleep(500000);
		T_CHECK(req(web_port(ws2), "GET", "/healthz", &r) == 0 && r.status == 503, "after 500 ms without a call: 503");
		resp_free(&r);
		web_set_health(ws2, 1);
		T_CHECK(req(web_port(ws2), "GET", "/healthz", &r) == 0 && r.status == 200, "a new call: 200");
		resp_free(&r);
		web_close(ws2);
	}

	/* throughput of /metrics, new connection per request (a figure for the report, not a check) */
	t0 = now_ms();
	for (int i = 0; i < 2000; i++) {
		if (req(port, "GET", "/metrics", &r) != 0 || r.status != 200)
			s.bad++;
		resp_free(&r);
	}
	printf("info: 2000 sequential /metrics requests (one connection each) in %lld ms\n", (long long)(now_ms() - t0));
	T_EQ_I(s.bad, 0, "2000 sequential scrapes all 200");
}

/* ---------------------------------------------------------------- limits */

static void test_limits(void)
{
	struct web_config c = { .listen = "127.0.0.1:0", .per_ip_limit = 3, .idle_timeout_s = 1 };
	struct web_server *ws;
	struct resp r;
	char err[256], buf[16];
	int fds[3], extra;
	int64_t t0;

	ws = start(&c, err, sizeof err);
	T_CHECK(ws != NULL, "server with per_ip_limit=3, idle timeout 1 s (%s)", ws ? "" : err);
	if (!ws)
		return;
	for (int i = 0; i < 3; i++)
		fds[i] = connect_to(AF_INET, web_port(ws));
	usleep(100000);
	extra = connect_to(AF_INET, web_port(ws));
	t0 = now_ms();
	T_CHECK(extra >= 0 && recv(extra, buf, sizeof buf, 0) == 0 && now_ms() - t0 < 2000,
		"a 4th connection from the same address is closed at once");
	if (extra >= 0)
		close(extra);
	/* the idle three are closed by the timeout */
	t0 = now_ms();
	{
		ssize_t n = recv(fds[0], buf, sizeof buf, 0);
		int64_t dt = now_ms() - t0;
		T_CHECK(n == 0 && dt >= 300 && dt < 5000, "an idle connection is closed after ~1 s (%lld ms)", (long long)dt);
	}
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	usleep(200000);
	T_CHECK(req(web_port(ws), "GET", "/healthz", &r) == 0 && r.status == 200, "new connections work after that");
	resp_free(&r);
	web_close(ws);
}

/* ---------------------------------------------------------------- open variants */

static void test_open(void)
{
	struct web_config c = { 0 };
	struct sockaddr_storage ss;
	socklen_t len;
	struct web_server *ws;
	struct resp r;
	char err[256];
	static const struct { const char *s; int want; } lp[] = {
		{ "127.0.0.1:8089", 0 }, { "0.0.0.0:8089", 0 }, { "[::1]:8089", 0 }, { "[::]:0", 0 }, { "none", 1 },
		{ "localhost:8089", -1 }, { "127.0.0.1:65536", -1 }, { "127.0.0.1:", -1 }, { "127.0.0.1", -1 },
		{ "[::1]8089", -1 }, { "127.0.0.1:080", -1 }, { "127.0.0.1:-1", -1 }, { "[::1:80", -1 }, { "", -1 },
		{ ":80", -1 }, { "1.2.3.4.5:80", -1 },
	};

	for (size_t i = 0; i < sizeof lp / sizeof lp[0]; i++)
		T_EQ_I(web_listen_parse(lp[i].s, &ss, &len), lp[i].want, "listen \"%s\"", lp[i].s);
	T_CHECK(web_listen_parse("[::1]:8089", &ss, &len) == 0 && ss.ss_family == AF_INET6 &&
		ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) == 8089, "[::1]:8089 is IPv6 port 8089");

	c.listen = "none";
	ws = start(&c, err, sizeof err);
	T_CHECK(ws != NULL && web_port(ws) == 0, "listen none: an inert server");
	web_set_health(ws, 1);
	T_EQ_I(web_set_status(ws, "x"), 0, "inert server accepts status");
	T_EQ_I(web_publish_metrics(ws, "x", 1), 0, "inert server accepts metrics");
	web_close(ws);
	web_close(NULL);
	web_set_health(NULL, 1);

	c = (struct web_config){ .listen = "127.0.0.1:0" };
	c.db_path = "/nonexistent/x.db";
	c.no_socket_activation = 1;
	ws = web_open(&c, err, sizeof err);
	T_CHECK(ws == NULL && strstr(err, "/nonexistent/x.db"), "an unreadable DB fails web_open (%s)", err);
	c = (struct web_config){ .listen = "127.0.0.1:99999" };
	ws = start(&c, err, sizeof err);
	T_CHECK(ws == NULL && strstr(err, "bad listen"), "a bad listen fails web_open (%s)", err);

	c = (struct web_config){ .listen = "[::1]:0" };
	ws = start(&c, err, sizeof err);
	if (!ws) {
		T_SKIP("no IPv6 loopback here (%s)", err);
	} else {
		T_CHECK(raw_s(AF_INET6, web_port(ws), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r) == 0 && r.status == 200, "IPv6 [::1]: /healthz over ::1");
		resp_free(&r);
		web_close(ws);
	}
	c = (struct web_config){ .listen = "[::]:0" };
	ws = start(&c, err, sizeof err);
	if (!ws) {
		T_SKIP("no IPv6 here (%s)", err);
	} else {
		int ok4 = req(web_port(ws), "GET", "/healthz", &r) == 0 && r.status == 200;
		resp_free(&r);
		T_CHECK(ok4 && raw_s(AF_INET6, web_port(ws), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r) == 0 && r.status == 200, "[::] is dual stack: IPv4 and IPv6 both answered");
		resp_free(&r);
		web_close(ws);
	}
}

/* A socket the daemon bound itself (before its run row) is served on, and web_close closes it. */
static void test_handed_socket(void)
{
	struct web_config c = { .listen = "127.0.0.1:0", .db_path = g_db, .version = "t", .no_socket_activation = 1 };
	struct web_server *ws;
	struct sockaddr_in a;
	socklen_t al = sizeof a;
	struct resp r;
	char err[256];
	int fd = netaddr_listen("127.0.0.1:0", err, sizeof err);

	T_CHECK(fd >= 0 && getsockname(fd, (struct sockaddr *)&a, &al) == 0, "bind a socket first (%s)", fd >= 0 ? "" : err);
	if (fd < 0)
		return;
	c.listen_fd_set = 1;
	c.listen_fd = fd;
	ws = web_open(&c, err, sizeof err);
	T_CHECK(ws != NULL && web_port(ws) == ntohs(a.sin_port), "web_open serves on the handed socket (port %u)",
		ws ? web_port(ws) : 0);
	T_CHECK(ws && req(ntohs(a.sin_port), "GET", "/healthz", &r) == 0 && r.status == 200, "and answers on it");
	if (ws)
		resp_free(&r);
	web_close(ws);
	T_CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF, "web_close closed it");
	fd = netaddr_listen("127.0.0.1:0", err, sizeof err);
	c.listen_fd = fd;
	c.db_path = "/nonexistent/x.db";
	ws = web_open(&c, err, sizeof err);
	T_CHECK(ws == NULL && fd >= 0 && fcntl(fd, F_GETFD) < 0 && errno == EBADF, "a failed web_open closes it too");
}

/* A listening socket passed the systemd way (fd 3, LISTEN_FDS, LISTEN_PID) is used instead of binding. */
static void test_socket_activation(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	struct web_config c = { .listen = "127.0.0.1:0", .db_path = g_db, .version = "t" };
	struct web_server *ws;
	struct resp r;
	char err[256], pid[32];
	int fd;

	if (fcntl(3, F_GETFD) >= 0) {
		T_SKIP("fd 3 is in use in this process: cannot emulate systemd's socket passing");
		return;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0 || (fd != 3 && dup2(fd, 3) != 3)) {
		T_CHECK(0, "set up a listening socket on fd 3");
		return;
	}
	if (fd != 3)
		close(fd);
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_PID", pid, 1);
	ws = web_open(&c, err, sizeof err);
	T_CHECK(ws != NULL, "web_open with LISTEN_FDS=1 (%s)", ws ? "" : err);
	if (ws) {
		T_EQ_I(web_port(ws), ntohs(a.sin_port), "it serves on the passed socket's port");
		T_CHECK(req(ntohs(a.sin_port), "GET", "/healthz", &r) == 0 && r.status == 200, "/healthz on the passed socket");
		resp_free(&r);
		T_CHECK(getenv("LISTEN_FDS") == NULL && getenv("LISTEN_PID") == NULL, "LISTEN_* consumed");
		web_close(ws);
	} else {
		close(3);
	}
}

/* ---------------------------------------------------------------- concurrency */

struct writer {
	volatile int stop;
	int errors;
	int ticks;
};

static void *writer_loop(void *arg)
{
	struct writer *w = arg;
	sqlite3 *db;
	sqlite3_stmt *st[4] = { 0 };
	static const char *const ins[4] = {
		"INSERT INTO samples (run_id, ts_ms, sample_us) VALUES (?1, ?2, ?3)",
		"INSERT INTO buddy (run_id, ts_ms, zone_id, norders, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
		TDB_MEMINFO_SQL,
		"INSERT INTO vmstat (run_id, ts_ms, name_id, value) VALUES (?1, ?2, ?3, ?4)",
	};

	if (sqlite3_open(g_db, &db) != SQLITE_OK) {
		w->errors++;
		return NULL;
	}
	sqlite3_busy_timeout(db, 1000);
	for (int i = 0; i < 4; i++)
		if (sqlite3_prepare_v2(db, ins[i], -1, &st[i], NULL) != SQLITE_OK)
			w->errors++;
	for (int i = TDB_N2; !w->stop && i < TDB_N2 + 100000 && !w->errors; i++) {
		if (testdb_exec(db, "BEGIN") < 0 || testdb_tick(db, st, 3, i, 3) < 0 || testdb_exec(db, "COMMIT") < 0)
			w->errors++;
		w->ticks++;
		usleep(2000);
	}
	for (int i = 0; i < 4; i++)
		sqlite3_finalize(st[i]);
	sqlite3_close(db);
	return NULL;
}

struct client {
	unsigned port;
	int ok, bad;
};

static void *client_loop(void *arg)
{
	struct client *c = arg;

	for (int i = 0; i < 25; i++) {
		struct resp r;
		const char *t = i % 3 == 0 ? "/" : i % 3 == 1 ? "/api/v1/runs/3/buddyinfo?max_points=50" : "/api/v1/runs";
		if (req(c->port, "GET", t, &r) == 0 && r.status == 200)
			c->ok++;
		else
			c->bad++;
		resp_free(&r);
	}
	return NULL;
}

static void test_concurrency(unsigned port)
{
	struct writer w = { 0 };
	struct client c[4];
	pthread_t wt, ct[4];

	pthread_create(&wt, NULL, writer_loop, &w);
	for (int i = 0; i < 4; i++) {
		c[i] = (struct client){ port, 0, 0 };
		pthread_create(&ct[i], NULL, client_loop, &c[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(ct[i], NULL);
	w.stop = 1;
	pthread_join(wt, NULL);
	T_CHECK(c[0].bad + c[1].bad + c[2].bad + c[3].bad == 0, "4 clients x 25 requests while the writer commits: all 200 "
		"(%d ok)", c[0].ok + c[1].ok + c[2].ok + c[3].ok);
	T_CHECK(w.errors == 0 && w.ticks > 0, "the writer was never blocked by readers (%d ticks committed)", w.ticks);
}

int main(void)
{
	struct web_config c = { .listen = "127.0.0.1:0" };
	struct web_server *ws;
	char err[256], cmd[128];
	unsigned port;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(g_dir, sizeof g_dir, "/tmp/test_web.XXXXXX");
	if (!mkdtemp(g_dir) || testdb_create(g_dir, g_db, sizeof g_db) < 0) {
		T_CHECK(0, "create the test database");
		T_DONE();
	}
	test_socket_activation();
	test_handed_socket();
	testdb_cli(g_db, "UPDATE runs SET xen_domain = 'domU', xen_domid = 5 WHERE run_id = 2");
	ws = start(&c, err, sizeof err);
	T_CHECK(ws != NULL, "web_open on 127.0.0.1:0 (%s)", ws ? "" : err);
	if (!ws)
		T_DONE();
	port = web_port(ws);
	T_CHECK(port > 0, "bound to port %u", port);
	T_EQ_I(web_set_status(ws, "sampling <1s> & well"), 0, "set the status line");

	test_pages(port);
	test_xen_domain(port);
	test_runs_filter(port);
	test_api(port);
	test_report_sections(port);
	test_errors(port);
	test_health_metrics(ws, port);
	test_concurrency(port);
	test_limits();
	test_open();
	test_no_request();

	web_close(ws);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	if (system(cmd) != 0)
		T_CHECK(0, "remove %s", g_dir);
	T_DONE();
}
