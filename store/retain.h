/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * retain: raw rows older than --retain-raw deleted in bounded slices, one transaction per call, never
 * past what the minute rollup has consumed.  Included by the writer's files in store/ only.
 */
#ifndef FPUSOAK_RETAIN_H
#define FPUSOAK_RETAIN_H

#include <sqlite3.h>
#include <stdint.h>

#include "store/dims.h"
#include "store/statements.h"

/* Delete one slice of raw rows before cutoff_ms (the oldest run first); rows deleted, 0 when there was
 * nothing to do, -1 on error (rolled back). */
int64_t retain(sqlite3 *db, struct stmts *p, const struct dims *d, int64_t cutoff_ms);

#endif
