/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpu: every kind the kernel advertises runs and leaves its state live;
 * every kind it does not is reported unsupported, and really is (SIGILL in
 * a sandboxed child).
 *
 * Independent sources: /proc/cpuinfo flags (the kernel clears flags whose
 * state it did not enable) and XINUSE, read with xgetbv(1): the CPU's own
 * record of which state components are non-init.  XINUSE after a sleep
 * shows the kernel restored the state across a context switch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "collector/cpuinfo.h"
#include "common/procfile.h"
#include "tests/unit/test.h"
#include "worker/fpu.h"

static char flags[8192];

static int has_flag(const char *w)
{
	size_t n = strlen(w);

	for (const char *p = flags; (p = strstr(p, w)); p += n)
		if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == 0))
			return 1;
	return 0;
}

static int load_flags(void)
{
	static char buf[1 << 16];
	char *f, *e;

	if (procfile_read(NULL, "proc/cpuinfo", buf, sizeof buf) < 0 || !(f = strstr(buf, "\nflags")))
		return -1;
	e = strchr(f + 1, '\n');
	snprintf(flags, sizeof flags, "%.*s", e ? (int)(e - f) : (int)strlen(f), f);
	return 0;
}

static uint64_t xinuse(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	return (uint64_t)hi << 32 | lo;
}

static void test_parse(void)
{
	static const struct {
		const char *s;
		int rc;
		enum fpu_kind k;
	} cases[] = {
		{ "auto", 0, FPU_AUTO }, { "x87", 0, FPU_X87 }, { "sse", 0, FPU_SSE }, { "avx", 0, FPU_AVX },
		{ "avx512", 0, FPU_AVX512 }, { "amx", 0, FPU_AMX }, { "AVX", -1, 0 }, { "avx2", -1, 0 },
		{ "", -1, 0 }, { "avx512 ", -1, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum fpu_kind k = FPU_X87;
		int rc = fpu_kind_parse(cases[i].s, &k);
		T_EQ_I(rc, cases[i].rc, "parse \"%s\"", cases[i].s);
		if (rc == 0) {
			T_EQ_I(k, cases[i].k, "parse \"%s\" kind", cases[i].s);
			T_EQ_S(fpu_kind_name(k), cases[i].s, "name round-trips \"%s\"", cases[i].s);
		}
	}
	T_EQ_I(fpu_kind_parse(NULL, &(enum fpu_kind){ 0 }), -1, "parse NULL");
	T_EQ_S(fpu_kind_name((enum fpu_kind)42), "?", "name of a bad kind");
}

/* Run fpu_touch(k) in a child; returns the wait status. */
static int touch_in_child(enum fpu_kind k)
{
	int st = -1;
	pid_t p = fork();

	if (p == 0) {
		alarm(10);
		_exit(fpu_touch(k) == 0 && fpu_work(k, 1000) == 0 ? 0 : 3);
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return st;
}

static void test_kinds(int sandboxed)
{
	/* The kernel's flag for each kind; it clears avx512f etc. when XCR0 lacks the state. */
	static const char *const kflag[FPU_NKINDS] = { "fpu", "sse2", "avx", "avx512f", "amx_tile" };
	/* XINUSE bits each kind must leave set (SDM 13.6): x87 0, SSE 1, AVX 2, AVX-512 5-7, AMX 17-18. */
	static const uint64_t inuse[FPU_NKINDS] = { 0x1, 0x2, 0x4, 0xe0, 0x60000 };
	struct cpuinfo ci;
	int have_xinuse;
	char why[160];

	cpuinfo_detect(&ci);
	/* CPUID.(EAX=0xD,ECX=1):EAX[2] = XGETBV with ECX=1. */
	{
		unsigned a, b, c, d;
		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(1));
		have_xinuse = (ci.features & CPUINFO_OSXSAVE) && (a & 4);
	}
	if (load_flags() < 0) {
		T_SKIP("no /proc/cpuinfo flags: cannot cross-check support");
		return;
	}
	for (int k = 0; k < FPU_NKINDS; k++) {
		int sup = fpu_supported((enum fpu_kind)k, why, sizeof why);
		printf("found: %-6s %s%s%s\n", fpu_kind_name((enum fpu_kind)k), sup ? "supported" : "unsupported",
		       sup ? "" : ": ", why);
		T_EQ_I(sup, has_flag(kflag[k]), "%s supported iff the kernel shows flag %s", fpu_kind_name((enum fpu_kind)k),
		       kflag[k]);
		if (!sup) {
			T_CHECK(why[0] != 0, "%s: a reason is given", fpu_kind_name((enum fpu_kind)k));
			if (!sandboxed) {
				T_SKIP("%s: no sandbox cgroup, not forking to prove SIGILL", fpu_kind_name((enum fpu_kind)k));
				continue;
			}
			int st = touch_in_child((enum fpu_kind)k);
			/* AMX is refused up front (arch_prctl fails: exit 3); anything else must #UD. */
			T_CHECK((WIFSIGNALED(st) && WTERMSIG(st) == SIGILL) || (WIFEXITED(st) && WEXITSTATUS(st) == 3),
				"%s really is unusable: a child touching it is refused or dies of SIGILL (status 0x%x)",
				fpu_kind_name((enum fpu_kind)k), st);
			continue;
		}
		T_EQ_I(fpu_touch((enum fpu_kind)k), 0, "%s touch runs", fpu_kind_name((enum fpu_kind)k));
		/*
		 * XINUSE is read right after the work, before anything prints: printf's strlen is glibc's
		 * AVX2 routine on a CPU without AVX-512, and its VZEROUPPER returns the YMM upper halves to
		 * their init state (XINUSE bit 2 clear on AMD EPYC without AVX-512).
		 */
		int wrc = fpu_work((enum fpu_kind)k, 5000);
		uint64_t after_work = have_xinuse ? xinuse() : 0;
		T_EQ_I(wrc, 0, "%s work runs", fpu_kind_name((enum fpu_kind)k));
		if (!have_xinuse) {
			T_SKIP("no XGETBV(1): cannot check that %s state is live", fpu_kind_name((enum fpu_kind)k));
		} else if (k == FPU_X87) {
			/* AMD keeps x87 XINUSE clear unless FCW/FSW/FTW differ from init; informative only. */
			printf("info: x87 XINUSE bit after touch: %d\n", (int)(xinuse() & 1));
		} else {
			uint64_t got = after_work;
			T_EQ_I(got & inuse[k], inuse[k], "%s leaves its XINUSE bits set (0x%llx)",
			       fpu_kind_name((enum fpu_kind)k), (unsigned long long)got);
			/* Sleep: the task is switched out and the kernel must restore the live state. */
			struct timespec ts = { 0, 20 * 1000 * 1000 };
			fpu_work((enum fpu_kind)k, 1);
			nanosleep(&ts, NULL);
			got = xinuse();
			T_EQ_I(got & inuse[k], inuse[k], "%s state still live after a 20 ms sleep (0x%llx)",
			       fpu_kind_name((enum fpu_kind)k), (unsigned long long)got);
		}
		if (sandboxed)
			T_EQ_I(touch_in_child((enum fpu_kind)k), 0, "%s touch+work in a fresh child exits 0",
			       fpu_kind_name((enum fpu_kind)k));
	}
	enum fpu_kind a = fpu_auto();
	T_CHECK(fpu_supported(a, NULL, 0) == 1, "auto picks a supported kind (%s)", fpu_kind_name(a));
	for (int k = a + 1; k < FPU_NKINDS; k++)
		T_CHECK(!fpu_supported((enum fpu_kind)k, NULL, 0), "auto: wider kind %s is unsupported",
			fpu_kind_name((enum fpu_kind)k));
	T_EQ_I(fpu_resolve(FPU_AUTO), a, "resolve(auto) = auto()");
	T_EQ_I(fpu_resolve(FPU_SSE), FPU_SSE, "resolve keeps a concrete kind");
	T_EQ_I(fpu_touch(FPU_AUTO), -1, "touch(auto) is refused, not guessed");
}

int main(void)
{
	char err[256], name[64];
	struct cgroup *sb;

	alarm(120);
	test_parse();
	/* Children only run inside a 64 MB / 100-PID sandbox (SAFETY rule). */
	snprintf(name, sizeof name, "fpusoak-test-fpu-%d", (int)getpid());
	sb = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_AUTO, .name = name, .enter = 1,
					      .memory_max = 64u << 20, .pids_max = 100 },
			 err, sizeof err);
	if (!sb)
		T_SKIP("no sandbox cgroup (%s): child checks skipped", err);
	test_kinds(sb != NULL);
	cgroup_close(sb);
	T_DONE();
}
