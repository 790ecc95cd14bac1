/* SPDX-License-Identifier: GPL-2.0-only */
/* tracewatch: fpusoakd's own tracefs instance; see tracewatch.h. */
#include "daemon/tracewatch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector/gfp.h"
#include "collector/procfile.h"
#include "common/log.h"
#include "store/store.h"

#define NMT TRACEINST_NMT
#define ORD 16                         /* orders kept apart in the growth table; more is "other" */
#define FMT 8                          /* fallback migrate types */
#define RBUF (64 * 1024)
#define HISTBUF (512 * 1024)

#define TRACEWATCH_TASK_READS 64   /* /proc lookups of failing tasks per tick */

struct tracewatch {
	struct traceinst in;
	struct tracewatch_opts opts;       /* what made the instance: tracewatch_resume makes it again */
	int suspended;                     /* the instance is removed for a guest-scope fill */
	char part[TRACE_LINE_MAX + 1];     /* a line cut by the last read */
	size_t part_len;
	int part_skip;                     /* inside an over-long line: drop until its '\n' */
	char *rbuf, *histbuf;
	struct trace_hists *hists;
	uint64_t *seen;                    /* [NMT][ORD][ORD][FMT]: hitcounts at the last sample */
	struct tracewatch_failure *pending;
	int task_reads;                    /* failures of this tick whose task was looked up */
	struct store_trace_failure *conv;  /* pending, as the store takes them */
	int npending;
	struct store_extfrag tick[TRACEWATCH_EXTFRAG_MAX];
	int ntick;
	struct tracewatch_totals tot;
	uint64_t hist_dropped;
	char err_logged[8];
};

static void free_tw(struct tracewatch *tw)
{
	if (!tw)
		return;
	free(tw->rbuf);
	free(tw->histbuf);
	free(tw->hists);
	free(tw->seen);
	free(tw->pending);
	free(tw->conv);
	free(tw);
}

struct tracewatch *tracewatch_open(const struct tracewatch_opts *o, char *why, size_t whylen)
{
	struct tracewatch *tw = calloc(1, sizeof *tw);
	struct traceinst_opts io = { o->sys_root, o->proc_root, o->fs, o->pid };

	if (!tw || !(tw->rbuf = malloc(RBUF)) || !(tw->histbuf = malloc(HISTBUF)) || !(tw->hists = malloc(sizeof *tw->hists)) ||
	    !(tw->seen = calloc(NMT * ORD * ORD * FMT, sizeof *tw->seen)) ||
	    !(tw->pending = calloc(TRACEWATCH_PENDING_MAX, sizeof *tw->pending)) ||
	    !(tw->conv = calloc(TRACEWATCH_PENDING_MAX, sizeof *tw->conv))) {
		snprintf(why, whylen, "out of memory");
		free_tw(tw);
		return NULL;
	}
	if (traceinst_open(&tw->in, &io, why, whylen) < 0) {
		free_tw(tw);
		return NULL;
	}
	tw->opts = *o;
	return tw;
}

/*
 * Before kernel 6.6 an instance's event files are made at mkdir and stay for its life: measured in
 * the Xen test guest (6.1), the instance held 9.4 MB of slab that a guest-scope capacity probe could
 * not fill, 10 of 37 workers of 1 MiB (bench/RESULTS.md).  So it is removed for such a fill and made
 * again after it: what the fill itself makes fail is not traced (the probe is meant to fill the
 * guest to failure; those failures are the probe's, not the soak's), and the ticks of the fill
 * carry no trace, so the rollups know it was off.
 */
int tracewatch_suspend(struct tracewatch *tw, int64_t wall_ms, int64_t mono_us)
{
	if (!tw || tw->suspended)
		return 0;
	tracewatch_drain(tw, wall_ms, mono_us);
	tracewatch_sample(tw);
	traceinst_close(&tw->in);
	tw->suspended = 1;
	tw->part_len = 0;
	tw->part_skip = 0;
	/* the new instance's histograms start from zero */
	memset(tw->seen, 0, (size_t)NMT * ORD * ORD * FMT * sizeof *tw->seen);
	return 0;
}

int tracewatch_resume(struct tracewatch *tw, char *why, size_t whylen)
{
	struct traceinst_opts io;

	if (!tw || !tw->suspended)
		return 0;
	io = (struct traceinst_opts){ tw->opts.sys_root, tw->opts.proc_root, tw->opts.fs, tw->opts.pid };
	if (traceinst_open(&tw->in, &io, why, whylen) < 0)
		return -1;
	tw->suspended = 0;
	return 0;
}

int tracewatch_suspended(const struct tracewatch *tw)
{
	return tw && tw->suspended;
}

void tracewatch_close(struct tracewatch *tw)
{
	if (!tw)
		return;
	log_info("trace: %llu failed allocations, %llu fallbacks (%llu fragmenting), %llu lost, %llu unparsed; "
		 "pipe read %llu times (%llu found nothing) in %llu us, histograms %llu times in %llu us",
		 (unsigned long long)tw->tot.failures, (unsigned long long)tw->tot.extfrag,
		 (unsigned long long)tw->tot.fragmenting, (unsigned long long)tw->tot.lost,
		 (unsigned long long)tw->tot.unparsed, (unsigned long long)tw->tot.drains,
		 (unsigned long long)tw->tot.empty_drains, (unsigned long long)tw->tot.pipe_us,
		 (unsigned long long)tw->tot.samples, (unsigned long long)tw->tot.hist_us);
	traceinst_close(&tw->in);
	free_tw(tw);
}

int tracewatch_fd(const struct tracewatch *tw)
{
	return tw ? tw->in.pipe_fd : -1;
}

const char *tracewatch_instance(const struct tracewatch *tw)
{
	return tw ? tw->in.name : "";
}

const struct tracewatch_totals *tracewatch_totals(const struct tracewatch *tw)
{
	static const struct tracewatch_totals none;
	return tw ? &tw->tot : &none;
}

const struct tracewatch_failure *tracewatch_failures(const struct tracewatch *tw, int *n)
{
	*n = tw ? tw->npending : 0;
	return tw ? tw->pending : NULL;
}

const struct store_extfrag *tracewatch_extfrags(const struct tracewatch *tw, int *n)
{
	*n = tw ? tw->ntick : 0;
	return tw ? tw->tick : NULL;
}

/* ------------------------------------------------------------ reading */

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void once(struct tracewatch *tw, int which, const char *what)
{
	if (!tw->err_logged[which]++)
		log_warn("trace: %s", what);
}

/* Count n fallbacks of one kind in this tick. */
static void add_extfrag(struct tracewatch *tw, int ao, int fo, int amt, int fmt, int fragmenting, uint64_t n)
{
	struct store_extfrag *x;

	tw->tot.extfrag += n;
	if (fragmenting > 0)
		tw->tot.fragmenting += n;
	for (int i = 0; i < tw->ntick; i++) {
		x = &tw->tick[i];
		if (x->alloc_order == ao && x->fallback_order == fo && x->alloc_migratetype == amt && x->fallback_migratetype == fmt) {
			x->events += n;
			return;
		}
	}
	if (tw->ntick == TRACEWATCH_EXTFRAG_MAX) {
		tw->tot.other += n;
		return;
	}
	tw->tick[tw->ntick++] = (struct store_extfrag){ ao, fo, amt, fmt, fragmenting, n };
}

static int fragmenting_of(const struct tracewatch *tw, int fallback_order)
{
	return tw->in.pageblock_order < 0 ? -1 : fallback_order < tw->in.pageblock_order;
}

static void keep_failure(struct tracewatch *tw, const struct trace_event *ev, int64_t wall_ms, int64_t mono_us)
{
	struct tracewatch_failure *f;

	tw->tot.failures++;
	tw->tot.by_order[ev->u.alloc.order > 15 ? 15 : ev->u.alloc.order]++;
	tw->tot.by_oc[ev->u.alloc.order > 15 ? 15 : ev->u.alloc.order][gfp_classify(&ev->u.alloc.gfp)]++;
	if (tw->npending == TRACEWATCH_PENDING_MAX) {
		if (tw->tot.failures_dropped++ == 0)
			log_warnx("trace: more than %d failed allocations between two ticks; counting the rest only",
				  TRACEWATCH_PENDING_MAX);
		return;
	}
	f = &tw->pending[tw->npending++];
	memset(f, 0, sizeof *f);
	/* mono stamps map to the wall clock like printk stamps do in kwatch; other clocks only to "now" */
	f->ts_ms = tw->in.mono_clock ? wall_ms - (mono_us - (int64_t)ev->ts_us) / 1000 : wall_ms;
	memcpy(f->comm, ev->comm, ev->comm_len + 1);
	f->pid = ev->pid;
	f->order = ev->u.alloc.order;
	f->migratetype = ev->u.alloc.migratetype;
	snprintf(f->gfp_flags, sizeof f->gfp_flags, "%s", ev->u.alloc.gfp_flags);
	f->has_mask = tw->in.has_gfp &&
		      gfp_table_mask(&tw->in.gfp, ev->u.alloc.gfp_flags, strlen(ev->u.alloc.gfp_flags), &f->gfp_mask) == 0;
	f->nowarn = gfp_is_nowarn(&ev->u.alloc.gfp);
	f->opportunistic = gfp_is_opportunistic(&ev->u.alloc.gfp);
	f->atomic = gfp_is_atomic(&ev->u.alloc.gfp);
	/*
	 * Whose failure: what /proc says of the task now (it may be gone a moment later), for the first
	 * TRACEWATCH_TASK_READS of a tick (three small reads each; a storm past that stays unattributed).
	 * "<...>" is the trace's own "comm not cached": no comm to check the pid against.
	 */
	if (tw->task_reads < TRACEWATCH_TASK_READS) {
		tw->task_reads++;
		f->has_task = task_read(tw->opts.proc_root ? tw->opts.proc_root : "/proc", ev->pid,
					strcmp(f->comm, "<...>") == 0 ? NULL : f->comm, strlen(f->comm), &f->task) == 0;
	}
}

static void one_line(struct tracewatch *tw, const char *line, size_t len, int64_t wall_ms, int64_t mono_us)
{
	struct trace_event ev;

	switch (trace_parse_line(line, len, &ev)) {
	case TRACE_LINE_EVENT:
		if (ev.kind == TRACE_PAGE_ALLOC && ev.u.alloc.failed)
			keep_failure(tw, &ev, wall_ms, mono_us);
		else if (ev.kind == TRACE_EXTFRAG && tw->in.extfrag_mode == 2) {
			if (tw->in.pageblock_order < 0)
				tw->in.pageblock_order = ev.u.extfrag.pageblock_order;
			add_extfrag(tw, ev.u.extfrag.alloc_order, ev.u.extfrag.fallback_order, ev.u.extfrag.alloc_migratetype,
				    ev.u.extfrag.fallback_migratetype, ev.u.extfrag.fragmenting, 1);
		} else if (ev.kind == TRACE_LOST)
			tw->tot.lost += ev.u.lost.events ? ev.u.lost.events : 1;
		else
			tw->tot.other++;
		break;
	case TRACE_LINE_MALFORMED:
		tw->tot.unparsed++;
		break;
	default:
		if (len)
			tw->tot.other++;
	}
}

/* Split a read into lines; a line cut by the read waits in part. */
static void feed(struct tracewatch *tw, const char *buf, size_t n, int64_t wall_ms, int64_t mono_us)
{
	size_t pos = 0;

	while (pos < n) {
		const char *nl = memchr(buf + pos, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - buf) - pos : n - pos;

		if (tw->part_skip) {
			if (nl)
				tw->part_skip = 0;
		} else if (tw->part_len + len > TRACE_LINE_MAX) {
			tw->tot.unparsed++;      /* no line of ours is this long */
			tw->part_len = 0;
			tw->part_skip = !nl;
		} else if (!nl) {
			memcpy(tw->part + tw->part_len, buf + pos, len);
			tw->part_len += len;
		} else if (tw->part_len) {
			memcpy(tw->part + tw->part_len, buf + pos, len);
			one_line(tw, tw->part, tw->part_len + len, wall_ms, mono_us);
			tw->part_len = 0;
		} else {
			one_line(tw, buf + pos, len, wall_ms, mono_us);
		}
		pos += len + (nl ? 1 : 0);
	}
}

int tracewatch_drain(struct tracewatch *tw, int64_t wall_ms, int64_t mono_us)
{
	size_t total = 0;
	uint64_t before;

	uint64_t t0;
	int rc = 0;

	if (!tw || tw->in.pipe_fd < 0)
		return 0;
	t0 = now_us();
	before = tw->tot.failures + tw->tot.extfrag;
	while (total < TRACEWATCH_READ_MAX) {
		ssize_t n = read(tw->in.pipe_fd, tw->rbuf, RBUF);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				once(tw, 0, "trace_pipe read");
				rc = -1;
			}
			break;
		}
		if (n == 0)
			break;
		total += (size_t)n;
		feed(tw, tw->rbuf, (size_t)n, wall_ms, mono_us);
	}
	tw->tot.pipe_us += now_us() - t0;
	tw->tot.drains++;
	tw->tot.empty_drains += total == 0;
	return rc < 0 ? rc : (int)(tw->tot.failures + tw->tot.extfrag - before);
}

/* Turn the histograms' growth since the last sample into this tick's counts. */
static void hist_growth(struct tracewatch *tw);

int tracewatch_sample(struct tracewatch *tw)
{
	uint64_t t0;
	ssize_t n;
	int rc = 0;

	if (!tw || tw->suspended || tw->in.extfrag_mode != 1)
		return 0;
	t0 = now_us();
	n = procfile_pread(tw->in.hist_fd, tw->histbuf, HISTBUF);
	if (n < 0) {
		once(tw, 1, "reading the extfrag histograms");
		rc = -1;
	} else if (trace_hist_parse(tw->histbuf, (size_t)n, tw->hists) < 0) {
		once(tw, 2, "the extfrag histograms do not parse; fallbacks are not counted");
		rc = -1;
	} else {
		hist_growth(tw);
	}
	tw->tot.hist_us += now_us() - t0;
	tw->tot.samples++;
	return rc;
}

static void hist_growth(struct tracewatch *tw)
{
	for (int h = 0; h < tw->hists->nh; h++) {
		const struct trace_hist *hh = &tw->hists->h[h];
		int ka = trace_hist_key(hh, "alloc_order"), kf = trace_hist_key(hh, "fallback_order");
		int km = trace_hist_key(hh, "fallback_migratetype");
		int64_t amt;

		/* only histograms of our own triggers: the alloc_migratetype filter says which */
		if (trace_hist_filter_eq(hh, "alloc_migratetype", &amt) < 0 || amt < 0 || amt >= NMT || ka < 0 || kf < 0 || km < 0)
			continue;
		if (hh->dropped > tw->hist_dropped) {
			tw->hist_dropped = hh->dropped;
			once(tw, 3, "an extfrag histogram is full (the kernel dropped fallbacks of new kinds)");
		}
		for (int i = hh->first; i < hh->first + hh->n; i++) {
			const struct trace_hist_entry *e = &tw->hists->e[i];
			uint64_t ao = e->key[ka], fo = e->key[kf], fm = e->key[km], *seen, d;

			if (ao >= ORD || fo >= ORD || fm >= FMT) {
				tw->tot.other++;
				continue;
			}
			seen = &tw->seen[((amt * ORD + ao) * ORD + fo) * FMT + fm];
			/* a count below the last one means the histogram was cleared: all of it is new */
			d = e->hitcount >= *seen ? e->hitcount - *seen : e->hitcount;
			*seen = e->hitcount;
			if (d)
				add_extfrag(tw, (int)ao, (int)fo, (int)amt, (int)fm, fragmenting_of(tw, (int)fo), d);
		}
	}
}

int tracewatch_attach(struct tracewatch *tw, struct store *st, struct store_tick *t)
{
	/* Removed for a fill, with nothing left from before: the tick carries no trace. */
	if (!tw || (tw->suspended && !tw->npending && !tw->ntick))
		return 0;
	for (int i = 0; i < tw->npending; i++) {
		const struct tracewatch_failure *f = &tw->pending[i];
		tw->conv[i] = (struct store_trace_failure){
			.ts_ms = f->ts_ms, .pid = f->pid, .comm = f->comm, .comm_len = strlen(f->comm),
			.order = f->order, .migratetype = f->migratetype, .gfp_flags = f->gfp_flags,
			.has_mask = f->has_mask, .gfp_mask = f->gfp_mask, .nowarn = f->nowarn,
			.opportunistic = f->opportunistic, .atomic = f->atomic,
			.has_task = f->has_task, .task_ppid = f->task.ppid, .task_cgroup = f->task.cgroup,
		};
	}
	if (store_tick_trace(t, tw->conv, tw->npending, tw->tick, tw->ntick) < 0)
		return -1;            /* out of memory: kept for the next tick */
	tw->npending = 0;
	tw->ntick = 0;
	tw->task_reads = 0;
	/* What the rows cannot show: failures past the per-tick bound, ring-buffer overruns, lines that did not parse. */
	store_tick_counter(st, t, "trace_alloc_failures_dropped", tw->tot.failures_dropped);
	store_tick_counter(st, t, "trace_lost", tw->tot.lost);
	store_tick_counter(st, t, "trace_unparsed", tw->tot.unparsed);
	return 0;
}
