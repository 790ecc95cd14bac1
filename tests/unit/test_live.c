/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_live: the core's snapshot as the web process reads it (daemon/live.h):
 * empty until written, a write read back whole, only the used entries of the
 * sets copied, hostile counts clamped, the reader's mapping read-only, a
 * foreign fd refused, and a wait that returns at once on news and times out
 * without.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "daemon/live.h"
#include "tests/unit/test.h"

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(void)
{
	static struct live_data out, src;
	char err[256] = "", path[] = "/tmp/test_live.XXXXXX";
	struct live *lv = live_create(err, sizeof err);
	const struct live_shm *shm;
	struct live_data *d;
	uint64_t s1, s2;
	long long t0;
	int fd;

	T_CHECK(lv != NULL, "live_create: %s", err);
	if (!lv)
		T_DONE();
	shm = live_map(live_fd(lv), err, sizeof err);
	T_CHECK(shm != NULL, "live_map of the core's fd: %s", err);
	if (!shm)
		T_DONE();
	T_EQ_I(live_read(shm, &out), 0, "nothing written yet: seq 0");

	/* A sample and a status, as cmd/front.c writes them. */
	src.vmstat.n = 3;
	for (int i = 0; i < 3; i++) {
		snprintf(src.vmstat.e[i].name, sizeof src.vmstat.e[i].name, "nr_%d", i);
		src.vmstat.e[i].value = 100u + (unsigned)i;
	}
	src.vmstat.e[3].value = 999;   /* beyond n: never copied */
	src.buddy.nzones = 1;
	src.buddy.norders = 11;
	src.buddy.z[0].free[10] = 42;
	d = live_begin(lv);
	T_CHECK((shm->seq & 1) == 1, "seq is odd while the core writes");
	d->run_id = 7;
	d->samples_total = 12;
	d->has_vmstat = d->has_buddy = 1;
	live_copy_kv(&d->vmstat, &src.vmstat);
	live_copy_buddy(&d->buddy, &src.buddy);
	snprintf(d->status, sizeof d->status, "run 7, up 0h00m05s");
	d->healthy = 1;
	d->health_mono_ms = 1234;
	/* What main's /metrics added (issue 16): the probe workers' own counters, unattributed OOM kills. */
	d->has_probe = 1;
	d->probe.spawned = 37;
	d->probe.killed_sigkill = 2;
	d->oom_unattributed = 5;
	/* What main's /metrics added (issues 18, 19): the trace's failures and fallbacks, the module's checks. */
	d->has_trace = 1;
	d->trace_failures[15][2] = 9;
	d->trace_fallbacks = 30;
	d->trace_fragmenting = 11;
	d->gfp_holding = d->model_checking = 1;
	d->model_checks = 8;
	d->model_agreed = 6;
	live_commit(lv);
	s1 = live_read(shm, &out);
	T_CHECK(s1 > 0 && (s1 & 1) == 0, "a write gives an even seq > 0 (%llu)", (unsigned long long)s1);
	T_EQ_I(out.run_id, 7, "run id read back");
	T_EQ_I(out.samples_total, 12, "samples read back");
	T_EQ_I(out.vmstat.n, 3, "vmstat entries read back");
	T_EQ_S(out.vmstat.e[2].name, "nr_2", "vmstat name read back");
	T_EQ_I(out.vmstat.e[2].value, 102, "vmstat value read back");
	T_EQ_I(out.vmstat.e[3].value, 0, "entries beyond n are not copied");
	T_EQ_I(out.buddy.z[0].free[10], 42, "buddyinfo read back");
	T_EQ_S(out.status, "run 7, up 0h00m05s", "status read back");
	T_EQ_I(out.health_mono_ms, 1234, "health stamp read back");
	T_EQ_I(out.has_probe, 1, "probe counters present");
	T_EQ_I(out.probe.spawned, 37, "probe workers spawned read back");
	T_EQ_I(out.probe.killed_sigkill, 2, "probe workers killed read back");
	T_EQ_I(out.oom_unattributed, 5, "unattributed OOM kills read back");
	T_EQ_I(out.has_trace, 1, "trace figures present");
	T_EQ_I(out.trace_failures[15][2], 9, "trace failures at the last order and class read back");
	T_EQ_I(out.trace_fallbacks, 30, "extfrag fallbacks read back");
	T_EQ_I(out.trace_fragmenting, 11, "fragmenting fallbacks read back");
	T_EQ_I(out.gfp_holding, 1, "gfp holding read back");
	T_EQ_I(out.model_checking, 1, "model checking read back");
	T_EQ_I(out.model_checks, 8, "model checks read back");
	T_EQ_I(out.model_agreed, 6, "model checks agreed read back");

	/* Counts out of range (a torn or foreign write) are clamped, never followed. */
	d = live_begin(lv);
	d->vmstat.n = KV_MAX + 1;
	d->buddy.nzones = -3;
	d->norders = 99;
	live_commit(lv);
	s2 = live_read(shm, &out);
	T_CHECK(s2 > s1, "a second write moves seq on");
	T_EQ_I(out.vmstat.n, KV_MAX, "vmstat count over KV_MAX clamped to KV_MAX");
	T_EQ_I(out.buddy.nzones, 0, "negative zone count clamped to 0");
	T_EQ_I(out.norders, 0, "order count over LIVE_MAX_ORDERS clamped to 0");

	/* The reader cannot write: its mapping is read-only, and the fd refuses new writable mappings. */
	{
		void *w = mmap(NULL, sizeof(struct live_shm), PROT_READ | PROT_WRITE, MAP_SHARED, live_fd(lv), 0);
		if (w == MAP_FAILED)
			T_CHECK(errno == EPERM, "a writable mapping of the snapshot is refused with EPERM (%s)", strerror(errno));
		else {
			T_SKIP("this kernel has no F_SEAL_FUTURE_WRITE (before 5.1): a second writable mapping was allowed");
			munmap(w, sizeof(struct live_shm));
		}
	}

	/* Waiting: at once when there is news, the timeout when there is none. */
	t0 = mono_ms();
	live_wait(shm, s1, 2000);
	T_CHECK(mono_ms() - t0 < 500, "live_wait returns at once when seq moved on (%lld ms)", mono_ms() - t0);
	t0 = mono_ms();
	live_wait(shm, s2, 200);
	T_CHECK(mono_ms() - t0 >= 150, "live_wait without news waits its timeout (%lld ms)", mono_ms() - t0);

	/* Not a snapshot: a regular file of another size. */
	fd = mkstemp(path);
	if (fd >= 0 && write(fd, "x", 1) == 1)
		T_CHECK(live_map(fd, err, sizeof err) == NULL, "a foreign fd is refused (%s)", err);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	live_unmap(shm);
	live_close(lv);
	live_close(NULL);
	T_DONE();
}
