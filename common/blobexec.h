/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * blobexec: hand a fixed-layout configuration across exec.  The daemon
 * writes the bytes into a memfd and execs a helper (fpusoakd-spawner as the
 * spawner or as the fragmenting load) with "--internal-NAME FD"; the helper
 * reads them back before anything else.  A memfd, not a pipe: the whole blob
 * is there before exec, whatever its size.
 */
#ifndef FPUSOAK_BLOBEXEC_H
#define FPUSOAK_BLOBEXEC_H

#include <stddef.h>
#include <sys/types.h>

/* A memfd called name holding blob[0, len), left open across exec; its descriptor, or -1 with errno. */
int blobexec_memfd(const char *name, const void *blob, size_t len);

/* In the helper: with argv = {prog, flag, FD}, read FD's bytes into buf (at most cap), close FD, return
 * how many; 0 when argv is not that.  A bad or unreadable FD is said on stderr and exits 70. */
ssize_t blobexec_read(int argc, char **argv, const char *flag, void *buf, size_t cap);

#endif
