/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gfpmod (worker/gfpmod.h): the --gfp-mode rules (which mode churn and each capacity probe HOLD
 * in), the accounting of a refused HOLD (gfp_failed, its own cause in the
 * churn identity), the probe's stop reason for it, and the client's answers
 * where the module is not loaded (this machine: the module is never loaded
 * here; its own checks run in the Xen guest, tests/xen/scenarios/gfp_iface.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "spawner/churn_ctl.h"
#include "spawner/probe.h"
#include "tests/unit/test.h"
#include "worker/gfpmod.h"
#include "worker/worker.h"

#define SEC 1000000000LL

static void test_modes(void)
{
	static const char *const names[] = { "off", "kernel", "atomic", "nowait", "alternate" };
	enum gfp_mode m;

	for (int i = 0; i < 5; i++) {
		T_CHECK(gfpmod_mode_parse(names[i], &m) == 0 && (int)m == i, "parse '%s'", names[i]);
		T_EQ_S(gfpmod_mode_name(i), names[i], "name of mode %d", i);
	}
	T_EQ_I(gfpmod_mode_parse("Atomic", &m), -1, "names are case-sensitive");
	T_EQ_I(gfpmod_mode_parse("", &m), -1, "empty refused");
	T_EQ_I(gfpmod_mode_parse("atomic ", &m), -1, "trailing blank refused");
	T_EQ_S(gfpmod_mode_name(5), "?", "out of range");
	T_EQ_S(gfpmod_mode_name(-1), "?", "negative");
	T_EQ_I(GFP_MODE_KERNEL, FPUSOAK_GFP_KERNEL, "client modes are the module's numbers");
	T_EQ_I(GFP_MODE_NOWAIT, FPUSOAK_GFP_NOWAIT, "nowait too");

	T_EQ_I(gfpmod_churn_mode(GFP_MODE_OFF), GFP_MODE_OFF, "off: churn does not HOLD");
	T_EQ_I(gfpmod_churn_mode(GFP_MODE_ATOMIC), GFP_MODE_ATOMIC, "atomic: churn HOLDs atomic");
	T_EQ_I(gfpmod_churn_mode(GFP_MODE_NOWAIT), GFP_MODE_NOWAIT, "nowait: churn HOLDs nowait");
	T_EQ_I(gfpmod_churn_mode(GFP_MODE_ALTERNATE), GFP_MODE_KERNEL, "alternate: churn HOLDs kernel");
	for (uint64_t n = 0; n < 6; n++) {
		T_EQ_I(gfpmod_probe_mode(GFP_MODE_ALTERNATE, n), n % 2 ? GFP_MODE_ATOMIC : GFP_MODE_KERNEL,
		       "alternate: probe %llu is %s", (unsigned long long)n, n % 2 ? "atomic" : "kernel");
		T_EQ_I(gfpmod_probe_mode(GFP_MODE_NOWAIT, n), GFP_MODE_NOWAIT, "nowait: every probe nowait (%llu)",
		       (unsigned long long)n);
	}
	T_EQ_I(gfpmod_probe_mode(GFP_MODE_OFF, 1), GFP_MODE_OFF, "off: probes do not HOLD");
}

static void test_accounting(void)
{
	struct churn_counters k;

	memset(&k, 0, sizeof k);
	for (int i = 0; i < 5; i++)
		churn_count_spawned(&k);
	churn_count_gfp_failed(&k);
	churn_count_gfp_failed(&k);
	churn_count_death(&k, CLD_KILLED, SIGKILL);
	churn_count_death(&k, CLD_EXITED, 0);
	T_EQ_I(k.gfp_failed, 2, "two refused HOLDs");
	T_EQ_I(k.killed_sigkill, 1, "not counted as killed_sigkill");
	T_EQ_I(k.population, 1, "population falls by each");
	T_EQ_I(k.last_signal, SIGKILL, "they died by SIGKILL");
	T_EQ_I(churn_counters_check(&k), 0, "spawned = exited + killed + gfp_failed + population");
	k.gfp_failed++;
	T_EQ_I(churn_counters_check(&k), -1, "the identity counts gfp_failed");
	T_EQ_S(worker_exit_name(WORKER_EXIT_GFP), "gfp", "exit 17 is gfp");
	T_EQ_S(worker_exit_name(WORKER_EXIT_GFP_CAP), "gfp_cap", "exit 18 is gfp_cap");
}

static void test_probe(void)
{
	struct probe_cap p;

	probe_cap_begin(&p, 100, 0);
	probe_cap_retired(&p, 0, 0);
	for (int i = 0; i < 4; i++) {
		probe_cap_spawned(&p, 1, 0, SEC);
		probe_cap_ready(&p, 2, 0);
	}
	probe_cap_spawned(&p, 3, 0, SEC);
	T_EQ_I(probe_cap_gfp_failed(&p, 4, "atomic"), PROBE_ACT_RELEASE, "a refused HOLD ends the fill");
	T_EQ_S(p.stop_reason, "gfp_failed:atomic", "reason names the mode");
	T_EQ_I(p.count, 4, "the count is the last clean step");
	T_EQ_I(probe_cap_gfp_failed(&p, 5, "atomic"), PROBE_ACT_NONE, "later ones while releasing change nothing");
	T_EQ_S(p.stop_reason, "gfp_failed:atomic", "first reason kept");

	/* An OOM kill was seen in the counter; the refused HOLD is the death that explains the step. */
	probe_cap_begin(&p, 100, 0);
	probe_cap_retired(&p, 0, 3);
	probe_cap_spawned(&p, 1, 0, SEC);
	probe_cap_ready(&p, 2, 3);
	probe_cap_spawned(&p, 3, 0, SEC);
	probe_cap_ready(&p, 4, 4);
	T_EQ_I(p.phase, PROBE_SETTLING, "settling after the OOM counter moved");
	T_EQ_I(probe_cap_gfp_failed(&p, 5, "kernel"), PROBE_ACT_RELEASE, "the refused HOLD ends settling");
	T_EQ_S(p.stop_reason, "gfp_failed:kernel", "and is the reason");
	T_EQ_I(p.t_stop, 4, "stop time stays when the step went wrong");

	probe_cap_begin(&p, 100, 0);
	T_EQ_I(probe_cap_gfp_failed(&p, 1, "atomic"), PROBE_ACT_NONE, "while retiring churn: not the probe's");
}

static void test_client(void)
{
	struct fpusoak_gfp_info info;
	char why[160];
	struct stat sb;
	int fd, ok = 7;

	if (stat(FPUSOAK_GFP_DEVICE, &sb) == 0) {
		T_SKIP("%s exists on this machine: the module-not-loaded answers are not testable here",
		       FPUSOAK_GFP_DEVICE);
	} else {
		errno = 0;
		T_EQ_I(gfpmod_open(), -1, "no device: open fails");
		T_EQ_I(errno, ENOENT, "with ENOENT");
		T_EQ_I(gfpmod_detect(&info, why, sizeof why), -1, "detect: not usable");
		T_EQ_S(why, "module not loaded", "and says why in the words the run records");
	}
	/* Wrong file: the kernel's answer to an ioctl it does not know, passed through. */
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	T_CHECK(fd >= 0, "open /dev/null");
	errno = 0;
	T_CHECK(gfpmod_hold(fd, 832, GFP_MODE_ATOMIC) == -1 && errno == ENOTTY, "HOLD on /dev/null: ENOTTY");
	errno = 0;
	T_CHECK(gfpmod_try(fd, 3, GFP_MODE_NOWAIT, &ok, NULL) == -1 && errno == ENOTTY && ok == 7,
		"TRY on /dev/null: ENOTTY, ok untouched");
	errno = 0;
	T_CHECK(gfpmod_info(fd, &info) == -1 && errno == ENOTTY, "INFO on /dev/null: ENOTTY");
	errno = 0;
	T_CHECK(gfpmod_hold(fd, 832, GFP_MODE_ALTERNATE) == -1 && errno == EINVAL, "HOLD alternate: EINVAL before the kernel");
	errno = 0;
	T_CHECK(gfpmod_try(fd, 3, GFP_MODE_OFF, &ok, NULL) == -1 && errno == EINVAL, "TRY off: EINVAL before the kernel");
	close(fd);
}

int main(void)
{
	test_modes();
	test_accounting();
	test_probe();
	test_client();
	T_DONE();
}
