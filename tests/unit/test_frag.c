/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_frag: mm/vmstat.c fragmentation indices on hand-worked cases (the
 * arithmetic is written out next to each), the debugfs formatting, headroom,
 * and a randomized comparison against an independent python3 implementation
 * of the same kernel formulas.  The live-kernel comparison is test_frag_oracle.
 */
#include <time.h>
#include <unistd.h>

#include "analysis/frag.h"
#include "test.h"

struct hand {
	const char *name;
	int norders;
	uint64_t free[FRAG_MAX_ORDER];
	unsigned order;
	uint64_t free_pages, total, suitable;
	int unusable, extfrag;
	const char *u_fmt, *e_fmt;
};

static const struct hand cases[] = {
	/* No free memory: unusable_free_index says "all unusable" (1000); no blocks -> fragindex 0. */
	{ "no free pages, order 0", 11, { 0 }, 0, 0, 0, 0, 1000, 0, "1.000", " 0.000" },
	{ "no free pages, order 5", 11, { 0 }, 5, 0, 0, 0, 1000, 0, "1.000", " 0.000" },
	/* One order-3 block: pages 8, blocks 1.  Order 0: suitable 1<<3 = 8, (8 - 8) * 1000 / 8 = 0; fragindex -1000. */
	{ "one order-3 block, order 0", 4, { 0, 0, 0, 1 }, 0, 8, 1, 8, 0, -1000, "0.000", "-1.000" },
	/* Order 2: suitable 1<<1 = 2, (8 - 2<<2) = 0 -> 0; a suitable block exists -> -1000. */
	{ "one order-3 block, order 2", 4, { 0, 0, 0, 1 }, 2, 8, 1, 2, 0, -1000, "0.000", "-1.000" },
	/* Order 4 is past the 4 columns: suitable 0, unusable (8 - 0) * 1000 / 8 = 1000; fragindex 0 (the WARN path). */
	{ "one order-3 block, order 4 (past columns)", 4, { 0, 0, 0, 1 }, 4, 8, 1, 0, 1000, 0, "1.000", " 0.000" },
	/* free {4,2,1,0}: pages 4 + 2*2 + 1*4 = 12, blocks 7. */
	{ "mixed, order 0", 4, { 4, 2, 1, 0 }, 0, 12, 7, 12, 0, -1000, "0.000", "-1.000" },
	/* Order 1: suitable 2 + 1*2 = 4; (12 - 4*2) * 1000 / 12 = 4000 / 12 = 333. */
	{ "mixed, order 1", 4, { 4, 2, 1, 0 }, 1, 12, 7, 4, 333, -1000, "0.333", "-1.000" },
	/* Order 2: suitable 1; (12 - 1*4) * 1000 / 12 = 8000 / 12 = 666. */
	{ "mixed, order 2", 4, { 4, 2, 1, 0 }, 2, 12, 7, 1, 666, -1000, "0.666", "-1.000" },
	/* Order 3: suitable 0 -> unusable 12000/12 = 1000; fragindex: 12*1000/8 = 1500, (1000 + 1500) / 7 = 357, 1000 - 357 = 643. */
	{ "mixed, order 3", 4, { 4, 2, 1, 0 }, 3, 12, 7, 0, 1000, 643, "1.000", " 0.643" },
	/* One order-2 block asked for order 3: 4*1000/8 = 500, (1000 + 500) / 1 = 1500, 1000 - 1500 = -500, printed " 0.-500". */
	{ "single small block: negative index", 4, { 0, 0, 1, 0 }, 3, 4, 1, 0, 1000, -500, "1.000", " 0.-500" },
	/* 1000 single pages, order 4: 1000*1000/16 = 62500, (1000 + 62500) / 1000 = 63, 1000 - 63 = 937. */
	{ "1000 order-0 pages, order 4", 5, { 1000, 0, 0, 0, 0 }, 4, 1000, 1000, 0, 1000, 937, "1.000", " 0.937" },
	/* Order 1: 1000*1000/2 = 500000, (1000 + 500000) / 1000 = 501, 1000 - 501 = 499. */
	{ "1000 order-0 pages, order 1", 5, { 1000, 0, 0, 0, 0 }, 1, 1000, 1000, 0, 1000, 499, "1.000", " 0.499" },
	/* 100000 single pages, order 10: 100000*1000/1024 = 97656, (1000 + 97656) / 100000 = 0 -> 1000. */
	{ "100000 order-0 pages, order 10", 11, { 100000 }, 10, 100000, 100000, 0, 1000, 1000, "1.000", " 1.000" },
	/* free {3,0,0,1}: pages 3 + 8 = 11; order 1: suitable 1<<2 = 4, (11 - 4*2) * 1000 / 11 = 3000/11 = 272. */
	{ "small remainder, order 1", 4, { 3, 0, 0, 1 }, 1, 11, 4, 4, 272, -1000, "0.272", "-1.000" },
	/* This VM's Normal row at one moment (zoneinfo said "pages free 69250" then too).  Pages:
	 * 2364 + 995*2 + 276*4 + 390*8 + 100*16 + 36*32 + 29*64 + 22*128 + 10*256 + 1*512 + 49*1024
	 * = 2364 + 1990 + 1104 + 3120 + 1600 + 1152 + 1856 + 2816 + 2560 + 512 + 50176 = 69250;
	 * blocks 2364+995+276+390+100+36+29+22+10+1+49 = 4272.  Order 9: suitable 1 + 49*2 = 99,
	 * (69250 - 99*512) * 1000 / 69250 = 18562000 / 69250 = 268. */
	{ "VM Normal row, order 9", 11, { 2364, 995, 276, 390, 100, 36, 29, 22, 10, 1, 49 }, 9, 69250, 4272, 99, 268, -1000, "0.268", "-1.000" },
};

static void test_hand(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct hand *c = &cases[i];
		struct frag_info info;
		char u[FRAG_FMT_MAX], e[FRAG_FMT_MAX];
		int ui, ei;

		frag_fill(c->free, c->norders, c->order, &info);
		frag_indices(c->free, c->norders, c->order, &ui, &ei);
		T_CHECK(info.free_pages == c->free_pages && info.free_blocks_total == c->total &&
			info.free_blocks_suitable == c->suitable, "%s: contig info %" PRIu64 "/%" PRIu64 "/%" PRIu64,
			c->name, info.free_pages, info.free_blocks_total, info.free_blocks_suitable);
		T_CHECK(ui == c->unusable && ei == c->extfrag && frag_unusable_index(c->order, &info) == ui &&
			frag_fragmentation_index(c->order, c->norders, &info) == ei,
			"%s: unusable %d extfrag %d", c->name, ui, ei);
		T_EQ_S(frag_format_unusable(ui, u, sizeof u), c->u_fmt, "%s: unusable printed", c->name);
		T_EQ_S(frag_format_extfrag(ei, e, sizeof e), c->e_fmt, "%s: extfrag printed", c->name);
	}
}

static void test_format(void)
{
	char b[FRAG_FMT_MAX];

	T_EQ_S(frag_format_unusable(5, b, sizeof b), "0.005", "unusable 5 -> 0.005");
	T_EQ_S(frag_format_unusable(999, b, sizeof b), "0.999", "unusable 999 -> 0.999");
	T_EQ_S(frag_format_extfrag(-1000, b, sizeof b), "-1.000", "extfrag -1000 -> -1.000");
	T_EQ_S(frag_format_extfrag(-1, b, sizeof b), " 0.-01", "extfrag -1 -> ' 0.-01' (C %%03d of -1)");
	T_EQ_S(frag_format_extfrag(12, b, sizeof b), " 0.012", "extfrag 12 -> ' 0.012'");
}

static void test_headroom(void)
{
	uint64_t f[4] = { 4, 2, 1, 0 };
	uint64_t big[2] = { 0, UINT64_MAX }, big2[2] = { UINT64_MAX, 1 };

	/* k=0: 4 + 2*2 + 1*4 = 12; k=1: 2 + 1*2 = 4; k=2: 1; k=3: 0; k=5: past the columns, 0. */
	T_EQ_I(frag_headroom(f, 4, 0), 12, "headroom k=0 = 12 pages");
	T_EQ_I(frag_headroom(f, 4, 1), 4, "headroom k=1 = 4 blocks");
	T_EQ_I(frag_headroom(f, 4, 2), 1, "headroom k=2 = 1 block");
	T_EQ_I(frag_headroom(f, 4, 3), 0, "headroom k=3 = 0");
	T_EQ_I(frag_headroom(f, 4, 5), 0, "headroom past columns = 0");
	T_CHECK(frag_headroom(big, 2, 0) == UINT64_MAX, "headroom saturates on shift overflow");
	T_CHECK(frag_headroom(big2, 2, 0) == UINT64_MAX, "headroom saturates on add overflow");
	T_CHECK(frag_headroom(big, 2, 1) == UINT64_MAX, "headroom of exactly UINT64_MAX is exact");
}

/* The kernel formulas again, in python, with C's truncating division and u64/int conversions. */
static const char py[] =
	"import sys\n"
	"M=(1<<64)-1\n"
	"def toint(v):\n"
	"    v&=0xffffffff\n"
	"    return v-(1<<32) if v>=(1<<31) else v\n"
	"def cfmt(f,i):\n"
	"    q=abs(i)//1000*(1 if i>=0 else -1)\n"
	"    return f%(q,i-q*1000)\n"
	"for line in open(sys.argv[1]):\n"
	"    f=[int(x) for x in line.split()]\n"
	"    out=[]\n"
	"    for k in range(len(f)):\n"
	"        fp=sum(b<<o for o,b in enumerate(f))&M\n"
	"        tot=sum(f)&M\n"
	"        su=sum(b<<(o-k) for o,b in enumerate(f) if o>=k)&M\n"
	"        u=1000 if fp==0 else toint(((((fp-((su<<k)&M))&M)*1000)&M)//fp)\n"
	"        if tot==0: e=0\n"
	"        elif su: e=-1000\n"
	"        else: e=toint((1000-(1000+((fp*1000)&M)//(1<<k))//tot)&M)\n"
	"        out.append(cfmt('%d.%03d',u)+'|'+cfmt('%2d.%03d',e))\n"
	"    print(' '.join(out))\n";

static void test_python(void)
{
	unsigned seed = getenv("TEST_SEED") ? (unsigned)strtoul(getenv("TEST_SEED"), NULL, 10) : (unsigned)time(NULL);
	char rows[] = "/tmp/fpusoak-frag-rows-XXXXXX", script[] = "/tmp/fpusoak-frag-py-XXXXXX";
	static char want[1 << 20], got[1 << 20];
	int fr = mkstemp(rows), fs = mkstemp(script);
	FILE *f;
	size_t o = 0, n;
	char cmd[256];

	printf("# test_python seed=%u (replay with TEST_SEED=%u)\n", seed, seed);
	if (fr < 0 || fs < 0 || write(fs, py, strlen(py)) != (ssize_t)strlen(py)) {
		T_SKIP("cannot write temp files");
		goto out;
	}
	srand(seed);
	f = fdopen(fr, "w");
	fr = -1;
	for (int r = 0; r < 300 && f; r++) {
		uint64_t free[11];
		char line[512];
		size_t lo = 0;
		int mode = rand() % 4;

		for (int k = 0; k < 11; k++) {
			/* Mix empty rows, sparse rows, typical rows and rows with huge counts. */
			uint64_t v = mode == 0 ? 0 : mode == 1 ? (uint64_t)(rand() % 3 == 0) * (uint64_t)(rand() % 4)
				   : mode == 2 ? (uint64_t)(rand() % 5000) : ((uint64_t)rand() << 31 | (uint64_t)rand());
			if (mode != 0 && rand() % 3 == 0)
				v = 0;
			free[k] = v;
			lo += (size_t)snprintf(line + lo, sizeof line - lo, "%s%" PRIu64, k ? " " : "", v);
		}
		fprintf(f, "%s\n", line);
		for (unsigned k = 0; k < 11; k++) {
			char u[FRAG_FMT_MAX], e[FRAG_FMT_MAX];
			int ui, ei;

			frag_indices(free, 11, k, &ui, &ei);
			o += (size_t)snprintf(got + o, sizeof got - o, "%s%s|%s", k ? " " : "",
					      frag_format_unusable(ui, u, sizeof u), frag_format_extfrag(ei, e, sizeof e));
		}
		o += (size_t)snprintf(got + o, sizeof got - o, "\n");
	}
	if (!f || fclose(f) != 0) {
		T_SKIP("cannot write rows");
		goto out;
	}
	snprintf(cmd, sizeof cmd, "python3 %s %s 2>/dev/null", script, rows);
	f = popen(cmd, "r");
	n = f ? fread(want, 1, sizeof want - 1, f) : 0;
	want[n] = '\0';
	if (!f || pclose(f) != 0 || n == 0) {
		T_SKIP("python3 not available for the independent implementation");
		goto out;
	}
	T_CHECK(strcmp(want, got) == 0, "300 random rows x 11 orders match an independent python implementation");
	if (strcmp(want, got) != 0) {
		for (size_t i = 0; want[i] && got[i]; i++)
			if (want[i] != got[i]) {
				printf("      first difference at byte %zu: want \"%.60s\" got \"%.60s\"\n", i, want + i, got + i);
				break;
			}
	}
out:
	if (fr >= 0)
		close(fr);
	if (fs >= 0)
		close(fs);
	unlink(rows);
	unlink(script);
}

int main(void)
{
	test_hand();
	test_format();
	test_headroom();
	test_python();
	T_DONE();
}
