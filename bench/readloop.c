/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * readloop: what one read of a kernel file costs, timed over many reads so a
 * coarse guest clock does not matter (bench/trace_cost.sh runs it in the Xen
 * guest on the fast /proc sources, an extfrag hist file and a trace_pipe).
 *
 *   readloop FILE N          open once, N x pread from offset 0 (a seq_file regenerates its text each time)
 *   readloop FILE N pipe     open O_NONBLOCK, N x read (an empty trace_pipe answers EAGAIN)
 * prints "reads=N seconds=S us_per_read=U bytes_last=B"
 *
 * Static (no loader, no libraries in the guest): cc -static -O2 bench/readloop.c -o readloop
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 19];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc >= 3 ? atol(argv[2]) : 0;
	int pipe = argc == 4 && strcmp(argv[3], "pipe") == 0;
	int fd;
	ssize_t got = 0;
	double t0, t1;

	if (argc < 3 || argc > 4 || n <= 0 || (argc == 4 && !pipe)) {
		fprintf(stderr, "usage: readloop FILE N [pipe]\n");
		return 64;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC | (pipe ? O_NONBLOCK : 0));
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	t0 = now();
	for (long i = 0; i < n; i++) {
		got = pipe ? read(fd, buf, sizeof buf) : pread(fd, buf, sizeof buf, 0);
		if (got < 0 && !(pipe && errno == EAGAIN)) {
			perror(argv[1]);
			return 1;
		}
	}
	t1 = now();
	printf("reads=%ld seconds=%.3f us_per_read=%.1f bytes_last=%zd\n", n, t1 - t0, (t1 - t0) / (double)n * 1e6, got);
	return 0;
}
