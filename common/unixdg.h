/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unixdg: one datagram to an AF_UNIX socket named by path, the way systemd
 * is spoken to: sd_notify(3) messages to $NOTIFY_SOCKET and native journal
 * entries to /run/systemd/journal/socket.  Two system calls and no library:
 * the daemon's core does not map libsystemd (and the libraries it pulls in)
 * for what is a sendto(2).
 */
#ifndef FPUSOAK_UNIXDG_H
#define FPUSOAK_UNIXDG_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

/* A socket name: a path, or "@name" for the abstract namespace (as $NOTIFY_SOCKET may say). */
struct unixdg_addr {
	struct sockaddr_un sa;
	socklen_t len;
};

/* Parse a socket name into *out; 0, or -1 if empty, relative or too long. Pure. */
int unixdg_addr_parse(const char *name, struct unixdg_addr *out);

/* An unbound datagram socket to send from (CLOEXEC); the fd or -1 with errno. */
int unixdg_socket(void);

/* Send buf[0..len) to a as one datagram without blocking; 0, or -1 with errno. */
int unixdg_send(int fd, const struct unixdg_addr *a, const void *buf, size_t len);

#endif
