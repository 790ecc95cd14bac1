/* SPDX-License-Identifier: GPL-2.0-only */
/* pin: lock what the core uses, and only that; see pin.h. */
#define _GNU_SOURCE
#include "daemon/pin.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/maps.h"
#include "common/procfile.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21   /* Linux 5.4; older kernels refuse it and nothing is handed back */
#endif

#define MAPS_CAP (128 * 1024)   /* /proc/self/maps of the core: ~40 lines of ~100 bytes */

/*
 * Drop what the page cache holds of path's bytes [off, off + len) that nobody maps: fault-around maps
 * every cached page near a fault, and the dynamic loader's readahead (or another process's) cached
 * whole libraries, so without this a fault would map, and lock, the neighbours too.
 */
static void uncache(const char *path, size_t plen, uint64_t off, uint64_t len)
{
	char p[PATH_MAX];
	int fd;

	if (plen >= sizeof p || path[0] != '/')
		return;
	memcpy(p, path, plen);
	p[plen] = 0;
	if ((fd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return;
	posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	close(fd);
}

int pin_hand_back(void)
{
	char *buf = malloc(MAPS_CAP);
	ssize_t n = buf ? procfile_read(NULL, "proc/self/maps", buf, MAPS_CAP) : -1;
	size_t pos = 0;
	int done = 0;

	while (n > 0 && pos < (size_t)n) {
		const char *l = buf + pos, *nl = memchr(l, '\n', (size_t)n - pos);
		size_t len = nl ? (size_t)(nl - l) : (size_t)n - pos;
		struct maps_entry e;

		pos += len + 1;
		/* inode 0: anonymous, [heap], [stack], [vdso] ... nothing a file gives back. */
		if (maps_parse_line(l, len, &e) < 0 || !e.inode || !e.path)
			continue;
		/*
		 * Private mappings only (programs and libraries).  A shared one is data: SQLite's -shm, the
		 * live snapshot.  uncache's open and close of the -shm file dropped every fcntl lock this
		 * process held on it (POSIX locks belong to the process and file, not the fd), so the web
		 * process's next connection took SQLite's DMS lock alone, truncated the -shm under the
		 * core's mapping, and the core died of SIGBUS (14_web_process, a kill -9 under load).
		 */
		if (e.perms[3] != 'p')
			continue;
		/* No readahead, code or data (a read-only data fault read 32 pages ahead, and fault-around mapped them). */
		madvise((void *)(uintptr_t)e.start, e.end - e.start, MADV_RANDOM);
		/* Private pages written (relocated GOTs, .data) are anonymous now: MADV_PAGEOUT keeps them. */
		if (madvise((void *)(uintptr_t)e.start, e.end - e.start, MADV_PAGEOUT) < 0)
			continue;
		uncache(e.path, e.path_len, e.offset, e.end - e.start);
		done++;
	}
	free(buf);
	return done;
}

void pin_self(struct pin_report *out)
{
	memset(out, 0, sizeof *out);
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024);
	out->mappings = pin_hand_back();
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0 ||
	    (errno == EINVAL && mlockall(MCL_CURRENT | MCL_FUTURE) == 0)) {   /* kernels before 4.4 */
		out->locked = 1;
		return;
	}
	out->err = errno;
}

void pin_again(struct pin_report *out)
{
	cpu_set_t was, here;
	int cpu = sched_getcpu(), kept = sched_getaffinity(0, sizeof was, &was) == 0;

	/*
	 * MADV_PAGEOUT leaves locked mappings alone, and so does malloc_trim's MADV_DONTNEED of free heap
	 * pages: unlock first, give back, lock again.  On one CPU: munlock hands the pages back to the
	 * LRU through a per-CPU batch that MADV_PAGEOUT drains only on its own CPU, and a page still in
	 * another CPU's batch cannot be paged out (in the 2-vCPU test guest, 348 KB of libsqlite3 stayed
	 * locked that way).
	 */
	CPU_ZERO(&here);
	if (cpu >= 0 && kept) {
		CPU_SET(cpu, &here);
		sched_setaffinity(0, sizeof here, &here);
	}
	munlockall();
	malloc_trim(0);
	pin_self(out);
	if (cpu >= 0 && kept)
		sched_setaffinity(0, sizeof was, &was);
}
