/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log: the one logging API.
 *
 * Messages go to stderr.  When JOURNAL_STREAM names our stderr (systemd
 * connected it to journald), they go to the journal natively instead, with
 * PRIORITY=, SYSLOG_IDENTIFIER=fpusoakd and FPUSOAK_RUN_ID= fields (so
 * `journalctl FPUSOAK_RUN_ID=3` works); should that fail, stderr with a "<N>"
 * priority prefix.  Control characters in messages are replaced: kernel
 * strings (COMM) are attacker-chosen.
 */
#ifndef FPUSOAK_LOG_H
#define FPUSOAK_LOG_H

#include <stdarg.h>

enum log_level { LOG_LVL_ERR = 3, LOG_LVL_WARN = 4, LOG_LVL_NOTICE = 5, LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

/* Initialise: decide on priority prefixes from JOURNAL_STREAM; set the threshold. */
void log_init(enum log_level threshold);
/* Tag later journal entries with FPUSOAK_RUN_ID=id (0: none). */
void log_set_run_id(long long id);
/* Change the threshold (SIGHUP). */
void log_set_level(enum log_level threshold);
/* The name log_level_parse accepts for l ("info"). */
const char *log_level_name(enum log_level l);
/* Parse "err|warn|notice|info|debug" into *out; 0 or -1. */
int log_level_parse(const char *s, enum log_level *out);

/* Warning with ": strerror(errno)" appended. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Warning without errno. */
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Error without errno. */
void log_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Startup-only: log the error (with errno if errnum != 0) and exit(code). */
void fatalx(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

#endif
