/* SPDX-License-Identifier: GPL-2.0-only */
/* upgrade: an older database migrated in place, a backup first, no run added (store_upgrade in store.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/pathcheck.h"
#include "store/migrations.h"
#include "store/writer.h"

#define BUSY_TIMEOUT_MS 5000

/* A copy of db into path, a new file (refused if it exists): SQLite's online backup, all pages at once. */
static int backup_to(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	sqlite3 *to = NULL;
	sqlite3_backup *b;
	int fd, rc;

	/* O_EXCL: a backup never overwrites anything, an older backup least of all. */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "backup %s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	if (sqlite3_open_v2(path, &to, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK || !(b = sqlite3_backup_init(to, "main", db, "main"))) {
		snprintf(err, errlen, "backup %s: %s", path, to ? sqlite3_errmsg(to) : "cannot open");
		goto fail;
	}
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "backup %s: %s", path, sqlite3_errstr(rc));
		goto fail;
	}
	if (sqlite3_close(to) != SQLITE_OK) {
		snprintf(err, errlen, "backup %s: cannot close it", path);
		return -1;
	}
	return 0;
fail:
	sqlite3_close(to);
	unlink(path);
	return -1;
}

int store_upgrade(const char *path, char *backup, size_t blen, int *from, int *to, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int64_t have = 0, now;
	int lockfd = -1, r, ret = -1;
	char e2[256];

	*from = *to = -1;
	backup[0] = 0;
	if (pathcheck_db(path, 0, e2, sizeof e2) < 0) {
		snprintf(err, errlen, "%s", e2);
		return -1;
	}
	/* No SQLITE_OPEN_CREATE: upgrading a file that is not there creates nothing. */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", db ? sqlite3_errmsg(db) : "cannot open");
		goto out;
	}
	/* The daemon's lock: a database a daemon is writing is upgraded by that daemon already. */
	lockfd = open(path, O_RDONLY | O_CLOEXEC);
	if (lockfd < 0 || flock(lockfd, LOCK_EX | LOCK_NB) < 0) {
		snprintf(err, errlen, "%s", errno == EWOULDBLOCK ? "a running fpusoakd is using this database" : strerror(errno));
		goto out;
	}
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	if ((r = writer_has_table(db, "runs")) <= 0) {
		snprintf(err, errlen, "%s", r < 0 ? (sqlite3_errcode(db) == SQLITE_NOTADB ? "not an SQLite database (or its header"
			 " is damaged)" : sqlite3_errmsg(db)) : "not an fpusoakd database (no runs table)");
		goto out;
	}
	if (writer_check(db, e2, sizeof e2) < 0) {
		snprintf(err, errlen, "refusing to change it (it is left untouched): %s", e2);
		goto out;
	}
	if (writer_version(db, &have) < 0) {
		snprintf(err, errlen, "cannot read the schema version: %s", sqlite3_errmsg(db));
		goto out;
	}
	*from = *to = (int)have;
	if ((r = writer_pending(db, have)) < 0) {
		snprintf(err, errlen, "cannot read the schema: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (r == 0 || have > store_migrations[store_nmigrations - 1].version) {
		ret = have > store_migrations[store_nmigrations - 1].version ? -1 : 0;
		if (ret < 0)
			snprintf(err, errlen, "schema version %lld is newer than this fpusoakd knows (%d): use a newer fpusoakd",
				 (long long)have, store_migrations[store_nmigrations - 1].version);
		goto out;
	}
	/* The backup first, beside it: FILE.schemaN.bak, or with the time when that name is taken. */
	now = clock_wall_ms() / 1000;
	snprintf(backup, blen, "%s.schema%lld.bak", path, (long long)have);
	if (access(backup, F_OK) == 0)
		snprintf(backup, blen, "%s.schema%lld-%lld.bak", path, (long long)have, (long long)now);
	if (backup_to(db, backup, err, errlen) < 0) {
		backup[0] = 0;
		goto out;
	}
	if (writer_migrate(db, e2, sizeof e2) < 0 ||
	    writer_version(db, &have) < 0) {
		snprintf(err, errlen, "%s (the backup %s is as the file was)", e2, backup);
		goto out;
	}
	*to = (int)have;
	ret = 0;
out:
	if (db && sqlite3_close(db) != SQLITE_OK && ret == 0) {
		snprintf(err, errlen, "cannot close it cleanly");
		ret = -1;
	}
	if (lockfd >= 0)
		close(lockfd);
	return ret;
}
