/* SPDX-License-Identifier: GPL-2.0-only */
/* test_pathcheck: each cause a database path can fail by is named (read-only file systems: 43_startup.sh). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/pathcheck.h"
#include "test.h"

int main(void)
{
	char dir[] = "/tmp/fpusoak-pathcheck-XXXXXX", p[512], why[512];

	if (!mkdtemp(dir)) {
		T_SKIP("mkdtemp failed");
		T_DONE();
	}
	snprintf(p, sizeof p, "%s/new.db", dir);
	T_EQ_I(pathcheck_db(p, 1, why, sizeof why), 0, "a new file in a writable folder: fine for a writer");
	T_EQ_I(pathcheck_db(p, 0, why, sizeof why), -1, "... but a reader needs it to exist");
	T_CHECK(strstr(why, "no such database file") != NULL, "  %s", why);
	snprintf(p, sizeof p, "%s/missing/x.db", dir);
	T_EQ_I(pathcheck_db(p, 1, why, sizeof why), -1, "missing folder");
	T_CHECK(strstr(why, "/missing does not exist") != NULL, "  %s", why);
	snprintf(p, sizeof p, "%s/d.db", dir);
	mkdir(p, 0755);
	T_EQ_I(pathcheck_db(p, 1, why, sizeof why), -1, "a directory");
	T_CHECK(strstr(why, "is a directory, not a database file") != NULL, "  %s", why);
	rmdir(p);
	snprintf(p, sizeof p, "%s/f", dir);
	FILE *f = fopen(p, "w");
	if (f)
		fclose(f);
	T_EQ_I(pathcheck_db(p, 1, why, sizeof why), 0, "an existing regular file");
	snprintf(p, sizeof p, "%s/f/x.db", dir);
	T_EQ_I(pathcheck_db(p, 1, why, sizeof why), -1, "a file where the folder should be");
	T_CHECK(strstr(why, "/f is not a folder") != NULL, "  %s", why);
	T_EQ_I(pathcheck_db("", 1, why, sizeof why), -1, "empty path");
	T_EQ_I(pathcheck_db("x.db", 1, why, sizeof why), access(".", W_OK) == 0 ? 0 : -1, "a bare name: the current folder");
	/* The header: SQLite's 16 bytes, or an empty file, pass; anything else is not a database (issue 31: a bad
	 * --db said "file is not a database" only after the start's warnings). */
	{
		static const char *const body[3] = { "SQLite format 3\0 and its pages", "", "this is not a database, and more" };
		static const size_t len[3] = { 31, 0, 32 };
		for (int i = 0; i < 3; i++) {
			FILE *hf;
			snprintf(p, sizeof p, "%s/h%d.db", dir, i);
			if ((hf = fopen(p, "wb"))) {
				fwrite(body[i], 1, len[i], hf);
				fclose(hf);
			}
			why[0] = 0;
			T_EQ_I(pathcheck_db_header(p, why, sizeof why), i == 2 ? -1 : 0, "header case %d (%s)", i, why);
			unlink(p);
		}
		snprintf(p, sizeof p, "%s/absent.db", dir);
		T_EQ_I(pathcheck_db_header(p, why, sizeof why), 0, "an absent file: pathcheck_db's to say");
	}
	snprintf(p, sizeof p, "%s/f", dir);
	unlink(p);
	rmdir(dir);
	T_DONE();
}
