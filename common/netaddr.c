/* SPDX-License-Identifier: GPL-2.0-only */
/* netaddr: parse and bind listen addresses; see netaddr.h. */
#include "common/netaddr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/num.h"

int netaddr_parse(const char *s, struct sockaddr_storage *ss, socklen_t *sslen)
{
	char host[64];
	const char *colon;
	uint64_t port;
	size_t hl;

	if (!s)
		return -1;
	if (strcmp(s, "none") == 0)
		return 1;
	memset(ss, 0, sizeof *ss);
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
		if (!close || close[1] != ':' || (hl = (size_t)(close - s - 1)) == 0 || hl >= sizeof host)
			return -1;
		memcpy(host, s + 1, hl);
		host[hl] = '\0';
		colon = close + 1;
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			return -1;
		a6->sin6_family = AF_INET6;
		*sslen = sizeof *a6;
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
		if (!(colon = strrchr(s, ':')) || (hl = (size_t)(colon - s)) == 0 || hl >= sizeof host)
			return -1;
		memcpy(host, s, hl);
		host[hl] = '\0';
		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return -1;
		a4->sin_family = AF_INET;
		*sslen = sizeof *a4;
	}
	if (num_parse_u64(colon + 1, strlen(colon + 1), &port) < 0 || port > 65535)
		return -1;
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	return 0;
}

unsigned netaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

int netaddr_listen(const char *s, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int fd, one = 1, zero = 0, e;

	if (netaddr_parse(s, &ss, &len) != 0) {
		snprintf(err, errlen, "cannot listen on %s: not ADDR:PORT or [ADDR6]:PORT", s ? s : "");
		errno = EINVAL;
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/* As libmicrohttpd does for its own sockets: a restart must not wait for TIME_WAIT to pass. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
		goto fail;
	/* "[::]" means every address, IPv4 included, whatever net.ipv6.bindv6only says. */
	if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr) &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) < 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, SOMAXCONN) < 0)
		goto fail;
	return fd;
fail:
	e = errno;
	snprintf(err, errlen, "cannot listen on %s: %s", s, strerror(e));
	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}
