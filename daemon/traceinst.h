/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * traceinst: fpusoakd's own tracefs instance itself — where tracefs is, whose
 * an instance is, what fpusoakd sets in its own, and its removal.  What is
 * read from it, and when, is daemon/tracewatch.h, which owns one of these.
 *
 * tracefs is sys_root/kernel/tracing, else sys_root/kernel/debug/tracing,
 * and must really be mounted there (statfs) when sys_root is /sys; any other
 * root is a tree tests feed and is taken as it is.  The instance is
 * instances/fpusoakd-PID-START (collector/trace.h: why that name proves whose
 * it is).  Before making it, instances of fpusoakd processes that are gone
 * are removed (their triggers first; one with any trigger fpusoakd did not
 * set is left), and the instance is made only with twice its estimated cost
 * in MemAvailable (see traceinst.c).  Inside it only: a 64 KiB ring buffer
 * per CPU, the mono trace clock, buffer_percent 0, mm_page_alloc with the
 * failures-only filter, and the extfrag hist triggers (TRACEINST_NMT of
 * them) or, where the kernel refuses those, the extfrag event itself.
 */
#ifndef FPUSOAK_TRACEINST_H
#define FPUSOAK_TRACEINST_H

#include <limits.h>
#include <stdint.h>

#include "collector/gfp.h"
#include "collector/trace.h"

/* alloc_migratetype at mm_page_alloc_extfrag is the request's: UNMOVABLE, MOVABLE or RECLAIMABLE (< MIGRATE_PCPTYPES) */
#define TRACEINST_NMT 3

/* How an instance folder is made and removed.  NULL members: mkdirat/unlinkat (the kernel's tracefs does the rest). */
struct traceinst_fs {
	int (*mkdir)(void *arg, int dirfd, const char *name);
	int (*rmdir)(void *arg, int dirfd, const char *name);
	void *arg;
};

struct traceinst_opts {
	const char *sys_root;            /* "/sys" */
	const char *proc_root;           /* "/proc": PID/stat for ownership, meminfo for the cost */
	const struct traceinst_fs *fs;   /* NULL: the kernel's */
	int64_t pid;                     /* 0: getpid() */
};

struct traceinst {
	char root[PATH_MAX];               /* the tracefs root in use */
	char name[TRACE_INSTANCE_NAME_MAX];
	int instances_fd, inst_fd;
	int pipe_fd;                       /* trace_pipe, O_NONBLOCK; -1 when nothing reaches the ring buffer */
	int hist_fd;                       /* the extfrag hist file; -1 unless extfrag_mode is 1 */
	struct traceinst_fs fs;
	int alloc_on;                      /* mm_page_alloc failures reach the pipe */
	int extfrag_mode;                  /* 0 off, 1 in-kernel histograms, 2 the event through the pipe */
	int ntriggers;
	int mono_clock;                    /* trace stamps are CLOCK_MONOTONIC */
	int pageblock_order;               /* from the extfrag format file (or its lines); -1 unknown */
	int has_gfp;                       /* gfp holds the running kernel's table */
	struct gfp_table gfp;
};

/* Make and set up the instance in ti; 0 with what it got described in why, or -1 with the reason (nothing left behind). */
int traceinst_open(struct traceinst *ti, const struct traceinst_opts *o, char *why, size_t whylen);

/* Turn off what it turned on, take its triggers back, remove the folder; safe on a failed or closed ti. */
void traceinst_close(struct traceinst *ti);

/* Remove instances under instances_fd left by dead fpusoakd processes; how many, -1 if the folder is unreadable. */
int traceinst_remove_stale(int instances_fd, const char *proc_root, const struct traceinst_fs *fs);

#endif
