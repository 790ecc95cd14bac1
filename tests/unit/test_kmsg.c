/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_kmsg: /dev/kmsg record parser, \xNN decoding and the warn_alloc/OOM
 * line parsers.  Expected values are written out by hand from the kernel's
 * printk formats (mm/page_alloc.c warn_alloc, mm/oom_kill.c), or come from
 * real records of this machine's kernel (fixture).  The random test escapes
 * COMM bytes with its own copy of the kernel's rule (printk.c: bytes < 0x20,
 * >= 0x7f and '\\' become "\x%02x") and checks the parser gets them back.
 */
#include <stdint.h>
#include <time.h>

#include "collector/kmsg.h"
#include "test.h"

struct line_case {
	const char *name;
	const char *line;
	int rc;                    /* KMSG_LINE_* */
	enum kmsg_kind kind;
	const char *comm;          /* raw bytes; NULL = don't check */
	size_t comm_len;
	int64_t pid;
	int order;
	int has_gfp;
	uint64_t gfp;
	const char *flags, *nodemask, *constraint;
	uint64_t count;
	int has_adj;
	int64_t adj;
};

#define OK KMSG_LINE_EVENT
#define BAD KMSG_LINE_MALFORMED
#define OTHER KMSG_LINE_OTHER
#define C(s) s, sizeof(s) - 1

static const struct line_case cases[] = {
	/* --- warn_alloc --- */
	{ "6.x atomic order-3", "fpu-worker: page allocation failure: order:3, mode:0xa20(GFP_ATOMIC), nodemask=(null),cpuset=/,mems_allowed=0",
	  OK, KMSG_ALLOC_FAIL, C("fpu-worker"), -1, 3, 1, 0xa20, "GFP_ATOMIC", "(null)", "", 0, 0, 0 },
	{ "kworker comm with colon", "kworker/1:0: page allocation failure: order:0, mode:0x820(GFP_ATOMIC), nodemask=(null),cpuset=/,mems_allowed=0",
	  OK, KMSG_ALLOC_FAIL, C("kworker/1:0"), -1, 0, 1, 0x820, "GFP_ATOMIC", "(null)", "", 0, 0, 0 },
	{ "comm with space and colon", "kworker/1: 0: page allocation failure: order:2, mode:0x40cc0(GFP_KERNEL|__GFP_COMP), nodemask=(null),cpuset=/,mems_allowed=0",
	  OK, KMSG_ALLOC_FAIL, C("kworker/1: 0"), -1, 2, 1, 0x40cc0, "GFP_KERNEL|__GFP_COMP", "(null)", "", 0, 0, 0 },
	{ "hostile comm quotes <>&", "a\"<b>&'c: page allocation failure: order:1, mode:0x820(GFP_ATOMIC), nodemask=(null)",
	  OK, KMSG_ALLOC_FAIL, C("a\"<b>&'c"), -1, 1, 1, 0x820, "GFP_ATOMIC", "(null)", "", 0, 0, 0 },
	{ "escaped non-UTF-8 comm", "\\xff\\xfe\\x0a\\x5cx: page allocation failure: order:1, mode:0x820(GFP_ATOMIC), nodemask=0-1,3,cpuset=/a,b,mems_allowed=0-1,3",
	  OK, KMSG_ALLOC_FAIL, C("\xff\xfe\n\\x"), -1, 1, 1, 0x820, "GFP_ATOMIC", "0-1,3", "", 0, 0, 0 },
	{ "marker inside comm: last one wins", "evil: page allocation failure: x: page allocation failure: order:1, mode:0",
	  OK, KMSG_ALLOC_FAIL, C("evil: page allocation failure: x"), -1, 1, 1, 0, "", "", "", 0, 0, 0 },
	{ "empty comm (prctl \"\")", ": page allocation failure: order:4, mode:0x820(GFP_ATOMIC), nodemask=(null)",
	  OK, KMSG_ALLOC_FAIL, C(""), -1, 4, 1, 0x820, "GFP_ATOMIC", "(null)", "", 0, 0, 0 },
	{ "3.18 mode without flags", "dmwb_writeback_: page allocation failure: order:8, mode:0x204010",
	  OK, KMSG_ALLOC_FAIL, C("dmwb_writeback_"), -1, 8, 1, 0x204010, "", "", "", 0, 0, 0 },
	{ "4.x flags, no nodemask", "swapper/0: page allocation failure: order:0, mode:0x2080020(GFP_ATOMIC)",
	  OK, KMSG_ALLOC_FAIL, C("swapper/0"), -1, 0, 1, 0x2080020, "GFP_ATOMIC", "", "", 0, 0, 0 },
	{ "2.6 'failure.' form", "z_wr_iss/0: page allocation failure. order:0, mode:0x4020",
	  OK, KMSG_ALLOC_FAIL, C("z_wr_iss/0"), -1, 0, 1, 0x4020, "", "", "", 0, 0, 0 },
	{ "record split before cpuset", "ksoftirqd/0: page allocation failure: order:0, mode:0x820(GFP_ATOMIC), nodemask=(null)",
	  OK, KMSG_ALLOC_FAIL, C("ksoftirqd/0"), -1, 0, 1, 0x820, "GFP_ATOMIC", "(null)", "", 0, 0, 0 },
	{ "bad order", "foo: page allocation failure: order:x, mode:0x1", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "order leading zero", "foo: page allocation failure: order:03, mode:0x1", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "order too big", "foo: page allocation failure: order:64, mode:0x1", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "truncated after order", "foo: page allocation failure: order:3", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "mode without 0x", "foo: page allocation failure: order:3, mode:24000c0", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "bare 0x", "foo: page allocation failure: order:3, mode:0x", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "unclosed flags", "foo: page allocation failure: order:3, mode:0x10(GFP_A", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "junk after flags", "foo: page allocation failure: order:3, mode:0x10(GFP_A) x", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "junk nodemask", "foo: page allocation failure: order:3, mode:0x10(X), nodemask=abc", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "cpuset without mems_allowed", "foo: page allocation failure: order:3, mode:0x10(X), nodemask=0,cpuset=/", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "bad escape in comm", "\\xZZ: page allocation failure: order:1, mode:0x1", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "NUL byte in comm", "a\\x00b: page allocation failure: order:1, mode:0x1", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "comm of 65 bytes", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: page allocation failure: order:1, mode:0x1",
	  BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "raw byte in flags (not escaped text)", "bash invoked oom-killer: gfp_mask=0x14200ca(GFP_HIGHUSER_\xffOVABLE), nodemask=(null),  order=0, oom_score_adj=0",
	  BAD, KMSG_OOM_INVOKED, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "raw newline in line", "x: page allocation failure: order:1, mode:0x1\nfoo", BAD, KMSG_ALLOC_FAIL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "comm of 64 bytes", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: page allocation failure: order:1, mode:0x1",
	  OK, KMSG_ALLOC_FAIL, C("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), -1, 1, 1, 1, "", "", "", 0, 0, 0 },
	/* --- ratelimit --- */
	{ "suppressed", "warn_alloc: 12 callbacks suppressed", OK, KMSG_ALLOC_SUPPRESSED, C(""), -1, -1, 0, 0, "", "", "", 12, 0, 0 },
	{ "suppressed pre-4.10", "warn_alloc_failed: 3 callbacks suppressed", OK, KMSG_ALLOC_SUPPRESSED, C(""), -1, -1, 0, 0, "", "", "", 3, 0, 0 },
	{ "suppressed bad count", "warn_alloc: x callbacks suppressed", BAD, KMSG_ALLOC_SUPPRESSED, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "suppressed trailing junk", "warn_alloc: 5 callbacks suppressed!", BAD, KMSG_ALLOC_SUPPRESSED, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "other ratelimit", "net_ratelimit: 5 callbacks suppressed", OTHER, KMSG_NONE, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	/* --- OOM kill --- */
	{ "6.x kill", "Out of memory: Killed process 1234 (stress-ng) total-vm:1234kB, anon-rss:100kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:40kB oom_score_adj:1000",
	  OK, KMSG_OOM_KILL, C("stress-ng"), 1234, -1, 0, 0, "", "", "Out of memory", 0, 0, 0 },
	{ "memcg kill, comm with space", "Memory cgroup out of memory: Killed process 42 (fpu worker) total-vm:10kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:1000",
	  OK, KMSG_OOM_KILL, C("fpu worker"), 42, -1, 0, 0, "", "", "Memory cgroup out of memory", 0, 0, 0 },
	{ "pre-5.0 kill, no prefix", "Killed process 77 (bash) total-vm:1kB, anon-rss:2kB, file-rss:3kB, shmem-rss:0kB",
	  OK, KMSG_OOM_KILL, C("bash"), 77, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "comm with ')'", "Out of memory: Killed process 5 (a) b) total-vm:1kB, anon-rss:0kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:0",
	  OK, KMSG_OOM_KILL, C("a) b"), 5, -1, 0, 0, "", "", "Out of memory", 0, 0, 0 },
	{ "oom_kill_allocating_task", "Out of memory (oom_kill_allocating_task): Killed process 9 (x) total-vm:1kB, anon-rss:0kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:0",
	  OK, KMSG_OOM_KILL, C("x"), 9, -1, 0, 0, "", "", "Out of memory (oom_kill_allocating_task)", 0, 0, 0 },
	{ "kill, escaped comm", "Out of memory: Killed process 6 (\\x1b[31m<script>) total-vm:1kB",
	  OK, KMSG_OOM_KILL, C("\x1b[31m<script>"), 6, -1, 0, 0, "", "", "Out of memory", 0, 0, 0 },
	{ "choice line is not a kill", "Out of memory: Kill process 1234 (stress) score 900 or sacrifice child", OTHER, KMSG_NONE, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "reaper is not a kill", "oom_reaper: reaped process 1234 (stress), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB", OTHER, KMSG_NONE, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "kill bad pid", "Out of memory: Killed process abc (x) total-vm:1kB", BAD, KMSG_OOM_KILL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "kill no paren", "Killed process 12 x", BAD, KMSG_OOM_KILL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "kill junk after paren", "Killed process 12 (x)junk", BAD, KMSG_OOM_KILL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "kill, unknown tail", "Out of memory: Killed process 12 (x) with signal 9", BAD, KMSG_OOM_KILL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "2.6.3x kill (vsz)", "Killed process 3 (httpd) vsz:123kB, anon-rss:4kB, file-rss:0kB", OK, KMSG_OOM_KILL, C("httpd"), 3, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "2.6 kill, nothing after", "Killed process 4 (a (b))", OK, KMSG_OOM_KILL, C("a (b)"), 4, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "comm holding ') total-vm:'", "Out of memory: Killed process 8 (x) total-vm:) total-vm:1kB, anon-rss:0kB", OK, KMSG_OOM_KILL, C("x) total-vm:"), 8, -1, 0, 0, "", "", "Out of memory", 0, 0, 0 },
	{ "systemd kill line is not ours", "session-3.scope: Killed process 1234 (bash) with signal SIGKILL.", OTHER, KMSG_NONE, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "memcg prefix case-insensitive", "Memory cgroup out of memory: Killed process 5 (x) total-vm:1kB", OK, KMSG_OOM_KILL, C("x"), 5, -1, 0, 0, "", "", "Memory cgroup out of memory", 0, 0, 0 },
	{ "kill unclosed", "Out of memory: Killed process 12 (abc", BAD, KMSG_OOM_KILL, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	/* --- oom-kill summary --- */
	{ "constraint memcg", "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/x,task_memcg=/x,task=stress-ng,pid=321,uid=0",
	  OK, KMSG_OOM_CONSTRAINT, C("stress-ng"), 321, -1, 0, 0, "", "(null)", "CONSTRAINT_MEMCG", 0, 0, 0 },
	{ "constraint comm with ,pid=", "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/,task=a,pid=9,pid=4242,uid=1000",
	  OK, KMSG_OOM_CONSTRAINT, C("a,pid=9"), 4242, -1, 0, 0, "", "(null)", "CONSTRAINT_NONE", 0, 0, 0 },
	{ "constraint multi-node mask, no cpuset", "oom-kill:constraint=CONSTRAINT_MEMORY_POLICY,nodemask=0-1,3,task=x y,pid=1,uid=0",
	  OK, KMSG_OOM_CONSTRAINT, C("x y"), 1, -1, 0, 0, "", "0-1,3", "CONSTRAINT_MEMORY_POLICY", 0, 0, 0 },
	{ "constraint without uid", "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=x,pid=7",
	  OK, KMSG_OOM_CONSTRAINT, C("x"), 7, -1, 0, 0, "", "(null)", "CONSTRAINT_NONE", 0, 0, 0 },
	{ "constraint no pid", "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=x", BAD, KMSG_OOM_CONSTRAINT, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "constraint bad uid", "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=x,pid=1,uid=z", BAD, KMSG_OOM_CONSTRAINT, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "constraint garbage", "oom-kill:whatever", BAD, KMSG_OOM_CONSTRAINT, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	/* --- invoked oom-killer --- */
	{ "6.x invoked", "stress-ng invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=1000",
	  OK, KMSG_OOM_INVOKED, C("stress-ng"), -1, 0, 1, 0xcc0, "GFP_KERNEL", "", "", 0, 1, 1000 },
	{ "4.9-4.18 invoked with nodemask", "bash invoked oom-killer: gfp_mask=0x14200ca(GFP_HIGHUSER_MOVABLE), nodemask=(null),  order=0, oom_score_adj=0",
	  OK, KMSG_OOM_INVOKED, C("bash"), -1, 0, 1, 0x14200ca, "GFP_HIGHUSER_MOVABLE", "(null)", "", 0, 1, 0 },
	{ "3.x invoked", "java invoked oom-killer: gfp_mask=0x201da, order=0, oom_score_adj=0",
	  OK, KMSG_OOM_INVOKED, C("java"), -1, 0, 1, 0x201da, "", "", "", 0, 1, 0 },
	{ "2.6.36 oom_adj", "foo invoked oom-killer: gfp_mask=0x201da, order=0, oom_adj=0, oom_score_adj=-17",
	  OK, KMSG_OOM_INVOKED, C("foo"), -1, 0, 1, 0x201da, "", "", "", 0, 1, -17 },
	{ "sysrq order=-1", "kworker/0:1 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=-1, oom_score_adj=0",
	  OK, KMSG_OOM_INVOKED, C("kworker/0:1"), -1, -1, 1, 0xcc0, "GFP_KERNEL", "", "", 0, 1, 0 },
	{ "invoked comm with space", "my prog invoked oom-killer: gfp_mask=0x0(), order=3, oom_score_adj=-1000",
	  OK, KMSG_OOM_INVOKED, C("my prog"), -1, 3, 1, 0, "", "", "", 0, 1, -1000 },
	{ "invoked bad order", "x invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=zz, oom_score_adj=0", BAD, KMSG_OOM_INVOKED, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "invoked no score adj", "x invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0", BAD, KMSG_OOM_INVOKED, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "invoked three spaces", "x invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL),   order=0, oom_score_adj=0", BAD, KMSG_OOM_INVOKED, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	/* --- not ours --- */
	{ "empty", "", OTHER, KMSG_NONE, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "plain line", "NET: Registered PF_INET6 protocol family", OTHER, KMSG_NONE, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "marker without colon", "page allocation failure is bad", OTHER, KMSG_NONE, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
	{ "vmalloc failure", "fpu: vmalloc error: size 4096, vm_struct allocation failed, mode:0xcc0(GFP_KERNEL), nodemask=(null)", OTHER, KMSG_NONE, NULL, 0, -1, -1, 0, 0, "", "", "", 0, 0, 0 },
};

static void test_lines(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct line_case *c = &cases[i];
		struct kmsg_event ev;
		int rc = kmsg_parse_line(c->line, strlen(c->line), &ev);
		int ok = rc == c->rc && ev.kind == c->kind;

		if (ok && rc == OK) {
			ok = (!c->comm || (ev.comm_len == c->comm_len && memcmp(ev.comm, c->comm, c->comm_len) == 0 &&
					   ev.comm[ev.comm_len] == '\0')) &&
			     ev.pid == c->pid && ev.order == c->order && ev.has_gfp == c->has_gfp &&
			     ev.gfp_mask == c->gfp && strcmp(ev.gfp_flags, c->flags) == 0 &&
			     strcmp(ev.nodemask, c->nodemask) == 0 && strcmp(ev.constraint, c->constraint) == 0 &&
			     ev.count == c->count && ev.has_oom_score_adj == c->has_adj && ev.oom_score_adj == c->adj;
		}
		T_CHECK(ok, "line: %s -> %s/%s", c->name, rc == OK ? "event" : rc == BAD ? "malformed" : "other",
			kmsg_kind_name(ev.kind));
		if (!ok)
			printf("      rc=%d kind=%s comm=\"%s\"(%zu) pid=%" PRId64 " order=%d gfp=%#" PRIx64 " flags=\"%s\" nm=\"%s\" cons=\"%s\" count=%" PRIu64 " adj=%" PRId64 "\n",
			       rc, kmsg_kind_name(ev.kind), ev.comm, ev.comm_len, ev.pid, ev.order, ev.gfp_mask,
			       ev.gfp_flags, ev.nodemask, ev.constraint, ev.count, ev.oom_score_adj);
	}
}

/* Over-cap fields: built at run time, every one must be malformed, never silently cut. */
static void test_overlong(void)
{
	static char line[12000];
	struct kmsg_event ev;
	char flags[300];

	memset(flags, 'A', sizeof flags - 1);
	flags[sizeof flags - 1] = '\0';
	snprintf(line, sizeof line, "x: page allocation failure: order:1, mode:0x1(%s), nodemask=(null)", flags);
	T_EQ_I(kmsg_parse_line(line, strlen(line), &ev), BAD, "gfp flags of 299 bytes is malformed");

	snprintf(line, sizeof line, "oom-kill:constraint=%s,nodemask=(null),task=x,pid=1,uid=0", flags);
	T_EQ_I(kmsg_parse_line(line, strlen(line), &ev), BAD, "constraint of 299 bytes is malformed");

	memset(line, 'a', 8000);
	strcpy(line + 8000, ": page allocation failure: order:1, mode:0x1");
	T_EQ_I(kmsg_parse_line(line, strlen(line), &ev), BAD, "8000-byte comm is malformed");

	memset(line, 'a', 8000);
	line[8000] = '\0';
	T_EQ_I(kmsg_parse_line(line, strlen(line), &ev), OTHER, "8000-byte plain line is other");

	/* 64 raw bytes written as 256 escapes is the most COMM can be. */
	line[0] = '\0';
	for (int i = 0; i < 64; i++)
		strcat(line, "\\x80");
	strcat(line, ": page allocation failure: order:1, mode:0x1");
	T_CHECK(kmsg_parse_line(line, strlen(line), &ev) == OK && ev.comm_len == 64 &&
		(unsigned char)ev.comm[63] == 0x80, "64 escaped bytes of comm decode");
	T_CHECK(kmsg_parse_line(NULL, 0, &ev) == OTHER, "NULL line is other");
}

/* The kernel's escaping rule (printk.c msg_print_ext_body), written independently of kmsg.c. */
static size_t kernel_escape(const unsigned char *in, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (in[i] < ' ' || in[i] >= 127 || in[i] == '\\')
			o += (size_t)sprintf(out + o, "\\x%02x", in[i]);
		else
			out[o++] = (char)in[i];
	}
	out[o] = '\0';
	return o;
}

static void test_random_comm(void)
{
	unsigned seed = getenv("TEST_SEED") ? (unsigned)strtoul(getenv("TEST_SEED"), NULL, 10) : (unsigned)time(NULL);
	int bad = 0;

	printf("# test_random_comm seed=%u (replay with TEST_SEED=%u)\n", seed, seed);
	srand(seed);
	for (int iter = 0; iter < 5000; iter++) {
		unsigned char comm[15];
		char esc[64], line[256];
		size_t n = (size_t)(rand() % 16);
		struct kmsg_event ev;
		int kind = rand() % 3;

		/* Any byte but NUL: a task name is a C string. */
		for (size_t i = 0; i < n; i++)
			comm[i] = (unsigned char)(1 + rand() % 255);
		kernel_escape(comm, n, esc);
		if (kind == 0)
			snprintf(line, sizeof line, "%s: page allocation failure: order:%d, mode:0x820(GFP_ATOMIC), nodemask=(null),cpuset=/,mems_allowed=0", esc, rand() % 11);
		else if (kind == 1)
			snprintf(line, sizeof line, "Out of memory: Killed process %d (%s) total-vm:1kB, anon-rss:0kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:0", 1 + rand() % 100000, esc);
		else
			snprintf(line, sizeof line, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/,task=%s,pid=%d,uid=0", esc, 1 + rand() % 100000);
		if (kmsg_parse_line(line, strlen(line), &ev) != OK || ev.comm_len != n || memcmp(ev.comm, comm, n) != 0) {
			if (bad++ < 5)
				printf("      mismatch for line: %s\n", line);
		}
	}
	T_EQ_I(bad, 0, "5000 random COMMs (all byte values, kernel-escaped) round-trip through 3 line kinds");
}

static void test_unescape(void)
{
	static const struct { const char *in; int ok; const char *want; size_t wlen; } u[] = {
		{ "plain", 1, "plain", 5 }, { "\\x09tab", 1, "\ttab", 4 }, { "a\\x5cb", 1, "a\\b", 3 },
		{ "\\xFF\\x00", 1, "\xff\0", 2 }, { "", 1, "", 0 },
		{ "\\x", 0, "", 0 }, { "\\x4", 0, "", 0 }, { "\\xg0", 0, "", 0 }, { "end\\", 0, "", 0 }, { "\\n", 0, "", 0 },
	};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
		char out[32];
		ssize_t n = kmsg_unescape(u[i].in, strlen(u[i].in), out, sizeof out);
		T_CHECK(u[i].ok ? (n == (ssize_t)u[i].wlen && memcmp(out, u[i].want, u[i].wlen) == 0) : n < 0,
			"unescape \"%s\" %s", u[i].in, u[i].ok ? "decodes" : "rejected");
	}
	char small[3];
	T_CHECK(kmsg_unescape("abcd", 4, small, sizeof small) < 0, "unescape: output cap is an error, not a cut");
	T_CHECK(kmsg_unescape("abc", 3, small, sizeof small) == 3, "unescape: exactly cap bytes fit");
}

struct rec_case {
	const char *name, *in;
	int ok, facility, level;
	uint64_t seq, ts;
	char flags;
	const char *msg;
	int ndict;
};

static void test_records(void)
{
	static const struct rec_case r[] = {
		{ "plain", "6,339,5140900,-;NET: Registered protocol family 10\n", 1, 0, 6, 339, 5140900, '-', "NET: Registered protocol family 10", 0 },
		{ "dictionary", "6,195,244000,-;pci_root PNP0A08:00: host bridge\n SUBSYSTEM=acpi\n DEVICE=+acpi:PNP0A08:00\n", 1, 0, 6, 195, 244000, '-', "pci_root PNP0A08:00: host bridge", 2 },
		{ "caller field", "4,1234,5678,-,caller=T42;hello\n", 1, 0, 4, 1234, 5678, '-', "hello", 0 },
		{ "cont flag c", "4,7,8,c;first part\n", 1, 0, 4, 7, 8, 'c', "first part", 0 },
		{ "cont flag +", "4,8,9,+;second\n", 1, 0, 4, 8, 9, '+', "second", 0 },
		{ "user facility", "12,9,10,-;fpusoak-test: hi\n", 1, 1, 4, 9, 10, '-', "fpusoak-test: hi", 0 },
		{ "max pri", "2047,1,1,-;x\n", 1, 255, 7, 1, 1, '-', "x", 0 },
		{ "empty message", "6,5,0,-;\n", 1, 0, 6, 5, 0, '-', "", 0 },
		{ "escaped tab", "6,90,244447,-;rcu: \\x09RCU restricting\n", 1, 0, 6, 90, 244447, '-', "rcu: \\x09RCU restricting", 0 },
		{ "u64 max seq", "6,18446744073709551615,0,-;x\n", 1, 0, 6, UINT64_MAX, 0, '-', "x", 0 },
		{ "no newline", "6,1,2,-;x", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "no semicolon", "6,1,2,-x\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "semicolon after newline", "6,1,2,-\n;x\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "pri junk", "x,1,2,-;m\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "pri too big", "2048,1,2,-;m\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "seq leading zero", "6,01,2,-;m\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "seq overflow", "6,18446744073709551616,2,-;m\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "missing fields", "6,1;m\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "two-char flags", "6,1,2,-x;m\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "no flags", "6,1,2,;m\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "raw tab in message", "6,1,2,-;a\tb\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "raw high byte in message", "6,1,2,-;a\xc3\xa9\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "dict without space", "6,1,2,-;m\nKEY=v\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "dict without =", "6,1,2,-;m\n KEYv\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "dict empty key", "6,1,2,-;m\n =v\n", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "dict no final newline", "6,1,2,-;m\n K=v", 0, 0, 0, 0, 0, 0, NULL, 0 },
		{ "empty", "", 0, 0, 0, 0, 0, 0, NULL, 0 },
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
		struct kmsg_record rec;
		int rc = kmsg_parse_record(r[i].in, strlen(r[i].in), &rec);
		int ok = (rc == 0) == r[i].ok;

		if (ok && r[i].ok) {
			const char *k, *v;
			size_t pos = 0, kl, vl;
			int nd = 0;

			while (kmsg_dict_next(&rec, &pos, &k, &kl, &v, &vl) > 0)
				nd++;
			ok = rec.facility == r[i].facility && rec.level == r[i].level && rec.seq == r[i].seq &&
			     rec.ts_usec == r[i].ts && rec.flags == r[i].flags && rec.msg_len == strlen(r[i].msg) &&
			     memcmp(rec.msg, r[i].msg, rec.msg_len) == 0 && nd == r[i].ndict;
		}
		T_CHECK(ok, "record: %s %s", r[i].name, r[i].ok ? "parses" : "rejected");
	}

	struct kmsg_record rec;
	const char *k, *v;
	size_t pos = 0, kl, vl;
	const char *d = "6,195,244000,-;m\n SUBSYSTEM=acpi\n DEVICE=+acpi:PNP0A08:00\n";
	int ok = kmsg_parse_record(d, strlen(d), &rec) == 0 &&
		 kmsg_dict_next(&rec, &pos, &k, &kl, &v, &vl) == 1 && kl == 9 && memcmp(k, "SUBSYSTEM", 9) == 0 &&
		 vl == 4 && memcmp(v, "acpi", 4) == 0 &&
		 kmsg_dict_next(&rec, &pos, &k, &kl, &v, &vl) == 1 && kl == 6 && memcmp(k, "DEVICE", 6) == 0 &&
		 vl == 16 && memcmp(v, "+acpi:PNP0A08:00", 16) == 0 &&
		 kmsg_dict_next(&rec, &pos, &k, &kl, &v, &vl) == 0;
	T_CHECK(ok, "dictionary iterator yields SUBSYSTEM=acpi then DEVICE=+acpi:PNP0A08:00 then ends");

	static char big[KMSG_RECORD_MAX + 2];
	memcpy(big, "6,1,2,-;", 8);
	memset(big + 8, 'a', sizeof big - 9);
	big[sizeof big - 1] = '\n';
	T_CHECK(kmsg_parse_record(big, sizeof big, &rec) < 0, "record over KMSG_RECORD_MAX rejected");
	T_CHECK(kmsg_parse_record(big + sizeof big - KMSG_RECORD_MAX, KMSG_RECORD_MAX, &rec) < 0,
		"record without a header rejected");
}

/*
 * Real records from this machine's /dev/kmsg (fixture): each starts at a line
 * not beginning with ' '; dictionary lines follow.  Every one must parse, and
 * sequence numbers in a dump read from the start are consecutive.
 */
static void test_fixture(void)
{
	static char buf[1 << 17];
	long n = t_fixture("kmsg-6.18-fc-x86_64.txt", buf, sizeof buf);
	size_t nrec = 0, bad = 0, gaps = 0, dicts = 0, escapes = 0;
	uint64_t prev = 0;
	const char *p = buf, *end;

	if (n < 0) {
		T_SKIP("fixture kmsg-6.18-fc-x86_64.txt missing");
		return;
	}
	end = buf + n;
	while (p < end) {
		const char *q = memchr(p, '\n', (size_t)(end - p));
		struct kmsg_record rec;

		if (!q)
			break;
		while (q + 1 < end && q[1] == ' ') {
			q = memchr(q + 1, '\n', (size_t)(end - q - 1));
			if (!q) {
				q = end - 1;
				break;
			}
		}
		if (kmsg_parse_record(p, (size_t)(q + 1 - p), &rec) < 0) {
			bad++;
		} else {
			if (nrec > 0 && rec.seq != prev + 1)
				gaps++;
			prev = rec.seq;
			dicts += rec.dict != NULL;
			escapes += memchr(rec.msg, '\\', rec.msg_len) != NULL;
		}
		nrec++;
		p = q + 1;
	}
	T_CHECK(nrec > 100 && bad == 0, "fixture: %zu real records parse (%zu failed)", nrec, bad);
	T_EQ_I(gaps, 0, "fixture: sequence numbers consecutive");
	T_CHECK(dicts > 0 && escapes > 0, "fixture exercises dictionaries (%zu) and \\x escapes (%zu)", dicts, escapes);
}

/* Issue 31: the task line after a failure gives its pid (the failure line names none). */
static void test_task_line(void)
{
	static const char l6[] = "CPU: 3 UID: 0 PID: 4242 Comm: fpusoakd-spawne Not tainted 6.18.44-fc #1";
	static const char l5[] = "CPU: 0 PID: 794 Comm: kworker/1: 0 Tainted: G        W          6.1.0-57-amd64 #1";
	static const char esc[] = "CPU: 1 PID: 77 Comm: fp\\x01\"<&>\\x5c80 Not tainted 6.18";
	struct kmsg_task t;

	T_CHECK(kmsg_parse_task(l6, sizeof l6 - 1, &t) == 0 && t.pid == 4242 &&
		kmsg_task_is(&t, "fpusoakd-spawne", 15) && !kmsg_task_is(&t, "fpusoakd-spawn", 14) &&
		!kmsg_task_is(&t, "fpusoakd", 8), "6.10+ (UID): pid 4242, the comm matched whole");
	T_CHECK(kmsg_parse_task(l5, sizeof l5 - 1, &t) == 0 && t.pid == 794 && kmsg_task_is(&t, "kworker/1: 0", 12),
		"before 6.10: pid 794, a comm with a blank in it");
	T_CHECK(kmsg_parse_task(esc, sizeof esc - 1, &t) == 0 && t.pid == 77 && kmsg_task_is(&t, "fp\x01\"<&>\\80", 10),
		"a comm with escaped bytes compares as the kernel escapes it");
	T_CHECK(kmsg_task_is(&t, "fpusoakd-spawner-too-long", 25) == 0, "another comm");
	T_EQ_I(kmsg_parse_task("CPU: x PID: 1 Comm: a b", 23, &t), -1, "no CPU number");
	T_EQ_I(kmsg_parse_task("CPU: 1 PID: 99999999999 Comm: a b", 33, &t), -1, "pid out of range");
	T_EQ_I(kmsg_parse_task("CPU: 1 PID: 5 Comm:", 19, &t), -1, "no comm");
}

int main(void)
{
	test_task_line();
	test_lines();
	test_overlong();
	test_random_comm();
	test_unescape();
	test_records();
	test_fixture();
	T_DONE();
}
