/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_kmsgdev: the /dev/kmsg reader.
 *  1. Scripted: this file defines read(), so kmsgdev's calls on one chosen
 *     fd return a script (records, EPIPE, EINTR, EAGAIN, EIO); loss and
 *     resume accounting are checked against hand-counted gaps.
 *  2. Live, as root: write a warn_alloc-looking line with a random nonce in
 *     its COMM into /dev/kmsg and read it back through kmsgdev + kmsg_parse_line;
 *     a second line carries control bytes and quotes the kernel must escape.
 *  3. boot_id: matches the file, and a bad one is refused.
 */
#undef _FORTIFY_SOURCE            /* we define read() below; the fortified inline would clash */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/kmsg.h"
#include "collector/kmsgdev.h"
#include "test.h"

struct step {
	const char *rec;           /* bytes to return, or NULL */
	int err;                   /* errno to fail with when rec is NULL (0: EAGAIN) */
};

static int fake_fd = -1;
static const struct step *script;
static size_t script_pos, script_len, fake_calls;

ssize_t read(int fd, void *buf, size_t n)
{
	if (fd == fake_fd && fd >= 0) {
		const struct step *s;

		fake_calls++;
		if (script_pos >= script_len) {
			errno = EAGAIN;
			return -1;
		}
		s = &script[script_pos++];
		if (!s->rec) {
			errno = s->err ? s->err : EAGAIN;
			return -1;
		}
		if (strlen(s->rec) > n) {
			errno = EINVAL;
			return -1;
		}
		memcpy(buf, s->rec, strlen(s->rec));
		return (ssize_t)strlen(s->rec);
	}
	return syscall(SYS_read, fd, buf, n);
}

/* Open /dev/null through kmsgdev (it seeks fine) and point the script at its fd. */
static struct kmsgdev *scripted(const struct step *s, size_t n, enum kmsgdev_start how, uint64_t after)
{
	struct kmsgdev *k = kmsgdev_open("/dev/null", how, after);

	script = s;
	script_len = n;
	script_pos = 0;
	fake_fd = kmsgdev_fd(k);
	return k;
}

static void test_scripted(void)
{
	static const struct step s1[] = {
		{ "6,10,1,-;a\n", 0 },
		{ NULL, EPIPE },                   /* 11..14 overwritten */
		{ "6,15,2,-;b\n", 0 },
		{ NULL, EINTR },
		{ "junk without header\n", 0 },
		{ "6,16,3,-;c\n", 0 },
		{ NULL, EAGAIN },
		{ "6,17,4,-;d\n", 0 },
		{ NULL, EIO },
	};
	struct kmsg_record rec;
	struct kmsgdev *k = scripted(s1, sizeof s1 / sizeof s1[0], KMSGDEV_FROM_START, 0);
	int valid, r1, r2, r3, r4, r5, r6;
	uint64_t q1, q2, q3, q4;

	if (!k) {
		T_CHECK(0, "open /dev/null for the scripted reader");
		return;
	}
	r1 = kmsgdev_next(k, &rec); q1 = rec.seq;
	r2 = kmsgdev_next(k, &rec); q2 = rec.seq;
	r3 = kmsgdev_next(k, &rec); q3 = rec.seq;
	r4 = kmsgdev_next(k, &rec);
	r5 = kmsgdev_next(k, &rec); q4 = rec.seq;
	errno = 0;
	r6 = kmsgdev_next(k, &rec);
	if (fake_calls == 0) {
		T_SKIP("read() interposition did not take (libc routed read elsewhere); scripted checks not run");
		kmsgdev_close(k);
		return;
	}
	T_CHECK(r1 == 1 && q1 == 10, "scripted: first record seq 10");
	T_CHECK(r2 == 1 && q2 == 15, "scripted: after EPIPE the next record is seq 15");
	T_CHECK(r3 == 1 && q3 == 16, "scripted: EINTR retried, junk record skipped, seq 16 returned");
	T_EQ_I(r4, 0, "scripted: EAGAIN means no more for now");
	T_CHECK(r5 == 1 && q4 == 17, "scripted: reading again after EAGAIN continues at seq 17");
	T_CHECK(r6 == -1 && errno == EIO, "scripted: EIO is an error with errno kept");
	T_EQ_I(kmsgdev_lost(k), 4, "scripted: lost = 15 - 11 (records 11..14)");
	T_EQ_I(kmsgdev_malformed(k), 1, "scripted: one malformed record counted");
	T_CHECK(kmsgdev_last_seq(k, &valid) == 17 && valid, "scripted: last seq 17");
	kmsgdev_close(k);

	static const struct step s2[] = {
		{ "6,11,1,-;old\n", 0 }, { "6,12,1,-;seen\n", 0 }, { "6,20,1,-;new\n", 0 }, { "6,21,1,-;newer\n", 0 },
	};
	k = scripted(s2, sizeof s2 / sizeof s2[0], KMSGDEV_AFTER_SEQ, 12);
	r1 = kmsgdev_next(k, &rec); q1 = rec.seq;
	r2 = kmsgdev_next(k, &rec); q2 = rec.seq;
	T_CHECK(r1 == 1 && q1 == 20 && r2 == 1 && q2 == 21, "resume after 12: records 11, 12 skipped, 20 and 21 returned");
	T_EQ_I(kmsgdev_lost(k), 7, "resume after 12: 13..19 overwritten while we were away = 7 lost");
	kmsgdev_close(k);

	static const struct step s3[] = { { "6,3,1,-;a\n", 0 }, { "6,4,1,-;b\n", 0 } };
	k = scripted(s3, 2, KMSGDEV_AFTER_SEQ, 9);
	r1 = kmsgdev_next(k, &rec);
	T_CHECK(r1 == 0 && kmsgdev_lost(k) == 0, "resume after 9 with only older records: nothing, nothing lost");
	kmsgdev_close(k);
	fake_fd = -1;

	T_CHECK(kmsgdev_open("/nonexistent/kmsg", KMSGDEV_FROM_END, 0) == NULL && errno == ENOENT,
		"open of a missing path fails with errno");
	kmsgdev_close(NULL);
	T_EQ_I(kmsgdev_fd(NULL), -1, "fd of NULL handle is -1");
}

/* Wait up to ms for a record whose message parses to an ALLOC_FAIL with this COMM. */
static int wait_for(struct kmsgdev *k, const char *comm, size_t comm_len, int ms,
		    struct kmsg_record *rec, struct kmsg_event *ev)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int r = kmsgdev_next(k, rec);

		if (r < 0)
			return -1;
		if (r == 1) {
			if (kmsg_parse_line(rec->msg, rec->msg_len, ev) == KMSG_LINE_EVENT &&
			    ev->kind == KMSG_ALLOC_FAIL && ev->comm_len == comm_len && memcmp(ev->comm, comm, comm_len) == 0)
				return 0;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			return -1;
		struct pollfd pfd = { kmsgdev_fd(k), POLLIN, 0 };
		poll(&pfd, 1, 50);
	}
}

static void test_live(void)
{
	unsigned char nonce[4];
	char comm[64], line[512];
	struct kmsg_record rec;
	struct kmsg_event ev;
	struct kmsgdev *k, *k2;
	uint64_t seq;
	int wfd, valid;

	if (geteuid() != 0) {
		T_SKIP("live /dev/kmsg test needs root (writes to the kernel log)");
		return;
	}
	k = kmsgdev_open(NULL, KMSGDEV_FROM_END, 0);
	if (!k) {
		T_SKIP("cannot open /dev/kmsg: %s", strerror(errno));
		return;
	}
	wfd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (wfd < 0) {
		T_SKIP("cannot open /dev/kmsg for writing: %s", strerror(errno));
		kmsgdev_close(k);
		return;
	}
	if (getrandom(nonce, sizeof nonce, 0) != sizeof nonce)
		memcpy(nonce, &(int){ (int)time(NULL) }, sizeof nonce);
	snprintf(comm, sizeof comm, "fpusoak-test-%02x%02x%02x%02x", nonce[0], nonce[1], nonce[2], nonce[3]);
	snprintf(line, sizeof line, "<4>%s: page allocation failure: order:3, mode:0xa20(GFP_ATOMIC), nodemask=(null),cpuset=/,mems_allowed=0\n", comm);
	T_CHECK(write(wfd, line, strlen(line)) == (ssize_t)strlen(line), "wrote test line to /dev/kmsg");
	if (wait_for(k, comm, strlen(comm), 3000, &rec, &ev) < 0) {
		T_CHECK(0, "read back our line (%s) from /dev/kmsg within 3 s", comm);
	} else {
		/* devkmsg_write: "<4>" sets the level; facility stays LOG_USER (1). */
		T_CHECK(rec.facility == 1 && rec.level == 4, "live: facility user(1), level warning(4) [got %d,%d]", rec.facility, rec.level);
		T_CHECK(ev.order == 3 && ev.gfp_mask == 0xa20 && strcmp(ev.gfp_flags, "GFP_ATOMIC") == 0 &&
			strcmp(ev.nodemask, "(null)") == 0, "live: order 3, mode 0xa20(GFP_ATOMIC), nodemask (null) parsed");
		seq = rec.seq;

		k2 = kmsgdev_open(NULL, KMSGDEV_AFTER_SEQ, seq - 1);
		T_CHECK(k2 && kmsgdev_next(k2, &rec) == 1 && rec.seq == seq && kmsgdev_lost(k2) == 0,
			"live: resume after seq-1 returns our record first, nothing lost");
		kmsgdev_close(k2);
		k2 = kmsgdev_open(NULL, KMSGDEV_FROM_START, 0);
		T_CHECK(k2 && kmsgdev_next(k2, &rec) == 1 && rec.seq <= seq, "live: reading from the start gives an older record first");
		kmsgdev_close(k2);
	}

	/* Control bytes, a backslash and markup in COMM: the kernel escapes, we decode. */
	char hostile[64];
	size_t hl = (size_t)snprintf(hostile, sizeof hostile, "fp\x01\"<&>\\%02x%02x\x7f", nonce[0], nonce[3]);
	snprintf(line, sizeof line, "<4>%s: page allocation failure: order:1, mode:0x820(GFP_ATOMIC), nodemask=(null)\n", hostile);
	T_CHECK(write(wfd, line, strlen(line)) == (ssize_t)strlen(line), "wrote hostile-comm line to /dev/kmsg");
	T_CHECK(wait_for(k, hostile, hl, 3000, &rec, &ev) == 0 && ev.order == 1 &&
		memchr(rec.msg, '\x01', rec.msg_len) == NULL && memchr(rec.msg, '\x7f', rec.msg_len) == NULL,
		"live: hostile COMM (\\x01 \" < & > \\\\ \\x7f) came back escaped and decodes to the same bytes");
	T_CHECK(kmsgdev_last_seq(k, &valid) > 0 && valid, "live: last seq tracked");
	close(wfd);
	kmsgdev_close(k);
}

static void test_boot_id(void)
{
	char id[KMSGDEV_BOOT_ID_LEN + 1], want[64] = "";
	char dir[] = "/tmp/fpusoak-bootid-XXXXXX", path[256];
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (f) {
		if (!fgets(want, sizeof want, f))
			want[0] = '\0';
		fclose(f);
		want[strcspn(want, "\n")] = '\0';
	}
	T_CHECK(kmsgdev_boot_id(NULL, id, sizeof id) == 0 && strcmp(id, want) == 0, "boot_id matches /proc (%s)", want);
	T_CHECK(kmsgdev_boot_id(NULL, id, 10) < 0 && errno == EINVAL, "boot_id: small buffer refused");

	T_CHECK(kmsgdev_boot_id_valid("a6b37b0e-ba5d-4100-8bff-9420fccdda4d", 36), "valid uuid accepted");
	T_CHECK(!kmsgdev_boot_id_valid("A6B37B0E-BA5D-4100-8BFF-9420FCCDDA4D", 36), "upper-case uuid refused (kernel prints lower)");
	T_CHECK(!kmsgdev_boot_id_valid("a6b37b0e-ba5d-4100-8bff-9420fccdda4", 35), "short uuid refused");
	T_CHECK(!kmsgdev_boot_id_valid("a6b37b0eXba5d-4100-8bff-9420fccdda4d", 36), "misplaced dash refused");

	if (!mkdtemp(dir))
		return;
	static const char *const sub[] = { "/proc", "/proc/sys", "/proc/sys/kernel", "/proc/sys/kernel/random" };
	for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
		snprintf(path, sizeof path, "%s%s", dir, sub[i]);
		mkdir(path, 0700);
	}
	snprintf(path, sizeof path, "%s/proc/sys/kernel/random/boot_id", dir);
	f = fopen(path, "w");
	if (f) {
		fputs("not-a-uuid-at-all-not-a-uuid-at-all\n", f);
		fclose(f);
		T_CHECK(kmsgdev_boot_id(dir, id, sizeof id) < 0 && errno == EINVAL, "boot_id: junk under a root override refused");
		unlink(path);
	}
	for (size_t i = sizeof sub / sizeof sub[0]; i-- > 0;) {
		snprintf(path, sizeof path, "%s%s", dir, sub[i]);
		rmdir(path);
	}
	rmdir(dir);
}

int main(void)
{
	test_scripted();
	test_live();
	test_boot_id();
	T_DONE();
}
