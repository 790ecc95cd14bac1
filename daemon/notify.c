/* SPDX-License-Identifier: GPL-2.0-only */
/* notify: sd_notify(3) wrapper; see notify.h. */
#include "daemon/notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "common/log.h"

/*
 * What notify_init() found in the environment.  Written once at startup and
 * by nothing else, like log.c's configuration; "warned" only keeps a broken
 * notify socket from filling the journal with one warning per watchdog ping.
 */
static struct {
	int enabled;             /* $NOTIFY_SOCKET is set */
	uint64_t watchdog_usec;  /* 0: no watchdog for this process */
	int warned;
} ncfg;

int notify_init(void)
{
	uint64_t usec = 0;
	int r;

	memset(&ncfg, 0, sizeof ncfg);
	ncfg.enabled = getenv("NOTIFY_SOCKET") != NULL;
	/* Checks WATCHDOG_PID too: variables inherited from a parent are not ours. */
	r = sd_watchdog_enabled(0, &usec);
	if (r < 0) {
		errno = -r;
		log_warn("ignoring malformed WATCHDOG_USEC/WATCHDOG_PID");
	} else if (r > 0 && ncfg.enabled) {
		ncfg.watchdog_usec = usec;
	}
	return ncfg.enabled;
}

static int send_state(const char *state)
{
	int r;

	if (!ncfg.enabled)
		return 0;
	r = sd_notify(0, state);
	if (r >= 0)
		return 0;
	errno = -r;
	if (!ncfg.warned) {
		ncfg.warned = 1;
		log_warn("sd_notify %.*s", (int)strcspn(state, "="), state);
	}
	return -1;
}

int notify_ready(void)
{
	return send_state("READY=1");
}

int notify_stopping(void)
{
	return send_state("STOPPING=1");
}

int notify_watchdog(void)
{
	if (ncfg.watchdog_usec == 0)
		return 0;
	return send_state("WATCHDOG=1");
}

int notify_status(const char *fmt, ...)
{
	static const char key[] = "STATUS=";
	/* key + text + "..." + NUL: a status is a display line, so cutting it is fine. */
	char buf[sizeof key - 1 + NOTIFY_STATUS_MAX + 4];
	size_t cap = sizeof key - 1 + NOTIFY_STATUS_MAX + 1;
	va_list ap;
	int n;

	if (!ncfg.enabled)
		return 0;
	memcpy(buf, key, sizeof key - 1);
	va_start(ap, fmt);
	n = vsnprintf(buf + sizeof key - 1, cap - (sizeof key - 1), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n > NOTIFY_STATUS_MAX)
		memcpy(buf + sizeof key - 1 + NOTIFY_STATUS_MAX, "...", 4);
	/* A newline would start another assignment ("\nREADY=1"): status text
	 * may quote kernel strings, which any local user can choose. */
	for (char *p = buf + sizeof key - 1; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return send_state(buf);
}

uint64_t notify_watchdog_interval_ms(void)
{
	uint64_t ms = ncfg.watchdog_usec / 2000;

	if (ncfg.watchdog_usec == 0)
		return 0;
	return ms ? ms : 1;
}
