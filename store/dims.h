/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dims: the writer's dimension tables, interned in memory: every name (a vmstat counter, a meminfo
 * field, a counter of ours, a migrate type, a slab cache) and every zone gets a small id the rows carry
 * instead of text; new ones are written (names, zones) with the transaction that first uses them.
 * Included by the writer's files in store/ only.
 */
#ifndef FPUSOAK_DIMS_H
#define FPUSOAK_DIMS_H

#include <sqlite3.h>
#include <stdint.h>

#include "store/statements.h"
#include "store/store.h"

#define MAX_NAMES 1024
#define MAX_ZONES 256

/* Where an interned name comes from (the names table's source column: store_src_names). */
enum kv_src { SRC_VMSTAT, SRC_MEMINFO, SRC_COUNTER, SRC_MIGRATETYPE, SRC_SLAB, NSRC };

extern const char *const store_src_names[NSRC];

struct name_ent {
	char name[KV_NAME_MAX];
	uint8_t src;
	uint8_t persisted;
	uint8_t have_last;   /* change detection (vmstat, counters) */
	uint64_t last;
	int64_t last_run;    /* counters: a new run stores its first value */
};

struct zone_ent {
	int node;
	char name[ZONE_NAME_MAX];
	uint8_t persisted;
};

struct dims {
	struct name_ent names[MAX_NAMES];
	int nnames;
	struct zone_ent zones[MAX_ZONES];
	int nzones;
};

/* Read the names and zones db has (after its migrations); 0, or -1 (sqlite3_errmsg says why). */
int dims_load(struct dims *d, sqlite3 *db);

/* Interned id of (src, name); a new one is written by the next dims_write.  -1 when the table is full. */
int dims_name(struct dims *d, uint8_t src, const char *name);

/* Interned id of (node, zone name), the same way; -1 when full. */
int dims_zone(struct dims *d, int node, const char *name);

/* Write the names and zones interned since the last dims_committed; SQLITE_OK or the error code. */
int dims_write(const struct dims *d, struct stmts *s);

/* The transaction that wrote them committed: they are in the database now. */
void dims_committed(struct dims *d);

#endif
