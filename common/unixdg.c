/* SPDX-License-Identifier: GPL-2.0-only */
/* unixdg: datagrams to AF_UNIX sockets by name; see unixdg.h. */
#include "common/unixdg.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int unixdg_addr_parse(const char *name, struct unixdg_addr *out)
{
	size_t n = name ? strlen(name) : 0;

	memset(out, 0, sizeof *out);
	out->sa.sun_family = AF_UNIX;
	if (n < 2 || (name[0] != '/' && name[0] != '@') || n > sizeof out->sa.sun_path - (name[0] == '/'))
		return -1;
	memcpy(out->sa.sun_path, name, n);
	if (name[0] == '@') {
		/* Abstract: a leading NUL, and the length counts the name exactly (no terminator). */
		out->sa.sun_path[0] = '\0';
		out->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else
		out->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

int unixdg_socket(void)
{
	return socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

int unixdg_send(int fd, const struct unixdg_addr *a, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = sendto(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)&a->sa, a->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}
