/* SPDX-License-Identifier: GPL-2.0-only */
/* blobexec: a configuration blob across exec; see blobexec.h. */
#define _GNU_SOURCE
#include "common/blobexec.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/num.h"

int blobexec_memfd(const char *name, const void *blob, size_t len)
{
	int fd = memfd_create(name, 0), saved;

	if (fd < 0)
		return -1;
	if (len == 0 || write(fd, blob, len) != (ssize_t)len) {
		saved = len == 0 ? EINVAL : errno ? errno : EIO;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

ssize_t blobexec_read(int argc, char **argv, const char *flag, void *buf, size_t cap)
{
	int64_t fd;
	ssize_t n;

	if (argc != 3 || strcmp(argv[1], flag) != 0)
		return 0;
	if (num_parse_i64(argv[2], strlen(argv[2]), &fd) < 0 || fd < 0 || fd > INT_MAX) {
		fprintf(stderr, "fpusoakd-spawner: bad descriptor argument '%s'\n", argv[2]);
		_exit(70);
	}
	n = pread((int)fd, buf, cap, 0);
	if (n < 0) {
		fprintf(stderr, "fpusoakd-spawner: cannot read the config from fd %d: %s\n", (int)fd, strerror(errno));
		_exit(70);
	}
	close((int)fd);
	return n;
}
