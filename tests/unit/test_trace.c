/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_trace: trace_pipe lines, hist files, instance names and the constant
 * expressions of format files.  Real text comes from the Xen test guest
 * (Debian 6.1, tests/fixtures/README.md); hand-made lines cover what that
 * guest did not print (record-tgid, irq-info off, 4.x spellings, hostile
 * comms).  Fixture totals are checked against awk run over the same files.
 */
#include <stdint.h>

#include "collector/cexpr.h"
#include "collector/trace.h"
#include "test.h"

#define OK TRACE_LINE_EVENT
#define BAD TRACE_LINE_MALFORMED
#define OTHER TRACE_LINE_OTHER

struct line_case {
	const char *name, *line;
	int rc;
	enum trace_kind kind;
	const char *comm;
	int32_t pid;
	int cpu;
	uint64_t ts_us;
	int failed, order;          /* page_alloc: failed, order; extfrag: fragmenting, fallback_order */
};

static const struct line_case cases[] = {
	{ "6.1 failure", "              sh-529     [001] .N...   133.604749: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO",
	  OK, TRACE_PAGE_ALLOC, "sh", 529, 1, 133604749, 1, 0 },
	{ "6.1 success", "              sh-132     [001] .....    31.453014: mm_page_alloc: page=00000000822aece5 pfn=0x90bc order=1 migratetype=0 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO",
	  OK, TRACE_PAGE_ALLOC, "sh", 132, 1, 31453014, 0, 1 },
	{ "6.1 extfrag", "              dd-138     [000] d..3.     4.777967: mm_page_alloc_extfrag: page=00000000fe58e7e3 pfn=0x4700 alloc_order=0 fallback_order=8 pageblock_order=9 alloc_migratetype=1 fallback_migratetype=2 fragmenting=1 change_ownership=1",
	  OK, TRACE_EXTFRAG, "dd", 138, 0, 4777967, 1, 8 },
	{ "unknown comm", "           <...>-4242    [003] ...1. 86400.000001: mm_page_alloc: page=0000000000000000 pfn=0x0 order=3 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP",
	  OK, TRACE_PAGE_ALLOC, "<...>", 4242, 3, 86400000001ull, 1, 3 },
	{ "comm with blanks and dashes", "  kworker/u4:1-ev-12 -77      [000] d..2.    10.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=2 migratetype=0 gfp_flags=GFP_ATOMIC|__GFP_COMP",
	  OK, TRACE_PAGE_ALLOC, "kworker/u4:1-ev-12 ", 77, 0, 10000000, 1, 2 },
	{ "comm faking a header", "x-1 [000] 1.0: -9       [001] .....     2.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=1 migratetype=0 gfp_flags=none",
	  OK, TRACE_PAGE_ALLOC, "x-1 [000] 1.0: ", 9, 1, 2000000, 1, 1 },
	{ "irq-info off", "              sh-1       [000]     5.500000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=GFP_NOWAIT|__GFP_NOWARN",
	  OK, TRACE_PAGE_ALLOC, "sh", 1, 0, 5500000, 1, 0 },
	{ "record-tgid", "              sh-12      (     10) [000] d..3.     5.500000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=GFP_NOWAIT",
	  OK, TRACE_PAGE_ALLOC, "sh", 12, 0, 5500000, 1, 0 },
	{ "record-tgid unknown", "              sh-12      (-------) [000] d..3.     5.500000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=GFP_NOWAIT",
	  OK, TRACE_PAGE_ALLOC, "sh", 12, 0, 5500000, 1, 0 },
	{ "4.x decimal pfn, (null)", "            bash-1234  [000] ....  1000.123456: mm_page_alloc: page=(null) pfn=0 order=4 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_COMP",
	  OK, TRACE_PAGE_ALLOC, "bash", 1234, 0, 1000123456, 1, 4 },
	{ "4.x success", "            bash-1234  [000] ....  1000.123456: mm_page_alloc: page=ffffea0000123400 pfn=298000 order=0 migratetype=0 gfp_flags=GFP_KERNEL",
	  OK, TRACE_PAGE_ALLOC, "bash", 1234, 0, 1000123456, 0, 0 },
	{ "nanosecond stamp", "              sh-1       [000] .....     5.123456789: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=none",
	  OK, TRACE_PAGE_ALLOC, "sh", 1, 0, 5123456, 1, 0 },
	{ "empty comm", "                -5       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=none",
	  OK, TRACE_PAGE_ALLOC, "", 5, 0, 5000000, 1, 0 },
	{ "lost", "CPU:1 [LOST 412 EVENTS]", OK, TRACE_LOST, "", -1, 1, 0, 0, 0 },
	{ "lost, no count", "CPU:0 [LOST EVENTS]", OK, TRACE_LOST, "", -1, 0, 0, 0, 0 },
	/* not ours */
	{ "another event", "              sh-1       [000] .....     5.000000: mm_page_free: page=00000000822aece5 pfn=0x90bc order=0", OTHER, TRACE_NONE, NULL, -1, -1, 0, 0, 0 },
	{ "zone_locked is another event", "              sh-1       [000] .....     5.000000: mm_page_alloc_zone_locked: page=00000000822aece5 pfn=0x90bc order=0 migratetype=0 percpu_refill=1", OTHER, TRACE_NONE, NULL, -1, -1, 0, 0, 0 },
	{ "header comment", "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION", OTHER, TRACE_NONE, NULL, -1, -1, 0, 0, 0 },
	{ "empty", "", OTHER, TRACE_NONE, NULL, -1, -1, 0, 0, 0 },
	/* ours, but broken */
	{ "order out of range", "              sh-1       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=64 migratetype=0 gfp_flags=none", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "negative order", "              sh-1       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=-1 migratetype=0 gfp_flags=none", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "missing gfp_flags", "              sh-1       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "key twice", "              sh-1       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 order=1 migratetype=0 gfp_flags=none", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "trailing blank", "              sh-1       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=none ", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "bad gfp syntax", "              sh-1       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=GFP_KERNEL|", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "bad pointer", "              sh-1       [000] .....     5.000000: mm_page_alloc: page=zz pfn=0x0 order=0 migratetype=0 gfp_flags=none", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "pfn leading zero", "              sh-1       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=012 order=0 migratetype=0 gfp_flags=none", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "fragmenting 2", "              dd-138     [000] d..3.     4.777967: mm_page_alloc_extfrag: page=00000000fe58e7e3 pfn=0x4700 alloc_order=0 fallback_order=8 pageblock_order=9 alloc_migratetype=1 fallback_migratetype=2 fragmenting=2 change_ownership=1", BAD, TRACE_EXTFRAG, NULL, -1, -1, 0, 0, 0 },
	{ "extfrag missing field", "              dd-138     [000] d..3.     4.777967: mm_page_alloc_extfrag: page=00000000fe58e7e3 pfn=0x4700 alloc_order=0 fallback_order=8", BAD, TRACE_EXTFRAG, NULL, -1, -1, 0, 0, 0 },
	{ "no cpu column", "              sh-1     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=none", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "no pid", "              sh       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=none", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "pid overflow", "              sh-99999999999 [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=none", BAD, TRACE_PAGE_ALLOC, NULL, -1, -1, 0, 0, 0 },
	{ "lost junk", "CPU:1 [LOST x EVENTS]", BAD, TRACE_LOST, NULL, -1, -1, 0, 0, 0 },
	{ "lost trailing", "CPU:1 [LOST 3 EVENTS]x", BAD, TRACE_LOST, NULL, -1, -1, 0, 0, 0 },
};

static void test_lines(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct line_case *c = &cases[i];
		struct trace_event ev;
		int rc = trace_parse_line(c->line, strlen(c->line), &ev);
		int ok = rc == c->rc && ev.kind == c->kind;

		if (ok && rc == OK && c->kind != TRACE_LOST) {
			ok = strcmp(ev.comm, c->comm) == 0 && ev.comm_len == strlen(c->comm) && ev.pid == c->pid &&
			     ev.cpu == c->cpu && ev.ts_us == c->ts_us;
			if (c->kind == TRACE_PAGE_ALLOC)
				ok = ok && ev.u.alloc.failed == c->failed && ev.u.alloc.order == c->order;
			else
				ok = ok && ev.u.extfrag.fragmenting == c->failed && ev.u.extfrag.fallback_order == c->order;
		} else if (ok && rc == OK) {
			ok = ev.cpu == c->cpu;
		} else if (ok && rc != OK) {
			ok = ev.comm_len == 0 && ev.pid == -1;     /* nothing half-filled is handed out */
		}
		T_CHECK(ok, "%s: rc %d kind %s", c->name, c->rc, trace_kind_name(c->kind));
		if (!ok)
			printf("      got rc %d kind %s comm '%s' pid %d cpu %d ts %llu\n", rc, trace_kind_name(ev.kind), ev.comm,
			       ev.pid, ev.cpu, (unsigned long long)ev.ts_us);
	}
	{
		struct trace_event ev;
		static const char lost[] = "CPU:1 [LOST 412 EVENTS]";
		static char big[TRACE_LINE_MAX + 200];

		trace_parse_line(lost, sizeof lost - 1, &ev);
		T_EQ_I(ev.u.lost.events, 412, "LOST count read");
		memset(big, 'a', sizeof big - 1);
		memcpy(big + sizeof big - 120, ": mm_page_alloc: page=0000000000000000", 38);
		T_EQ_I(trace_parse_line(big, sizeof big - 1, &ev), OTHER, "a line over %d bytes is not ours", TRACE_LINE_MAX);
		T_EQ_I(trace_parse_line("x\ny: mm_page_alloc: ", 20, &ev), OTHER, "a raw newline is not one line");
	}
	{
		struct trace_event ev;
		static const char l[] = "              sh-1       [000] .....     5.000000: mm_page_alloc: page=0000000000000000 pfn=0x0 order=3 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_NOMEMALLOC|__GFP_COMP";

		trace_parse_line(l, sizeof l - 1, &ev);
		T_CHECK(strcmp(ev.u.alloc.gfp_flags, "GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_NOMEMALLOC|__GFP_COMP") == 0 &&
			gfp_classify(&ev.u.alloc.gfp) == GFP_CLASS_OPPORTUNISTIC, "gfp flags kept as printed and decoded (opportunistic)");
	}
}

/* Run awk over a fixture and read one number back. */
static long long awk_num(const char *prog, const char *fixture)
{
	char path[512], out[64];

	snprintf(path, sizeof path, "%s/%s", getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures", fixture);
	if (t_awk_file(prog, path, out, sizeof out) < 0)
		return -1;
	return atoll(out);
}

static void test_pipe_fixture(void)
{
	static char buf[1 << 17];
	long n = t_fixture("trace-pipe-6.1-xenpv", buf, sizeof buf);
	long pos = 0;
	int lines = 0, events = 0, alloc = 0, failed = 0, extfrag = 0, frag = 0, consistent = 0;
	int atomic_nowarn = 0, sleeping = 0, opp = 0;
	long long fo_sum = 0;

	T_CHECK(n > 0, "fixture trace-pipe-6.1-xenpv readable");
	while (pos < n) {
		char *nl = memchr(buf + pos, '\n', (size_t)(n - pos));
		size_t len = nl ? (size_t)(nl - buf - pos) : (size_t)(n - pos);
		struct trace_event ev;

		lines++;
		if (trace_parse_line(buf + pos, len, &ev) == OK) {
			events++;
			if (ev.kind == TRACE_PAGE_ALLOC) {
				alloc++;
				failed += ev.u.alloc.failed;
				if (gfp_classify(&ev.u.alloc.gfp) == GFP_CLASS_ATOMIC && gfp_is_nowarn(&ev.u.alloc.gfp))
					atomic_nowarn++;
				sleeping += gfp_classify(&ev.u.alloc.gfp) == GFP_CLASS_SLEEPING;
				opp += gfp_classify(&ev.u.alloc.gfp) == GFP_CLASS_OPPORTUNISTIC;
			} else if (ev.kind == TRACE_EXTFRAG) {
				extfrag++;
				frag += ev.u.extfrag.fragmenting;
				fo_sum += ev.u.extfrag.fallback_order;
				consistent += ev.u.extfrag.fragmenting == (ev.u.extfrag.fallback_order < ev.u.extfrag.pageblock_order);
			}
		}
		pos += (long)len + 1;
	}
	T_EQ_I(events, lines, "every one of the %d captured lines parses", lines);
	T_EQ_I(alloc, awk_num("/ mm_page_alloc: / {n++} END {print n+0}", "trace-pipe-6.1-xenpv"), "mm_page_alloc lines as awk counts them (%d)", alloc);
	T_EQ_I(failed, alloc, "all of them failures (the in-kernel filter let nothing else through)");
	T_EQ_I(atomic_nowarn, awk_num("/gfp_flags=GFP_NOWAIT\\|__GFP_NOWARN$/ {n++} END {print n+0}", "trace-pipe-6.1-xenpv"),
	       "GFP_NOWAIT|__GFP_NOWARN failures: atomic and silent in the kernel log (%d)", atomic_nowarn);
	T_EQ_I(sleeping, 1, "one sleeping failure (the one warn_alloc also logged)");
	T_EQ_I(opp, 0, "no opportunistic failure in this capture");
	T_EQ_I(extfrag, awk_num("/ mm_page_alloc_extfrag: / {n++} END {print n+0}", "trace-pipe-6.1-xenpv"), "extfrag lines as awk counts them (%d)", extfrag);
	T_EQ_I(frag, awk_num("/fragmenting=1/ {n++} END {print n+0}", "trace-pipe-6.1-xenpv"), "fragmenting fallbacks as awk counts them (%d)", frag);
	T_EQ_I(fo_sum, awk_num("/extfrag/ {for (i = 1; i <= NF; i++) if ($i ~ /^fallback_order=/) {sub(/.*=/, \"\", $i); s += $i}} END {print s+0}",
			       "trace-pipe-6.1-xenpv"), "sum of fallback orders as awk adds them");
	T_EQ_I(consistent, extfrag, "fragmenting = fallback_order < pageblock_order on every line");
}

static void test_trace_file(void)
{
	static char buf[1 << 16];
	long n = t_fixture("trace-mm_page_alloc.trace-6.1-xenpv", buf, sizeof buf);
	long pos = 0;
	int comments = 0, ok = 0, succeeded = 0, other = 0;

	T_CHECK(n > 0, "fixture trace-mm_page_alloc.trace-6.1-xenpv readable");
	while (pos < n) {
		char *nl = memchr(buf + pos, '\n', (size_t)(n - pos));
		size_t len = nl ? (size_t)(nl - buf - pos) : (size_t)(n - pos);
		struct trace_event ev;
		int rc = trace_parse_line(buf + pos, len, &ev);

		if (len && buf[pos] == '#')
			comments += rc == OTHER;
		else if (rc == OK && ev.kind == TRACE_PAGE_ALLOC) {
			ok++;
			succeeded += !ev.u.alloc.failed;
		} else
			other++;
		pos += (long)len + 1;
	}
	T_EQ_I(comments, awk_num("/^#/ {n++} END {print n+0}", "trace-mm_page_alloc.trace-6.1-xenpv"), "the trace file's header lines are not events");
	T_EQ_I(ok, awk_num("/ mm_page_alloc: / {n++} END {print n+0}", "trace-mm_page_alloc.trace-6.1-xenpv"), "every allocation line parses (%d)", ok);
	T_EQ_I(succeeded, ok, "none of these unfiltered allocations failed");
	T_EQ_I(other, 0, "nothing else in the file");
}

static void test_hist_fixture(void)
{
	static char buf[1 << 16];
	static struct trace_hists h;
	long n = t_fixture("trace-extfrag.hist-6.1-xenpv", buf, sizeof buf);
	uint64_t sum[3] = { 0 };
	int64_t mt[3] = { -1, -1, -1 };

	T_CHECK(n > 0, "fixture trace-extfrag.hist-6.1-xenpv readable");
	T_EQ_I(trace_hist_parse(buf, (size_t)n, &h), 0, "real hist file parses");
	T_EQ_I(h.nh, 3, "three histograms (one trigger per allocating migrate type)");
	T_EQ_I(h.ne, awk_num("/^\\{ / {n++} END {print n+0}", "trace-extfrag.hist-6.1-xenpv"), "entries as awk counts them");
	for (int i = 0; i < h.ne; i++)
		sum[h.e[i].hist] += h.e[i].hitcount;
	for (int k = 0; k < 3 && h.nh == 3; k++) {
		T_CHECK(trace_hist_filter_eq(&h.h[k], "alloc_migratetype", &mt[k]) == 0 && mt[k] == k, "histogram %d filters alloc_migratetype == %d", k, k);
		T_EQ_I(sum[k], h.h[k].hits, "histogram %d: hitcounts add up to Totals' Hits (%llu)", k, (unsigned long long)h.h[k].hits);
		T_EQ_I(h.h[k].n, h.h[k].entries, "histogram %d: Entries = its entry lines", k);
		T_EQ_I(h.h[k].dropped, 0, "histogram %d: nothing dropped", k);
		T_CHECK(h.h[k].nkeys == 3 && trace_hist_key(&h.h[k], "alloc_order") == 0 && trace_hist_key(&h.h[k], "fallback_order") == 1 &&
			trace_hist_key(&h.h[k], "fallback_migratetype") == 2 && trace_hist_key(&h.h[k], "hitcount") == -1,
			"histogram %d: the three keys in order", k);
	}
	T_EQ_I(h.h[0].hits + h.h[1].hits + h.h[2].hits,
	       awk_num("/^\\{ / {s += $NF} END {print s+0}", "trace-extfrag.hist-6.1-xenpv"), "all hitcounts as awk adds them");
	/* The largest entry: { alloc_order: 0, fallback_order: 0, fallback_migratetype: 0 } hitcount: 45 in the MOVABLE histogram */
	{
		int found = 0;
		for (int i = 0; i < h.ne; i++)
			if (h.e[i].hist == 1 && h.e[i].key[0] == 0 && h.e[i].key[1] == 0 && h.e[i].key[2] == 0 && h.e[i].hitcount == 45)
				found++;
		T_EQ_I(found, 1, "entry values read (MOVABLE order-0 from an order-0 UNMOVABLE block: 45)");
	}
}

static void test_hist_bad(void)
{
	static struct trace_hists h;
	static const char head[] = "# event histogram\n#\n# trigger info: hist:keys=a,b:vals=hitcount:sort=hitcount:size=2048 [active]\n#\n\n";
	static const char *const bad[] = {
		"{ a:          1, b:          2 } hitcount:          3\n",                                                 /* no trigger info */
		"HEAD{ a:          1, b:          2 } hitcount:          3\n",                                             /* no Totals */
		"HEAD{ a:          1, c:          2 } hitcount:          3\n\nTotals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n",   /* key name */
		"HEAD{ a:          1 } hitcount:          3\n\nTotals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n",   /* key missing */
		"HEAD{ a: 0x10, b:          2 } hitcount:          3\n\nTotals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n",   /* .hex key */
		"HEAD{ a:          1, b:          2 } hitcount:          3\n\nTotals:\n    Hits: 3\n    Entries: 1\n",       /* truncated */
		"HEAD{ a:          1, b:          2 } hitcount:          3\n\nTotals:\n    Hits: x\n    Entries: 1\n    Dropped: 0\n",
		"HEAD{ a:          1, b:          2 } hitcount:          3 junk\n\nTotals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n",
		"HEADjunk\n",
		"# trigger info: hist:vals=hitcount [active]\n",                                                              /* no keys */
		"# trigger info: hist:keys=a,b,c,d:vals=hitcount [active]\n",                                                /* 4 keys */
		"# trigger info: hist:keys=a [running]\n",
	};
	char text[1024];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *b = bad[i];
		text[0] = '\0';
		if (strncmp(b, "HEAD", 4) == 0) {
			t_app(text, sizeof text, "%s%s", head, b + 4);
		} else {
			t_app(text, sizeof text, "%s", b);
		}
		T_EQ_I(trace_hist_parse(text, strlen(text), &h), -1, "bad hist %zu refused", i);
		T_CHECK(h.nh == 0 && h.ne == 0, "bad hist %zu leaves nothing behind", i);
	}
	text[0] = '\0';
	t_app(text, sizeof text, "%s{ a:          1, b:          2 } hitcount:          3 bytes:         10\n\nTotals:\n    Hits: 3\n    Entries: 1\n    Dropped: 7\n", head);
	T_EQ_I(trace_hist_parse(text, strlen(text), &h), 0, "extra values after hitcount are allowed");
	T_CHECK(h.nh == 1 && h.ne == 1 && h.e[0].hitcount == 3 && h.h[0].dropped == 7 && h.e[0].key[1] == 2, "... and read");
	T_EQ_I(trace_hist_parse("", 0, &h), 0, "an empty hist file (no trigger) is no histogram");
	T_EQ_I(h.nh, 0, "... zero of them");
}

static void test_names(void)
{
	char name[TRACE_INSTANCE_NAME_MAX];
	int64_t pid;
	uint64_t st;
	static const char stat1[] = "1234 (a) b) c (d) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 100 18446744073709551615\n";
	static const char stat2[] = "7 (sh) S 1 7 7 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0\n";

	T_CHECK(trace_instance_name(1234, 98765, name, sizeof name) == 0 && strcmp(name, "fpusoakd-1234-98765") == 0, "instance name %s", name);
	T_CHECK(trace_instance_parse(name, strlen(name), &pid, &st) == 0 && pid == 1234 && st == 98765, "... parses back");
	T_EQ_I(trace_instance_parse("fpusoakd-01-5", 13, &pid, &st), -1, "leading zero: not a name we write");
	T_EQ_I(trace_instance_parse("fpusoakd-1-5x", 13, &pid, &st), -1, "junk after start: not ours");
	T_EQ_I(trace_instance_parse("fpusoakd-0-5", 12, &pid, &st), -1, "pid 0: not ours");
	T_EQ_I(trace_instance_parse("fpusoakd-12", 11, &pid, &st), -1, "no start time: not ours");
	T_EQ_I(trace_instance_parse("fpusoakd-x-1", 12, &pid, &st), -1, "no pid: not ours");
	T_EQ_I(trace_instance_parse("perf-12-34", 10, &pid, &st), -1, "another tracer's instance: not ours");
	T_EQ_I(trace_instance_name(0, 1, name, sizeof name), -1, "pid 0 names nothing");
	T_CHECK(trace_stat_starttime(stat1, sizeof stat1 - 1, &st) == 0 && st == 98765, "starttime after a comm with ') (' in it: %llu", (unsigned long long)st);
	T_EQ_I(trace_stat_starttime(stat2, sizeof stat2 - 1, &st), -1, "a stat line that stops before field 22");
	T_EQ_I(trace_stat_starttime("1 sh S", 6, &st), -1, "no parentheses");
}

static void test_triggers(void)
{
	static char buf[4096];
	long n = t_fixture("trace-extfrag.trigger-6.1-xenpv", buf, sizeof buf);
	long pos = 0;
	int ours = 0;
	char out[512];

	T_CHECK(n > 0, "fixture trace-extfrag.trigger-6.1-xenpv readable");
	while (pos < n) {
		char *nl = memchr(buf + pos, '\n', (size_t)(n - pos));
		size_t len = nl ? (size_t)(nl - buf - pos) : (size_t)(n - pos);

		if (trace_trigger_removal(buf + pos, len, out, sizeof out) == 1) {
			char want[128];
			snprintf(want, sizeof want, " if alloc_migratetype == %d", ours);
			T_CHECK(out[0] == '!' && strncmp(out + 1, "hist:keys=" TRACE_EXTFRAG_KEYS ":vals=hitcount", 58) == 0 &&
				strlen(out) > strlen(want) && strcmp(out + strlen(out) - strlen(want), want) == 0,
				"removal of the kernel's listing %d: %s", ours, out);
			ours++;
		}
		pos += (long)len + 1;
	}
	T_EQ_I(ours, 3, "the three triggers fpusoakd set are recognised in the kernel's listing");
	T_EQ_I(trace_trigger_removal("# Available triggers:", 21, out, sizeof out), 0, "a comment is nobody's trigger");
	{
		static const char *const foreign[] = {
			"hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]",
			"hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount:sort=hitcount:size=2048 [active]",
			"hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount:sort=hitcount:size=2048 if fallback_order < 3 [active]",
			"hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount,change_ownership:sort=hitcount:size=2048 if alloc_migratetype == 0 [active]",
			"snapshot if alloc_migratetype == 0",
			"hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount:sort=hitcount:size=2048 if alloc_migratetype == 0 && fallback_order < 3 [active]",
		};
		for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
			T_EQ_I(trace_trigger_removal(foreign[i], strlen(foreign[i]), out, sizeof out), 0, "foreign trigger %zu left alone", i);
	}
	{
		static const char t[] = "hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount if alloc_migratetype == 1";
		T_EQ_I(trace_trigger_removal(t, sizeof t - 1, out, 10), -1, "removal text that does not fit is an error");
		T_EQ_I(trace_trigger_removal(t, sizeof t - 1, out, sizeof out), 1, "the text fpusoakd writes is its own");
	}
}

static void test_cexpr(void)
{
	static char buf[8192];
	long n = t_fixture("trace-mm_page_alloc_extfrag.format-6.1-xenpv", buf, sizeof buf);
	const char *arg;
	size_t alen;
	uint64_t v;
	static const struct { const char *e; int rc; uint64_t v; } ex[] = {
		{ "1 + 2 * 3", 0, 7 }, { "(1 + 2) * 3", 0, 9 }, { "1 << 4 | 1", 0, 17 }, { "~0u & 0xff", 0, 255 },
		{ "3 < 4 ? 10 : 20", 0, 10 }, { "3 > 4 ? 10 : 5 > 4 ? 30 : 40", 0, 30 }, { "(( gfp_t)(0x400u|0x800u))", 0, 0xc00 },
		{ "!0 && 2 == 2", 0, 1 }, { "7 % 4 - 1", 0, 2 }, { "-1", 0, UINT64_MAX }, { "1 != 1 || 0", 0, 0 }, { "6 / 2 ^ 1", 0, 2 },
		{ "1 / 0", -1, 0 }, { "1 << 64", -1, 0 }, { "REC->pfn", -1, 0 }, { "(1", -1, 0 }, { "1)", -1, 0 }, { "", -1, 0 },
		{ "1 +", -1, 0 }, { "08", -1, 0 }, { "0x", -1, 0 }, { "1 ? 2", -1, 0 }, { "12abc", -1, 0 }, { "foo(1)", -1, 0 },
	};

	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		int rc = cexpr_eval(ex[i].e, strlen(ex[i].e), &v);
		T_CHECK(rc == ex[i].rc && (rc != 0 || v == ex[i].v), "cexpr \"%s\" -> %s%llu", ex[i].e, ex[i].rc ? "refused " : "",
			(unsigned long long)ex[i].v);
	}
	T_CHECK(n > 0, "fixture trace-mm_page_alloc_extfrag.format-6.1-xenpv readable");
	T_EQ_I(cexpr_print_arg(buf, (size_t)n, "pageblock_order", &arg, &alen), 0, "the print fmt argument for pageblock_order found");
	T_CHECK(cexpr_eval(arg, alen, &v) == 0 && v == 9, "pageblock_order = min(21 - 12, 11 - 1) = 9 in this kernel");
	T_CHECK(cexpr_print_arg(buf, (size_t)n, "alloc_order", &arg, &alen) == 0 && alen == 16 && memcmp(arg, "REC->alloc_order", 16) == 0,
		"alloc_order's argument is REC->alloc_order");
	T_CHECK(cexpr_eval(arg, alen, &v) == -1, "... which is not a constant");
	T_EQ_I(cexpr_print_arg(buf, (size_t)n, "order", &arg, &alen), -1, "\"order\" is not \"alloc_order\"");
	T_EQ_I(cexpr_print_arg("print fmt: \"a=%d\"", 17, "a", &arg, &alen), -1, "a conversion without an argument");
}

int main(void)
{
	test_lines();
	test_pipe_fixture();
	test_trace_file();
	test_hist_fixture();
	test_hist_bad();
	test_names();
	test_triggers();
	test_cexpr();
	T_DONE();
}
