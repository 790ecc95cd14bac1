/* SPDX-License-Identifier: GPL-2.0-only */
/* sdlisten: systemd's socket activation without libsystemd; see sdlisten.h. */
#include "common/sdlisten.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/num.h"

int sdlisten_count(const char *listen_pid, const char *listen_fds, long pid)
{
	uint64_t p, n;

	if (!listen_pid || !listen_fds)
		return 0;
	if (num_parse_u64(listen_pid, strlen(listen_pid), &p) < 0 || num_parse_u64(listen_fds, strlen(listen_fds), &n) < 0 ||
	    n > 1024)
		return -1;
	return p == (uint64_t)pid ? (int)n : 0;
}

/* A listening SOCK_STREAM socket (sd_is_socket(fd, AF_UNSPEC, SOCK_STREAM, 1)). */
static int is_listening_stream(int fd)
{
	struct stat st;
	int type = 0, acc = 0;
	socklen_t l1 = sizeof type, l2 = sizeof acc;

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l1) == 0 && type == SOCK_STREAM &&
	       getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l2) == 0 && acc;
}

int sdlisten_take(char *err, size_t errlen)
{
	int n = sdlisten_count(getenv("LISTEN_PID"), getenv("LISTEN_FDS"), (long)getpid());

	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (n == 0)
		return -1;
	if (n < 0) {
		snprintf(err, errlen, "malformed LISTEN_PID/LISTEN_FDS from the service manager");
		return -2;
	}
	/* Passed fds arrive without CLOEXEC: ours now, and no exec'd child inherits them by accident. */
	for (int fd = SDLISTEN_FD; fd < SDLISTEN_FD + n; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (n > 1)
		log_warnx("http: systemd passed %d sockets; using the first", n);
	if (!is_listening_stream(SDLISTEN_FD)) {
		snprintf(err, errlen, "fd %d from systemd is not a listening stream socket", SDLISTEN_FD);
		return -2;
	}
	return SDLISTEN_FD;
}
