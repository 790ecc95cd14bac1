/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_slabinfo: hand-made fixtures with hand-counted values, inline
 * grammar cases, the cache cap, and the host fixture plus the live file
 * checked against awk.
 */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "collector/slabinfo.h"
#include "common/procfile.h"
#include "tests/unit/test.h"

static char buf[1 << 20];
static struct slabinfo si;

static const char *fixture_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures", name);
	return path;
}

/* awk takes the columns by position and derives the order by halving. */
static const char AWK_SLAB[] =
	"NR > 2 { o = 0; p = $6; while (p > 1) { p = p / 2; o++ }"
	"  printf \"%s %s %s %s %s %s %d %s %s\\n\", $1, $2, $3, $4, $5, $6, o, $14, $15 }";

static void dump(const struct slabinfo *s, char *out, size_t cap)
{
	out[0] = '\0';
	for (int i = 0; i < s->n; i++) {
		const struct slabinfo_cache *c = &s->c[i];

		t_app(out, cap, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %" PRIu64 " %" PRIu64 "\n",
		    c->name, c->active_objs, c->num_objs, c->objsize, c->objperslab, c->pagesperslab, c->order,
		    c->active_slabs, c->num_slabs);
	}
}

static void check_against_awk(const char *what, const char *path, const char *data, size_t len)
{
	static char want[1 << 17], got[1 << 17];
	int rc = slabinfo_parse(data, len, &si);

	T_EQ_I(rc, 0, "%s: parses", what);
	if (rc != 0)
		return;
	T_CHECK(t_awk_file(AWK_SLAB, path, want, sizeof want) == 0, "%s: awk ran", what);
	dump(&si, got, sizeof got);
	T_EQ_S(got, want, "%s: every cache and column agrees with awk", what);
}

/* slabinfo_find against awk's first match for the name. */
static void check_find(const char *what, const char *path, const char *name)
{
	char prog[256], want[64] = "", got[64];
	const struct slabinfo_cache *c = slabinfo_find(&si, name);

	snprintf(prog, sizeof prog, "NR > 2 && $1 == \"%s\" { print $4; exit }", name);
	T_CHECK(t_awk_file(prog, path, want, sizeof want) == 0 && want[0], "%s: awk finds %s", what, name);
	T_CHECK(c != NULL, "%s: slabinfo_find finds %s", what, name);
	snprintf(got, sizeof got, "%" PRIu64 "\n", c ? c->objsize : 0);
	T_EQ_S(got, want, "%s: %s objsize agrees with awk", what, name);
}

struct expect {
	const char *name;
	uint64_t active_objs, num_objs, objsize, objperslab, pagesperslab;
	int order;
	uint64_t active_slabs, num_slabs;
};

/* Hand-copied from the fixture text. */
static const struct expect stats_expect[] = {
	{ "kmalloc-8k", 36, 36, 8192, 4, 8, 3, 9, 9 },
	{ "task_struct", 200, 210, 5888, 5, 8, 3, 42, 42 },
	{ "dentry", 1000, 1029, 192, 21, 1, 0, 49, 49 },
};

static void check_expect(const char *fx, const struct expect *e)
{
	const struct slabinfo_cache *c = slabinfo_find(&si, e->name);

	T_CHECK(c != NULL, "%s: %s present", fx, e->name);
	if (!c)
		return;
	T_CHECK(c->active_objs == e->active_objs && c->num_objs == e->num_objs && c->objsize == e->objsize &&
		c->objperslab == e->objperslab && c->pagesperslab == e->pagesperslab &&
		c->active_slabs == e->active_slabs && c->num_slabs == e->num_slabs,
		"%s: %s columns", fx, e->name);
	T_EQ_I(c->order, e->order, "%s: %s order", fx, e->name);
}

static void test_fixtures(void)
{
	static const char *const rejects[] = {
		"slabinfo.v20", "slabinfo.badpages", "slabinfo.truncated", "slabinfo.longname",
		"slabinfo.headeronly", "slabinfo.overflow", "empty", "buddyinfo.host",
	};
	char y64[65];
	long n;

	n = t_fixture("slabinfo.stats", buf, sizeof buf);
	T_CHECK(n > 0, "slabinfo.stats: fixture readable");
	if (n > 0) {
		T_EQ_I(slabinfo_parse(buf, (size_t)n, &si), 0, "slabinfo.stats: (statistics) format parses");
		T_EQ_I(si.n, 3, "slabinfo.stats: caches");
		for (size_t i = 0; i < sizeof stats_expect / sizeof stats_expect[0]; i++)
			check_expect("slabinfo.stats", &stats_expect[i]);
	}
	n = t_fixture("slabinfo.name64", buf, sizeof buf);
	memset(y64, 'y', 64);
	y64[64] = '\0';
	T_CHECK(n > 0, "slabinfo.name64: fixture readable");
	if (n > 0) {
		T_EQ_I(slabinfo_parse(buf, (size_t)n, &si), 0, "slabinfo.name64: parses");
		T_EQ_I(si.n, 3, "slabinfo.name64: caches");
		T_CHECK(slabinfo_find(&si, y64) && slabinfo_find(&si, y64)->num_objs == 2,
			"slabinfo.name64: 64-char name kept whole");
		T_CHECK(slabinfo_find(&si, "TCPv6") && slabinfo_find(&si, "TCPv6")->order == 3,
			"slabinfo.name64: TCPv6 order 3 (8 pages per slab)");
	}
	for (size_t i = 0; i < sizeof rejects / sizeof rejects[0]; i++) {
		n = t_fixture(rejects[i], buf, sizeof buf);
		T_CHECK(n >= 0, "%s: fixture readable", rejects[i]);
		if (n >= 0)
			T_EQ_I(slabinfo_parse(buf, (size_t)n, &si), -1, "%s: rejected", rejects[i]);
	}
}

#define HDR "slabinfo - version: 2.1\n# name <active_objs>\n"
#define ROW(rest) "foo 1 2 3 4 " rest "\n"

struct inline_case {
	const char *what, *text;
	size_t len;
	int rc;
};

#define L(s) s, sizeof(s) - 1

static const struct inline_case inlines[] = {
	{ "minimal", HDR ROW("1 : tunables 0 0 0 : slabdata 1 1 0"), 0, 0 },
	{ "tabs", HDR "foo\t1\t2\t3\t4\t1\t:\ttunables\t0\t0\t0\t:\tslabdata\t1\t1\t0\n", 0, 0 },
	{ "trailing blanks", HDR ROW("1 : tunables 0 0 0 : slabdata 1 1 0   "), 0, 0 },
	{ "extra section", HDR ROW("2 : tunables 0 0 0 : slabdata 1 1 0 : globalstat 1 2 3"), 0, 0 },
	{ "statistics version", "slabinfo - version: 2.1 (statistics)\n# name\n"
	  ROW("1 : tunables 0 0 0 : slabdata 1 1 0"), 0, 0 },
	{ "version 2.10", "slabinfo - version: 2.10\n# name\n" ROW("1 : tunables 0 0 0 : slabdata 1 1 0"), 0, -1 },
	{ "no legend line", "slabinfo - version: 2.1\n" ROW("1 : tunables 0 0 0 : slabdata 1 1 0"), 0, -1 },
	{ "pagesperslab 0", HDR ROW("0 : tunables 0 0 0 : slabdata 1 1 0"), 0, -1 },
	{ "pagesperslab 6", HDR ROW("6 : tunables 0 0 0 : slabdata 1 1 0"), 0, -1 },
	{ "no slabdata", HDR ROW("1 : tunables 0 0 0"), 0, -1 },
	{ "two tunables", HDR ROW("1 : tunables 0 0 : slabdata 1 1 0"), 0, -1 },
	{ "four slabdata", HDR ROW("1 : tunables 0 0 0 : slabdata 1 1 0 0"), 0, -1 },
	{ "section without numbers", HDR ROW("1 : tunables 0 0 0 : slabdata 1 1 0 : globalstat"), 0, -1 },
	{ "section without word", HDR ROW("1 : tunables 0 0 0 : slabdata 1 1 0 : 1 2"), 0, -1 },
	{ "dangling colon", HDR ROW("1 : tunables 0 0 0 : slabdata 1 1 0 :"), 0, -1 },
	{ "missing column", HDR "foo 1 2 3 1 : tunables 0 0 0 : slabdata 1 1 0\n", 0, -1 },
	{ "negative", HDR "foo -1 2 3 4 1 : tunables 0 0 0 : slabdata 1 1 0\n", 0, -1 },
	{ "high byte in name", HDR "f\xc3\xa9 1 2 3 4 1 : tunables 0 0 0 : slabdata 1 1 0\n", 0, -1 },
	{ "NUL in name", L(HDR "f\0o 1 2 3 4 1 : tunables 0 0 0 : slabdata 1 1 0\n"), -1 },
	{ "blank line", HDR ROW("1 : tunables 0 0 0 : slabdata 1 1 0") "\n", 0, -1 },
	{ "no final newline", HDR "foo 1 2 3 4 1 : tunables 0 0 0 : slabdata 1 1 0", 0, -1 },
};

static void test_inline(void)
{
	for (size_t i = 0; i < sizeof inlines / sizeof inlines[0]; i++) {
		const struct inline_case *c = &inlines[i];
		size_t len = c->len ? c->len : strlen(c->text);

		T_EQ_I(slabinfo_parse(c->text, len, &si), c->rc, "inline \"%s\": returns %d", c->what, c->rc);
	}
	T_CHECK(slabinfo_find(&si, "nope") == NULL, "slabinfo_find: absent name is NULL");
	T_CHECK(slabinfo_find(&si, NULL) == NULL, "slabinfo_find: NULL name is NULL");
	{
		static const char t[] = HDR "dup 1 1 8 1 1 : tunables 0 0 0 : slabdata 1 1 0\n"
			"dup 2 2 8 1 2 : tunables 0 0 0 : slabdata 1 1 0\n";

		T_EQ_I(slabinfo_parse(t, sizeof t - 1, &si), 0, "duplicate names parse");
		T_CHECK(si.n == 2 && slabinfo_find(&si, "dup") == &si.c[0], "duplicate names: find returns the first");
	}
}

static void test_cap(void)
{
	for (int nc = SLABINFO_MAX; nc <= SLABINFO_MAX + 1; nc++) {
		size_t n = (size_t)snprintf(buf, sizeof buf, "%s", HDR);

		for (int i = 0; i < nc; i++)
			n += (size_t)snprintf(buf + n, sizeof buf - n,
					      "c%d %d %d 64 64 1 : tunables 0 0 0 : slabdata 1 1 0\n", i, i, i);
		T_EQ_I(slabinfo_parse(buf, n, &si), nc <= SLABINFO_MAX ? 0 : -1, "%d caches: %s", nc,
		       nc <= SLABINFO_MAX ? "accepted" : "over the cap, rejected");
	}
}

/* Real kernel output: this VM (6.18) and the Xen PV test guest (6.1), see tests/fixtures/README.md. */
static void test_host(void)
{
	static const char *const names[] = { "slabinfo.host", "slabinfo.xenpv" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		long n = t_fixture(names[i], buf, sizeof buf);
		char path[512];

		T_CHECK(n > 0, "%s: fixture readable", names[i]);
		if (n <= 0)
			continue;
		fixture_path(names[i], path, sizeof path);
		check_against_awk(names[i], path, buf, (size_t)n);
		check_find(names[i], path, "dentry");
		check_find(names[i], path, "task_struct");
		check_find(names[i], path, "kmalloc-8k");
	}
}

static void test_live(void)
{
	ssize_t n = procfile_read(NULL, "proc/slabinfo", buf, sizeof buf);
	char path[64];

	if (n < 0) {
		T_SKIP("live /proc/slabinfo unreadable (root only): %s", strerror(errno));
		return;
	}
	if (t_write_tmp(buf, (size_t)n, path, sizeof path) < 0) {
		T_CHECK(0, "live: temp copy written");
		return;
	}
	check_against_awk("live /proc/slabinfo", path, buf, (size_t)n);
	unlink(path);
}

int main(void)
{
	test_fixtures();
	test_inline();
	test_cap();
	test_host();
	test_live();
	T_DONE();
}
