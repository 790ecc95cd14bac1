/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpusoakd-spawner: the churn spawner as a small static executable.
 *
 * Not run by hand: the daemon forks, then execs this with its config in a
 * memfd (spawner/spawner_exec.c).  Static, so its address space is its own
 * code and data and nothing else: every worker is a fork of it, and fork
 * and exit cost grows with each mapping the forking process has.  The
 * switch probe execs /proc/self/exe, i.e. this file, hence the first call.  The fragmenting
 * load (fragload/fragload.h) runs as this file too, with --internal-fragment.
 */
#include <stdio.h>

#include "fragload/fragload.h"
#include "spawner/probe.h"
#include "spawner/spawner.h"

int main(int argc, char **argv)
{
	probe_switch_exec_main(argc, argv);
	spawner_exec_main(argc, argv);
	fragload_exec_main(argc, argv);
	fprintf(stderr, "fpusoakd-spawner: an internal helper of fpusoakd(8), started by the daemon; not run by hand\n");
	return 64;
}
