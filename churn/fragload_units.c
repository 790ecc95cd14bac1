/* SPDX-License-Identifier: GPL-2.0-only */
/* fragload_units: the load's kinds — allocate, free, count, set up; see fragload_units.h. */
#define _GNU_SOURCE
#include "churn/fragload_units.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collector/kv.h"
#include "collector/procfile.h"
#include "common/clock.h"

void fl_send_rec(struct fl *f, const struct fragload_rec *r)
{
	/* SEQPACKET: one record per message, or nothing; a full socket drops a STATUS (cumulative). */
	(void)send(f->sock, r, fragload_rec_size(r->type), MSG_DONTWAIT | MSG_NOSIGNAL);
}

void fl_note(struct fl *f, int level, const char *fmt, ...)
{
	static struct fragload_rec r;
	va_list ap;

	memset(&r, 0, sizeof r);
	r.type = FRAGLOAD_REC_NOTE;
	r.u.note.level = level;
	va_start(ap, fmt);
	vsnprintf(r.u.note.text, sizeof r.u.note.text, fmt, ap);
	va_end(ap);
	fl_send_rec(f, &r);
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
int fl_pipe_page(struct fl *f, uint32_t i)
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
void fl_pipe_trim(struct fl *f, uint32_t i)
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
int fl_unit_alloc(struct fl *f, int k, uint32_t *idx)
{
	int rc;

	if (k == FK_SOCKET) {
		*idx = (uint32_t)(fragload_rand(&f->rng) % (uint64_t)f->nsock);
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

void fl_unit_free(struct fl *f, const struct unit *u)
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

static void send_status(struct fl *f, int64_t now, int cycle_end)
{
	static struct fragload_rec r;
	static char buf[4096];   /* /proc/self/status: ~1.5 KB */
	struct fragload_status *st = &r.u.status;
	ssize_t n;

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
	if (cycle_end && (n = procfile_read(NULL, "proc/self/status", buf, sizeof buf)) > 0) {
		st->cycle_end = 1;
		kv_status_kb(buf, (size_t)n, "RssAnon", &st->rss_anon_kb);
		kv_status_kb(buf, (size_t)n, "VmPTE", &st->vm_pte_kb);
	}
	fl_send_rec(f, &r);
	f->next_status = now + f->cfg->status_ms;
}

void fl_send_status(struct fl *f, int64_t now)
{
	send_status(f, now, 0);
}

void fl_send_cycle_end(struct fl *f, int64_t now)
{
	send_status(f, now, 1);
}

/* Everything back: every descriptor closed, every mapping gone. */
void fl_release_all(struct fl *f)
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

int fl_setup_kinds(struct fl *f)
{
	uint64_t cyc = fragload_kept_cycles(&f->r), msgs;
	int fd;

	/* The file kind needs a directory that takes O_TMPFILE; without one it is off and says why. */
	fd = f->cfg->dirfd >= 0 ? openat(f->cfg->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600) : -1;
	if (fd < 0) {
		snprintf(f->note, sizeof f->note, "file kind off: %s", f->cfg->dirfd < 0 ? "no directory" : strerror(errno));
		f->r.units[FK_FILE] = 0;
	} else
		close(fd);
	for (int k = 0; k < FK_NKINDS; k++) {
		uint64_t n = f->r.units[k] + (fragload_survivors_of(&f->r, k) + 1) * cyc;
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
	f->pool[FK_SOCKET] = (uint32_t)(f->r.units[FK_SOCKET] + (fragload_survivors_of(&f->r, FK_SOCKET) + 1) * cyc);
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
