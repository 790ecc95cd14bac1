/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_causes: the daemon's side of failure causes (daemon/causes.h) without a
 * kernel: snapshots fed straight in, failures judged against the nearest one
 * within 1 s (the lag signed, failure minus sample), nothing beyond it; a
 * kernel-log failure against its own dump; the counts /metrics shows.
 */
#include "daemon/causes.h"
#include "tests/unit/test.h"

static const char *const LAYOUT[] = { "DMA", "DMA32", "Normal", "Movable", "Device" };

/* The zones of a fixture's dump (dmesg stamps none in these). */
static int fixture_zones(const char *name, struct memdump *d, struct cause_zone *z)
{
	static char buf[1 << 16];
	long n = t_fixture(name, buf, sizeof buf);

	if (n <= 0 || memdump_parse(buf, (size_t)n, d) < 0)
		return -1;
	return causes_dump_zones(d, LAYOUT, 5, 9, z, CAUSE_MAX_ZONES);
}

int main(void)
{
	static struct memdump wd, fd, cut;
	static struct cause_zone wz[CAUSE_MAX_ZONES], fz[CAUSE_MAX_ZONES];
	struct causes *c = causes_open("6.1.0-57-amd64");
	struct atomic_gfp atomic = { .high = 1, .atomic = 1 }, kernel = { .direct_reclaim = 1 };
	struct causes_row r;
	struct gfp_info g;
	int nw = fixture_zones("memdump-issue-watermark.txt", &wd, wz);
	int nf = fixture_zones("memdump-issue-fragmentation.txt", &fd, fz);

	T_CHECK(c != NULL, "open");
	T_CHECK(nw == 2 && nf == 2, "fixtures converted (%d, %d zones)", nw, nf);
	causes_from_sample(c, CAUSES_TRACE, 1000, 0, &atomic, CAUSE_ZT_NORMAL, &r);
	T_CHECK(r.cause == CAUSE_UNKNOWN && !r.has_lag, "no sample yet: unknown, no lag (%s)", r.note);
	causes_add_snapshot(c, wz, nw, LAYOUT, 5, 10000);
	causes_add_snapshot(c, fz, nf, LAYOUT, 5, 11000);
	causes_from_sample(c, CAUSES_TRACE, 10300, 0, &atomic, CAUSE_ZT_NORMAL, &r);
	T_EQ_S(cause_name(r.cause), "watermark", "300 ms after the watermark state: watermark");
	T_CHECK(r.has_lag && r.lag_ms == 300, "... lag 300 ms (got %lld)", (long long)r.lag_ms);
	T_EQ_S(r.zone, "DMA32", "... DMA32 decided");
	T_CHECK(r.free_kb == 216 && r.min_kb == 384, "... 216 kB free against 384 (got %lld, %lld)", (long long)r.free_kb,
		(long long)r.min_kb);
	causes_from_sample(c, CAUSES_TRACE, 10800, 3, &atomic, CAUSE_ZT_NORMAL, &r);
	T_EQ_S(cause_name(r.cause), "fragmentation", "200 ms before the fragmented state: that one is nearer");
	T_CHECK(r.lag_ms == -200, "... lag -200 ms (the sample came after; got %lld)", (long long)r.lag_ms);
	T_EQ_I(r.largest_order, 2, "... the largest block it could use: order 2");
	causes_from_sample(c, CAUSES_MODULE, 12000, 3, &kernel, CAUSE_ZT_NORMAL, &r);
	T_CHECK(r.cause == CAUSE_FRAGMENTATION && r.lag_ms == 1000, "1000 ms after: still close enough (%s)",
		cause_name(r.cause));
	causes_from_sample(c, CAUSES_MODULE, 12001, 3, &kernel, CAUSE_ZT_NORMAL, &r);
	T_CHECK(r.cause == CAUSE_UNKNOWN && !r.has_lag, "1001 ms after: unknown, no lag (%s)", r.note);
	T_EQ_S(r.note, "no zone state within 1 s", "... and says why");
	T_CHECK(r.free_kb < 0 && r.zone[0] == '\0', "... and names no zone");
	/* The ring keeps CAUSES_RING snapshots: the oldest goes first. */
	for (int i = 0; i < CAUSES_RING; i++)
		causes_add_snapshot(c, fz, nf, LAYOUT, 5, 20000 + i * 1000);
	causes_from_sample(c, CAUSES_TRACE, 10300, 0, &atomic, CAUSE_ZT_NORMAL, &r);
	T_CHECK(r.cause == CAUSE_UNKNOWN && !r.has_lag, "after %d more snapshots the first is gone", CAUSES_RING);
	causes_from_sample(c, CAUSES_TRACE, 20000, 3, &atomic, CAUSE_ZT_NORMAL, &r);
	T_CHECK(r.cause == CAUSE_FRAGMENTATION && r.lag_ms == 0, "the oldest kept is still there");

	/* A kernel-log failure against its own dump: exact, lag 0. */
	gfp_decode("GFP_ATOMIC|__GFP_COMP", 21, &g);
	causes_from_dump(c, &fd, 5, 3, &g, "GFP_ATOMIC|__GFP_COMP", 21, &r);
	T_CHECK(r.cause == CAUSE_FRAGMENTATION && r.has_lag && r.lag_ms == 0 && r.source == CAUSES_KMSG,
		"dump: fragmentation, lag 0, source kmsg");
	causes_from_dump(c, &fd, 5, 3, NULL, "", 0, &r);
	T_CHECK(r.cause == CAUSE_UNKNOWN, "dump with flags not named (3.x): unknown (%s)", r.note);
	memdump_init(&cut);
	{
		static const char zl[] = "Node 0 DMA32 free:8000kB min:1024kB low:1280kB high:1536kB";
		memdump_feed(&cut, zl, sizeof zl - 1);
	}
	causes_from_dump(c, &cut, 5, 3, &g, "GFP_ATOMIC|__GFP_COMP", 21, &r);
	T_EQ_S(r.note, "Mem-Info dump incomplete", "a truncated dump: unknown, says so");
	causes_from_dump(c, NULL, 5, 3, &g, "GFP_ATOMIC|__GFP_COMP", 21, &r);
	T_EQ_S(r.note, "no Mem-Info dump", "no dump at all: says so");

	/* Counts by source, cause and order (15 and above in 15). */
	r.source = CAUSES_MODULE;
	r.cause = CAUSE_FRAGMENTATION;
	r.order = 9;
	causes_count(c, &r);
	r.order = 22;
	causes_count(c, &r);
	T_EQ_I(causes_counts(c)[CAUSES_MODULE - 1][CAUSE_FRAGMENTATION][9], 1, "counted: module fragmentation order 9");
	T_EQ_I(causes_counts(c)[CAUSES_MODULE - 1][CAUSE_FRAGMENTATION][15], 1, "counted: order 22 in 15");
	r.source = 7;
	causes_count(c, &r);
	T_EQ_I(causes_counts(c)[CAUSES_MODULE - 1][CAUSE_FRAGMENTATION][15], 1, "a bad source is not counted");
	causes_close(c);
	causes_close(NULL);
	T_DONE();
}
