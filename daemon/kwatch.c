/* SPDX-License-Identifier: GPL-2.0-only */
/* kwatch: /dev/kmsg → store events; see kwatch.h. */
#include "daemon/kwatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/kmsg.h"
#include "collector/kmsgdev.h"
#include "collector/task.h"
#include "common/log.h"
#include "store/store.h"

/* Events held between ticks; past this they are counted as dropped (a log storm). */
#define KW_MAX_PENDING 512
#define KW_RAW_MAX 1024
/* A failure's task line ("CPU: N PID: P Comm: C") follows it at once; other CPUs' lines may come between. */
#define KW_TASK_WINDOW 16

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
};

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

	if (!kw || !(kw->pending = calloc(KW_MAX_PENDING, sizeof *kw->pending))) {
		free(kw);
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
			kept++;
			break;
		case KMSG_LINE_MALFORMED:
			kw->unparsed++;
			break;
		default:
			task_line(kw, &rec);
			break;
		}
	}
	if (rc < 0 && errno != EAGAIN)
		log_warn("kernel log read");
	return kept;
}

int kwatch_attach(struct kwatch *kw, struct store *st, struct store_tick *t)
{
	int valid;
	uint64_t seq;

	if (!kw)
		return 0;
	for (int i = 0; i < kw->npending; i++) {
		struct kw_event *e = &kw->pending[i];
		if (store_tick_event(t, e->ts_ms, kw->boot_id, e->seq, &e->ev, e->raw, e->raw_len) < 0)
			return -1;
		if (e->has_task && store_tick_event_task(t, e->task.ppid, e->task.cgroup) < 0)
			return -1;
	}
	kw->npending = 0;
	/* A failure attached without its task line keeps no pid: the line of a later drain is not matched. */
	kw->await = -1;
	seq = kmsgdev_last_seq(kw->dev, &valid);
	if (valid)
		store_tick_cursor(t, kw->boot_id, seq);
	store_tick_counter(st, t, "kmsg_records", kw->records);
	store_tick_counter(st, t, "kmsg_lost", kmsgdev_lost(kw->dev));
	store_tick_counter(st, t, "kmsg_unparsed", kw->unparsed + kmsgdev_malformed(kw->dev));
	store_tick_counter(st, t, "kmsg_events_dropped", kw->dropped);
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
