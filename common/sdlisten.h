/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sdlisten: a listening socket passed by systemd's socket activation
 * (sd_listen_fds(3): LISTEN_PID, LISTEN_FDS, the fds from 3 on), read
 * without libsystemd.  The variables are consumed, so a child or a second
 * call never takes the socket twice.
 */
#ifndef FPUSOAK_SDLISTEN_H
#define FPUSOAK_SDLISTEN_H

#include <stddef.h>

#define SDLISTEN_FD 3   /* SD_LISTEN_FDS_START */

/* Parse LISTEN_PID/LISTEN_FDS for process pid: how many fds were passed (0: none, or meant for
 * another process), -1 if malformed. Pure. */
int sdlisten_count(const char *listen_pid, const char *listen_fds, long pid);

/*
 * Take the first passed socket: SDLISTEN_FD (made CLOEXEC) when it is a listening stream socket,
 * -1 when nothing was passed to us, -2 with why in err when something was but it is not usable.
 * Unsets LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES either way.
 */
int sdlisten_take(char *err, size_t errlen);

#endif
