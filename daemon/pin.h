/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pin: the core locks what it uses, and only that.
 *
 * A guest-scope capacity probe fills the guest until allocation fails; with
 * no swap the kernel first evicts page cache, the core's own code included,
 * and sampling stalled for up to 21 s re-reading it (docs/xen.md).  So the core runs under mlockall(MCL_CURRENT |
 * MCL_FUTURE | MCL_ONFAULT).  But every locked page is one the probe cannot
 * use, and what is mapped when mlockall runs is far more than what the core
 * runs: the dynamic loader read whole libraries ahead, and each fault maps
 * the cached pages around it (fault-around), so in the Xen test guest libc
 * and libsqlite3 were locked whole (1.4 and 1.2 MB).  Before locking, pin
 * hands back the file pages of its private file mappings (programs and
 * libraries; MADV_PAGEOUT: clean file pages are dropped, data is never lost,
 * anonymous pages stay where they are without swap) and turns readahead off
 * for them (MADV_RANDOM); from then on a page of code or read-only data is
 * read, mapped and locked when the core first uses it.  Pages other
 * processes map too are not touched (they stay resident for them anyway),
 * nor are shared mappings (SQLite's -shm, the live snapshot: data, and
 * opening the -shm file would drop SQLite's locks on it).
 *
 * Also: fixed malloc thresholds, so that big buffers are mmap'd and
 * returned, and a freed heap top goes back to the kernel.
 */
#ifndef FPUSOAK_PIN_H
#define FPUSOAK_PIN_H

#include <stddef.h>

/* What pin_self did. */
struct pin_report {
	int mappings;        /* file mappings whose unused pages were handed back */
	int locked;          /* 1: mlockall succeeded */
	int err;             /* errno of a failed mlockall, else 0 */
};

/* Page out the file pages only this process maps, drop what the page cache holds of its files and
 * nobody maps, and read its file mappings without readahead from now on; the mappings handled.
 * Locks nothing (the web process calls it once it serves). */
int pin_hand_back(void);

/* Hand back unused file pages, then lock (see above); call after forking the spawner, before SQLite runs. */
void pin_self(struct pin_report *out);

/* Unlock, give back free heap pages and pin_self again: from now on only what runs is locked (after
 * start-up, and when a guest-scope fill begins: daemon/quiet.c). */
void pin_again(struct pin_report *out);

#endif
