/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_cli: fpusoakd report and fpusoakd summary (daemon/cli.c, with the
 * web/offline.h renderer cmd/main.c gives it) on the known DB of
 * testdb.h.  Each call runs cli_main in a forked child with
 * stdout and stderr in files, so exit codes and output are seen as a user
 * sees them.  Expected figures come from the testdb formulas and the
 * sqlite3 CLI; the HTML report is parsed by python3's XML parser.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "testdb.h"
#include "daemon/cli.h"
#include "web/offline.h"

static char g_dir[64], g_db[256];
static char g_out[1 << 20], g_err[8192];

static void slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, cap - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* Run cli_main(argv) in a child; its exit status, stdout in g_out, stderr in g_err. */
static int run(const char *const *argv)
{
	char out[128], err[128];
	int argc = 0, st;
	pid_t pid;

	while (argv[argc])
		argc++;
	snprintf(out, sizeof out, "%s/out", g_dir);
	snprintf(err, sizeof err, "%s/err", g_dir);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600), fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fo, 1);
		dup2(fe, 2);
		_exit(cli_main(argc, (char **)argv, &(const struct cli_html){ offline_run, offline_compare }));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	slurp(out, g_out, sizeof g_out);
	slurp(err, g_err, sizeof g_err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Every line at most CLI_COLS columns of printable ASCII. */
static int plain72(const char *s)
{
	size_t col = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			col = 0;
			continue;
		}
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || ++col > CLI_COLS)
			return 0;
	}
	return 1;
}

static int py_xml(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof cmd, "python3 -c 'import sys,xml.dom.minidom; b=open(sys.argv[1],encoding=\"utf-8\").read(); "
		 "assert b.startswith(\"<!DOCTYPE html>\"); xml.dom.minidom.parseString(b[15:])' '%s' 2>/dev/null", path);
	return system(cmd) == 0;
}

static void test_args(void)
{
	static const struct { const char *argv[10]; int code; const char *err; } cases[] = {
		{ { "report", "--help" }, 0, NULL },
		{ { "summary", "-h" }, 0, NULL },
		{ { "report", "--db" }, 64, "--db needs a value" },
		{ { "report", "--run", "1", "--out", "x.html" }, 64, "--db PATH is required" },
		{ { "summary", "--db", "x.db" }, 64, "exactly one of" },
		{ { "summary", "--db", "x.db", "--run", "1", "--compare", "1", "3" }, 64, "exactly one of" },
		{ { "summary", "--db", "x.db", "--run", "0" }, 64, "not a run id" },
		{ { "summary", "--db", "x.db", "--run", "-1" }, 64, "not a run id" },
		{ { "summary", "--db", "x.db", "--run", "01" }, 64, "not a run id" },
		{ { "summary", "--db", "x.db", "--run", "99999999999999999999" }, 64, "not a run id" },
		{ { "summary", "--db", "x.db", "--compare", "1" }, 64, "--compare needs two run ids" },
		{ { "summary", "--db", "x.db", "--compare", "1", "b" }, 64, "not two run ids" },
		{ { "summary", "--db", "x.db", "--run", "1", "--out", "x.html" }, 64, "unknown argument '--out'" },
		{ { "report", "--db", "x.db", "--run", "1" }, 64, "--out FILE.html is required" },
		{ { "report", "--db", "x.db", "--run", "1", "--out", "x", "--bogus" }, 64, "unknown argument '--bogus'" },
		{ { "summary", "--db", "/nonexistent/x.db", "--run", "1" }, 1, "/nonexistent/x.db" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = run(cases[i].argv);
		T_CHECK(rc == cases[i].code && (!cases[i].err || strstr(g_err, cases[i].err)),
			"%s %s ...: exit %d%s%s (got %d: %.80s)", cases[i].argv[0], cases[i].argv[1] ? cases[i].argv[1] : "",
			cases[i].code, cases[i].err ? ", says " : "", cases[i].err ? cases[i].err : "", rc, g_err);
	}
	{
		const char *argv[] = { "report", "--help", NULL };
		run(argv);
		T_CHECK(strstr(g_out, "usage: fpusoakd report --db PATH [--db PATH...]\n") && strstr(g_out, " --out FILE.html\n") &&
			plain72(g_out), "report --help: usage on stdout, within 72 columns");
	}
}

/* Two database files: runs are NAME:ID, the comparison reads each run from its own file. */
static void test_summary_two_dbs(void)
{
	char other[300], cmd[700], single[8192];
	const char *cmp1[] = { "summary", "--db", g_db, "--compare", "1", "3", NULL };
	const char *cmp2[] = { "summary", "--db", g_db, "--db", other, "--compare", "test:1", "other:3", NULL };
	const char *bare[] = { "summary", "--db", g_db, "--db", other, "--run", "1", NULL };
	const char *noname[] = { "summary", "--db", g_db, "--db", other, "--run", "nope:1", NULL };
	const char *named1[] = { "summary", "--db", g_db, "--run", "test:1", NULL };
	const char *missing[] = { "summary", "--db", g_db, "--db", other, "--compare", "test:1", "other:7", NULL };
	const char *v;

	snprintf(other, sizeof other, "%s/other.db", g_dir);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", g_db, other);
	T_CHECK(system(cmd) == 0, "copy the test database to other.db");
	T_EQ_I(run(cmp1), 0, "one file: --compare 1 3");
	snprintf(single, sizeof single, "%s", g_out);
	T_EQ_I(run(cmp2), 0, "two files: --compare test:1 other:3: exit 0 (%.80s)", g_err);
	T_CHECK(strstr(g_out, "fpusoakd: run other:3 (B) compared with run test:1 (A)\n") != NULL,
		"the runs are named NAME:ID");
	v = strstr(single, "\nVerdicts");
	T_CHECK(v && strstr(g_out, v) != NULL, "the same verdicts as for the same runs in one file");
	T_CHECK(plain72(g_out), "within 72 columns");
	T_EQ_I(run(bare), 64, "two files and a bare id: exit 64");
	T_CHECK(strstr(g_err, "give run 1 as NAME:1") && strstr(g_err, "test (") && strstr(g_err, "other ("),
		"says how to name it, with the names (%s)", g_err);
	T_EQ_I(run(noname), 64, "an unknown database name: exit 64");
	T_CHECK(strstr(g_err, "no database named 'nope'") != NULL, "and says so (%s)", g_err);
	T_EQ_I(run(named1), 0, "one file: NAME:ID works too");
	T_EQ_I(run(missing), 1, "a run missing from its file: exit 1");
	T_CHECK(strstr(g_err, other) && strstr(g_err, "no run 7"), "names the file (%s)", g_err);
}

static void test_summary(void)
{
	const char *run1[] = { "summary", "--db", g_db, "--run", "1", NULL };
	const char *cmp[] = { "summary", "--db", g_db, "--compare", "1", "3", NULL };
	const char *unknown[] = { "summary", "--db", g_db, "--run", "7", NULL };
	const char *unknown2[] = { "summary", "--db", g_db, "--compare", "1", "7", NULL };
	char exp[256];

	T_EQ_I(run(run1), 0, "summary --run 1: exit 0");
	T_CHECK(plain72(g_out), "summary: printable ASCII, every line <= 72 columns (hostile label and zone inside)");
	T_CHECK(strstr(g_out, "fpusoakd run 1 \"<script>alert(1)</script> \"q\" 'a' & ?? end\"") != NULL,
		"the label as plain text, invalid bytes as ?");
	T_CHECK(strstr(g_out, "  kernel      6.1.0-old #1 SMP\n") && strstr(g_out, "  hypervisor  xen PV\n") &&
		strstr(g_out, "  CPU         Test CPU @ 3GHz\n") && strstr(g_out, "  xstate      832 bytes: avx=256\n") &&
		strstr(g_out, "  eagerfpu=   on\n"), "environment: kernel, hypervisor/guest, CPU, xstate, eagerfpu=");
	T_CHECK(strstr(g_out, "headroom, order 3 (task_struct slab)") && strstr(g_out, "headroom, order 9 (pageblock)"),
		"headroom at both orders of interest");
	/* capacity {256, 252, 258, 250, 254}: median 254 */
	T_CHECK(strstr(g_out, "  capacity probes: 5, median 254 workers (250 to 258)\n") != NULL, "capacity headline");
	T_CHECK(strstr(g_out, "  FPU-cost probes: 2, median 1.6 us/yield (1.5 to 1.7)\n") != NULL, "FPU-cost headline");
	snprintf(exp, sizeof exp, "  allocation failures (kernel log): %lld over ",
		 testdb_cli(g_db, "SELECT COUNT(*) FROM v_alloc_failures WHERE run_id=1"));
	T_CHECK(strstr(g_out, exp) != NULL, "allocation failures = CLI count");
	snprintf(exp, sizeof exp, "  churn: %lld spawned over 10m 00.0s (2/s)",
		 testdb_cli(g_db, "SELECT sum(spawned) FROM v_churn WHERE run_id=1"));
	T_CHECK(strstr(g_out, exp) != NULL, "churn headline = CLI sum, 2/s");
	T_CHECK(strstr(g_out, "GFP_ATOMIC-only failures, order 3: 20% of 600 samples (GFP_NOWAIT 20%)\n") != NULL &&
		strstr(g_out, "    per zone's own check: DMA 0%, DMA32 0%, Normal 20%\n") != NULL,
		"atomic risk: the request 20%% at order 3 (120 of 600 by hand), the zones as detail");
	T_CHECK(strstr(g_out, "  confinement not recorded (no churn engine, or an older fpusoakd)\n") && strstr(g_out, "  deaths      OOM kills 4 (churn 4, probe 0); killed 5,"),
		"the run's confinement and its deaths, every one counted once");

	T_EQ_I(run(cmp), 0, "summary --compare 1 3: exit 0");
	T_CHECK(plain72(g_out), "compare summary within 72 columns");
	T_CHECK(strstr(g_out, "kernel       6.1.0-old #1 SMP") && strstr(g_out, "6.6.0-new #1 SMP"), "both kernels side by side");
	/* The whole line, folded at a word to 72 columns: the test's name and the p-value stay (test_report.c). */
	T_CHECK(strstr(g_out, "\ncapacity: 254 vs 229 (-9.8%), HL shift -25 [-30, -21], Mann-Whitney\n"
			      "  p=0.0079: significant\n") != NULL,
		"the capacity verdict line (worked by hand in test_report.c), nothing dropped");
	T_CHECK(strstr(g_out, "\nFPU cost us/yield: 1.6 vs 2.3 (+43.7%), too few data (n=2+2 probes;\n  needs 4+4)\n") != NULL,
		"too few FPU-cost probes said in words, with the counts and the need");
	T_CHECK(strstr(g_out, "\nspawns/s: 2 vs 1 (-50.0%)") != NULL && strstr(g_out, "\natomic risk o3 %: ") != NULL &&
		strstr(g_out, "\nalloc failures/h (all processes): ") != NULL,
		"verdict lines for throughput, atomic risk, failure rate");
	/* Run 3 is 5 minutes: fitted per tick, where its sawtooth is too autocorrelated (test_report.c). */
	T_CHECK(strstr(g_out, "\nheadroom o3/h: too few data (B: 300 ticks, under 4 independent points)\n") != NULL,
		"the headroom slope is too few data, and the summary says why");
	T_CHECK(strstr(g_out, "Tests: ") != NULL, "the tests are named");

	T_EQ_I(run(unknown), 1, "summary of an unknown run: exit 1");
	T_CHECK(strstr(g_err, "no run 7") != NULL, "and says which (%s)", g_err);
	T_EQ_I(run(unknown2), 1, "compare with an unknown run: exit 1");
	test_summary_two_dbs();
}

static void test_report(void)
{
	char path[128], path2[128], buf[64];
	const char *rep[] = { "report", "--db", g_db, "--run", "1", "--out", path, NULL };
	const char *cmp[] = { "report", "--db", g_db, "--compare", "1", "3", "--out", path2, NULL };
	const char *unknown[] = { "report", "--db", g_db, "--run", "9", "--out", path, NULL };
	const char *stdout_rep[] = { "report", "--db", g_db, "--run", "3", "--out", "-", NULL };
	const char *baddir[] = { "report", "--db", g_db, "--run", "1", "--out", "/nonexistent/dir/x.html", NULL };
	static char html[8 << 20];

	snprintf(path, sizeof path, "%s/run1.html", g_dir);
	snprintf(path2, sizeof path2, "%s/cmp.html", g_dir);
	T_EQ_I(run(rep), 0, "report --run 1: exit 0");
	T_CHECK(strstr(g_err, "wrote ") != NULL, "says where it wrote");
	slurp(path, html, sizeof html);
	T_CHECK(py_xml(path), "the file is valid UTF-8 and well-formed XML");
	T_CHECK(strstr(html, "<h2>1. Headroom at the orders of interest</h2>") &&
		strstr(html, "<h2>2. Atomic-allocation risk</h2>") && strstr(html, "<svg"),
		"the same sections and inline SVG as /runs/1");
	T_CHECK(!strstr(html, "href=\"/") && !strstr(html, "<form") && !strstr(html, "src=\"http") &&
		!strstr(html, "<link rel=\"stylesheet"), "self-contained: no links to a server, no form, no external assets");
	T_CHECK(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;") && !strstr(html, "<script") && !strstr(html, "<img"),
		"kernel and user strings escaped");
	T_CHECK(strstr(html, "task_struct: <strong>6592-byte</strong>") != NULL, "figures from the DB");

	T_EQ_I(run(cmp), 0, "report --compare 1 3: exit 0");
	slurp(path2, html, sizeof html);
	T_CHECK(py_xml(path2) && strstr(html, "capacity: 254 vs 229 (-9.8%), HL shift -25 [-30, -21], Mann-Whitney\n"
					      "  p=0.0079: significant"),
		"compare report: well-formed, with the verdict lines");
	T_CHECK(!strstr(html, "href=\"/"), "compare report: no links");

	T_EQ_I(run(unknown), 1, "report of an unknown run: exit 1");
	T_CHECK(strstr(g_err, "no run 9") != NULL, "names the run (%s)", g_err);
	T_EQ_I(run(stdout_rep), 0, "--out - writes to stdout");
	T_CHECK(strncmp(g_out, "<!DOCTYPE html>", 15) == 0, "stdout holds the page");
	T_EQ_I(run(baddir), 1, "an unwritable --out: exit 1");
	snprintf(buf, sizeof buf, "cannot write");
	T_CHECK(strstr(g_err, buf) != NULL, "says it cannot write");
}

int main(void)
{
	char cmd[128];

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(g_dir, sizeof g_dir, "/tmp/test_cli.XXXXXX");
	if (!mkdtemp(g_dir) || testdb_create(g_dir, g_db, sizeof g_db) < 0) {
		T_CHECK(0, "create the test database");
		T_DONE();
	}
	test_args();
	test_summary();
	test_report();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	if (system(cmd) != 0)
		T_CHECK(0, "cleanup");
	T_DONE();
}
