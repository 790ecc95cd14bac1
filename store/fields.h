/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fields: the per-tick scalar columns of the samples table, one list shared
 * by the writer (store/statements.c, tick.c, write.c), the reader (store/read_*.c)
 * and schema/005_compact.sql (006_change_only.sql for the vmstat columns);
 * and the per-order columns o0..o15 of the zone tables.
 *
 * meminfo is stored as one wide row per tick, not one row per field: 18
 * fields that move every second cost ~80 bytes as columns against ~330 as
 * (run, name, ts, value) rows, and a tick dirties one B-tree page instead of
 * eighteen.  v_meminfo turns the columns back into (name, value_kb) rows.
 * A test checks this list against the table's columns.
 */
#ifndef FPUSOAK_FIELDS_H
#define FPUSOAK_FIELDS_H

#include <string.h>

/* X(index, /proc/meminfo name, samples column) */
#define STORE_MEMINFO_FIELDS(X) \
	X(0, "MemTotal", mem_total) \
	X(1, "MemFree", mem_free) \
	X(2, "MemAvailable", mem_available) \
	X(3, "Buffers", buffers) \
	X(4, "Cached", cached) \
	X(5, "SwapFree", swap_free) \
	X(6, "AnonPages", anon_pages) \
	X(7, "Shmem", shmem) \
	X(8, "Slab", slab) \
	X(9, "SReclaimable", s_reclaimable) \
	X(10, "SUnreclaim", s_unreclaim) \
	X(11, "KernelStack", kernel_stack) \
	X(12, "PageTables", page_tables) \
	X(13, "Committed_AS", committed_as) \
	X(14, "Percpu", percpu) \
	X(15, "AnonHugePages", anon_huge_pages) \
	X(16, "HugePages_Free", huge_pages_free) \
	X(17, "CmaFree", cma_free)

#define STORE_NMEMINFO 18

/* X(index, samples column): the churn accounting of the interval ending at the tick (v_churn):
 * the population at the tick, the counts of the interval (STORE_CHURN_COUNTS), then the capacity
 * probe's workers alive at the tick (schema 7). */
#define STORE_CHURN_FIELDS(X) STORE_CHURN_FIELDS2(X, X)
#define STORE_CHURN_COUNTS(X) STORE_CHURN_COUNTS2(X, X)

/*
 * The same lists with S applied to the columns kept in the samples row and R to the rare ones, which
 * are zero in nearly every tick and live in churn_rare, a row only for a tick where one is not
 * (schema 019): as samples columns they cost a byte each a tick even when zero.
 */
#define STORE_CHURN_FIELDS2(S, R) \
	S(0, population) \
	STORE_CHURN_COUNTS2(S, R) \
	R(23, probe_population)

#define STORE_CHURN_COUNTS2(S, R) \
	S(1, spawned) \
	R(2, spawn_failed_eagain) \
	R(3, spawn_failed_enomem) \
	R(4, spawn_failed_other) \
	S(5, exited) \
	R(6, killed_sigkill) \
	R(7, killed_sigsegv) \
	R(8, killed_sigill) \
	R(9, killed_other) \
	R(10, oom_killed) \
	R(11, exited_error) \
	R(12, killed_ours) \
	R(13, probe_spawned) \
	R(14, probe_spawn_failed) \
	R(15, probe_exited) \
	R(16, probe_killed_sigkill) \
	R(17, probe_killed_other) \
	R(18, probe_oom_killed) \
	R(19, probe_killed_ours) \
	R(20, oom_unattributed) \
	R(21, gfp_failed) \
	R(22, probe_gfp_failed)

/* Columns 12.. came with schema 7 (every death counted once), 21.. with schema 9 (--gfp-mode);
 * older rows hold NULL there. */
#define STORE_NCHURN 24
#define STORE_NCHURN_RARE 21

/* The request verdicts of a tick (schema 7, v_atomic_request), after the hot vmstat columns. */
#define STORE_REQUEST_COLS "req_norders, req_atomic_mask, req_nowait_mask, req_kernel_mask, req_zones_lo, req_zones_hi"
#define STORE_NREQUEST 6
#define STORE_REQ_NO_ZONE 255    /* a packed zone_id: the request passes in no zone */

/*
 * X(order): the per-order columns of a zone row, o0..o15 in buddy and
 * pagetype_free, f/h/u0..15 in buddy_wide_rollup (BUDDY_MAX_ORDER,
 * PAGETYPEINFO_MAX_ORDER and ROLLUP_MAX_ORDER are all 16).
 */
#define STORE_ORDERS(X) \
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

#define STORE_NORDERS 16

/*
 * X(index, /proc/vmstat name, samples column): the counters that move nearly
 * every tick under churn (schema 006).  As (run, name, ts, value) rows they
 * cost ~21 bytes each per tick; as columns ~6.  Stored at every tick the
 * kernel prints them (NULL where it does not: pgalloc_dma32 on a guest
 * without that zone); v_vmstat shows them as rows, one per tick.
 */
#define STORE_VMSTAT_HOT(X) \
	X(0, "pgalloc_dma32", pgalloc_dma32) \
	X(1, "pgalloc_normal", pgalloc_normal) \
	X(2, "pgfree", pgfree) \
	X(3, "pgfault", pgfault)

#define STORE_NVMHOT 4

/* The index of a vmstat counter kept as a samples column (STORE_VMSTAT_HOT), or -1. */
static inline int store_vmstat_hot(const char *name)
{
#define X_HOTNAME(i, name, col) name,
	static const char *const hot[STORE_NVMHOT] = { STORE_VMSTAT_HOT(X_HOTNAME) };
#undef X_HOTNAME
	for (int k = 0; k < STORE_NVMHOT; k++)
		if (strcmp(name, hot[k]) == 0)
			return k;
	return -1;
}

#endif
