/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * forkloop: the baseline for churn's lifecycles/s.
 *
 * N looping processes (--procs, default 1), each: fork → child touches the
 * FPU (the widest kind, as churn's auto) → _exit(0) → waitpid, as fast as
 * it can for --seconds.  Runs in its own sandbox cgroup (64 MB, 1000 PIDs).
 *
 *   --mode fork    bare: fork, FPU touch, _exit (the ~6,000/s/core figure of issue 3)
 *   --mode worker  fork, then exactly what a churn worker does before it can
 *                  exit: worker_run() with lifetime 0 (PDEATHSIG, cgroup move
 *                  into a child group, oom_score_adj, non-dumpable, close_range,
 *                  sigprocmask, FPU touch); separates worker setup from spawner cost
 *   --mode spawn   posix_spawn of this binary with "--child KIND": the alternative issue 3
 *                  asks to compare; build it -static for the fair case (no dynamic loader)
 *
 *   cc -std=gnu11 -O2 -I. bench/forkloop.c build/libfpusoak.a $(pkg-config --libs sqlite3 inih) -lm -lpthread \
 *      -o build/bench/forkloop
 * (-static works too, for the fair posix_spawn case.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/num.h"
#include "worker/fpu.h"
#include "worker/worker.h"

extern char **environ;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long loop(const char *mode, enum fpu_kind kind, double seconds, const struct cgroup *wg)
{
	/* The kind goes on the command line: resolving it in the child would cost ~150 CPUIDs, each a VM exit. */
	char *argv[] = { "forkloop", "--child", (char *)fpu_kind_name(kind), NULL };
	double end = now_s() + seconds;
	long n = 0;
	struct worker_args wa = { .kind = kind, .lifetime_ms = 0, .parent = getpid(),
				  .procs_fd = cgroup_child_fd(wg), .ready_fd = -1 };

	while (now_s() < end) {
		for (int i = 0; i < 50; i++) {
			pid_t pid;
			int st;
			if (!strcmp(mode, "spawn")) {
				if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) != 0)
					return -1;
			} else {
				pid = fork();
				if (pid == 0) {
					if (!strcmp(mode, "worker"))
						worker_run(&wa);
					fpu_touch(kind);
					_exit(0);
				}
				if (pid < 0)
					return -1;
			}
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
				return -1;
			n++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *mode = "fork";
	int procs = 1;
	int64_t ms = 3000;
	char err[256], name[64];
	uint64_t v;

	if (argc == 3 && !strcmp(argv[1], "--child")) {
		enum fpu_kind k;
		return fpu_kind_parse(argv[2], &k) == 0 && fpu_touch(k) == 0 ? 0 : 1;
	}
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--procs") && num_parse_u64(argv[i + 1], strlen(argv[i + 1]), &v) == 0 && v >= 1 && v <= 64)
			procs = (int)v;
		else if (!strcmp(argv[i], "--seconds") && num_parse_duration_ms(argv[i + 1], &ms) == 0)
			;
		else if (!strcmp(argv[i], "--mode") && (!strcmp(argv[i + 1], "fork") || !strcmp(argv[i + 1], "worker") ||
							!strcmp(argv[i + 1], "spawn")))
			mode = argv[i + 1];
		else {
			fprintf(stderr, "usage: forkloop [--procs N] [--seconds DUR] [--mode fork|worker|spawn]\n");
			return 64;
		}
	}
	snprintf(name, sizeof name, "fpusoak-forkloop-%d", (int)getpid());
	struct cgroup *sb = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_AUTO, .name = name, .enter = 1,
							      .memory_max = 64u << 20, .pids_max = 1000 },
					err, sizeof err);
	if (!sb) {
		fprintf(stderr, "forkloop: no sandbox cgroup: %s\n", err);
		return 2;
	}
	/* The worker mode moves each child into a group, as churn's workers do. */
	struct cgroup *wg = cgroup_open(&(struct cgroup_cfg){ .ver = cgroup_version(sb), .name = "w" }, err, sizeof err);
	enum fpu_kind kind = fpu_auto();
	int fds[2];
	if (!wg || pipe(fds) < 0) {
		fprintf(stderr, "forkloop: %s\n", wg ? strerror(errno) : err);
		cgroup_close(sb);
		return 2;
	}
	fflush(stdout);
	for (int p = 0; p < procs; p++)
		if (fork() == 0) {
			long n = loop(mode, kind, (double)ms / 1000.0, wg);
			if (write(fds[1], &n, sizeof n) != (ssize_t)sizeof n)
				_exit(1);
			_exit(0);
		}
	close(fds[1]);
	long total = 0, n;
	int bad = 0;
	for (int p = 0; p < procs; p++) {
		if (read(fds[0], &n, sizeof n) != (ssize_t)sizeof n || n < 0)
			bad = 1;
		else
			total += n;
	}
	while (wait(NULL) > 0)
		;
	printf("forkloop mode=%s fpu=%s procs=%d seconds=%.1f lifecycles=%ld per_s=%.0f%s\n", mode,
	       fpu_kind_name(kind), procs, (double)ms / 1000.0, total, total / ((double)ms / 1000.0),
	       bad ? " (a loop failed)" : "");
	cgroup_close(wg);
	cgroup_close(sb);
	return bad;
}
