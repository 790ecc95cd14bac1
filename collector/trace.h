/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace: pure parsers for what a tracefs instance gives fpusoakd back — the
 * lines of its trace_pipe (kmem/mm_page_alloc, kmem/mm_page_alloc_extfrag)
 * and the text of an event's histogram ("hist" file).  The I/O side (the
 * instance, its pipe, its triggers) is daemon/tracewatch.h.
 *
 * A trace_pipe line (kernel/trace/trace_output.c trace_print_context, then
 * the event's TP_printk):
 *   "            TASK-PID     [CPU] FLAGS  SECS.USECS: EVENT: FIELDS"
 * TASK is the saved comm, right-justified in 16 columns ("<...>" when the
 * kernel no longer remembers it); it may hold any byte but '\0' and at most
 * 15 of them, so it cannot hold ": mm_page_alloc: " and the header is read
 * backwards from the first "SECS.USECS: EVENT: " that parses.  With the
 * record-tgid option a "(  TGID) " column follows PID; FLAGS (irq-info, on by
 * default) is absent when that option is off.  A newline inside a comm splits
 * a line in two: both halves come back MALFORMED or OTHER, never as events
 * of someone else's pid.
 *   mm_page_alloc (include/trace/events/kmem.h):
 *     "page=%p pfn=0x%lx order=%d migratetype=%d gfp_flags=%s"   (4.x: pfn=%lu)
 *     A failed allocation has pfn -1 in the ring buffer; TP_printk prints it as
 *     page=NULL ("0000000000000000", "(null)" before 4.15) and pfn 0.
 *   mm_page_alloc_extfrag:
 *     "page=%p pfn=0x%lx alloc_order=%d fallback_order=%d pageblock_order=%d
 *      alloc_migratetype=%d fallback_migratetype=%d fragmenting=%d change_ownership=%d"
 *     fragmenting = fallback_order < pageblock_order: the fallback split a
 *     pageblock of another migrate type instead of taking it whole.
 *   Lost events (ring buffer overrun): "CPU:%d [LOST %lu EVENTS]" or "CPU:%d [LOST EVENTS]".
 *
 * A hist file (kernel/trace/trace_events_hist.c hist_show): for every hist
 * trigger of the event, in order,
 *   "# event histogram" / "#" / "# trigger info: hist:keys=..:vals=..:sort=..:size=N[ if FILTER] [active]"
 *   then one line per entry "{ KEY: %10llu, KEY: %10llu } hitcount: %10llu[ VAL: %10llu...]"
 *   then "Totals:" / "    Hits: N" / "    Entries: N" / "    Dropped: N".
 * Keys here are plain numeric fields; a key printed another way (.sym, .hex,
 * strings) makes the histogram malformed for fpusoakd.
 */
#ifndef FPUSOAK_TRACE_H
#define FPUSOAK_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/gfp.h"

#define TRACE_LINE_MAX 4096           /* a line longer than this is not one of ours */
#define TRACE_COMM_MAX 64             /* bytes kept of TASK (the kernel's are at most 15) */
#define TRACE_GFP_FLAGS_MAX 256

enum trace_kind {
	TRACE_NONE = 0,
	TRACE_PAGE_ALLOC,
	TRACE_EXTFRAG,
	TRACE_LOST,
};

enum trace_line_result {
	TRACE_LINE_OTHER = 0,        /* another event, or not an event line; ev->kind == TRACE_NONE */
	TRACE_LINE_EVENT = 1,        /* ev filled */
	TRACE_LINE_MALFORMED = -1,   /* names one of our events (or LOST) but does not parse; ev->kind says which */
};

struct trace_event {
	enum trace_kind kind;
	char comm[TRACE_COMM_MAX + 1];   /* as printed, NUL-terminated; "<...>" when unknown */
	size_t comm_len;
	int32_t pid;
	int cpu;
	uint64_t ts_us;                  /* the instance's trace clock, microseconds */
	union {
		struct {
			int failed;              /* page NULL and pfn 0: the allocation failed */
			uint64_t pfn;            /* 0 when failed */
			int order;
			int migratetype;
			char gfp_flags[TRACE_GFP_FLAGS_MAX + 1];   /* as printed: "GFP_KERNEL|__GFP_COMP", "none" */
			struct gfp_info gfp;
		} alloc;
		struct {
			uint64_t pfn;
			int alloc_order, fallback_order, pageblock_order;
			int alloc_migratetype, fallback_migratetype;
			int fragmenting, change_ownership;
		} extfrag;
		struct {
			uint64_t events;         /* 0 when the kernel did not say how many */
		} lost;
	} u;
};

/* Classify and parse one trace_pipe line buf[0..len) (no '\n'); returns enum trace_line_result, ev always reset. */
int trace_parse_line(const char *buf, size_t len, struct trace_event *ev);

/* Short lower-case name of a kind ("page_alloc", "extfrag", "lost"). */
const char *trace_kind_name(enum trace_kind k);

/* ---------------------------------------------------------------- hist */

#define TRACE_HIST_KEYS_MAX 3           /* TRACING_MAP_KEYS_MAX */
#define TRACE_HIST_KEY_NAME_MAX 32
#define TRACE_HIST_TRIGGER_MAX 512
#define TRACE_HIST_ENTRIES_MAX 4096     /* per file; the default map holds 2048 per trigger */
#define TRACE_HIST_MAX 8                /* histograms (triggers) per file */

struct trace_hist_entry {
	int hist;                           /* index into trace_hists.h */
	uint64_t key[TRACE_HIST_KEYS_MAX];
	uint64_t hitcount;
};

struct trace_hist {
	char trigger[TRACE_HIST_TRIGGER_MAX + 1];   /* "hist:keys=...[ if FILTER]", state word dropped */
	int paused;
	int nkeys;
	char key[TRACE_HIST_KEYS_MAX][TRACE_HIST_KEY_NAME_MAX + 1];
	uint64_t hits, entries, dropped;            /* the Totals block */
	int first, n;                               /* its entries: e[first .. first + n) */
};

struct trace_hists {
	int nh;
	struct trace_hist h[TRACE_HIST_MAX];
	int ne;
	struct trace_hist_entry e[TRACE_HIST_ENTRIES_MAX];
};

/* Parse a whole hist file buf[0..len); 0, or -1 on malformed text, over-cap input, or a histogram without Totals. */
int trace_hist_parse(const char *buf, size_t len, struct trace_hists *out);

/* Index of key name in h, or -1. */
int trace_hist_key(const struct trace_hist *h, const char *name);

/* The value v of a trigger filter "... if FIELD == v" (the whole filter); 0, or -1 if the trigger has another filter or none. */
int trace_hist_filter_eq(const struct trace_hist *h, const char *field, int64_t *v);

/* ------------------------------------------------------- instance names */

/*
 * fpusoakd names its instance "fpusoakd-PID-START": its pid and its start
 * time (field 22 of /proc/PID/stat, clock ticks since boot).  Instances do
 * not outlive a boot and a pid is not reused while its process lives, so the
 * pair names one process: an instance whose process is gone (no such pid, or
 * a pid started at another time) was left by a fpusoakd that died.
 */
#define TRACE_INSTANCE_NAME_MAX 64

/* Write the instance name for (pid, start) into out; 0 or -1 if it does not fit. */
int trace_instance_name(int64_t pid, uint64_t start, char *out, size_t len);

/* Parse an instance name exactly as trace_instance_name writes it; 0, or -1 for any other name. */
int trace_instance_parse(const char *name, size_t len, int64_t *pid, uint64_t *start);

/* Field 22 (starttime) of a /proc/PID/stat text buf[0..len); 0 or -1. */
int trace_stat_starttime(const char *buf, size_t len, uint64_t *start);

/* The extfrag triggers fpusoakd sets: "hist:keys=" TRACE_EXTFRAG_KEYS ":vals=hitcount if alloc_migratetype == N". */
#define TRACE_EXTFRAG_KEYS "alloc_order,fallback_order,fallback_migratetype"

/* One line of an event's "trigger" file: if it is a trigger fpusoakd sets, write the text that removes it
 * ("!hist:...") into out and return 1; 0 for anyone else's trigger or a comment; -1 if out is too small. */
int trace_trigger_removal(const char *line, size_t len, char *out, size_t cap);

#endif
