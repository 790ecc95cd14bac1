/* SPDX-License-Identifier: GPL-2.0-only */
/* pathcheck: name the cause of a database path that cannot work; see pathcheck.h. */
#include "common/pathcheck.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The folder part of path ("." for a bare name) into out; 0 or -1 if too long. */
static int folder_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return snprintf(out, len, ".") >= (int)len ? -1 : 0;
	if (slash == path)
		return snprintf(out, len, "/") >= (int)len ? -1 : 0;
	return snprintf(out, len, "%.*s", (int)(slash - path), path) >= (int)len ? -1 : 0;
}

static int folder_problem(const char *dir, int writer, char *why, size_t whylen)
{
	struct stat sb;
	struct statvfs vfs;

	if (stat(dir, &sb) < 0) {
		if (errno == ENOENT)
			snprintf(why, whylen, "folder %s does not exist", dir);
		else if (errno == ENOTDIR)
			snprintf(why, whylen, "a part of %s is not a folder", dir);
		else
			snprintf(why, whylen, "folder %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(why, whylen, "%s is not a folder", dir);
		return -1;
	}
	if (!writer)
		return 0;
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
		snprintf(why, whylen, "folder %s is on a read-only file system", dir);
		return -1;
	}
	/* The database, its -wal and -shm files are created here. */
	if (access(dir, W_OK | X_OK) < 0) {
		snprintf(why, whylen, "folder %s is not writable (%s)", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A non-empty file must start with SQLite's header string ("SQLite format 3" and a NUL): anything else
 * is not a database, and saying so here costs one read (SQLite would say "file is not a database" only
 * once a statement ran).  An empty file is a database SQLite has not written yet.
 */
static int header_problem(const char *path, off_t size, char *why, size_t whylen)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	FILE *f;
	size_t n;

	if (size == 0)
		return 0;
	if (!(f = fopen(path, "rb")))
		return 0;   /* access() said readable: the open that follows says why not */
	n = fread(head, 1, sizeof head, f);
	fclose(f);
	if (n == sizeof head && memcmp(head, magic, sizeof magic) == 0)
		return 0;
	snprintf(why, whylen, "%s is not an SQLite database (or its header is damaged)", path);
	return -1;
}

int pathcheck_db(const char *path, int writer, char *why, size_t whylen)
{
	char dir[4096];
	struct stat sb;

	if (!path || !*path) {
		snprintf(why, whylen, "empty database path");
		return -1;
	}
	if (folder_of(path, dir, sizeof dir) < 0) {
		snprintf(why, whylen, "path too long");
		return -1;
	}
	if (folder_problem(dir, writer, why, whylen) < 0)
		return -1;
	if (stat(path, &sb) < 0) {
		if (errno == ENOENT && writer)
			return 0;   /* created on open */
		snprintf(why, whylen, "%s: %s", path, errno == ENOENT ? "no such database file" : strerror(errno));
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		snprintf(why, whylen, "%s is a directory, not a database file", path);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(why, whylen, "%s is not a regular file", path);
		return -1;
	}
	if (access(path, writer ? R_OK | W_OK : R_OK) < 0) {
		snprintf(why, whylen, "%s is not %s (%s)", path, writer ? "readable and writable" : "readable",
			 strerror(errno));
		return -1;
	}
	return 0;
}

int pathcheck_db_header(const char *path, char *why, size_t whylen)
{
	struct stat sb;

	if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
		return 0;   /* absent, or not a file: pathcheck_db says so */
	return header_problem(path, sb.st_size, why, whylen);
}
