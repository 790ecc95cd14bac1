/* SPDX-License-Identifier: GPL-2.0-only */
/* test_locks: /proc/locks, the writer's flock seen from outside (collector/locks.h). */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "collector/locks.h"
#include "common/procfile.h"
#include "test.h"

/* Lines as Linux 6.18 prints them (fs/locks.c), plus a waiter and junk. */
static const char sample[] =
	"1: POSIX  ADVISORY  WRITE 2212 00:1a:1234 0 EOF\n"
	"2: FLOCK  ADVISORY  READ 3000 fe:00:10954017 0 EOF\n"
	"3: OFDLCK ADVISORY  WRITE -1 fe:00:77 0 EOF\n"
	"4: FLOCK  ADVISORY  WRITE 21994 fe:01:10954018 0 EOF\n"
	"4: -> FLOCK  ADVISORY  WRITE 22000 fe:00:555 0 EOF\n"
	"5: FLOCK  ADVISORY  WRITE 1 zz:00:1 0 EOF\n"
	"6: FLOCK\n"
	"7: FLOCK  ADVISORY  WRITE 4242 103:02:99 0 EOF";   /* no trailing newline */

static void test_table(void)
{
	static const struct { unsigned maj, min; uint64_t ino; int want; const char *what; } cases[] = {
		{ 0xfe, 0x01, 10954018, 1, "a held FLOCK WRITE" },
		{ 0xfe, 0x00, 10954017, 0, "a READ flock is not the writer's" },
		{ 0x00, 0x1a, 1234, 0, "a POSIX lock is not the writer's" },
		{ 0xfe, 0x00, 77, 0, "an OFD lock is not the writer's" },
		{ 0xfe, 0x00, 555, 0, "a waiter holds nothing" },
		{ 0x103, 0x02, 99, 1, "hex major, last line without newline" },
		{ 0xfe, 0x00, 10954018, 0, "same inode, other device" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		T_EQ_I(locks_flock_held(sample, sizeof sample - 1, cases[i].maj, cases[i].min, cases[i].ino), cases[i].want,
		       "%s", cases[i].what);
	T_EQ_I(locks_flock_held("", 0, 0, 0, 0), 0, "an empty list");
}

/* The real kernel: a flock we take ourselves shows up, and is gone once released. */
static void test_live(void)
{
	char path[] = "/tmp/fpusoak-locks-XXXXXX", *buf = malloc(1 << 20);
	struct stat sb;
	ssize_t n;
	int fd = mkstemp(path);

	if (fd < 0 || !buf || fstat(fd, &sb) < 0) {
		T_CHECK(0, "temporary file");
		free(buf);
		return;
	}
	T_CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0, "take flock(LOCK_EX)");
	n = procfile_read(NULL, "/proc/locks", buf, 1 << 20);
	T_CHECK(n > 0 && locks_flock_held(buf, (size_t)n, major(sb.st_dev), minor(sb.st_dev), sb.st_ino) == 1,
		"our own flock is seen in /proc/locks");
	flock(fd, LOCK_UN);
	n = procfile_read(NULL, "/proc/locks", buf, 1 << 20);
	T_CHECK(n >= 0 && locks_flock_held(buf, (size_t)n, major(sb.st_dev), minor(sb.st_dev), sb.st_ino) == 0,
		"and not once released");
	close(fd);
	unlink(path);
	free(buf);
}

int main(void)
{
	test_table();
	test_live();
	T_DONE();
}
