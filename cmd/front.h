/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * front: the daemon's front end today — the web server (web/server.h) in
 * the daemon's process, wired to the daemon through struct daemon_hooks.
 *
 * bind claims the listening socket before the daemon starts anything (a
 * socket systemd passes is left to the server); open starts the server on
 * the daemon's DB and that socket (nothing for --listen none); sample builds the /metrics exposition from each sample
 * (web/metrics.h) and publishes it; status hands over the status line and
 * the sampler's health for / and /healthz; close stops the server.  The
 * daemon never sees an HTTP type.
 */
#ifndef FPUSOAK_FRONT_H
#define FPUSOAK_FRONT_H

#include "daemon/daemon.h"

struct web_server;

/* The web front end's state; zero-initialised before front_hooks. */
struct front {
	struct web_server *ws;        /* NULL until open, or with --listen none */
	int listen_fd;                /* bound by bind, handed to the server by open; -1 none (set by front_hooks) */
	int metrics_err_logged;
};

/* Fill h with the hooks of the web front end f. */
void front_hooks(struct front *f, struct daemon_hooks *h);

#endif
