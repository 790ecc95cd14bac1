/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_unixdg: socket names as $NOTIFY_SOCKET gives them (paths, "@abstract")
 * and socket activation's LISTEN_PID/LISTEN_FDS (common/unixdg.h,
 * common/sdlisten.h), by cases worked out from sd_notify(3) and
 * sd_listen_fds(3); and a datagram sent to an abstract socket arrives.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/sdlisten.h"
#include "common/unixdg.h"
#include "tests/unit/test.h"

int main(void)
{
	struct unixdg_addr a;
	char longpath[200];
	int s, r;

	T_EQ_I(unixdg_addr_parse("/run/systemd/notify", &a), 0, "an absolute path parses");
	T_EQ_S(a.sa.sun_path, "/run/systemd/notify", "path copied");
	T_EQ_I(a.len, offsetof(struct sockaddr_un, sun_path) + strlen("/run/systemd/notify") + 1, "length counts the NUL");
	T_EQ_I(unixdg_addr_parse("@fpusoak-test", &a), 0, "an abstract name parses");
	T_CHECK(a.sa.sun_path[0] == 0 && memcmp(a.sa.sun_path + 1, "fpusoak-test", 12) == 0, "abstract: leading NUL, then the name");
	T_EQ_I(a.len, offsetof(struct sockaddr_un, sun_path) + 13, "abstract: length is exact, no terminator");
	T_EQ_I(unixdg_addr_parse("relative/path", &a), -1, "a relative path is refused");
	T_EQ_I(unixdg_addr_parse("", &a), -1, "an empty name is refused");
	T_EQ_I(unixdg_addr_parse("@", &a), -1, "a bare @ is refused");
	T_EQ_I(unixdg_addr_parse(NULL, &a), -1, "NULL is refused");
	memset(longpath, 'a', sizeof longpath - 1);
	longpath[0] = '/';
	longpath[sizeof longpath - 1] = 0;
	T_EQ_I(unixdg_addr_parse(longpath, &a), -1, "a path longer than sun_path is refused");

	/* One datagram over an abstract socket, as systemd's notify socket can be. */
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	unixdg_addr_parse("@fpusoak-test-unixdg", &a);
	if (s >= 0 && bind(s, (struct sockaddr *)&a.sa, a.len) == 0) {
		int out = unixdg_socket();
		char buf[64] = "";
		T_EQ_I(unixdg_send(out, &a, "READY=1", 7), 0, "send to an abstract socket");
		r = (int)recv(s, buf, sizeof buf - 1, MSG_DONTWAIT);
		T_EQ_I(r, 7, "one datagram of 7 bytes arrives");
		T_EQ_S(buf, "READY=1", "its text");
		close(out);
	} else
		T_SKIP("cannot bind an abstract unix socket here");
	if (s >= 0)
		close(s);

	T_EQ_I(sdlisten_count(NULL, NULL, 42), 0, "no LISTEN_*: nothing passed");
	T_EQ_I(sdlisten_count("42", "1", 42), 1, "LISTEN_PID ours, one fd");
	T_EQ_I(sdlisten_count("42", "3", 42), 3, "LISTEN_PID ours, three fds");
	T_EQ_I(sdlisten_count("41", "1", 42), 0, "LISTEN_PID of another process: not ours");
	T_EQ_I(sdlisten_count("42", NULL, 42), 0, "LISTEN_FDS missing: nothing");
	T_EQ_I(sdlisten_count("42", "x", 42), -1, "LISTEN_FDS not a number: malformed");
	T_EQ_I(sdlisten_count("4 2", "1", 42), -1, "LISTEN_PID with a space: malformed");
	T_EQ_I(sdlisten_count("42", "100000", 42), -1, "an absurd fd count: malformed");
	T_DONE();
}
