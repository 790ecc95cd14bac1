/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_zoneinfo: the /proc/zoneinfo parser.
 *  - this VM's zoneinfo (fixture), expected values copied from the file;
 *  - hand-made 3.10 (two nodes, empty zones omitted) and 4.19 layouts with
 *    hand-written expectations;
 *  - the Xen PV guest fixture and the live /proc/zoneinfo, checked against
 *    an independent awk parse of the same bytes;
 *  - malformed inputs, each built from a valid base by one edit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

#include "collector/zoneinfo.h"
#include "common/procfile.h"
#include "test.h"
#include "zoneinfo_twin.h"

static char buf[1 << 20];
static struct zoneinfo zi;

static const struct zoneinfo_zone *Z(const char *zone, int node)
{
	return zoneinfo_find(&zi, node, zone);
}

static int prot_is(const struct zoneinfo_zone *z, int n, ...)
{
	va_list ap;
	int ok = z && z->nprot == n;

	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		int64_t want = va_arg(ap, int64_t);
		if (ok && z->protection[i] != want)
			ok = 0;
	}
	va_end(ap);
	return ok;
}

static void test_host(void)
{
	long n = t_fixture("zoneinfo-6.18-fc-x86_64.txt", buf, sizeof buf);
	const struct zoneinfo_zone *z;

	T_CHECK(n > 0 && zoneinfo_parse(buf, (size_t)n, &zi) == 0 && zi.nzones == 5, "6.18 fixture: 5 zones");
	z = Z("DMA", 0);
	T_CHECK(z && z->idx == 0 && z->free == 3840 && z->boost == 0 && z->min == 53 && z->low == 66 && z->high == 79 &&
		z->spanned == 4095 && z->present == 3998 && z->managed == 3840 && z->cma == 0 &&
		prot_is(z, 5, (int64_t)0, (int64_t)3019, (int64_t)4683, (int64_t)4683, (int64_t)4683) &&
		z->start_pfn == 1 && z->ncpus == 2 && z->pcp_count == 0 && z->populated,
		"6.18 DMA: free 3840, min/low/high 53/66/79, protection (0, 3019, 4683, 4683, 4683)");
	z = Z("DMA32", 0);
	T_CHECK(z && z->idx == 1 && z->free == 772915 && z->min == 10857 && z->low == 13571 && z->high == 16285 &&
		z->managed == 772915 && prot_is(z, 5, (int64_t)0, (int64_t)0, (int64_t)1664, (int64_t)1664, (int64_t)1664) &&
		z->start_pfn == 4096, "6.18 DMA32 values");
	z = Z("Normal", 0);
	/* The zone's own LRU counters (the reclaimable pages of should_reclaim_retry), not the node's. */
	T_CHECK(z && (z->have & ZI_LRU) == ZI_LRU && z->nr_zone_inactive_anon == 158237 && z->nr_zone_active_anon == 395 &&
		z->nr_zone_inactive_file == 26251 && z->nr_zone_active_file == 36722,
		"6.18 Normal: zone LRU counters 158237/395 anon, 26251/36722 file");
	T_CHECK(Z("DMA", 0) && (Z("DMA", 0)->have & ZI_LRU) == ZI_LRU && Z("DMA", 0)->nr_zone_active_file == 0,
		"6.18 DMA: zone LRU counters present and 0");
	z = Z("Normal", 0);
	T_CHECK(z && z->idx == 2 && z->free == 152175 && z->min == 5984 && z->low == 7480 && z->high == 8976 &&
		z->spanned == 5505024 && z->present == 5505024 && z->managed == 425984 &&
		z->nr_free_pages == 152175 && z->nr_free_cma == 0 && z->pcp_count == 3504 + 5007 && z->ncpus == 2 &&
		z->start_pfn == 1048576 && (z->have & (ZI_BOOST | ZI_PROMO | ZI_MANAGED | ZI_CMA | ZI_NR_FREE_PAGES |
							ZI_NR_FREE_CMA | ZI_START_PFN | ZI_PCP)) ==
		(ZI_BOOST | ZI_PROMO | ZI_MANAGED | ZI_CMA | ZI_NR_FREE_PAGES | ZI_NR_FREE_CMA | ZI_START_PFN | ZI_PCP),
		"6.18 Normal values, pcp count 3504+5007, all optional fields seen");
	z = Z("Movable", 0);
	T_CHECK(z && z->idx == 3 && z->free == 0 && z->min == 32 && z->present == 0 && !z->populated &&
		!(z->have & (ZI_NR_FREE_PAGES | ZI_PCP | ZI_START_PFN)), "6.18 Movable: present 0 kept, no stats");
	z = Z("Device", 0);
	T_CHECK(z && z->idx == 4 && z->min == 0 && z->nprot == 5, "6.18 Device: index 4");
}

static void test_310(void)
{
	long n = t_fixture("zoneinfo-3.10-numa-handmade.txt", buf, sizeof buf);
	const struct zoneinfo_zone *z;

	T_CHECK(n > 0 && zoneinfo_parse(buf, (size_t)n, &zi) == 0 && zi.nzones == 4, "3.10 fixture: 4 zones on 2 nodes");
	z = Z("DMA", 0);
	T_CHECK(z && z->idx == -1 && z->free == 3976 && z->min == 5 && z->low == 6 && z->high == 7 && z->managed == 3976 &&
		prot_is(z, 4, (int64_t)0, (int64_t)1823, (int64_t)3854, (int64_t)3854) && !(z->have & (ZI_BOOST | ZI_CMA)) &&
		z->ncpus == 2 && z->pcp_count == 0 && z->start_pfn == 1,
		"3.10 DMA: counters before protection, no boost/cma, idx unknown (3 zones listed, 4 types)");
	z = Z("DMA32", 0);
	T_CHECK(z && z->nr_free_cma == 17 && (z->have & ZI_NR_FREE_CMA) && z->pcp_count == 135 + 166 && z->high == 16752,
		"3.10 DMA32: nr_free_cma 17, pcp 135+166, watermark high not confused with pcp high:");
	z = Z("Normal", 0);
	T_CHECK(z && z->free == 25000 && z->pcp_count == 30, "3.10 node 0 Normal");
	z = Z("Normal", 1);
	T_CHECK(z && z->node == 1 && z->idx == -1 && z->free == 1343098 && z->min == 14318 && z->ncpus == 1 &&
		z->pcp_count == 4 && z->start_pfn == 1572864, "3.10 node 1 Normal (the only zone listed)");
}

static void test_419(void)
{
	long n = t_fixture("zoneinfo-4.19-handmade.txt", buf, sizeof buf);
	const struct zoneinfo_zone *z;

	T_CHECK(n > 0 && zoneinfo_parse(buf, (size_t)n, &zi) == 0 && zi.nzones == 5, "4.19 fixture: 5 zones");
	z = Z("DMA", 0);
	T_CHECK(z && z->idx == 0 && z->free == 3975 && z->nr_free_pages == 3975 && z->min == 33 &&
		prot_is(z, 5, (int64_t)0, (int64_t)2933, (int64_t)3865, (int64_t)3865, (int64_t)3865) &&
		!(z->have & ZI_BOOST), "4.19 DMA: per-node stats skipped, protection read");
	z = Z("DMA32", 0);
	T_CHECK(z && z->idx == 1 && z->pcp_count == 63 && z->low == 7545, "4.19 DMA32");
	z = Z("Normal", 0);
	T_CHECK(z && z->idx == 2 && z->node_unreclaimable == 1 && (z->have & ZI_NODE_UNRECLAIMABLE) && z->pcp_count == 345,
		"4.19 Normal: node_unreclaimable 1, pcp 300+45");
	z = Z("Movable", 0);
	T_CHECK(z && z->idx == 3 && !z->populated, "4.19 Movable index 3, empty");
}

/* Independent parse: node zone free min low high spanned present (protection,...) per zone. */
static const char awk_prog[] =
	"function out(){ if (zone != \"\") printf \"%s %s %s %s %s %s %s %s (%s)\\n\", node, zone, f, mn, lo, hi, sp, pr, prot }"
	"/^Node /{ out(); node=$2; sub(/,/, \"\", node); zone=$4; next }"
	"$1==\"pages\" && $2==\"free\"{ f=$3; next }"
	"$1==\"min\"{ mn=$2 } $1==\"low\"{ lo=$2 } $1==\"high\"{ hi=$2 } $1==\"spanned\"{ sp=$2 } $1==\"present\"{ pr=$2 }"
	"$1==\"protection:\"{ p=$0; sub(/.*\\(/, \"\", p); sub(/\\).*/, \"\", p); gsub(/ /, \"\", p); prot=p }"
	"END{ out() }";

static int awk_file(const char *path, char *out, size_t cap)
{
	char cmd[4096];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof cmd, "awk '%s' '%s'", awk_prog, path);
	if (!(f = popen(cmd, "r")))
		return -1;
	n = fread(out, 1, cap - 1, f);
	out[n] = '\0';
	return pclose(f) == 0 && n < cap - 1 ? 0 : -1;
}

static void ours(const struct zoneinfo *x, char *out, size_t cap)
{
	size_t o = 0;

	out[0] = '\0';
	for (int i = 0; i < x->nzones && o < cap; i++) {
		const struct zoneinfo_zone *z = &x->z[i];

		o += (size_t)snprintf(out + o, cap - o, "%d %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " (",
				      z->node, z->zone, z->free, z->min, z->low, z->high, z->spanned, z->present);
		for (int k = 0; k < z->nprot && o < cap; k++)
			o += (size_t)snprintf(out + o, cap - o, "%s%" PRId64, k ? "," : "", z->protection[k]);
		if (o < cap)
			o += (size_t)snprintf(out + o, cap - o, ")\n");
	}
}

/* Parse path's bytes and compare with awk over the same bytes. */
static void cross_check(const char *what, const char *bytes, size_t len)
{
	static char a[1 << 16], b[1 << 16];
	char tmp[] = "/tmp/fpusoak-zoneinfo-XXXXXX";
	int fd = mkstemp(tmp);

	if (fd < 0 || write(fd, bytes, len) != (ssize_t)len) {
		T_SKIP("%s: cannot write temp file: %s", what, strerror(errno));
		if (fd >= 0)
			close(fd), unlink(tmp);
		return;
	}
	close(fd);
	if (awk_file(tmp, a, sizeof a) < 0) {
		T_SKIP("%s: awk not available", what);
		unlink(tmp);
		return;
	}
	unlink(tmp);
	T_CHECK(zoneinfo_parse(bytes, len, &zi) == 0, "%s parses", what);
	ours(&zi, b, sizeof b);
	T_CHECK(strcmp(a, b) == 0 && zi.nzones > 0, "%s: %d zones agree with awk", what, zi.nzones);
	if (strcmp(a, b) != 0)
		printf("      awk:\n%s      ours:\n%s", a, b);
}

static void test_cross(void)
{
	long n = t_fixture("zoneinfo.xenpv", buf, sizeof buf);
	ssize_t m;

	if (n > 0) {
		cross_check("xenpv fixture", buf, (size_t)n);
		T_CHECK(zi.nzones == 5 && zi.z[0].idx == 0 && zi.z[4].idx == 4, "xenpv: zone indices 0..4");
	} else {
		T_SKIP("zoneinfo.xenpv fixture missing");
	}
	n = t_fixture("zoneinfo-3.10-numa-handmade.txt", buf, sizeof buf);
	if (n > 0)
		cross_check("3.10 fixture", buf, (size_t)n);
	m = procfile_read(NULL, "proc/zoneinfo", buf, sizeof buf);
	if (m < 0)
		T_SKIP("live /proc/zoneinfo unreadable: %s", strerror(errno));
	else
		cross_check("live /proc/zoneinfo", buf, (size_t)m);
}

static const char base[] =
	"Node 0, zone   Normal\n"
	"  pages free     100\n"
	"        min      10\n"
	"        low      12\n"
	"        high     14\n"
	"        spanned  200\n"
	"        present  200\n"
	"        protection: (0, 0)\n"
	"      nr_free_pages 100\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count:    5\n"
	"              high:     6\n"
	"  start_pfn:           4096\n";

/* base with the first occurrence of from replaced by to. */
static size_t edit(char *out, size_t cap, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	size_t pre;

	if (!at)
		return 0;
	pre = (size_t)(at - base);
	snprintf(out, cap, "%.*s%s%s", (int)pre, base, to, at + strlen(from));
	return strlen(out);
}

static void test_malformed(void)
{
	static const struct { const char *name, *from, *to; } e[] = {
		{ "missing protection", "        protection: (0, 0)\n", "" },
		{ "missing min", "        min      10\n", "" },
		{ "missing pages free", "  pages free     100\n", "" },
		{ "duplicate min", "        min      10\n", "        min      10\n        min      11\n" },
		{ "duplicate protection", "        protection: (0, 0)\n", "        protection: (0, 0)\n        protection: (0, 0)\n" },
		{ "protection without parens", "(0, 0)", "0, 0" },
		{ "protection bad separator", "(0, 0)", "(0,0)" },
		{ "protection unclosed", "(0, 0)", "(0, 0" },
		{ "protection trailing junk", "(0, 0)", "(0, 0) x" },
		{ "protection 9 entries", "(0, 0)", "(0, 0, 0, 0, 0, 0, 0, 0, 0)" },
		{ "junk line", "  pagesets\n", "  pagesets\nthis is not zoneinfo\n" },
		{ "value not a number", "        low      12\n", "        low      1x2\n" },
		{ "negative min", "        min      10\n", "        min      -10\n" },
		{ "leading zero", "        min      10\n", "        min      010\n" },
		{ "count before cpu", "    cpu: 0\n", "" },
		{ "counter before pages free", "  pages free     100\n", "      nr_free_pages 100\n  pages free     100\n" },
		{ "bad node header", "Node 0, zone   Normal", "Node x, zone   Normal" },
		{ "zone name too long", "zone   Normal", "zone   NormalNormalNormal" },
		{ "node header junk", "zone   Normal", "zone   Normal extra" },
		{ "text before first zone", "Node 0", "hello\nNode 0" },
		{ "overflowing value", "        high     14\n", "        high     99999999999999999999\n" },
		{ "key with bad character", "      nr_free_pages 100\n", "      nr_free-pages 100\n" },
	};
	static char in[4096];
	size_t n;

	T_CHECK(zoneinfo_parse(base, strlen(base), &zi) == 0 && zi.nzones == 1 && zi.z[0].idx == -1 &&
		zi.z[0].pcp_count == 5 && zi.z[0].high == 14 && zi.z[0].start_pfn == 4096, "malformed-table base parses");
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
		n = edit(in, sizeof in, e[i].from, e[i].to);
		T_CHECK(n > 0 && zoneinfo_parse(in, n, &zi) < 0, "rejects: %s", e[i].name);
	}
	T_CHECK(zoneinfo_parse(base, strlen(base) - 1, &zi) < 0, "rejects: no final newline (truncated)");
	T_CHECK(zoneinfo_parse("", 0, &zi) < 0, "rejects: empty");
	T_CHECK(zoneinfo_parse(base, 30, &zi) < 0, "rejects: cut mid-zone");

	/* Two zones of different protection lengths cannot both be right. */
	n = (size_t)snprintf(in, sizeof in, "%sNode 0, zone  Movable\n  pages free 0\n min 0\n low 0\n high 0\n spanned 0\n present 0\n protection: (0, 0, 0)\n", base);
	T_CHECK(zoneinfo_parse(in, n, &zi) < 0, "rejects: protection arrays of different lengths");
	n = (size_t)snprintf(in, sizeof in, "%sNode 0, zone  Movable\n  pages free 0\n min 0\n low 0\n high 0\n spanned 0\n present 0\n protection: (0, 0)\n", base);
	T_CHECK(zoneinfo_parse(in, n, &zi) == 0 && zi.nzones == 2 && zi.z[0].idx == 0 && zi.z[1].idx == 1,
		"control: the same second zone with equal lengths parses, indices 0 and 1");
	n = (size_t)snprintf(in, sizeof in, "%s%s", base, base);
	T_CHECK(zoneinfo_parse(in, n, &zi) < 0, "rejects: the same zone twice");

	/* Unknown counters and "label: value" lines from newer kernels are fine. */
	n = edit(in, sizeof in, "  pagesets\n", "      nr_brand_new_counter 7\n  some new label:  3\n  pagesets\n");
	T_CHECK(n > 0 && zoneinfo_parse(in, n, &zi) == 0, "accepts unknown counters and labels");

	/* 65 zones: over the cap is an error, not a cut. */
	size_t o = 0, o64 = 0;
	static char many[1 << 16];
	for (int i = 0; i < 65 && o < sizeof many; i++) {
		if (i == 64)
			o64 = o;
		o += (size_t)snprintf(many + o, sizeof many - o,
				      "Node %d, zone   Normal\n  pages free 1\n min 1\n low 1\n high 1\n spanned 1\n present 1\n protection: (0)\n", i);
	}
	T_CHECK(zoneinfo_parse(many, o64, &zi) == 0 && zi.nzones == 64 && zi.z[63].idx == 0, "accepts: 64 zones (the cap)");
	T_CHECK(zoneinfo_parse(many, o, &zi) < 0, "rejects: 65 zones");
	T_CHECK(zoneinfo_find(&zi, 9, "Nope") == NULL, "find of an absent zone is NULL");
}

/*
 * The shortcut for simple lines (zoneinfo.c simple_line) against the general path (line()), black
 * box: a trailing blank takes any line off the shortcut (its shape ends in a digit) and line()
 * trims it away, so text and its "twin" with a blank after every line but the zone headers (whose
 * grammar takes no trailing blank) must parse alike: both rejected, or both to the same struct.
 */
/* 1 if in and its twin parse alike (rc, and the zones when accepted). */
static int same_as_twin(const char *in, size_t n, int *rc)
{
	static struct zoneinfo a, b;
	static char t[1 << 17];
	size_t tn = zoneinfo_twin(in, n, t, sizeof t);
	int ra = zoneinfo_parse(in, n, &a), rb;

	*rc = ra;
	if (tn == 0)
		return 0;
	rb = zoneinfo_parse(t, tn, &b);
	if (ra != rb)
		return 0;
	return ra != 0 || (a.nzones == b.nzones && memcmp(a.z, b.z, (size_t)a.nzones * sizeof a.z[0]) == 0);
}

static void test_shortcut(void)
{
	static const char *const fixtures[] = { "zoneinfo-6.18-fc-x86_64.txt", "zoneinfo.xenpv",
						 "zoneinfo-3.10-numa-handmade.txt" };
	static const struct { const char *name, *from, *to; int ok; } e[] = {
		/* Lines of the simple shape that only the general path may decide. */
		{ "protection: followed by a bare number", "        protection: (0, 0)\n",
		  "        protection: (0, 0)\n        protection: 5\n", 0 },
		{ "19 digits (over the shortcut's 18), within int64", "      nr_free_pages 100\n",
		  "      nr_free_pages 100\n      nr_brand_new 1234567890123456789\n", 1 },
		{ "19 nines: over int64", "      nr_free_pages 100\n", "      nr_free_pages 100\n      nr_brand_new 9999999999999999999\n", 0 },
		{ "18 digits", "      nr_free_pages 100\n", "      nr_free_pages 100\n      nr_brand_new 123456789012345678\n", 1 },
		{ "a negative unknown counter (general path)", "      nr_free_pages 100\n", "      nr_free_pages 100\n      nr_brand_new -5\n", 1 },
		{ "a negative watermark", "        low      12\n", "        low      -12\n", 0 },
		{ "leading zero", "      nr_free_pages 100\n", "      nr_free_pages 0100\n", 0 },
		{ "no value", "      nr_free_pages 100\n", "      nr_free_pages\n", 0 },
		{ "no blank before the value", "      nr_free_pages 100\n", "      nr_free_pages:100\n", 0 },
		{ "junk after the value", "      nr_free_pages 100\n", "      nr_free_pages 100x\n", 0 },
		{ "NUL in the value", "        low      12\n", "        low      1\0012\n", 0 },
		{ "a byte above 0x7f in the name", "      nr_free_pages 100\n", "      nr_free_p\xe4ges 100\n", 0 },
		{ "a colon and blanks (label: value)", "  start_pfn:           4096\n", "  start_pfn:\t4096\n", 1 },
		{ "trailing blank: general path, same value", "        low      12\n", "        low      12 \t\n", 1 },
		{ "a simple line before the first zone", "Node 0", "      nr_free_pages 1\nNode 0", 0 },
		{ "a watermark twice, the second one simple", "        low      12\n", "        low      12\n        low 12\n", 0 },
		{ "count before any cpu (simple shape)", "    cpu: 0\n", "    cpus: 0\n", 0 },
	};
	static char in[4096], big[1024];
	long n;
	int rc;

	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		if ((n = t_fixture(fixtures[i], buf, sizeof buf)) <= 0) {
			T_SKIP("%s missing", fixtures[i]);
			continue;
		}
		T_CHECK(same_as_twin(buf, (size_t)n, &rc) && rc == 0, "%s: the shortcut and the general path agree", fixtures[i]);
	}
	{
		ssize_t m = -1;
		int fd = open("/proc/zoneinfo", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			m = procfile_pread(fd, buf, sizeof buf);
			close(fd);
		}
		if (m > 0)
			T_CHECK(same_as_twin(buf, (size_t)m, &rc) && rc == 0, "live /proc/zoneinfo: the shortcut and the general path agree");
		else
			T_SKIP("live /proc/zoneinfo unreadable");
	}
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
		size_t k = edit(in, sizeof in, e[i].from, e[i].to);
		/* edit() stops at a NUL: the NUL case is measured by hand. */
		if (strchr(e[i].to, '\001') && k > 0) {
			char *at = strchr(in, '\001');
			*at = '\0';
		}
		T_CHECK(k > 0 && same_as_twin(in, k, &rc) && (rc == 0) == e[i].ok, "%s %s, as the general path does",
			e[i].ok ? "accepts" : "rejects", e[i].name);
	}
	/* A simple line of 513 bytes is over LINE_MAX_LEN whichever path sees it; 512 is not. */
	for (int len = 512; len <= 513; len++) {
		size_t k;

		memset(big, ' ', (size_t)len - 3);
		snprintf(big + len - 3, sizeof big - (size_t)(len - 3), "x 1\n  pagesets\n");
		k = edit(in, sizeof in, "  pagesets\n", big);
		T_CHECK(k > 0 && (zoneinfo_parse(in, k, &zi) == 0) == (len == 512), "a simple line of %d bytes %s", len,
			len == 512 ? "accepted" : "rejected (over LINE_MAX_LEN)");
	}
}

/*
 * Random edits of the 6.18 fixture, each parsed with and without the shortcut (its twin): moved,
 * repeated and dropped lines, and bytes changed, inserted or deleted.  The seed is printed;
 * ZONEINFO_SEED=N replays it.
 */
static void test_shortcut_random(void)
{
	static char in[1 << 17], out[1 << 17];
	static const char bytes[] = " \t:-0123456789aNz_()\n\xff";
	long n = t_fixture("zoneinfo-6.18-fc-x86_64.txt", buf, sizeof buf);
	unsigned seed = getenv("ZONEINFO_SEED") ? (unsigned)strtoul(getenv("ZONEINFO_SEED"), NULL, 10) : (unsigned)getpid();
	int bad = 0, accepted = 0, rc;
	const int rounds = 4000;

	if (n <= 0) {
		T_SKIP("6.18 fixture missing");
		return;
	}
	printf("test_zoneinfo: random edits, seed %u (ZONEINFO_SEED=%u replays)\n", seed, seed);
	srand(seed);
	for (int r = 0; r < rounds && !bad; r++) {
		size_t len = (size_t)n;
		memcpy(in, buf, len);
		for (int k = 1 + rand() % 3; k > 0; k--) {
			size_t at = (size_t)rand() % len, a, b, c;
			switch (rand() % 5) {
			case 0:   /* change a byte */
				in[at] = bytes[rand() % (sizeof bytes - 1)];
				break;
			case 1:   /* insert a byte */
				memmove(in + at + 1, in + at, len - at);
				in[at] = bytes[rand() % (sizeof bytes - 1)];
				len++;
				break;
			case 2:   /* delete a byte */
				memmove(in + at, in + at + 1, len - at - 1);
				len--;
				break;
			default:  /* move the line around `at` before another line, or repeat it there */
				for (a = at; a > 0 && in[a - 1] != '\n'; a--)
					;
				for (b = at; b < len && in[b] != '\n'; b++)
					;
				b = b < len ? b + 1 : b;
				for (c = (size_t)rand() % len; c > 0 && in[c - 1] != '\n'; c--)
					;
				if (c >= a && c <= b)
					break;
				{
					int repeat = rand() % 2;
					size_t o = 0;

					for (size_t i = 0; i < len; i++) {
						if (i == c) {
							memcpy(out + o, in + a, b - a);
							o += b - a;
						}
						if (repeat || i < a || i >= b)
							out[o++] = in[i];
					}
					memcpy(in, out, o);
					len = o;
				}
				break;
			}
			if (len == 0)
				break;
		}
		if (!same_as_twin(in, len, &rc)) {
			bad++;
			printf("      round %d: the shortcut and the general path disagree (rc %d)\n", r, rc);
		}
		accepted += rc == 0;
	}
	T_CHECK(!bad, "%d random edits: the shortcut and the general path agree (%d accepted)", rounds, accepted);
}

int main(void)
{
	test_host();
	test_310();
	test_419();
	test_cross();
	test_malformed();
	test_shortcut();
	test_shortcut_random();
	T_DONE();
}
