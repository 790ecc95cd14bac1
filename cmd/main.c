/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpusoakd: soak a Linux guest with FPU-using processes and record memory
 * fragmentation.  main() picks what this run of the program is: the churn
 * engine's FPU-cost probe child, `summary`, `import` and `upgrade` (daemon/cli.h), `serve` and
 * `report`, which are the web executable's (fpusoakd-web, exec'd in place,
 * git-style), or the daemon's core (daemon/daemon.h) with the supervised
 * web process as its front end (front.h).
 *
 * This executable is the core that locks itself in memory (issue 20): it
 * links SQLite, inih and libc, and nothing that serves HTTP or JSON.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "churn/probe.h"
#include "cmd/front.h"
#include "common/helper.h"
#include "daemon/cli.h"
#include "daemon/daemon.h"

/*
 * glibc's per-thread cache (tcache) keeps up to 7 freed chunks of every small size for reuse and never
 * hands them back, not even to malloc_trim: when the core lets go of SQLite for a guest-scope fill
 * (daemon/quiet.c), 357 of the 583 KB left in its locked heap were freed chunks held there (measured
 * on the host; 226 KB in use without it).  The core runs without it, at no CPU cost we could measure
 * (sampler_bench, bench/RESULTS.md).  The tunable is read at exec only: set it and exec ourselves,
 * once, before anything else happens (the PID, fds and environment, LISTEN_* included, stay).
 */
static void without_tcache(char **argv)
{
	const char *t = getenv("GLIBC_TUNABLES");
	char buf[1024];

	if (t && strstr(t, CORE_TUNABLE)) {
		/* Re-exec'd through /proc/self/exe, the kernel named us "exe" (ps, top, systemctl status): our name back. */
		char comm[16] = "";
		const char *base = strrchr(argv[0], '/');
		if (prctl(PR_GET_NAME, comm) == 0 && strcmp(comm, "exe") == 0)
			prctl(PR_SET_NAME, base ? base + 1 : argv[0]);
		return;
	}
	if ((size_t)snprintf(buf, sizeof buf, "%s%s%s", t ? t : "", t ? ":" : "", CORE_TUNABLE) >= sizeof buf ||
	    setenv("GLIBC_TUNABLES", buf, 1) < 0)
		return;
	execv("/proc/self/exe", argv);
	/* No /proc, or a seccomp filter: run with the cache, a few hundred KB more. */
}

/* `fpusoakd serve|report ...` is `fpusoakd-web serve|report ...`: exec it; returns only on failure. */
static int web_exec(char **argv)
{
	char path[PATH_MAX];

	if (!helper_path("fpusoakd-web", path, sizeof path)) {
		fprintf(stderr, "fpusoakd: %s needs fpusoakd-web, which is neither beside this executable nor in %s\n",
			argv[1], FPUSOAK_LIBEXECDIR);
		return 69;   /* EX_UNAVAILABLE */
	}
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "fpusoakd: cannot run %s: %s\n", path, strerror(errno));
	return 69;
}

int main(int argc, char **argv)
{
	static struct front front;
	struct daemon_hooks hooks;

	/* The churn engine's switch-probe child runs as a fresh exec of this program (churn/probe.h). */
	probe_switch_exec_main(argc, argv);
	if (argc > 1 && (!strcmp(argv[1], "serve") || !strcmp(argv[1], "report")))
		return web_exec(argv);
	if (argc > 1 && !strcmp(argv[1], "summary"))
		return cli_main(argc - 1, argv + 1, NULL);
	if (argc > 1 && !strcmp(argv[1], "import"))
		return cli_import_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "upgrade"))
		return cli_upgrade_main(argc - 1, argv + 1);
	without_tcache(argv);
	front_hooks(&front, &hooks);
	return daemon_main(argc, argv, &hooks);
}
