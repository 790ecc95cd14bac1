/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_buddyinfo: hand-made fixtures with hand-counted values, inline edge
 * cases, and the host fixture plus the live /proc/buddyinfo checked against
 * an independent awk parse of the same bytes.
 */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "collector/buddyinfo.h"
#include "common/procfile.h"
#include "tests/unit/test.h"

static char buf[1 << 20];
static struct buddyinfo bi;

/* The canonical text both sides produce: "node zone ncols c0 .. cn-1 free_pages". */
static void dump(const struct buddyinfo *b, char *out, size_t cap)
{
	out[0] = '\0';
	for (int i = 0; i < b->nzones; i++) {
		t_app(out, cap, "%d %s %d", b->z[i].node, b->z[i].zone, b->norders);
		for (int k = 0; k < b->norders; k++)
			t_app(out, cap, " %" PRIu64, b->z[i].free[k]);
		t_app(out, cap, " %" PRIu64 "\n", buddyinfo_free_pages(&b->z[i], b->norders));
	}
}

/* awk sees fields, strips the comma, and sums count * 2^order itself. */
static const char AWK_BUDDY[] =
	"{ gsub(\",\", \"\"); t = 0; printf \"%s %s %d\", $2, $4, NF - 4;"
	"  for (i = 5; i <= NF; i++) { printf \" %s\", $i; t += $i * 2 ^ (i - 5) }"
	"  printf \" %.0f\\n\", t }";

static void check_against_awk(const char *what, const char *path, const char *data, size_t len)
{
	static char want[1 << 16], got[1 << 16];
	int rc = buddyinfo_parse(data, len, &bi);

	T_EQ_I(rc, 0, "%s: parses", what);
	if (rc != 0)
		return;
	T_CHECK(t_awk_file(AWK_BUDDY, path, want, sizeof want) == 0, "%s: awk ran", what);
	dump(&bi, got, sizeof got);
	T_EQ_S(got, want, "%s: every node, zone, count and free-page total agrees with awk", what);
}

struct fixture_case {
	const char *name;
	int rc;
	int nzones, norders;
	int zi;                 /* zone to spot-check */
	int node;
	const char *zone;
	int order;
	uint64_t count;         /* free[order] of zone zi */
	uint64_t free_pages;    /* hand-summed count << order */
};

static const struct fixture_case fixtures[] = {
	/* node 0 Normal: 1000 + 500*2 + 250*4 + 125*8 + 60*16 + 30*32 + 15*64 + 8*128 + 4*256 + 2*512 + 1024 */
	{ "buddyinfo.numa2", 0, 5, 11, 2, 0, "Normal", 4, 60, 10976 },
	/* node 1 Normal: 3 + 4096 << 10 */
	{ "buddyinfo.numa2", 0, 5, 11, 3, 1, "Normal", 10, 4096, 4194307 },
	{ "buddyinfo.numa2", 0, 5, 11, 4, 1, "Movable", 10, 10, 10240 },
	/* DMA: 10*1+9*2+8*4+7*8+6*16+5*32+4*64+3*128+2*256+1*512 = 2036, + 1 << 13 */
	{ "buddyinfo.order14", 0, 2, 14, 0, 0, "DMA", 13, 1, 10228 },
	{ "buddyinfo.order14", 0, 2, 14, 1, 0, "Normal", 13, 7, 100 + 7 * 8192 },
	{ "buddyinfo.u64max", 0, 1, 11, 0, 0, "Normal", 0, UINT64_MAX, UINT64_MAX },
	{ "buddyinfo.truncated", -1, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "buddyinfo.junk", -1, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "buddyinfo.inconsistent", -1, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "buddyinfo.longzone", -1, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "buddyinfo.overflow", -1, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "buddyinfo.orders17", -1, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "buddyinfo.duplicate", -1, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "empty", -1, 0, 0, 0, 0, NULL, 0, 0, 0 },
};

static void test_fixtures(void)
{
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		const struct fixture_case *c = &fixtures[i];
		long n = t_fixture(c->name, buf, sizeof buf);
		int rc;

		T_CHECK(n >= 0, "%s: fixture readable", c->name);
		if (n < 0)
			continue;
		rc = buddyinfo_parse(buf, (size_t)n, &bi);
		T_EQ_I(rc, c->rc, "%s: parse returns %d", c->name, c->rc);
		if (rc != 0 || c->rc != 0)
			continue;
		T_EQ_I(bi.nzones, c->nzones, "%s: zones", c->name);
		T_EQ_I(bi.norders, c->norders, "%s: orders", c->name);
		T_EQ_I(bi.z[c->zi].node, c->node, "%s: zone %d node", c->name, c->zi);
		T_EQ_S(bi.z[c->zi].zone, c->zone, "%s: zone %d name", c->name, c->zi);
		T_CHECK(bi.z[c->zi].free[c->order] == c->count, "%s: %s order %d count %" PRIu64,
			c->name, c->zone, c->order, c->count);
		T_CHECK(buddyinfo_free_pages(&bi.z[c->zi], bi.norders) == c->free_pages,
			"%s: %s free pages %" PRIu64, c->name, c->zone, c->free_pages);
	}
}

struct inline_case {
	const char *what;
	const char *text;
	size_t len;             /* 0: strlen(text) */
	int rc;
	int nzones, norders;
};

#define L(s) s, sizeof(s) - 1

static const struct inline_case inlines[] = {
	{ "one zone one order", "Node 0, zone Normal 1\n", 0, 0, 1, 1 },
	{ "trailing blanks", "Node 0, zone Normal 1 2   \n", 0, 0, 1, 2 },
	{ "kernel widths", "Node 0, zone   Normal    385    128 \n", 0, 0, 1, 2 },
	{ "15-char zone name fits", "Node 0, zone ABCDEFGHIJKLMNO 1\n", 0, 0, 1, 1 },
	{ "node INT_MAX", "Node 2147483647, zone Normal 1\n", 0, 0, 1, 1 },
	{ "16 orders fit", "Node 0, zone N 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n", 0, 0, 1, 16 },
	{ "no columns", "Node 0, zone Normal\n", 0, -1, 0, 0 },
	{ "no columns, trailing blank", "Node 0, zone Normal \n", 0, -1, 0, 0 },
	{ "leading zero", "Node 0, zone Normal 01\n", 0, -1, 0, 0 },
	{ "negative count", "Node 0, zone Normal -1\n", 0, -1, 0, 0 },
	{ "blank line", "Node 0, zone Normal 1\n\n", 0, -1, 0, 0 },
	{ "negative node", "Node -1, zone Normal 1\n", 0, -1, 0, 0 },
	{ "node over INT_MAX", "Node 2147483648, zone Normal 1\n", 0, -1, 0, 0 },
	{ "dash in zone name", "Node 0, zone Norm-al 1\n", 0, -1, 0, 0 },
	{ "CRLF", "Node 0, zone Normal 1\r\n", 0, -1, 0, 0 },
	{ "no blank after comma", "Node 0,zone Normal 1\n", 0, -1, 0, 0 },
	{ "count glued to name", "Node 0, zone Normal1\n", 0, -1, 0, 0 },
	{ "no final newline", "Node 0, zone Normal 1", 0, -1, 0, 0 },
	{ "only a newline", "\n", 0, -1, 0, 0 },
	{ "NUL inside a name", L("Node 0, zone Nor\0mal 1\n"), -1, 0, 0 },
	{ "NUL inside a count", L("Node 0, zone Normal 1\0002\n"), -1, 0, 0 },
	{ "zone missing", "Node 0, zone  1 2\n", 0, -1, 0, 0 },
};

static void test_inline(void)
{
	for (size_t i = 0; i < sizeof inlines / sizeof inlines[0]; i++) {
		const struct inline_case *c = &inlines[i];
		size_t len = c->len ? c->len : strlen(c->text);
		int rc = buddyinfo_parse(c->text, len, &bi);

		T_EQ_I(rc, c->rc, "inline \"%s\": returns %d", c->what, c->rc);
		if (rc == 0 && c->rc == 0) {
			T_EQ_I(bi.nzones, c->nzones, "inline \"%s\": zones", c->what);
			T_EQ_I(bi.norders, c->norders, "inline \"%s\": orders", c->what);
		}
	}
}

/* BUDDY_MAX_ZONES distinct lines parse; one more is over the cap. */
static void test_zone_cap(void)
{
	size_t n = 0;

	for (int i = 0; i <= BUDDY_MAX_ZONES; i++) {
		if (i == BUDDY_MAX_ZONES) {
			T_EQ_I(buddyinfo_parse(buf, n, &bi), 0, "%d zones: accepted", BUDDY_MAX_ZONES);
			T_EQ_I(bi.nzones, BUDDY_MAX_ZONES, "%d zones: all kept", BUDDY_MAX_ZONES);
		}
		n += (size_t)snprintf(buf + n, sizeof buf - n, "Node %d, zone Normal 1 2\n", i);
	}
	T_EQ_I(buddyinfo_parse(buf, n, &bi), -1, "%d zones: over the cap, rejected", BUDDY_MAX_ZONES + 1);
}

/* Sums that do not fit saturate instead of wrapping. */
static void test_saturation(void)
{
	static const char t[] = "Node 0, zone Normal 0 18446744073709551615\n";

	T_EQ_I(buddyinfo_parse(t, sizeof t - 1, &bi), 0, "u64 max at order 1 parses");
	T_CHECK(buddyinfo_free_pages(&bi.z[0], bi.norders) == UINT64_MAX, "free pages saturate at UINT64_MAX");
}

/* Real kernel output: this VM (6.18) and the Xen PV test guest (6.1), see tests/fixtures/README.md. */
static void test_host(void)
{
	static const char *const names[] = { "buddyinfo.host", "buddyinfo.xenpv" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		long n = t_fixture(names[i], buf, sizeof buf);
		char path[512];

		snprintf(path, sizeof path, "%s/%s", getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures", names[i]);
		T_CHECK(n > 0, "%s: fixture readable", names[i]);
		if (n > 0)
			check_against_awk(names[i], path, buf, (size_t)n);
	}
}

/* The live file, read once; awk parses the very same bytes from a temp copy. */
static void test_live(void)
{
	ssize_t n = procfile_read(NULL, "proc/buddyinfo", buf, sizeof buf);
	char path[64];

	if (n < 0) {
		T_SKIP("live /proc/buddyinfo unreadable: %s", strerror(errno));
		return;
	}
	if (t_write_tmp(buf, (size_t)n, path, sizeof path) < 0) {
		T_CHECK(0, "live: temp copy written");
		return;
	}
	check_against_awk("live /proc/buddyinfo", path, buf, (size_t)n);
	unlink(path);
}

int main(void)
{
	test_fixtures();
	test_inline();
	test_zone_cap();
	test_saturation();
	test_host();
	test_live();
	T_DONE();
}
