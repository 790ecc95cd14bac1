/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import: the `fpusoakd import` subcommand, run by the core's program (cmd/main.c).  It writes a
 * database (store_import), so it is a program's entry, not a renderer: cli/ only reads.
 */
#ifndef FPUSOAK_IMPORT_H
#define FPUSOAK_IMPORT_H

/* `fpusoakd import --db TARGET SOURCE...` (argv[0] is "import"): exit 0, 1 (a source or the target failed), 64. */
int import_main(int argc, char **argv);

#endif
