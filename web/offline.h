/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * offline: the run and compare reports as one self-contained HTML file
 * (fpusoakd report).  The pages are rendered by the same code the server
 * uses (page_run, page_compare_runs) with the request marked offline: no
 * navigation, window form or links back to a server; the inline CSS and
 * SVG need nothing else, so the file can be attached to a mail or a bug.
 * The store handle is read-only: rendering works while a daemon writes.
 */
#ifndef FPUSOAK_OFFLINE_H
#define FPUSOAK_OFFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "report/read.h"

/* Render the report of run run_id of database d of set into out (sb_init'ed by the caller): 0, 1 if there is no such run, -1 with err set. */
int offline_run(const struct query_set *set, int d, int64_t run_id, struct strbuf *out, char *err, size_t errlen);

/* Render the comparison of run b (database db of set) against run a (database da): 0, 1 if either run does not exist (err names it), -1 with err set. */
int offline_compare(const struct query_set *set, int da, int64_t a, int db, int64_t b, struct strbuf *out, char *err,
		    size_t errlen);

#endif
