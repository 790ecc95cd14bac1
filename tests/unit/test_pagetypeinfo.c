/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_pagetypeinfo: hand-made fixtures (2 nodes, capped cells, 14 orders,
 * the mixed-blocks table) with hand-counted values, inline grammar cases,
 * and the host fixture plus the live file checked against awk.
 */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "collector/pagetypeinfo.h"
#include "common/procfile.h"
#include "tests/unit/test.h"

static char buf[1 << 20];
static struct pagetypeinfo pti;

/*
 * Canonical text: "order O ppb P", then one "free node zone type c.." line
 * per zone and type (capped cells keep their '>'), then "blocks node zone
 * type=n .." and "mixed ..." lines.
 */
static void dump(const struct pagetypeinfo *p, char *out, size_t cap)
{
	out[0] = '\0';
	t_app(out, cap, "order %d ppb %" PRIu64 "\n", p->pageblock_order, p->pages_per_block);
	for (int i = 0; i < p->nzones; i++) {
		for (int t = 0; t < p->ntypes; t++) {
			t_app(out, cap, "free %d %s %s", p->z[i].node, p->z[i].zone, p->type[t]);
			for (int k = 0; k < p->norders; k++)
				t_app(out, cap, " %s%" PRIu64, p->z[i].capped[t][k] ? ">" : "", p->z[i].free[t][k]);
			t_app(out, cap, "\n");
		}
	}
	for (int m = 0; m < 2; m++) {
		for (int i = 0; i < p->nzones; i++) {
			const uint64_t *v = m ? p->z[i].mixed : p->z[i].blocks;

			if (m && !p->z[i].has_mixed)
				continue;
			t_app(out, cap, "%s %d %s", m ? "mixed" : "blocks", p->z[i].node, p->z[i].zone);
			for (int t = 0; t < p->ntypes; t++)
				t_app(out, cap, " %s=%" PRIu64, p->type[t], v[t]);
			t_app(out, cap, "\n");
		}
	}
}

/* awk keeps every field as printed; header names label the count columns. */
static const char AWK_PTI[] =
	"/^Page block order:/ { if (o == \"\") o = $4 }"
	"/^Pages per block:/ { if (ppb == \"\") ppb = $4 }"
	"/^Free pages count/ { sec = \"free\"; next }"
	"/^Number of (blocks type|mixed blocks)/ { sec = ($3 == \"mixed\") ? \"mixed\" : \"blocks\";"
	"  nc = 0; for (i = 5; i <= NF; i++) col[++nc] = $i; next }"
	"/^Node/ { gsub(\",\", \"\");"
	"  if (sec == \"free\") { l = \"free \" $2 \" \" $4 \" \" $6; for (i = 7; i <= NF; i++) l = l \" \" $i; F = F l \"\\n\" }"
	"  else { l = sec \" \" $2 \" \" $4; for (i = 5; i <= NF; i++) l = l \" \" col[i - 4] \"=\" $i; B[sec] = B[sec] l \"\\n\" } }"
	"END { printf \"order %s ppb %s\\n%s%s%s\", o, ppb, F, B[\"blocks\"], B[\"mixed\"] }";

static void check_against_awk(const char *what, const char *path, const char *data, size_t len)
{
	static char want[1 << 16], got[1 << 16];
	int rc = pagetypeinfo_parse(data, len, &pti);

	T_EQ_I(rc, 0, "%s: parses", what);
	if (rc != 0)
		return;
	T_CHECK(t_awk_file(AWK_PTI, path, want, sizeof want) == 0, "%s: awk ran", what);
	dump(&pti, got, sizeof got);
	T_EQ_S(got, want, "%s: every cell, cap mark, and block count agrees with awk", what);
}

static const char *fixture_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures", name);
	return path;
}

/* One hand-counted cell: free[type][order] (or blocks/mixed when order < 0). */
struct cell {
	int node;
	const char *zone, *type;
	int order;              /* >= 0: free cell; -1: blocks; -2: mixed */
	uint64_t value;
	int capped;
};

static void check_cell(const char *fx, const struct cell *c)
{
	const struct pagetypeinfo_zone *z = pagetypeinfo_find_zone(&pti, c->node, c->zone);
	int t = pagetypeinfo_type_index(&pti, c->type);
	uint64_t v;

	T_CHECK(z && t >= 0, "%s: zone %d/%s type %s present", fx, c->node, c->zone, c->type);
	if (!z || t < 0)
		return;
	if (c->order >= 0) {
		v = z->free[t][c->order];
		T_EQ_I(z->capped[t][c->order], c->capped, "%s: %d/%s %s order %d capped flag",
		       fx, c->node, c->zone, c->type, c->order);
	} else {
		v = c->order == -1 ? z->blocks[t] : z->mixed[t];
	}
	T_CHECK(v == c->value, "%s: %d/%s %s %s%d = %" PRIu64, fx, c->node, c->zone, c->type,
		c->order >= 0 ? "order " : "table ", c->order, c->value);
}

static const struct cell numa2_cells[] = {
	{ 0, "Normal", "Movable", 0, 100000, 1 },
	{ 0, "Normal", "Movable", 1, 100000, 1 },
	{ 0, "Normal", "Movable", 2, 54321, 0 },
	{ 0, "Normal", "Movable", 10, 2, 0 },
	{ 0, "Normal", "CMA", 10, 1, 0 },
	{ 0, "DMA32", "Movable", 10, 700, 0 },
	{ 0, "DMA32", "Unmovable", 2, 3, 0 },
	{ 1, "Normal", "Movable", 0, 100000, 1 },
	{ 1, "Normal", "Movable", 10, 4000, 0 },
	{ 1, "Normal", "Isolate", 9, 1, 0 },
	{ 0, "DMA32", "Movable", -1, 1500, 0 },
	{ 0, "Normal", "CMA", -1, 8, 0 },
	{ 0, "Normal", "Unmovable", -1, 60, 0 },
	{ 1, "Normal", "Movable", -1, 4090, 0 },
	{ 1, "Normal", "Isolate", -1, 1, 0 },
};

static const struct cell order14_cells[] = {
	{ 0, "DMA", "Unmovable", 13, 13, 0 },
	{ 0, "DMA", "Unmovable", 5, 5, 0 },
	{ 0, "Normal", "Movable", 13, 7, 0 },
	{ 0, "Normal", "Reclaimable", 0, 2, 0 },
	{ 0, "DMA", "HighAtomic", -1, 4, 0 },
	{ 0, "Normal", "Unmovable", -1, 5, 0 },
	{ 0, "DMA", "Movable", -2, 1, 0 },
	{ 0, "Normal", "Unmovable", -2, 2, 0 },
	{ 0, "Normal", "Reclaimable", -2, 1, 0 },
};

static int count_capped(const struct pagetypeinfo *p)
{
	int n = 0;

	for (int i = 0; i < p->nzones; i++)
		for (int t = 0; t < PAGETYPEINFO_MAX_TYPES; t++)
			for (int k = 0; k < PAGETYPEINFO_MAX_ORDER; k++)
				n += p->z[i].capped[t][k];
	return n;
}

static void test_numa2(void)
{
	static const char *types[] = { "Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA", "Isolate" };
	long n = t_fixture("pagetypeinfo.numa2", buf, sizeof buf);
	char path[512];

	T_CHECK(n > 0, "pagetypeinfo.numa2: fixture readable");
	if (n <= 0 || pagetypeinfo_parse(buf, (size_t)n, &pti) != 0) {
		T_CHECK(0, "pagetypeinfo.numa2: parses");
		return;
	}
	T_EQ_I(pti.pageblock_order, 9, "numa2: pageblock order");
	T_EQ_I(pti.pages_per_block, 512, "numa2: pages per block");
	T_EQ_I(pti.norders, 11, "numa2: orders");
	T_EQ_I(pti.nzones, 3, "numa2: zones over both nodes");
	T_EQ_I(pti.ntypes, 6, "numa2: types named by the file");
	for (int t = 0; t < 6 && t < pti.ntypes; t++)
		T_EQ_S(pti.type[t], types[t], "numa2: type %d in file order", t);
	T_EQ_I(count_capped(&pti), 3, "numa2: exactly the three \">100000\" cells are capped");
	T_CHECK(pagetypeinfo_find_zone(&pti, 1, "DMA32") == NULL, "numa2: node 1 has no DMA32");
	T_EQ_I(pagetypeinfo_type_index(&pti, "Reserve"), -1, "numa2: unnamed type is -1");
	T_CHECK(!pti.z[0].has_mixed && !pti.z[2].has_mixed, "numa2: no mixed table");
	for (size_t i = 0; i < sizeof numa2_cells / sizeof numa2_cells[0]; i++)
		check_cell("numa2", &numa2_cells[i]);
	check_against_awk("pagetypeinfo.numa2", fixture_path("pagetypeinfo.numa2", path, sizeof path), buf, (size_t)n);
}

static void test_order14(void)
{
	long n = t_fixture("pagetypeinfo.order14-mixed", buf, sizeof buf);
	char path[512];

	T_CHECK(n > 0, "pagetypeinfo.order14-mixed: fixture readable");
	if (n <= 0 || pagetypeinfo_parse(buf, (size_t)n, &pti) != 0) {
		T_CHECK(0, "pagetypeinfo.order14-mixed: parses");
		return;
	}
	T_EQ_I(pti.pageblock_order, 13, "order14: pageblock order");
	T_EQ_I(pti.pages_per_block, 8192, "order14: pages per block");
	T_EQ_I(pti.norders, 14, "order14: orders");
	T_EQ_I(pti.nzones, 2, "order14: zones");
	T_EQ_I(pti.ntypes, 4, "order14: types (no CMA, no Isolate)");
	T_EQ_I(pagetypeinfo_type_index(&pti, "CMA"), -1, "order14: CMA not invented");
	T_CHECK(pti.z[0].has_mixed && pti.z[1].has_mixed, "order14: mixed table read for both zones");
	T_EQ_I(count_capped(&pti), 0, "order14: nothing capped");
	for (size_t i = 0; i < sizeof order14_cells / sizeof order14_cells[0]; i++)
		check_cell("order14", &order14_cells[i]);
	check_against_awk("pagetypeinfo.order14-mixed", fixture_path("pagetypeinfo.order14-mixed", path, sizeof path),
			  buf, (size_t)n);
}

static const char *const rejects[] = {
	"pagetypeinfo.truncated-line", "pagetypeinfo.truncated-rows", "pagetypeinfo.overflow",
	"pagetypeinfo.badcols", "pagetypeinfo.badorder", "pagetypeinfo.junk", "empty",
	"buddyinfo.host",
};

static void test_rejects(void)
{
	for (size_t i = 0; i < sizeof rejects / sizeof rejects[0]; i++) {
		long n = t_fixture(rejects[i], buf, sizeof buf);

		T_CHECK(n >= 0, "%s: fixture readable", rejects[i]);
		if (n >= 0)
			T_EQ_I(pagetypeinfo_parse(buf, (size_t)n, &pti), -1, "%s: rejected", rejects[i]);
	}
}

#define HEAD "Page block order: 1\nPages per block:  2\n\nFree pages count per migrate type at order 0 1 \n"
#define ROWS "Node 0, zone N, type A 1 2 \nNode 0, zone N, type B 3 >4 \n"
#define BLK "\nNumber of blocks type A B \nNode 0, zone N 5 6 \n"
#define MIX "\nNumber of mixed blocks A B \nNode 0, zone N 0 1 \n"

struct inline_case {
	const char *what, *text;
	int rc;
};

static const struct inline_case inlines[] = {
	{ "minimal", HEAD ROWS BLK, 0 },
	{ "minimal with mixed", HEAD ROWS BLK MIX, 0 },
	{ "two node blocks", HEAD ROWS BLK HEAD "Node 1, zone N, type A 0 0\nNode 1, zone N, type B 0 0\n"
	  "Number of blocks type A B\nNode 1, zone N 1 1\n", 0 },
	{ "15-char type name", HEAD "Node 0, zone N, type ABCDEFGHIJKLMNO 1 2\n"
	  "Number of blocks type ABCDEFGHIJKLMNO\nNode 0, zone N 1\n", 0 },
	{ "16-char type name", HEAD "Node 0, zone N, type ABCDEFGHIJKLMNOP 1 2\n"
	  "Number of blocks type ABCDEFGHIJKLMNOP\nNode 0, zone N 1\n", -1 },
	{ "no blocks table", HEAD ROWS, -1 },
	{ "no free rows", HEAD BLK, -1 },
	{ "header names an unseen type", HEAD ROWS "Number of blocks type A C\nNode 0, zone N 5 6\n", -1 },
	{ "header names an extra type", HEAD ROWS "Number of blocks type A B C\nNode 0, zone N 5 6 7\n", -1 },
	{ "header names a type twice", HEAD ROWS "Number of blocks type A A\nNode 0, zone N 5 6\n", -1 },
	{ "header without names", HEAD ROWS "Number of blocks type\nNode 0, zone N\n", -1 },
	{ "free row twice", HEAD ROWS "Node 0, zone N, type A 1 2\n" BLK, -1 },
	{ "free row missing for a type", HEAD "Node 0, zone N, type A 1 2\nNode 1, zone N, type A 1 2\n"
	  "Node 1, zone N, type B 1 2\nNumber of blocks type A B\nNode 0, zone N 1 1\nNode 1, zone N 1 1\n", -1 },
	{ "blocks row missing", HEAD ROWS "Node 1, zone N, type A 1 2\nNode 1, zone N, type B 1 2\n" BLK, -1 },
	{ "blocks row twice", HEAD ROWS BLK "Node 0, zone N 5 6\n", -1 },
	{ "blocks row for unknown zone", HEAD ROWS BLK "Node 0, zone M 5 6\n", -1 },
	{ "blocks row short", HEAD ROWS "Number of blocks type A B\nNode 0, zone N 5\n", -1 },
	{ "blocks row long", HEAD ROWS "Number of blocks type A B\nNode 0, zone N 5 6 7\n", -1 },
	{ "capped blocks count", HEAD ROWS "Number of blocks type A B\nNode 0, zone N >5 6\n", -1 },
	{ "free row short", HEAD "Node 0, zone N, type A 1\nNode 0, zone N, type B 3 4\n" BLK, -1 },
	{ "free row long", HEAD "Node 0, zone N, type A 1 2 3\nNode 0, zone N, type B 3 4\n" BLK, -1 },
	{ "'>' alone", HEAD "Node 0, zone N, type A 1 >\nNode 0, zone N, type B 3 4\n" BLK, -1 },
	{ "'>' then blank", HEAD "Node 0, zone N, type A 1 > 2\nNode 0, zone N, type B 3 4\n" BLK, -1 },
	{ "orders skip", "Page block order: 1\nPages per block:  2\nFree pages count per migrate type at order 0 2\n"
	  ROWS BLK, -1 },
	{ "orders start at 1", "Page block order: 1\nPages per block:  2\nFree pages count per migrate type at order 1 2\n"
	  ROWS BLK, -1 },
	{ "no orders", "Page block order: 1\nPages per block:  2\nFree pages count per migrate type at order\n"
	  ROWS BLK, -1 },
	{ "pages per block first", "Pages per block:  2\nPage block order: 1\n"
	  "Free pages count per migrate type at order 0 1\n" ROWS BLK, -1 },
	{ "pages per block not 2^order", "Page block order: 1\nPages per block:  3\n"
	  "Free pages count per migrate type at order 0 1\n" ROWS BLK, -1 },
	{ "pageblock order huge", "Page block order: 63\nPages per block:  2\n"
	  "Free pages count per migrate type at order 0 1\n" ROWS BLK, -1 },
	{ "unknown line", HEAD ROWS BLK "Foo\n", -1 },
	{ "nodes disagree on pageblock order", HEAD ROWS BLK "Page block order: 2\nPages per block:  4\n"
	  "Free pages count per migrate type at order 0 1\nNode 1, zone N, type A 0 0\nNode 1, zone N, type B 0 0\n"
	  "Number of blocks type A B\nNode 1, zone N 1 1\n", -1 },
	{ "nodes disagree on orders", HEAD ROWS BLK "Page block order: 1\nPages per block:  2\n"
	  "Free pages count per migrate type at order 0\nNode 1, zone N, type A 0\nNode 1, zone N, type B 0\n"
	  "Number of blocks type A B\nNode 1, zone N 1 1\n", -1 },
	{ "zone printed by two node blocks", HEAD ROWS BLK HEAD ROWS BLK, -1 },
	{ "mixed before blocks", HEAD ROWS MIX BLK, -1 },
	{ "mixed row missing", HEAD "Node 0, zone N, type A 1 2\nNode 0, zone N, type B 3 4\n"
	  "Node 0, zone M, type A 1 2\nNode 0, zone M, type B 3 4\n"
	  "Number of blocks type A B\nNode 0, zone N 5 6\nNode 0, zone M 5 6\n" MIX, -1 },
	{ "mixed row twice", HEAD ROWS BLK MIX "Node 0, zone N 0 1\n", -1 },
	{ "free row after blocks", HEAD ROWS BLK "Node 0, zone N, type A 1 2\n", -1 },
	{ "zone name starts with a digit", HEAD "Node 0, zone 9N, type A 1 2\nNode 0, zone 9N, type B 3 4\n"
	  "Number of blocks type A B\nNode 0, zone 9N 5 6\n", -1 },
	{ "no final newline", HEAD ROWS "\nNumber of blocks type A B \nNode 0, zone N 5 6", -1 },
	{ "only blank lines", "\n\n\n", -1 },
};

static void test_inline(void)
{
	for (size_t i = 0; i < sizeof inlines / sizeof inlines[0]; i++) {
		const struct inline_case *c = &inlines[i];

		T_EQ_I(pagetypeinfo_parse(c->text, strlen(c->text), &pti), c->rc,
		       "inline \"%s\": returns %d", c->what, c->rc);
	}
	/* Column order comes from the header: "B A" maps 5 to B and 6 to A. */
	{
		static const char t[] = HEAD ROWS "Number of blocks type B A\nNode 0, zone N 5 6\n";
		int a, b;

		T_EQ_I(pagetypeinfo_parse(t, sizeof t - 1, &pti), 0, "reordered header parses");
		a = pagetypeinfo_type_index(&pti, "A");
		b = pagetypeinfo_type_index(&pti, "B");
		T_CHECK(a >= 0 && b >= 0 && pti.z[0].blocks[a] == 6 && pti.z[0].blocks[b] == 5,
			"reordered header: counts follow the header's names");
		T_CHECK(b >= 0 && pti.z[0].capped[b][1] == 1 && pti.z[0].free[b][1] == 4 && pti.z[0].capped[b][0] == 0,
			"minimal: \">4\" is 4 with the capped flag, \"3\" is not capped");
	}
}

/* Caps: more types or zones than the struct holds is an error. */
static void test_caps(void)
{
	size_t n;

	n = (size_t)snprintf(buf, sizeof buf, "%s", HEAD);
	for (int t = 0; t <= PAGETYPEINFO_MAX_TYPES; t++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "Node 0, zone N, type T%d 0 0\n", t);
	n += (size_t)snprintf(buf + n, sizeof buf - n, "Number of blocks type");
	for (int t = 0; t <= PAGETYPEINFO_MAX_TYPES; t++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, " T%d", t);
	n += (size_t)snprintf(buf + n, sizeof buf - n, "\nNode 0, zone N");
	for (int t = 0; t <= PAGETYPEINFO_MAX_TYPES; t++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, " 1");
	n += (size_t)snprintf(buf + n, sizeof buf - n, "\n");
	T_EQ_I(pagetypeinfo_parse(buf, n, &pti), -1, "%d types: over the cap, rejected", PAGETYPEINFO_MAX_TYPES + 1);

	for (int nz = PAGETYPEINFO_MAX_ZONES; nz <= PAGETYPEINFO_MAX_ZONES + 1; nz++) {
		n = (size_t)snprintf(buf, sizeof buf, "%s", HEAD);
		for (int i = 0; i < nz; i++)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "Node %d, zone N, type A 0 >100000\n", i);
		n += (size_t)snprintf(buf + n, sizeof buf - n, "Number of blocks type A\n");
		for (int i = 0; i < nz; i++)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "Node %d, zone N 1\n", i);
		T_EQ_I(pagetypeinfo_parse(buf, n, &pti), nz <= PAGETYPEINFO_MAX_ZONES ? 0 : -1,
		       "%d zones: %s", nz, nz <= PAGETYPEINFO_MAX_ZONES ? "accepted" : "over the cap, rejected");
	}
}

/* Real kernel output: this VM (6.18) and the Xen PV test guest (6.1), see tests/fixtures/README.md. */
static void test_host(void)
{
	static const char *const names[] = { "pagetypeinfo.host", "pagetypeinfo.xenpv" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		long n = t_fixture(names[i], buf, sizeof buf);
		char path[512];

		T_CHECK(n > 0, "%s: fixture readable", names[i]);
		if (n > 0)
			check_against_awk(names[i], fixture_path(names[i], path, sizeof path), buf, (size_t)n);
	}
}

static void test_live(void)
{
	ssize_t n = procfile_read(NULL, "proc/pagetypeinfo", buf, sizeof buf);
	char path[64];

	if (n < 0) {
		T_SKIP("live /proc/pagetypeinfo unreadable (root only): %s", strerror(errno));
		return;
	}
	if (t_write_tmp(buf, (size_t)n, path, sizeof path) < 0) {
		T_CHECK(0, "live: temp copy written");
		return;
	}
	check_against_awk("live /proc/pagetypeinfo", path, buf, (size_t)n);
	unlink(path);
}

int main(void)
{
	test_numa2();
	test_order14();
	test_rejects();
	test_inline();
	test_caps();
	test_host();
	test_live();
	T_DONE();
}
