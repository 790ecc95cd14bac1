/*
 * procfile: one bounded read of a /proc or /sys file.
 *
 * /proc files are generated on read; a single read() into a buffer of
 * known size gives a consistent snapshot for the seq_file-backed files we
 * use, and the size cap means a kernel that grows a file unexpectedly can't
 * make us allocate without bound.  Truncation is an error, not data.
 */
#ifndef FPUSOAK_PROCFILE_H
#define FPUSOAK_PROCFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Read all of root/rel (root may be NULL or "" for "/") into buf (NUL-terminated); returns bytes, -1 with errno (EFBIG if it did not fit). */
ssize_t procfile_read(const char *root, const char *rel, char *buf, size_t cap);

/* Open-once variant: pread(fd, 0) loop into buf (NUL-terminated); bytes or -1 with errno (EFBIG on truncation). */
ssize_t procfile_pread(int fd, char *buf, size_t cap);

/* Build root + rel into out; 0 or -1 if it does not fit. */
int procfile_path(const char *root, const char *rel, char *out, size_t outlen);

#endif
