/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kwatch: the kernel log, watched from the event loop.
 *
 * Reads /dev/kmsg non-blocking whenever it is readable, keeps the
 * warn_alloc and OOM-killer lines it understands (bounded), and hands them to
 * the next store tick with the resume cursor and its own counters (records
 * read, lost to ring overruns, marked lines that did not parse).  On start it
 * resumes after the last sequence number stored for this boot, or from the
 * end of the ring on a new boot: history before fpusoakd ran is not its run.
 *
 * A "page allocation failure" line is followed by the task line (its PID)
 * and the Mem-Info dump the kernel prints with it (collector/memdump.h): the
 * records after it are read into the dump until it is complete or over
 * (its end marker, the next failure line, KW_DUMP_RECORDS records or
 * KW_DUMP_MS of printk time), and the failure is then classified against it
 * (daemon/causes.h); a dump still open KW_DUMP_MS after the line (wall
 * clock) at a tick is classified as it stands (incomplete: unknown).
 */
#ifndef FPUSOAK_KWATCH_H
#define FPUSOAK_KWATCH_H

#include <stdint.h>

struct causes;
struct kwatch;
struct store;
struct store_tick;

/* Open path (NULL = /dev/kmsg), resuming from the store's cursor for boot_id (the run's, from envinfo);
 * NULL (reason logged once) if unreadable. */
struct kwatch *kwatch_open(const char *path, const char *boot_id, struct store *st);

/* Close; accepts NULL. */
void kwatch_close(struct kwatch *kw);

/* Where a failing task's /proc entries are read (default "/proc"; the string must outlive kw). */
void kwatch_set_proc_root(struct kwatch *kw, const char *proc_root);

/* The fd to poll for input, -1 for NULL. */
int kwatch_fd(const struct kwatch *kw);

/* Call fn(arg, pid) for every OOM kill seen from now on (to tie kills to our workers). */
void kwatch_on_oom_kill(struct kwatch *kw, void (*fn)(void *arg, int64_t pid), void *arg);

/* Classify failures with c (NULL: failure causes are not recorded); c must outlive kw. */
void kwatch_set_causes(struct kwatch *kw, struct causes *c);

/* Read every record available now; returns how many events were kept. */
int kwatch_drain(struct kwatch *kw, int64_t wall_ms, int64_t mono_us);

/* Move kept events, the cursor and counters into t; 0 or -1 (events stay for the next tick). */
int kwatch_attach(struct kwatch *kw, struct store *st, struct store_tick *t);

/* Cumulative: allocation failures and OOM kills seen (for status and /metrics). */
uint64_t kwatch_alloc_failures(const struct kwatch *kw);
uint64_t kwatch_oom_kills(const struct kwatch *kw);

/* Per-order allocation failures seen since start (order 0..15; larger orders counted at 15). */
const uint64_t *kwatch_failures_by_order(const struct kwatch *kw);

#endif
