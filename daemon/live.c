/* SPDX-License-Identifier: GPL-2.0-only */
/* live: the core's latest sample shared with its web process; see live.h. */
#define _GNU_SOURCE
#include "daemon/live.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010   /* Linux 5.1; older kernels refuse it (EINVAL) */
#endif

struct live {
	int fd;
	struct live_shm *shm;
};

struct live *live_create(char *err, size_t errlen)
{
	struct live *lv = calloc(1, sizeof *lv);

	if (!lv) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	lv->fd = memfd_create("fpusoakd-live", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (lv->fd < 0 || ftruncate(lv->fd, sizeof *lv->shm) < 0) {
		snprintf(err, errlen, "live snapshot: memfd: %s", strerror(errno));
		goto fail;
	}
	lv->shm = mmap(NULL, sizeof *lv->shm, PROT_READ | PROT_WRITE, MAP_SHARED, lv->fd, 0);
	if (lv->shm == MAP_FAILED) {
		lv->shm = NULL;
		snprintf(err, errlen, "live snapshot: mmap: %s", strerror(errno));
		goto fail;
	}
	/* Fixed size; and from now on only this mapping may write (the web process maps it read-only). */
	if (fcntl(lv->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0 ||
	    (fcntl(lv->fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) < 0 && errno != EINVAL)) {
		snprintf(err, errlen, "live snapshot: seals: %s", strerror(errno));
		goto fail;
	}
	fcntl(lv->fd, F_ADD_SEALS, F_SEAL_SEAL);
	lv->shm->magic = LIVE_MAGIC;
	lv->shm->version = LIVE_VERSION;
	lv->shm->size = sizeof *lv->shm;
	return lv;
fail:
	live_close(lv);
	return NULL;
}

int live_fd(const struct live *lv)
{
	return lv->fd;
}

struct live_data *live_begin(struct live *lv)
{
	uint64_t s = __atomic_load_n(&lv->shm->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&lv->shm->seq, s | 1, __ATOMIC_RELAXED);
	/* Readers that see the data below must also see the odd seq. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return &lv->shm->d;
}

void live_commit(struct live *lv)
{
	uint64_t s = __atomic_load_n(&lv->shm->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&lv->shm->seq, (s | 1) + 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&lv->shm->wake, 1, __ATOMIC_RELEASE);
	/* Shared (not FUTEX_PRIVATE): the waiter is another process mapping the same memfd. */
	syscall(SYS_futex, &lv->shm->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void live_close(struct live *lv)
{
	if (!lv)
		return;
	if (lv->shm)
		munmap(lv->shm, sizeof *lv->shm);
	if (lv->fd >= 0)
		close(lv->fd);
	free(lv);
}

void live_copy_kv(struct kv_set *dst, const struct kv_set *src)
{
	int n = src->n < 0 ? 0 : src->n > KV_MAX ? KV_MAX : src->n;

	dst->n = n;
	memcpy(dst->e, src->e, (size_t)n * sizeof src->e[0]);
}

void live_copy_buddy(struct buddyinfo *dst, const struct buddyinfo *src)
{
	int n = src->nzones < 0 ? 0 : src->nzones > BUDDY_MAX_ZONES ? BUDDY_MAX_ZONES : src->nzones;

	dst->nzones = n;
	dst->norders = src->norders;
	memcpy(dst->z, src->z, (size_t)n * sizeof src->z[0]);
}

const struct live_shm *live_map(int fd, char *err, size_t errlen)
{
	struct live_shm *shm;
	struct stat st;

	if (fstat(fd, &st) < 0 || st.st_size != (off_t)sizeof *shm) {
		snprintf(err, errlen, "fd %d is not a live snapshot of this version (%s)", fd,
			 errno ? strerror(errno) : "size");
		return NULL;
	}
	shm = mmap(NULL, sizeof *shm, PROT_READ, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED) {
		snprintf(err, errlen, "live snapshot: mmap: %s", strerror(errno));
		return NULL;
	}
	if (shm->magic != LIVE_MAGIC || shm->version != LIVE_VERSION || shm->size != sizeof *shm) {
		snprintf(err, errlen, "live snapshot: written by another fpusoakd version (%u/%u)", shm->version,
			 shm->size);
		munmap(shm, sizeof *shm);
		return NULL;
	}
	return shm;
}

/* Bound what a torn or hostile count could make us read (the writer is trusted, but not its timing). */
static void clamp(struct live_data *d)
{
	if (d->buddy.nzones < 0 || d->buddy.nzones > BUDDY_MAX_ZONES)
		d->buddy.nzones = 0;
	if (d->vmstat.n < 0 || d->vmstat.n > KV_MAX)
		d->vmstat.n = 0;
	if (d->meminfo.n < 0 || d->meminfo.n > KV_MAX)
		d->meminfo.n = 0;
	if (d->norders < 0 || d->norders > LIVE_MAX_ORDERS)
		d->norders = 0;
	d->status[LIVE_STATUS_MAX - 1] = 0;
}

uint64_t live_read(const struct live_shm *shm, struct live_data *out)
{
	for (;;) {
		uint64_t s1 = __atomic_load_n(&shm->seq, __ATOMIC_ACQUIRE), s2;
		const struct live_data *d = &shm->d;

		if (s1 == 0)
			return 0;
		if (s1 & 1) {
			sched_yield();
			continue;
		}
		/* Everything before the sets, then the sets' used entries only. */
		memcpy(out, d, offsetof(struct live_data, buddy));
		live_copy_buddy(&out->buddy, &d->buddy);
		live_copy_kv(&out->vmstat, &d->vmstat);
		live_copy_kv(&out->meminfo, &d->meminfo);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&shm->seq, __ATOMIC_RELAXED);
		if (s1 == s2) {
			clamp(out);
			return s1;
		}
	}
}

void live_wait(const struct live_shm *shm, uint64_t seq, int timeout_ms)
{
	uint32_t w = __atomic_load_n(&shm->wake, __ATOMIC_ACQUIRE);
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000 };

	if (__atomic_load_n(&shm->seq, __ATOMIC_ACQUIRE) != seq)
		return;
	syscall(SYS_futex, &shm->wake, FUTEX_WAIT, w, &ts, NULL, 0);
}

void live_unmap(const struct live_shm *shm)
{
	if (shm)
		munmap((void *)shm, sizeof *shm);
}
