/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * standin: a minimal Type=notify service for developing and self-testing the
 * systemd harness without fpusoakd (run.sh --standin installs it as
 * /usr/local/sbin/fpusoakd).  It speaks the same protocol through
 * daemon/notify.c: READY=1, STATUS= every second, WATCHDOG=1 at half of
 * WatchdogSec, a log line on SIGHUP, STOPPING=1 and exit 0 on SIGTERM.  It forks one "worker" that
 * only sleeps, so the harness can check that stopping the unit leaves no
 * process behind.  Logs go through common/log.c (journald priorities).
 */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "daemon/notify.h"

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(void)
{
	uint64_t start, next_status = 0, next_ping = 0, period;
	struct signalfd_siginfo si;
	struct pollfd pfd;
	sigset_t set;
	pid_t worker;

	log_init(LOG_LVL_INFO);
	notify_init();
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	worker = fork();
	if (worker == 0) {
		/* fork keeps the blocked mask: a worker that blocks SIGTERM stalls every stop by TimeoutStopSec. */
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		for (;;)
			pause();
	}
	if (worker < 0)
		fatalx(1, "fork failed");
	pfd.fd = signalfd(-1, &set, SFD_CLOEXEC);
	pfd.events = POLLIN;
	if (pfd.fd < 0)
		fatalx(1, "signalfd failed");
	start = mono_ms();
	period = notify_watchdog_interval_ms();
	log_info("standin started: worker %ld, watchdog every %llu ms", (long)worker, (unsigned long long)period);
	log_notice("standin notice line");
	log_warnx("standin warning line");
	notify_ready();
	for (;;) {
		uint64_t now = mono_ms();

		if (now >= next_status) {
			notify_status("standin up %llus, worker %ld", (unsigned long long)(now - start) / 1000, (long)worker);
			next_status = now + 1000;
		}
		if (period && now >= next_ping) {
			notify_watchdog();
			next_ping = now + period;
		}
		if (poll(&pfd, 1, 100) > 0 && read(pfd.fd, &si, sizeof si) == sizeof si) {
			if (si.ssi_signo != SIGHUP)
				break;
			log_info("standin reload on SIGHUP");
		}
	}
	notify_stopping();
	log_info("standin stopping on signal %u", si.ssi_signo);
	kill(worker, SIGTERM);
	waitpid(worker, NULL, 0);
	return 0;
}
