/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * genhistory: write days of realistic 1-second history through the store
 * module, so the storage figure and the report/API latencies are measured on
 * the real layout (tables, indexes, rollups), not on a guess of it.
 *
 * The shapes start from this machine's own /proc files (zones, vmstat and
 * meminfo names, pagetypeinfo migratetypes, slab caches), read once through
 * the collector parsers, then evolve per tick:
 *   buddyinfo   slow fragmentation drift over the whole span (orders >= 4
 *               lose up to 60% of their blocks, orders 0..2 gain), a daily
 *               cycle and +-3% noise; the zone with the most free pages
 *               changes every tick, the others once in ZONE_QUIET_TICKS on
 *               average (on the real daemon at defaults, 240 ticks: DMA and
 *               DMA32 never changed, Normal 18 times: this is the pessimistic
 *               side of both, since schema 6 stores a zone's row on change);
 *   vmstat      each counter changes with the per-second chance measured
 *               under the default churn (vm_change_p: ~10 changes per tick);
 *               the store keeps the ones that change (and, since schema 6,
 *               pgalloc/pgfree/pgfault as columns of the tick's row);
 *   meminfo     every tick (the store keeps 18 fields), with jitter;
 *   atomic risk one row per populated zone, masks from the synthetic free lists,
 *               and the request through the zonelist (v_atomic_request);
 *   churn       a row per tick, the default 32 workers / 30 s lifetime (~1 spawn/s);
 *   slow        pagetypeinfo + slabinfo every 60 s (the default --slow-interval);
 *   probes      a capacity probe every 10 minutes, its buddyinfo text attached;
 *   kernel log  a few page allocation failures spread over the span;
 *   rollups     store_rollup() after every tick, as the daemon's loop does (since
 *               schema 5 the store rolls buckets up as ticks are submitted, and
 *               store_rollup only closes the run's last buckets).
 *
 *   genhistory --db PATH (--days N | --hours N) [--seed S] [--limit-s SECONDS] [--rollup-every TICKS] [--progress]
 *   (--hours: a short run, e.g. the 1-hour page the browser test measures)
 *   (--limit-s stops early, after that much time, and reports what it wrote;
 *   --rollup-every N calls store_rollup every N ticks instead of once per tick: kept
 *   for the older store whose rollup call cost grew with the run)
 *
 * Prints key=value lines: ticks, seconds, ticks_per_s, db_bytes,
 * bytes_per_tick, mb_per_day, and size_day1_bytes (db + WAL after the first
 * full day).  Deterministic for a given seed and /proc starting point.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/buddyinfo.h"
#include "collector/kmsg.h"
#include "collector/kv.h"
#include "collector/pagetypeinfo.h"
#include "collector/slabinfo.h"
#include "common/log.h"
#include "common/num.h"
#include "common/procfile.h"
#include "store/store.h"

#define DAY_MS 86400000LL
#define READ_CAP (1 << 20)

struct gen {
	struct buddyinfo base, cur;
	struct kv_set vm_base, vm, mi_base, mi;
	struct pagetypeinfo *pt;
	struct slabinfo *sl;
	int have_pt, have_sl;
	double vm_p[KV_MAX];
	uint64_t rng;
	int busy_zone;       /* the zone allocations come from: the most free pages */
};

#define ZONE_QUIET_TICKS 600

static uint64_t rnd(struct gen *g)
{
	/* xorshift64*: reproducible from --seed, good enough for noise. */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 2685821657736338717ULL;
}

static double unif(struct gen *g)
{
	return (double)(rnd(g) >> 11) / 9007199254740992.0;
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Chance per second that a kept vmstat counter changes under the default
 * churn (32 workers, 30 s lifetimes), from a 40 s run of the real daemon on
 * the development VM: these changed on (almost) every tick, pgmajfault and
 * workingset_refault_file on half of them, everything else (compaction,
 * migration, THP, reclaim) rarely.  That run stored 10.4 vmstat rows per tick.
 */
static double vm_change_p(const char *name)
{
	static const struct { const char *name; double p; } hot[] = {
		{ "pgalloc_normal", 1 }, { "pgfree", 1 }, { "pgfault", 1 }, { "nr_free_pages", 1 },
		{ "nr_slab_unreclaimable", 1 }, { "nr_page_table_pages", 1 }, { "nr_kernel_stack", 0.9 },
		{ "nr_slab_reclaimable", 0.7 }, { "pgmajfault", 0.5 }, { "workingset_refault_file", 0.5 },
	};
	for (size_t i = 0; i < sizeof hot / sizeof hot[0]; i++)
		if (strcmp(name, hot[i].name) == 0)
			return hot[i].p;
	return 0.005;
}

/* Read this machine's sources once: the starting shapes. 0 or -1 (buddyinfo, vmstat, meminfo are required). */
static int load_real(struct gen *g, char *buf)
{
	ssize_t n;

	if ((n = procfile_read("/proc", "buddyinfo", buf, READ_CAP)) < 0 || buddyinfo_parse(buf, (size_t)n, &g->base) < 0)
		return -1;
	if ((n = procfile_read("/proc", "vmstat", buf, READ_CAP)) < 0 || vmstat_parse(buf, (size_t)n, &g->vm_base) < 0)
		return -1;
	if ((n = procfile_read("/proc", "meminfo", buf, READ_CAP)) < 0 || meminfo_parse(buf, (size_t)n, &g->mi_base) < 0)
		return -1;
	n = procfile_read("/proc", "pagetypeinfo", buf, READ_CAP);
	g->have_pt = n >= 0 && pagetypeinfo_parse(buf, (size_t)n, g->pt) == 0;
	n = procfile_read("/proc", "slabinfo", buf, READ_CAP);
	g->have_sl = n >= 0 && slabinfo_parse(buf, (size_t)n, g->sl) == 0;
	g->cur = g->base;
	for (int z = 1; z < g->base.nzones; z++)
		if (buddyinfo_free_pages(&g->base.z[z], g->base.norders) >
		    buddyinfo_free_pages(&g->base.z[g->busy_zone], g->base.norders))
			g->busy_zone = z;
	g->vm = g->vm_base;
	g->mi = g->mi_base;
	for (int i = 0; i < g->vm.n; i++)
		g->vm_p[i] = vm_change_p(g->vm.e[i].name);
	return 0;
}

/* Free lists at fraction f of the span: drift, daily cycle, noise. */
static void step_buddy(struct gen *g, double f, int64_t ts_ms)
{
	double day = sin(2 * M_PI * (double)(ts_ms % DAY_MS) / (double)DAY_MS);

	for (int z = 0; z < g->base.nzones; z++) {
		if (z != g->busy_zone && unif(g) * ZONE_QUIET_TICKS >= 1.0)
			continue;
		for (int k = 0; k < g->base.norders; k++) {
			double b = (double)g->base.z[z].free[k] + 4.0;
			double drift = k >= 4 ? 1.0 - 0.6 * f * (k - 3) / (g->base.norders - 3) : k <= 2 ? 1.0 + 1.5 * f : 1.0;
			double v = b * drift * (1.0 + 0.05 * day) * (0.97 + 0.06 * unif(g));
			g->cur.z[z].free[k] = (uint64_t)(v < 0 ? 0 : v);
		}
	}
}

static void step_vmstat(struct gen *g)
{
	for (int i = 0; i < g->vm.n; i++) {
		struct kv_entry *e = &g->vm.e[i];
		if (g->vm_p[i] < 1 && unif(g) >= g->vm_p[i])
			continue;
		if (strncmp(e->name, "nr_", 3) == 0)       /* gauges wander around their start */
			e->value = g->vm_base.e[i].value + rnd(g) % 512 + 1;
		else
			e->value += 1 + rnd(g) % 5000;       /* event counters climb */
	}
}

static void step_meminfo(struct gen *g)
{
	for (int i = 0; i < g->mi.n; i++) {
		uint64_t b = g->mi_base.e[i].value;
		if (strcmp(g->mi.e[i].name, "MemTotal") != 0 && b > 1024)
			g->mi.e[i].value = b - b / 64 + rnd(g) % (b / 32);
	}
}

/*
 * Per zone: order k passes if a block of order >= k exists and free pages are above a threshold,
 * 1% of free pages + 32 for the atomic verdict and twice that for GFP_KERNEL (which may not dip
 * into the reserves the atomic request may use).  Plausible shapes only: the model itself is
 * analysis/atomic's and is tested there.
 */
static void tick_atomic(struct gen *g, struct store *st, struct store_tick *t)
{
	/*
	 * The request through its zonelist (v_atomic_request, the headline's first figure): buddyinfo
	 * lists a node's zones low to high and the request tries the highest first, so the zone serving
	 * order k is the last one listed that passes.  GFP_KERNEL may reclaim and compact: it passes
	 * wherever GFP_ATOMIC does and, up to the costly order (3), whenever any zone has free pages.
	 */
	struct store_request req = { 0 };
	int norders = g->cur.norders > 16 ? 16 : g->cur.norders;

	for (int z = 0; z < g->cur.nzones; z++) {
		const struct buddy_zone *b = &g->cur.z[z];
		uint64_t pages = buddyinfo_free_pages(b, g->cur.norders), above = 0;
		uint32_t amask = 0, kmask = 0;
		int64_t wmin = (int64_t)(pages / 100) + 32;
		for (int k = g->cur.norders - 1; k >= 0; k--) {
			above += b->free[k];
			if (above && (int64_t)pages > wmin)
				amask |= 1u << k;
			if (above && (int64_t)pages > 2 * wmin)
				kmask |= 1u << k;
		}
		store_tick_atomic(st, t, b->node, b->zone, g->cur.norders, amask, kmask, (int64_t)pages - wmin,
				  (int64_t)pages - 2 * wmin, 0);
		for (int k = 0; k < norders; k++)
			if (amask & (1u << k)) {
				req.node[k] = b->node;
				req.zone[k] = b->zone;
			}
		req.atomic_mask |= amask;
		if (pages > 0)
			req.kernel_mask |= 0xFu;
	}
	req.kernel_mask |= req.atomic_mask;
	req.nowait_mask = req.atomic_mask;
	store_tick_request(st, t, norders, &req);
}

static void tick_churn(struct gen *g, struct store_tick *t)
{
	struct store_churn c = { 0 };

	c.spawned = rnd(g) % 3;
	c.exited = rnd(g) % 3;
	c.population = 30 + rnd(g) % 5;
	store_tick_churn(t, &c);
}

/* pagetypeinfo and slabinfo, perturbed a little (slow interval). */
static void tick_slow(struct gen *g, struct store *st, struct store_tick *t)
{
	if (g->have_pt) {
		for (int z = 0; z < g->pt->nzones; z++)
			for (int ty = 0; ty < g->pt->ntypes; ty++)
				for (int k = 0; k < g->pt->norders; k++)
					if (g->pt->z[z].free[ty][k] && !g->pt->z[z].capped[ty][k])
						g->pt->z[z].free[ty][k] += rnd(g) % 3;
		store_tick_pagetypeinfo(st, t, g->pt, 250 + (uint32_t)(rnd(g) % 100));
	}
	if (g->have_sl) {
		for (int i = 0; i < g->sl->n; i++)
			g->sl->c[i].active_objs = g->sl->c[i].num_objs - rnd(g) % (g->sl->c[i].num_objs + 1) / 8;
		store_tick_slabinfo(st, t, g->sl, 100 + (uint32_t)(rnd(g) % 50));
	}
}

static void tick_probe(struct gen *g, struct store_tick *t, int64_t ts_ms, double f)
{
	char buddy[4096];
	struct store_probe_capacity cap;
	size_t off = 0;
	struct store_probe p;
	double held = 1800.0 * (1.0 - 0.15 * f) + (double)(rnd(g) % 40);

	for (int z = 0; z < g->cur.nzones && off < sizeof buddy - 256; z++) {
		off += (size_t)snprintf(buddy + off, sizeof buddy - off, "Node %d, zone %8s", g->cur.z[z].node,
					g->cur.z[z].zone);
		for (int k = 0; k < g->cur.norders; k++)
			off += (size_t)snprintf(buddy + off, sizeof buddy - off, " %6llu",
						(unsigned long long)g->cur.z[z].free[k]);
		off += (size_t)snprintf(buddy + off, sizeof buddy - off, "\n");
	}
	cap = (struct store_probe_capacity){ .scope = "cgroup", .fpu = "avx", .fork_charge = "group", .cgroup = "v1:gen",
					     .limit = 2048, .spawned = (int64_t)held + 1, .ready = (int64_t)held,
					     .oom_kills = 1, .worker_memory = 256 * 1024, .mem_limit = 512 << 20,
					     .mem_peak = (int64_t)(held * 300 * 1024), .retire_ms = 200 + (int64_t)(rnd(g) % 100),
					     .release_ms = 100 + (int64_t)(rnd(g) % 50), .pids_limit = 4097 };
	p = (struct store_probe){ .ts_ms = ts_ms, .kind = "capacity", .result = held, .stop_reason = "oom_kill",
				  .cap = &cap, .buddyinfo_before = buddy, .duration_ms = 4000 + (int64_t)(rnd(g) % 2000) };
	store_tick_probe(t, &p);
}

static void tick_alloc_failure(struct store_tick *t, int64_t ts_ms, uint64_t seq)
{
	static const char raw[] = "fpusoak-worker: page allocation failure: order:3, "
				  "mode:0x40a20(GFP_ATOMIC|__GFP_COMP), nodemask=(null),cpuset=/,mems_allowed=0";
	struct kmsg_event ev = { .kind = KMSG_ALLOC_FAIL, .pid = 4242, .order = 3, .has_gfp = 1, .gfp_mask = 0x40a20 };

	snprintf(ev.comm, sizeof ev.comm, "fpusoak-worker");
	ev.comm_len = strlen(ev.comm);
	snprintf(ev.gfp_flags, sizeof ev.gfp_flags, "GFP_ATOMIC|__GFP_COMP");
	snprintf(ev.nodemask, sizeof ev.nodemask, "(null)");
	store_tick_event(t, ts_ms, "00000000-0000-4000-8000-000000000001", seq, &ev, raw, sizeof raw - 1);
}

static long long db_bytes(const char *path)
{
	char wal[4200];
	struct stat sb;
	long long n = 0;

	if (stat(path, &sb) == 0)
		n += sb.st_size;
	snprintf(wal, sizeof wal, "%s-wal", path);
	if (stat(wal, &sb) == 0)
		n += sb.st_size;
	return n;
}

static void usage(void)
{
	fprintf(stderr, "usage: genhistory --db PATH (--days N | --hours N) [--seed S] [--limit-s SECONDS] [--rollup-every TICKS] [--progress]\n");
	exit(64);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	uint64_t days = 0, hours = 0, seed = 1, lim = 0, rollup_every = 1;
	int progress = 0;
	static struct gen g;
	char err[512], *buf;
	struct store *st;
	int64_t run_id, t0_ms, nticks;
	long long day1 = -1;
	double t_start, submit_s = 0, rollup_s = 0, limit_s = 0, win_submit = 0, win_rollup = 0;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--progress"))
			progress = 1;
		else if (!v)
			usage();
		else if (!strcmp(argv[i], "--db"))
			path = v, i++;
		else if (!strcmp(argv[i], "--days") && num_parse_u64(v, strlen(v), &days) == 0 && days >= 1 && days <= 400)
			i++;
		else if (!strcmp(argv[i], "--hours") && num_parse_u64(v, strlen(v), &hours) == 0 && hours >= 1 && hours <= 9600)
			i++;
		else if (!strcmp(argv[i], "--limit-s") && num_parse_u64(v, strlen(v), &lim) == 0)
			limit_s = (double)lim, i++;
		else if (!strcmp(argv[i], "--rollup-every") && num_parse_u64(v, strlen(v), &rollup_every) == 0 &&
			 rollup_every >= 1 && rollup_every <= 86400)
			i++;
		else if (!strcmp(argv[i], "--seed") && num_parse_u64(v, strlen(v), &seed) == 0)
			i++;
		else
			usage();
	}
	if (!path || !days == !hours)
		usage();
	log_init(LOG_LVL_WARN);
	g.pt = calloc(1, sizeof *g.pt);
	g.sl = calloc(1, sizeof *g.sl);
	buf = malloc(READ_CAP);
	g.rng = seed * 0x9E3779B97F4A7C15ULL | 1;
	if (!g.pt || !g.sl || !buf || load_real(&g, buf) < 0) {
		fprintf(stderr, "genhistory: cannot read /proc/buddyinfo, vmstat or meminfo\n");
		return 1;
	}
	unlink(path);
	st = store_open(path, 16u << 20, err, sizeof err);
	if (!st) {
		fprintf(stderr, "genhistory: %s\n", err);
		return 1;
	}
	nticks = days ? (int64_t)days * 86400 : (int64_t)hours * 3600;
	t0_ms = (wall_ms() / 1000 - nticks) * 1000;
	struct store_run r = { .label = "synthetic history (bench/genhistory)", .version = "bench",
			       .kernel_release = "6.1.0-synthetic", .hypervisor = "xen", .guest_type = "PV",
			       .cpu_model = "synthetic", .fpu_features = "x87 sse2 avx avx2",
			       .config = "sample_interval=1s\nslow_interval=60s\nworkers=32\n", .started_ms = t0_ms,
			       .xstate_bytes = 832, .mem_total_kb = 1 << 20, .page_size = 4096, .pid = getpid() };
	if (store_run_begin(st, &r, &run_id) < 0)
		return 1;
	/* A few allocation failures, at fixed fractions of the span. */
	const double fail_at[] = { 0.31, 0.55, 0.72, 0.86, 0.97 };
	size_t next_fail = 0;
	t_start = mono_s();
	for (int64_t i = 0; i < nticks; i++) {
		int64_t ts = t0_ms + i * 1000;
		double f = (double)i / (double)nticks;
		struct store_tick *t = store_tick_new(st, run_id, ts);
		if (!t)
			return 1;
		step_buddy(&g, f, ts);
		step_vmstat(&g);
		step_meminfo(&g);
		store_tick_buddyinfo(st, t, &g.cur);
		store_tick_vmstat(st, t, &g.vm);
		store_tick_meminfo(st, t, &g.mi);
		tick_atomic(&g, st, t);
		tick_churn(&g, t);
		if (i % 60 == 0)
			tick_slow(&g, st, t);
		if (i % 600 == 300)
			tick_probe(&g, t, ts - 5000, f);
		if (next_fail < sizeof fail_at / sizeof fail_at[0] && f >= fail_at[next_fail]) {
			tick_alloc_failure(t, ts, 1000 + next_fail);
			store_tick_counter(st, t, "kmsg_records", 1000 + next_fail);
			next_fail++;
		}
		store_tick_cost(t, 25 + (uint32_t)(rnd(&g) % 10));
		double ta = mono_s();
		if (store_submit(st, t) != 0) {
			fprintf(stderr, "genhistory: store_submit failed at tick %lld\n", (long long)i);
			return 1;
		}
		double tb = mono_s();
		if (rollup_every == 1)
			store_rollup(st, run_id, ts);          /* the daemon's cadence: once per tick */
		else if ((i + 1) % (int64_t)rollup_every == 0)
			while (store_rollup(st, run_id, ts) == 1)
				;                               /* catch up: same rows, fewer calls */
		submit_s += tb - ta;
		rollup_s += mono_s() - tb;
		if (limit_s > 0 && mono_s() - t_start > limit_s) {
			nticks = i + 1;
			break;
		}
		if (i + 1 == 86400)
			day1 = db_bytes(path);
		/* Every 6 h of history: what a tick cost in that stretch (the rollup's cost grows with the run). */
		if (progress && (i + 1) % 21600 == 0) {
			fprintf(stderr, "genhistory: %5.2f days done, %4.0f s, %lld bytes; last 6 h (wall time): submit %.0f us/tick,"
				" rollup %.0f us/tick\n", (double)(i + 1) / 86400, mono_s() - t_start, db_bytes(path),
				(submit_s - win_submit) * 1e6 / 21600, (rollup_s - win_rollup) * 1e6 / 21600);
			win_submit = submit_s;
			win_rollup = rollup_s;
		}
	}
	while (store_rollup(st, run_id, INT64_MAX) == 1)
		;
	store_run_end(st, run_id, t0_ms + nticks * 1000, "stopped");
	store_close(st);          /* truncating checkpoint: the file size is the whole DB */
	double secs = mono_s() - t_start;
	long long bytes = db_bytes(path);
	printf("genhistory days=%.2f ticks=%lld seconds=%.1f ticks_per_s=%.0f run_id=%lld first_ms=%lld last_ms=%lld\n",
	       (double)nticks / 86400.0, (long long)nticks, secs, (double)nticks / secs, (long long)run_id,
	       (long long)t0_ms, (long long)(t0_ms + (nticks - 1) * 1000));
	double hot = 0;
	for (int i = 0; i < g.vm.n; i++)
		hot += g.vm_p[i];
	printf("phases (wall time) submit_us_per_tick=%.1f rollup_us_per_tick=%.1f\n", submit_s * 1e6 / (double)nticks,
	       rollup_s * 1e6 / (double)nticks);
	printf("storage db_bytes=%lld bytes_per_tick=%.1f mb_per_day=%.2f size_day1_bytes=%lld vmstat_changes_per_tick=%.1f\n", bytes,
	       (double)bytes / (double)nticks, (double)bytes / ((double)nticks / 86400.0) / 1e6, day1, hot);
	free(buf);
	free(g.pt);
	free(g.sl);
	return 0;
}
