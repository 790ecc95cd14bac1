/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * webserve: fpusoakd's web server alone, on an existing database, for wrk.
 *
 * web_open() exactly as the daemon calls it (read-only store handles, the
 * default thread count and limits), no sampler and no writer: the report and
 * API latencies of a large history are measured without the daemon adding
 * a new run to it.  Prints "port=N" once listening; SIGTERM/SIGINT stop it.
 *
 *   webserve --db PATH [--listen 127.0.0.1:0]
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "web/server.h"

int main(int argc, char **argv)
{
	struct web_config wc = { .listen = "127.0.0.1:0", .version = "bench", .no_socket_activation = 1 };
	char err[512];
	sigset_t set;
	int sig;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--db"))
			wc.db_path = argv[i + 1];
		else if (!strcmp(argv[i], "--listen"))
			wc.listen = argv[i + 1];
	}
	if (!wc.db_path) {
		fprintf(stderr, "usage: webserve --db PATH [--listen ADDR:PORT]\n");
		return 64;
	}
	log_init(LOG_LVL_WARN);
	/* Block before web_open so its threads inherit the mask and only sigwait sees the signal. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	struct web_server *ws = web_open(&wc, err, sizeof err);
	if (!ws) {
		fprintf(stderr, "webserve: %s\n", err);
		return 1;
	}
	web_set_health(ws, 1);
	web_set_status(ws, "bench: serving a synthetic history");
	printf("port=%u\n", web_port(ws));
	fflush(stdout);
	sigwait(&set, &sig);
	web_close(ws);
	return 0;
}
