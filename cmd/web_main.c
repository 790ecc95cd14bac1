/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpusoakd-web: the web process, and the subcommands that render HTML.
 *
 *   fpusoakd-web serve ...            (cmd/serve.h)
 *   fpusoakd-web report|summary ...   (cli/cli.h)
 *
 * Users reach it as `fpusoakd serve` and `fpusoakd report`, which exec this
 * program (cmd/main.c), and the daemon runs `serve` as its supervised web
 * process (cmd/front.h).  It is a program of its own because the daemon's
 * core locks every page it maps: the core must not map libmicrohttpd,
 * cJSON or the TLS libraries Debian's libmicrohttpd pulls in (issue 20).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/serve.h"
#include "web/offline.h"

int main(int argc, char **argv)
{
	static const struct cli_html html = { offline_run, offline_compare };

	if (argc > 1 && (!strcmp(argv[1], "report") || !strcmp(argv[1], "summary")))
		return cli_main(argc - 1, argv + 1, &html);
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return serve_main(argc - 1, argv + 1);
	fprintf(stderr, "usage: fpusoakd-web serve|report|summary ... (run as `fpusoakd serve`, `fpusoakd report`)\n");
	return 64;
}
