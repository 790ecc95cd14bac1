/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpusoakd: soak a Linux guest with FPU-using processes and record memory
 * fragmentation.  main() picks what this run of the program is and wires
 * the parts together: the churn engine's FPU-cost probe child, the offline
 * subcommands (daemon/cli.h, with web/offline.h rendering `report`), the
 * read-only report server `serve` (serve.h), or the daemon (daemon/daemon.h)
 * with the web server as its front end (front.h).
 */
#include <string.h>

#include "churn/probe.h"
#include "cmd/front.h"
#include "cmd/serve.h"
#include "daemon/cli.h"
#include "daemon/daemon.h"
#include "web/offline.h"

int main(int argc, char **argv)
{
	static const struct cli_html html = { offline_run, offline_compare };
	static struct front front;
	struct daemon_hooks hooks;

	/* The churn engine's switch-probe child runs as a fresh exec of this program (churn/probe.h). */
	probe_switch_exec_main(argc, argv);
	if (argc > 1 && (!strcmp(argv[1], "report") || !strcmp(argv[1], "summary")))
		return cli_main(argc - 1, argv + 1, &html);
	if (argc > 1 && !strcmp(argv[1], "import"))
		return cli_import_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return serve_main(argc - 1, argv + 1);
	front_hooks(&front, &hooks);
	return daemon_main(argc, argv, &hooks);
}
