/* SPDX-License-Identifier: GPL-2.0-only */
/* fragload: the fragmenting background load; see fragload.h. */
#define _GNU_SOURCE
#include "churn/fragload.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sockios.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "churn/worker.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/num.h"

/* ---- names -------------------------------------------------------------------------------- */

const char *fragload_level_name(int level)
{
	switch (level) {
	case FRAGLOAD_OFF:
		return "off";
	case FRAGLOAD_LIGHT:
		return "light";
	case FRAGLOAD_HEAVY:
		return "heavy";
	default:
		return "?";
	}
}

int fragload_level_parse(const char *s, enum fragload_level *out)
{
	static const enum fragload_level all[] = { FRAGLOAD_OFF, FRAGLOAD_LIGHT, FRAGLOAD_HEAVY };

	for (size_t i = 0; s && i < sizeof all / sizeof all[0]; i++)
		if (strcmp(s, fragload_level_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	return -1;
}

const char *fragload_kind_name(int kind)
{
	static const char *const names[FK_NKINDS] = { "anon", "pipe", "pgtable", "socket", "file" };

	return kind >= 0 && kind < FK_NKINDS ? names[kind] : "?";
}

/* ---- the recipe (pure) -------------------------------------------------------------------- */

/*
 * Shares of a cycle's batch, in per mille.  Unmovable and reclaimable kernel memory together
 * outweigh the movable anon part: it is their survivors that pin pageblocks.
 */
static const uint32_t SHARE[FK_NKINDS] = { 400, 300, 100, 100, 100 };
#define KEEP_EVERY 4
#define ROUNDS 32

/* Bytes one unit of a kind keeps when it survives a cycle (a pipe keeps 2 of its pages, see below). */
static uint64_t kept_unit_bytes(const struct fragload_recipe *r, int k)
{
	return k == FK_PIPE ? 2 * 4096 : r->unit_bytes[k];
}

/* Units of a kind that survive a cycle: in the batch's second half, every pipe and one unit in
 * keep_every/2 of the other kinds (one in keep_every of the batch). */
static uint64_t survivors_of(const struct fragload_recipe *r, int k)
{
	uint64_t half = r->units[k] - r->units[k] / 2;

	return k == FK_PIPE ? half : half / (uint64_t)(r->keep_every / 2);
}

/* Survivors of one cycle, in bytes. */
static uint64_t survivors_per_cycle(const struct fragload_recipe *r)
{
	uint64_t s = 0;

	for (int k = 0; k < FK_NKINDS; k++)
		s += survivors_of(r, k) * kept_unit_bytes(r, k);
	return s;
}

uint64_t fragload_recipe_peak(const struct fragload_recipe *r)
{
	uint64_t b = 0;

	for (int k = 0; k < FK_NKINDS; k++)
		b += (uint64_t)r->units[k] * r->unit_bytes[k];
	return b + r->keep_cap;
}

/* Cycles the long-lived set takes to fill, plus one: what bounds each kind's count in it. */
static uint64_t kept_cycles(const struct fragload_recipe *r)
{
	uint64_t s = survivors_per_cycle(r);

	return s ? r->keep_cap / s + 2 : 2;
}

/* File descriptors a recipe may hold: 2 per pipe, 1 per file, 2 per socket pair, some slack. */
static uint64_t fds_needed(const struct fragload_recipe *r, uint64_t sockets)
{
	uint64_t c = kept_cycles(r);

	return 2 * ((uint64_t)r->units[FK_PIPE] + survivors_of(r, FK_PIPE) * c) +
	       (uint64_t)r->units[FK_FILE] + (survivors_of(r, FK_FILE) + 1) * c + 2 * sockets + 16;
}

uint64_t fragload_recipe_fds(const struct fragload_recipe *r)
{
	return fds_needed(r, 64);
}

int fragload_recipe(enum fragload_level level, uint64_t base, uint64_t fds, struct fragload_recipe *out)
{
	struct fragload_recipe r;
	uint64_t batch;

	memset(out, 0, sizeof *out);
	if (level != FRAGLOAD_LIGHT && level != FRAGLOAD_HEAVY)
		return -1;
	memset(&r, 0, sizeof r);
	r.level = level;
	r.base = base;
	r.keep_every = KEEP_EVERY;
	r.rounds = ROUNDS;
	/*
	 * The bound.  Heavy takes a quarter of the base, light a sixteenth.  Of that, 1/4 is a cycle's
	 * batch and 3/4 the long-lived set, which a cycle's survivors (~1/4 of the batch) fill in about
	 * 12 cycles: the aging builds up steadily over minutes, not at the first cycle.
	 */
	r.cap = level == FRAGLOAD_HEAVY ? base / 4 : base / 16;
	batch = r.cap / 4;
	r.keep_cap = r.cap - batch;
	r.unit_bytes[FK_ANON] = 4096;
	r.unit_bytes[FK_PIPE] = FRAGLOAD_PIPE_PAGES * 4096;
	r.unit_bytes[FK_PGTABLE] = 4096;
	r.unit_bytes[FK_SOCKET] = FRAGLOAD_MSG_EST;
	r.unit_bytes[FK_FILE] = FRAGLOAD_FILE_EST;
	for (int k = 0; k < FK_NKINDS; k++) {
		uint64_t n = batch * SHARE[k] / 1000 / r.unit_bytes[k];
		r.units[k] = n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)n;
	}
	/*
	 * Pipes and files cost descriptors: scale both down to what the process may open.  Fewer of
	 * them make the long-lived set take more cycles to fill (and hold more of each), so step.
	 */
	while (fds_needed(&r, 64) > fds && r.units[FK_PIPE] && r.units[FK_FILE]) {
		r.units[FK_PIPE] -= r.units[FK_PIPE] / 8 ? r.units[FK_PIPE] / 8 : 1;
		r.units[FK_FILE] -= r.units[FK_FILE] / 8 ? r.units[FK_FILE] / 8 : 1;
	}
	for (int k = 0; k < FK_NKINDS; k++)
		if (r.units[k] == 0)
			return -1;
	if (level == FRAGLOAD_HEAVY) {
		r.fill_ms = 4000;
		r.hold_ms = 4000;
		r.free_ms = 4000;
		r.rest_ms = 2000;
	} else {
		r.fill_ms = 8000;
		r.hold_ms = 8000;
		r.free_ms = 8000;
		r.rest_ms = 4000;
	}
	*out = r;
	return 0;
}

/* ---- shuffle (pure) ----------------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

void fragload_shuffle(uint32_t *v, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(xorshift(state) % i);
		uint32_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

size_t fragload_rec_size(uint32_t type)
{
	size_t h = offsetof(struct fragload_rec, u);

	switch (type) {
	case FRAGLOAD_REC_HELLO:
		return h + sizeof(struct fragload_hello);
	case FRAGLOAD_REC_STATUS:
		return h + sizeof(struct fragload_status);
	case FRAGLOAD_REC_NOTE:
		return h + sizeof(struct fragload_note);
	default:
		return h;
	}
}

/* ---- the process -------------------------------------------------------------------------- */

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
	int64_t phase_end, next_ms, paused_at;
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

static void send_rec(struct fl *f, const struct fragload_rec *r)
{
	/* SEQPACKET: one record per message, or nothing; a full socket drops a STATUS (cumulative). */
	(void)send(f->sock, r, fragload_rec_size(r->type), MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void fl_note(struct fl *f, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fl_note(struct fl *f, int level, const char *fmt, ...)
{
	static struct fragload_rec r;
	va_list ap;

	memset(&r, 0, sizeof r);
	r.type = FRAGLOAD_REC_NOTE;
	r.u.note.level = level;
	va_start(ap, fmt);
	vsnprintf(r.u.note.text, sizeof r.u.note.text, fmt, ap);
	va_end(ap);
	send_rec(f, &r);
}

/* ---- units: allocate and free -------------------------------------------------------------- */

static int slot_take(struct fl *f, int k, uint32_t *idx)
{
	for (uint32_t n = 0; n < f->pool[k]; n++) {
		uint32_t i = (f->cursor[k] + n) % f->pool[k];
		if (f->slot[k][i] == SLOT_FREE) {
			f->cursor[k] = (i + 1) % f->pool[k];
			*idx = i;
			return 0;
		}
	}
	return -1;
}

/* One write per page: the kernel allocates a page at the first write into it. */
static int anon_alloc(struct fl *f, uint32_t i)
{
	volatile char *p = f->anon + (size_t)i * (size_t)f->page;

	*p = 1;
	return 0;
}

static void anon_free(struct fl *f, uint32_t i)
{
	madvise(f->anon + (size_t)i * (size_t)f->page, (size_t)f->page, MADV_DONTNEED);
}

/*
 * A read fault in an untouched anonymous mapping maps the shared zero page, but the page table
 * that maps it has to exist: one PTE page per 2 MiB slot, nothing else.  Freeing replaces the slot
 * with a PROT_NONE mapping: the unmap frees the PTE page (free_pgtables: the slot's neighbours end
 * and start at its 2 MiB boundaries), and the range stays ours.
 */
static int pt_alloc(struct fl *f, uint32_t i)
{
	char *p = f->ptbase + (size_t)i * FRAGLOAD_SLOT_BYTES;

	if (mmap(p, FRAGLOAD_SLOT_BYTES, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
	    MAP_FAILED)
		return -1;
	(void)*(volatile char *)(p + (i % 512) * (size_t)f->page);
	return 0;
}

static void pt_free(struct fl *f, uint32_t i)
{
	mmap(f->ptbase + (size_t)i * FRAGLOAD_SLOT_BYTES, FRAGLOAD_SLOT_BYTES, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}

static int pipe_open(struct fl *f, uint32_t i)
{
	struct pipe_slot *p = &f->pipes[i];

	if (pipe2(p->fd, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	p->pages = 0;
	p->tmp = 0;
	return 0;
}

/* One page into the pipe: a full page per write, so the pipe never merges two into one buffer. */
static int pipe_page(struct fl *f, uint32_t i)
{
	static char buf[4096];
	struct pipe_slot *p = &f->pipes[i];

	if (write(p->fd[1], buf, sizeof buf) != (ssize_t)sizeof buf)
		return -1;
	p->pages++;
	p->tmp = 0;                    /* a write takes the tmp_page first */
	return 0;
}

static void pipe_close(struct fl *f, uint32_t i)
{
	struct pipe_slot *p = &f->pipes[i];

	close(p->fd[0]);
	close(p->fd[1]);
	p->fd[0] = p->fd[1] = -1;
	p->pages = 0;
	p->tmp = 0;
}

/*
 * A pipe survives as its last page: the reads free the others, except the first one consumed,
 * which the pipe keeps as its tmp_page until it is closed.
 */
static void pipe_trim(struct fl *f, uint32_t i)
{
	static char buf[4096];
	struct pipe_slot *p = &f->pipes[i];

	while (p->pages > 1 && read(p->fd[0], buf, sizeof buf) == (ssize_t)sizeof buf) {
		p->pages--;
		p->tmp = 1;
	}
}

static int msg_alloc(struct fl *f, uint32_t j)
{
	static char buf[FRAGLOAD_MSG_BYTES];

	if (send(f->sk[j][0], buf, sizeof buf, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof buf)
		return -1;
	f->queued[j]++;
	return 0;
}

static void msg_free(struct fl *f, uint32_t j)
{
	static char buf[FRAGLOAD_MSG_BYTES];

	if (f->queued[j] && recv(f->sk[j][1], buf, sizeof buf, MSG_DONTWAIT) == (ssize_t)sizeof buf)
		f->queued[j]--;
}

static int file_alloc(struct fl *f, uint32_t i)
{
	int fd = openat(f->cfg->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	f->files[i] = fd;
	return 0;
}

static void file_free(struct fl *f, uint32_t i)
{
	close(f->files[i]);
	f->files[i] = -1;
}

/* Start one unit of kind k; its slot index in *idx.  Pipes are opened here and filled page by page. */
static int unit_alloc(struct fl *f, int k, uint32_t *idx)
{
	int rc;

	if (k == FK_SOCKET) {
		*idx = (uint32_t)(xorshift(&f->rng) % (uint64_t)f->nsock);
		return msg_alloc(f, *idx);
	}
	if (slot_take(f, k, idx) < 0) {
		errno = ENOSPC;
		return -1;
	}
	switch (k) {
	case FK_ANON:
		rc = anon_alloc(f, *idx);
		break;
	case FK_PIPE:
		rc = pipe_open(f, *idx);
		break;
	case FK_PGTABLE:
		rc = pt_alloc(f, *idx);
		break;
	default:
		rc = file_alloc(f, *idx);
		break;
	}
	if (rc == 0)
		f->slot[k][*idx] = SLOT_BATCH;
	return rc;
}

static void unit_free(struct fl *f, const struct unit *u)
{
	switch (u->kind) {
	case FK_ANON:
		anon_free(f, u->idx);
		break;
	case FK_PIPE:
		pipe_close(f, u->idx);
		break;
	case FK_PGTABLE:
		pt_free(f, u->idx);
		break;
	case FK_SOCKET:
		msg_free(f, u->idx);
		return;
	default:
		file_free(f, u->idx);
		break;
	}
	f->slot[u->kind][u->idx] = SLOT_FREE;
}

/* ---- accounting --------------------------------------------------------------------------- */

static void held(struct fl *f, struct fragload_status *st)
{
	for (uint32_t i = 0; i < f->pool[FK_ANON]; i++)
		st->held_units[FK_ANON] += f->slot[FK_ANON][i] != SLOT_FREE;
	for (uint32_t i = 0; i < f->pool[FK_PIPE]; i++)
		if (f->slot[FK_PIPE][i] != SLOT_FREE || f->pipes[i].fd[0] >= 0) {
			st->held_units[FK_PIPE]++;
			st->held_bytes[FK_PIPE] += (uint64_t)(f->pipes[i].pages + f->pipes[i].tmp) * (uint64_t)f->page;
		}
	for (uint32_t i = 0; i < f->pool[FK_PGTABLE]; i++)
		st->held_units[FK_PGTABLE] += f->slot[FK_PGTABLE][i] != SLOT_FREE;
	for (int j = 0; j < f->nsock; j++) {
		int q = 0;
		st->held_units[FK_SOCKET] += f->queued[j];
		/* SIOCOUTQ on a unix socket: the truesize of what it sent and the peer has not read. */
		if (ioctl(f->sk[j][0], SIOCOUTQ, &q) == 0 && q > 0)
			st->held_bytes[FK_SOCKET] += (uint64_t)q;
	}
	for (uint32_t i = 0; i < f->pool[FK_FILE]; i++)
		st->held_units[FK_FILE] += f->files[i] >= 0;
	st->held_bytes[FK_ANON] = st->held_units[FK_ANON] * (uint64_t)f->page;
	st->held_bytes[FK_PGTABLE] = st->held_units[FK_PGTABLE] * (uint64_t)f->page;
	st->held_bytes[FK_FILE] = st->held_units[FK_FILE] * FRAGLOAD_FILE_EST;
}

static void send_status(struct fl *f, int64_t now)
{
	static struct fragload_rec r;
	struct fragload_status *st = &r.u.status;

	memset(&r, 0, sizeof r);
	r.type = FRAGLOAD_REC_STATUS;
	st->mono_ms = now;
	st->real_ms = clock_wall_ms();
	st->seq = ++f->seq;
	st->state = f->state;
	st->cycles = f->cycles;
	st->kept_bytes = f->kept_bytes;
	st->alloc_failed = f->alloc_failed;
	held(f, st);
	send_rec(f, &r);
	f->next_status = now + f->cfg->status_ms;
}

/* ---- the cycle ---------------------------------------------------------------------------- */

static void round_quota(struct fl *f)
{
	for (int k = 0; k < FK_NKINDS; k++) {
		uint32_t n = f->r.units[k], per = n / (uint32_t)f->r.rounds;
		/* Spread the remainder over the first rounds. */
		f->todo[k] = per + ((uint32_t)f->round < n % (uint32_t)f->r.rounds ? 1 : 0);
	}
}

static void batch_add(struct fl *f, int k, uint32_t idx)
{
	if (f->nbatch < f->batch_max)
		f->batch[f->nbatch++] = (struct unit){ (uint32_t)k, idx };
}

/*
 * One step of one kind.  Pipes take FRAGLOAD_PIPE_PAGES steps, one page each, so a pipe's pages
 * interleave with the other kinds' allocations like everything else does.
 */
static void alloc_step(struct fl *f, int k)
{
	uint32_t idx;

	if (k == FK_PIPE && f->pipe_cur != UINT32_MAX) {
		if (pipe_page(f, f->pipe_cur) < 0)
			f->alloc_failed++;
		if (++f->pipe_cur_pages >= FRAGLOAD_PIPE_PAGES || f->pipes[f->pipe_cur].pages == 0) {
			f->pipe_cur = UINT32_MAX;
			f->todo[k]--;
		}
		return;
	}
	if (unit_alloc(f, k, &idx) < 0) {
		f->alloc_failed++;
		f->todo[k]--;
		return;
	}
	batch_add(f, k, idx);
	if (k == FK_PIPE) {
		f->pipe_cur = idx;
		f->pipe_cur_pages = 0;
		alloc_step(f, k);
	} else
		f->todo[k]--;
}

/* A fill round: the kinds' allocations round-robin, one step each, until every quota is spent. */
static void fill_round(struct fl *f)
{
	int busy = 1;

	round_quota(f);
	while (busy) {
		busy = 0;
		for (int k = 0; k < FK_NKINDS; k++)
			if (f->todo[k]) {
				alloc_step(f, k);
				busy = 1;
			}
	}
}

static uint64_t unit_kept_bytes(struct fl *f, const struct unit *u)
{
	return kept_unit_bytes(&f->r, (int)u->kind);
}

static void kept_push(struct fl *f, const struct unit *u)
{
	uint32_t at = (f->khead + f->kn) % f->kmax;

	f->kept[at] = *u;
	f->kn++;
	f->kept_bytes += unit_kept_bytes(f, u);
	if (u->kind != FK_SOCKET)
		f->slot[u->kind][u->idx] = SLOT_KEPT;
}

/*
 * Survivors come from the second half of each kind's allocations.  The buddy allocator serves a
 * request from the smallest free block that fits (__rmqueue_smallest), and a cycle's first
 * allocations get the holes the last cycle's frees left; the second half has to be carved from
 * larger blocks, so its survivors pin memory that was still whole, and each cycle reaches further.
 * There, every pipe keeps its last page and one unit in keep_every/2 of the other kinds stays.
 */
static int is_survivor(const struct fl *f, uint32_t pos, uint32_t n, int kind)
{
	uint32_t half = n / 2, q = (uint32_t)f->r.keep_every / 2;

	if (pos < half)
		return 0;
	return kind == FK_PIPE || (pos - half) % q == q - 1;
}

/*
 * Plan the free phase: this batch's survivors join the long-lived set (whose oldest units are
 * released to make room), everything else, and what was released, is freed in a shuffled order.
 */
static void plan_free(struct fl *f)
{
	uint32_t seen[FK_NKINDS] = { 0 }, n[FK_NKINDS] = { 0 };
	uint64_t incoming = 0;

	f->nwork = 0;
	for (uint32_t i = 0; i < f->nbatch; i++)
		n[f->batch[i].kind]++;
	for (uint32_t i = 0; i < f->nbatch; i++) {
		const struct unit *u = &f->batch[i];
		if (is_survivor(f, seen[u->kind]++, n[u->kind], (int)u->kind))
			incoming += unit_kept_bytes(f, u);
	}
	/* Release the oldest long-lived units until the survivors fit; never below an empty set. */
	while (f->kn && f->kept_bytes + incoming > f->r.keep_cap && f->nwork < f->work_max) {
		struct unit u = f->kept[f->khead];
		f->khead = (f->khead + 1) % f->kmax;
		f->kn--;
		f->kept_bytes -= unit_kept_bytes(f, &u);
		f->work[f->nwork++] = u;
	}
	memset(seen, 0, sizeof seen);
	for (uint32_t i = 0; i < f->nbatch; i++) {
		const struct unit *u = &f->batch[i];
		int keep = is_survivor(f, seen[u->kind]++, n[u->kind], (int)u->kind) && f->kn < f->kmax &&
			   f->kept_bytes + unit_kept_bytes(f, u) <= f->r.keep_cap;
		if (keep) {
			kept_push(f, u);
			/* A surviving pipe is trimmed to its last page in the shuffled order too. */
			if (u->kind == FK_PIPE && f->nwork < f->work_max)
				f->work[f->nwork++] = (struct unit){ FK_NKINDS, u->idx };
		} else if (f->nwork < f->work_max)
			f->work[f->nwork++] = *u;
	}
	f->nbatch = 0;
	for (uint32_t i = 0; i < f->nwork; i++)
		f->order[i] = i;
	fragload_shuffle(f->order, f->nwork, &f->rng);
	f->wdone = 0;
}

static void free_round(struct fl *f)
{
	uint32_t left = (uint32_t)(f->r.rounds - f->round);
	uint32_t n = left ? (f->nwork - f->wdone + left - 1) / left : f->nwork - f->wdone;

	for (uint32_t i = 0; i < n && f->wdone < f->nwork; i++) {
		const struct unit *u = &f->work[f->order[f->wdone++]];
		if (u->kind == FK_NKINDS)
			pipe_trim(f, u->idx);
		else
			unit_free(f, u);
	}
}

static void enter(struct fl *f, int state, int64_t now, int64_t len_ms)
{
	f->state = state;
	f->round = 0;
	f->phase_end = now + len_ms;
	f->next_ms = now;
}

/* Advance the cycle by whatever is due at now. */
static void step(struct fl *f, int64_t now)
{
	int64_t per;

	if (f->state == FRAGLOAD_PAUSED || f->state == FRAGLOAD_STOPPING || now < f->next_ms)
		return;
	switch (f->state) {
	case FRAGLOAD_FILLING:
		per = f->r.fill_ms / f->r.rounds;
		fill_round(f);
		if (++f->round >= f->r.rounds)
			enter(f, FRAGLOAD_HOLDING, now, f->r.hold_ms);
		else
			f->next_ms = now + per;
		break;
	case FRAGLOAD_HOLDING:
		if (now >= f->phase_end) {
			plan_free(f);
			enter(f, FRAGLOAD_FREEING, now, f->r.free_ms);
		} else
			f->next_ms = f->phase_end;
		break;
	case FRAGLOAD_FREEING:
		per = f->r.free_ms / f->r.rounds;
		free_round(f);
		if (++f->round >= f->r.rounds) {
			f->cycles++;
			enter(f, FRAGLOAD_RESTING, now, f->r.rest_ms);
			f->next_ms = f->phase_end;
		} else
			f->next_ms = now + per;
		break;
	case FRAGLOAD_RESTING:
		enter(f, FRAGLOAD_FILLING, now, f->r.fill_ms);
		break;
	}
}

/* ---- commands ----------------------------------------------------------------------------- */

static void pause_load(struct fl *f, int64_t now)
{
	if (f->state == FRAGLOAD_PAUSED || f->state == FRAGLOAD_STOPPING)
		return;
	f->paused_state = f->state;
	f->paused_at = now;
	f->state = FRAGLOAD_PAUSED;
}

/* Resume where it paused, every deadline moved by the pause. */
static void resume_load(struct fl *f, int64_t now)
{
	if (f->state != FRAGLOAD_PAUSED)
		return;
	f->state = f->paused_state;
	f->phase_end += now - f->paused_at;
	f->next_ms += now - f->paused_at;
}

/* 1 when the daemon asked to stop (or is gone). */
static int read_commands(struct fl *f, int64_t now)
{
	struct fragload_cmd c;

	for (;;) {
		ssize_t n = recv(f->sock, &c, sizeof c, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return 1;
		if (n < 0)
			return 0;
		if (n != (ssize_t)sizeof c)
			continue;
		switch (c.type) {
		case FRAGLOAD_CMD_PAUSE:
			pause_load(f, now);
			send_status(f, now);
			break;
		case FRAGLOAD_CMD_RESUME:
			resume_load(f, now);
			send_status(f, now);
			break;
		case FRAGLOAD_CMD_STATUS:
			send_status(f, now);
			break;
		case FRAGLOAD_CMD_STOP:
			return 1;
		}
	}
}

/* Everything back: every descriptor closed, every mapping gone. */
static void release_all(struct fl *f)
{
	for (uint32_t i = 0; i < f->pool[FK_PIPE]; i++)
		if (f->pipes[i].fd[0] >= 0)
			pipe_close(f, i);
	for (uint32_t i = 0; i < f->pool[FK_FILE]; i++)
		if (f->files[i] >= 0)
			file_free(f, i);
	for (int j = 0; j < f->nsock; j++) {
		close(f->sk[j][0]);
		close(f->sk[j][1]);
		f->queued[j] = 0;
	}
	f->nsock = 0;
	if (f->anon)
		munmap(f->anon, (size_t)f->pool[FK_ANON] * (size_t)f->page);
	if (f->ptbase)
		munmap(f->ptbase, (size_t)f->pool[FK_PGTABLE] * FRAGLOAD_SLOT_BYTES);
	f->anon = f->ptbase = NULL;
	for (int k = 0; k < FK_NKINDS; k++)
		if (f->slot[k])
			memset(f->slot[k], 0, f->pool[k]);
	f->kn = f->nbatch = 0;
	f->kept_bytes = 0;
}

static void run(struct fl *f)
{
	for (;;) {
		int64_t now = clock_mono_ms(), t;
		struct pollfd pf[2] = { { f->sock, POLLIN, 0 }, { f->sigfd, POLLIN, 0 } };

		step(f, now);
		now = clock_mono_ms();
		if (now >= f->next_status)
			send_status(f, now);
		t = f->next_status;
		if (f->state != FRAGLOAD_PAUSED && f->next_ms < t)
			t = f->next_ms;
		t -= now;
		if (poll(pf, 2, (int)(t < 0 ? 0 : t)) > 0) {
			if (pf[1].revents)
				return;        /* SIGTERM: stop like EOF */
			if (pf[0].revents && read_commands(f, clock_mono_ms()))
				return;
		}
	}
}

/* ---- setup -------------------------------------------------------------------------------- */

static void *map_pool(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, bytes);           /* touched now: the bookkeeping's memory is not part of any cycle */
	return p;
}

/* The PTE slots: one reserved PROT_NONE range, aligned to 2 MiB so each slot has a table of its own. */
static char *reserve_slots(uint32_t n)
{
	size_t len = (size_t)n * FRAGLOAD_SLOT_BYTES;
	char *p = mmap(NULL, len + FRAGLOAD_SLOT_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)p + FRAGLOAD_SLOT_BYTES - 1) & ~(uintptr_t)(FRAGLOAD_SLOT_BYTES - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	if ((uintptr_t)p + FRAGLOAD_SLOT_BYTES > a)
		munmap((char *)a + len, (uintptr_t)p + FRAGLOAD_SLOT_BYTES - a);
	return (char *)a;
}

/*
 * What one queued message really costs (the kernel's truesize, as SIOCOUTQ reports it): the socket
 * kind's count comes from its share of the batch and this, not from a guess.
 */
static void measure_socket(struct fl *f)
{
	int q = 0;
	uint64_t share = (uint64_t)f->r.units[FK_SOCKET] * f->r.unit_bytes[FK_SOCKET];

	if (msg_alloc(f, 0) == 0 && ioctl(f->sk[0][0], SIOCOUTQ, &q) == 0 && q > 0 && q < 65536) {
		f->r.unit_bytes[FK_SOCKET] = (uint32_t)q;
		f->r.units[FK_SOCKET] = (uint32_t)(share / (uint64_t)q);
		if (!f->r.units[FK_SOCKET])
			f->r.units[FK_SOCKET] = 1;
	}
	msg_free(f, 0);
}

static int setup_kinds(struct fl *f)
{
	uint64_t cyc = kept_cycles(&f->r), msgs;
	int fd;

	/* The file kind needs a directory that takes O_TMPFILE; without one it is off and says why. */
	fd = f->cfg->dirfd >= 0 ? openat(f->cfg->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600) : -1;
	if (fd < 0) {
		snprintf(f->note, sizeof f->note, "file kind off: %s", f->cfg->dirfd < 0 ? "no directory" : strerror(errno));
		f->r.units[FK_FILE] = 0;
	} else
		close(fd);
	for (int k = 0; k < FK_NKINDS; k++) {
		uint64_t n = f->r.units[k] + (survivors_of(&f->r, k) + 1) * cyc;
		f->pool[k] = n > (1u << 24) ? 1u << 24 : (uint32_t)n;
	}
	msgs = f->pool[FK_SOCKET];
	f->nsock = (int)((msgs + 95) / 96);
	if (f->nsock < 1)
		f->nsock = 1;
	if (f->nsock > 64)
		f->nsock = 64;
	for (int j = 0; j < f->nsock; j++)
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, f->sk[j]) < 0)
			return -1;
	measure_socket(f);
	f->pool[FK_SOCKET] = (uint32_t)(f->r.units[FK_SOCKET] + (survivors_of(&f->r, FK_SOCKET) + 1) * cyc);
	for (int k = 0; k < FK_NKINDS; k++)
		if (!(f->slot[k] = map_pool(f->pool[k])))
			return -1;
	f->anon = mmap(NULL, (size_t)f->pool[FK_ANON] * (size_t)f->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	f->ptbase = reserve_slots(f->pool[FK_PGTABLE]);
	f->pipes = map_pool(f->pool[FK_PIPE] * sizeof *f->pipes);
	f->files = map_pool(f->pool[FK_FILE] * sizeof *f->files);
	if (f->anon == MAP_FAILED || !f->ptbase || !f->pipes || !f->files) {
		if (f->anon == MAP_FAILED)
			f->anon = NULL;
		return -1;
	}
	for (uint32_t i = 0; i < f->pool[FK_PIPE]; i++)
		f->pipes[i].fd[0] = f->pipes[i].fd[1] = -1;
	for (uint32_t i = 0; i < f->pool[FK_FILE]; i++)
		f->files[i] = -1;
	f->batch_max = 0;
	f->kmax = 0;
	for (int k = 0; k < FK_NKINDS; k++) {
		f->batch_max += f->r.units[k];
		f->kmax += f->pool[k];
	}
	f->work_max = f->batch_max + f->kmax;
	f->batch = map_pool(f->batch_max * sizeof *f->batch);
	f->kept = map_pool(f->kmax * sizeof *f->kept);
	f->work = map_pool(f->work_max * sizeof *f->work);
	f->order = map_pool(f->work_max * sizeof *f->order);
	return f->batch && f->kept && f->work && f->order ? 0 : -1;
}

/* Close every descriptor above 2 but a and b (a < b; either may be -1). */
static void close_others(int a, int b)
{
	unsigned from = 3;

	for (int i = 0; i < 2; i++) {
		int k = i ? b : a;
		if (k < (int)from)
			continue;
		if ((unsigned)k > from)
			syscall(SYS_close_range, from, (unsigned)k - 1, 0u);
		from = (unsigned)k + 1;
	}
	syscall(SYS_close_range, from, ~0u, 0u);
}

static void set_oom_adj(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "500", 3) < 0) {
		/* Raising it needs no privilege; a failure leaves what the daemon had (protected). */
	}
	close(fd);
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void hello(struct fl *f)
{
	static struct fragload_rec r;

	memset(&r, 0, sizeof r);
	r.type = FRAGLOAD_REC_HELLO;
	r.u.hello.pid = getpid();
	r.u.hello.r = f->r;
	snprintf(r.u.hello.note, sizeof r.u.hello.note, "%s", f->note);
	send_rec(f, &r);
}

static void __attribute__((noreturn)) finish(struct fl *f, int code)
{
	static struct fragload_rec r;

	release_all(f);
	send_status(f, clock_mono_ms());
	memset(&r, 0, sizeof r);
	r.type = FRAGLOAD_REC_BYE;
	send_rec(f, &r);
	_exit(code);
}

void fragload_main(const struct fragload_cfg *cfg)
{
	static struct fl fl;
	struct fl *f = &fl;
	sigset_t set;
	int keep[2] = { cfg->sock < cfg->dirfd ? cfg->sock : cfg->dirfd, cfg->sock < cfg->dirfd ? cfg->dirfd : cfg->sock };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != cfg->daemon)
		_exit(1);
	memset(f, 0, sizeof *f);
	f->cfg = cfg;
	f->r = cfg->r;
	f->sock = cfg->sock;
	f->page = sysconf(_SC_PAGESIZE);
	f->rng = cfg->seed ^ 0x6672616720u;
	f->pipe_cur = UINT32_MAX;
	/* Only its socket and the files' directory stay open. */
	close_others(keep[0], keep[1]);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_SETMASK, &set, NULL);
	f->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	prctl(PR_SET_NAME, "fpusoakd-frag", 0, 0, 0);
	set_oom_adj();
	raise_nofile();
	/* THP would map a read fault with the huge zero page (no PTE page) and a touch with 2 MiB. */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (worker_drop_privileges() < 0)
		fl_note(f, LOG_LVL_INFO, "fragment: cannot drop capabilities (%s)", strerror(errno));
	if (f->sigfd < 0 || setup_kinds(f) < 0) {
		fl_note(f, LOG_LVL_ERR, "fragment: cannot set up the load: %s", strerror(errno));
		finish(f, 1);
	}
	hello(f);
	enter(f, FRAGLOAD_FILLING, clock_mono_ms(), f->r.fill_ms);
	send_status(f, clock_mono_ms());
	run(f);
	f->state = FRAGLOAD_STOPPING;
	finish(f, 0);
}

/* ---- exec into the static helper ---------------------------------------------------------- */

#define BLOB_MAGIC "FPUFRAG1"

struct blob_hdr {
	char magic[8];
	uint32_t cfg_size, rec_size, cmd_size, pad;
};

size_t fragload_blob_pack(const struct fragload_cfg *cfg, void *buf, size_t cap)
{
	struct blob_hdr h = { .cfg_size = sizeof *cfg, .rec_size = sizeof(struct fragload_rec),
			      .cmd_size = sizeof(struct fragload_cmd) };

	if (sizeof h + sizeof *cfg > cap)
		return 0;
	memcpy(h.magic, BLOB_MAGIC, sizeof h.magic);
	memcpy(buf, &h, sizeof h);
	memcpy((char *)buf + sizeof h, cfg, sizeof *cfg);
	return sizeof h + sizeof *cfg;
}

int fragload_blob_unpack(const void *buf, size_t len, struct fragload_cfg *cfg, char *why, size_t whylen)
{
	struct blob_hdr h;

	if (len != sizeof h + sizeof *cfg) {
		snprintf(why, whylen, "fragment config blob is %zu bytes, want %zu", len, sizeof h + sizeof *cfg);
		return -1;
	}
	memcpy(&h, buf, sizeof h);
	if (memcmp(h.magic, BLOB_MAGIC, sizeof h.magic) != 0 || h.cfg_size != sizeof *cfg ||
	    h.rec_size != sizeof(struct fragload_rec) || h.cmd_size != sizeof(struct fragload_cmd)) {
		snprintf(why, whylen, "fragment config from another build: install fpusoakd and fpusoakd-spawner together");
		return -1;
	}
	memcpy(cfg, (const char *)buf + sizeof h, sizeof *cfg);
	return 0;
}

int fragload_exec(const struct fragload_cfg *cfg, const char *path)
{
	static unsigned char blob[sizeof(struct blob_hdr) + sizeof(struct fragload_cfg)];
	char fdarg[16];
	char *argv[] = { "fpusoakd-fragment", "--internal-fragment", fdarg, NULL };
	size_t len = fragload_blob_pack(cfg, blob, sizeof blob);
	int mfd = memfd_create("fpusoakd-fragment-cfg", 0), saved;

	if (mfd < 0)
		return -1;
	if (!len || write(mfd, blob, len) != (ssize_t)len)
		goto fail;
	/* The socket and the directory cross the exec; everything else of the daemon's is CLOEXEC. */
	if (fcntl(cfg->sock, F_SETFD, 0) < 0 || (cfg->dirfd >= 0 && fcntl(cfg->dirfd, F_SETFD, 0) < 0))
		goto fail;
	snprintf(fdarg, sizeof fdarg, "%d", mfd);
	execv(path, argv);
fail:
	saved = errno;
	close(mfd);
	errno = saved;
	return -1;
}

int fragload_exec_main(int argc, char **argv)
{
	static unsigned char blob[sizeof(struct blob_hdr) + sizeof(struct fragload_cfg) + 1];
	static struct fragload_cfg cfg;
	char why[256];
	int64_t fd;
	ssize_t n;

	if (argc != 3 || strcmp(argv[1], "--internal-fragment") != 0)
		return 0;
	if (num_parse_i64(argv[2], strlen(argv[2]), &fd) < 0 || fd < 0 || fd > INT_MAX) {
		fprintf(stderr, "fpusoakd-spawner: bad descriptor argument '%s'\n", argv[2]);
		_exit(70);
	}
	n = pread((int)fd, blob, sizeof blob, 0);
	close((int)fd);
	if (n < 0 || fragload_blob_unpack(blob, (size_t)n, &cfg, why, sizeof why) < 0) {
		fprintf(stderr, "fpusoakd-spawner: %s\n", n < 0 ? strerror(errno) : why);
		_exit(70);
	}
	fragload_main(&cfg);
}
