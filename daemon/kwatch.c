/* SPDX-License-Identifier: GPL-2.0-only */
/* kwatch: /dev/kmsg → store events; see kwatch.h. */
#include "daemon/kwatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/kmsg.h"
#include "collector/kmsgdev.h"
#include "collector/memdump.h"
#include "collector/task.h"
#include "common/clock.h"
#include "common/log.h"
#include "daemon/causes.h"
#include "store/store.h"

/* Events held between ticks; past this they are counted as dropped (a log storm). */
#define KW_MAX_PENDING 512
#define KW_RAW_MAX 1024
/* A failure's task line ("CPU: N PID: P Comm: C") follows it at once; other CPUs' lines may come between. */
#define KW_TASK_WINDOW 16
#define KW_TASK_WAIT_MS 2000   /* ... and how long a failure waits for it before it is stored without */
/* A dump is over after this many records or this much printk time after its failure line (a 6.x
 * report is ~60 records: the stack, then ~20 of Mem-Info; all printed within milliseconds). */
#define KW_DUMP_RECORDS 400
#define KW_DUMP_MS 3000
/* Classified failures held between ticks (warn_alloc is rate-limited to 10 per 5 s). */
#define KW_MAX_CAUSES 64

/* The failure whose dump is being read. */
struct kw_dump {
	int open;
	int64_t ts_ms;                 /* wall time of the failure line */
	uint64_t ts_usec;              /* its printk stamp */
	uint64_t seq;                  /* its record's sequence number */
	int records;                   /* records read since */
	int64_t pid;                   /* from the task line, -1 until seen */
	struct kmsg_event ev;
	struct memdump md;
};

/* A classified failure waiting for the next tick. */
struct kw_cause {
	uint64_t seq;                  /* the failure record's sequence number */
	struct causes_row row;
	struct kmsg_event ev;
	int64_t pid;
};

struct kw_event {
	int64_t ts_ms;
	uint64_t seq;
	struct kmsg_event ev;
	size_t raw_len;
	char raw[KW_RAW_MAX];
	int has_task;             /* task: read from /proc when its task line came */
	struct task_facts task;
};

struct kwatch {
	struct kmsgdev *dev;
	char boot_id[KMSGDEV_BOOT_ID_LEN + 1];
	struct kw_event *pending;
	int npending;
	uint64_t records, unparsed, dropped, alloc_failures, oom_kills;
	uint64_t by_order[16];
	void (*on_oom)(void *arg, int64_t pid);
	void *on_oom_arg;
	const char *proc_root;
	int await;                /* the pending failure waiting for its task line, or -1 */
	int await_records;        /* records read since it */
	struct causes *causes;
	struct kw_dump dump;
	struct kw_cause *cpending;
	int ncpending;
	uint64_t causes_dropped;
};

void kwatch_set_causes(struct kwatch *kw, struct causes *c)
{
	if (kw)
		kw->causes = c;
}

void kwatch_set_proc_root(struct kwatch *kw, const char *proc_root)
{
	if (kw)
		kw->proc_root = proc_root;
}

void kwatch_on_oom_kill(struct kwatch *kw, void (*fn)(void *arg, int64_t pid), void *arg)
{
	if (!kw)
		return;
	kw->on_oom = fn;
	kw->on_oom_arg = arg;
}

struct kwatch *kwatch_open(const char *path, const char *boot_id, struct store *st)
{
	struct kwatch *kw = calloc(1, sizeof *kw);
	uint64_t seq = 0;
	int have;

	if (!kw || !(kw->pending = calloc(KW_MAX_PENDING, sizeof *kw->pending)) ||
	    !(kw->cpending = calloc(KW_MAX_CAUSES, sizeof *kw->cpending))) {
		kwatch_close(kw);
		return NULL;
	}
	kw->proc_root = "/proc";
	kw->await = -1;
	/* Sequence numbers restart with each boot: without a boot id, never resume by number. */
	if (!boot_id || !kmsgdev_boot_id_valid(boot_id, strlen(boot_id))) {
		snprintf(kw->boot_id, sizeof kw->boot_id, "unknown");
		have = 1;
	} else {
		snprintf(kw->boot_id, sizeof kw->boot_id, "%s", boot_id);
		have = store_kmsg_cursor(st, kw->boot_id, &seq);
	}
	kw->dev = kmsgdev_open(path, have == 0 ? KMSGDEV_AFTER_SEQ : KMSGDEV_FROM_END, seq);
	if (!kw->dev) {
		log_warn("cannot read the kernel log (%s); allocation failures and OOM kills will not be"
			 " recorded", path ? path : "/dev/kmsg");
		kwatch_close(kw);
		return NULL;
	}
	if (have == 0)
		log_info("kernel log: resuming after sequence %llu of this boot", (unsigned long long)seq);
	return kw;
}

void kwatch_close(struct kwatch *kw)
{
	if (!kw)
		return;
	kmsgdev_close(kw->dev);
	free(kw->pending);
	free(kw->cpending);
	free(kw);
}

int kwatch_fd(const struct kwatch *kw)
{
	return kw ? kmsgdev_fd(kw->dev) : -1;
}

static void keep(struct kwatch *kw, const struct kmsg_record *rec, const struct kmsg_event *ev,
		 int64_t wall_ms, int64_t mono_us)
{
	struct kw_event *e;

	if (ev->kind == KMSG_ALLOC_FAIL) {
		kw->alloc_failures++;
		kw->by_order[ev->order < 0 ? 0 : ev->order > 15 ? 15 : ev->order]++;
	} else if (ev->kind == KMSG_OOM_KILL) {
		kw->oom_kills++;
		if (kw->on_oom && ev->pid > 0)
			kw->on_oom(kw->on_oom_arg, ev->pid);
	}
	if (kw->npending >= KW_MAX_PENDING) {
		if (kw->dropped++ == 0)
			log_warnx("kernel log: more than %d events between two ticks; counting the rest only",
				  KW_MAX_PENDING);
		return;
	}
	e = &kw->pending[kw->npending++];
	e->has_task = 0;
	if (ev->kind == KMSG_ALLOC_FAIL && ev->pid < 0) {
		kw->await = kw->npending - 1;
		kw->await_records = 0;
	}
	/* printk stamps are boot-time µs on the clock CLOCK_MONOTONIC follows; map to the wall clock. */
	e->ts_ms = wall_ms - (mono_us - (int64_t)rec->ts_usec) / 1000;
	e->seq = rec->seq;
	e->ev = *ev;
	e->raw_len = rec->msg_len < KW_RAW_MAX ? rec->msg_len : KW_RAW_MAX;
	memcpy(e->raw, rec->msg, e->raw_len);
}

/*
 * The task line of the failure waiting for one: its pid, and at once (the task may exit a moment later) what
 * /proc says of that task, so the reports can tell this run's failures from the machine's (report/whose.h).
 */
static void task_line(struct kwatch *kw, const struct kmsg_record *rec)
{
	struct kmsg_task t;
	struct kw_event *e;

	if (kw->await < 0)
		return;
	if (++kw->await_records > KW_TASK_WINDOW) {
		kw->await = -1;
		return;
	}
	e = &kw->pending[kw->await];
	if (kmsg_parse_task(rec->msg, rec->msg_len, &t) < 0 || !kmsg_task_is(&t, e->ev.comm, e->ev.comm_len))
		return;
	e->ev.pid = t.pid;
	e->has_task = task_read(kw->proc_root, t.pid, e->ev.comm, e->ev.comm_len, &e->task) == 0;
	kw->await = -1;
}

/* Classify the open dump's failure as the dump stands and hold the row for the next tick. */
static void dump_close(struct kwatch *kw)
{
	struct kw_dump *d = &kw->dump;
	struct kw_cause *c;

	if (!d->open)
		return;
	d->open = 0;
	if (!kw->causes)
		return;
	if (kw->ncpending >= KW_MAX_CAUSES) {
		kw->causes_dropped++;
		return;
	}
	c = &kw->cpending[kw->ncpending++];
	causes_from_dump(kw->causes, &d->md, d->ts_ms, d->ev.order < 0 ? 0 : (unsigned)d->ev.order,
			 d->ev.has_gfp_info ? &d->ev.gfp : NULL, d->ev.gfp_flags, strlen(d->ev.gfp_flags), &c->row);
	c->seq = d->seq;
	c->ev = d->ev;
	c->pid = d->pid;
	causes_count(kw->causes, &c->row);
}

/* A failure line: the records after it are its task line and its Mem-Info dump. */
static void dump_open(struct kwatch *kw, const struct kmsg_record *rec, const struct kmsg_event *ev, int64_t ts_ms)
{
	struct kw_dump *d = &kw->dump;

	dump_close(kw);
	d->open = 1;
	d->ts_ms = ts_ms;
	d->ts_usec = rec->ts_usec;
	d->seq = rec->seq;
	d->records = 0;
	d->pid = -1;
	d->ev = *ev;
	memdump_init(&d->md);
}

/* A record after the failure line: its task line (the pid), or a line of the dump. */
static void dump_feed(struct kwatch *kw, const struct kmsg_record *rec)
{
	struct kw_dump *d = &kw->dump;
	struct kmsg_task t;

	if (!d->open)
		return;
	if (++d->records > KW_DUMP_RECORDS || rec->ts_usec > d->ts_usec + (uint64_t)KW_DUMP_MS * 1000) {
		dump_close(kw);
		return;
	}
	if (d->pid < 0 && kmsg_parse_task(rec->msg, rec->msg_len, &t) == 0 &&
	    kmsg_task_is(&t, d->ev.comm, d->ev.comm_len)) {
		d->pid = t.pid;
		return;
	}
	if (memdump_feed(&d->md, rec->msg, rec->msg_len) == MEMDUMP_LINE_END || memdump_complete(&d->md))
		dump_close(kw);
}

int kwatch_drain(struct kwatch *kw, int64_t wall_ms, int64_t mono_us)
{
	struct kmsg_record rec;
	struct kmsg_event ev;
	int kept = 0, rc;

	if (!kw)
		return 0;
	while ((rc = kmsgdev_next(kw->dev, &rec)) == 1) {
		kw->records++;
		switch (kmsg_parse_line(rec.msg, rec.msg_len, &ev)) {
		case KMSG_LINE_EVENT:
			keep(kw, &rec, &ev, wall_ms, mono_us);
			if (ev.kind == KMSG_ALLOC_FAIL)
				dump_open(kw, &rec, &ev, wall_ms - (mono_us - (int64_t)rec.ts_usec) / 1000);
			else
				dump_feed(kw, &rec);
			kept++;
			break;
		case KMSG_LINE_MALFORMED:
			kw->unparsed++;
			dump_feed(kw, &rec);
			break;
		default:
			task_line(kw, &rec);
			dump_feed(kw, &rec);
			break;
		}
	}
	if (rc < 0 && errno != EAGAIN)
		log_warn("kernel log read");
	return kept;
}

int kwatch_attach(struct kwatch *kw, struct store *st, struct store_tick *t)
{
	int valid, keep, ncause;
	uint64_t seq, held = UINT64_MAX;

	if (!kw)
		return 0;
	/*
	 * A failure whose task line has not come yet (the two are separate records, and a tick may fall
	 * between their reads) waits for it up to KW_TASK_WAIT_MS, with everything after it, so it is stored
	 * with its pid and task; the cursor stops before it, so a restart reads it again.
	 */
	keep = kw->npending;
	if (kw->await >= 0 && clock_wall_ms() - kw->pending[kw->await].ts_ms < KW_TASK_WAIT_MS)
		keep = kw->await;
	for (int i = 0; i < keep; i++) {
		struct kw_event *e = &kw->pending[i];
		if (store_tick_event(t, e->ts_ms, kw->boot_id, e->seq, &e->ev, e->raw, e->raw_len) < 0)
			return -1;
		if (e->has_task && store_tick_event_task(t, e->task.ppid, e->task.cgroup) < 0)
			return -1;
	}
	if (keep < kw->npending) {
		held = kw->pending[keep].seq;
		memmove(kw->pending, kw->pending + keep, (size_t)(kw->npending - keep) * sizeof *kw->pending);
		kw->npending -= keep;
		kw->await -= keep;
		seq = kw->pending[0].seq - 1;
		valid = kw->pending[0].seq > 0;
	} else {
		kw->npending = 0;
		/* Waited long enough: a task line from now on is not this failure's. */
		kw->await = -1;
		seq = kmsgdev_last_seq(kw->dev, &valid);
	}
	/* A dump that has not completed in KW_DUMP_MS will not: classify it as it stands. */
	if (kw->dump.open && clock_wall_ms() - kw->dump.ts_ms > KW_DUMP_MS)
		dump_close(kw);
	/* Causes go with their failures: one of a failure held back above waits too (a restart would
	 * read and classify it again). */
	for (ncause = 0; ncause < kw->ncpending && kw->cpending[ncause].seq < held; ncause++)
		;
	for (int i = 0; i < ncause; i++) {
		const struct kw_cause *c = &kw->cpending[i];
		const struct causes_row *r = &c->row;
		struct store_failure_cause fc = {
			.ts_ms = r->ts_ms, .source = r->source, .comm = c->ev.comm, .comm_len = c->ev.comm_len,
			.pid = c->pid, .order = r->order, .gfp_flags = c->ev.gfp_flags[0] ? c->ev.gfp_flags : NULL,
			.cause = r->cause, .node = r->node, .zone = r->zone, .free_kb = r->free_kb, .min_kb = r->min_kb,
			.largest_order = r->largest_order, .has_lag = r->has_lag, .lag_ms = r->lag_ms, .note = r->note,
		};
		if (store_tick_failure_cause(t, &fc) < 0)
			return -1;
	}
	memmove(kw->cpending, kw->cpending + ncause, (size_t)(kw->ncpending - ncause) * sizeof *kw->cpending);
	kw->ncpending -= ncause;
	if (valid)
		store_tick_cursor(t, kw->boot_id, seq);
	store_tick_counter(st, t, "kmsg_records", kw->records);
	store_tick_counter(st, t, "kmsg_lost", kmsgdev_lost(kw->dev));
	store_tick_counter(st, t, "kmsg_unparsed", kw->unparsed + kmsgdev_malformed(kw->dev));
	store_tick_counter(st, t, "kmsg_events_dropped", kw->dropped);
	store_tick_counter(st, t, "kmsg_causes_dropped", kw->causes_dropped);
	return 0;
}

uint64_t kwatch_alloc_failures(const struct kwatch *kw)
{
	return kw ? kw->alloc_failures : 0;
}

uint64_t kwatch_oom_kills(const struct kwatch *kw)
{
	return kw ? kw->oom_kills : 0;
}

const uint64_t *kwatch_failures_by_order(const struct kwatch *kw)
{
	static const uint64_t none[16];
	return kw ? kw->by_order : none;
}
