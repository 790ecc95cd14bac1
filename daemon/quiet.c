/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * quiet: the daemon steps aside while a guest-scope capacity probe fills
 * the guest (issue 20; daemon.h).  The probe is sent to the spawner only
 * once the daemon has stepped aside: measured in the Xen test guest, a
 * fill that began while the daemon was still letting go held one worker
 * of 1 MiB fewer (36 of 37) than one that began after.
 *
 * Such a probe counts how many workers the whole guest holds, and every
 * page the daemon holds is one a worker cannot have: measured in the Xen
 * test guest, the daemon at rest (core, web process, WAL on tmpfs) cost 5
 * of 38 workers of 1 MiB.  So from the request to the result:
 *   - the web process stops (its socket stays open in the core: requests
 *     wait in the backlog and are answered when it is back);
 *   - the writer lets go of the DB (store_suspend: WAL emptied, connection
 *     closed; ticks are held in memory, bounded by --queue-max, and written
 *     when the fill is over);
 *   - once the web process is gone, the freed heap goes back to the kernel
 *     and the core's locked pages are taken again from scratch (pin_again):
 *     only the code the sampling loop runs during the fill is read back and
 *     locked, not SQLite's.
 * Nothing here blocks the loop: the web process is stopped with SIGTERM
 * (SIGKILL 2 s later) and reaped through its pidfd like any death.
 *   - the trace instance is removed (tracewatch_suspend) and made again
 *     after the fill: on kernels before 6.6 its event files are ~9 MB of
 *     slab, which cost the fill 10 of 37 workers of 1 MiB in the Xen test
 *     guest.  Unregistering and registering tracepoints patches kernel text
 *     (text_poke_bp); that hung the Xen PV test guest under multi-threaded
 *     QEMU TCG, and so did a shell loop that only toggled one event's enable
 *     file, while single-threaded TCG ran 2,173 toggles: an emulator problem
 *     (tests/xen/scenarios/tracepoke.*), not one of this daemon or of Linux.
 * Sampling, the kernel-log reader and the churn link go on unchanged.
 */
#include "daemon/daemon.h"

#include <stdio.h>
#include <sys/epoll.h>

#include "common/clock.h"
#include "common/log.h"
#include "daemon/churnlink.h"
#include "daemon/pin.h"
#include "daemon/tracewatch.h"
#include "store/query.h"
#include "store/store.h"

#define TRACE_RETRY_MS 30000   /* a trace instance that could not be made again is tried this often */

/* Remove the trace instance for the fill; its pipe leaves the loop's epoll first. */
static void trace_off(struct daemon *d)
{
	if (!d->trace || tracewatch_suspended(d->trace))
		return;
	if (tracewatch_fd(d->trace) >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, tracewatch_fd(d->trace), NULL);
	tracewatch_suspend(d->trace, clock_wall_ms(), clock_mono_us());
}

/* Make it again (on kernels before 6.6 that takes seconds under TCG: logged); its pipe joins the epoll. */
static void trace_on(struct daemon *d)
{
	struct epoll_event ev = { .events = EPOLLIN };
	char why[1024];
	int64_t t0 = clock_mono_ms();

	if (!tracewatch_suspended(d->trace) || t0 < d->trace_retry_mono_ms)
		return;
	if (tracewatch_resume(d->trace, why, sizeof why) < 0) {
		log_warnx("trace: the instance could not be made again after the fill: %s; tried again in %d s",
			  why, TRACE_RETRY_MS / 1000);
		d->trace_retry_mono_ms = t0 + TRACE_RETRY_MS;
		return;
	}
	d->trace_retry_mono_ms = 0;
	ev.data.fd = tracewatch_fd(d->trace);
	if (ev.data.fd >= 0 && epoll_ctl(d->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev) < 0)
		log_warn("trace: polling the new instance's pipe (read at each tick only)");
	log_info("trace: instance made again after the fill in %lld ms", (long long)(clock_mono_ms() - t0));
}

/* A probe whose result never comes (a stuck spawner) must not keep the daemon half-gone forever. */
#define QUIET_MAX_MS (10 * 60 * 1000)

/*
 * Once the front end's processes are gone (the web process maps libc and libsqlite3 too, and a page
 * another process maps is never handed back), take the locked pages again from scratch.
 */
static void repin(struct daemon *d)
{
	struct pin_report pr;

	if (d->quiet_pinned || (d->front_open && d->hooks->quiet && !d->hooks->quiet(d->hooks->arg, 1)))
		return;
	d->quiet_pinned = 1;
	pin_again(&pr);
	log_info("stepping aside: %d file mappings handed back, heap trimmed; the fill may begin", pr.mappings);
	churnlink_probe_go(d->churn);
}

static void enter(struct daemon *d)
{
	d->quiet = 1;
	d->quiet_pinned = 0;
	d->quiet_since_mono_ms = clock_mono_ms();
	log_info("capacity probe in guest scope: stepping aside until it is done (web process stopped,"
		 " database writes held in memory)");
	store_suspend(d->store);
	trace_off(d);
	repin(d);
}

/* Back from enter(); quiet becomes next (0, or 2 = gave up while the fill goes on). */
static void leave(struct daemon *d, int next, const char *why)
{
	char err[512];
	size_t held = store_queued(d->store), kib = (store_queued_bytes(d->store) + 1023) / 1024;

	d->quiet = next;
	if (store_resume(d->store, err, sizeof err) < 0)
		log_warnx("database: cannot reopen after the fill: %s; samples stay queued", err);
	/* Stopping: the web process is not started again only to be stopped (the soak scenario's domU fetch
	 * reached one that way, as the daemon went). */
	if (d->front_open && d->hooks->quiet && !d->stop)
		d->hooks->quiet(d->hooks->arg, 0);
	log_info("%s: web process and database writes back (%zu tick(s) held, %zu KiB; %zu still queued)", why,
		 held, kib, store_queued(d->store));
}

void quiet_update(struct daemon *d)
{
	int fill = churnlink_guest_fill(d->churn);

	if (!fill) {
		if (d->quiet == 1)
			leave(d, 0, "capacity probe done");
		d->quiet = 0;
	} else if (d->quiet == 0) {
		if (!d->stop)
			enter(d);
	} else if (d->quiet == 1 && clock_mono_ms() - d->quiet_since_mono_ms > QUIET_MAX_MS) {
		leave(d, 2, "capacity probe still running after 10 minutes; no longer stepping aside");
		churnlink_probe_go(d->churn);
	} else if (d->quiet == 1) {
		repin(d);
	} else {
		churnlink_probe_go(d->churn);   /* gave up stepping aside: the probe runs anyway */
	}
	/* A reopen that failed after a fill is tried again every status period; ticks stay queued meanwhile. */
	if (d->quiet != 1 && store_suspended(d->store) && store_resume(d->store, NULL, 0) == 0)
		log_notice("database: reopened; queued samples written");
}

/*
 * The trace instance is made again after the tick that follows the fill has been stored: making it
 * takes seconds on kernels before 6.6 under TCG (3.5 s measured), and the probe's result, which that
 * tick carries, must not wait for it (a --duration ending meanwhile lost it in the gfp scenario).
 */
void quiet_after_tick(struct daemon *d)
{
	if (d->quiet != 1 && !d->stop)
		trace_on(d);
}

void quiet_end(struct daemon *d)
{
	if (d->quiet == 1)
		leave(d, 0, "stopping");
}
