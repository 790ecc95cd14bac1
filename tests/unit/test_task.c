/* SPDX-License-Identifier: GPL-2.0-only */
/* test_task: /proc/PID/stat's parent, /proc/PID/cgroup's kept lines, and task_read on this process. */
#include <unistd.h>

#include "collector/task.h"
#include "test.h"

static void test_ppid(void)
{
	static const struct {
		const char *in;
		int rc;
		int64_t ppid;
	} cases[] = {
		{ "1234 (fpusoakd-spawne) S 1200 1234 1 0 -1 4194560 0\n", 0, 1200 },
		{ "77 (a) b) c) R 5 77 ...", 0, 5 },                 /* a comm with ") " in it: the last ')' counts */
		{ "77 (x (y)) Z 0 0 0\n", 0, 0 },
		{ "77 (x) S\n", -1, 0 },
		{ "77 (x) S -3 1\n", -1, 0 },
		{ "77 x S 3\n", -1, 0 },
		{ "", -1, 0 },
		{ "77 (x) S 99999999999999999999999 1\n", -1, 0 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t p = -7;
		int rc = task_parse_ppid(cases[i].in, strlen(cases[i].in), &p);
		T_CHECK(rc == cases[i].rc && (rc < 0 || p == cases[i].ppid), "ppid case %zu: rc %d, %lld", i,
			rc, (long long)p);
	}
}

static void test_cgroup(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		/* v1, from this machine's /proc/self/cgroup (the memory hierarchy is nested) */
		{ "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/1473a2\n0::/\n", "8:pids:/;4:memory:/process_api/1473a2;0::/" },
		{ "5:cpu,cpuacct:/x\n3:memory,pids:/fpusoakd-workers-8a3f/probe\n", "3:memory,pids:/fpusoakd-workers-8a3f/probe" },
		{ "0::/system.slice/fpusoakd.service/workers\n", "0::/system.slice/fpusoakd.service/workers" },
		{ "4:cpu:/\n", NULL },                                  /* none of ours */
		{ "garbage\n", NULL },
		{ "4:memory:/a;b\n", NULL },                             /* our separator inside a path */
		{ "4:memory:/a\x01\n", NULL },
	};
	char out[TASK_CGROUP_MAX];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = task_parse_cgroup(cases[i].in, strlen(cases[i].in), out, sizeof out);
		if (cases[i].want)
			T_CHECK(rc == 0 && strcmp(out, cases[i].want) == 0, "cgroup lines kept: %s", out);
		else
			T_CHECK(rc == -1, "cgroup text %zu refused", i);
	}
	T_EQ_I(task_parse_cgroup("4:memory:/abcdef\n", 17, out, 8), -1, "too long for out: refused, not cut");
}

static void test_read_self(void)
{
	struct task_facts f;
	char comm[32] = "";
	FILE *fp = fopen("/proc/self/comm", "r");

	if (!fp || !fgets(comm, sizeof comm, fp)) {
		T_SKIP("no /proc/self/comm here");
		if (fp)
			fclose(fp);
		return;
	}
	fclose(fp);
	comm[strcspn(comm, "\n")] = 0;
	T_CHECK(task_read("/proc", getpid(), comm, strlen(comm), &f) == 0 && f.ppid == getppid(),
		"this process: ppid %lld (getppid %d), cgroup \"%s\"", (long long)f.ppid, (int)getppid(), f.cgroup);
	T_EQ_I(task_read("/proc", getpid(), "someone-else", 12, &f), -1, "another comm: the pid was reused, nothing kept");
	T_EQ_I(task_read("/proc", 0, comm, strlen(comm), &f), -1, "pid 0");
	T_CHECK(f.ppid == -1 && f.cgroup[0] == 0, "refused: unknown");
}

int main(void)
{
	test_ppid();
	test_cgroup();
	test_read_self();
	T_DONE();
}
