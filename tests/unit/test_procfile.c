/*
 * test_procfile: path joining, exact-fit and truncation (EFBIG) on files of
 * known content under a temporary root, the pread variant, and real /proc
 * files (multi-page seq_file, a value known from uname()).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collector/procfile.h"
#include "tests/unit/test.h"

static char buf[1 << 20];
static char big[300000];

struct path_case {
	const char *root, *rel;
	size_t outlen;
	const char *want;       /* NULL: must fail */
};

static const struct path_case paths[] = {
	{ NULL, "proc/buddyinfo", 64, "/proc/buddyinfo" },
	{ "", "/proc/buddyinfo", 64, "/proc/buddyinfo" },
	{ "/", "proc", 64, "/proc" },
	{ "/tmp/r", "proc/x", 64, "/tmp/r/proc/x" },
	{ "/tmp/r/", "/proc/x", 64, "/tmp/r/proc/x" },
	{ "/tmp/r//", "//proc/x", 64, "/tmp/r/proc/x" },
	{ "/a", "b", 5, "/a/b" },       /* exactly fits: 4 chars + NUL */
	{ "/a", "b", 4, NULL },
	{ "/a", "b", 0, NULL },
	{ "/a", NULL, 64, NULL },
};

static void test_path(void)
{
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		const struct path_case *c = &paths[i];
		char out[64] = "";
		int rc = procfile_path(c->root, c->rel, out, c->outlen);

		T_EQ_I(rc, c->want ? 0 : -1, "path %zu (\"%s\" + \"%s\", %zu): returns %d", i,
		       c->root ? c->root : "(null)", c->rel ? c->rel : "(null)", c->outlen, c->want ? 0 : -1);
		if (c->want && rc == 0)
			T_EQ_S(out, c->want, "path %zu: joined", i);
	}
}

static int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, data, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

/* A temp root with proc/f (100 bytes), proc/empty, proc/big. */
static void test_read(void)
{
	char root[] = "/tmp/test_procfile.XXXXXX", p[256];
	char data[100];
	ssize_t n;

	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (char)('a' + i % 26);
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (char)('0' + (i * 7) % 10);
	if (!mkdtemp(root)) {
		T_CHECK(0, "temp root created");
		return;
	}
	snprintf(p, sizeof p, "%s/proc", root);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/proc/f", root);
	T_CHECK(write_file(p, data, sizeof data) == 0, "proc/f written");
	snprintf(p, sizeof p, "%s/proc/empty", root);
	T_CHECK(write_file(p, "", 0) == 0, "proc/empty written");
	snprintf(p, sizeof p, "%s/proc/big", root);
	T_CHECK(write_file(p, big, sizeof big) == 0, "proc/big written");

	memset(buf, 'X', 200);
	n = procfile_read(root, "proc/f", buf, 101);
	T_EQ_I(n, 100, "100 bytes into cap 101: all of it");
	T_CHECK(n == 100 && memcmp(buf, data, 100) == 0 && buf[100] == '\0', "content equal and NUL-terminated");

	errno = 0;
	n = procfile_read(root, "proc/f", buf, 100);
	T_CHECK(n == -1 && errno == EFBIG, "100 bytes into cap 100: EFBIG (no room for the NUL)");
	errno = 0;
	n = procfile_read(root, "/proc/f", buf, 1);
	T_CHECK(n == -1 && errno == EFBIG, "100 bytes into cap 1: EFBIG");
	n = procfile_read(root, "proc/empty", buf, 1);
	T_CHECK(n == 0 && buf[0] == '\0', "empty file into cap 1: 0 bytes, NUL-terminated");
	errno = 0;
	n = procfile_read(root, "proc/f", buf, 0);
	T_CHECK(n == -1 && errno == EINVAL, "cap 0: EINVAL");
	errno = 0;
	n = procfile_read(root, "proc/missing", buf, sizeof buf);
	T_CHECK(n == -1 && errno == ENOENT, "missing file: ENOENT");
	errno = 0;
	n = procfile_read(root, "proc", buf, sizeof buf);
	T_CHECK(n == -1 && errno == EISDIR, "a directory: EISDIR");
	n = procfile_read(root, "proc/big", buf, sizeof big + 1);
	T_CHECK(n == (ssize_t)sizeof big && memcmp(buf, big, sizeof big) == 0, "300000 bytes exactly fit");

	/* pread variant: always from offset 0, whatever the file position. */
	{
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		ssize_t a, b;

		T_CHECK(fd >= 0, "proc/big opened");
		a = procfile_pread(fd, buf, sizeof buf);
		lseek(fd, 12345, SEEK_SET);
		b = procfile_pread(fd, buf, sizeof buf);
		T_CHECK(a == (ssize_t)sizeof big && b == a && memcmp(buf, big, sizeof big) == 0,
			"pread twice (file moved in between): same full content");
		errno = 0;
		T_CHECK(procfile_pread(fd, buf, 1000) == -1 && errno == EFBIG, "pread into cap 1000: EFBIG");
		close(fd);
		errno = 0;
		T_CHECK(procfile_pread(-1, buf, 10) == -1 && errno == EBADF, "pread on a bad fd: EBADF");
	}

	snprintf(p, sizeof p, "%s/proc/f", root);
	unlink(p);
	snprintf(p, sizeof p, "%s/proc/empty", root);
	unlink(p);
	snprintf(p, sizeof p, "%s/proc/big", root);
	unlink(p);
	snprintf(p, sizeof p, "%s/proc", root);
	rmdir(p);
	rmdir(root);
}

static void test_real_proc(void)
{
	struct utsname u;
	char want[80];
	ssize_t n;
	int fd;

	/* A /proc value we can know independently. */
	n = procfile_read(NULL, "proc/sys/kernel/ostype", buf, sizeof buf);
	T_CHECK(uname(&u) == 0, "uname");
	snprintf(want, sizeof want, "%s\n", u.sysname);
	T_CHECK(n > 0, "/proc/sys/kernel/ostype read");
	if (n > 0)
		T_EQ_S(buf, want, "/proc/sys/kernel/ostype is uname's sysname");

	/* A multi-page seq_file; /proc/self/smaps is readable by anyone and well over 4 KiB. */
	n = procfile_read(NULL, "proc/self/smaps", buf, sizeof buf);
	T_CHECK(n > 4096, "/proc/self/smaps: more than one page read (%zd bytes)", n);
	T_CHECK(n > 0 && strlen(buf) == (size_t)n && buf[n - 1] == '\n', "/proc/self/smaps: no NULs, ends in a newline");

	errno = 0;
	n = procfile_read(NULL, "proc/meminfo", buf, 64);
	T_CHECK(n == -1 && errno == EFBIG, "/proc/meminfo into 64 bytes: EFBIG");

	fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	T_CHECK(fd >= 0, "/proc/meminfo opened once");
	if (fd >= 0) {
		ssize_t a = procfile_pread(fd, buf, sizeof buf);
		ssize_t b = procfile_pread(fd, buf, sizeof buf);

		/* Values change between reads; the set of lines does not. */
		T_CHECK(a > 0 && b > 0 && strncmp(buf, "MemTotal:", 9) == 0,
			"/proc/meminfo pread twice on one fd: both full, both start at MemTotal");
		close(fd);
	}
}

int main(void)
{
	test_path();
	test_read();
	test_real_proc();
	T_DONE();
}
