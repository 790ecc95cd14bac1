/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * front: the daemon's front end — the web process, run and supervised by
 * the core through the hooks of daemon/daemon.h.
 *
 * bind claims the listening socket (or takes systemd's, LISTEN_FDS) before
 * the daemon starts anything, and the core keeps it for its whole life; the
 * web process (fpusoakd-web serve, found beside the core or in LIBEXECDIR)
 * gets it at exec, with the live snapshot (daemon/live.h) the core writes
 * after every sample and status period.  A web process that dies (crash,
 * kill -9, OOM kill) is reaped through a pidfd the daemon's loop polls (a
 * SIGCHLD signalfd where pidfd_open is missing: Linux < 5.3, valgrind) and
 * started again at once, or after a growing pause when it keeps dying;
 * connections wait in the socket's backlog meanwhile.  The core never waits
 * for it except once at start (READY=1 promises that HTTP serves) and at
 * exit (2 s, then SIGKILL).
 *
 * open starts it (nothing for --listen none); sample and status write the
 * snapshot; fd/event reap and restart; quiet stops it for the length of a
 * guest-scope fill and starts it again after (daemon/quiet.c); close stops it.  The daemon never
 * sees an HTTP type, and the core maps no HTTP, JSON or TLS library.
 */
#ifndef FPUSOAK_FRONT_H
#define FPUSOAK_FRONT_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/daemon.h"

struct live;

/* The core runs without glibc's tcache (cmd/main.c); its web process gets its environment without it. */
#define CORE_TUNABLE "glibc.malloc.tcache_count=0"

/* The web front end's state; zero-initialised before front_hooks. */
struct front {
	struct live *live;           /* NULL until open, or with --listen none */
	int listen_fd;               /* the bound (or systemd-passed) socket, kept across restarts */
	pid_t child;                 /* the web process, 0 when none runs */
	int pidfd;                   /* its pidfd, -1 when none */
	int chldfd;                  /* without pidfd_open (Linux < 5.3, valgrind): a SIGCHLD signalfd, else -1 */
	int epfd, timerfd;           /* what the daemon's loop polls: the pidfd and the restart timer */
	int64_t started_mono_ms;     /* when the running child was started */
	int64_t backoff_ms;          /* pause before the next restart after a quick death */
	uint64_t restarts;
	int paused;                  /* stopped on purpose for a guest-scope fill (quiet): not restarted */
	char exe[PATH_MAX];          /* fpusoakd-web */
	char db[PATH_MAX];
	char listen[128];            /* the listen address, for the web process's messages */
	char log_level[16];
};

/* Fill h with the hooks of the web front end f. */
void front_hooks(struct front *f, struct daemon_hooks *h);

#endif
