/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * serve: `fpusoakd serve`, the report of one or more databases over HTTP,
 * read-only, without a daemon.
 *
 *   fpusoakd serve --db PATH [--db PATH...] [--listen ADDR:PORT] [--threads N]
 *                  [--log-level LEVEL]
 *
 * The same routes as the daemon's server (web/server.h); no run is
 * started and nothing is written: every database is opened read-only and,
 * while no writer has it, as an immutable file (store/reader.c), so a DB
 * copied from a guest, a read-only file and a DB a live daemon is writing
 * all work, and none of them changes.  With more than one --db, runs are
 * NAME:ID (common/runref.h) in every page, link and API path.
 *
 * A socket handed over the systemd way (LISTEN_FDS=1, LISTEN_PID, fd 3) is
 * served instead of binding --listen.  Ready is READY=1 on $NOTIFY_SOCKET
 * (when set) and one line "fpusoakd serve: http://ADDR:PORT/ ..." on stderr.
 * SIGTERM or SIGINT stop it (exit 0) once requests in progress are done.
 *
 * It is also the daemon's web process (cmd/front.h), run with the daemon's
 * one --db and three flags no user needs: --listen-fd N (the socket the
 * core bound and keeps), --live-fd N (the core's snapshot, daemon/live.h:
 * /metrics, the status line and /healthz come from there, and /healthz
 * ages with the core's health) and --ready-fd N (one byte once it serves).
 * Either way it gives up, before its first thread, what the core keeps:
 * capabilities, new privileges, most system calls (web/sandbox.h), and an
 * oom_score_adj below 0; and it hands back the file pages it loaded but
 * does not run (daemon/pin.h) once it serves.
 * Exit: 0; 1 a database cannot be read (or the server does not start); 64
 * bad arguments; 69 the address cannot be bound (in use, not on this host).
 */
#ifndef FPUSOAK_SERVE_H
#define FPUSOAK_SERVE_H

/* Run `fpusoakd serve` (argv[0] is "serve"); the exit status. */
int serve_main(int argc, char **argv);

#endif
