/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * allocloop: page allocations as fast as one process can make them, for the
 * cost of the tracepoint and filter that a tracefs instance puts on every
 * page allocation (bench/trace_cost.sh runs it in the Xen guest with the
 * instance off and on).  Each iteration forks a child that maps and touches
 * --pages anonymous pages and exits; the parent waits for it.  A fork with
 * its page tables, stack and the touched pages is a few dozen page
 * allocations, all through __alloc_pages and its trace_mm_page_alloc().
 *
 *   allocloop SECONDS PAGES      prints "iterations=N seconds=S"
 *
 * Static (no loader, no libraries in the guest): cc -static -O2 bench/allocloop.c -o allocloop
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs, t0, t;
	long pages, n = 0;

	if (argc != 3 || (secs = atof(argv[1])) <= 0 || (pages = atol(argv[2])) < 0 || pages > 4096) {
		fprintf(stderr, "usage: allocloop SECONDS PAGES (0..4096)\n");
		return 64;
	}
	t0 = now();
	do {
		pid_t p = fork();

		if (p == 0) {
			char *m = pages ? mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
			if (m == MAP_FAILED)
				_exit(1);
			for (long i = 0; i < pages; i++)
				m[i * 4096] = 1;
			_exit(0);
		}
		if (p < 0 || waitpid(p, NULL, 0) != p) {
			perror("allocloop");
			return 1;
		}
		n++;
		t = now();
	} while (t - t0 < secs);
	printf("iterations=%ld seconds=%.3f\n", n, t - t0);
	return 0;
}
