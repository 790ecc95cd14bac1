/* SPDX-License-Identifier: GPL-2.0-only */
/* notify: the sd_notify(3) protocol, spoken directly; see notify.h. */
#include "daemon/notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/num.h"
#include "common/unixdg.h"

/*
 * What notify_init() found in the environment.  Written once at startup and
 * by nothing else, like log.c's configuration; "warned" only keeps a broken
 * notify socket from filling the journal with one warning per watchdog ping.
 */
static struct {
	int enabled;             /* $NOTIFY_SOCKET is set */
	int fd;                  /* the socket we send from; -1 until the first send */
	struct unixdg_addr to;   /* $NOTIFY_SOCKET; len 0 when it does not parse */
	uint64_t watchdog_usec;  /* 0: no watchdog for this process */
	int warned;
} ncfg = { .fd = -1 };

/*
 * sd_watchdog_enabled(3) without libsystemd: WATCHDOG_USEC is a positive
 * number of microseconds, and WATCHDOG_PID, when set, must be our PID
 * (variables inherited from a parent are not ours).  1 and *usec, 0 when
 * there is no watchdog for us, -1 when either variable is malformed.
 */
static int watchdog_env(uint64_t *usec)
{
	const char *u = getenv("WATCHDOG_USEC"), *p = getenv("WATCHDOG_PID");
	uint64_t pid;

	if (!u)
		return 0;
	if (num_parse_u64(u, strlen(u), usec) < 0 || *usec == 0)
		return -1;
	if (!p)
		return 1;
	if (num_parse_u64(p, strlen(p), &pid) < 0 || pid == 0)
		return -1;
	return pid == (uint64_t)getpid();
}

int notify_init(void)
{
	const char *sock = getenv("NOTIFY_SOCKET");
	uint64_t usec = 0;
	int r, fd = ncfg.fd;

	memset(&ncfg, 0, sizeof ncfg);
	ncfg.fd = fd;
	ncfg.enabled = sock != NULL;
	if (sock && unixdg_addr_parse(sock, &ncfg.to) < 0)
		log_warnx("NOTIFY_SOCKET '%.*s' is not a socket path; systemd will not hear from us", 200, sock);
	r = watchdog_env(&usec);
	if (r < 0)
		log_warnx("ignoring malformed WATCHDOG_USEC/WATCHDOG_PID");
	else if (r > 0 && ncfg.enabled)
		ncfg.watchdog_usec = usec;
	return ncfg.enabled;
}

static int send_state(const char *state)
{
	if (!ncfg.enabled)
		return 0;
	if (ncfg.fd < 0)
		ncfg.fd = unixdg_socket();
	if (ncfg.to.len == 0)
		errno = EINVAL;
	else if (ncfg.fd >= 0 && unixdg_send(ncfg.fd, &ncfg.to, state, strlen(state)) == 0)
		return 0;
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

int notify_extend(uint64_t usec)
{
	char msg[64];

	snprintf(msg, sizeof msg, "EXTEND_TIMEOUT_USEC=%llu", (unsigned long long)usec);
	return send_state(msg);
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
