/* SPDX-License-Identifier: GPL-2.0-only */
/* traceinst: fpusoakd's own tracefs instance, made, checked and removed; see traceinst.h. */
#include "daemon/traceinst.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "collector/cexpr.h"
#include "collector/kv.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/procfile.h"

#define TRACEFS_MAGIC 0x74726163
#define ALLOC_DIR "events/kmem/mm_page_alloc"
#define EXTFRAG_DIR "events/kmem/mm_page_alloc_extfrag"
/* pfn is -1 in the ring buffer when an allocation failed (TP_fast_assign), whatever TP_printk shows */
#define FAILED_FILTER "pfn == 0xffffffffffffffff"
/*
 * Per-CPU ring buffer: failures come in bursts (1,221 in 20 s during a fill
 * in the test guest, ~50 bytes each) and are read at least once a second;
 * 64 KiB holds ~1,300 per CPU.  The kernel creates an instance with the
 * default 1.4 MiB per CPU, which this shrinks at once.
 */
#define BUFFER_KB "64"

/* ------------------------------------------------------------ file helpers */

/*
 * Write text and a newline into dirfd/rel in one write, as echo does (the
 * kernel strips it).  Trigger files are opened O_APPEND: O_TRUNC there
 * clears every trigger of the event.  0 or -1 with errno.
 */
static int put(int dirfd, const char *rel, const char *text, int append)
{
	char line[512];
	int fd;
	size_t n = (size_t)snprintf(line, sizeof line, "%s\n", text);
	ssize_t w;
	int saved;

	if (n >= sizeof line) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = openat(dirfd, rel, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -1;
	w = write(fd, line, n);
	saved = errno;
	if (close(fd) < 0 && w == (ssize_t)n)
		return -1;
	errno = saved;
	if (w != (ssize_t)n) {
		if (w >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* Read all of dirfd/rel into buf (NUL-terminated); bytes, or -1 with errno. */
static ssize_t get(int dirfd, const char *rel, char *buf, size_t cap)
{
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = procfile_pread(fd, buf, cap);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

static int fs_mkdir(const struct traceinst_fs *fs, int dirfd, const char *name)
{
	return fs->mkdir ? fs->mkdir(fs->arg, dirfd, name) : mkdirat(dirfd, name, 0750);
}

static int fs_rmdir(const struct traceinst_fs *fs, int dirfd, const char *name)
{
	return fs->rmdir ? fs->rmdir(fs->arg, dirfd, name) : unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Start time (clock ticks after boot) of pid, from proc_root/PID/stat; 0, 1 if there is no such process, -1 if unknown. */
static int start_time(const char *proc_root, int64_t pid, uint64_t *start)
{
	char rel[64], buf[2048];
	ssize_t n;

	snprintf(rel, sizeof rel, "%lld/stat", (long long)pid);
	n = procfile_read(proc_root, rel, buf, sizeof buf);
	if (n < 0)
		return errno == ENOENT || errno == ESRCH ? 1 : -1;
	return trace_stat_starttime(buf, (size_t)n, start) == 0 ? 0 : -1;
}

/* Slab kB from proc_root/meminfo, or -1. */
static int64_t slab_kb(const char *proc_root)
{
	struct kv_set *kv = malloc(sizeof *kv);
	char *buf = malloc(16384);
	ssize_t n = buf ? procfile_read(proc_root, "meminfo", buf, 16384) : -1;
	uint64_t v;
	int64_t r = -1;

	if (kv && n > 0 && meminfo_parse(buf, (size_t)n, kv) == 0 && kv_get(kv, "Slab", &v) == 0)
		r = (int64_t)v;
	free(kv);
	free(buf);
	return r;
}

/* MemAvailable kB from proc_root/meminfo, or -1. */
static int64_t available_kb(const char *proc_root)
{
	struct kv_set *kv = malloc(sizeof *kv);
	char *buf = malloc(16384);
	ssize_t n = buf ? procfile_read(proc_root, "meminfo", buf, 16384) : -1;
	uint64_t v;
	int64_t r = -1;

	if (kv && n > 0 && meminfo_parse(buf, (size_t)n, kv) == 0 && kv_get(kv, "MemAvailable", &v) == 0)
		r = (int64_t)v;
	free(kv);
	free(buf);
	return r;
}

/* Event folders under root/events/SYSTEM/: every one gets its own files in a new instance. */
static long count_events(const char *root)
{
	char path[PATH_MAX + 16];
	DIR *d, *sd;
	struct dirent *de, *e;
	long n = 0;

	snprintf(path, sizeof path, "%s/events", root);
	if (!(d = opendir(path)))
		return -1;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.' || (fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;
		if (!(sd = fdopendir(fd))) {
			close(fd);
			continue;
		}
		while ((e = readdir(sd)))
			n += e->d_name[0] != '.' && e->d_type == DT_DIR;
		closedir(sd);
	}
	closedir(d);
	return n;
}

/* ------------------------------------------------------------ stale instances */

/* Remove fpusoakd's triggers from inst/EXTFRAG_DIR/trigger; how many were left that are not ours, or -1. */
static int remove_our_triggers(int inst_fd)
{
	char buf[8192], out[TRACE_HIST_TRIGGER_MAX + 2];
	ssize_t n = get(inst_fd, EXTFRAG_DIR "/trigger", buf, sizeof buf);
	size_t pos = 0;
	int foreign = 0;

	if (n < 0)
		return errno == ENOENT ? 0 : -1;
	while (pos < (size_t)n) {
		const char *nl = memchr(buf + pos, '\n', (size_t)n - pos);
		size_t len = nl ? (size_t)(nl - buf) - pos : (size_t)n - pos;
		int r = trace_trigger_removal(buf + pos, len, out, sizeof out);

		if (r == 1) {
			if (put(inst_fd, EXTFRAG_DIR "/trigger", out, 1) < 0)
				foreign++;
		} else if (len > 0 && buf[pos] != '#') {
			foreign++;
		}
		pos += len + 1;
	}
	return foreign;
}

/* Disable what fpusoakd enables, remove its triggers, then the folder; 0 or -1 with errno. */
static int remove_instance(int instances_fd, const char *name, const struct traceinst_fs *fs)
{
	int fd = openat(instances_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int foreign;

	if (fd >= 0) {
		put(fd, ALLOC_DIR "/enable", "0", 0);
		put(fd, EXTFRAG_DIR "/enable", "0", 0);
		foreign = remove_our_triggers(fd);
		close(fd);
		if (foreign > 0) {
			/* Someone else set triggers here: not an instance fpusoakd left as it was. */
			errno = EBUSY;
			return -1;
		}
	}
	return fs_rmdir(fs, instances_fd, name);
}

int traceinst_remove_stale(int instances_fd, const char *proc_root, const struct traceinst_fs *fs)
{
	static const struct traceinst_fs kernel_fs;
	int dfd = dup(instances_fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	int removed = 0;

	if (!fs)
		fs = &kernel_fs;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		int64_t pid;
		uint64_t start, now;
		int alive;

		if (trace_instance_parse(de->d_name, strlen(de->d_name), &pid, &start) < 0)
			continue;            /* anyone else's: never touched, not even read */
		alive = start_time(proc_root, pid, &now);
		if (alive < 0 || (alive == 0 && now == start))
			continue;            /* its fpusoakd runs (or we cannot tell): leave it */
		if (remove_instance(instances_fd, de->d_name, fs) == 0) {
			log_notice("trace: removed instance %s, left by a fpusoakd that is gone", de->d_name);
			removed++;
		} else {
			log_warn("trace: cannot remove instance %s left by a fpusoakd that is gone", de->d_name);
		}
	}
	closedir(d);
	return removed;
}


/* ------------------------------------------------------------ setup */

/* The tracefs root under sys_root; 0, or -1 with the reason in why. */
static int find_root(const char *sys_root, char *out, size_t outlen, char *why, size_t whylen)
{
	static const char *const rel[] = { "kernel/tracing", "kernel/debug/tracing" };
	char canon[PATH_MAX];
	int real = realpath(sys_root, canon) && strcmp(canon, "/sys") == 0;

	for (int i = 0; i < 2; i++) {
		struct statfs sf;
		struct stat st;

		if (procfile_path(sys_root, rel[i], out, outlen) < 0)
			continue;
		/* An empty /sys/kernel/tracing is only a mount point: tracefs must really be there. */
		if (real && (statfs(out, &sf) < 0 || sf.f_type != TRACEFS_MAGIC))
			continue;
		if (fstatat(AT_FDCWD, out, &st, 0) == 0 && S_ISDIR(st.st_mode))
			return 0;
	}
	snprintf(why, whylen, "not mounted: neither %s/kernel/tracing nor %s/kernel/debug/tracing is tracefs", sys_root, sys_root);
	return -1;
}

/*
 * Before 6.6 (eventfs) mkdir of an instance creates every event's files at
 * once, and the kernel also gives the instance a ring buffer of the default
 * 1.4 MiB per CPU until it is shrunk.  In the 79 MB Xen test guest that was
 * EVENT_BYTES per event folder plus the buffers, 12 MB in all, and a second
 * instance made while a crashed run's was still there took the guest down
 * (OOM with nothing left to kill).  So an instance is made only with twice its estimated cost
 * available; newer kernels need less, the estimate errs on the safe side.
 */
#define EVENT_BYTES 6600                /* the Debian 6.1 Xen guest: Slab +9,440 kB for 1,470 events */
#define RING_KB_PER_CPU 1410

static int enough_memory(const char *root, const char *proc_root, char *why, size_t whylen)
{
	long events = count_events(root), cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t avail = available_kb(proc_root), need;

	if (events < 0 || avail < 0)
		return 0;                       /* cannot tell: the kernel's own checks are all there is */
	need = (int64_t)events * EVENT_BYTES / 1024 + (cpus > 0 ? cpus : 1) * RING_KB_PER_CPU;
	if (avail >= 2 * need)
		return 0;
	snprintf(why, whylen, "too little memory for an instance: about %lld kB for %ld events' files and ring buffers, "
		 "%lld kB available (want twice the cost)", (long long)need, events, (long long)avail);
	return -1;
}

/* Three hist triggers on the extfrag event, one per allocating migrate type. */
static void trigger_text(char *out, size_t len, int mt, int remove)
{
	snprintf(out, len, "%shist:keys=" TRACE_EXTFRAG_KEYS ":vals=hitcount if alloc_migratetype == %d", remove ? "!" : "", mt);
}

static void drop_triggers(struct traceinst *ti)
{
	char t[256];

	for (int mt = ti->ntriggers - 1; mt >= 0; mt--) {
		trigger_text(t, sizeof t, mt, 1);
		if (put(ti->inst_fd, EXTFRAG_DIR "/trigger", t, 1) < 0)
			log_warn("trace: removing trigger '%s'", t + 1);
	}
	ti->ntriggers = 0;
}

/* mm_page_alloc, failures only: the filter first, so no success ever reaches the buffer. */
static int setup_alloc(struct traceinst *ti, char *note, size_t len)
{
	char *fmt = malloc(65536);
	ssize_t n = fmt ? get(ti->inst_fd, ALLOC_DIR "/format", fmt, 65536) : -1;

	if (n > 0)
		ti->has_gfp = gfp_table_parse_format(fmt, (size_t)n, &ti->gfp) == 0;
	free(fmt);
	if (put(ti->inst_fd, ALLOC_DIR "/filter", FAILED_FILTER, 0) < 0) {
		snprintf(note, len, "mm_page_alloc off (filter refused: %s)", strerror(errno));
		return -1;
	}
	if (put(ti->inst_fd, ALLOC_DIR "/enable", "1", 0) < 0) {
		snprintf(note, len, "mm_page_alloc off (enable: %s)", strerror(errno));
		put(ti->inst_fd, ALLOC_DIR "/filter", "0", 0);
		return -1;
	}
	ti->alloc_on = 1;
	snprintf(note, len, "mm_page_alloc failures (in-kernel filter %s%s)", FAILED_FILTER,
		 ti->has_gfp ? "" : "; no gfp table in its format: masks not recorded");
	return 0;
}

/* mm_page_alloc_extfrag: histograms in the kernel, else the event through the pipe. */
static int setup_extfrag(struct traceinst *ti, char *note, size_t len)
{
	char t[256], fmt[8192];
	ssize_t n = get(ti->inst_fd, EXTFRAG_DIR "/format", fmt, sizeof fmt);
	const char *arg;
	size_t alen;
	uint64_t v;
	int saved = 0;

	if (n > 0 && cexpr_print_arg(fmt, (size_t)n, "pageblock_order", &arg, &alen) == 0 &&
	    cexpr_eval(arg, alen, &v) == 0 && v < 64)
		ti->pageblock_order = (int)v;
	for (int mt = 0; mt < TRACEINST_NMT; mt++) {
		trigger_text(t, sizeof t, mt, 0);
		if (put(ti->inst_fd, EXTFRAG_DIR "/trigger", t, 1) < 0) {
			saved = errno;
			break;
		}
		ti->ntriggers++;
	}
	if (ti->ntriggers == TRACEINST_NMT) {
		ti->hist_fd = openat(ti->inst_fd, EXTFRAG_DIR "/hist", O_RDONLY | O_CLOEXEC);
		if (ti->hist_fd >= 0) {
			ti->extfrag_mode = 1;
			snprintf(note, len, "mm_page_alloc_extfrag in-kernel histograms (%d hist triggers: keys %s, one per alloc_migratetype)",
				 TRACEINST_NMT, TRACE_EXTFRAG_KEYS);
			return 0;
		}
		saved = errno;
	}
	drop_triggers(ti);
	if (put(ti->inst_fd, EXTFRAG_DIR "/enable", "1", 0) < 0) {
		snprintf(note, len, "mm_page_alloc_extfrag off (hist trigger: %s; enable: %s)", strerror(saved), strerror(errno));
		return -1;
	}
	ti->extfrag_mode = 2;
	snprintf(note, len, "mm_page_alloc_extfrag through the pipe, counted by fpusoakd (hist trigger refused: %s)", strerror(saved));
	return 0;
}

void traceinst_close(struct traceinst *ti)
{
	close_fd(&ti->pipe_fd);
	close_fd(&ti->hist_fd);
	if (ti->inst_fd >= 0) {
		if (ti->alloc_on)
			put(ti->inst_fd, ALLOC_DIR "/enable", "0", 0);
		if (ti->extfrag_mode == 2)
			put(ti->inst_fd, EXTFRAG_DIR "/enable", "0", 0);
		drop_triggers(ti);
		close_fd(&ti->inst_fd);
	}
	if (ti->instances_fd >= 0 && ti->name[0]) {
		if (fs_rmdir(&ti->fs, ti->instances_fd, ti->name) < 0)
			log_warn("trace: cannot remove instance %s/instances/%s", ti->root, ti->name);
		else
			log_info("trace: instance %s removed", ti->name);
		ti->name[0] = '\0';
	}
	close_fd(&ti->instances_fd);
}

int traceinst_open(struct traceinst *ti, const struct traceinst_opts *o, char *why, size_t whylen)
{
	const char *proc_root = o->proc_root ? o->proc_root : "/proc";
	char path[PATH_MAX + 32], alloc_note[256] = "", extfrag_note[256] = "";
	int64_t pid = o->pid > 0 ? o->pid : (int64_t)getpid(), slab0, slab1, t0;
	uint64_t start;
	int stale;

	memset(ti, 0, sizeof *ti);
	ti->instances_fd = ti->inst_fd = ti->pipe_fd = ti->hist_fd = -1;
	ti->pageblock_order = -1;
	if (o->fs)
		ti->fs = *o->fs;
	if (find_root(o->sys_root ? o->sys_root : "/sys", ti->root, sizeof ti->root, why, whylen) < 0)
		goto fail;
	snprintf(path, sizeof path, "%s/instances", ti->root);
	ti->instances_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ti->instances_fd < 0) {
		snprintf(why, whylen, "%s: %s (a kernel without trace instances?)", path, strerror(errno));
		goto fail;
	}
	if (start_time(proc_root, pid, &start) != 0 || trace_instance_name(pid, start, ti->name, sizeof ti->name) < 0) {
		snprintf(why, whylen, "cannot read this process's start time in %s/%lld/stat", proc_root, (long long)pid);
		ti->name[0] = '\0';
		goto fail;
	}
	/* Stale instances first: on small guests their memory is what a new one needs. */
	stale = traceinst_remove_stale(ti->instances_fd, proc_root, &ti->fs);
	if (enough_memory(ti->root, proc_root, why, whylen) < 0) {
		ti->name[0] = '\0';
		goto fail;
	}
	slab0 = slab_kb(proc_root);
	t0 = clock_mono_ms();
	if (fs_mkdir(&ti->fs, ti->instances_fd, ti->name) < 0) {
		snprintf(why, whylen, "%s: %s/instances/%s: %s", errno == EROFS || errno == EACCES || errno == EPERM ?
			 "not writable" : "cannot create an instance", ti->root, ti->name, strerror(errno));
		ti->name[0] = '\0';
		goto fail;
	}
	ti->inst_fd = openat(ti->instances_fd, ti->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ti->inst_fd < 0) {
		snprintf(why, whylen, "instances/%s: %s", ti->name, strerror(errno));
		goto fail;
	}
	/* Our own settings, before any event is on (changing the clock empties the buffer). */
	if (put(ti->inst_fd, "buffer_size_kb", BUFFER_KB, 0) < 0) {
		snprintf(why, whylen, "instances/%s/buffer_size_kb: %s (not a tracefs instance?)", ti->name, strerror(errno));
		goto fail;
	}
	ti->mono_clock = put(ti->inst_fd, "trace_clock", "mono", 0) == 0;
	put(ti->inst_fd, "buffer_percent", "0", 0);      /* absent before 5.1: poll then wakes on any data anyway */
	setup_alloc(ti, alloc_note, sizeof alloc_note);
	setup_extfrag(ti, extfrag_note, sizeof extfrag_note);
	if (!ti->alloc_on && !ti->extfrag_mode) {
		snprintf(why, whylen, "instance %s set up nothing: %s; %s", ti->name, alloc_note, extfrag_note);
		goto fail;
	}
	if (ti->alloc_on || ti->extfrag_mode == 2) {
		ti->pipe_fd = openat(ti->inst_fd, "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (ti->pipe_fd < 0) {
			snprintf(why, whylen, "instances/%s/trace_pipe: %s", ti->name, strerror(errno));
			goto fail;
		}
	}
	slab1 = slab_kb(proc_root);
	{
		/* What making it cost: on kernels before 6.6 mkdir builds every event's files (seconds under TCG). */
		char cost[128];
		int n = snprintf(cost, sizeof cost, "; set up in %lld ms", (long long)(clock_mono_ms() - t0));
		if (slab0 >= 0 && slab1 >= 0 && n > 0 && (size_t)n < sizeof cost)
			snprintf(cost + n, sizeof cost - (size_t)n, ", Slab %+lld kB", (long long)(slab1 - slab0));
		snprintf(why, whylen, "%s/instances/%s; %s; %s; %s KiB per CPU, %s clock%s%s", ti->root, ti->name,
			 alloc_note, extfrag_note, BUFFER_KB, ti->mono_clock ? "mono" : "local",
			 cost, stale > 0 ? "; removed a stale instance" : "");
	}
	return 0;
fail:
	traceinst_close(ti);
	return -1;
}
