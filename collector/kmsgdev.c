/* SPDX-License-Identifier: GPL-2.0-only */
/* kmsgdev: non-blocking, loss-accounting /dev/kmsg reader; see kmsgdev.h. */
#include "collector/kmsgdev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/procfile.h"

struct kmsgdev {
	int fd;
	int have_last;             /* last_seq is meaningful */
	uint64_t last_seq;         /* last record returned (or the resume point) */
	int skip_upto;             /* AFTER_SEQ: drop records with seq <= last_seq */
	uint64_t lost;
	uint64_t malformed;
	char buf[KMSG_RECORD_MAX];
};

struct kmsgdev *kmsgdev_open(const char *path, enum kmsgdev_start how, uint64_t after_seq)
{
	struct kmsgdev *k;
	int whence = how == KMSGDEV_FROM_END ? SEEK_END : SEEK_SET;
	int saved;

	k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->fd = open(path ? path : "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0)
		goto fail;
	if (lseek(k->fd, 0, whence) < 0)
		goto fail;
	if (how == KMSGDEV_AFTER_SEQ) {
		k->have_last = 1;
		k->last_seq = after_seq;
		k->skip_upto = 1;
	}
	return k;
fail:
	saved = errno;
	kmsgdev_close(k);
	errno = saved;
	return NULL;
}

int kmsgdev_fd(const struct kmsgdev *k)
{
	return k ? k->fd : -1;
}

/* Count the records between the last one we saw and seq as lost. */
static void account_gap(struct kmsgdev *k, uint64_t seq)
{
	if (k->have_last && seq > k->last_seq + 1)
		k->lost += seq - k->last_seq - 1;
}

int kmsgdev_next(struct kmsgdev *k, struct kmsg_record *rec)
{
	int epipes = 0;

	for (;;) {
		ssize_t n = read(k->fd, k->buf, sizeof k->buf);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			/* Overrun: the next read returns the oldest surviving record; the gap is counted there. */
			if (errno == EPIPE && ++epipes <= 8)
				continue;
			return -1;
		}
		if (n == 0)
			return 0;
		if (kmsg_parse_record(k->buf, (size_t)n, rec) < 0) {
			k->malformed++;
			continue;
		}
		if (k->skip_upto) {
			/* Resuming: records we already stored are skipped, not counted. */
			if (rec->seq <= k->last_seq)
				continue;
			k->skip_upto = 0;
		}
		account_gap(k, rec->seq);
		k->have_last = 1;
		k->last_seq = rec->seq;
		return 1;
	}
}

uint64_t kmsgdev_lost(const struct kmsgdev *k)
{
	return k ? k->lost : 0;
}

uint64_t kmsgdev_malformed(const struct kmsgdev *k)
{
	return k ? k->malformed : 0;
}

uint64_t kmsgdev_last_seq(const struct kmsgdev *k, int *valid)
{
	int v = k && k->have_last;

	if (valid)
		*valid = v;
	return v ? k->last_seq : 0;
}

void kmsgdev_close(struct kmsgdev *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	free(k);
}

int kmsgdev_boot_id_valid(const char *s, size_t len)
{
	if (len != KMSGDEV_BOOT_ID_LEN)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		int dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
	}
	return 1;
}

int kmsgdev_boot_id(const char *root, char *out, size_t cap)
{
	char buf[64];
	ssize_t n;

	if (!out || cap < KMSGDEV_BOOT_ID_LEN + 1) {
		errno = EINVAL;
		return -1;
	}
	n = procfile_read(root, "proc/sys/kernel/random/boot_id", buf, sizeof buf);
	if (n < 0)
		return -1;
	if (n != KMSGDEV_BOOT_ID_LEN + 1 || buf[KMSGDEV_BOOT_ID_LEN] != '\n' ||
	    !kmsgdev_boot_id_valid(buf, KMSGDEV_BOOT_ID_LEN)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(out, buf, KMSGDEV_BOOT_ID_LEN);
	out[KMSGDEV_BOOT_ID_LEN] = '\0';
	return 0;
}
