/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procfile: one bounded read of a /proc or /sys file.
 *
 * /proc files are generated on read, and the size cap means a kernel that
 * grows a file unexpectedly can't make us allocate without bound.
 * Truncation is an error, not data.
 *
 * What seq_file (fs/seq_file.c, seq_read_iter) does with our reads, measured
 * on 6.18 (see the comment on fill() in procfile.c for the figures):
 * - One read() returns at most one seq_file buffer (4 KiB after open) of
 *   whole records, however large our buffer: /proc/slabinfo (one record per
 *   cache, 25 KB) takes 7 reads, each calling ->start again.  So a short
 *   read is not EOF, and a multi-chunk file is not one snapshot.
 * - A record larger than the buffer (zoneinfo and pagetypeinfo are one
 *   record per node) is generated again with a doubled buffer.  The buffer
 *   lives as long as the open file: reading a 5.4 KB zoneinfo through a fresh
 *   open costs 2 generations (43 us), through a kept fd 1 (22 us).  Hence
 *   procfile_pread for anything read repeatedly.
 * - The final read that returns 0 calls ->start past the last record, which
 *   returns NULL without generating anything: about 1 us for every file we
 *   read, pagetypeinfo included.  It does not regenerate the file.
 * - pread at offset 0 resets the iterator and keeps the enlarged buffer;
 *   lseek(0) + read() does the same work with one more syscall.
 */
#ifndef FPUSOAK_PROCFILE_H
#define FPUSOAK_PROCFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Read all of root/rel (root may be NULL or "" for "/") into buf (NUL-terminated); returns bytes, -1 with errno (EFBIG if it did not fit). */
ssize_t procfile_read(const char *root, const char *rel, char *buf, size_t cap);

/* Open-once variant: pread(fd, 0) loop into buf (NUL-terminated); bytes or -1 with errno (EFBIG on truncation). */
ssize_t procfile_pread(int fd, char *buf, size_t cap);

/* The state letter of a /proc/<pid>/stat line (the field after the last ')'), or -1 if buf holds none. */
int procfile_stat_state(const char *buf, size_t len);

/* Build root + rel into out; 0 or -1 if it does not fit. */
int procfile_path(const char *root, const char *rel, char *out, size_t outlen);

#endif
