/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_notify: the sd_notify wire protocol as systemd sees it.  The test owns
 * the "service manager" end: an AF_UNIX datagram socket whose path goes into
 * $NOTIFY_SOCKET.  Expected datagrams are written out by hand from
 * sd_notify(3) and systemd.service(5) (KEY=VALUE, no trailing newline), and
 * the watchdog period from WATCHDOG_USEC by hand (half of it, in ms).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/notify.h"
#include "tests/unit/test.h"

/* Next datagram within 1 s, NUL-terminated into buf; its length or -1 (nothing came). */
static long recv_one(int s, char *buf, size_t cap, int wait)
{
	struct timeval tv = { wait ? 1 : 0, wait ? 0 : 1000 };
	ssize_t n;

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	n = recv(s, buf, cap - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return (long)n;
}

static void expect(int s, const char *want, const char *what)
{
	char buf[1024];
	long n = recv_one(s, buf, sizeof buf, 1);

	T_CHECK(n >= 0, "%s: a datagram arrives", what);
	if (n >= 0) {
		T_EQ_I(n, strlen(want), "%s: datagram length", what);
		T_EQ_S(buf, want, "%s: datagram text", what);
	}
}

static void expect_nothing(int s, const char *what)
{
	char buf[1024];
	long n = recv_one(s, buf, sizeof buf, 0);

	T_CHECK(n < 0, "%s: nothing sent", what);
	if (n >= 0)
		printf("      got \"%s\"\n", buf);
}

static void set_watchdog(const char *usec, long pid)
{
	char p[32];

	snprintf(p, sizeof p, "%ld", pid);
	setenv("WATCHDOG_USEC", usec, 1);
	setenv("WATCHDOG_PID", p, 1);
}

int main(void)
{
	char dir[] = "/tmp/test_notify.XXXXXX";
	char path[sizeof dir + 16], longtext[NOTIFY_STATUS_MAX + 50], want[NOTIFY_STATUS_MAX + 32];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s;

	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp: %s", strerror(errno));
		T_DONE();
	}
	snprintf(path, sizeof path, "%s/notify", dir);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
		T_CHECK(0, "bind %s: %s", path, strerror(errno));
		T_DONE();
	}

	/* 1. Not under systemd: no socket named, nothing may be sent anywhere. */
	unsetenv("NOTIFY_SOCKET");
	set_watchdog("6000000", (long)getpid());
	T_EQ_I(notify_init(), 0, "unset NOTIFY_SOCKET: notifications disabled");
	T_EQ_I(notify_watchdog_interval_ms(), 0, "unset NOTIFY_SOCKET: no watchdog period");
	T_EQ_I(notify_ready(), 0, "unset: ready is a no-op");
	T_EQ_I(notify_status("run %d", 1), 0, "unset: status is a no-op");
	T_EQ_I(notify_watchdog(), 0, "unset: watchdog is a no-op");
	T_EQ_I(notify_stopping(), 0, "unset: stopping is a no-op");
	expect_nothing(s, "unset NOTIFY_SOCKET");

	/* 2. Under systemd with WatchdogSec=6s: WATCHDOG_USEC=6000000 → ping every 3000 ms. */
	setenv("NOTIFY_SOCKET", path, 1);
	set_watchdog("6000000", (long)getpid());
	T_EQ_I(notify_init(), 1, "NOTIFY_SOCKET set: enabled");
	T_EQ_I(notify_watchdog_interval_ms(), 3000, "WATCHDOG_USEC=6000000: ping every 3000 ms");
	T_EQ_I(notify_ready(), 0, "ready sent");
	expect(s, "READY=1", "ready");
	T_EQ_I(notify_status("run %d up %ds workers %u", 7, 42, 3u), 0, "status sent");
	expect(s, "STATUS=run 7 up 42s workers 3", "status");
	T_EQ_I(notify_watchdog(), 0, "watchdog sent");
	expect(s, "WATCHDOG=1", "watchdog");
	T_EQ_I(notify_watchdog(), 0, "second watchdog sent");
	expect(s, "WATCHDOG=1", "second watchdog");
	/* A kernel string with a newline must not smuggle in a second assignment. */
	notify_status("comm=%s", "x\nREADY=1\x1b[2J");
	expect(s, "STATUS=comm=x?READY=1?[2J", "status control characters");
	memset(longtext, 'a', sizeof longtext - 1);
	longtext[sizeof longtext - 1] = 0;
	notify_status("%s", longtext);
	snprintf(want, sizeof want, "STATUS=%.*s...", NOTIFY_STATUS_MAX, longtext);
	expect(s, want, "over-long status cut with ...");
	T_EQ_I(notify_stopping(), 0, "stopping sent");
	expect(s, "STOPPING=1", "stopping");
	T_EQ_I(notify_extend(UINT64_C(900000000)), 0, "start timeout extension sent");
	expect(s, "EXTEND_TIMEOUT_USEC=900000000", "extension in microseconds");
	expect_nothing(s, "exactly one datagram per call");

	/* 3. Odd periods: 1 µs still pings (1 ms), 3 s → 1500 ms. */
	set_watchdog("1", (long)getpid());
	notify_init();
	T_EQ_I(notify_watchdog_interval_ms(), 1, "WATCHDOG_USEC=1: period floors at 1 ms");
	set_watchdog("3000000", (long)getpid());
	notify_init();
	T_EQ_I(notify_watchdog_interval_ms(), 1500, "WATCHDOG_USEC=3000000: 1500 ms");

	/* 4. Watchdog variables meant for another process (inherited from a parent). */
	set_watchdog("6000000", (long)getpid() + 1);
	T_EQ_I(notify_init(), 1, "foreign WATCHDOG_PID: notify still enabled");
	T_EQ_I(notify_watchdog_interval_ms(), 0, "foreign WATCHDOG_PID: no watchdog");
	notify_watchdog();
	expect_nothing(s, "foreign WATCHDOG_PID: watchdog sends nothing");
	notify_ready();
	expect(s, "READY=1", "foreign WATCHDOG_PID: ready still sent");

	/* 5. No WatchdogSec=: no watchdog, no pings. */
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	notify_init();
	T_EQ_I(notify_watchdog_interval_ms(), 0, "no WATCHDOG_USEC: no watchdog");
	notify_watchdog();
	expect_nothing(s, "no WATCHDOG_USEC: watchdog sends nothing");

	/* 6. The manager went away: a send error is reported, not fatal. */
	close(s);
	unlink(path);
	notify_init();
	T_EQ_I(notify_ready(), -1, "socket gone: ready reports failure");
	T_EQ_I(notify_status("x"), -1, "socket gone: status reports failure");

	rmdir(dir);
	T_DONE();
}
