/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_kv: vmstat/meminfo parsing.  Hand-made fixtures and inline cases for
 * the grammar; the host fixtures and the live files are checked entry by
 * entry against an awk parse of the same bytes.
 */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "collector/kv.h"
#include "collector/procfile.h"
#include "tests/unit/test.h"

static char buf[1 << 20];
static struct kv_set kv;

static const char *fixture_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures", name);
	return path;
}

typedef int (*parse_fn)(const char *, size_t, struct kv_set *);

/* awk: name (meminfo's ':' dropped) and the value field, as printed. */
static const char AWK_VMSTAT[] = "{ printf \"%s %s\\n\", $1, $2 }";
static const char AWK_MEMINFO[] = "{ n = $1; sub(/:$/, \"\", n); printf \"%s %s\\n\", n, $2 }";

static void check_against_awk(const char *what, parse_fn parse, const char *prog,
			      const char *path, const char *data, size_t len)
{
	static char want[1 << 16], got[1 << 16];
	int rc = parse(data, len, &kv);

	T_EQ_I(rc, 0, "%s: parses", what);
	if (rc != 0)
		return;
	T_CHECK(t_awk_file(prog, path, want, sizeof want) == 0, "%s: awk ran", what);
	got[0] = '\0';
	for (int i = 0; i < kv.n; i++)
		t_app(got, sizeof got, "%s %" PRIu64 "\n", kv.e[i].name, kv.e[i].value);
	T_EQ_S(got, want, "%s: every name and value agrees with awk", what);
}

/* One named value looked up with kv_get, compared with awk's answer (absent in both is agreement too). */
static void check_lookup(const char *what, const char *path, const char *name, const char *awkname)
{
	char prog[256], want[64], got[64] = "";
	uint64_t v = 0;
	int rc;

	snprintf(prog, sizeof prog, "$1 == \"%s\" { print $2; exit }", awkname);
	T_CHECK(t_awk_file(prog, path, want, sizeof want) == 0, "%s: awk ran for %s", what, name);
	rc = kv_get(&kv, name, &v);
	T_EQ_I(rc, want[0] ? 0 : -1, "%s: kv_get %s %s, as awk says", what, want[0] ? "finds" : "does not find", name);
	if (rc == 0)
		snprintf(got, sizeof got, "%" PRIu64 "\n", v);
	T_EQ_S(got, want, "%s: %s agrees with awk", what, name);
}

struct fixture_case {
	const char *name;
	parse_fn parse;
	int rc;
};

static const struct fixture_case fixtures[] = {
	{ "vmstat.overflow", vmstat_parse, -1 },
	{ "vmstat.nonumber", vmstat_parse, -1 },
	{ "vmstat.longname", vmstat_parse, -1 },
	{ "vmstat.junk", vmstat_parse, -1 },
	{ "empty", vmstat_parse, -1 },
	{ "meminfo.overflow", meminfo_parse, -1 },
	{ "meminfo.badunit", meminfo_parse, -1 },
	{ "meminfo.nonumber", meminfo_parse, -1 },
	{ "meminfo.nocolon", meminfo_parse, -1 },
	{ "empty", meminfo_parse, -1 },
	/* Each parser refuses the other's format. */
	{ "meminfo.host", vmstat_parse, -1 },
	{ "vmstat.host", meminfo_parse, -1 },
};

static void test_fixtures(void)
{
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		const struct fixture_case *c = &fixtures[i];
		long n = t_fixture(c->name, buf, sizeof buf);

		T_CHECK(n >= 0, "%s: fixture readable", c->name);
		if (n >= 0)
			T_EQ_I(c->parse(buf, (size_t)n, &kv), c->rc, "%s as %s: returns %d", c->name,
			       c->parse == vmstat_parse ? "vmstat" : "meminfo", c->rc);
	}
}

struct inline_case {
	const char *text;
	parse_fn parse;
	int rc;
	const char *name;       /* entry to look up when rc == 0 */
	uint64_t value;
};

static const struct inline_case inlines[] = {
	{ "a 1\n", vmstat_parse, 0, "a", 1 },
	{ "a\t7\n", vmstat_parse, 0, "a", 7 },
	{ "a   1   \n", vmstat_parse, 0, "a", 1 },
	{ "a 0\n", vmstat_parse, 0, "a", 0 },
	{ "a 18446744073709551615\n", vmstat_parse, 0, "a", UINT64_MAX },
	{ "Active(anon) 3\n", vmstat_parse, 0, "Active(anon)", 3 },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 5\n", vmstat_parse, 0,
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 5 },   /* 47 chars: the cap */
	{ "a 1\nb 2\n", vmstat_parse, 0, "b", 2 },
	{ "a 1\na 2\n", vmstat_parse, 0, "a", 1 },     /* duplicates kept; kv_get returns the first */
	{ "a 18446744073709551616\n", vmstat_parse, -1, NULL, 0 },
	{ "a 1", vmstat_parse, -1, NULL, 0 },
	{ "a 1 2\n", vmstat_parse, -1, NULL, 0 },
	{ "a1\n", vmstat_parse, -1, NULL, 0 },
	{ "a: 1\n", vmstat_parse, -1, NULL, 0 },
	{ "a -1\n", vmstat_parse, -1, NULL, 0 },
	{ "a +1\n", vmstat_parse, -1, NULL, 0 },
	{ "a 01\n", vmstat_parse, -1, NULL, 0 },
	{ "a 1kB\n", vmstat_parse, -1, NULL, 0 },
	{ "a 1 kB\n", vmstat_parse, -1, NULL, 0 },
	{ " a 1\n", vmstat_parse, -1, NULL, 0 },
	{ "a 1\n\n", vmstat_parse, -1, NULL, 0 },
	{ "\n", vmstat_parse, -1, NULL, 0 },
	{ "a.b 1\n", vmstat_parse, -1, NULL, 0 },
	{ "a 1\r\n", vmstat_parse, -1, NULL, 0 },
	{ "MemFree:        123 kB\n", meminfo_parse, 0, "MemFree", 123 },
	{ "HugePages_Total:       0\n", meminfo_parse, 0, "HugePages_Total", 0 },
	{ "Active(anon):       1584 kB\n", meminfo_parse, 0, "Active(anon)", 1584 },
	{ "MemFree:1\n", meminfo_parse, 0, "MemFree", 1 },
	{ "MemFree: 1 kB  \n", meminfo_parse, 0, "MemFree", 1 },
	{ "MemFree: 1 kb\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree: 1kB\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree: 1 kB kB\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree: 1 MB\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree 1 kB\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree:: 1\n", meminfo_parse, -1, NULL, 0 },
	{ "Mem Free: 1\n", meminfo_parse, -1, NULL, 0 },
	{ ": 1\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree: kB\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree: 1 kB", meminfo_parse, -1, NULL, 0 },
};

static void test_inline(void)
{
	for (size_t i = 0; i < sizeof inlines / sizeof inlines[0]; i++) {
		const struct inline_case *c = &inlines[i];
		int rc = c->parse(c->text, strlen(c->text), &kv);
		uint64_t v = 0;

		T_EQ_I(rc, c->rc, "inline %zu (%s): returns %d", i, c->parse == vmstat_parse ? "vmstat" : "meminfo", c->rc);
		if (rc == 0 && c->rc == 0) {
			T_EQ_I(kv_get(&kv, c->name, &v), 0, "inline %zu: %s present", i, c->name);
			T_CHECK(v == c->value, "inline %zu: %s = %" PRIu64, i, c->name, c->value);
		}
	}
}

/* KV_MAX entries parse; one more is an error, not a silent cut. */
static void test_cap(void)
{
	size_t n = 0;
	uint64_t v;

	for (int i = 0; i <= KV_MAX; i++) {
		if (i == KV_MAX) {
			T_EQ_I(vmstat_parse(buf, n, &kv), 0, "%d entries: accepted", KV_MAX);
			T_EQ_I(kv.n, KV_MAX, "%d entries: all kept", KV_MAX);
			T_CHECK(kv_get(&kv, "n511", &v) == 0 && v == 511, "last entry n511 = 511");
		}
		n += (size_t)snprintf(buf + n, sizeof buf - n, "n%d %d\n", i, i);
	}
	T_EQ_I(vmstat_parse(buf, n, &kv), -1, "%d entries: over the cap, rejected", KV_MAX + 1);
}

static void test_get(void)
{
	static const char t[] = "a 1\nb 2\n";
	uint64_t v = 42;

	T_EQ_I(vmstat_parse(t, sizeof t - 1, &kv), 0, "kv_get set-up parses");
	T_EQ_I(kv_get(&kv, "c", &v), -1, "kv_get: absent name is -1");
	T_EQ_I(kv_get(&kv, "", &v), -1, "kv_get: empty name is -1");
	T_EQ_I(kv_get(&kv, NULL, &v), -1, "kv_get: NULL name is -1");
	T_EQ_I(kv_get(NULL, "a", &v), -1, "kv_get: NULL set is -1");
	T_EQ_I(v, 42, "kv_get: failed lookups leave *v alone");
}

/* kv_status_kb: one "Name:<blanks>N kB" line of /proc/PID/status, and nothing that only looks like one. */
static void test_status_kb(void)
{
	static const char st[] = "Name:\tfpusoakd-frag\nUmask:\t0022\nVmPTE:\t      88 kB\nRssAnon:\t    2048 kB\n"
				 "RssAnonX:\t1 kB\nThreads:\t1\nVmSwap:\t 7 MB\nBad:\t12kB\nLast:\t5 kB";
	uint64_t v = 0;

	T_EQ_I(kv_status_kb(st, sizeof st - 1, "RssAnon", &v), 0, "RssAnon found");
	T_EQ_I(v, 2048, "RssAnon 2048 kB");
	T_EQ_I(kv_status_kb(st, sizeof st - 1, "VmPTE", &v), 0, "VmPTE found");
	T_EQ_I(v, 88, "VmPTE 88 kB");
	T_EQ_I(kv_status_kb(st, sizeof st - 1, "Last", &v), 0, "a last line without a newline");
	T_EQ_I(v, 5, "Last 5 kB");
	T_EQ_I(kv_status_kb(st, sizeof st - 1, "Threads", &v), -1, "a count without kB is not this form");
	T_EQ_I(kv_status_kb(st, sizeof st - 1, "VmSwap", &v), -1, "another unit is not kB");
	T_EQ_I(kv_status_kb(st, sizeof st - 1, "Bad", &v), -1, "no blank before kB");
	T_EQ_I(kv_status_kb(st, sizeof st - 1, "Name", &v), -1, "text is not a number");
	T_EQ_I(kv_status_kb(st, sizeof st - 1, "RssFile", &v), -1, "absent");
	T_EQ_I(kv_status_kb(st, 20, "VmPTE", &v), -1, "a cut buffer: not found past its end");
	T_EQ_I(kv_status_kb("RssAnon:\t99999999999999999999999 kB\n", 33, "RssAnon", &v), -1, "overflow");
}

/* Real kernel output: this VM (6.18) and the Xen PV test guest (6.1), see tests/fixtures/README.md. */
static void test_host(void)
{
	static const char *const sfx[] = { "host", "xenpv" };
	char name[64], path[512];
	long n;

	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		snprintf(name, sizeof name, "vmstat.%s", sfx[i]);
		n = t_fixture(name, buf, sizeof buf);
		T_CHECK(n > 0, "%s: fixture readable", name);
		if (n > 0) {
			fixture_path(name, path, sizeof path);
			check_against_awk(name, vmstat_parse, AWK_VMSTAT, path, buf, (size_t)n);
			check_lookup(name, path, "nr_free_pages", "nr_free_pages");
			check_lookup(name, path, "pgfault", "pgfault");
		}
		snprintf(name, sizeof name, "meminfo.%s", sfx[i]);
		n = t_fixture(name, buf, sizeof buf);
		T_CHECK(n > 0, "%s: fixture readable", name);
		if (n > 0) {
			fixture_path(name, path, sizeof path);
			check_against_awk(name, meminfo_parse, AWK_MEMINFO, path, buf, (size_t)n);
			check_lookup(name, path, "MemFree", "MemFree:");
			check_lookup(name, path, "HugePages_Total", "HugePages_Total:");
			check_lookup(name, path, "Active(anon)", "Active(anon):");
		}
	}
}

static void live(const char *rel, parse_fn parse, const char *prog)
{
	ssize_t n = procfile_read(NULL, rel, buf, sizeof buf);
	char path[64], what[64];

	snprintf(what, sizeof what, "live /%s", rel);
	if (n < 0) {
		T_SKIP("%s unreadable: %s", what, strerror(errno));
		return;
	}
	if (t_write_tmp(buf, (size_t)n, path, sizeof path) < 0) {
		T_CHECK(0, "%s: temp copy written", what);
		return;
	}
	check_against_awk(what, parse, prog, path, buf, (size_t)n);
	unlink(path);
}

int main(void)
{
	test_fixtures();
	test_inline();
	test_cap();
	test_get();
	test_status_kb();
	test_host();
	live("proc/vmstat", vmstat_parse, AWK_VMSTAT);
	live("proc/meminfo", meminfo_parse, AWK_MEMINFO);
	T_DONE();
}
