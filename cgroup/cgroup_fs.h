/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup_fs: paths and files of cgroup directories (a value written in one
 * write(), a capped read), and walks over a group and its subgroups.  Every
 * function that fails sets errno and returns -1 (ENAMETOOLONG for a path
 * over CGROUP_PATH_MAX + 64).  Used by the cgroup_ modules only.
 */
#ifndef FPUSOAK_CGROUP_FS_H
#define FPUSOAK_CGROUP_FS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup_parse.h"

#define CGROUP_FS_SELF_MAX 16384         /* /proc/PID/cgroup read cap */
#define CGROUP_FS_PROCS_MAX (1u << 20)   /* cgroup.procs: ~7 bytes per PID, >100k PIDs */
#define CGROUP_FS_DEPTH 8                /* we never nest deeper than sandbox/workers */

/* out = a "/" b (trailing slashes of a dropped, "/" not doubled); 0, or -1 with ENAMETOOLONG. */
int cgroup_fs_join(char *out, size_t outlen, const char *a, const char *b);

/* Write val into dir/file with one write(); 0 or -1 with errno. */
int cgroup_fs_write(const char *dir, const char *file, const char *val);

/* Read dir/file into buf[0..cap) (procfile_read: the whole file or an error); length or -1. */
ssize_t cgroup_fs_read(const char *dir, const char *file, char *buf, size_t cap);

/* 1 if dir/file exists, else 0. */
int cgroup_fs_has(const char *dir, const char *file);

/* open(dir/file, flags | O_CLOEXEC); fd or -1. */
int cgroup_fs_open(const char *dir, const char *file, int flags);

/* Sleep ms milliseconds, resuming after signals. */
void cgroup_fs_sleep_ms(long ms);

/* Absolute directory of hierarchy path p under mount m (p must lie under the mounted root); 0 or -1. */
int cgroup_fs_hier_dir(const struct cgroup_mnt *m, const char *p, char *out, size_t outlen);

/* PIDs in dir/cgroup.procs into pids[0..cap), *n of them; 0, or -1 (EFBIG: junk or more than cap). */
int cgroup_fs_read_pids(const char *dir, pid_t *pids, size_t cap, size_t *n);

/* One decimal value of dir/file ("max" reads as UINT64_MAX); 0 or -1. */
int cgroup_fs_read_u64(const char *dir, const char *file, uint64_t *out);

/* Members of dir and its subgroups (to CGROUP_FS_DEPTH below depth) other than the caller. */
size_t cgroup_fs_count_tree(const char *dir, int depth);

/* Remove dir and its (empty) subgroups, deepest first; retry while exiting tasks linger (2 s); 0 or -1. */
int cgroup_fs_rmdir_tree(const char *dir, int depth);

#endif
