/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netaddr: listen addresses ("127.0.0.1:8089", "[::1]:8089") parsed and bound.
 *
 * The daemon checks --listen whole when it reads its flags and binds the
 * socket before it writes anything, so a bad or busy address costs no run
 * row; the HTTP server then serves on the socket it was handed.
 */
#ifndef FPUSOAK_NETADDR_H
#define FPUSOAK_NETADDR_H

#include <stddef.h>
#include <sys/socket.h>

/* Parse "ADDR:PORT" or "[ADDR6]:PORT" (numeric, port 0..65535) into *ss; 0, 1 for "none", -1 if malformed. Pure. */
int netaddr_parse(const char *s, struct sockaddr_storage *ss, socklen_t *sslen);

/* Port of a parsed address. */
unsigned netaddr_port(const struct sockaddr_storage *ss);

/* Bind and listen on s (SO_REUSEADDR, CLOEXEC; "[::]" is dual stack); the fd, or -1 with errno and why in err. */
int netaddr_listen(const char *s, char *err, size_t errlen);

#endif
