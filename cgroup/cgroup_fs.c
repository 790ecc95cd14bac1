/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup_fs: paths and files of cgroup directories, and walks over a group's subtree; see cgroup_fs.h. */
#define _GNU_SOURCE
#include "cgroup/cgroup_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/num.h"
#include "common/procfile.h"

/* ---- file helpers ------------------------------------------------------------------------- */

int cgroup_fs_join(char *out, size_t outlen, const char *a, const char *b)
{
	size_t al = strlen(a);
	int n;

	while (al > 1 && a[al - 1] == '/')
		al--;
	n = snprintf(out, outlen, "%.*s%s%s", (int)al, a, al == 1 && a[0] == '/' ? "" : "/", b);
	if (n < 0 || (size_t)n >= outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int cgroup_fs_write(const char *dir, const char *file, const char *val)
{
	char p[CGROUP_PATH_MAX + 64];
	int fd, saved;
	ssize_t w;

	if (cgroup_fs_join(p, sizeof p, dir, file) < 0)
		return -1;
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	w = write(fd, val, strlen(val));
	saved = errno;
	close(fd);
	errno = saved;
	return w == (ssize_t)strlen(val) ? 0 : -1;
}

ssize_t cgroup_fs_read(const char *dir, const char *file, char *buf, size_t cap)
{
	char p[CGROUP_PATH_MAX + 64];

	if (cgroup_fs_join(p, sizeof p, dir, file) < 0)
		return -1;
	return procfile_read(NULL, p, buf, cap);
}

int cgroup_fs_has(const char *dir, const char *file)
{
	char p[CGROUP_PATH_MAX + 64];

	return cgroup_fs_join(p, sizeof p, dir, file) == 0 && access(p, F_OK) == 0;
}

int cgroup_fs_open(const char *dir, const char *file, int flags)
{
	char p[CGROUP_PATH_MAX + 64];

	if (cgroup_fs_join(p, sizeof p, dir, file) < 0)
		return -1;
	return open(p, flags | O_CLOEXEC);
}

void cgroup_fs_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int cgroup_fs_hier_dir(const struct cgroup_mnt *m, const char *p, char *out, size_t outlen)
{
	size_t rl = strlen(m->root);

	if (strcmp(m->root, "/") != 0) {
		if (strncmp(p, m->root, rl) != 0 || (p[rl] != 0 && p[rl] != '/')) {
			errno = ENOENT;
			return -1;
		}
		p += rl;
	}
	if (!*p || strcmp(p, "/") == 0)
		return snprintf(out, outlen, "%s", m->dir) < (int)outlen ? 0 : -1;
	return cgroup_fs_join(out, outlen, m->dir, p + 1);
}

/* ---- cgroup.procs and plain values ---------------------------------------------------------- */

int cgroup_fs_read_pids(const char *dir, pid_t *pids, size_t cap, size_t *n)
{
	char *buf = malloc(CGROUP_FS_PROCS_MAX);
	ssize_t len;
	int rc = -1;

	*n = 0;
	if (!buf)
		return -1;
	len = cgroup_fs_read(dir, "cgroup.procs", buf, CGROUP_FS_PROCS_MAX);
	if (len >= 0)
		rc = cgroup_parse_pids(buf, (size_t)len, pids, cap, n);
	if (rc < 0 && len >= 0)
		errno = EFBIG;
	free(buf);
	return rc;
}

int cgroup_fs_read_u64(const char *dir, const char *file, uint64_t *out)
{
	char buf[64];
	ssize_t n = cgroup_fs_read(dir, file, buf, sizeof buf);

	if (n <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		n--;
	if (n == 3 && memcmp(buf, "max", 3) == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	return num_parse_u64(buf, (size_t)n, out);
}

/* ---- subtree walks -------------------------------------------------------------------------- */

size_t cgroup_fs_count_tree(const char *dir, int depth)
{
	pid_t *pids;
	size_t n = 0, total = 0;
	DIR *d;
	struct dirent *e;

	if (depth > CGROUP_FS_DEPTH)
		return 0;
	pids = malloc(sizeof *pids * (CGROUP_FS_PROCS_MAX / 2));
	if (pids && cgroup_fs_read_pids(dir, pids, CGROUP_FS_PROCS_MAX / 2, &n) == 0)
		for (size_t i = 0; i < n; i++)
			total += pids[i] != getpid();
	free(pids);
	d = opendir(dir);
	if (!d)
		return total;
	while ((e = readdir(d))) {
		char sub[CGROUP_PATH_MAX];
		if (e->d_type == DT_DIR && e->d_name[0] != '.' && cgroup_fs_join(sub, sizeof sub, dir, e->d_name) == 0)
			total += cgroup_fs_count_tree(sub, depth + 1);
	}
	closedir(d);
	return total;
}

int cgroup_fs_rmdir_tree(const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;

	if (depth > CGROUP_FS_DEPTH)
		return -1;
	d = opendir(dir);
	if (d) {
		while ((e = readdir(d))) {
			char sub[CGROUP_PATH_MAX];
			if (e->d_type == DT_DIR && e->d_name[0] != '.' && cgroup_fs_join(sub, sizeof sub, dir, e->d_name) == 0)
				cgroup_fs_rmdir_tree(sub, depth + 1);
		}
		closedir(d);
	}
	for (int i = 0; i < 100; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		cgroup_fs_sleep_ms(20);
	}
	return -1;
}
