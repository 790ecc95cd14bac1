/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fragload: the fragmenting background load (--fragment light|heavy).
 *
 * One small process beside the spawner, in the workers' cgroup, that ages the
 * guest's free memory on purpose.  Each cycle it allocates, in small rounds
 * interleaved in time, memory of five kinds whose kernel allocation paths put
 * them in different pageblock migratetypes (README "Accelerated aging" has the
 * paths):
 *   anon     movable: anonymous pages it touches (GFP_HIGHUSER_MOVABLE);
 *   pipe     unmovable: pipe buffer pages (pipe_write: alloc_page(GFP_HIGHUSER |
 *            __GFP_ACCOUNT), no __GFP_MOVABLE), FRAGLOAD_PIPE_PAGES per pipe;
 *   pgtable  unmovable: one PTE page per 2 MiB slot of a sparse read-only
 *            mapping (a read fault maps the zero page but allocates the table:
 *            GFP_PGTABLE_USER; a kernel that maps no zero page there, as the
 *            development VM's 6.18 does, also allocates a movable data page);
 *   socket   unmovable slab: small messages queued on AF_UNIX stream sockets
 *            (an skb from skbuff_head_cache and a kmalloc head each,
 *            sk_allocation = GFP_KERNEL_ACCOUNT);
 *   file     reclaimable slab: O_TMPFILE files held open (a dentry from the
 *            SLAB_RECLAIM_ACCOUNT dentry cache, the file system's inode, a file);
 * holds them, then frees them in a shuffled order except one unit in
 * keep_every of each kind, which survives into a long-lived set (bounded; its
 * oldest units go first).  Every kind but anon is charged to the memory
 * cgroup (__GFP_ACCOUNT), so the workers' limit bounds it as it bounds them.
 *
 * The recipe (fragload_recipe) is a pure function of the level, the budget's
 * base (the workers' memory limit, or MemTotal in guest scope) and the open
 * file limit: the bound is cap = base/16 (light) or base/4 (heavy), and a
 * cycle's batch plus the long-lived set never exceed it.
 *
 * Lifetime: PR_SET_PDEATHSIG(SIGKILL) against the daemon, EOF on its socket
 * means stop (free everything, BYE, exit 0); the daemon reaps it.  It runs at
 * oom_score_adj 500: after the workers (1000), before anything of the user's.
 */
#ifndef FPUSOAK_FRAGLOAD_H
#define FPUSOAK_FRAGLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum fragload_level { FRAGLOAD_OFF = 0, FRAGLOAD_LIGHT = 1, FRAGLOAD_HEAVY = 2 };
enum fragload_kind { FK_ANON = 0, FK_PIPE, FK_PGTABLE, FK_SOCKET, FK_FILE, FK_NKINDS };
enum fragload_state { FRAGLOAD_FILLING = 1, FRAGLOAD_HOLDING, FRAGLOAD_FREEING, FRAGLOAD_RESTING,
		      FRAGLOAD_PAUSED, FRAGLOAD_STOPPING };

#define FRAGLOAD_PIPE_PAGES 8          /* pages written into one pipe in a burst (one survives) */
#define FRAGLOAD_SOCKETS 16            /* socket pairs the socket kind spreads its messages over */
#define FRAGLOAD_MSG_BYTES 200         /* payload of one socket message: one skb, a kmalloc-1k head */
#define FRAGLOAD_FILE_EST 1024         /* bytes a held O_TMPFILE file is budgeted at (dentry + inode + file) */
#define FRAGLOAD_MSG_EST 1280          /* bytes a queued message is budgeted at until measured (SIOCOUTQ) */
#define FRAGLOAD_SLOT_BYTES (2u << 20) /* one PTE page maps this much */

struct fragload_recipe {
	int32_t level;                 /* enum fragload_level */
	int32_t keep_every;            /* one unit in this many survives a cycle */
	uint64_t base;                 /* bytes the fractions are of */
	uint64_t cap;                  /* the bound: batch + long-lived set, bytes */
	uint64_t keep_cap;             /* the long-lived set, bytes */
	uint32_t units[FK_NKINDS];     /* allocated per cycle: pages, pipes, PTE pages, messages, files */
	uint32_t unit_bytes[FK_NKINDS];/* budgeted bytes per unit (socket: measured at start) */
	int32_t rounds;                /* a cycle's fill (and free) is spread over this many rounds */
	int64_t fill_ms, hold_ms, free_ms, rest_ms;
};

/* The daemon's side of the handover (plain data: crosses exec in a memfd). */
struct fragload_cfg {
	struct fragload_recipe r;
	uint64_t seed;                 /* the shuffles replay with the run's seed */
	pid_t daemon;                  /* PDEATHSIG race check */
	int sock;                      /* its end of a SOCK_SEQPACKET pair */
	int dirfd;                     /* directory for O_TMPFILE files, -1: no file kind */
	int64_t status_ms;             /* STATUS period */
};

struct fragload_status {
	int64_t mono_ms, real_ms;
	uint32_t seq;
	int32_t state;                 /* enum fragload_state */
	uint64_t cycles;               /* completed */
	uint64_t held_bytes[FK_NKINDS];/* anon, pipe, pgtable: pages x page size; socket: SIOCOUTQ (truesize);
					  file: files x FRAGLOAD_FILE_EST */
	uint64_t held_units[FK_NKINDS];/* pages, pipes, PTE pages, messages, files */
	uint64_t kept_bytes;           /* of which in the long-lived set */
	uint64_t alloc_failed;         /* units that could not be allocated (ENOMEM, EMFILE, ...) */
	/* The kernel's view of the load itself (/proc/self/status RssAnon, VmPTE, KiB), read with held_* in the
	 * record sent at a cycle's end (cycle_end 1); 0 in the others.  What it says it holds and what the
	 * kernel says it holds, at one instant (45_fragment.sh A compares their growth). */
	uint64_t rss_anon_kb, vm_pte_kb;
	int32_t cycle_end, pad;
};

struct fragload_hello {
	int32_t pid;
	int32_t exec_ok;               /* 1: the exec'd static helper; 0: the daemon's forked copy */
	struct fragload_recipe r;      /* as it runs (socket unit measured, kinds it could not use zeroed) */
	char note[192];                /* e.g. "file kind off: O_TMPFILE: Operation not supported" */
};

struct fragload_note {
	int32_t level, pad;
	char text[256];
};

enum fragload_rec_type { FRAGLOAD_REC_HELLO = 1, FRAGLOAD_REC_STATUS, FRAGLOAD_REC_NOTE, FRAGLOAD_REC_BYE };
enum fragload_cmd_type { FRAGLOAD_CMD_PAUSE = 1, FRAGLOAD_CMD_RESUME, FRAGLOAD_CMD_STATUS, FRAGLOAD_CMD_STOP };

struct fragload_rec {
	uint32_t type;                 /* enum fragload_rec_type */
	uint32_t pad;
	union {
		struct fragload_hello hello;
		struct fragload_status status;
		struct fragload_note note;
	} u;
};

struct fragload_cmd {
	uint32_t type;                 /* enum fragload_cmd_type */
	uint32_t pad;
};

/* "off" / "light" / "heavy"; "?" otherwise. */
const char *fragload_level_name(int level);
/* Parse "off|light|heavy"; 0 or -1. */
int fragload_level_parse(const char *s, enum fragload_level *out);
/* "anon", "pipe", "pgtable", "socket", "file". */
const char *fragload_kind_name(int kind);

/*
 * The recipe of a level for this base (bytes) and this many file descriptors to spend; 0, or -1
 * for FRAGLOAD_OFF or a base too small for a pipe in a cycle's batch (heavy under ~6 MiB, light ~21 MiB).  Pure.
 */
int fragload_recipe(enum fragload_level level, uint64_t base, uint64_t fds, struct fragload_recipe *out);

/* Bytes a recipe may hold at its peak: every unit of a batch plus a full long-lived set. */
uint64_t fragload_recipe_peak(const struct fragload_recipe *r);

/* File descriptors a recipe may hold at once (pipes, files, socket pairs, slack). */
uint64_t fragload_recipe_fds(const struct fragload_recipe *r);

/* Recipe arithmetic: bytes one surviving unit of kind k keeps; units of kind k that survive a cycle;
 * cycles the long-lived set takes to fill, plus two (what bounds each kind's count in it).  Pure. */
uint64_t fragload_kept_unit_bytes(const struct fragload_recipe *r, int k);
uint64_t fragload_survivors_of(const struct fragload_recipe *r, int k);
uint64_t fragload_kept_cycles(const struct fragload_recipe *r);

/* The next xorshift64* number of *state (a zero state is replaced); the load's only randomness. */
uint64_t fragload_rand(uint64_t *state);

/* Bytes on the wire for a record of this type. */
size_t fragload_rec_size(uint32_t type);

/* A seeded shuffle (Fisher-Yates over xorshift64*): permutes v[0..n); *state advances.  Pure. */
void fragload_shuffle(uint32_t *v, size_t n, uint64_t *state);

/* Run the load in this (freshly forked, confined) process; never returns (exit 0 after a clean stop). */
void fragload_main(const struct fragload_cfg *cfg) __attribute__((noreturn));

/* Pack cfg for the exec'd helper / unpack it there (size and layout checked); as spawner_blob_*. */
size_t fragload_blob_pack(const struct fragload_cfg *cfg, void *buf, size_t cap);
int fragload_blob_unpack(const void *buf, size_t len, struct fragload_cfg *cfg, char *why, size_t whylen);

/* In the freshly forked child: exec path as the load with cfg in a memfd; -1 with errno if it could not. */
int fragload_exec(const struct fragload_cfg *cfg, const char *path);

/* main() of the static helper: for {name, "--internal-fragment", FD} runs the load and never returns
 * (exit 70 on a bad blob); otherwise returns 0. */
int fragload_exec_main(int argc, char **argv);

#endif
