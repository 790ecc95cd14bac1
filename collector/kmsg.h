/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmsg: pure parsers for /dev/kmsg records and for the kernel log lines
 * that answer "did an allocation fail, and did the OOM killer run?".
 * The I/O side (open, seek, read one record per read()) is kmsgdev.h.
 *
 * Record format (Documentation/ABI/testing/dev-kmsg):
 *   "pri,seq,ts_usec,flags[,more...];message\n"  then zero or more
 *   dictionary lines " KEY=value\n" (SUBSYSTEM=, DEVICE= since 3.5).
 * The kernel escapes every byte < 0x20, >= 0x7f and '\\' in the message
 * and dictionary as "\xNN" (lower-case hex), so a message is always one
 * line of printable ASCII.  The line parsers below work on that escaped
 * text: a hostile COMM cannot smuggle a newline or a NUL into the fields
 * we split on.  Only the extracted COMM is decoded back to raw bytes.
 *
 * Lines recognised, from mm/page_alloc.c and mm/oom_kill.c (3.x .. 6.x):
 *   ALLOC_FAIL       "COMM: page allocation failure: order:N, mode:0xHEX(FLAGS),
 *                     nodemask=NM,cpuset=CS,mems_allowed=MA"
 *                    3.x prints "mode:0x%x" and nothing after; 4.x adds "(FLAGS)";
 *                    4.10+ adds nodemask, cpuset only with CONFIG_CPUSETS; 2.6
 *                    printed "failure. order:".  %#x prints gfp 0 as "0".  A
 *                    record split by an interleaved printk may end after nodemask.
 *                    COMM is everything before the LAST ": page allocation failure"
 *                    (COMM may hold spaces and colons: "kworker/1: 0").
 *   ALLOC_SUPPRESSED "warn_alloc: N callbacks suppressed" (ratelimit; pre-4.10
 *                    the function was warn_alloc_failed).
 *   OOM_KILL         "[MSG: ]Killed process PID (COMM) total-vm:..."  MSG is
 *                    "Out of memory", "Memory cgroup out of memory", ... (5.0+;
 *                    before, the line had no prefix); kept in .constraint.  A
 *                    prefix without "out of memory" in it (e.g. a systemd unit's
 *                    "Killed process ... with signal") is not ours: OTHER.
 *                    COMM runs to the last ") total-vm:" (2.6: ") vsz:"; older:
 *                    the ')' ending the line).
 *                    "Kill process N (C) score S or sacrifice child" (pre-5.0)
 *                    is the choice, not the kill: it is NONE, so kills are not
 *                    counted twice.
 *   OOM_CONSTRAINT   "oom-kill:constraint=C,nodemask=NM[,cpuset=..,mems_allowed=..]
 *                    [,oom_memcg=..,task_memcg=..],task=COMM,pid=PID,uid=UID" (4.19+).
 *                    COMM is from the first ",task=" to the LAST ",pid=": only
 *                    root names cgroups, anyone names a task.
 *   OOM_INVOKED      "COMM invoked oom-killer: gfp_mask=0xHEX(FLAGS)[, nodemask=NM],
 *                    order=N, oom_score_adj=N"  (order is -1 for sysrq; 4.9-4.18
 *                    print ",  order=" after nodemask; 3.x has no (FLAGS)).
 * A line that carries one of these markers but does not parse returns
 * KMSG_LINE_MALFORMED so the caller can count it; everything else is
 * KMSG_LINE_OTHER.  vmalloc failures ("vmalloc error: ...") are OTHER.
 * The (FLAGS) names are decoded with the table the trace parser uses
 * (collector/gfp.h), so a failure means the same whichever source saw it.
 */
#ifndef FPUSOAK_KMSG_H
#define FPUSOAK_KMSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/gfp.h"

#define KMSG_RECORD_MAX 16384      /* kernel formats at most CONSOLE_EXT_LOG_MAX (8192) */
#define KMSG_COMM_MAX 64           /* raw bytes after \xNN decoding (TASK_COMM_LEN is 16) */
#define KMSG_COMM_ESC_MAX (4 * KMSG_COMM_MAX)   /* escaped form, every byte as \xNN */
#define KMSG_GFP_FLAGS_MAX 256
#define KMSG_NODEMASK_MAX 64
#define KMSG_CONSTRAINT_MAX 256

struct kmsg_record {
	int facility;              /* pri >> 3 */
	int level;                 /* pri & 7 */
	uint64_t seq;
	uint64_t ts_usec;          /* CLOCK_MONOTONIC-ish boot time, microseconds */
	char flags;                /* '-', or 'c'/'+' for pre-4.x continuation fragments */
	const char *msg;           /* escaped message text inside the caller's buffer, no '\n' */
	size_t msg_len;
	const char *dict;          /* dictionary lines " K=V\n"..., inside the buffer; NULL if none */
	size_t dict_len;
};

enum kmsg_kind {
	KMSG_NONE = 0,
	KMSG_ALLOC_FAIL,
	KMSG_ALLOC_SUPPRESSED,
	KMSG_OOM_KILL,
	KMSG_OOM_CONSTRAINT,
	KMSG_OOM_INVOKED,
};

enum kmsg_line_result {
	KMSG_LINE_OTHER = 0,       /* not one of ours; ev->kind == KMSG_NONE */
	KMSG_LINE_EVENT = 1,       /* ev filled */
	KMSG_LINE_MALFORMED = -1,  /* carries a marker but does not parse; ev->kind says which */
};

struct kmsg_event {
	enum kmsg_kind kind;
	char comm[KMSG_COMM_MAX + 1];   /* raw bytes (decoded), NUL-terminated; may be "" */
	size_t comm_len;
	int64_t pid;                    /* -1 if the line has none */
	int order;                      /* -1 if none (or sysrq's order=-1) */
	int has_gfp;
	uint64_t gfp_mask;
	char gfp_flags[KMSG_GFP_FLAGS_MAX + 1];     /* "GFP_ATOMIC|__GFP_NOWARN" as printed; "" if absent */
	int has_gfp_info;               /* gfp_flags decoded with collector/gfp.h (3.x prints no names) */
	struct gfp_info gfp;
	char nodemask[KMSG_NODEMASK_MAX + 1];       /* "(null)", "0-1,3"; "" if absent */
	char constraint[KMSG_CONSTRAINT_MAX + 1];   /* OOM_CONSTRAINT: "CONSTRAINT_MEMCG"; OOM_KILL: the "Out of memory" prefix */
	uint64_t count;                 /* ALLOC_SUPPRESSED: callbacks suppressed */
	int has_oom_score_adj;
	int64_t oom_score_adj;          /* OOM_INVOKED */
	int has_uid;
	uint64_t uid;                   /* OOM_CONSTRAINT */
};

/* Parse one record buf[0..len) as returned by one read() of /dev/kmsg; 0 or -1 (malformed, over cap, no final '\n'). */
int kmsg_parse_record(const char *buf, size_t len, struct kmsg_record *out);

/* Step through the record's dictionary: 1 and key/value spans (escaped) set, 0 at the end, -1 on a malformed line; *pos starts at 0. */
int kmsg_dict_next(const struct kmsg_record *r, size_t *pos, const char **key, size_t *klen,
		   const char **val, size_t *vlen);

/* Decode "\xNN" escapes of in[0..len) into out[0..cap); decoded length, or -1 on a bad escape or if it does not fit. */
ssize_t kmsg_unescape(const char *in, size_t len, char *out, size_t cap);

/* Classify and parse one escaped message line msg[0..len) (printable ASCII, no '\n'); returns enum kmsg_line_result, ev always reset. */
int kmsg_parse_line(const char *msg, size_t len, struct kmsg_event *ev);

/*
 * The task line dump_stack prints right after a warn_alloc report, "CPU: N PID: P Comm: C ..." (6.10+:
 * "CPU: N UID: U PID: P Comm: C ..."): the failure line itself names no pid.  C is cut at 15 bytes and
 * may hold blanks, so the caller matches it against the failure's COMM (kmsg_task_is).
 */
struct kmsg_task {
	int64_t pid;
	const char *rest;          /* the escaped text after "Comm: ", inside msg */
	size_t rest_len;
};

/* Parse msg[0..len) as a task line: 0 with out set, or -1 (another line). */
int kmsg_parse_task(const char *msg, size_t len, struct kmsg_task *out);

/* 1 if t's COMM is comm[0..comm_len) (raw bytes, as struct kmsg_event holds them) followed by a blank, else 0. */
int kmsg_task_is(const struct kmsg_task *t, const char *comm, size_t comm_len);

/* Short lower-case name of a kind ("alloc_fail", ...), for logs and the store. */
const char *kmsg_kind_name(enum kmsg_kind k);

#endif
