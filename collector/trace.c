/* SPDX-License-Identifier: GPL-2.0-only */
/* trace: trace_pipe line and hist file parsers; see trace.h for the formats. */
#include "collector/trace.h"

#include <stdio.h>
#include <string.h>

#include "collector/lex.h"
#include "common/num.h"

#define FIELDS_MAX 16
#define HEADER_MAX 192    /* bytes before the timestamp's ": " */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

/* A decimal int in [lo, hi], '-' allowed; 0 or -1. */
static int int_in(struct span s, int64_t lo, int64_t hi, int *out)
{
	int64_t v;

	if (num_parse_i64(s.p, s.n, &v) < 0 || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* "0x1a2b" (5.x+) or "6789" (4.x); 0 or -1. */
static int pfn_value(struct span s, uint64_t *v)
{
	if (s.n > 2 && s.p[0] == '0' && s.p[1] == 'x')
		return num_parse_hex(s.p, s.n, v);
	return num_parse_u64(s.p, s.n, v);
}

/* %p of NULL: "0000000000000000" (32-bit: 8 digits), "(null)" before 4.15. */
static int null_pointer(struct span s)
{
	if (span_is(s, "(null)"))
		return 1;
	if (s.n != 16 && s.n != 8)
		return 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.p[i] != '0')
			return 0;
	return 1;
}

/* A %p as the kernel prints it: hex digits (hashed or not) or one of its placeholders. */
static int pointer_text(struct span s)
{
	if (null_pointer(s) || span_is(s, "(____ptrval____)") || span_is(s, "(ptrval)"))
		return 1;
	if (s.n == 0 || s.n > 16)
		return 0;
	for (size_t i = 0; i < s.n; i++)
		if (!is_digit(s.p[i]) && !(s.p[i] >= 'a' && s.p[i] <= 'f'))
			return 0;
	return 1;
}

struct kv {
	struct span k, v;
};

/* Split "k=v k=v ..." (single spaces, values without spaces); count, or -1. */
static int split_fields(struct span s, struct kv *f, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < s.n) {
		size_t k0 = i, eq, end;

		while (i < s.n && (is_name(s.p[i])))
			i++;
		if (i == k0 || i >= s.n || s.p[i] != '=' || n == max)
			return -1;
		eq = i++;
		while (i < s.n && s.p[i] != ' ')
			i++;
		end = i;
		if (end == eq + 1)
			return -1;
		for (int j = 0; j < n; j++)
			if (f[j].k.n == eq - k0 && memcmp(f[j].k.p, s.p + k0, eq - k0) == 0)
				return -1;       /* a key twice is not a kernel line */
		f[n].k = (struct span){ s.p + k0, eq - k0 };
		f[n].v = (struct span){ s.p + eq + 1, end - eq - 1 };
		n++;
		if (i < s.n) {
			if (++i == s.n)
				return -1;       /* trailing blank */
		}
	}
	return n;
}

static int field(const struct kv *f, int n, const char *key, struct span *v)
{
	for (int i = 0; i < n; i++)
		if (span_is(f[i].k, key)) {
			*v = f[i].v;
			return 0;
		}
	return -1;
}

static int field_int(const struct kv *f, int n, const char *key, int64_t lo, int64_t hi, int *out)
{
	struct span v;

	return field(f, n, key, &v) < 0 ? -1 : int_in(v, lo, hi, out);
}

static int parse_page_alloc(struct span s, struct trace_event *ev)
{
	struct kv f[FIELDS_MAX];
	struct span page, pfn, flags;
	int n = split_fields(s, f, FIELDS_MAX);

	if (n < 0 || field(f, n, "page", &page) < 0 || field(f, n, "pfn", &pfn) < 0 ||
	    field(f, n, "gfp_flags", &flags) < 0 || !pointer_text(page) || pfn_value(pfn, &ev->u.alloc.pfn) < 0 ||
	    field_int(f, n, "order", 0, 63, &ev->u.alloc.order) < 0 ||
	    field_int(f, n, "migratetype", 0, 63, &ev->u.alloc.migratetype) < 0)
		return -1;
	if (flags.n > TRACE_GFP_FLAGS_MAX || gfp_decode(flags.p, flags.n, &ev->u.alloc.gfp) < 0)
		return -1;
	memcpy(ev->u.alloc.gfp_flags, flags.p, flags.n);
	ev->u.alloc.gfp_flags[flags.n] = '\0';
	ev->u.alloc.failed = null_pointer(page) && ev->u.alloc.pfn == 0;
	return 0;
}

static int parse_extfrag(struct span s, struct trace_event *ev)
{
	struct kv f[FIELDS_MAX];
	struct span page, pfn;
	int n = split_fields(s, f, FIELDS_MAX);

	if (n < 0 || field(f, n, "page", &page) < 0 || !pointer_text(page) || field(f, n, "pfn", &pfn) < 0 ||
	    pfn_value(pfn, &ev->u.extfrag.pfn) < 0 ||
	    field_int(f, n, "alloc_order", 0, 63, &ev->u.extfrag.alloc_order) < 0 ||
	    field_int(f, n, "fallback_order", 0, 63, &ev->u.extfrag.fallback_order) < 0 ||
	    field_int(f, n, "pageblock_order", 0, 63, &ev->u.extfrag.pageblock_order) < 0 ||
	    field_int(f, n, "alloc_migratetype", 0, 63, &ev->u.extfrag.alloc_migratetype) < 0 ||
	    field_int(f, n, "fallback_migratetype", 0, 63, &ev->u.extfrag.fallback_migratetype) < 0 ||
	    field_int(f, n, "fragmenting", 0, 1, &ev->u.extfrag.fragmenting) < 0 ||
	    field_int(f, n, "change_ownership", 0, 1, &ev->u.extfrag.change_ownership) < 0)
		return -1;
	return 0;
}

/* "CPU:%d [LOST %lu EVENTS]" or "CPU:%d [LOST EVENTS]" */
static int parse_lost(struct span s, struct trace_event *ev)
{
	size_t i = 4, d;
	uint64_t v;

	for (d = i; i < s.n && is_digit(s.p[i]); i++)
		;
	if (int_in((struct span){ s.p + d, i - d }, 0, 1 << 20, &ev->cpu) < 0)
		return -1;
	s.p += i;
	s.n -= i;
	if (span_is(s, " [LOST EVENTS]"))
		return 0;
	if (!span_starts(s, " [LOST ") || s.n < 16 || memcmp(s.p + s.n - 8, " EVENTS]", 8) != 0)
		return -1;
	if (num_parse_u64(s.p + 7, s.n - 15, &v) < 0)
		return -1;
	ev->u.lost.events = v;
	return 0;
}

/*
 * The header before the timestamp, read backwards from ts (its first digit):
 * "  COMM-PID[ (TGID)] [CPU][ FLAGS] ".  0 and comm/pid/cpu set, or -1.
 */
static int parse_header(const char *line, size_t ts, struct trace_event *ev)
{
	size_t i = ts, e, b;
	int have_cpu = 0;

	/* At most two blank-separated tokens between "[CPU]" and the time: FLAGS, then the CPU itself. */
	for (int tok = 0; tok < 2 && !have_cpu; tok++) {
		if (i == 0 || line[i - 1] != ' ')
			return -1;
		while (i > 0 && line[i - 1] == ' ')
			i--;
		e = i;
		while (i > 0 && line[i - 1] != ' ')
			i--;
		if (e == i)
			return -1;
		if (line[e - 1] == ']') {
			uint64_t cpu;
			size_t used;

			/* "[%03d]": zero-padded, so not num_parse_u64's no-leading-zero rule */
			if (line[i] != '[' || e - i < 3 || num_prefix_u64(line + i + 1, e - i - 2, &cpu, &used) < 0 ||
			    used != e - i - 2 || cpu > (1 << 20))
				return -1;
			ev->cpu = (int)cpu;
			have_cpu = 1;
		}
	}
	if (!have_cpu || i == 0 || line[i - 1] != ' ')
		return -1;
	while (i > 0 && line[i - 1] == ' ')
		i--;
	/* record-tgid: "(%7d) " or "(-------) " */
	if (i > 0 && line[i - 1] == ')') {
		e = i - 1;
		while (i > 0 && line[i - 1] != '(')
			i--;
		if (i == 0)
			return -1;
		for (size_t k = i; k < e; k++)
			if (!is_digit(line[k]) && line[k] != ' ' && line[k] != '-')
				return -1;
		i--;
		if (i == 0 || line[i - 1] != ' ')
			return -1;
		while (i > 0 && line[i - 1] == ' ')
			i--;
	}
	e = i;
	while (i > 0 && is_digit(line[i - 1]))
		i--;
	{
		int pid;
		if (int_in((struct span){ line + i, e - i }, 0, INT32_MAX, &pid) < 0)
			return -1;
		ev->pid = pid;
	}
	if (i == 0 || line[i - 1] != '-')
		return -1;
	e = i - 1;
	/* COMM is right-justified: the blanks before it are padding. */
	for (b = 0; b < e && line[b] == ' '; b++)
		;
	if (e - b > TRACE_COMM_MAX || memchr(line + b, '\0', e - b))
		return -1;
	memcpy(ev->comm, line + b, e - b);
	ev->comm[e - b] = '\0';
	ev->comm_len = e - b;
	return 0;
}

/* "SECS.FRAC" ending right before colon; its start in *ts and the value in µs; 0 or -1. */
static int parse_time(const char *line, size_t colon, size_t *ts, uint64_t *us)
{
	size_t i = colon, dot;
	uint64_t secs, frac;
	size_t fn;

	while (i > 0 && is_digit(line[i - 1]))
		i--;
	fn = colon - i;
	if (fn == 0 || fn > 9 || i == 0 || line[i - 1] != '.')
		return -1;
	dot = --i;
	while (i > 0 && is_digit(line[i - 1]))
		i--;
	if (num_parse_u64(line + i, dot - i, &secs) < 0 || secs > UINT64_MAX / 1000000 - 1)
		return -1;
	if (num_prefix_u64(line + dot + 1, fn, &frac, &(size_t){ 0 }) < 0)
		return -1;
	/* the kernel prints µs ("%06lu"); scale any other precision to µs */
	for (size_t k = fn; k < 6; k++)
		frac *= 10;
	for (size_t k = 6; k < fn; k++)
		frac /= 10;
	*ts = i;
	*us = secs * 1000000 + frac;
	return 0;
}

static void reset(struct trace_event *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = TRACE_NONE;
	ev->pid = -1;
	ev->cpu = -1;
}

int trace_parse_line(const char *buf, size_t len, struct trace_event *ev)
{
	struct span s = { buf, len };

	reset(ev);
	if (!buf || len == 0)
		return TRACE_LINE_OTHER;
	if (len > TRACE_LINE_MAX || memchr(buf, '\n', len))
		return TRACE_LINE_OTHER;
	if (span_starts(s, "CPU:") && len > 4 && is_digit(buf[4])) {
		ev->kind = TRACE_LOST;
		if (parse_lost(s, ev) < 0) {
			reset(ev);
			ev->kind = TRACE_LOST;
			return TRACE_LINE_MALFORMED;
		}
		return TRACE_LINE_EVENT;
	}
	/*
	 * Every ": " is a candidate end of the timestamp; the first whose header
	 * parses wins.  A real header (padding, a 15-byte comm, pid, tgid, cpu,
	 * flags, time) ends well before HEADER_MAX, which keeps this linear.
	 */
	for (size_t c = 1; c + 1 < len && c < HEADER_MAX; c++) {
		struct trace_event h;
		struct span name, rest;
		size_t ts, i;
		enum trace_kind kind;
		int rc;

		if (buf[c] != ':' || buf[c + 1] != ' ' || !is_digit(buf[c - 1]))
			continue;
		reset(&h);
		if (parse_time(buf, c, &ts, &h.ts_us) < 0)
			continue;
		for (i = c + 2; i < len && is_name(buf[i]); i++)
			;
		if (i == c + 2 || i + 1 >= len || buf[i] != ':' || buf[i + 1] != ' ')
			continue;
		if (parse_header(buf, ts, &h) < 0)
			continue;
		name = (struct span){ buf + c + 2, i - c - 2 };
		rest = (struct span){ buf + i + 2, len - i - 2 };
		if (span_is(name, "mm_page_alloc"))
			kind = TRACE_PAGE_ALLOC;
		else if (span_is(name, "mm_page_alloc_extfrag"))
			kind = TRACE_EXTFRAG;
		else
			return TRACE_LINE_OTHER;
		*ev = h;
		ev->kind = kind;
		rc = kind == TRACE_PAGE_ALLOC ? parse_page_alloc(rest, ev) : parse_extfrag(rest, ev);
		if (rc < 0) {
			reset(ev);
			ev->kind = kind;
			return TRACE_LINE_MALFORMED;
		}
		return TRACE_LINE_EVENT;
	}
	/* Our event's name without a header that parses: say so, it was meant for us. */
	{
		static const char *const marks[] = { ": mm_page_alloc: ", ": mm_page_alloc_extfrag: " };
		for (int k = 0; k < 2; k++) {
			size_t ml = strlen(marks[k]);
			for (size_t i = 0; i + ml <= len; i++)
				if (memcmp(buf + i, marks[k], ml) == 0) {
					ev->kind = k == 0 ? TRACE_PAGE_ALLOC : TRACE_EXTFRAG;
					return TRACE_LINE_MALFORMED;
				}
		}
	}
	return TRACE_LINE_OTHER;
}

const char *trace_kind_name(enum trace_kind k)
{
	switch (k) {
	case TRACE_PAGE_ALLOC: return "page_alloc";
	case TRACE_EXTFRAG: return "extfrag";
	case TRACE_LOST: return "lost";
	case TRACE_NONE: break;
	}
	return "none";
}

/* ----------------------------------------------------------------- hist */

/* Key names from "hist:[NAME:]keys=K1,K2[:...]"; 0 or -1. */
static int trigger_keys(struct trace_hist *h)
{
	const char *t = h->trigger, *k = strstr(t, "keys="), *end;

	if (strncmp(t, "hist:", 5) != 0 || !k)
		return -1;
	k += 5;
	end = k + strcspn(k, ": ");
	while (k < end) {
		size_t n = strcspn(k, ",: ");

		if (k + n > end)
			n = (size_t)(end - k);
		if (n == 0 || n > TRACE_HIST_KEY_NAME_MAX || h->nkeys == TRACE_HIST_KEYS_MAX)
			return -1;
		memcpy(h->key[h->nkeys], k, n);
		h->key[h->nkeys][n] = '\0';
		h->nkeys++;
		k += n;
		if (k < end && *k == ',')
			k++;
	}
	return h->nkeys > 0 ? 0 : -1;
}

/* "# trigger info: TRIGGER [active]"; opens histogram number out->nh. */
static int hist_open(struct span s, struct trace_hists *out)
{
	struct trace_hist *h;
	struct span t = { s.p + 16, s.n - 16 };

	if (out->nh == TRACE_HIST_MAX)
		return -1;
	h = &out->h[out->nh];
	memset(h, 0, sizeof *h);
	if (t.n >= 9 && memcmp(t.p + t.n - 9, " [active]", 9) == 0)
		t.n -= 9;
	else if (t.n >= 9 && memcmp(t.p + t.n - 9, " [paused]", 9) == 0) {
		t.n -= 9;
		h->paused = 1;
	} else {
		return -1;
	}
	if (t.n == 0 || t.n > TRACE_HIST_TRIGGER_MAX)
		return -1;
	for (size_t i = 0; i < t.n; i++)
		if ((unsigned char)t.p[i] < 0x20 || (unsigned char)t.p[i] >= 0x7f)
			return -1;
	memcpy(h->trigger, t.p, t.n);
	h->trigger[t.n] = '\0';
	if (trigger_keys(h) < 0)
		return -1;
	h->first = out->ne;
	out->nh++;
	return 0;
}

/* "NAME:" + blanks + digits (%10llu); advances *s; 0 or -1. */
static int name_value(struct span *s, const char *want, uint64_t *v)
{
	size_t n = strlen(want), i, d;

	if (s->n < n + 1 || memcmp(s->p, want, n) != 0 || s->p[n] != ':')
		return -1;
	i = n + 1;
	if (i >= s->n || s->p[i] != ' ')
		return -1;
	while (i < s->n && s->p[i] == ' ')
		i++;
	for (d = i; i < s->n && is_digit(s->p[i]); i++)
		;
	if (num_parse_u64(s->p + d, i - d, v) < 0)
		return -1;
	s->p += i;
	s->n -= i;
	return 0;
}

/* "{ K: v, K: v } hitcount: n[ VAL: n...]" */
static int hist_entry(struct span s, struct trace_hists *out)
{
	struct trace_hist *h = &out->h[out->nh - 1];
	struct trace_hist_entry *e;
	uint64_t v;

	if (out->ne == TRACE_HIST_ENTRIES_MAX)
		return -1;
	e = &out->e[out->ne];
	memset(e, 0, sizeof *e);
	e->hist = out->nh - 1;
	s.p += 2;
	s.n -= 2;
	for (int k = 0; k < h->nkeys; k++) {
		if (k > 0) {
			if (!span_starts(s, ", "))
				return -1;
			s.p += 2;
			s.n -= 2;
		}
		if (name_value(&s, h->key[k], &e->key[k]) < 0)
			return -1;
	}
	if (!span_starts(s, " } "))
		return -1;
	s.p += 3;
	s.n -= 3;
	if (name_value(&s, "hitcount", &e->hitcount) < 0)
		return -1;
	/* Further values ("bytes_req: n") are allowed but not kept. */
	while (s.n > 0) {
		size_t i = 1;

		if (s.p[0] != ' ')
			return -1;
		while (i < s.n && is_name(s.p[i]))
			i++;
		if (i == 1 || i >= s.n)
			return -1;
		{
			char nm[TRACE_HIST_KEY_NAME_MAX + 1];
			if (i - 1 > TRACE_HIST_KEY_NAME_MAX)
				return -1;
			memcpy(nm, s.p + 1, i - 1);
			nm[i - 1] = '\0';
			s.p++;
			s.n--;
			if (name_value(&s, nm, &v) < 0)
				return -1;
		}
	}
	out->ne++;
	h->n++;
	return 0;
}

/* "    Hits: N" etc. */
static int totals_line(struct span s, const char *name, uint64_t *v)
{
	size_t i = 0;

	while (i < s.n && s.p[i] == ' ')
		i++;
	if (i == 0)
		return -1;
	s.p += i;
	s.n -= i;
	if (name_value(&s, name, v) < 0 || s.n != 0)
		return -1;
	return 0;
}

int trace_hist_parse(const char *buf, size_t len, struct trace_hists *out)
{
	/* 0: between histograms, 1: inside one (entries), 2..4: Totals lines expected (Hits, Entries, Dropped) */
	int state = 0;
	size_t pos = 0;

	out->nh = 0;
	out->ne = 0;
	if (!buf)
		return -1;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		struct span s = { buf + pos, (nl ? (size_t)(nl - buf) : len) - pos };
		struct trace_hist *h = out->nh ? &out->h[out->nh - 1] : NULL;
		int rc = 0;

		pos += s.n + 1;
		if (s.n > TRACE_LINE_MAX)
			rc = -1;
		else if (state >= 2) {
			uint64_t *dst = state == 2 ? &h->hits : state == 3 ? &h->entries : &h->dropped;
			rc = totals_line(s, state == 2 ? "Hits" : state == 3 ? "Entries" : "Dropped", dst);
			state = state == 4 ? 0 : state + 1;
		} else if (s.n == 0) {
			;
		} else if (span_starts(s, "# trigger info: ")) {
			rc = state == 0 ? hist_open(s, out) : -1;
			state = 1;
		} else if (s.p[0] == '#') {
			;
		} else if (span_starts(s, "{ ")) {
			rc = state == 1 ? hist_entry(s, out) : -1;
		} else if (span_is(s, "Totals:")) {
			rc = state == 1 ? 0 : -1;
			state = 2;
		} else {
			rc = -1;
		}
		if (rc < 0) {
			out->nh = 0;
			out->ne = 0;
			return -1;
		}
	}
	if (state != 0) {
		out->nh = 0;
		out->ne = 0;
		return -1;
	}
	return 0;
}

int trace_hist_key(const struct trace_hist *h, const char *name)
{
	for (int k = 0; k < h->nkeys; k++)
		if (strcmp(h->key[k], name) == 0)
			return k;
	return -1;
}

int trace_hist_filter_eq(const struct trace_hist *h, const char *field, int64_t *v)
{
	const char *f = strstr(h->trigger, " if ");
	size_t n = strlen(field);
	struct span s;

	if (!f)
		return -1;
	f += 4;
	if (strncmp(f, field, n) != 0 || strncmp(f + n, " == ", 4) != 0)
		return -1;
	s = (struct span){ f + n + 4, strlen(f + n + 4) };
	return num_parse_i64(s.p, s.n, v);
}

int trace_instance_name(int64_t pid, uint64_t start, char *out, size_t len)
{
	int n;

	if (pid <= 0)
		return -1;
	n = snprintf(out, len, "fpusoakd-%lld-%llu", (long long)pid, (unsigned long long)start);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int trace_instance_parse(const char *name, size_t len, int64_t *pid, uint64_t *start)
{
	static const char pre[] = "fpusoakd-";
	const char *dash;
	uint64_t p;

	if (len <= sizeof pre - 1 || len > TRACE_INSTANCE_NAME_MAX || memcmp(name, pre, sizeof pre - 1) != 0)
		return -1;
	name += sizeof pre - 1;
	len -= sizeof pre - 1;
	dash = memchr(name, '-', len);
	if (!dash || num_parse_u64(name, (size_t)(dash - name), &p) < 0 || p == 0 || p > INT32_MAX ||
	    num_parse_u64(dash + 1, len - (size_t)(dash - name) - 1, start) < 0)
		return -1;
	*pid = (int64_t)p;
	return 0;
}

int trace_stat_starttime(const char *buf, size_t len, uint64_t *start)
{
	const char *close = NULL;
	size_t i;

	/* comm is in parentheses and may hold ')' and blanks: the fields start after the last ')'. */
	for (i = len; i > 0; i--)
		if (buf[i - 1] == ')') {
			close = buf + i - 1;
			break;
		}
	if (!close || !memchr(buf, '(', (size_t)(close - buf)))
		return -1;
	i = (size_t)(close - buf) + 1;
	/* fields 3 (state) .. 22 (starttime): skip 19, read the 20th */
	for (int f = 3; f <= 22; f++) {
		size_t b;

		if (i >= len || buf[i] != ' ')
			return -1;
		b = ++i;
		while (i < len && buf[i] != ' ' && buf[i] != '\n')
			i++;
		if (i == b)
			return -1;
		if (f == 22)
			return num_parse_u64(buf + b, i - b, start);
	}
	return -1;
}

int trace_trigger_removal(const char *line, size_t len, char *out, size_t cap)
{
	static const char head[] = "hist:keys=" TRACE_EXTFRAG_KEYS ":vals=hitcount";
	static const char filt[] = " if alloc_migratetype == ";
	struct span s = { line, len };
	const char *f;
	int64_t v;

	if (len > 0 && line[len - 1] == '\n')
		s.n--;
	if (s.n >= 9 && (memcmp(s.p + s.n - 9, " [active]", 9) == 0 || memcmp(s.p + s.n - 9, " [paused]", 9) == 0))
		s.n -= 9;
	if (!span_starts(s, head) || (s.n > sizeof head - 1 && s.p[sizeof head - 1] != ':' && s.p[sizeof head - 1] != ' '))
		return 0;
	/* ours carry exactly one filter, on alloc_migratetype */
	f = NULL;
	for (size_t i = 0; i + sizeof filt - 1 <= s.n; i++)
		if (memcmp(s.p + i, filt, sizeof filt - 1) == 0) {
			f = s.p + i;
			break;
		}
	if (!f || num_parse_i64(f + sizeof filt - 1, (size_t)(s.p + s.n - f) - (sizeof filt - 1), &v) < 0 ||
	    v < 0 || v > 63)
		return 0;
	for (size_t i = 0; i < s.n; i++)
		if ((unsigned char)s.p[i] < 0x20 || (unsigned char)s.p[i] >= 0x7f)
			return 0;
	if (s.n + 2 > cap)
		return -1;
	out[0] = '!';
	memcpy(out + 1, s.p, s.n);
	out[s.n + 1] = '\0';
	return 1;
}
