/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmsgdev: read /dev/kmsg one record at a time, without blocking, and
 * account for records the kernel overwrote before we read them.
 *
 * Kernel facts this relies on (kernel/printk/printk.c devkmsg_*):
 *  - each read() returns exactly one record, or EINVAL if the buffer is
 *    smaller than the formatted record (at most CONSOLE_EXT_LOG_MAX, 8192);
 *    we read into KMSG_RECORD_MAX (16384) so that cannot happen;
 *  - O_NONBLOCK read with nothing new returns EAGAIN;
 *  - if the ring overwrote the record we were about to read, read() returns
 *    EPIPE once and the next read() returns the oldest surviving record:
 *    the records in between are lost, counted as (next seq - expected seq);
 *  - lseek(SEEK_END) = only new records, lseek(SEEK_SET) = oldest record
 *    still in the ring.  We resume with SEEK_SET, not SEEK_DATA: SEEK_DATA
 *    starts after the last "dmesg -C", which would hide records we never saw.
 *  - sequence numbers restart at 0 on every boot, so a resume point is only
 *    meaningful with the same boot_id (/proc/sys/kernel/random/boot_id).
 * Needs CAP_SYSLOG (or kernel.dmesg_restrict=0) to open.
 */
#ifndef FPUSOAK_KMSGDEV_H
#define FPUSOAK_KMSGDEV_H

#include <stddef.h>
#include <stdint.h>

#include "collector/kmsg.h"

#define KMSGDEV_BOOT_ID_LEN 36     /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */

struct kmsgdev;

enum kmsgdev_start {
	KMSGDEV_FROM_END,          /* only records logged after open */
	KMSGDEV_FROM_START,        /* every record still in the ring */
	KMSGDEV_AFTER_SEQ,         /* records with seq > after_seq (same boot only) */
};

/* Open path (NULL: /dev/kmsg) O_RDONLY|O_NONBLOCK|O_CLOEXEC and position it; handle or NULL with errno. */
struct kmsgdev *kmsgdev_open(const char *path, enum kmsgdev_start how, uint64_t after_seq);

/* The fd, for poll()/epoll (POLLIN when a record is ready); -1 for NULL. */
int kmsgdev_fd(const struct kmsgdev *k);

/* Next record: 1 and *rec (pointing into the handle's buffer, valid until the next call), 0 if none now, -1 with errno on a read error. */
int kmsgdev_next(struct kmsgdev *k, struct kmsg_record *rec);

/* Records the kernel overwrote before we read them (EPIPE gaps and the resume gap). */
uint64_t kmsgdev_lost(const struct kmsgdev *k);

/* Records read that did not parse as a kmsg record (skipped). */
uint64_t kmsgdev_malformed(const struct kmsgdev *k);

/* Sequence number of the last record returned; 0 with *valid = 0 before the first. */
uint64_t kmsgdev_last_seq(const struct kmsgdev *k, int *valid);

/* Close; accepts NULL. */
void kmsgdev_close(struct kmsgdev *k);

/* Read root/proc/sys/kernel/random/boot_id (root NULL = "/") into out (>= 37 bytes, NUL-terminated); 0 or -1 (errno EINVAL if not a UUID). */
int kmsgdev_boot_id(const char *root, char *out, size_t cap);

/* Validate a boot_id string: 36 chars, lower-case hex in 8-4-4-4-12 groups; 1 or 0. */
int kmsgdev_boot_id_valid(const char *s, size_t len);

#endif
