/* SPDX-License-Identifier: GPL-2.0-only */
/* kmsg: /dev/kmsg record and kernel-log line parsers; see kmsg.h for the formats. */
#include "collector/kmsg.h"

#include <string.h>

#include "collector/lex.h"
#include "common/num.h"

#define PRI_MAX ((255 << 3) | 7)   /* facility is 8 bits (LOG_FACILITY), level 3 */
#define HEADER_MORE_MAX 128        /* ",caller=T123" and friends before ';' */

/* A span of the escaped message. */
struct span {
	const char *p;
	size_t n;
};

static int is_print(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Offset of the first needle in h[0..hl), or -1. */
static ssize_t find(const char *h, size_t hl, const char *needle)
{
	size_t nl = strlen(needle);

	if (nl == 0 || nl > hl)
		return -1;
	for (size_t i = 0; i + nl <= hl; i++)
		if (h[i] == needle[0] && memcmp(h + i, needle, nl) == 0)
			return (ssize_t)i;
	return -1;
}

/* Offset of the last needle in h[0..hl), or -1. */
static ssize_t rfind(const char *h, size_t hl, const char *needle)
{
	size_t nl = strlen(needle);

	if (nl == 0 || nl > hl)
		return -1;
	for (size_t i = hl - nl + 1; i-- > 0;)
		if (h[i] == needle[0] && memcmp(h + i, needle, nl) == 0)
			return (ssize_t)i;
	return -1;
}

static int starts(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n >= n && memcmp(s.p, lit, n) == 0;
}

/* Consume lit from the front of *s; 0 or -1. */
static int eat(struct span *s, const char *lit)
{
	size_t n = strlen(lit);

	if (!starts(*s, lit))
		return -1;
	s->p += n;
	s->n -= n;
	return 0;
}

/* Length of the leading run of bytes satisfying pred. */
static size_t run(struct span s, int (*pred)(char))
{
	size_t i = 0;

	while (i < s.n && pred(s.p[i]))
		i++;
	return i;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hexch(char c)
{
	return hexval(c) >= 0 || c == 'x' || c == 'X';
}

/* Consume a decimal uint64 (num_parse_u64 rules); 0 or -1. */
static int eat_u64(struct span *s, uint64_t *v)
{
	size_t n = run(*s, is_digit);

	if (num_parse_u64(s->p, n, v) < 0)
		return -1;
	s->p += n;
	s->n -= n;
	return 0;
}

/* Consume a decimal int64 with optional '-'; 0 or -1. */
static int eat_i64(struct span *s, int64_t *v)
{
	size_t n = (s->n > 0 && s->p[0] == '-') ? 1 : 0;

	while (n < s->n && is_digit(s->p[n]))
		n++;
	if (num_parse_i64(s->p, n, v) < 0)
		return -1;
	s->p += n;
	s->n -= n;
	return 0;
}

/* Consume a gfp mask as %#x or 0x%x prints it: "0x1a" or "0"; 0 or -1. */
static int eat_gfp(struct span *s, uint64_t *v)
{
	size_t n = run(*s, is_hexch);

	if (!(n == 1 && s->p[0] == '0') && !(n > 2 && s->p[0] == '0' && s->p[1] == 'x'))
		return -1;
	if (num_parse_hex(s->p, n, v) < 0)
		return -1;
	s->p += n;
	s->n -= n;
	return 0;
}

/* Copy s into a NUL-terminated field of cap+1 bytes; -1 if it does not fit (truncation is an error). */
static int copy_text(char *dst, size_t cap, struct span s)
{
	if (s.n > cap)
		return -1;
	memcpy(dst, s.p, s.n);
	dst[s.n] = '\0';
	return 0;
}

/* Decode an escaped COMM into ev->comm; a NUL inside cannot come from a kernel string. */
static int set_comm(struct kmsg_event *ev, struct span s)
{
	ssize_t n;

	if (s.n > KMSG_COMM_ESC_MAX)
		return -1;
	n = kmsg_unescape(s.p, s.n, ev->comm, KMSG_COMM_MAX);
	if (n < 0 || memchr(ev->comm, '\0', (size_t)n))
		return -1;
	ev->comm[n] = '\0';
	ev->comm_len = (size_t)n;
	return 0;
}

/* A nodemask as %*pbl prints it ("0", "0-3,5") or "(null)" for a NULL mask. */
static int set_nodemask(struct kmsg_event *ev, struct span s)
{
	if (s.n == 0)
		return -1;
	if (!(s.n == 6 && memcmp(s.p, "(null)", 6) == 0))
		for (size_t i = 0; i < s.n; i++)
			if (!is_digit(s.p[i]) && s.p[i] != '-' && s.p[i] != ',')
				return -1;
	return copy_text(ev->nodemask, KMSG_NODEMASK_MAX, s);
}

/* Optional "(FLAGS)" after a gfp mask (4.x+); flag names never contain parentheses. */
static int eat_gfp_flags(struct span *s, struct kmsg_event *ev)
{
	ssize_t close;

	if (s->n == 0 || s->p[0] != '(')
		return 0;
	close = find(s->p, s->n, ")");
	if (close < 1 || memchr(s->p + 1, '(', (size_t)close - 1))
		return -1;
	if (copy_text(ev->gfp_flags, KMSG_GFP_FLAGS_MAX, (struct span){ s->p + 1, (size_t)close - 1 }) < 0)
		return -1;
	/* Names this table does not spell are kept as printed; only the decoded meaning is then missing. */
	ev->has_gfp_info = gfp_decode(ev->gfp_flags, (size_t)close - 1, &ev->gfp) == 0;
	s->p += close + 1;
	s->n -= (size_t)close + 1;
	return 0;
}

int kmsg_parse_record(const char *buf, size_t len, struct kmsg_record *out)
{
	struct span h;
	const char *nl, *semi;
	uint64_t pri;
	size_t more;

	memset(out, 0, sizeof *out);
	if (!buf || len == 0 || len > KMSG_RECORD_MAX)
		return -1;
	nl = memchr(buf, '\n', len);
	if (!nl)
		return -1;
	semi = memchr(buf, ';', (size_t)(nl - buf));
	if (!semi)
		return -1;
	h = (struct span){ buf, (size_t)(semi - buf) };
	if (eat_u64(&h, &pri) < 0 || pri > PRI_MAX || eat(&h, ",") < 0 ||
	    eat_u64(&h, &out->seq) < 0 || eat(&h, ",") < 0 ||
	    eat_u64(&h, &out->ts_usec) < 0 || eat(&h, ",") < 0)
		return -1;
	/* One flag character, then optional ",key=value" fields up to ';'. */
	if (h.n == 0 || h.p[0] == ',' || !is_print((unsigned char)h.p[0]))
		return -1;
	out->flags = h.p[0];
	h.p++;
	h.n--;
	more = h.n;
	if (more > HEADER_MORE_MAX || (more > 0 && h.p[0] != ','))
		return -1;
	for (size_t i = 0; i < more; i++)
		if (!is_print((unsigned char)h.p[i]))
			return -1;
	out->facility = (int)(pri >> 3);
	out->level = (int)(pri & 7);
	out->msg = semi + 1;
	out->msg_len = (size_t)(nl - semi - 1);
	/* The kernel escapes everything else, so raw bytes here mean this is not a kmsg record. */
	for (size_t i = 0; i < out->msg_len; i++)
		if (!is_print((unsigned char)out->msg[i]))
			return -1;
	if ((size_t)(nl + 1 - buf) < len) {
		const char *k, *v;
		size_t pos = 0, kl, vl;
		int rc;

		out->dict = nl + 1;
		out->dict_len = len - (size_t)(nl + 1 - buf);
		while ((rc = kmsg_dict_next(out, &pos, &k, &kl, &v, &vl)) > 0)
			;
		if (rc < 0)
			return -1;
	}
	return 0;
}

int kmsg_dict_next(const struct kmsg_record *r, size_t *pos, const char **key, size_t *klen,
		   const char **val, size_t *vlen)
{
	const char *line, *nl, *eq;
	size_t left;

	if (!r->dict || *pos >= r->dict_len)
		return 0;
	line = r->dict + *pos;
	left = r->dict_len - *pos;
	nl = memchr(line, '\n', left);
	if (!nl || line[0] != ' ')
		return -1;
	eq = memchr(line + 1, '=', (size_t)(nl - line - 1));
	if (!eq || eq == line + 1)
		return -1;
	for (const char *c = line + 1; c < nl; c++)
		if (!is_print((unsigned char)*c))
			return -1;
	*key = line + 1;
	*klen = (size_t)(eq - line - 1);
	*val = eq + 1;
	*vlen = (size_t)(nl - eq - 1);
	*pos += (size_t)(nl - line) + 1;
	return 1;
}

ssize_t kmsg_unescape(const char *in, size_t len, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char c = in[i];

		if (c == '\\') {
			/* The kernel writes '\\' itself as \x5c, so a bare backslash is corruption. */
			if (len - i < 4 || in[i + 1] != 'x' || hexval(in[i + 2]) < 0 || hexval(in[i + 3]) < 0)
				return -1;
			c = (char)(hexval(in[i + 2]) << 4 | hexval(in[i + 3]));
			i += 3;
		}
		if (o == cap)
			return -1;
		out[o++] = c;
	}
	return (ssize_t)o;
}

/* "COMM: page allocation failure: order:N, mode:0xM(FLAGS), nodemask=NM,cpuset=..." */
static int parse_alloc_fail(struct span m, size_t at, struct kmsg_event *ev)
{
	struct span s = { m.p + at, m.n - at };
	uint64_t order;
	ssize_t cs;

	if (set_comm(ev, (struct span){ m.p, at }) < 0)
		return -1;
	if (eat(&s, ": page allocation failure") < 0 ||
	    (eat(&s, ": order:") < 0 && eat(&s, ". order:") < 0) ||
	    eat_u64(&s, &order) < 0 || order > 63 || eat(&s, ", mode:") < 0 ||
	    eat_gfp(&s, &ev->gfp_mask) < 0 || eat_gfp_flags(&s, ev) < 0)
		return -1;
	ev->order = (int)order;
	ev->has_gfp = 1;
	if (s.n == 0)
		return 0;           /* 3.x .. 4.9: nothing after the mode */
	if (eat(&s, ", nodemask=") < 0)
		return -1;
	/* %*pbl uses commas too ("0-1,3"), so the mask ends at ",cpuset=", not at a comma. */
	cs = find(s.p, s.n, ",cpuset=");
	if (set_nodemask(ev, (struct span){ s.p, cs < 0 ? s.n : (size_t)cs }) < 0)
		return -1;
	if (cs >= 0 && find(s.p + cs, s.n - (size_t)cs, ",mems_allowed=") < 0)
		return -1;
	return 0;
}

/* "warn_alloc: N callbacks suppressed" */
static int parse_suppressed(struct span s, struct kmsg_event *ev)
{
	if (eat(&s, "warn_alloc: ") < 0 && eat(&s, "warn_alloc_failed: ") < 0)
		return -1;
	if (eat_u64(&s, &ev->count) < 0 || eat(&s, " callbacks suppressed") < 0 || s.n != 0)
		return -1;
	return 0;
}

/* "[MSG: ]Killed process PID (COMM) total-vm:..." ; at = offset of "Killed process ". */
static int parse_oom_kill(struct span m, size_t at, struct kmsg_event *ev)
{
	static const char *const tails[] = { ") total-vm:", ") vsz:" };   /* 3.x+, 2.6.3x */
	struct span s = { m.p + at, m.n - at };
	uint64_t pid;
	ssize_t close = -1;

	if (at > 0 && copy_text(ev->constraint, KMSG_CONSTRAINT_MAX, (struct span){ m.p, at - 2 }) < 0)
		return -1;
	if (eat(&s, "Killed process ") < 0 || eat_u64(&s, &pid) < 0 || pid > INT32_MAX || eat(&s, " (") < 0)
		return -1;
	/* COMM may hold ") total-vm:" itself, so take the last one; old kernels end at the ')'. */
	for (size_t i = 0; i < sizeof tails / sizeof tails[0] && close < 0; i++)
		close = rfind(s.p, s.n, tails[i]);
	if (close < 0 && s.n > 0 && s.p[s.n - 1] == ')')
		close = (ssize_t)s.n - 1;
	if (close < 0 || set_comm(ev, (struct span){ s.p, (size_t)close }) < 0)
		return -1;
	ev->pid = (int64_t)pid;
	return 0;
}

/* The kill line's prefix is the OOM killer's "message" argument: "Out of memory", "Memory cgroup out of memory"... */
static int oom_prefix(const char *p, size_t n)
{
	static const char want[] = "out of memory";

	for (size_t i = 0; i + sizeof want - 1 <= n; i++) {
		size_t k = 0;

		while (k < sizeof want - 1 && (p[i + k] | 0x20) == want[k])
			k++;
		if (k == sizeof want - 1)
			return 1;
	}
	return 0;
}

/* "oom-kill:constraint=C,nodemask=NM[,cpuset=..][,oom_memcg=..,task_memcg=..],task=COMM,pid=P,uid=U" */
static int parse_oom_constraint(struct span s, struct kmsg_event *ev)
{
	static const char *const after_mask[] = { ",cpuset=", ",oom_memcg=", ",task_memcg=" };
	ssize_t comma, task, pidat, end;
	uint64_t pid;
	struct span p;

	if (eat(&s, "oom-kill:constraint=") < 0)
		return -1;
	comma = find(s.p, s.n, ",");
	if (comma <= 0 || copy_text(ev->constraint, KMSG_CONSTRAINT_MAX, (struct span){ s.p, (size_t)comma }) < 0)
		return -1;
	s.p += comma;
	s.n -= (size_t)comma;
	if (eat(&s, ",nodemask=") < 0)
		return -1;
	task = find(s.p, s.n, ",task=");
	pidat = rfind(s.p, s.n, ",pid=");
	if (task < 0 || pidat < task + 6)
		return -1;
	end = task;
	for (size_t i = 0; i < sizeof after_mask / sizeof after_mask[0]; i++) {
		ssize_t a = find(s.p, (size_t)task, after_mask[i]);
		if (a >= 0 && a < end)
			end = a;
	}
	if (set_nodemask(ev, (struct span){ s.p, (size_t)end }) < 0)
		return -1;
	if (set_comm(ev, (struct span){ s.p + task + 6, (size_t)(pidat - task - 6) }) < 0)
		return -1;
	p = (struct span){ s.p + pidat, s.n - (size_t)pidat };
	if (eat(&p, ",pid=") < 0 || eat_u64(&p, &pid) < 0 || pid > INT32_MAX)
		return -1;
	ev->pid = (int64_t)pid;
	if (p.n == 0)
		return 0;
	if (eat(&p, ",uid=") < 0 || eat_u64(&p, &ev->uid) < 0 || p.n != 0)
		return -1;
	ev->has_uid = 1;
	return 0;
}

/* "COMM invoked oom-killer: gfp_mask=0xM(FLAGS)[, nodemask=NM], order=N[, oom_adj=N], oom_score_adj=N" */
static int parse_oom_invoked(struct span m, size_t at, struct kmsg_event *ev)
{
	struct span s = { m.p + at, m.n - at }, seg;
	int64_t order, adj;
	ssize_t o;

	if (set_comm(ev, (struct span){ m.p, at }) < 0)
		return -1;
	if (eat(&s, " invoked oom-killer: gfp_mask=") < 0 || eat_gfp(&s, &ev->gfp_mask) < 0 ||
	    eat_gfp_flags(&s, ev) < 0)
		return -1;
	ev->has_gfp = 1;
	o = rfind(s.p, s.n, "order=");
	if (o < 0)
		return -1;
	/* Between the mask and "order=": ", " or ",  " (4.9-4.18), with an optional nodemask. */
	seg = (struct span){ s.p, (size_t)o };
	if (eat(&seg, ",") < 0)
		return -1;
	if (seg.n > 0 && seg.p[seg.n - 1] == ' ')
		seg.n--;
	if (seg.n > 0 && seg.p[seg.n - 1] == ' ')
		seg.n--;
	if (seg.n > 0) {
		if (eat(&seg, " nodemask=") < 0 || seg.n == 0 || seg.p[seg.n - 1] != ',')
			return -1;
		seg.n--;
		if (set_nodemask(ev, seg) < 0)
			return -1;
	}
	s.p += o;
	s.n -= (size_t)o;
	if (eat(&s, "order=") < 0 || eat_i64(&s, &order) < 0 || order < -1 || order > 63)
		return -1;
	ev->order = (int)order;
	if (eat(&s, ", oom_adj=") == 0 && eat_i64(&s, &adj) < 0)   /* 2.6.36 .. 3.x */
		return -1;
	if (eat(&s, ", oom_score_adj=") < 0 || eat_i64(&s, &adj) < 0 || s.n != 0)
		return -1;
	ev->has_oom_score_adj = 1;
	ev->oom_score_adj = adj;
	return 0;
}

static void reset(struct kmsg_event *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = KMSG_NONE;
	ev->pid = -1;
	ev->order = -1;
}

/* Escaped kernel text is printable ASCII; anything else did not come from /dev/kmsg. */
static int all_printable(struct span m)
{
	for (size_t i = 0; i < m.n; i++)
		if (!is_print((unsigned char)m.p[i]))
			return 0;
	return 1;
}

int kmsg_parse_task(const char *msg, size_t len, struct kmsg_task *out)
{
	struct lex c = { msg, msg + len };
	uint64_t v;

	memset(out, 0, sizeof *out);
	if (!lex_accept(&c, "CPU: ") || lex_number(&c, &v) < 0 || !lex_accept(&c, " "))
		return -1;
	if (lex_accept(&c, "UID: ") && (lex_number(&c, &v) < 0 || !lex_accept(&c, " ")))
		return -1;
	if (!lex_accept(&c, "PID: ") || lex_number(&c, &v) < 0 || v > INT32_MAX || !lex_accept(&c, " Comm: "))
		return -1;
	out->pid = (int64_t)v;
	out->rest = c.p;
	out->rest_len = (size_t)(c.end - c.p);
	return 0;
}

int kmsg_task_is(const struct kmsg_task *t, const char *comm, size_t comm_len)
{
	static const char hex[] = "0123456789abcdef";
	size_t at = 0;

	/* The task line prints at most 15 bytes of comm (TASK_COMM_LEN): compare that much, escaped as printk does. */
	if (comm_len > 15)
		comm_len = 15;
	for (size_t i = 0; i < comm_len; i++) {
		unsigned char b = (unsigned char)comm[i];
		char esc[4] = { '\\', 'x', hex[b >> 4], hex[b & 15] };
		size_t n = b < 0x20 || b >= 0x7f || b == '\\' ? 4 : 1;
		if (n == 1)
			esc[0] = (char)b;
		if (at + n > t->rest_len || memcmp(t->rest + at, esc, n) != 0)
			return 0;
		at += n;
	}
	return at < t->rest_len && t->rest[at] == ' ';
}

int kmsg_parse_line(const char *msg, size_t len, struct kmsg_event *ev)
{
	struct span m = { msg, len };
	ssize_t at = -1;
	size_t kill_at = 0;
	enum kmsg_kind kind;
	int rc;

	reset(ev);
	if (!msg)
		return KMSG_LINE_OTHER;
	if ((at = rfind(msg, len, ": page allocation failure")) >= 0)
		kind = KMSG_ALLOC_FAIL;
	else if (starts(m, "warn_alloc: ") || starts(m, "warn_alloc_failed: "))
		kind = KMSG_ALLOC_SUPPRESSED;
	else if (starts(m, "oom-kill:"))
		kind = KMSG_OOM_CONSTRAINT;
	else if (starts(m, "Killed process ") ||
		 ((at = find(msg, len, ": Killed process ")) >= 0 && oom_prefix(msg, (size_t)at))) {
		kind = KMSG_OOM_KILL;
		kill_at = starts(m, "Killed process ") ? 0 : (size_t)at + 2;
	} else if ((at = rfind(msg, len, " invoked oom-killer: ")) >= 0)
		kind = KMSG_OOM_INVOKED;
	else
		return KMSG_LINE_OTHER;

	ev->kind = kind;
	if (!all_printable(m))
		rc = -1;
	else if (kind == KMSG_ALLOC_FAIL)
		rc = parse_alloc_fail(m, (size_t)at, ev);
	else if (kind == KMSG_ALLOC_SUPPRESSED)
		rc = parse_suppressed(m, ev);
	else if (kind == KMSG_OOM_CONSTRAINT)
		rc = parse_oom_constraint(m, ev);
	else if (kind == KMSG_OOM_KILL)
		rc = parse_oom_kill(m, kill_at, ev);
	else
		rc = parse_oom_invoked(m, (size_t)at, ev);
	if (rc < 0) {
		reset(ev);
		ev->kind = kind;
		return KMSG_LINE_MALFORMED;
	}
	return KMSG_LINE_EVENT;
}

const char *kmsg_kind_name(enum kmsg_kind k)
{
	switch (k) {
	case KMSG_ALLOC_FAIL: return "alloc_fail";
	case KMSG_ALLOC_SUPPRESSED: return "alloc_suppressed";
	case KMSG_OOM_KILL: return "oom_kill";
	case KMSG_OOM_CONSTRAINT: return "oom_constraint";
	case KMSG_OOM_INVOKED: return "oom_invoked";
	case KMSG_NONE: break;
	}
	return "none";
}
