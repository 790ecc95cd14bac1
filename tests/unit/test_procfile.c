/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_procfile: path joining, exact-fit and truncation (EFBIG) on files of
 * known content under a temporary root, the pread variant, real /proc files
 * (multi-page seq_file, a value known from uname()), a /proc seq_file that
 * takes several read() calls compared byte for byte with cat(1), and a FIFO
 * that delivers its data in pieces with a signal in between (partial reads,
 * EINTR).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/procfile.h"
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

/* popen(cmd) into out (NUL-terminated); bytes, or -1 if it failed or did not fit. */
static ssize_t run_cmd(const char *cmd, char *out, size_t cap)
{
	FILE *f = popen(cmd, "r");
	size_t n = 0, r;

	if (!f)
		return -1;
	while (n < cap - 1 && (r = fread(out + n, 1, cap - 1 - n, f)) > 0)
		n += r;
	out[n] = '\0';
	if (pclose(f) != 0 || n == cap - 1)
		return -1;
	return (ssize_t)n;
}

static size_t count_nl(const char *p, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += p[i] == '\n';
	return c;
}

/*
 * A child that maps NMAPS single pages with alternating protections (so
 * they cannot merge) and then waits: its /proc/PID/maps is a seq_file of
 * ~NMAPS records, far over the 4 KiB seq_file buffer, and it does not
 * change while the child sleeps.  alarm() bounds the child's life even if
 * this test dies; it maps address space only, no memory is touched.
 */
#define NMAPS 300

static pid_t start_mapper(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		alarm(60);
		for (int i = 0; i < NMAPS; i++)
			mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static char want_buf[1 << 20];

static void test_seq_multichunk(void)
{
	char rel[64], path[80], cmd[160];
	ssize_t n, w, first, a, b;
	pid_t pid = start_mapper();
	int fd;

	T_CHECK(pid > 0, "mapper child started");
	if (pid <= 0)
		return;
	snprintf(rel, sizeof rel, "proc/%d/maps", (int)pid);
	snprintf(path, sizeof path, "/%s", rel);

	/* The case this test exists for: the first read() is short of the whole file. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	first = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
	if (fd >= 0)
		close(fd);

	n = procfile_read(NULL, rel, buf, sizeof buf);
	snprintf(cmd, sizeof cmd, "cat %s", path);
	w = run_cmd(cmd, want_buf, sizeof want_buf);
	T_CHECK(w > 4096, "cat %s: more than 4 KiB (%zd bytes)", path, w);
	T_CHECK(first > 0 && first < w, "one read() of it returns part only (%zd of %zd bytes): a short read is not EOF",
		first, w);
	T_EQ_I(n, w, "procfile_read of %s: as many bytes as cat", path);
	T_EQ_I(n > 0 ? count_nl(buf, (size_t)n) : 0, w > 0 ? count_nl(want_buf, (size_t)w) : 1,
	       "procfile_read: as many lines as cat");
	T_CHECK(n == w && n > 0 && memcmp(buf, want_buf, (size_t)n) == 0 && buf[n] == '\0',
		"procfile_read: the same bytes as cat, NUL-terminated");

	/* Exact fit and truncation on a seq_file: at the end and in the middle of a chunk. */
	if (w > 0) {
		T_EQ_I(procfile_read(NULL, rel, buf, (size_t)w + 1), w, "seq_file into cap = size + 1: fits exactly");
		errno = 0;
		T_CHECK(procfile_read(NULL, rel, buf, (size_t)w) == -1 && errno == EFBIG,
			"seq_file into cap = size: EFBIG");
		errno = 0;
		T_CHECK(procfile_read(NULL, rel, buf, 5000) == -1 && errno == EFBIG,
			"seq_file into cap 5000 (inside the second chunk): EFBIG");
	}

	/* Open-once: repeated, after a truncation, after the position moved. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_CHECK(fd >= 0, "%s opened once", path);
	if (fd >= 0) {
		a = procfile_pread(fd, buf, sizeof buf);
		T_CHECK(a == w && memcmp(buf, want_buf, (size_t)w) == 0, "pread: the same bytes as cat");
		errno = 0;
		T_CHECK(procfile_pread(fd, buf, 6000) == -1 && errno == EFBIG, "pread into cap 6000: EFBIG");
		b = procfile_pread(fd, buf, sizeof buf);
		T_CHECK(b == w && memcmp(buf, want_buf, (size_t)w) == 0, "pread after a truncation: whole again");
		T_CHECK(read(fd, buf, 100) > 0 && lseek(fd, 3000, SEEK_SET) == 3000, "fd moved to 3000 by read/lseek");
		b = procfile_pread(fd, buf, sizeof buf);
		T_CHECK(b == w && memcmp(buf, want_buf, (size_t)w) == 0, "pread after the position moved: whole");
		close(fd);
	}
	kill(pid, SIGKILL);
	T_CHECK(waitpid(pid, NULL, 0) == pid, "mapper child reaped");
}

/*
 * A FIFO written in pieces, with a signal sent to the reading thread while
 * it waits (handler installed without SA_RESTART, so read() fails with
 * EINTR): procfile must retry, go on after each partial read, and return
 * every byte.
 */
static volatile sig_atomic_t sigs;

static void on_sig(int sig)
{
	(void)sig;
	sigs++;
}

struct writer {
	const char *path;
	pthread_t reader;
	const char *data;
	size_t len;
	int ok;
};

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void *writer_main(void *arg)
{
	struct writer *wr = arg;
	size_t cut[] = { 0, 7, 5000, 70000, wr->len };
	int fd = open(wr->path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	nap_ms(100);            /* the reader is in read() by now, waiting */
	pthread_kill(wr->reader, SIGUSR1);
	nap_ms(50);
	wr->ok = 1;
	for (size_t i = 0; i + 1 < sizeof cut / sizeof cut[0]; i++) {
		size_t off = cut[i];
		while (off < cut[i + 1]) {
			ssize_t r = write(fd, wr->data + off, cut[i + 1] - off);
			if (r <= 0) {
				wr->ok = 0;
				break;
			}
			off += (size_t)r;
		}
		nap_ms(20);
	}
	close(fd);
	return NULL;
}

static void test_fifo(void)
{
	char root[] = "/tmp/test_procfile.XXXXXX", p[256];
	struct sigaction sa, old, oldpipe;
	struct writer wr;
	pthread_t t;
	ssize_t n;

	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (char)('a' + (i * 13) % 26);
	if (!mkdtemp(root)) {
		T_CHECK(0, "temp root created");
		return;
	}
	snprintf(p, sizeof p, "%s/fifo", root);
	T_CHECK(mkfifo(p, 0600) == 0, "fifo created");
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sa.sa_flags = 0;        /* no SA_RESTART: the read really fails with EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	/* If procfile gives up early, the writer gets EPIPE (a FAIL line), not a SIGPIPE that kills the test. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &oldpipe);
	wr = (struct writer){ .path = p, .reader = pthread_self(), .data = big, .len = sizeof big };
	sigs = 0;
	if (pthread_create(&t, NULL, writer_main, &wr) != 0) {
		T_CHECK(0, "writer thread started");
	} else {
		n = procfile_read(root, "fifo", buf, sizeof buf);
		pthread_join(t, NULL);
		T_CHECK(wr.ok, "writer wrote %zu bytes in 4 pieces", sizeof big);
		T_EQ_I(sigs, 1, "a signal arrived while procfile_read waited");
		T_EQ_I(n, (ssize_t)sizeof big, "fifo in pieces, interrupted: every byte");
		T_CHECK(n == (ssize_t)sizeof big && memcmp(buf, big, sizeof big) == 0, "fifo: the same bytes, in order");
	}
	sigaction(SIGUSR1, &old, NULL);
	sigaction(SIGPIPE, &oldpipe, NULL);
	unlink(p);
	rmdir(root);
}

static void test_stat_state(void)
{
	static const char ok[] = "42 (a) b) S 1 42 42 0 -1 4194560";
	static const char run[] = "7 (fpusoakd-spawne) R 6 1";
	char st[4096];
	ssize_t n;

	T_EQ_I(procfile_stat_state(ok, strlen(ok)), 'S', "state after the last ')' (a comm with ') ' in it)");
	T_EQ_I(procfile_stat_state(run, strlen(run)), 'R', "runnable");
	T_EQ_I(procfile_stat_state("7 (x)", 5), -1, "no field after the name");
	T_EQ_I(procfile_stat_state("7 (x) ", 6), -1, "a space and nothing");
	T_EQ_I(procfile_stat_state("7 (x)S", 6), -1, "no space after the name");
	T_EQ_I(procfile_stat_state("no paren R", 10), -1, "no name at all");
	T_EQ_I(procfile_stat_state("", 0), -1, "empty");
	T_EQ_I(procfile_stat_state("7 (x) \001", 7), -1, "a control byte is not a state");
	n = procfile_read(NULL, "proc/self/stat", st, sizeof st);
	T_CHECK(n > 0 && procfile_stat_state(st, (size_t)n) == 'R', "this process reads itself running in /proc/self/stat");
}

int main(void)
{
	test_stat_state();
	test_path();
	test_read();
	test_real_proc();
	test_seq_multichunk();
	test_fifo();
	T_DONE();
}
