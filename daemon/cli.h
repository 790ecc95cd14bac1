/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli: the offline subcommands, run instead of the daemon.
 *
 *   fpusoakd report  --db PATH [--db PATH...] (--run RUN | --compare A B) --out FILE.html
 *   fpusoakd summary --db PATH [--db PATH...] (--run RUN | --compare A B)
 *   fpusoakd import  --db TARGET SOURCE.db...   (cli_import.c)
 *   fpusoakd upgrade --db FILE                  (cli_import.c)
 * The comparison's text of summary is cli_verdict.c's.
 *
 * A run is "ID", or "NAME:ID" with more than one --db (common/runref.h).
 *
 * report writes the same report the web server shows as one self-contained
 * HTML file, rendered by the page code it is handed (struct cli_html:
 * web/offline.h, wired in by cmd/main.c); summary prints plain text of at
 * most CLI_COLS columns for a mailing-list reply: the environment, headline
 * figures and the verdict lines, all computed by report/ (the same figures
 * as the pages).  Both open the database read-only, so they work while a
 * daemon writes to it.  Exit: 0; 1 when the database cannot be read or a
 * run does not exist; 64 for bad arguments.
 */
#ifndef FPUSOAK_CLI_H
#define FPUSOAK_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "store/query.h"

#define CLI_COLS 72

/* The HTML renderer of `fpusoakd report` (web/offline.h): runs are given by database (index in set) and id;
 * each returns 0, 1 if a run does not exist (err names it), -1 with err set. */
struct cli_html {
	int (*run)(const struct query_set *set, int d, int64_t run_id, struct strbuf *out, char *err, size_t errlen);
	int (*compare)(const struct query_set *set, int da, int64_t a, int db, int64_t b, struct strbuf *out, char *err,
		       size_t errlen);
};

/* Run a subcommand (argv[0] is "report" or "summary") with html as report's renderer; the exit status. */
int cli_main(int argc, char **argv, const struct cli_html *html);

struct report_cmp;

/* The summary's line printer (cli.c): printf-style, folded at words to CLI_COLS, printable ASCII only. */
typedef void (*cli_put_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What differs between the compared runs, printed first (cli_verdict.c). */
void cli_verdict_differs(const struct report_cmp *c, cli_put_fn put);

/* Whose failures, the pair's comparability, one verdict line per comparison with its caveats and attribution,
 * and the tests used (cli_verdict.c). */
void cli_verdict_lines(const struct report_cmp *c, cli_put_fn put);

/* `fpusoakd import --db TARGET SOURCE...` (argv[0] is "import", cli_import.c): exit 0, 1 (a source or the target failed), 64. */
int cli_import_main(int argc, char **argv);

/* `fpusoakd upgrade --db FILE` (argv[0] is "upgrade"): migrate FILE in place, a backup first, no run added;
 * exit 0 (upgraded, or nothing to do), 1, 64. */
int cli_upgrade_main(int argc, char **argv);

#endif
