/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_gfp: the GFP name table shared by the kernel-log and trace parsers.
 * Expected classes are worked out by hand from include/linux/gfp_types.h;
 * the table's meanings are checked against the running kernel's own numbers
 * in a format file captured in the Xen test guest (Debian 6.1): for every
 * composite name there, the primitive __GFP_ names whose bits it contains
 * must be exactly the meaning this table gives it.
 */
#include <stdint.h>

#include "collector/gfp.h"
#include "collector/kmsg.h"
#include "test.h"

#define B(x) GFPB(GFPB_##x)

struct cls_case {
	const char *flags;
	int rc;
	int atomic, nowarn, opportunistic;
	enum gfp_class cls;
	int unknown;
	uint64_t leftover;
};

static const struct cls_case cases[] = {
	{ "GFP_KERNEL", 0, 0, 0, 0, GFP_CLASS_SLEEPING, 0, 0 },
	{ "GFP_KERNEL_ACCOUNT|__GFP_ZERO", 0, 0, 0, 0, GFP_CLASS_SLEEPING, 0, 0 },
	{ "GFP_ATOMIC", 0, 1, 0, 0, GFP_CLASS_ATOMIC, 0, 0 },
	{ "GFP_ATOMIC|__GFP_NOWARN", 0, 1, 1, 0, GFP_CLASS_ATOMIC, 0, 0 },          /* network receive */
	{ "GFP_NOWAIT|__GFP_NOWARN", 0, 1, 1, 0, GFP_CLASS_ATOMIC, 0, 0 },
	/* SLUB allocate_slab's first try at the preferred order, from GFP_KERNEL: reclaim dropped */
	{ "__GFP_IO|__GFP_FS|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP|__GFP_NOMEMALLOC", 0, 1, 1, 1, GFP_CLASS_OPPORTUNISTIC, 0, 0 },
	/* ... and from a GFP_ATOMIC cache: still atomic, but opportunistic first */
	{ "GFP_ATOMIC|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP", 0, 1, 1, 1, GFP_CLASS_OPPORTUNISTIC, 0, 0 },
	{ "GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY", 0, 0, 1, 1, GFP_CLASS_OPPORTUNISTIC, 0, 0 },  /* kvmalloc's kmalloc try */
	{ "GFP_TRANSHUGE_LIGHT", 0, 1, 1, 1, GFP_CLASS_OPPORTUNISTIC, 0, 0 },
	{ "GFP_TRANSHUGE", 0, 0, 1, 1, GFP_CLASS_OPPORTUNISTIC, 0, 0 },
	{ "GFP_KERNEL|__GFP_NOWARN", 0, 0, 1, 0, GFP_CLASS_SLEEPING, 0, 0 },       /* quiet, but not expected to fail */
	{ "GFP_KERNEL|__GFP_NORETRY", 0, 0, 0, 0, GFP_CLASS_SLEEPING, 0, 0 },      /* warns: not opportunistic */
	{ "GFP_HIGHUSER_MOVABLE|__GFP_COMP", 0, 0, 0, 0, GFP_CLASS_SLEEPING, 0, 0 },
	{ "none", 0, 1, 0, 0, GFP_CLASS_ATOMIC, 0, 0 },
	{ "GFP_KERNEL|0x1000000", 0, 0, 0, 0, GFP_CLASS_SLEEPING, 0, 0x1000000 },
	{ "GFP_KERNEL|__GFP_FUTURE_THING", 0, 0, 0, 0, GFP_CLASS_SLEEPING, 1, 0 },
	{ "__GFP_WAIT|__GFP_IO|__GFP_FS", 0, 0, 0, 0, GFP_CLASS_SLEEPING, 0, 0 },   /* 3.x spelling */
	{ "", -1, 0, 0, 0, 0, 0, 0 },
	{ "|", -1, 0, 0, 0, 0, 0, 0 },
	{ "GFP_KERNEL|", -1, 0, 0, 0, 0, 0, 0 },
	{ "|GFP_KERNEL", -1, 0, 0, 0, 0, 0, 0 },
	{ "GFP_KERNEL||__GFP_COMP", -1, 0, 0, 0, 0, 0, 0 },
	{ "gfp_kernel", -1, 0, 0, 0, 0, 0, 0 },
	{ "GFP KERNEL", -1, 0, 0, 0, 0, 0, 0 },
	{ "0x10|GFP_KERNEL", -1, 0, 0, 0, 0, 0, 0 },       /* the hex tail comes last */
	{ "GFP_KERNEL|0x", -1, 0, 0, 0, 0, 0, 0 },
	{ "GFP_KERNEL|0x1ffffffffffffffff", -1, 0, 0, 0, 0, 0, 0 },
	{ "GFP_KERNEL|0xZZ", -1, 0, 0, 0, 0, 0, 0 },
	{ "none|GFP_KERNEL", -1, 0, 0, 0, 0, 0, 0 },
};

static void test_classes(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct cls_case *c = &cases[i];
		struct gfp_info g;
		int rc = gfp_decode(c->flags, strlen(c->flags), &g);

		T_EQ_I(rc, c->rc, "gfp_decode(\"%s\") returns %d", c->flags, c->rc);
		if (rc != 0 || c->rc != 0)
			continue;
		T_CHECK(gfp_is_atomic(&g) == c->atomic && gfp_is_nowarn(&g) == c->nowarn &&
			gfp_is_opportunistic(&g) == c->opportunistic && gfp_classify(&g) == c->cls &&
			g.unknown == c->unknown && g.leftover == c->leftover,
			"\"%s\": atomic %d nowarn %d opportunistic %d class %s unknown %d leftover %#llx", c->flags,
			c->atomic, c->nowarn, c->opportunistic, gfp_class_name(c->cls), c->unknown,
			(unsigned long long)c->leftover);
	}
	T_EQ_S(gfp_class_name(GFP_CLASS_ATOMIC), "atomic", "class names");
	T_EQ_S(gfp_class_name(GFP_CLASS_SLEEPING), "sleeping", "class names");
	T_EQ_S(gfp_class_name(GFP_CLASS_OPPORTUNISTIC), "opportunistic", "class names");
}

static uint64_t table_mask(const struct gfp_table *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->e[i].name, name) == 0)
			return t->e[i].mask;
	return UINT64_MAX;
}

/* The running kernel's numbers (6.1, gfp_types.h) against this table's meanings. */
static void test_format_table(void)
{
	static char buf[65536];
	struct gfp_table t;
	long n = t_fixture("trace-mm_page_alloc.format-6.1-xenpv", buf, sizeof buf);
	uint64_t m;
	int checked = 0, agree = 0;

	T_CHECK(n > 0, "fixture trace-mm_page_alloc.format-6.1-xenpv readable");
	if (n <= 0)
		return;
	T_EQ_I(gfp_table_parse_format(buf, (size_t)n, &t), 0, "format file's gfp table parses");
	T_EQ_I(t.n, 36, "36 names in 6.1's __def_gfpflag_names (no KASAN_HW_TAGS)");
	T_EQ_I(table_mask(&t, "GFP_KERNEL"), 0xcc0, "GFP_KERNEL = 0xcc0");
	T_EQ_I(table_mask(&t, "GFP_ATOMIC"), 0xa20, "GFP_ATOMIC = 0xa20 (__GFP_ATOMIC still set in 6.1)");
	T_EQ_I(table_mask(&t, "GFP_NOWAIT"), 0x800, "GFP_NOWAIT = 0x800");
	T_EQ_I(table_mask(&t, "__GFP_NOWARN"), 0x2000, "__GFP_NOWARN = 0x2000");
	T_EQ_I(table_mask(&t, "GFP_TRANSHUGE_LIGHT"), 0x1c20ca, "GFP_TRANSHUGE_LIGHT = 0x1c20ca");
	T_EQ_I(table_mask(&t, "GFP_TRANSHUGE"), 0x1c24ca, "GFP_TRANSHUGE = 0x1c24ca");
	T_EQ_S(t.e[0].name, "GFP_TRANSHUGE", "the kernel's order: GFP_TRANSHUGE first");
	T_EQ_S(t.e[t.n - 1].name, "__GFP_ZEROTAGS", "... __GFP_ZEROTAGS last");

	/* names -> mask: warn_alloc printed these pairs in 6.1 guests (mode:0x...(NAMES)) */
	T_CHECK(gfp_table_mask(&t, "GFP_KERNEL|__GFP_COMP", 21, &m) == 0 && m == 0x40cc0, "GFP_KERNEL|__GFP_COMP = 0x40cc0");
	T_CHECK(gfp_table_mask(&t, "GFP_ATOMIC|__GFP_COMP", 21, &m) == 0 && m == 0x40a20, "GFP_ATOMIC|__GFP_COMP = 0x40a20");
	T_CHECK(gfp_table_mask(&t, "GFP_NOWAIT|__GFP_NOWARN", 23, &m) == 0 && m == 0x2800, "GFP_NOWAIT|__GFP_NOWARN = 0x2800");
	T_CHECK(gfp_table_mask(&t, "GFP_KERNEL|0x1000000", 20, &m) == 0 && m == 0x1000cc0, "a hex tail is ORed in");
	/* The guest's one failure seen by both sources (trace-pipe-6.1-xenpv, line 151, and its console):
	 * warn_alloc printed "mode:0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO)", the trace only the names. */
	T_CHECK(gfp_table_mask(&t, "GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO", 42, &m) == 0 && m == 0x140dca,
		"the trace's names give the mask warn_alloc printed for the same failure (0x140dca)");
	T_CHECK(gfp_table_mask(&t, "none", 4, &m) == 0 && m == 0, "none = 0");
	T_EQ_I(gfp_table_mask(&t, "GFP_KERNEL|__GFP_SENSITIVE", 26, &m), -1, "a name the kernel's table lacks gives no mask");
	T_EQ_I(gfp_table_mask(&t, "GFP_KERNEL|", 11, &m), -1, "bad syntax gives no mask");

	/*
	 * Meanings: decode every name of the kernel's table on its own, then
	 * rebuild the meaning of each composite from the primitives (__GFP_*)
	 * whose bits it contains.  __GFP_ATOMIC is left out on purpose (gfp.c).
	 */
	for (int i = 0; i < t.n; i++) {
		struct gfp_info whole, prim;
		uint64_t built = 0, want;

		if (strncmp(t.e[i].name, "GFP_", 4) != 0 && strcmp(t.e[i].name, "__GFP_RECLAIM") != 0)
			continue;
		if (gfp_decode(t.e[i].name, strlen(t.e[i].name), &whole) != 0 || whole.unknown)
			continue;
		for (int j = 0; j < t.n; j++) {
			if (strncmp(t.e[j].name, "__GFP_", 6) != 0 || strcmp(t.e[j].name, "__GFP_RECLAIM") == 0 ||
			    strcmp(t.e[j].name, "__GFP_ATOMIC") == 0 || t.e[j].mask == 0)
				continue;
			if ((t.e[i].mask & t.e[j].mask) == t.e[j].mask &&
			    gfp_decode(t.e[j].name, strlen(t.e[j].name), &prim) == 0)
				built |= prim.bits;
		}
		/* GFP_DMA, GFP_DMA32: named with the primitive's bit; the primitive is printed by the composite's name */
		want = whole.bits;
		checked++;
		if (built == want || (built == 0 && (want == B(DMA) || want == B(DMA32))))
			agree++;
		else
			T_CHECK(0, "%s: the kernel's bits mean %#llx, the table says %#llx", t.e[i].name,
				(unsigned long long)built, (unsigned long long)want);
	}
	T_CHECK(checked >= 12 && agree == checked, "%d of %d composite names mean what the 6.1 kernel's bits say", agree, checked);
}

static void test_format_bad(void)
{
	struct gfp_table t;
	static const char *const bad[] = {
		"print fmt: \"%s\", REC->x",                                       /* no __print_flags */
		"__print_flags(REC->gfp_flags, \"|\", ) : \"none\"",              /* empty list */
		"__print_flags(REC->gfp_flags, \"|\", {( unsigned long)(( gfp_t)0x20u), \"__GFP_HIGH\"",   /* unterminated */
		"__print_flags(REC->gfp_flags, \"|\", {( unsigned long)(( gfp_t)0x20u) \"__GFP_HIGH\"})",  /* no comma */
		"__print_flags(REC->gfp_flags, \"|\", {(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))), \"X\"})",
	};
	static const char good[] = "x __print_flags(REC->gfp_flags, \"|\", {( unsigned long)(( gfp_t)0x20u), \"__GFP_HIGH\"}, "
				   "{( unsigned long)((1UL << (13))), \"__GFP_NOWARN\"}, {( unsigned long)(___GFP_UNKNOWN_BIT), \"__GFP_X\"}, "
				   "{( unsigned long)(( gfp_t)((0x400u|0x800u)) & ~(( gfp_t)0x400u)), \"__GFP_KSWAPD_RECLAIM\"} ) : \"none\"";

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		T_EQ_I(gfp_table_parse_format(bad[i], strlen(bad[i]), &t), -1, "bad format %zu refused", i);
	T_EQ_I(gfp_table_parse_format(good, sizeof good - 1, &t), 0, "shifts, casts, & and ~ evaluate");
	T_CHECK(t.n == 3 && t.e[0].mask == 0x20 && t.e[1].mask == 0x2000 && t.e[2].mask == 0x800 &&
		strcmp(t.e[2].name, "__GFP_KSWAPD_RECLAIM") == 0,
		"3 pairs kept (an unsubstituted enum is left out): %d", t.n);
}

/* The kernel-log parser decodes its (FLAGS) with this table. */
static void test_kmsg_shares(void)
{
	struct kmsg_event ev;
	static const char l1[] = "kworker/0:1: page allocation failure: order:3, mode:0x2a20(GFP_ATOMIC|__GFP_NOWARN), nodemask=(null),cpuset=/,mems_allowed=0";
	static const char l2[] = "dmwb_writeback_: page allocation failure: order:8, mode:0x204010";
	/* from the Xen guest's console, same failure as trace-pipe-6.1-xenpv line 151 */
	static const char l3[] = "sh: page allocation failure: order:0, mode:0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), nodemask=(null),cpuset=/,mems_allowed=0";

	T_EQ_I(kmsg_parse_line(l1, sizeof l1 - 1, &ev), KMSG_LINE_EVENT, "kmsg line parses");
	T_CHECK(ev.has_gfp_info && gfp_classify(&ev.gfp) == GFP_CLASS_ATOMIC && gfp_is_nowarn(&ev.gfp),
		"kmsg flags decoded by the shared table: atomic, nowarn");
	T_EQ_I(kmsg_parse_line(l2, sizeof l2 - 1, &ev), KMSG_LINE_EVENT, "3.x line without names parses");
	T_EQ_I(ev.has_gfp_info, 0, "... and has no decoded meaning (the mask alone is kernel-specific)");
	T_EQ_I(kmsg_parse_line(l3, sizeof l3 - 1, &ev), KMSG_LINE_EVENT, "the guest's warn_alloc line parses");
	T_CHECK(ev.has_gfp_info && gfp_classify(&ev.gfp) == GFP_CLASS_SLEEPING && !gfp_is_nowarn(&ev.gfp) && ev.gfp_mask == 0x140dca,
		"... sleeping, not silent, mask 0x140dca");
}

int main(void)
{
	test_classes();
	test_format_table();
	test_format_bad();
	test_kmsg_shares();
	T_DONE();
}
