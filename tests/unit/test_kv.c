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
#include "common/num.h"
#include "common/procfile.h"
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
	/* The one-pass walk: every scan stops at the line's '\n', never in the next line. */
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 5\n", vmstat_parse, -1, NULL, 0 },   /* 48 chars */
	{ "a 1\nb", vmstat_parse, -1, NULL, 0 },
	{ "a 1\nb\n", vmstat_parse, -1, NULL, 0 },
	{ "a\n1\n", vmstat_parse, -1, NULL, 0 },
	{ "a \n1\n", vmstat_parse, -1, NULL, 0 },
	{ "a 1\n 2\n", vmstat_parse, -1, NULL, 0 },
	{ "a 9999999999999999999\n", vmstat_parse, 0, "a", 9999999999999999999ULL },   /* 19 digits */
	{ "a 10000000000000000000\n", vmstat_parse, 0, "a", 10000000000000000000ULL }, /* 20 digits */
	{ "a 100000000000000000000\n", vmstat_parse, -1, NULL, 0 },
	{ "a\xc3\xa9 1\n", vmstat_parse, -1, NULL, 0 },
	{ "a 1\xff\n", vmstat_parse, -1, NULL, 0 },
	{ "MemFree: 1 k\nB: 2\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree: 1 k\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree: 1 \nkB: 2\n", meminfo_parse, 0, "kB", 2 },
	{ "MemFree: 1 kB\nB 2\n", meminfo_parse, -1, NULL, 0 },
	{ "MemFree:\n1 kB\n", meminfo_parse, -1, NULL, 0 },
	{ "A: 1 kB\nB: 2 kB\nC: 3\n", meminfo_parse, 0, "C", 3 },
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

/* A NUL anywhere in a line is junk (the inline table above cannot hold one). */
static void test_nul(void)
{
	static const struct { const char *text; size_t len; parse_fn parse; } c[] = {
		{ "a 1\0\n", 5, vmstat_parse }, { "a\0 1\n", 5, vmstat_parse }, { "\0a 1\n", 5, vmstat_parse },
		{ "a 1\n\0", 5, vmstat_parse }, { "M: 1 kB\0\n", 9, meminfo_parse }, { "M: 1 k\0B\n", 9, meminfo_parse },
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		T_EQ_I(c[i].parse(c[i].text, c[i].len, &kv), -1, "NUL case %zu rejected", i);
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

/*
 * The parser before its one-pass walk (commit 062dccf), kept as the oracle for random edits: the
 * walk changed how lines are cut and names copied, not the grammar, so both must agree on every
 * input.
 */
static int ref_line(const char *p, const char *end, int meminfo, struct kv_entry *e)
{
	const char *s = p;
	size_t n, ws;

	while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			   *p == '_' || *p == '(' || *p == ')'))
		p++;
	n = (size_t)(p - s);
	if (n == 0 || n >= KV_NAME_MAX)
		return -1;
	memcpy(e->name, s, n);
	e->name[n] = '\0';
	if (meminfo) {
		if (p == end || *p != ':')
			return -1;
		p++;
	}
	for (ws = 0; p < end && (*p == ' ' || *p == '\t'); p++)
		ws++;
	if (!meminfo && ws == 0)
		return -1;
	for (s = p; p < end && *p >= '0' && *p <= '9'; p++)
		;
	if (num_parse_u64(s, (size_t)(p - s), &e->value) < 0)
		return -1;
	for (ws = 0; p < end && (*p == ' ' || *p == '\t'); p++)
		ws++;
	if (meminfo && ws > 0 && end - p >= 2 && p[0] == 'k' && p[1] == 'B') {
		for (p += 2; p < end && (*p == ' ' || *p == '\t'); p++)
			;
	}
	return p == end ? 0 : -1;
}

static int ref_parse(const char *buf_, size_t len, int meminfo, struct kv_set *out)
{
	const char *p = buf_, *end = buf_ + len;

	out->n = 0;
	if (len == 0 || buf_[len - 1] != '\n')
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (out->n == KV_MAX || ref_line(p, nl, meminfo, &out->e[out->n]) < 0)
			return -1;
		out->n++;
		p = nl + 1;
	}
	return 0;
}

/* Random edits of the host fixtures (bytes changed, inserted, deleted; lines moved): the parser and
 * the oracle agree.  The seed is printed; KV_SEED=N replays it. */
static void test_random(void)
{
	static char in[1 << 16], out[1 << 16];
	static struct kv_set a, b;
	static const char bytes[] = " \t:-0123456789kBaZ_()\n\xe9";
	unsigned seed = getenv("KV_SEED") ? (unsigned)strtoul(getenv("KV_SEED"), NULL, 10) : (unsigned)getpid();

	printf("test_kv: random edits, seed %u (KV_SEED=%u replays)\n", seed, seed);
	srand(seed);
	for (int m = 0; m < 2; m++) {
		long n = t_fixture(m ? "meminfo.host" : "vmstat.host", buf, sizeof buf);
		parse_fn parse = m ? meminfo_parse : vmstat_parse;
		int bad = 0, accepted = 0;
		const int rounds = 3000;

		if (n <= 0 || (size_t)n + 64 > sizeof in) {
			T_SKIP("%s fixture missing", m ? "meminfo" : "vmstat");
			continue;
		}
		for (int r = 0; r < rounds; r++) {
			size_t len = (size_t)n;
			int ra, rb, same;

			memcpy(in, buf, len);
			for (int k = 1 + rand() % 2; k > 0 && len > 1; k--) {
				size_t at = (size_t)rand() % len, x, y, c, o = 0;
				switch (rand() % 4) {
				case 0:
					in[at] = bytes[rand() % (sizeof bytes - 1)];
					break;
				case 1:
					memmove(in + at + 1, in + at, len - at);
					in[at] = bytes[rand() % (sizeof bytes - 1)];
					len++;
					break;
				case 2:
					memmove(in + at, in + at + 1, len - at - 1);
					len--;
					break;
				default:   /* the line around `at` moved before another line */
					for (x = at; x > 0 && in[x - 1] != '\n'; x--)
						;
					for (y = at; y < len && in[y] != '\n'; y++)
						;
					y = y < len ? y + 1 : y;
					for (c = (size_t)rand() % len; c > 0 && in[c - 1] != '\n'; c--)
						;
					if (c >= x && c <= y)
						break;
					for (size_t i = 0; i < len; i++) {
						if (i == c) {
							memcpy(out + o, in + x, y - x);
							o += y - x;
						}
						if (i < x || i >= y)
							out[o++] = in[i];
					}
					memcpy(in, out, o);
					break;
				}
			}
			ra = parse(in, len, &a);
			rb = ref_parse(in, len, m, &b);
			same = ra == rb && (ra != 0 || a.n == b.n);

			for (int i = 0; same && ra == 0 && i < a.n; i++)
				same = strcmp(a.e[i].name, b.e[i].name) == 0 && a.e[i].value == b.e[i].value;
			if (!same) {
				if (!bad++)
					printf("      %s round %d: parser %d, oracle %d\n", m ? "meminfo" : "vmstat", r, ra, rb);
			}
			accepted += ra == 0;
		}
		T_CHECK(!bad, "%s: %d random edits, the parser agrees with the oracle (%d accepted)",
			m ? "meminfo" : "vmstat", rounds, accepted);
	}
}

int main(void)
{
	test_fixtures();
	test_inline();
	test_nul();
	test_random();
	test_cap();
	test_get();
	test_status_kb();
	test_host();
	live("proc/vmstat", vmstat_parse, AWK_VMSTAT);
	live("proc/meminfo", meminfo_parse, AWK_MEMINFO);
	T_DONE();
}
