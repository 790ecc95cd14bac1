/* SPDX-License-Identifier: GPL-2.0-only */
/* test_whose: a run's own failed allocations and the machine's, from stored facts (report/whose.h). */
#include "report/whose.h"
#include "test.h"

int main(void)
{
	struct report_own own = { .facts = 1, .n = 3, .pid = { 1000, 1001, 1002 },
				  .comm = { "fpusoakd", "fpusoakd-spawne", "fpusoakd-frag" },
				  .group = "fpusoakd-workers-8a3fe0a2c001" };
	static const struct {
		const char *what;
		int64_t pid, ppid;
		const char *comm, *cgroup;
		enum report_whose want;
	} cases[] = {
		{ "the spawner itself (a fork's allocation)", 1001, 1, "fpusoakd-spawne", NULL, REPORT_WHOSE_OWN },
		{ "the daemon, gone before it was read", 1000, -1, "fpusoakd", NULL, REPORT_WHOSE_OWN },
		{ "a pid of ours reused by another comm", 1000, 7, "bash", "0::/user.slice", REPORT_WHOSE_OTHER },
		{ "a worker: the spawner's child", 4242, 1001, "fpusoakd-spawne", "4:memory:/x;0::/", REPORT_WHOSE_OWN },
		{ "a probe worker in the group, parent unknown", 4243, -1, "fpusoakd-spawne",
		  "8:pids:/t/fpusoakd-workers-8a3fe0a2c001;4:memory:/t/fpusoakd-workers-8a3fe0a2c001/probe",
		  REPORT_WHOSE_OWN },
		{ "a group named like ours one level down is not ours", 4244, 1, "x",
		  "4:memory:/t/fpusoakd-workers-8a3fe0a2c001x", REPORT_WHOSE_OTHER },
		{ "another fpusoakd's worker (same comm, another group)", 4245, 777, "fpusoakd-spawne",
		  "4:memory:/fpusoakd-workers-ffff", REPORT_WHOSE_OTHER },
		{ "a test on the shared host", 5000, 4999, "test_cgroup", "0::/", REPORT_WHOSE_OTHER },
		{ "no pid (no task line)", -1, -1, "fp\"<&>", NULL, REPORT_WHOSE_UNKNOWN },
		{ "a pid, the task gone before it was read", 6000, -1, "kworker/0:1", NULL, REPORT_WHOSE_UNKNOWN },
	};
	struct report_own none = { 0 };

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum report_whose got = report_whose_of(&own, cases[i].pid, cases[i].comm, strlen(cases[i].comm),
							cases[i].ppid, cases[i].cgroup);
		T_EQ_I(got, cases[i].want, "%s", cases[i].what);
	}
	T_EQ_I(report_whose_of(&none, 1001, "fpusoakd-spawne", 15, 1, "0::/"), REPORT_WHOSE_UNKNOWN,
	       "a run without facts (before schema 13): unknown, never guessed");
	/* A comm longer than the kernel prints (15 bytes) matches on what it prints. */
	T_EQ_I(report_whose_of(&own, 1001, "fpusoakd-spawner", 16, -1, NULL), REPORT_WHOSE_OWN, "comm cut at 15 bytes");
	T_DONE();
}
