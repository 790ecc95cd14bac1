/* SPDX-License-Identifier: GPL-2.0-only */
/* log: stderr logging with journald priority prefixes; see log.h. */
#include "common/log.h"
#include "common/num.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/unixdg.h"

/* journald's native protocol socket (systemd-journald.service(8)). */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/*
 * Set once at startup (and on SIGHUP from the loop thread); HTTP threads
 * only read it.  This is configuration, not state, hence the exception to
 * the no-mutable-globals rule.
 */
static struct {
	int threshold;
	int journal;    /* stderr is the journal: send entries natively, "<N>" as the fallback */
	int jfd;        /* the socket native entries leave from; -1 until the first one */
	long long run_id;
} logcfg = { LOG_LVL_INFO, 0, -1, 0 };

/* systemd.exec(5): JOURNAL_STREAM is "dev:ino" of the stream; it counts only if it is still our stderr. */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM"), *colon;
	uint64_t dev, ino;
	struct stat st;

	if (!js || !(colon = strchr(js, ':')) || num_parse_u64(js, (size_t)(colon - js), &dev) < 0 ||
	    num_parse_u64(colon + 1, strlen(colon + 1), &ino) < 0 || fstat(2, &st) < 0)
		return 0;
	return (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino;
}

void log_init(enum log_level threshold)
{
	logcfg.threshold = threshold;
	logcfg.journal = stderr_is_journal();
	/* Made here, once: request threads log too, and must not race to create it. */
	if (logcfg.journal && logcfg.jfd < 0)
		logcfg.jfd = unixdg_socket();
}

void log_set_run_id(long long id)
{
	logcfg.run_id = id;
}

void log_set_level(enum log_level threshold)
{
	logcfg.threshold = threshold;
}

static const struct { const char *name; enum log_level l; } LEVEL_NAMES[] = {
		{ "err", LOG_LVL_ERR }, { "error", LOG_LVL_ERR }, { "warn", LOG_LVL_WARN },
		{ "warning", LOG_LVL_WARN }, { "notice", LOG_LVL_NOTICE }, { "info", LOG_LVL_INFO },
		{ "debug", LOG_LVL_DEBUG },
};

const char *log_level_name(enum log_level l)
{
	for (size_t i = 0; i < sizeof LEVEL_NAMES / sizeof LEVEL_NAMES[0]; i++)
		if (LEVEL_NAMES[i].l == l)
			return LEVEL_NAMES[i].name;
	return "info";
}

int log_level_parse(const char *s, enum log_level *out)
{
	for (size_t i = 0; i < sizeof LEVEL_NAMES / sizeof LEVEL_NAMES[0]; i++)
		if (s && strcmp(s, LEVEL_NAMES[i].name) == 0) {
			*out = LEVEL_NAMES[i].l;
			return 0;
		}
	return -1;
}

/*
 * One native journal entry (sd_journal_send(3) without libsystemd): a
 * datagram of "FIELD=value" lines.  Values never hold a newline here (vlog
 * replaced control characters), so the plain form is always the right one.
 */
static int journal_send(int level, const char *msg, int errnum)
{
	struct unixdg_addr to;
	char entry[1400];
	int n;

	if (logcfg.jfd < 0 || unixdg_addr_parse(JOURNAL_SOCKET, &to) < 0)
		return -1;
	n = snprintf(entry, sizeof entry, "MESSAGE=%s%s%s\nPRIORITY=%d\nSYSLOG_IDENTIFIER=fpusoakd\n", msg,
		     errnum ? ": " : "", errnum ? strerror(errnum) : "", level);
	if (n > 0 && (size_t)n < sizeof entry && logcfg.run_id)
		n += snprintf(entry + n, sizeof entry - (size_t)n, "FPUSOAK_RUN_ID=%lld\n", logcfg.run_id);
	if (n <= 0 || (size_t)n >= sizeof entry)
		return -1;
	return unixdg_send(logcfg.jfd, &to, entry, (size_t)n);
}

static void vlog(int level, int errnum, const char *fmt, va_list ap)
{
	static const char *const tag[8] = { "", "", "", "error: ", "warning: ", "", "", "debug: " };
	char msg[1024];
	int n;

	if (level > logcfg.threshold)
		return;
	n = vsnprintf(msg, sizeof msg, fmt, ap);
	if (n < 0)
		return;
	/* Kernel-provided strings end up here: no terminal escapes, no fake log lines. */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (logcfg.journal && journal_send(level, msg, errnum) == 0)
		return;
	/* Under journald the priority travels in "<N>"; on a terminal it is a word. */
	if (logcfg.journal)
		fprintf(stderr, "<%d>%s%s%s\n", level, msg, errnum ? ": " : "", errnum ? strerror(errnum) : "");
	else
		fprintf(stderr, "fpusoakd: %s%s%s%s\n", tag[level], msg, errnum ? ": " : "",
			errnum ? strerror(errnum) : "");
}

#define LOGFN(name, level, useerrno) \
	void name(const char *fmt, ...) \
	{ \
		int e = useerrno ? errno : 0; \
		va_list ap; \
		va_start(ap, fmt); \
		vlog(level, e, fmt, ap); \
		va_end(ap); \
		errno = e ? e : errno; \
	}

LOGFN(log_warn, LOG_LVL_WARN, 1)
LOGFN(log_warnx, LOG_LVL_WARN, 0)
LOGFN(log_errx, LOG_LVL_ERR, 0)
LOGFN(log_notice, LOG_LVL_NOTICE, 0)
LOGFN(log_info, LOG_LVL_INFO, 0)
LOGFN(log_debug, LOG_LVL_DEBUG, 0)

void fatalx(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LVL_ERR, 0, fmt, ap);
	va_end(ap);
	exit(code);
}
