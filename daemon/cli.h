/*
 * cli: the offline subcommands, run instead of the daemon.
 *
 *   fpusoakd report  --db PATH (--run ID | --compare A B) --out FILE.html
 *   fpusoakd summary --db PATH (--run ID | --compare A B)
 *
 * report writes the same report the web server shows (web/offline.h: the
 * same page code) as one self-contained HTML file; summary prints plain
 * text of at most CLI_COLS columns for a mailing-list reply: the
 * environment, headline figures and the verdict lines (web/report.h, the
 * same figures as the pages).  Both open the database read-only, so they
 * work while a daemon writes to it.  Exit: 0; 1 when the database cannot
 * be read or a run does not exist; 64 for bad arguments.
 */
#ifndef FPUSOAK_CLI_H
#define FPUSOAK_CLI_H

#define CLI_COLS 72

/* Run a subcommand: argv[0] is "report" or "summary"; returns the exit status. */
int cli_main(int argc, char **argv);

#endif
