/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * notify: the sd_notify(3) side of fpusoakd.
 *
 * systemd learns three things from us: we are ready (READY=1 once the DB is
 * open, the first sample is stored and HTTP listens: Type=notify makes
 * `systemctl start` wait for exactly that), we are alive (WATCHDOG=1, sent
 * only while the loop and the sampler are healthy, so a stuck sampler lets
 * WatchdogSec= fire and Restart= take over), and what we are doing (STATUS=,
 * shown by `systemctl status`).  Each message is one datagram on
 * $NOTIFY_SOCKET; without that variable (run by hand, in tests) every call is
 * a no-op that sends nothing.
 *
 * Only the loop thread calls these.  The environment is read once, by
 * notify_init(); the variables stay set (sd_notify(3) reads NOTIFY_SOCKET on
 * every call), so whoever execs or forks long-lived children should drop
 * NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID from their environment.
 */
#ifndef FPUSOAK_NOTIFY_H
#define FPUSOAK_NOTIFY_H

#include <stdint.h>

/* Read $NOTIFY_SOCKET and $WATCHDOG_USEC/$WATCHDOG_PID; 1 if a notify socket is set, else 0. */
int notify_init(void);
/* Send READY=1; 0 (also when disabled) or -1 if the send failed. */
int notify_ready(void);
/* Send STATUS=<one line>: control characters become '?', longer than NOTIFY_STATUS_MAX is cut with "..."; 0 or -1. */
int notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Send EXTEND_TIMEOUT_USEC=usec: start-up needs up to usec more than TimeoutStartSec= (a long migration); 0 or -1. */
int notify_extend(uint64_t usec);
/* Send STOPPING=1 (shutdown has begun); 0 or -1. */
int notify_stopping(void);
/* Send WATCHDOG=1 when the watchdog is enabled for this process, else nothing; 0 or -1. */
int notify_watchdog(void);
/* Ping period in ms: half of $WATCHDOG_USEC (at least 1), 0 when the watchdog is off. */
uint64_t notify_watchdog_interval_ms(void);

/* Longest STATUS= text sent, in bytes, excluding "STATUS=". */
#define NOTIFY_STATUS_MAX 256

#endif
