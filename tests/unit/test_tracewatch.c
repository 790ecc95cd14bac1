/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_tracewatch: the tracefs driver against a directory tree that plays
 * tracefs.  What a plain folder cannot do by itself is done by the mkdir and
 * rmdir hooks the driver takes (struct traceinst_fs): mkdir fills a new
 * instance with the files the driver uses (the two events' format files are
 * the ones captured in the Xen guest), rmdir checks that every trigger
 * written was taken back first and then removes the folder.  Files keep
 * what the driver writes (trigger writes append, as O_APPEND does), so the
 * test reads back exactly what the kernel would have been told; trace_pipe
 * and hist are plain files the test fills with real captured text.
 * The kernel's own behaviour (filters, EINVAL for a 4th key, rmdir) is
 * tested in the Xen guest (tests/xen).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "collector/kmsg.h"
#include "collector/trace.h"
#include "common/log.h"
#include "daemon/tracewatch.h"
#include "store/store.h"
#include "test.h"

#include <sqlite3.h>

static char tree[256];          /* the fake sys root */
static struct store *tdb;
static int64_t run_id, tick_ms = 1764590000000;
static char db_path[300];
static char inst_dir[512];      /* its instances/ */

struct fake {
	int mkdirs, rmdirs;
	int rmdir_with_triggers;        /* rmdir saw a trigger still set */
	int no_hist;                    /* new instances lack a trigger file (pipe fallback) */
	int no_filter;                  /* ... lack mm_page_alloc's filter file */
	int mkdir_errno;                /* fail mkdir with this */
};

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int copy_fixture(const char *name, const char *to)
{
	static char buf[1 << 17];
	long n = t_fixture(name, buf, sizeof buf);
	return n < 0 ? -1 : write_file(to, buf);
}

static int rm_rf(const char *path)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	return system(cmd);
}

/* What mkdir in tracefs' instances/ gives: the files this driver touches. */
static void populate(const char *dir, const struct fake *fk)
{
	static const char *const dirs[] = { "events", "events/kmem", "events/kmem/mm_page_alloc", "events/kmem/mm_page_alloc_extfrag" };
	char p[1024];

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, dirs[i]);
		mkdir(p, 0750);
	}
#define F(rel, text) do { snprintf(p, sizeof p, "%s/%s", dir, rel); write_file(p, text); } while (0)
	F("buffer_size_kb", "1410 (expanded: 1408)\n");
	F("trace_clock", "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n");
	F("buffer_percent", "50\n");
	F("trace_pipe", "");
	F("events/kmem/mm_page_alloc/enable", "0\n");
	if (!fk->no_filter)
		F("events/kmem/mm_page_alloc/filter", "none\n");
	F("events/kmem/mm_page_alloc/trigger", "# Available triggers:\n");
	F("events/kmem/mm_page_alloc_extfrag/enable", "0\n");
	F("events/kmem/mm_page_alloc_extfrag/filter", "none\n");
	if (!fk->no_hist) {
		F("events/kmem/mm_page_alloc_extfrag/trigger", "");
		F("events/kmem/mm_page_alloc_extfrag/hist", "");
	}
#undef F
	snprintf(p, sizeof p, "%s/events/kmem/mm_page_alloc/format", dir);
	copy_fixture("trace-mm_page_alloc.format-6.1-xenpv", p);
	snprintf(p, sizeof p, "%s/events/kmem/mm_page_alloc_extfrag/format", dir);
	copy_fixture("trace-mm_page_alloc_extfrag.format-6.1-xenpv", p);
}

static int fake_mkdir(void *arg, int dirfd, const char *name)
{
	struct fake *fk = arg;
	char p[1024];

	fk->mkdirs++;
	if (fk->mkdir_errno) {
		errno = fk->mkdir_errno;
		return -1;
	}
	if (mkdirat(dirfd, name, 0750) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/%s", inst_dir, name);
	populate(p, fk);
	return 0;
}

/* Triggers set and not taken back in a trigger file that logs writes: "hist:X" adds, "!hist:X" removes. */
static int triggers_left(const char *path)
{
	char lines[32][512];
	int n = 0, left = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (n < 32 && fgets(lines[n], sizeof lines[n], f))
		lines[n][strcspn(lines[n], "\n")] = '\0', n++;
	fclose(f);
	for (int i = 0; i < n; i++) {
		char *l = lines[i];
		size_t k = strlen(l);

		if (k >= 9 && strcmp(l + k - 9, " [active]") == 0)
			l[k - 9] = '\0';          /* the kernel's listing form of a trigger */
		if (strncmp(l, "hist:", 5) != 0)
			continue;
		left++;
		for (int j = 0; j < n; j++) {
			/* the listing adds :sort=hitcount:size=2048; a removal names the trigger as it was written */
			char *r = lines[j];
			if (r[0] == '!' && strncmp(r + 1, l, 5 + strlen(TRACE_EXTFRAG_KEYS) + 5) == 0 &&
			    strcmp(strstr(r, " if ") ? strstr(r, " if ") : "", strstr(l, " if ") ? strstr(l, " if ") : "") == 0) {
				left--;
				r[0] = '-';               /* each removal counts once */
				break;
			}
		}
	}
	return left;
}

static int fake_rmdir(void *arg, int dirfd, const char *name)
{
	struct fake *fk = arg;
	char p[1024];

	fk->rmdirs++;
	snprintf(p, sizeof p, "%s/%s/events/kmem/mm_page_alloc_extfrag/trigger", inst_dir, name);
	if (triggers_left(p) > 0)
		fk->rmdir_with_triggers++;
	snprintf(p, sizeof p, "%s/%s", inst_dir, name);
	if (faccessat(dirfd, name, F_OK, 0) < 0)
		return -1;
	return rm_rf(p) == 0 ? 0 : -1;
}

/* One store tick with what the driver holds; 0 if written. */
static int attach_tick(struct tracewatch *tw)
{
	struct store_tick *t = store_tick_new(tdb, run_id, tick_ms += 1000);

	if (!t || tracewatch_attach(tw, tdb, t) < 0)
		return -1;
	return store_submit(tdb, t);
}

/* One integer the test DB answers (read-only connection, as a reader would), or -1. */
static long long sql_i64(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	long long v = -1;

	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
			v = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	} else {
		printf("      sql error: %s\n", sqlite3_errmsg(db));
	}
	sqlite3_close(db);
	return v;
}

static int read_text(const char *rel_in_inst, const char *inst, char *out, size_t cap)
{
	char p[1024];
	FILE *f;
	size_t n;

	snprintf(p, sizeof p, "%s/%s/%s", inst_dir, inst, rel_in_inst);
	if (!(f = fopen(p, "r")))
		return -1;
	n = fread(out, 1, cap - 1, f);
	out[n] = '\0';
	fclose(f);
	return 0;
}

static int append_text(const char *inst, const char *rel, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s/%s", inst_dir, inst, rel);
	if (!(f = fopen(p, "a")))
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int exists(const char *name)
{
	char p[1024];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s", inst_dir, name);
	return stat(p, &st) == 0;
}

static void make_tree(void)
{
	char p[512];

	snprintf(tree, sizeof tree, "/tmp/fpusoak-tw.XXXXXX");
	if (!mkdtemp(tree))
		exit(1);
	snprintf(p, sizeof p, "%s/kernel", tree);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/kernel/tracing", tree);
	mkdir(p, 0755);
	snprintf(inst_dir, sizeof inst_dir, "%s/kernel/tracing/instances", tree);
	mkdir(inst_dir, 0750);
}

/* Start time of pid from /proc; 0 on failure. */
static uint64_t start_of(pid_t pid)
{
	char p[64], buf[2048];
	FILE *f;
	size_t n;
	uint64_t st = 0;

	snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(p, "r")))
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	return trace_stat_starttime(buf, n, &st) == 0 ? st : 0;
}

/* Fragmenting fallbacks in the hist fixture by awk: entries whose fallback_order is below 9. */
static long long awk_frag(void)
{
	char path[512], out[64];

	snprintf(path, sizeof path, "%s/trace-extfrag.hist-6.1-xenpv", getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures");
	if (t_awk_file("/^\\{ / { for (i = 1; i <= NF; i++) if ($i == \"fallback_order:\") f = $(i + 1) + 0; if (f < 9) s += $NF } END { print s + 0 }",
		       path, out, sizeof out) < 0)
		return -1;
	return atoll(out);
}

static void test_setup_and_close(void)
{
	struct fake fk = { 0 };
	struct traceinst_fs fs = { fake_mkdir, fake_rmdir, &fk };
	struct tracewatch_opts o = { .sys_root = tree, .proc_root = "/proc", .fs = &fs };
	char why[TRACEWATCH_DESC_MAX], name[TRACE_INSTANCE_NAME_MAX], want[TRACE_INSTANCE_NAME_MAX], text[4096];
	struct tracewatch *tw = tracewatch_open(&o, why, sizeof why);

	T_CHECK(tw != NULL, "instance set up in the tree: %s", why);
	if (!tw)
		return;
	trace_instance_name(getpid(), start_of(getpid()), want, sizeof want);
	snprintf(name, sizeof name, "%s", tracewatch_instance(tw));
	T_EQ_S(name, want, "named after this process: pid and start time");
	T_CHECK(strstr(why, "mm_page_alloc failures (in-kernel filter pfn == 0xffffffffffffffff") != NULL &&
		strstr(why, "in-kernel histograms (3 hist triggers") != NULL && strstr(why, "64 KiB per CPU, mono clock") != NULL,
		"what it got is described: %s", why);
	read_text("events/kmem/mm_page_alloc/filter", name, text, sizeof text);
	T_EQ_S(text, "pfn == 0xffffffffffffffff\n", "failures-only filter written");
	read_text("events/kmem/mm_page_alloc/enable", name, text, sizeof text);
	T_EQ_S(text, "1\n", "mm_page_alloc enabled");
	read_text("events/kmem/mm_page_alloc_extfrag/enable", name, text, sizeof text);
	T_EQ_S(text, "0\n", "extfrag not enabled into the ring buffer (histograms only)");
	read_text("events/kmem/mm_page_alloc_extfrag/trigger", name, text, sizeof text);
	T_EQ_S(text, "hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount if alloc_migratetype == 0\n"
		     "hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount if alloc_migratetype == 1\n"
		     "hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount if alloc_migratetype == 2\n",
	       "three hist triggers appended, one per allocating migrate type");
	read_text("buffer_size_kb", name, text, sizeof text);
	T_EQ_S(text, "64\n", "ring buffer shrunk to 64 KiB per CPU");
	read_text("trace_clock", name, text, sizeof text);
	T_EQ_S(text, "mono\n", "mono trace clock");
	read_text("buffer_percent", name, text, sizeof text);
	T_EQ_S(text, "0\n", "poll wakes on the first event");
	T_CHECK(tracewatch_fd(tw) >= 0, "trace_pipe open for the event loop");

	/* failures through the pipe: the first 400 lines captured in the guest (366 failures, 34 fallbacks) */
	{
		static char buf[1 << 17];
		long n = t_fixture("trace-pipe-6.1-xenpv", buf, sizeof buf);
		const struct tracewatch_failure *f;
		int nf, nx, sleeping = 0, masks = 0;
		int64_t wall = 1764590000000, mono_us = 200000000;   /* trace stamps are 133.x s: ~67 s before "now" */

		T_CHECK(n > 0, "pipe fixture");
		/* in two pieces cut mid-line, as read() may give them */
		buf[n] = '\0';
		{
			char save = buf[30000];
			buf[30000] = '\0';
			append_text(name, "trace_pipe", buf);
			tracewatch_drain(tw, wall, mono_us);
			buf[30000] = save;
			append_text(name, "trace_pipe", buf + 30000);
			tracewatch_drain(tw, wall, mono_us);
		}
		f = tracewatch_failures(tw, &nf);
		tracewatch_extfrags(tw, &nx);
		T_EQ_I(nf, 366, "366 failures pending for the tick");
		T_EQ_I(tracewatch_totals(tw)->failures, 366, "... and counted");
		T_EQ_I(tracewatch_totals(tw)->unparsed, 0, "no line lost to the cut between reads");
		for (int i = 0; i < nf; i++) {
			sleeping += !f[i].atomic;
			masks += f[i].has_mask;
		}
		T_EQ_I(sleeping, 1, "one sleeping failure among them");
		T_EQ_I(masks, 366, "every failure's mask from the kernel's own table");
		for (int i = 0; i < nf; i++)
			if (!f[i].atomic)
				T_CHECK(f[i].pid == 529 && strcmp(f[i].comm, "sh") == 0 && f[i].gfp_mask == 0x140dca && !f[i].nowarn &&
					f[i].order == 0 && f[i].migratetype == 1 && f[i].ts_ms == wall - (mono_us - 133604749) / 1000,
					"the sleeping one: sh-529, 0x140dca, at the wall time its mono stamp says");
		T_EQ_I(f[0].nowarn && f[0].atomic && !f[0].opportunistic, 1, "GFP_NOWAIT|__GFP_NOWARN: atomic, silent, not opportunistic");
		T_EQ_I(nx, 0, "extfrag lines in the pipe are not counted in histogram mode (the kernel counts them; no double count)");
	}

	/* histograms: the captured hist, then the same with more fallbacks */
	{
		char p[1024];
		const struct store_extfrag *x;
		int nx;
		uint64_t sum = 0, frag = 0;

		T_EQ_I(attach_tick(tw), 0, "tick with the failures written");
		T_EQ_I(sql_i64("SELECT count(*) FROM v_page_alloc_failures"), 366, "366 rows in v_page_alloc_failures");
		T_EQ_I(sql_i64("SELECT count(*) FROM v_page_alloc_failures WHERE class = 'sleeping' AND gfp_mask = '0x140dca'"
			       " AND comm = CAST('sh' AS BLOB) AND pid = 529 AND page_order = 0 AND migratetype = 1"
			       " AND nowarn = 0 AND opportunistic = 0 AND atomic = 0"
			       " AND gfp_flags = 'GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO'"), 1,
		       "the sleeping one, every column as the trace line said");
		T_EQ_I(sql_i64("SELECT count(*) FROM v_page_alloc_failures WHERE class = 'atomic' AND nowarn = 1 AND gfp_mask = '0x2800'"),
		       365, "365 atomic, silent ones with the mask of GFP_NOWAIT|__GFP_NOWARN");
		tracewatch_failures(tw, &nx);
		T_EQ_I(nx, 0, "the tick took them");
		snprintf(p, sizeof p, "%s/%s/events/kmem/mm_page_alloc_extfrag/hist", inst_dir, name);
		copy_fixture("trace-extfrag.hist-6.1-xenpv", p);
		T_EQ_I(tracewatch_sample(tw), 0, "histograms read");
		x = tracewatch_extfrags(tw, &nx);
		for (int i = 0; i < nx; i++) {
			sum += x[i].events;
			frag += x[i].fragmenting == 1 ? x[i].events : 0;
			if (x[i].fragmenting != (x[i].fallback_order < 9))
				T_CHECK(0, "fragmenting from the format file's pageblock order 9");
		}
		T_EQ_I(nx, 23, "23 kinds of fallback (11 + 7 + 5 histogram entries)");
		T_EQ_I(sum, 80, "80 fallbacks: the three histograms' Hits");
		T_EQ_I(frag, awk_frag(), "%llu of them fragmenting (fallback order below 9, as awk counts them)", (unsigned long long)frag);
		attach_tick(tw);
		T_EQ_I(sql_i64("SELECT sum(events) FROM v_extfrag"), 80, "v_extfrag holds the 80 fallbacks");
		T_EQ_I(sql_i64("SELECT sum(events) FROM v_extfrag WHERE fragmenting = 1"), (long long)frag, "... and the fragmenting ones");
		T_EQ_I(sql_i64("SELECT count(*) FROM v_extfrag"), 23, "one row per kind");
		T_EQ_I(tracewatch_sample(tw), 0, "read again unchanged");
		tracewatch_extfrags(tw, &nx);
		T_EQ_I(nx, 0, "no growth, no rows");
		{
			/* one entry grows by 5: the MOVABLE order-0-from-order-0 line 45 -> 50 */
			static char buf[8192];
			long n = t_fixture("trace-extfrag.hist-6.1-xenpv", buf, sizeof buf);
			char *at = n > 0 ? strstr(buf, "fallback_migratetype:          0 } hitcount:         45") : NULL;
			if (at)
				memcpy(strstr(at, "45"), "50", 2);
			write_file(p, buf);
			tracewatch_sample(tw);
			x = tracewatch_extfrags(tw, &nx);
			T_CHECK(at && nx == 1 && x[0].events == 5 && x[0].alloc_migratetype == 1 && x[0].alloc_order == 0 &&
				x[0].fallback_order == 0 && x[0].fallback_migratetype == 0 && x[0].fragmenting == 1,
				"growth of one entry gives one row of 5 (alloc_migratetype from the trigger's filter)");
			attach_tick(tw);
			write_file(p, "");
			T_EQ_I(tracewatch_sample(tw), 0, "a hist file without histograms (triggers gone) is read as nothing");
		}
		T_EQ_I(tracewatch_totals(tw)->extfrag, 85, "85 fallbacks in all");
	}

	/* The kernel log's line for the sleeping failure (as the guest's console had it, 117 ms later on its clock)
	 * and one the trace did not see: linked, and not linked. */
	{
		static const char l1[] = "sh: page allocation failure: order:0, mode:0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), nodemask=(null),cpuset=/,mems_allowed=0";
		static const char l2[] = "other: page allocation failure: order:0, mode:0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), nodemask=(null),cpuset=/,mems_allowed=0";
		struct kmsg_event e1, e2;
		struct store_tick *t = store_tick_new(tdb, run_id, tick_ms += 1000);
		long long ts = sql_i64("SELECT ts_ms FROM v_page_alloc_failures WHERE class = 'sleeping'");

		kmsg_parse_line(l1, sizeof l1 - 1, &e1);
		kmsg_parse_line(l2, sizeof l2 - 1, &e2);
		store_tick_event(t, ts + 117, "boot", 1, &e1, l1, sizeof l1 - 1);
		store_tick_event(t, ts + 117, "boot", 2, &e2, l2, sizeof l2 - 1);
		store_submit(tdb, t);
		T_EQ_I(sql_i64("SELECT in_trace FROM v_alloc_failures WHERE seq = 1"), 1, "the logged failure the trace saw: in_trace");
		T_EQ_I(sql_i64("SELECT in_trace FROM v_alloc_failures WHERE seq = 2"), 0, "another task's: not linked");
		T_EQ_I(sql_i64("SELECT count(*) FROM v_page_alloc_failures WHERE in_kmsg = 1"), 1, "exactly one traced failure linked back");
	}
	/* The run's last buckets, then the rollups against the rows. */
	attach_tick(tw);
	store_rollup(tdb, run_id, INT64_MAX);
	T_EQ_I(sql_i64("SELECT sum(page_alloc_failures) FROM v_extfrag_1m"), 366, "minute rollups: the 366 failures");
	T_EQ_I(sql_i64("SELECT sum(events) FROM v_extfrag_1h"), 85, "hour rollups: the 85 fallbacks");
	T_EQ_I(sql_i64("SELECT sum(fragmenting) FROM v_extfrag_1h"), sql_i64("SELECT sum(events) FROM v_extfrag WHERE fragmenting = 1"),
	       "... the fragmenting ones as the rows add them");
	T_EQ_I(sql_i64("SELECT sum(samples) FROM v_extfrag_1m"), sql_i64("SELECT count(*) FROM v_samples") - 1,
	       "every tick the driver attached to counts, quiet ones too (not the kernel-log-only one)");
	T_EQ_I(sql_i64("SELECT failures FROM v_page_alloc_failures_1h WHERE page_order = 0 AND class = 'atomic'"), 365,
	       "hour rollup by order and class: 365 atomic order-0");
	T_EQ_I(sql_i64("SELECT failures FROM v_page_alloc_failures_1h WHERE page_order = 0 AND class = 'sleeping'"), 1,
	       "... 1 sleeping order-0");
	tracewatch_close(tw);
	T_CHECK(!exists(name), "instance removed at close");
	T_EQ_I(fk.rmdir_with_triggers, 0, "every trigger taken back before rmdir");
	T_EQ_I(fk.rmdirs, 1, "one rmdir");
}

static void test_stale(void)
{
	struct fake fk = { 0 };
	struct traceinst_fs fs = { fake_mkdir, fake_rmdir, &fk };
	char dead[64], live[64], reused[64], busy[64], p[1024];
	pid_t child = fork();
	int status, fd;
	uint64_t cst;

	if (child == 0)
		_exit(0);
	cst = start_of(child);      /* may already be gone: then any start will do, the pid is dead */
	waitpid(child, &status, 0);
	trace_instance_name(child, cst ? cst : 1, dead, sizeof dead);
	trace_instance_name(getppid(), start_of(getppid()), live, sizeof live);
	trace_instance_name(getpid(), start_of(getpid()) + 1, reused, sizeof reused);
	trace_instance_name(child, 7, busy, sizeof busy);
	{
		const char *names[] = { dead, live, reused, busy, "perf-1-2", "fpusoakd-01-3", "other" };
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			snprintf(p, sizeof p, "%s/%s", inst_dir, names[i]);
			mkdir(p, 0750);
			populate(p, &fk);
		}
	}
	/* dead's triggers as the kernel lists them; busy also carries someone else's */
	snprintf(p, sizeof p, "%s/%s/events/kmem/mm_page_alloc_extfrag/trigger", inst_dir, dead);
	copy_fixture("trace-extfrag.trigger-6.1-xenpv", p);
	snprintf(p, sizeof p, "%s/%s/events/kmem/mm_page_alloc_extfrag/trigger", inst_dir, busy);
	write_file(p, "hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n");
	fk.rmdirs = 0;
	fd = open(inst_dir, O_RDONLY | O_DIRECTORY);
	T_EQ_I(traceinst_remove_stale(fd, "/proc", &fs), 2, "two stale instances removed (dead pid; pid alive but started at another time)");
	close(fd);
	T_CHECK(!exists(dead), "instance of a dead fpusoakd removed");
	T_CHECK(!exists(reused), "instance whose pid now belongs to a later process removed");
	T_EQ_I(fk.rmdir_with_triggers, 0, "its triggers were taken back first (from the kernel's listing)");
	T_CHECK(exists(live), "instance of a live process left alone");
	T_CHECK(exists(busy), "stale-named instance with someone else's trigger left alone");
	T_CHECK(exists("perf-1-2") && exists("other") && exists("fpusoakd-01-3"), "anyone else's instances left alone");
	snprintf(p, sizeof p, "%s/perf-1-2/events/kmem/mm_page_alloc/enable", inst_dir);
	{
		char text[64] = "";
		FILE *f = fopen(p, "r");
		if (f) {
			if (!fgets(text, sizeof text, f))
				text[0] = '\0';
			fclose(f);
		}
		T_EQ_S(text, "0\n", "... not even written to");
	}
	{
		const char *names[] = { live, busy, "perf-1-2", "fpusoakd-01-3", "other" };
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			snprintf(p, sizeof p, "%s/%s", inst_dir, names[i]);
			rm_rf(p);
		}
	}
}

static void test_fallbacks(void)
{
	struct fake fk = { .no_hist = 1 };
	struct traceinst_fs fs = { fake_mkdir, fake_rmdir, &fk };
	struct tracewatch_opts o = { .sys_root = tree, .proc_root = "/proc", .fs = &fs };
	char why[TRACEWATCH_DESC_MAX], name[64], text[256];
	struct tracewatch *tw = tracewatch_open(&o, why, sizeof why);

	T_CHECK(tw && strstr(why, "mm_page_alloc_extfrag through the pipe, counted by fpusoakd (hist trigger refused: No such file") != NULL,
		"no hist triggers: extfrag through the pipe (%s)", why);
	if (tw) {
		static char buf[1 << 17];
		const struct store_extfrag *x;
		int nx;
		uint64_t sum = 0;
		long n = t_fixture("trace-pipe-6.1-xenpv", buf, sizeof buf);

		snprintf(name, sizeof name, "%s", tracewatch_instance(tw));
		read_text("events/kmem/mm_page_alloc_extfrag/enable", name, text, sizeof text);
		T_EQ_S(text, "1\n", "extfrag enabled into the ring buffer instead");
		if (n > 0)
			append_text(name, "trace_pipe", buf);
		tracewatch_drain(tw, 0, 0);
		x = tracewatch_extfrags(tw, &nx);
		for (int i = 0; i < nx; i++)
			sum += x[i].events;
		T_EQ_I(sum, 34, "the pipe's 34 fallbacks counted by fpusoakd");
		tracewatch_close(tw);
		T_CHECK(!exists(name), "instance removed");
	}
	fk = (struct fake){ .no_filter = 1, .no_hist = 1 };
	tw = tracewatch_open(&o, why, sizeof why);
	T_CHECK(tw && strstr(why, "mm_page_alloc off (filter refused: No such file or directory)") != NULL,
		"no filter: mm_page_alloc stays off rather than unfiltered (%s)", why);
	tracewatch_close(tw);
	fk = (struct fake){ .mkdir_errno = EROFS };
	tw = tracewatch_open(&o, why, sizeof why);
	T_CHECK(!tw && strncmp(why, "not writable: ", 14) == 0 && strstr(why, "Read-only file system"), "read-only tracefs: off, %s", why);
}

static void test_off(void)
{
	struct tracewatch_opts o = { .sys_root = "/nonexistent", .proc_root = "/proc" };
	char why[TRACEWATCH_DESC_MAX], p[512];
	struct tracewatch *tw = tracewatch_open(&o, why, sizeof why);
	DIR *d;
	int left = 0;

	T_CHECK(!tw && strncmp(why, "not mounted", 11) == 0, "no tracefs under the root: %s", why);
	/* A tree that is no tracefs: mkdir gives an empty folder, setup fails, the folder goes again. */
	o.sys_root = tree;
	tw = tracewatch_open(&o, why, sizeof why);
	T_CHECK(!tw && strstr(why, "buffer_size_kb: No such file or directory (not a tracefs instance?)") != NULL,
		"a plain folder is no tracefs instance: %s", why);
	snprintf(p, sizeof p, "%s", inst_dir);
	if ((d = opendir(p))) {
		struct dirent *de;
		while ((de = readdir(d)))
			left += de->d_name[0] != '.';
		closedir(d);
	}
	T_EQ_I(left, 0, "nothing left behind in instances/");
	/* On this machine: /sys itself (tracefs must not be mounted here; if it is, say so and skip). */
	o.sys_root = "/sys";
	tw = tracewatch_open(&o, why, sizeof why);
	if (tw) {
		T_SKIP("tracefs is mounted on this machine: the off path on /sys not tested (%s)", why);
		tracewatch_close(tw);
	} else {
		T_CHECK(strncmp(why, "not mounted", 11) == 0 || strncmp(why, "not writable", 12) == 0, "this machine: %s", why);
	}
}

/* A guest-scope fill: the instance goes (triggers first), the totals stay, it comes back set up the same. */
static void test_suspend(void)
{
	struct fake fk = { 0 };
	struct traceinst_fs fs = { fake_mkdir, fake_rmdir, &fk };
	struct tracewatch_opts o = { .sys_root = tree, .proc_root = "/proc", .fs = &fs };
	char why[TRACEWATCH_DESC_MAX], name[TRACE_INSTANCE_NAME_MAX], text[4096];
	struct tracewatch *tw = tracewatch_open(&o, why, sizeof why);
	int n;

	T_CHECK(tw != NULL, "instance set up: %s", why);
	if (!tw)
		return;
	snprintf(name, sizeof name, "%s", tracewatch_instance(tw));
	T_CHECK(tracewatch_fd(tw) >= 0 && !tracewatch_suspended(tw), "a pipe to poll, not suspended");
	T_EQ_I(tracewatch_suspend(tw, 1764590000000, 1000), 0, "suspend");
	T_CHECK(tracewatch_suspended(tw), "suspended");
	T_CHECK(!exists(name), "the instance folder is gone while suspended");
	T_EQ_I(fk.rmdir_with_triggers, 0, "its triggers taken back before rmdir");
	T_EQ_I(tracewatch_fd(tw), -1, "no pipe to poll while suspended");
	T_EQ_I(tracewatch_sample(tw), 0, "a slow tick while suspended reads nothing and fails nothing");
	T_EQ_I(tracewatch_suspend(tw, 1764590000000, 1000), 0, "a second suspend is a no-op");
	T_EQ_I(fk.rmdirs, 1, "... one rmdir");
	T_EQ_I(attach_tick(tw), 0, "a tick while suspended is written");
	tracewatch_failures(tw, &n);
	T_EQ_I(n, 0, "nothing pending");
	T_EQ_I(tracewatch_resume(tw, why, sizeof why), 0, "resume: %s", why);
	T_CHECK(!tracewatch_suspended(tw) && tracewatch_fd(tw) >= 0, "not suspended, a pipe to poll again");
	T_CHECK(exists(name), "the instance is back under the same name");
	T_EQ_I(fk.mkdirs, 2, "two mkdirs in all");
	read_text("events/kmem/mm_page_alloc/filter", name, text, sizeof text);
	T_EQ_S(text, "pfn == 0xffffffffffffffff\n", "the failures-only filter written again");
	T_EQ_I(tracewatch_resume(tw, why, sizeof why), 0, "a second resume is a no-op");
	T_EQ_I(fk.mkdirs, 2, "... no third mkdir");
	tracewatch_close(tw);
	T_CHECK(!exists(name), "instance removed at close");
	/* Suspended at close: nothing left to remove, nothing fails. */
	fk = (struct fake){ 0 };
	tw = tracewatch_open(&o, why, sizeof why);
	T_CHECK(tw != NULL, "set up again: %s", why);
	if (!tw)
		return;
	tracewatch_suspend(tw, 1764590000000, 1000);
	tracewatch_close(tw);
	T_EQ_I(fk.rmdirs, 1, "closed while suspended: the one rmdir of the suspend");
}

int main(void)
{
	char err[256];
	struct store_run r = { .version = "test", .started_ms = 1764590000000 };

	log_init(LOG_LVL_ERR);
	make_tree();
	snprintf(db_path, sizeof db_path, "%s/test.db", tree);
	tdb = store_open(db_path, 1 << 20, err, sizeof err);
	if (!tdb || store_run_begin(tdb, &r, &run_id) < 0) {
		printf("FAIL: %s: cannot open a test DB: %s\n", __FILE__, err);
		return 1;
	}
	test_setup_and_close();
	test_stale();
	test_fallbacks();
	test_off();
	test_suspend();
	store_close(tdb);
	rm_rf(tree);
	T_DONE();
}
