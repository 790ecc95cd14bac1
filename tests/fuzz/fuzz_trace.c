/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_trace: libFuzzer harness for what a tracefs instance hands back:
 * trace_pipe lines (trace_parse_line, each line of the input and the input
 * as one line), hist files (trace_hist_parse), GFP flag lists (gfp_decode,
 * gfp_table_mask), format files (gfp_table_parse_format, cexpr_print_arg,
 * cexpr_eval), instance names, /proc/PID/stat and trigger listings.
 * Seeds: tests/fixtures/ (the trace-* captures from the Xen guest).
 * Besides the sanitizers, it traps when an accepted parse breaks the
 * header's contract.
 */
#include <stdint.h>
#include <string.h>

#include "collector/cexpr.h"
#include "collector/gfp.h"
#include "collector/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct trace_hists hists;
static struct gfp_table table;

static void check_line(const char *buf, size_t len)
{
	struct trace_event ev;
	int rc = trace_parse_line(buf, len, &ev);

	if (rc == TRACE_LINE_OTHER) {
		if (ev.kind != TRACE_NONE)
			__builtin_trap();
		return;
	}
	if (rc == TRACE_LINE_MALFORMED) {
		if (ev.kind == TRACE_NONE || ev.comm_len || ev.pid != -1)
			__builtin_trap();
		return;
	}
	if (rc != TRACE_LINE_EVENT || ev.kind == TRACE_NONE || len > TRACE_LINE_MAX)
		__builtin_trap();
	if (ev.comm_len > TRACE_COMM_MAX || ev.comm[ev.comm_len] != '\0' || memchr(ev.comm, '\n', ev.comm_len))
		__builtin_trap();
	if (ev.kind == TRACE_LOST) {
		if (ev.cpu < 0)
			__builtin_trap();
		return;
	}
	if (ev.pid < 0 || ev.cpu < 0)
		__builtin_trap();
	if (ev.kind == TRACE_PAGE_ALLOC) {
		size_t n = strnlen(ev.u.alloc.gfp_flags, TRACE_GFP_FLAGS_MAX + 1);
		struct gfp_info g;

		if (n > TRACE_GFP_FLAGS_MAX || ev.u.alloc.order < 0 || ev.u.alloc.order > 63 ||
		    (ev.u.alloc.failed && ev.u.alloc.pfn != 0))
			__builtin_trap();
		/* the flags kept decode again to the same meaning */
		if (gfp_decode(ev.u.alloc.gfp_flags, n, &g) != 0 || memcmp(&g, &ev.u.alloc.gfp, sizeof g) != 0)
			__builtin_trap();
	} else if (ev.kind == TRACE_EXTFRAG) {
		if (ev.u.extfrag.fragmenting < 0 || ev.u.extfrag.fragmenting > 1 || ev.u.extfrag.alloc_order < 0 ||
		    ev.u.extfrag.fallback_order > 63)
			__builtin_trap();
	}
	(void)trace_kind_name(ev.kind);
}

static void check_hist(const char *buf, size_t len)
{
	int total = 0;

	if (trace_hist_parse(buf, len, &hists) != 0) {
		if (hists.nh || hists.ne)
			__builtin_trap();
		return;
	}
	if (hists.nh > TRACE_HIST_MAX || hists.ne > TRACE_HIST_ENTRIES_MAX)
		__builtin_trap();
	for (int i = 0; i < hists.nh; i++) {
		const struct trace_hist *h = &hists.h[i];
		int64_t v;

		if (h->nkeys < 1 || h->nkeys > TRACE_HIST_KEYS_MAX || h->first != total || h->n < 0 ||
		    strnlen(h->trigger, TRACE_HIST_TRIGGER_MAX + 1) > TRACE_HIST_TRIGGER_MAX)
			__builtin_trap();
		for (int k = 0; k < h->nkeys; k++)
			if (trace_hist_key(h, h->key[k]) > k || !h->key[k][0])
				__builtin_trap();
		(void)trace_hist_filter_eq(h, "alloc_migratetype", &v);
		total += h->n;
	}
	if (total != hists.ne)
		__builtin_trap();
	for (int i = 0; i < hists.ne; i++)
		if (hists.e[i].hist < 0 || hists.e[i].hist >= hists.nh)
			__builtin_trap();
}

static void check_small(const char *buf, size_t len)
{
	struct gfp_info g;
	int64_t pid;
	uint64_t st, v, m;
	char name[TRACE_INSTANCE_NAME_MAX], out[TRACE_HIST_TRIGGER_MAX + 2];
	const char *arg;
	size_t alen;

	if (gfp_decode(buf, len, &g) == 0 && (g.unknown > g.names || (len == 0)))
		__builtin_trap();
	if (trace_instance_parse(buf, len, &pid, &st) == 0) {
		/* a name we accept is exactly the name we would write */
		if (trace_instance_name(pid, st, name, sizeof name) != 0 || strlen(name) != len || memcmp(name, buf, len) != 0)
			__builtin_trap();
	}
	(void)trace_stat_starttime(buf, len, &st);
	if (trace_trigger_removal(buf, len, out, sizeof out) == 1 &&
	    (out[0] != '!' || strncmp(out + 1, "hist:keys=" TRACE_EXTFRAG_KEYS, 10 + sizeof TRACE_EXTFRAG_KEYS - 1) != 0))
		__builtin_trap();
	(void)cexpr_eval(buf, len, &v);
	if (cexpr_print_arg(buf, len, "pageblock_order", &arg, &alen) == 0 && (arg < buf || arg + alen > buf + len || alen == 0))
		__builtin_trap();
	if (gfp_table_parse_format(buf, len, &table) == 0) {
		if (table.n < 1 || table.n > GFP_TABLE_MAX)
			__builtin_trap();
		for (int i = 0; i < table.n; i++)
			if (!table.e[i].name[0] || gfp_table_mask(&table, table.e[i].name, strlen(table.e[i].name), &m) != 0)
				__builtin_trap();
	}
	if (table.n)
		(void)gfp_table_mask(&table, buf, len, &m);
}

/* Every parser here works line by line or token by token: bytes past this exercise nothing new, and
 * the fixture seeds (a 63 KB trace_pipe capture) would otherwise keep the harness at a few hundred runs/s. */
#define INPUT_MAX 16384

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t pos = 0;

	if (size > INPUT_MAX)
		size = INPUT_MAX;

	check_line(buf, size);
	while (pos < size) {
		const char *nl = memchr(buf + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - buf) - pos : size - pos;

		check_line(buf + pos, n);
		pos += n + 1;
	}
	check_hist(buf, size);
	check_small(buf, size);
	return 0;
}
