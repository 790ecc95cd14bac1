/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * churn_bench: drive the churn engine outside the daemon, in a sandbox.
 *
 * Creates a sandbox cgroup (default 64 MB, 1000 PIDs) and moves itself in,
 * so every process it causes is bounded; opens the engine with a workers'
 * group inside the sandbox; runs for --seconds; optionally runs capacity
 * probes back to back (--probes N) or an FPU-cost probe (--switch); prints
 * key=value lines and the final counters; closes everything.
 *
 *   cc -std=gnu11 -O2 -I. bench/churn_bench.c build/libfpusoak.a $(pkg-config --libs sqlite3 inih) -lm -lpthread \
 *      -o build/bench/churn_bench
 *   build/bench/churn_bench --workers 4 --rate max --lifetime 0 --seconds 5      # max-rate lifecycles/s
 *   build/bench/churn_bench --workers 0 --probes 10 --cg-memory 64M              # capacity spread
 *
 * --hold: after opening, print "ready spawner=PID" and run until killed
 * (the integration test SIGKILLs it to check that no worker outlives it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "churn/churn.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/num.h"
#include "common/procfile.h"
#include "spawner/probe.h"

struct opts {
	int spawner_set;
	struct churn_cfg cc;
	int64_t seconds_ms;
	uint64_t sb_mem, sb_pids;
	int probes, do_switch, hold, verbose, stat;
	int64_t probe_gap_ms;
};

static void usage(void)
{
	fprintf(stderr, "usage: churn_bench [--seconds DUR] [--workers N] [--rate R|max] [--lifetime DUR]\n"
			"  [--dist exp|fixed|uniform] [--seed N] [--fpu KIND] [--memory SIZE] [--sandbox-memory SIZE]\n"
			"  [--sandbox-pids N] [--cg-memory SIZE] [--cg-pids N] [--probes N] [--probe-limit N]\n"
			"  [--probe-gap DUR] [--scope cgroup|guest] [--switch] [--switch-threads N] [--switch-ms DUR]\n"
			"  [--cgroup auto|v1|v2|none] [--spawner PATH|none] [--hold] [--stat] [-v]\n"
			"  --spawner: the static spawner to exec (default: fpusoakd-spawner next to this program or\n"
			"  installed); none: the forked copy of this program runs it\n");
	exit(64);
}

static int64_t u64arg(const char *s)
{
	uint64_t v;

	if (num_parse_u64(s, strlen(s), &v) < 0 || v > INT32_MAX)
		usage();
	return (int64_t)v;
}

static uint64_t sizearg(const char *s)
{
	uint64_t v;

	if (num_parse_size(s, &v) < 0)
		usage();
	return v;
}

static int64_t durarg(const char *s)
{
	int64_t v;

	if (num_parse_duration_ms(s, &v) < 0)
		usage();
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	churn_cfg_defaults(&o->cc);
	o->cc.cgroup_name = "w";
	o->cc.status_ms = 100;
	o->seconds_ms = 5000;
	o->sb_mem = 64u << 20;
	o->sb_pids = 1000;
	o->probe_gap_ms = 500;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int used = 1;
		if (!strcmp(a, "--hold"))
			o->hold = 1, used = 0;
		else if (!strcmp(a, "--switch"))
			o->do_switch = 1, used = 0;
		else if (!strcmp(a, "-v"))
			o->verbose = 1, used = 0;
		else if (!strcmp(a, "--stat"))
			o->stat = 1, used = 0;
		else if (!v)
			usage();
		else if (!strcmp(a, "--seconds"))
			o->seconds_ms = durarg(v);
		else if (!strcmp(a, "--workers"))
			o->cc.params.workers = (int32_t)u64arg(v);
		else if (!strcmp(a, "--rate")) {
			if (churn_rate_parse(v, &o->cc.params.rate_milli) < 0)
				usage();
		} else if (!strcmp(a, "--lifetime"))
			o->cc.params.lifetime_ms = durarg(v);
		else if (!strcmp(a, "--dist")) {
			enum churn_dist d;
			if (churn_dist_parse(v, &d) < 0)
				usage();
			o->cc.params.dist = d;
		} else if (!strcmp(a, "--seed"))
			o->cc.seed = (uint64_t)u64arg(v);
		else if (!strcmp(a, "--fpu")) {
			if (fpu_kind_parse(v, &o->cc.fpu) < 0)
				usage();
		} else if (!strcmp(a, "--memory"))
			o->cc.worker_memory = sizearg(v);
		else if (!strcmp(a, "--sandbox-memory"))
			o->sb_mem = sizearg(v);
		else if (!strcmp(a, "--sandbox-pids"))
			o->sb_pids = (uint64_t)u64arg(v);
		else if (!strcmp(a, "--cg-memory"))
			o->cc.cgroup_memory_max = sizearg(v);
		else if (!strcmp(a, "--cg-pids"))
			o->cc.cgroup_pids_max = (uint64_t)u64arg(v);
		else if (!strcmp(a, "--probes"))
			o->probes = (int)u64arg(v);
		else if (!strcmp(a, "--probe-limit"))
			o->cc.probe_limit = (int)u64arg(v);
		else if (!strcmp(a, "--probe-gap"))
			o->probe_gap_ms = durarg(v);
		else if (!strcmp(a, "--scope")) {
			if (churn_scope_parse(v, &o->cc.probe_scope) < 0)
				usage();
		} else if (!strcmp(a, "--cgroup")) {
			/* v2 here means the unified hierarchy even without controllers: the sandbox still bounds memory. */
			if (!strcmp(v, "v1"))
				o->cc.cgroup = CGROUP_V1;
			else if (!strcmp(v, "v2"))
				o->cc.cgroup = CGROUP_V2;
			else if (!strcmp(v, "none"))
				o->cc.cgroup = CGROUP_NONE;
			else if (strcmp(v, "auto") != 0)
				usage();
		} else if (!strcmp(a, "--spawner"))
			o->cc.spawner_exe = strcmp(v, "none") ? v : NULL, o->spawner_set = 1;
		else if (!strcmp(a, "--switch-threads"))
			o->cc.switch_threads = (int)u64arg(v);
		else if (!strcmp(a, "--switch-ms"))
			o->cc.switch_ms = durarg(v);
		else
			usage();
		i += used;
	}
	/* A sandbox must bound memory and PIDs (SAFETY): refuse to run without. */
	if (o->sb_mem == 0 || o->sb_mem > (1ull << 30) || o->sb_pids == 0 || o->sb_pids > 4096) {
		fprintf(stderr, "churn_bench: the sandbox needs a memory limit <= 1G and a PID limit <= 4096\n");
		exit(64);
	}
}

/* One value from a cgroup file ("memory.usage_in_bytes") or a memory.stat key; -1 if absent. */
static long long cg_value(const char *dir, const char *file, const char *key)
{
	char path[1200], buf[8192];
	ssize_t n;
	uint64_t v;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	n = procfile_read(NULL, path, buf, sizeof buf);
	if (n <= 0)
		return -1;
	if (!key) {
		size_t l = strcspn(buf, "\n");
		return num_parse_u64(buf, l, &v) == 0 ? (long long)v : -1;
	}
	return cgroup_parse_key(buf, (size_t)n, key, &v) == 0 ? (long long)v : -1;
}

/* --stat: where the sandbox's memory is, in KiB (v1 names; -1 where the kernel has no such file). */
static void print_stat(const struct cgroup *sb, const struct cgroup *wg)
{
	const char *s = cgroup_dir(sb), *w = cgroup_dir(wg);

	printf("stat sandbox_kb=%lld sandbox_kmem_kb=%lld sandbox_cache_kb=%lld sandbox_rss_kb=%lld "
	       "workers_kb=%lld workers_kmem_kb=%lld\n",
	       cg_value(s, "memory.usage_in_bytes", NULL) / 1024, cg_value(s, "memory.kmem.usage_in_bytes", NULL) / 1024,
	       cg_value(s, "memory.stat", "total_cache") / 1024, cg_value(s, "memory.stat", "total_rss") / 1024,
	       cg_value(w, "memory.usage_in_bytes", NULL) / 1024, cg_value(w, "memory.kmem.usage_in_bytes", NULL) / 1024);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static struct opts o;
	static struct churn_rec rec;

	probe_switch_exec_main(argc, argv);     /* the switch probe's child (spawner/probe.h) */
	static int64_t counts[1024];
	char err[512], name[64], line[512];
	struct churn_status fin;
	struct cgroup *sb;
	struct churn *ch;
	int64_t t0, deadline, next_print, next_probe = 0;
	int probes_done = 0, probes_asked = 0, switch_asked = 0, rc = 0;
	static char spawner_buf[4096];

	parse(argc, argv, &o);
	if (!o.spawner_set) {
		/* build/bench/churn_bench → build/fpusoakd-spawner, the same build's; else the usual lookup. */
		ssize_t n = readlink("/proc/self/exe", spawner_buf, sizeof spawner_buf - 32);
		char *slash = n > 0 ? memrchr(spawner_buf, '/', (size_t)n) : NULL;
		if (slash) {
			strcpy(slash, "/../fpusoakd-spawner");
			o.cc.spawner_exe = access(spawner_buf, X_OK) == 0 ? spawner_buf : NULL;
		}
		if (!o.cc.spawner_exe)
			o.cc.spawner_exe = churn_spawner_path(spawner_buf, sizeof spawner_buf);
	}
	log_init(LOG_LVL_INFO);
	snprintf(name, sizeof name, "fpusoak-bench-%d", (int)getpid());
	sb = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_AUTO, .name = name, .enter = 1,
					      .memory_max = o.sb_mem, .pids_max = o.sb_pids },
			 err, sizeof err);
	if (!sb) {
		fprintf(stderr, "churn_bench: cannot create the sandbox cgroup: %s\n", err);
		return 2;
	}
	ch = churn_open(&o.cc, err, sizeof err);
	if (!ch) {
		fprintf(stderr, "churn_bench: %s\n", err);
		cgroup_close(sb);
		return 2;
	}
	const struct churn_hello *h = churn_hello_info(ch);
	printf("pid=%d\nsandbox=%s\nsandbox_pids=%s\nworkers_group=%s\npids_group=%s\n", (int)getpid(), cgroup_dir(sb),
	       cgroup_pids_dir(sb), cgroup_dir(churn_cgroup(ch)), cgroup_pids_dir(churn_cgroup(ch)));
	printf("spawner=%d exec=%s fpu=%s cgroup=v%d clone_into=%d protected=%d seed=%llu note=\"%s\"\n", h->spawner_pid,
	       h->exec_ok ? o.cc.spawner_exe : "none", fpu_kind_name((enum fpu_kind)h->fpu_kind), h->cgroup_ver,
	       h->clone_into_cgroup, h->protected_,
	       (unsigned long long)h->seed, h->fpu_note);
	if (o.hold)
		printf("ready spawner=%d\n", h->spawner_pid);
	fflush(stdout);

	t0 = clock_mono_ms();
	deadline = o.hold ? INT64_MAX : t0 + o.seconds_ms;
	next_print = t0 + 1000;
	if (o.probes)
		next_probe = t0 + o.probe_gap_ms;
	for (;;) {
		int64_t now = clock_mono_ms();
		if (now >= deadline && (probes_done >= o.probes || now >= deadline + 600000))
			break;
		if (o.probes && probes_asked == probes_done && probes_asked < o.probes && now >= next_probe) {
			if (o.stat)
				print_stat(sb, churn_cgroup(ch));
			churn_probe_request(ch, CHURN_PROBE_CAPACITY);
			probes_asked++;
		}
		if (o.do_switch && !switch_asked) {
			churn_probe_request(ch, CHURN_PROBE_SWITCH);
			switch_asked = 1;
		}
		struct pollfd pf = { churn_fd(ch), POLLIN, 0 };
		poll(&pf, 1, 50);
		int r;
		while ((r = churn_read(ch, &rec)) == 1) {
			switch (rec.type) {
			case CHURN_REC_STATUS:
				if (o.verbose && clock_mono_ms() >= next_print) {
					printf("t=%.1fs %s\n", (clock_mono_ms() - t0) / 1000.0,
					       churn_status_line(&rec.u.status, NULL, line, sizeof line));
					next_print += 1000;
				}
				break;
			case CHURN_REC_NOTE:
				printf("note: %s\n", rec.u.note.text);
				break;
			case CHURN_REC_PROBE_START:
				if (o.verbose)
					printf("probe_start buddyinfo_bytes=%u\n", rec.u.probe_start.buddyinfo_len);
				break;
			case CHURN_REC_PROBE_DONE: {
				const struct churn_probe_done *d = &rec.u.probe_done;
				printf("probe kind=%s result=%.4f stop_reason=%s duration_ms=%lld spawned=%lld ready=%lld"
				       " oom_kills=%lld\n", churn_probe_kind_name(d->kind), d->result, d->stop_reason,
				       (long long)d->duration_ms, (long long)d->spawned, (long long)d->ready,
				       (long long)d->oom_kills);
				if (d->kind == CHURN_PROBE_CAPACITY) {
					if (probes_done < 1024)
						counts[probes_done] = d->count;
					probes_done++;
					next_probe = clock_mono_ms() + o.probe_gap_ms;
				}
				break;
			}
			default:
				break;
			}
		}
		if (r < 0) {
			printf("spawner gone\n");
			rc = 1;
			break;
		}
		fflush(stdout);
	}
	double secs = (clock_mono_ms() - t0) / 1000.0;
	int crc = churn_close(ch, &fin);
	const struct churn_counters *c = &fin.c;
	uint64_t ended = c->exited + c->killed_sigkill + c->killed_sigsegv + c->killed_sigill + c->killed_other +
			 c->gfp_failed;
	printf("final spawned=%llu exited=%llu retired=%llu exit_errors=%llu killed_sigkill=%llu killed_sigsegv=%llu "
	       "killed_sigill=%llu killed_other=%llu oom_killed=%llu population=%llu eagain=%llu enomem=%llu "
	       "other=%llu last_exit_error=%d\n",
	       (unsigned long long)c->spawned, (unsigned long long)c->exited, (unsigned long long)c->exited_retired,
	       (unsigned long long)c->exited_error, (unsigned long long)c->killed_sigkill,
	       (unsigned long long)c->killed_sigsegv, (unsigned long long)c->killed_sigill,
	       (unsigned long long)c->killed_other, (unsigned long long)c->oom_killed,
	       (unsigned long long)c->population, (unsigned long long)c->spawn_failed_eagain,
	       (unsigned long long)c->spawn_failed_enomem, (unsigned long long)c->spawn_failed_other,
	       c->last_exit_error);
	printf("seconds=%.2f lifecycles_per_s=%.0f invariant=%s close=%s\n", secs, ended / secs,
	       churn_counters_check(c) == 0 ? "ok" : "BROKEN", crc == 0 ? "clean" : "forced");
	if (probes_done > 1) {
		int n = probes_done < 1024 ? probes_done : 1024;
		qsort(counts, (size_t)n, sizeof counts[0], cmp_i64);
		double med = n % 2 ? (double)counts[n / 2] : (counts[n / 2 - 1] + counts[n / 2]) / 2.0;
		printf("capacity n=%d min=%lld median=%.1f max=%lld spread=%.1f%%\n", n, (long long)counts[0], med,
		       (long long)counts[n - 1], med > 0 ? 100.0 * (double)(counts[n - 1] - counts[0]) / med : NAN);
	}
	cgroup_close(sb);
	return rc || crc ? 1 : 0;
}
