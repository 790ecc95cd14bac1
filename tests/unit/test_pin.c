/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_pin: pin_hand_back gives back program and library pages and leaves
 * data mappings alone.  The regression: it opened and closed every mapped
 * file to drop it from the page cache, SQLite's -shm among them, and that
 * close dropped every POSIX lock this process held on the -shm; the web
 * process's next connection then truncated the -shm under the core's
 * mapping (SIGBUS).  Here SQLite's locks must survive it.
 */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/pin.h"
#include "test.h"

/* How many POSIX locks /proc/locks lists for our PID on the file with this inode. */
static int my_locks(ino_t ino)
{
	FILE *f = fopen("/proc/locks", "r");
	char line[256], kind[16], id[32], dev[64];
	long pid;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		unsigned long long in;
		char *colon;

		/* "1: POSIX  ADVISORY  READ 1234 08:01:5678 128 128" (blocked waiters carry "->" first). */
		if (sscanf(line, "%31s %15s %*s %*s %ld %63s", id, kind, &pid, dev) != 4 || strcmp(kind, "POSIX") != 0)
			continue;
		if (pid != (long)getpid() || !(colon = strrchr(dev, ':')) || sscanf(colon + 1, "%llu", &in) != 1)
			continue;
		n += in == (unsigned long long)ino;
	}
	fclose(f);
	return n;
}

int main(void)
{
	char dir[] = "/tmp/test_pin.XXXXXX", db[64], shm[72];
	sqlite3 *h = NULL;
	struct stat st;
	int before, after, handed;

	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp");
		T_DONE();
	}
	snprintf(db, sizeof db, "%s/t.db", dir);
	snprintf(shm, sizeof shm, "%s-shm", db);
	T_CHECK(sqlite3_open(db, &h) == SQLITE_OK, "open %s", db);
	T_CHECK(sqlite3_exec(h, "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);", NULL, NULL,
			     NULL) == SQLITE_OK, "a WAL database with a row (%s)", sqlite3_errmsg(h));
	if (stat(shm, &st) < 0) {
		T_CHECK(0, "no %s after a WAL write", shm);
		goto out;
	}
	before = my_locks(st.st_ino);
	if (before < 0) {
		T_SKIP("/proc/locks is not readable here");
		goto out;
	}
	T_CHECK(before > 0, "SQLite holds %d POSIX lock(s) on its -shm (its DMS lock at least)", before);
	handed = pin_hand_back();
	T_CHECK(handed > 0, "pin_hand_back handed back %d file mappings (this program, libc, libsqlite3 ...)", handed);
	after = my_locks(st.st_ino);
	T_EQ_I(after, before, "SQLite's locks on the -shm are all still held after pin_hand_back");
	T_CHECK(sqlite3_exec(h, "INSERT INTO t VALUES (2);", NULL, NULL, NULL) == SQLITE_OK,
		"the connection still writes after pin_hand_back (%s)", sqlite3_errmsg(h));
out:
	sqlite3_close(h);
	unlink(shm);
	snprintf(shm, sizeof shm, "%s-wal", db);
	unlink(shm);
	unlink(db);
	rmdir(dir);
	T_DONE();
}
