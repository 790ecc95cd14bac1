/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fragload_units: the load process's state and its kinds (allocate, free, count, set up), shared
 * with fragload_run.c (the cycle, commands, the process's life); private to churn/.  fragload.c
 * holds the recipe, the shuffle and the exec glue.  See fragload.h.
 */
#ifndef FPUSOAK_FRAGLOAD_UNITS_H
#define FPUSOAK_FRAGLOAD_UNITS_H

#include <stdint.h>

#include "churn/fragload.h"


/*
 * A unit is one allocation of one kind: an anon page, a pipe (FRAGLOAD_PIPE_PAGES pages), a PTE
 * page (one 2 MiB slot), a socket message (on socket pair idx), a file.  Units are numbered within
 * their kind's pool; the batch and the long-lived set are lists of (kind, idx).
 */
struct unit {
	uint32_t kind;
	uint32_t idx;
};

enum slot_state { SLOT_FREE = 0, SLOT_BATCH, SLOT_KEPT };

struct pipe_slot {
	int fd[2];
	uint16_t pages;                /* buffers queued */
	uint8_t tmp;                   /* the pipe keeps one consumed page as its tmp_page (anon_pipe_buf_release) */
	uint8_t state;
};

struct fl {
	const struct fragload_cfg *cfg;
	struct fragload_recipe r;
	int sigfd, sock;
	long page;
	uint64_t rng;
	int nsock;

	uint32_t pool[FK_NKINDS];      /* slots per kind */
	uint8_t *slot[FK_NKINDS];      /* enum slot_state per slot (socket: unused) */
	uint32_t cursor[FK_NKINDS];    /* where the next free slot search starts */
	char *anon;                    /* pool[FK_ANON] pages */
	char *ptbase;                  /* pool[FK_PGTABLE] slots of FRAGLOAD_SLOT_BYTES, PROT_NONE when free */
	struct pipe_slot *pipes;
	int *files;
	int sk[64][2];
	uint32_t queued[64];           /* messages queued on each pair */

	struct unit *batch;            /* this cycle's units, in allocation order */
	uint32_t nbatch, batch_max;
	struct unit *kept;             /* the long-lived set, a ring in the order units joined it */
	uint32_t khead, kn, kmax;
	uint32_t *order;               /* a free phase's shuffled work: indices into work[] */
	struct unit *work;
	uint32_t nwork, work_max, wdone;

	int state;                     /* enum fragload_state */
	int paused_state;
	int64_t cycle_start, next_ms, paused_at;   /* the cycle's phases are due at offsets from cycle_start */
	int32_t round;
	uint32_t todo[FK_NKINDS];      /* this round's allocations left per kind */
	uint32_t pipe_cur;             /* pipe being written (FK_PIPE slot), UINT32_MAX: none */
	uint32_t pipe_cur_pages;
	uint64_t cycles, alloc_failed;
	uint64_t kept_bytes;
	uint32_t seq;
	int64_t next_status;
	char note[192];
};

/* Send a record (dropped when the socket is full: STATUS is cumulative); a NOTE. */
void fl_send_rec(struct fl *f, const struct fragload_rec *r);
void fl_note(struct fl *f, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Start one unit of kind k (pipes: opened, their pages come with fl_pipe_page); its slot in *idx; 0 or -1. */
int fl_unit_alloc(struct fl *f, int k, uint32_t *idx);
/* One page into pipe i; 0 or -1. */
int fl_pipe_page(struct fl *f, uint32_t i);
/* Read pipe i down to its last page (a surviving pipe). */
void fl_pipe_trim(struct fl *f, uint32_t i);
/* Free a unit and its slot. */
void fl_unit_free(struct fl *f, const struct unit *u);

/* A STATUS record of what is held now. */
void fl_send_status(struct fl *f, int64_t now);
/* The same at a cycle's end, with the kernel's RssAnon and VmPTE of the load read at that instant. */
void fl_send_cycle_end(struct fl *f, int64_t now);

/* Pools, mappings and socket pairs for the recipe (the file kind off without a directory); 0 or -1. */
int fl_setup_kinds(struct fl *f);
/* Everything back: every descriptor closed, every mapping gone. */
void fl_release_all(struct fl *f);

#endif
