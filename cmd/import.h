/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import: the `fpusoakd import` and `fpusoakd upgrade` subcommands, run by the core's program
 * (cmd/main.c).  They write a database (store_import, store_upgrade), so they are a program's entries,
 * not renderers: cli/ only reads.
 */
#ifndef FPUSOAK_IMPORT_H
#define FPUSOAK_IMPORT_H

/* `fpusoakd import --db TARGET SOURCE...` (argv[0] is "import"): exit 0, 1 (a source or the target failed), 64. */
int import_main(int argc, char **argv);

/* `fpusoakd upgrade --db FILE` (argv[0] is "upgrade"): migrate FILE in place, a backup first, no run added;
 * exit 0 (upgraded, or nothing to do), 1, 64. */
int upgrade_main(int argc, char **argv);

#endif
