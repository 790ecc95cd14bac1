/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sampler_bench: what one sample costs through the real code path, next to
 * the floor the kernel sets (a bare read of the same files), in one run.
 *
 * fast: N ticks of store_tick_new + sampler_fast (pread + parse of
 *       buddyinfo, vmstat, meminfo, zoneinfo; the atomic-risk model) +
 *       store_submit (one SQLite transaction per group of STORE_GROUP_MS, as
 *       the daemon) + store_rollup, on a fresh DB,
 *       exactly the daemon's loop_tick minus the kernel log.  Tick
 *       timestamps are 1 s apart so vmstat change detection, keyframes and
 *       minute/hour rollups behave as they do at the default interval.
 * slow: N ticks of sampler_slow (pagetypeinfo + slabinfo) + store_submit.
 * raw:  N rounds of pread on the same open files: until the whole file is in
 *       without the final read that returns 0 (the floor), and until EOF.
 * Floor and sampler run in 20 alternating slices of N/20 (interleaved()),
 * so a kernel file whose cost drifts (pagetypeinfo) drifts for both.
 *
 * Costs are CPU time (CLOCK_THREAD_CPUTIME_ID, user + system) around each
 * phase: the machine is shared, and wall time there measures the
 * neighbours.  Wall time per tick of each loop is printed too.  The ratio
 * goal is against the strict floor, the whole file with no EOF read (one
 * read() per file but slabinfo, which seq_file hands out 4 KiB per read()).
 * single_read_cpu_us names that floor.  Prints key=value
 * lines.
 *
 *   sampler_bench --db PATH [--n 10000] [--slow-n 10000]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/num.h"
#include "daemon/sampler.h"
#include "store/store.h"

#define BUF_CAP (4 * 1024 * 1024)

static const char *const FAST[] = { "buddyinfo", "vmstat", "meminfo", "zoneinfo" };
static const char *const SLOW[] = { "pagetypeinfo", "slabinfo" };

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* This thread's CPU time (user + system): on a shared, noisy machine the stable measure of cost. */
static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * One bare read of an open /proc file.  to_eof: pread until it returns 0, as
 * common/procfile does.  Otherwise the floor: pread until `whole` bytes
 * (the size a to-EOF read found before the timed loop), without the final
 * read that returns 0.  One pread is not the floor: seq_file returns one
 * 4 KiB buffer of records per call whatever the size asked for, so one
 * pread of slabinfo gets 4 KB of 25 KB.  The EOF read does not regenerate
 * the file (->start past the last record returns NULL): ~1 us on 6.18.
 * Bytes, or -1.
 */
static ssize_t raw_read(int fd, char *buf, int to_eof, ssize_t whole)
{
	ssize_t n = 0, off = 0;

	while ((to_eof || off < whole) && (n = pread(fd, buf + off, (size_t)(BUF_CAP - off), off)) > 0)
		off += n;
	return n < 0 ? -1 : off;
}

struct floor {
	double wall, cpu, per_cpu[4];
};

/* The floor: N rounds over files[]; per round and per file, CPU µs (wall for the round). 0 or -1. */
static int raw_floor(const char *const *files, int nfiles, long n, char *buf, int to_eof, struct floor *fl)
{
	int fd[4];
	ssize_t whole[4];
	double w0, c0;

	memset(fl, 0, sizeof *fl);
	for (int i = 0; i < nfiles; i++) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%s", files[i]);
		if ((fd[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0 || (whole[i] = raw_read(fd[i], buf, 1, 0)) < 0)
			return -1;
	}
	w0 = now_us();
	c0 = cpu_us();
	for (long r = 0; r < n; r++)
		for (int i = 0; i < nfiles; i++) {
			double t0 = cpu_us();
			if (raw_read(fd[i], buf, to_eof, whole[i]) < 0)
				return -1;
			fl->per_cpu[i] += cpu_us() - t0;
		}
	fl->wall = (now_us() - w0) / (double)n;
	fl->cpu = (cpu_us() - c0) / (double)n;
	for (int i = 0; i < nfiles; i++) {
		fl->per_cpu[i] /= (double)n;
		close(fd[i]);
	}
	return 0;
}

/* CPU µs per tick of each phase, and wall µs per tick of the whole loop. */
struct phases {
	double sample, submit, rollup, cpu, wall;
};

static void phases_div(struct phases *p, long n)
{
	p->sample /= (double)n;
	p->submit /= (double)n;
	p->rollup /= (double)n;
	p->cpu /= (double)n;
	p->wall /= (double)n;
}

/* The daemon's loop_tick without the kernel log: sample, submit, roll up. */
static int run_fast(struct sampler *s, struct store *st, int64_t run, int64_t ts0, long n, struct phases *p)
{
	double c0 = cpu_us(), w0 = now_us();

	memset(p, 0, sizeof *p);
	for (long i = 0; i < n; i++) {
		int64_t ts = ts0 + i * 1000;
		double a = cpu_us();
		struct store_tick *t = store_tick_new(st, run, ts);
		if (!t || sampler_fast(s, st, t) != 4)
			return -1;
		double b = cpu_us();
		int rc = store_submit(st, t);
		double c = cpu_us();
		store_rollup(st, run, ts);
		double d = cpu_us();
		if (rc != 0)
			return -1;
		p->sample += b - a;
		p->submit += c - b;
		p->rollup += d - c;
	}
	p->cpu = cpu_us() - c0;
	p->wall = now_us() - w0;
	phases_div(p, n);
	return 0;
}

static int run_slow(struct sampler *s, struct store *st, int64_t run, int64_t ts0, long n, struct phases *p)
{
	double c0 = cpu_us(), w0 = now_us();

	memset(p, 0, sizeof *p);
	for (long i = 0; i < n; i++) {
		double a = cpu_us();
		struct store_tick *t = store_tick_new(st, run, ts0 + i * 1000);
		if (!t || sampler_slow(s, st, t) != 2)
			return -1;
		double b = cpu_us();
		if (store_submit(st, t) != 0)
			return -1;
		p->sample += b - a;
		p->submit += cpu_us() - b;
	}
	p->cpu = cpu_us() - c0;
	p->wall = now_us() - w0;
	phases_div(p, n);
	return 0;
}

#define CHUNKS 20

static void floor_add(struct floor *acc, const struct floor *f, long n)
{
	acc->wall += f->wall * (double)n;
	acc->cpu += f->cpu * (double)n;
	for (int i = 0; i < 4; i++)
		acc->per_cpu[i] += f->per_cpu[i] * (double)n;
}

static void floor_div(struct floor *acc, long n)
{
	acc->wall /= (double)n;
	acc->cpu /= (double)n;
	for (int i = 0; i < 4; i++)
		acc->per_cpu[i] /= (double)n;
}

static void phases_add(struct phases *acc, const struct phases *p, long n)
{
	acc->sample += p->sample * (double)n;
	acc->submit += p->submit * (double)n;
	acc->rollup += p->rollup * (double)n;
	acc->cpu += p->cpu * (double)n;
	acc->wall += p->wall * (double)n;
}

/*
 * The floor (whole file, and to EOF) and the sampler in CHUNKS alternating
 * slices, so both see the same kernel state: /proc/pagetypeinfo's own cost
 * follows the length of the free lists and drifted 0.5 -> 4.6 ms between
 * phases measured one after the other (bench/RESULTS.md).  0 or -1.
 */
static int interleaved(const char *const *files, int nfiles, int slow, struct sampler *s, struct store *st,
		       int64_t run, int64_t ts0, long n, char *buf, struct floor *f1, struct floor *fe, struct phases *ph)
{
	long chunk = n / CHUNKS > 0 ? n / CHUNKS : 1, done = 0;

	memset(f1, 0, sizeof *f1);
	memset(fe, 0, sizeof *fe);
	memset(ph, 0, sizeof *ph);
	while (done < n) {
		long k = n - done < chunk ? n - done : chunk;
		struct floor a, b;
		struct phases p;
		if (raw_floor(files, nfiles, k, buf, 0, &a) < 0 || raw_floor(files, nfiles, k, buf, 1, &b) < 0 ||
		    (slow ? run_slow(s, st, run, ts0 + done * 1000, k, &p) : run_fast(s, st, run, ts0 + done * 1000, k, &p)) < 0)
			return -1;
		floor_add(f1, &a, k);
		floor_add(fe, &b, k);
		phases_add(ph, &p, k);
		done += k;
	}
	floor_div(f1, n);
	floor_div(fe, n);
	phases_div(ph, n);
	return 0;
}

int main(int argc, char **argv)
{
	const char *db = NULL;
	uint64_t n = 10000, slow_n = 10000;
	char err[512];
	struct utsname un;
	struct floor f1, fe, s1, se;
	struct phases f, sl;
	int64_t run;

	for (int i = 1; i + 1 < argc; i += 2) {
		const char *v = argv[i + 1];
		if (!strcmp(argv[i], "--db"))
			db = v;
		else if (!strcmp(argv[i], "--n") && num_parse_u64(v, strlen(v), &n) == 0 && n >= 1)
			;
		else if (!strcmp(argv[i], "--slow-n") && num_parse_u64(v, strlen(v), &slow_n) == 0)
			;
		else
			db = NULL, i = argc;
	}
	if (!db) {
		fprintf(stderr, "usage: sampler_bench --db PATH [--n 10000] [--slow-n 10000]\n");
		return 64;
	}
	log_init(LOG_LVL_WARN);
	char *buf = malloc(BUF_CAP);
	uname(&un);
	unlink(db);
	struct store *st = store_open(db, 16u << 20, err, sizeof err);
	struct sampler *s = sampler_open("/proc", un.release);
	if (!buf || !st || !s) {
		fprintf(stderr, "sampler_bench: %s\n", st ? "out of memory" : err);
		return 1;
	}
	store_group(st, STORE_GROUP_MS);   /* as the daemon commits */
	struct store_run r = { .label = "sampler_bench", .version = "bench", .kernel_release = un.release,
			       .started_ms = wall_ms(), .page_size = 4096, .pid = getpid() };
	if (store_run_begin(st, &r, &run) < 0)
		return 1;
	int64_t ts0 = (wall_ms() / 1000 - (int64_t)(n + slow_n) - 10) * 1000;

	/* A warm-up of each first, so neither side is measured with cold caches. */
	if (raw_floor(FAST, 4, 200, buf, 0, &f1) < 0 || run_fast(s, st, run, ts0, 200, &f) < 0) {
		fprintf(stderr, "sampler_bench: the fast sources could not be read (all four are needed)\n");
		return 1;
	}
	if (interleaved(FAST, 4, 0, s, st, run, ts0 + 200 * 1000, (long)n, buf, &f1, &fe, &f) < 0)
		return 1;
	printf("raw_fast n=%llu single_read_cpu_us=%.2f (buddyinfo %.2f vmstat %.2f meminfo %.2f zoneinfo %.2f)"
	       " read_to_eof_cpu_us=%.2f wall_us=%.2f\n", (unsigned long long)n, f1.cpu, f1.per_cpu[0], f1.per_cpu[1],
	       f1.per_cpu[2], f1.per_cpu[3], fe.cpu, f1.wall);
	printf("sampler_fast n=%llu sample_cpu_us=%.2f submit_cpu_us=%.2f rollup_cpu_us=%.2f total_cpu_us=%.2f"
	       " wall_us=%.2f\n", (unsigned long long)n, f.sample, f.submit, f.rollup, f.cpu, f.wall);
	printf("ratio_fast read_parse_model=%.2f read_parse_insert=%.2f with_rollup=%.2f (CPU, vs single read)\n",
	       f.sample / f1.cpu, (f.sample + f.submit) / f1.cpu, f.cpu / f1.cpu);
	if (slow_n) {
		int64_t ts1 = ts0 + (int64_t)(n + 200) * 1000;
		if (interleaved(SLOW, 2, 1, s, st, run, ts1, (long)slow_n, buf, &s1, &se, &sl) < 0) {
			printf("raw_slow unavailable (pagetypeinfo and slabinfo need root)\n");
		} else {
			printf("raw_slow n=%llu single_read_cpu_us=%.2f (pagetypeinfo %.2f slabinfo %.2f)"
			       " read_to_eof_cpu_us=%.2f wall_us=%.2f\n", (unsigned long long)slow_n, s1.cpu,
			       s1.per_cpu[0], s1.per_cpu[1], se.cpu, s1.wall);
			printf("sampler_slow n=%llu sample_cpu_us=%.2f submit_cpu_us=%.2f total_cpu_us=%.2f wall_us=%.2f\n",
			       (unsigned long long)slow_n, sl.sample, sl.submit, sl.cpu, sl.wall);
			printf("ratio_slow read_parse=%.2f read_parse_insert=%.2f (CPU, vs single read)\n",
			       sl.sample / s1.cpu, sl.cpu / s1.cpu);
		}
	}
	{
		struct store_memory m;
		store_memory(st, &m);
		printf("sqlite_memory cache_kb=%lld schema_kb=%lld statements_kb=%lld total_kb=%lld peak_kb=%lld\n",
		       (long long)m.cache / 1024, (long long)m.schema / 1024, (long long)m.statements / 1024,
		       (long long)m.sqlite_now / 1024, (long long)m.sqlite_peak / 1024);
	}
	sampler_close(s);
	store_close(st);
	free(buf);
	return 0;
}
