/* SPDX-License-Identifier: GPL-2.0-only */
/* tracewatch: fpusoakd's own tracefs instance; see tracewatch.h. */
#include "daemon/tracewatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "collector/cexpr.h"
#include "collector/gfp.h"
#include "collector/kv.h"
#include "collector/procfile.h"
#include "common/log.h"
#include "store/store.h"

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
/* alloc_migratetype at this tracepoint is the request's: UNMOVABLE, MOVABLE or RECLAIMABLE (< MIGRATE_PCPTYPES) */
#define NMT 3
#define ORD 16                         /* orders kept apart in the growth table; more is "other" */
#define FMT 8                          /* fallback migrate types */
#define RBUF (64 * 1024)
#define HISTBUF (512 * 1024)

struct tracewatch {
	char root[PATH_MAX];
	char name[TRACE_INSTANCE_NAME_MAX];
	int instances_fd, inst_fd, pipe_fd, hist_fd;
	struct tracewatch_fs fs;
	int alloc_on;                      /* mm_page_alloc failures reach the pipe */
	int extfrag_mode;                  /* 0 off, 1 in-kernel histograms, 2 pipe */
	int ntriggers;
	int mono_clock;                    /* trace stamps are CLOCK_MONOTONIC */
	int pageblock_order;               /* -1 unknown */
	int has_gfp;
	struct gfp_table gfp;
	char part[TRACE_LINE_MAX + 1];     /* a line cut by the last read */
	size_t part_len;
	int part_skip;                     /* inside an over-long line: drop until its '\n' */
	char *rbuf, *histbuf;
	struct trace_hists *hists;
	uint64_t *seen;                    /* [NMT][ORD][ORD][FMT]: hitcounts at the last sample */
	struct tracewatch_failure *pending;
	int npending;
	struct tracewatch_extfrag tick[TRACEWATCH_EXTFRAG_MAX];
	int ntick;
	struct tracewatch_totals tot;
	uint64_t hist_dropped;
	char err_logged[8];
};

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

static int fs_mkdir(const struct tracewatch_fs *fs, int dirfd, const char *name)
{
	return fs->mkdir ? fs->mkdir(fs->arg, dirfd, name) : mkdirat(dirfd, name, 0750);
}

static int fs_rmdir(const struct tracewatch_fs *fs, int dirfd, const char *name)
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
static int remove_instance(int instances_fd, const char *name, const struct tracewatch_fs *fs)
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

int tracewatch_remove_stale(int instances_fd, const char *proc_root, const struct tracewatch_fs *fs)
{
	static const struct tracewatch_fs kernel_fs;
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

static void drop_triggers(struct tracewatch *tw)
{
	char t[256];

	for (int mt = tw->ntriggers - 1; mt >= 0; mt--) {
		trigger_text(t, sizeof t, mt, 1);
		if (put(tw->inst_fd, EXTFRAG_DIR "/trigger", t, 1) < 0)
			log_warn("trace: removing trigger '%s'", t + 1);
	}
	tw->ntriggers = 0;
}

/* mm_page_alloc, failures only: the filter first, so no success ever reaches the buffer. */
static int setup_alloc(struct tracewatch *tw, char *note, size_t len)
{
	char *fmt = malloc(65536);
	ssize_t n = fmt ? get(tw->inst_fd, ALLOC_DIR "/format", fmt, 65536) : -1;

	if (n > 0)
		tw->has_gfp = gfp_table_parse_format(fmt, (size_t)n, &tw->gfp) == 0;
	free(fmt);
	if (put(tw->inst_fd, ALLOC_DIR "/filter", FAILED_FILTER, 0) < 0) {
		snprintf(note, len, "mm_page_alloc off (filter refused: %s)", strerror(errno));
		return -1;
	}
	if (put(tw->inst_fd, ALLOC_DIR "/enable", "1", 0) < 0) {
		snprintf(note, len, "mm_page_alloc off (enable: %s)", strerror(errno));
		put(tw->inst_fd, ALLOC_DIR "/filter", "0", 0);
		return -1;
	}
	tw->alloc_on = 1;
	snprintf(note, len, "mm_page_alloc failures (in-kernel filter %s%s)", FAILED_FILTER,
		 tw->has_gfp ? "" : "; no gfp table in its format: masks not recorded");
	return 0;
}

/* mm_page_alloc_extfrag: histograms in the kernel, else the event through the pipe. */
static int setup_extfrag(struct tracewatch *tw, char *note, size_t len)
{
	char t[256], fmt[8192];
	ssize_t n = get(tw->inst_fd, EXTFRAG_DIR "/format", fmt, sizeof fmt);
	const char *arg;
	size_t alen;
	uint64_t v;
	int saved = 0;

	if (n > 0 && cexpr_print_arg(fmt, (size_t)n, "pageblock_order", &arg, &alen) == 0 &&
	    cexpr_eval(arg, alen, &v) == 0 && v < 64)
		tw->pageblock_order = (int)v;
	for (int mt = 0; mt < NMT; mt++) {
		trigger_text(t, sizeof t, mt, 0);
		if (put(tw->inst_fd, EXTFRAG_DIR "/trigger", t, 1) < 0) {
			saved = errno;
			break;
		}
		tw->ntriggers++;
	}
	if (tw->ntriggers == NMT) {
		tw->hist_fd = openat(tw->inst_fd, EXTFRAG_DIR "/hist", O_RDONLY | O_CLOEXEC);
		if (tw->hist_fd >= 0) {
			tw->extfrag_mode = 1;
			snprintf(note, len, "mm_page_alloc_extfrag in-kernel histograms (%d hist triggers: keys %s, one per alloc_migratetype)",
				 NMT, TRACE_EXTFRAG_KEYS);
			return 0;
		}
		saved = errno;
	}
	drop_triggers(tw);
	if (put(tw->inst_fd, EXTFRAG_DIR "/enable", "1", 0) < 0) {
		snprintf(note, len, "mm_page_alloc_extfrag off (hist trigger: %s; enable: %s)", strerror(saved), strerror(errno));
		return -1;
	}
	tw->extfrag_mode = 2;
	snprintf(note, len, "mm_page_alloc_extfrag through the pipe, counted by fpusoakd (hist trigger refused: %s)", strerror(saved));
	return 0;
}

static void teardown(struct tracewatch *tw)
{
	close_fd(&tw->pipe_fd);
	close_fd(&tw->hist_fd);
	if (tw->inst_fd >= 0) {
		if (tw->alloc_on)
			put(tw->inst_fd, ALLOC_DIR "/enable", "0", 0);
		if (tw->extfrag_mode == 2)
			put(tw->inst_fd, EXTFRAG_DIR "/enable", "0", 0);
		drop_triggers(tw);
		close_fd(&tw->inst_fd);
	}
	if (tw->instances_fd >= 0 && tw->name[0]) {
		if (fs_rmdir(&tw->fs, tw->instances_fd, tw->name) < 0)
			log_warn("trace: cannot remove instance %s/instances/%s", tw->root, tw->name);
		else
			log_info("trace: instance %s removed", tw->name);
		tw->name[0] = '\0';
	}
	close_fd(&tw->instances_fd);
}

static void free_tw(struct tracewatch *tw)
{
	if (!tw)
		return;
	free(tw->rbuf);
	free(tw->histbuf);
	free(tw->hists);
	free(tw->seen);
	free(tw->pending);
	free(tw);
}

struct tracewatch *tracewatch_open(const struct tracewatch_opts *o, char *why, size_t whylen)
{
	struct tracewatch *tw = calloc(1, sizeof *tw);
	const char *proc_root = o->proc_root ? o->proc_root : "/proc";
	char path[PATH_MAX + 32], alloc_note[256] = "", extfrag_note[256] = "";
	int64_t pid = o->pid > 0 ? o->pid : (int64_t)getpid(), slab0, slab1;
	uint64_t start;
	int stale;

	if (!tw || !(tw->rbuf = malloc(RBUF)) || !(tw->histbuf = malloc(HISTBUF)) || !(tw->hists = malloc(sizeof *tw->hists)) ||
	    !(tw->seen = calloc(NMT * ORD * ORD * FMT, sizeof *tw->seen)) ||
	    !(tw->pending = calloc(TRACEWATCH_PENDING_MAX, sizeof *tw->pending))) {
		snprintf(why, whylen, "out of memory");
		free_tw(tw);
		return NULL;
	}
	tw->instances_fd = tw->inst_fd = tw->pipe_fd = tw->hist_fd = -1;
	tw->pageblock_order = -1;
	if (o->fs)
		tw->fs = *o->fs;
	if (find_root(o->sys_root ? o->sys_root : "/sys", tw->root, sizeof tw->root, why, whylen) < 0)
		goto fail;
	snprintf(path, sizeof path, "%s/instances", tw->root);
	tw->instances_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tw->instances_fd < 0) {
		snprintf(why, whylen, "%s: %s (a kernel without trace instances?)", path, strerror(errno));
		goto fail;
	}
	if (start_time(proc_root, pid, &start) != 0 || trace_instance_name(pid, start, tw->name, sizeof tw->name) < 0) {
		snprintf(why, whylen, "cannot read this process's start time in %s/%lld/stat", proc_root, (long long)pid);
		tw->name[0] = '\0';
		goto fail;
	}
	/* Stale instances first: on small guests their memory is what a new one needs. */
	stale = tracewatch_remove_stale(tw->instances_fd, proc_root, &tw->fs);
	if (enough_memory(tw->root, proc_root, why, whylen) < 0) {
		tw->name[0] = '\0';
		goto fail;
	}
	slab0 = slab_kb(proc_root);
	if (fs_mkdir(&tw->fs, tw->instances_fd, tw->name) < 0) {
		snprintf(why, whylen, "%s: %s/instances/%s: %s", errno == EROFS || errno == EACCES || errno == EPERM ?
			 "not writable" : "cannot create an instance", tw->root, tw->name, strerror(errno));
		tw->name[0] = '\0';
		goto fail;
	}
	tw->inst_fd = openat(tw->instances_fd, tw->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tw->inst_fd < 0) {
		snprintf(why, whylen, "instances/%s: %s", tw->name, strerror(errno));
		goto fail;
	}
	/* Our own settings, before any event is on (changing the clock empties the buffer). */
	if (put(tw->inst_fd, "buffer_size_kb", BUFFER_KB, 0) < 0) {
		snprintf(why, whylen, "instances/%s/buffer_size_kb: %s (not a tracefs instance?)", tw->name, strerror(errno));
		goto fail;
	}
	tw->mono_clock = put(tw->inst_fd, "trace_clock", "mono", 0) == 0;
	put(tw->inst_fd, "buffer_percent", "0", 0);      /* absent before 5.1: poll then wakes on any data anyway */
	setup_alloc(tw, alloc_note, sizeof alloc_note);
	setup_extfrag(tw, extfrag_note, sizeof extfrag_note);
	if (!tw->alloc_on && !tw->extfrag_mode) {
		snprintf(why, whylen, "instance %s set up nothing: %s; %s", tw->name, alloc_note, extfrag_note);
		goto fail;
	}
	if (tw->alloc_on || tw->extfrag_mode == 2) {
		tw->pipe_fd = openat(tw->inst_fd, "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (tw->pipe_fd < 0) {
			snprintf(why, whylen, "instances/%s/trace_pipe: %s", tw->name, strerror(errno));
			goto fail;
		}
	}
	slab1 = slab_kb(proc_root);
	{
		char cost[96] = "";
		if (slab0 >= 0 && slab1 >= 0)
			snprintf(cost, sizeof cost, "; Slab %+lld kB while setting up", (long long)(slab1 - slab0));
		snprintf(why, whylen, "%s/instances/%s; %s; %s; %s KiB per CPU, %s clock%s%s", tw->root, tw->name,
			 alloc_note, extfrag_note, BUFFER_KB, tw->mono_clock ? "mono" : "local",
			 cost, stale > 0 ? "; removed a stale instance" : "");
	}
	return tw;
fail:
	teardown(tw);
	free_tw(tw);
	return NULL;
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
	teardown(tw);
	free_tw(tw);
}

int tracewatch_fd(const struct tracewatch *tw)
{
	return tw ? tw->pipe_fd : -1;
}

const char *tracewatch_instance(const struct tracewatch *tw)
{
	return tw ? tw->name : "";
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

const struct tracewatch_extfrag *tracewatch_extfrags(const struct tracewatch *tw, int *n)
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
	struct tracewatch_extfrag *x;

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
	tw->tick[tw->ntick++] = (struct tracewatch_extfrag){ ao, fo, amt, fmt, fragmenting, n };
}

static int fragmenting_of(const struct tracewatch *tw, int fallback_order)
{
	return tw->pageblock_order < 0 ? -1 : fallback_order < tw->pageblock_order;
}

static void keep_failure(struct tracewatch *tw, const struct trace_event *ev, int64_t wall_ms, int64_t mono_us)
{
	struct tracewatch_failure *f;

	tw->tot.failures++;
	tw->tot.by_order[ev->u.alloc.order > 15 ? 15 : ev->u.alloc.order]++;
	if (tw->npending == TRACEWATCH_PENDING_MAX) {
		if (tw->tot.failures_dropped++ == 0)
			log_warnx("trace: more than %d failed allocations between two ticks; counting the rest only",
				  TRACEWATCH_PENDING_MAX);
		return;
	}
	f = &tw->pending[tw->npending++];
	memset(f, 0, sizeof *f);
	/* mono stamps map to the wall clock like printk stamps do in kwatch; other clocks only to "now" */
	f->ts_ms = tw->mono_clock ? wall_ms - (mono_us - (int64_t)ev->ts_us) / 1000 : wall_ms;
	memcpy(f->comm, ev->comm, ev->comm_len + 1);
	f->pid = ev->pid;
	f->order = ev->u.alloc.order;
	f->migratetype = ev->u.alloc.migratetype;
	snprintf(f->gfp_flags, sizeof f->gfp_flags, "%s", ev->u.alloc.gfp_flags);
	f->has_mask = tw->has_gfp &&
		      gfp_table_mask(&tw->gfp, ev->u.alloc.gfp_flags, strlen(ev->u.alloc.gfp_flags), &f->gfp_mask) == 0;
	f->nowarn = gfp_is_nowarn(&ev->u.alloc.gfp);
	f->opportunistic = gfp_is_opportunistic(&ev->u.alloc.gfp);
	f->atomic = gfp_is_atomic(&ev->u.alloc.gfp);
}

static void one_line(struct tracewatch *tw, const char *line, size_t len, int64_t wall_ms, int64_t mono_us)
{
	struct trace_event ev;

	switch (trace_parse_line(line, len, &ev)) {
	case TRACE_LINE_EVENT:
		if (ev.kind == TRACE_PAGE_ALLOC && ev.u.alloc.failed)
			keep_failure(tw, &ev, wall_ms, mono_us);
		else if (ev.kind == TRACE_EXTFRAG && tw->extfrag_mode == 2) {
			if (tw->pageblock_order < 0)
				tw->pageblock_order = ev.u.extfrag.pageblock_order;
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

	if (!tw || tw->pipe_fd < 0)
		return 0;
	t0 = now_us();
	before = tw->tot.failures + tw->tot.extfrag;
	while (total < TRACEWATCH_READ_MAX) {
		ssize_t n = read(tw->pipe_fd, tw->rbuf, RBUF);

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

	if (!tw || tw->extfrag_mode != 1)
		return 0;
	t0 = now_us();
	n = procfile_pread(tw->hist_fd, tw->histbuf, HISTBUF);
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
	if (!tw)
		return 0;
	/*
	 * Rows (v_page_alloc_failures, v_extfrag) are written by the store once
	 * its trace tables exist; until then the tick carries the totals.
	 */
	tw->npending = 0;
	tw->ntick = 0;
	store_tick_counter(st, t, "trace_alloc_failures", tw->tot.failures);
	store_tick_counter(st, t, "trace_alloc_failures_dropped", tw->tot.failures_dropped);
	store_tick_counter(st, t, "trace_extfrag", tw->tot.extfrag);
	store_tick_counter(st, t, "trace_extfrag_fragmenting", tw->tot.fragmenting);
	store_tick_counter(st, t, "trace_lost", tw->tot.lost);
	store_tick_counter(st, t, "trace_unparsed", tw->tot.unparsed);
	return 0;
}
