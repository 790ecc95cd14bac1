/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gfp_iface: the fpusoak_gfp module's interface, checked where the module is
 * loaded (the Xen test guest; never the machine that runs make test).
 *
 * Static, run by the gfp scenario's guest script right after insmod and before
 * fpusoakd starts.  Each check prints "GFP-IFACE PASS: what" or
 * "GFP-IFACE FAIL: what (detail)"; the host side turns them into PASS:/FAIL:
 * lines.  Raw ioctls with the UAPI header only, so the module is checked, not
 * fpusoakd's client of it.  The counter checks read the module's sysfs files
 * before and after, so they hold whatever ran before.  Exit status: the number
 * of failures (capped at 100).
 *
 * "gfp_iface hold N" only HOLDs N objects in kernel mode, one per open file, prints
 * "GFP-HOLD wanted=N held=K error=E object_size=S" and closes them all (exit 0 when
 * all N were held): the guest script's check of a module loaded with another
 * object_bytes (the AMX-sized A/B object).
 *
 * "gfp_iface drain [ORDER]" DRAINs GFP_NOWAIT blocks of ORDER (the module's max_order by
 * default) until the allocator refuses one: the soak scenario's failed allocation on demand,
 * which fpusoakd's trace instance must record (soak.check.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmod/fpusoak_gfp.h"

#define SYSDIR "/sys/class/misc/" FPUSOAK_GFP_NAME
#define MAXHELD "/sys/module/" FPUSOAK_GFP_NAME "/parameters/max_held"
#define REFUSE "/sys/module/" FPUSOAK_GFP_NAME "/parameters/refuse_every"

static int failures;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("GFP-IFACE %s: ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures += !ok;
}

/* The first line of a sysfs file as a number list; count of numbers read, -1 if unreadable. */
static int read_nums(const char *path, long long *v, int max)
{
	char buf[512], *p = buf, *end;
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof buf, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	while (n < max) {
		long long x = strtoll(p, &end, 10);
		if (end == p)
			break;
		v[n++] = x;
		p = end;
	}
	return n;
}

static long long read_num(const char *name)
{
	char path[256];
	long long v = -1;

	snprintf(path, sizeof path, SYSDIR "/%s", name);
	return read_nums(path, &v, 1) == 1 ? v : -1;
}

static long long try_count(const char *mode, const char *what, unsigned order)
{
	char path[256];
	long long v[64];
	int n;

	snprintf(path, sizeof path, SYSDIR "/counters/try_%s_%s", mode, what);
	n = read_nums(path, v, 64);
	return n > (int)order ? v[order] : -1;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static int dev_open(int flags)
{
	return open(FPUSOAK_GFP_DEVICE, flags | O_CLOEXEC);
}

/* errno of a HOLD (0 on success). */
static int hold(int fd, uint32_t size, uint32_t mode, uint32_t reserved)
{
	struct fpusoak_gfp_hold h = { .size = size, .mode = mode, .reserved = reserved };

	return ioctl(fd, FPUSOAK_GFP_IOC_HOLD, &h) < 0 ? errno : 0;
}

static int try_(int fd, uint32_t order, uint32_t mode, uint32_t flags, uint32_t *ok)
{
	struct fpusoak_gfp_try t = { .order = order, .mode = mode, .flags = flags, .ok = 77 };
	int rc = ioctl(fd, FPUSOAK_GFP_IOC_TRY, &t) < 0 ? errno : 0;

	if (ok)
		*ok = t.ok;
	return rc;
}

static int info(int fd, struct fpusoak_gfp_info *i);

/* errno of a DRAIN (0 when it answered); *d holds the answer. */
static int drain_(int fd, uint32_t order, uint32_t mode, uint32_t flags, uint32_t max_blocks, struct fpusoak_gfp_drain *d)
{
	memset(d, 0, sizeof *d);
	d->order = order;
	d->mode = mode;
	d->flags = flags;
	d->max_blocks = max_blocks;
	d->blocks = d->refused = 77;
	return ioctl(fd, FPUSOAK_GFP_IOC_DRAIN, d) < 0 ? errno : 0;
}

/*
 * "gfp_iface drain [ORDER]": one refused allocation on demand (the soak scenario's traced failure):
 * GFP_NOWAIT blocks of ORDER (default the module's max_order) until the allocator says no, all
 * freed.  Prints "GFP-DRAIN order=O mode=nowait blocks=B refused=R error=E"; exit 0 when refused.
 */
static int drain_once(const char *arg)
{
	struct fpusoak_gfp_info in;
	struct fpusoak_gfp_drain d = { 0 };
	int fd = dev_open(O_RDWR), rc;
	uint32_t order;

	if (fd < 0 || info(fd, &in) != 0) {
		printf("GFP-DRAIN order=? mode=nowait blocks=0 refused=0 error=%d\n", errno);
		return 1;
	}
	order = arg ? (uint32_t)strtoul(arg, NULL, 10) : in.max_order;
	rc = drain_(fd, order, FPUSOAK_GFP_NOWAIT, 0, FPUSOAK_GFP_DRAIN_MAX_BLOCKS, &d);
	close(fd);
	printf("GFP-DRAIN order=%u mode=nowait blocks=%u refused=%u error=%d\n", order, rc ? 0 : d.blocks,
	       rc ? 0 : d.refused, rc);
	return rc == 0 && d.refused == 1 ? 0 : 1;
}

static int info(int fd, struct fpusoak_gfp_info *i)
{
	memset(i, 0, sizeof *i);
	return ioctl(fd, FPUSOAK_GFP_IOC_INFO, i) < 0 ? errno : 0;
}

/* In a child: drop to uid/caps as asked, open and HOLD; exit code = errno of the first failing step. */
static int as_child(int uid, int drop_caps, uint32_t size)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd;
		if (drop_caps) {
			struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct d[2];
			memset(d, 0, sizeof d);
			if (syscall(SYS_capset, &h, d) < 0)
				_exit(100);
		}
		if (uid >= 0 && setuid((uid_t)uid) < 0)
			_exit(101);
		fd = dev_open(O_RDWR);
		if (fd < 0)
			_exit(errno);
		_exit(hold(fd, size, FPUSOAK_GFP_ATOMIC, 0));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* HOLD n objects (kernel mode, one file each), report, close them; 0 when all were held. */
static int hold_many(int n)
{
	struct fpusoak_gfp_info in = { 0 };
	int *fds = calloc((size_t)n, sizeof *fds), held = 0, err = 0, rc;

	if (!fds)
		return 1;
	for (int i = 0; i < n; i++) {
		fds[i] = dev_open(O_RDWR);
		if (fds[i] < 0) {
			err = errno;
			break;
		}
		if (!in.object_size && info(fds[i], &in) != 0) {
			err = errno;
			break;
		}
		if ((rc = hold(fds[i], in.object_size, FPUSOAK_GFP_KERNEL, 0)) != 0) {
			err = rc;
			break;
		}
		held++;
	}
	printf("GFP-HOLD wanted=%d held=%d error=%s object_size=%u\n", n, held, err ? strerror(err) : "none", in.object_size);
	for (int i = 0; i < n; i++)
		if (fds[i] > 0)
			close(fds[i]);
	free(fds);
	return held == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct fpusoak_gfp_info in, in2;
	struct stat sb = { 0 };
	long long ka0, kf0, aa0, na0, ref0, t3a0, t3f0, t0n0;
	uint32_t ok = 0, eax, ebx, ecx, edx;
	int fd, fd2, fd3, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(argv[1], "hold") == 0) {
		char *end;
		long n = strtol(argv[2], &end, 10);

		if (*end || n < 1 || n > 4096) {
			fprintf(stderr, "usage: gfp_iface [hold N (1..4096) | drain [ORDER]]\n");
			return 2;
		}
		return hold_many((int)n);
	}
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "drain") == 0)
		return drain_once(argc == 3 ? argv[2] : NULL);
	check(stat(FPUSOAK_GFP_DEVICE, &sb) == 0 && S_ISCHR(sb.st_mode), "%s is a character device", FPUSOAK_GFP_DEVICE);
	check((sb.st_mode & 07777) == 0600 && sb.st_uid == 0 && sb.st_gid == 0,
	      "%s is 0600 root:root (mode %o, %u:%u)", FPUSOAK_GFP_DEVICE, (unsigned)(sb.st_mode & 07777),
	      (unsigned)sb.st_uid, (unsigned)sb.st_gid);
	fd = dev_open(O_RDWR);
	if (fd < 0) {
		check(0, "open %s: %s", FPUSOAK_GFP_DEVICE, strerror(errno));
		return 1;
	}
	rc = info(fd, &in);
	check(rc == 0 && in.abi == FPUSOAK_GFP_ABI, "INFO answers, abi %u", in.abi);
	__asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0xd), "c"(0));
	check(in.object_size == (ebx >= 512 ? ebx : 512) && in.object_align == 64,
	      "object is the XSAVE size for XCR0, 64-byte aligned (%u/%u; CPUID 0xd.0 EBX %u)", in.object_size,
	      in.object_align, ebx);
	check(in.max_order >= 9 && in.max_order < 32 && in.held == 0 && in.held_here == 0,
	      "INFO: max_order %u, nothing held (%u, here %u)", in.max_order, in.held, in.held_here);
	check(read_num("object_size") == in.object_size && read_num("max_order") == in.max_order &&
	      read_num("held") == 0, "sysfs object_size, max_order, held agree with INFO");

	/* Bad arguments: EINVAL, and nothing counted as an attempt. */
	ka0 = read_num("counters/hold_kernel_attempts");
	check(hold(fd, in.object_size, 0, 0) == EINVAL, "HOLD mode 0: EINVAL");
	check(hold(fd, in.object_size, 4, 0) == EINVAL, "HOLD mode 4: EINVAL");
	check(hold(fd, 0, FPUSOAK_GFP_KERNEL, 0) == EINVAL, "HOLD size 0: EINVAL");
	check(hold(fd, in.object_size + 1, FPUSOAK_GFP_KERNEL, 0) == EINVAL, "HOLD size object_size+1: EINVAL");
	check(hold(fd, in.object_size, FPUSOAK_GFP_KERNEL, 1) == EINVAL, "HOLD with a reserved field set: EINVAL");
	check(try_(fd, in.max_order + 1, FPUSOAK_GFP_ATOMIC, 0, NULL) == EINVAL, "TRY order max_order+1: EINVAL");
	check(try_(fd, 0, 0, 0, NULL) == EINVAL, "TRY mode 0: EINVAL");
	check(try_(fd, 0, FPUSOAK_GFP_ATOMIC, 2, NULL) == EINVAL, "TRY unknown flag: EINVAL");
	{
		struct fpusoak_gfp_drain d;
		check(drain_(fd, 0, FPUSOAK_GFP_KERNEL, 0, 1, &d) == EINVAL, "DRAIN mode kernel: EINVAL (it would reclaim)");
		check(drain_(fd, in.max_order + 1, FPUSOAK_GFP_NOWAIT, 0, 1, &d) == EINVAL, "DRAIN order max_order+1: EINVAL");
		check(drain_(fd, 0, FPUSOAK_GFP_NOWAIT, 0, 0, &d) == EINVAL, "DRAIN max_blocks 0: EINVAL");
		check(drain_(fd, 0, FPUSOAK_GFP_NOWAIT, 0, FPUSOAK_GFP_DRAIN_MAX_BLOCKS + 1, &d) == EINVAL,
		      "DRAIN max_blocks above %u: EINVAL", FPUSOAK_GFP_DRAIN_MAX_BLOCKS);
		check(drain_(fd, 0, FPUSOAK_GFP_NOWAIT, 2, 1, &d) == EINVAL, "DRAIN unknown flag: EINVAL");
	}
	check(ioctl(fd, _IO(FPUSOAK_GFP_IOC_MAGIC, 99)) < 0 && errno == ENOTTY, "unknown ioctl: ENOTTY");
	check(read_num("counters/hold_kernel_attempts") == ka0, "refused arguments are not counted as attempts");

	/* HOLD: one object per file, freed with the file. */
	kf0 = read_num("counters/hold_kernel_failures");
	check(hold(fd, in.object_size, FPUSOAK_GFP_KERNEL, 0) == 0, "HOLD kernel of %u bytes", in.object_size);
	check(hold(fd, in.object_size, FPUSOAK_GFP_KERNEL, 0) == EBUSY, "second HOLD on the same file: EBUSY");
	rc = info(fd, &in2);
	check(rc == 0 && in2.held == 1 && in2.held_here == 1, "INFO after HOLD: held 1, here 1 (%u, %u)", in2.held,
	      in2.held_here);
	check(read_num("counters/hold_kernel_attempts") == ka0 + 1 && read_num("counters/hold_kernel_failures") == kf0,
	      "hold_kernel_attempts +1, failures +0");
	aa0 = read_num("counters/hold_atomic_attempts");
	na0 = read_num("counters/hold_nowait_attempts");
	fd2 = dev_open(O_RDWR);
	fd3 = dev_open(O_RDWR);
	check(fd2 >= 0 && hold(fd2, 100, FPUSOAK_GFP_ATOMIC, 0) == 0, "HOLD atomic (preemption disabled) on a second file");
	check(fd3 >= 0 && hold(fd3, 1, FPUSOAK_GFP_NOWAIT, 0) == 0, "HOLD nowait on a third file");
	check(read_num("held") == 3 && read_num("counters/hold_atomic_attempts") == aa0 + 1 &&
	      read_num("counters/hold_nowait_attempts") == na0 + 1, "held 3; atomic and nowait attempts +1 each");
	close(fd2);
	close(fd3);
	check(read_num("held") == 1, "closing a file frees its object (held %lld)", read_num("held"));

	/* The cap. */
	ref0 = read_num("counters/hold_refused");
	if (write_str(MAXHELD, "1") == 0) {
		fd2 = dev_open(O_RDWR);
		check(fd2 >= 0 && hold(fd2, in.object_size, FPUSOAK_GFP_KERNEL, 0) == EDQUOT,
		      "max_held=1 with one held: HOLD gets EDQUOT");
		check(read_num("counters/hold_refused") == ref0 + 1 && read_num("held") == 1, "hold_refused +1, held stays 1");
		close(fd2);
		check(write_str(MAXHELD, "8192") == 0, "max_held restored to 8192");
	} else
		check(0, "cannot write %s: %s", MAXHELD, strerror(errno));

	/* refuse_every (testing only): the next HOLD is refused without allocating, and says so. */
	if (write_str(REFUSE, "1") == 0) {
		long long inj0 = read_num("counters/hold_injected"), af0 = read_num("counters/hold_atomic_failures");
		fd2 = dev_open(O_RDWR);
		check(fd2 >= 0 && hold(fd2, in.object_size, FPUSOAK_GFP_ATOMIC, 0) == ENOMEM,
		      "refuse_every=1: HOLD gets ENOMEM");
		check(read_num("counters/hold_injected") == inj0 + 1 && read_num("counters/hold_atomic_failures") == af0 + 1 &&
		      read_num("held") == 1, "counted as an injected atomic failure; nothing more held");
		check(write_str(REFUSE, "0") == 0 && fd2 >= 0 && hold(fd2, in.object_size, FPUSOAK_GFP_ATOMIC, 0) == 0,
		      "refuse_every=0: the same file holds again");
		if (fd2 >= 0)
			close(fd2);
	} else
		check(0, "cannot write %s: %s", REFUSE, strerror(errno));

	/* TRY: the allocator's answer, counted per mode and order; nothing stays allocated. */
	t3a0 = try_count("atomic", "attempts", 3);
	t3f0 = try_count("atomic", "failures", 3);
	t0n0 = try_count("nowait", "attempts", 0);
	rc = try_(fd, 3, FPUSOAK_GFP_ATOMIC, FPUSOAK_GFP_TRY_NOKSWAPD, &ok);
	check(rc == 0 && ok <= 1, "TRY order 3 atomic answers (ok %u)", ok);
	check(try_count("atomic", "attempts", 3) == t3a0 + 1 && try_count("atomic", "failures", 3) == t3f0 + !ok,
	      "try_atomic_attempts[3] +1, failures +%d", !ok);
	rc = try_(fd, 0, FPUSOAK_GFP_NOWAIT, 0, &ok);
	check(rc == 0 && ok == 1, "TRY order 0 nowait succeeds at rest");
	check(try_count("nowait", "attempts", 0) == t0n0 + 1, "try_nowait_attempts[0] +1");
	rc = try_(fd, 0, FPUSOAK_GFP_KERNEL, 0, &ok);
	check(rc == 0 && ok == 1, "TRY order 0 kernel succeeds at rest");
	/* DRAIN: one block under its cap; then blocks of max_order until the allocator says no. */
	{
		struct fpusoak_gfp_drain d;
		long long da0 = try_count("nowait", "attempts", 0), mf0 = try_count("nowait", "failures", in.max_order);
		long long free0 = -1, free1 = -1;
		FILE *mi;
		char line[128];

		rc = drain_(fd, 0, FPUSOAK_GFP_NOWAIT, 0, 1, &d);
		check(rc == 0 && d.blocks == 1 && d.refused == 0, "DRAIN order 0 nowait, max_blocks 1: one block, not refused (%u, %u)",
		      d.blocks, d.refused);
		check(try_count("nowait", "attempts", 0) == da0 + 1, "counted as one nowait TRY at order 0");
		rc = drain_(fd, in.max_order, FPUSOAK_GFP_NOWAIT, FPUSOAK_GFP_TRY_NOKSWAPD, FPUSOAK_GFP_DRAIN_MAX_BLOCKS, &d);
		check(rc == 0 && d.refused == 1, "DRAIN order %u nowait ends refused after %u blocks (refused %u)", in.max_order,
		      d.blocks, d.refused);
		check(try_count("nowait", "failures", in.max_order) == mf0 + 1, "try_nowait_failures[%u] +1", in.max_order);
		/* Everything went back: the guest's free memory is not short by what the drain held. */
		for (int pass = 0; pass < 2; pass++) {
			long long v = -1;
			if ((mi = fopen("/proc/meminfo", "r"))) {
				while (fgets(line, sizeof line, mi))
					if (sscanf(line, "MemFree: %lld kB", &v) == 1)
						break;
				fclose(mi);
			}
			if (pass == 0)
				free0 = v;
			else
				free1 = v;
			if (pass == 0)
				drain_(fd, in.max_order, FPUSOAK_GFP_NOWAIT, FPUSOAK_GFP_TRY_NOKSWAPD, FPUSOAK_GFP_DRAIN_MAX_BLOCKS, &d);
		}
		check(free0 > 0 && free1 > 0 && (d.blocks == 0 || free1 * 4 >= free0 * 3),
		      "a second DRAIN of %u blocks of %u KiB gave them back (MemFree %lld -> %lld kB)", d.blocks,
		      4u << in.max_order, free0, free1);
	}
	check(read_num("held") == 1, "TRY and DRAIN leave nothing held");
	close(fd);
	check(read_num("held") == 0, "every object freed once every file is closed");

	/* Read-only open: INFO yes, HOLD and TRY no. */
	fd = dev_open(O_RDONLY);
	{
		struct fpusoak_gfp_drain d;
		check(fd >= 0 && info(fd, &in2) == 0 && hold(fd, 1, FPUSOAK_GFP_KERNEL, 0) == EBADF &&
		      try_(fd, 0, FPUSOAK_GFP_ATOMIC, 0, NULL) == EBADF && drain_(fd, 0, FPUSOAK_GFP_NOWAIT, 0, 1, &d) == EBADF,
		      "opened read-only: INFO works, HOLD, TRY and DRAIN get EBADF");
	}
	if (fd >= 0)
		close(fd);

	/* Permissions: the owner needs no capability; anyone else is refused by the mode. */
	rc = as_child(-1, 1, in.object_size);
	check(rc == 0, "uid 0 with every capability dropped (a fpusoakd worker) opens and HOLDs (rc %d)", rc);
	rc = as_child(65534, 0, in.object_size);
	check(rc == EACCES, "uid 65534 cannot open it: EACCES (rc %d)", rc);
	check(read_num("held") == 0, "the children's objects went with them");
	return failures > 100 ? 100 : failures;
}
