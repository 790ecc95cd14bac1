/* SPDX-License-Identifier: GPL-2.0-only */
/* test_netaddr: listen addresses parsed by hand-checked cases; bind, and a port in use. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/netaddr.h"
#include "test.h"

static void test_parse(void)
{
	static const struct { const char *s; int rc; int family; unsigned port; } cases[] = {
		{ "127.0.0.1:8089", 0, AF_INET, 8089 },
		{ "0.0.0.0:1", 0, AF_INET, 1 },
		{ "127.0.0.1:65535", 0, AF_INET, 65535 },
		{ "127.0.0.1:0", 0, AF_INET, 0 },          /* the caller decides whether 0 is allowed */
		{ "[::1]:8089", 0, AF_INET6, 8089 },
		{ "[::]:80", 0, AF_INET6, 80 },
		{ "none", 1, 0, 0 },
		{ "127.0.0.1:65536", -1, 0, 0 },
		{ "127.0.0.1:99999", -1, 0, 0 },
		{ "127.0.0.1:", -1, 0, 0 },
		{ "127.0.0.1:+80", -1, 0, 0 },
		{ "127.0.0.1:080", -1, 0, 0 },
		{ "127.0.0.1: 80", -1, 0, 0 },
		{ ":80", -1, 0, 0 },
		{ "8089", -1, 0, 0 },
		{ "localhost:8089", -1, 0, 0 },
		{ "1.2.3:80", -1, 0, 0 },
		{ "[::1:80", -1, 0, 0 },
		{ "[::1]80", -1, 0, 0 },
		{ "[]:80", -1, 0, 0 },
		{ "::1:80", -1, 0, 0 },
		{ "", -1, 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sockaddr_storage ss;
		socklen_t len = 0;
		int rc = netaddr_parse(cases[i].s, &ss, &len);
		T_EQ_I(rc, cases[i].rc, "parse \"%s\"", cases[i].s);
		if (rc == 0 && cases[i].rc == 0) {
			T_EQ_I(ss.ss_family, cases[i].family, "\"%s\": family", cases[i].s);
			T_EQ_I(netaddr_port(&ss), cases[i].port, "\"%s\": port", cases[i].s);
			T_EQ_I(len, cases[i].family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6),
			       "\"%s\": length", cases[i].s);
		}
	}
	T_EQ_I(netaddr_parse(NULL, NULL, NULL), -1, "NULL: -1");
}

static void test_listen(void)
{
	char err[256] = "", addr[64];
	struct sockaddr_in a;
	socklen_t al = sizeof a;
	int fd = netaddr_listen("127.0.0.1:0", err, sizeof err), fd2;

	T_CHECK(fd >= 0, "bind 127.0.0.1:0 (%s)", fd >= 0 ? "ok" : err);
	if (fd < 0)
		return;
	T_CHECK(getsockname(fd, (struct sockaddr *)&a, &al) == 0 && a.sin_port != 0, "the kernel chose a port");
	snprintf(addr, sizeof addr, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
	fd2 = netaddr_listen(addr, err, sizeof err);
	T_CHECK(fd2 < 0 && errno == EADDRINUSE, "the same port again: EADDRINUSE");
	T_CHECK(strstr(err, addr) && strstr(err, "Address already in use"), "and the message names it: %s", err);
	if (fd2 >= 0)
		close(fd2);
	close(fd);
	fd = netaddr_listen("127.0.0.1:99999", err, sizeof err);
	T_CHECK(fd < 0 && errno == EINVAL, "a malformed address is not bound: %s", err);
}

int main(void)
{
	test_parse();
	test_listen();
	T_DONE();
}
