/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_envinfo: what a run records about the machine's memory (issue 30), from fixture trees:
 *  - the Xen PV dom0 fixtures (meminfo.xenpv, zoneinfo.xenpv: present 3,998 + 36,961 pages, the
 *    "Memory: …/163836K available" of that guest's boot log): present_kb, MemFree, MemAvailable;
 *  - a Xen guest's size from its balloon driver's current_kb, and junk there read as unknown;
 *  - unknown (-1) without zoneinfo, without a balloon driver, and off Xen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/envinfo.h"
#include "tests/unit/test.h"

static void put_file(const char *dir, const char *rel, const char *text, size_t len)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	f = fopen(p, "w");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

static void put_str(const char *dir, const char *rel, const char *text)
{
	put_file(dir, rel, text, strlen(text));
}

static void put_fixture(const char *dir, const char *rel, const char *fixture)
{
	static char buf[1 << 16];
	long n = t_fixture(fixture, buf, sizeof buf);

	T_CHECK(n > 0, "fixture %s read", fixture);
	if (n > 0)
		put_file(dir, rel, buf, (size_t)n);
}

static void mkdirs(const char *root, const char *rel)
{
	char p[512];

	for (const char *s = rel; (s = strchr(s, '/')); s++) {
		snprintf(p, sizeof p, "%s/%.*s", root, (int)(s - rel), rel);
		mkdir(p, 0700);
	}
	snprintf(p, sizeof p, "%s/%s", root, rel);
	mkdir(p, 0700);
}

int main(void)
{
	char proc[] = "/tmp/fpusoak-envm-p.XXXXXX", sys[] = "/tmp/fpusoak-envm-s.XXXXXX", cmd[600];
	const char *cur = "devices/system/xen_memory/xen_memory0/info/current_kb";
	struct envinfo e;
	long page;

	if (!mkdtemp(proc) || !mkdtemp(sys)) {
		T_CHECK(0, "temporary fixture trees");
		T_DONE();
	}
	page = sysconf(_SC_PAGESIZE);
	mkdirs(sys, "hypervisor");
	mkdirs(sys, "devices/system/xen_memory/xen_memory0/info");
	put_str(sys, "hypervisor/type", "xen\n");
	put_str(sys, "hypervisor/guest_type", "PV\n");
	put_fixture(proc, "meminfo", "meminfo.xenpv");
	put_fixture(proc, "zoneinfo", "zoneinfo.xenpv");
	put_str(sys, cur, "163840\n");

	envinfo_collect(proc, sys, &e);
	T_EQ_I(e.mem_total_kb, 79424, "MemTotal from meminfo.xenpv");
	T_EQ_I(e.mem_free_kb, 36204, "MemFree from meminfo.xenpv");
	T_EQ_I(e.mem_available_kb, 49664, "MemAvailable from meminfo.xenpv");
	T_EQ_I(e.mem_present_kb, (3998 + 36961) * page / 1024, "present pages of every zone, in kB");
	T_EQ_I(e.domain_kb, 163840, "a Xen guest's size from its balloon driver");

	/* Junk or an empty file is unknown, never a number read from part of it. */
	put_str(sys, cur, "163840 kB\n");
	envinfo_collect(proc, sys, &e);
	T_EQ_I(e.domain_kb, -1, "current_kb with a unit after the number: unknown");
	put_str(sys, cur, "");
	envinfo_collect(proc, sys, &e);
	T_EQ_I(e.domain_kb, -1, "empty current_kb: unknown");
	put_str(sys, cur, "99999999999999999999\n");
	envinfo_collect(proc, sys, &e);
	T_EQ_I(e.domain_kb, -1, "current_kb past 64 bits: unknown");
	put_str(sys, cur, "65536");
	envinfo_collect(proc, sys, &e);
	T_EQ_I(e.domain_kb, 65536, "current_kb without a newline");

	/* A zoneinfo that does not parse, or none: the present pages are unknown, the rest stands. */
	put_str(proc, "zoneinfo", "Node 0, zone   DMA32\n  pages free  x\n");
	envinfo_collect(proc, sys, &e);
	T_CHECK(e.mem_present_kb == -1 && e.mem_total_kb == 79424, "unparsable zoneinfo: present unknown (got %lld)",
		(long long)e.mem_present_kb);
	snprintf(cmd, sizeof cmd, "%s/zoneinfo", proc);
	unlink(cmd);
	envinfo_collect(proc, sys, &e);
	T_EQ_I(e.mem_present_kb, -1, "no zoneinfo: present unknown");

	/* Another hypervisor: no balloon figure, even with the file there. */
	put_str(sys, "hypervisor/type", "kvm\n");
	envinfo_collect(proc, sys, &e);
	T_EQ_I(e.domain_kb, -1, "not Xen: no guest size");

	/* No meminfo either: every memory figure unknown. */
	snprintf(cmd, sizeof cmd, "%s/meminfo", proc);
	unlink(cmd);
	envinfo_collect(proc, sys, &e);
	T_CHECK(e.mem_free_kb == -1 && e.mem_available_kb == -1, "no meminfo: MemFree and MemAvailable unknown");

	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", proc, sys);
	if (system(cmd) != 0)
		printf("note: could not remove %s %s\n", proc, sys);
	T_DONE();
}
