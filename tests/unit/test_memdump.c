/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_memdump: the Mem-Info parser on real dumps (5.3 with nodes, 6.3 without;
 * tests/fixtures/README.md), with hand-read values; then the same dumps the way
 * /dev/kmsg delivers them when other CPUs print in between: every KERN_CONT
 * piece its own record, foreign lines between the pieces; cut at every line;
 * two dumps interleaved; a buddy line that does not add up.
 */
#define _GNU_SOURCE
#include "collector/memdump.h"
#include "tests/unit/test.h"

static char raw[1 << 16], msg[1 << 16];

/* The message lines of a fixture: dmesg's "[   12.345678] " stamps removed. */
static size_t load(const char *name)
{
	long n = t_fixture(name, raw, sizeof raw);
	size_t o = 0;

	if (n < 0)
		return 0;
	for (const char *p = raw; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > 1 && p[0] == '[') {
			const char *close = memchr(p, ']', len);
			if (close && close + 1 < p + len && close[1] == ' ') {
				len -= (size_t)(close + 2 - p);
				p = close + 2;
			}
		}
		memcpy(msg + o, p, len);
		o += len;
		msg[o++] = '\n';
		p += len;
		if (*p == '\n')
			p++;
	}
	msg[o] = '\0';
	return o;
}

/* A zone's numbers as one line, to compare parses. */
static void zone_text(const struct memdump_zone *z, char *out, size_t cap)
{
	char ty[8];

	out[0] = '\0';
	t_app(out, cap, "%d %s %x f%" PRIu64 " b%" PRIu64 " m%" PRIu64 " l%" PRIu64 " h%" PRIu64 " ha%" PRIu64
	      " cma%" PRIu64 " mg%" PRIu64 " p", z->node, z->name, z->have, z->free_kb, z->boost_kb, z->min_kb,
	      z->low_kb, z->high_kb, z->reserved_highatomic_kb, z->free_cma_kb, z->managed_kb);
	for (int i = 0; i < z->nprot; i++)
		t_app(out, cap, " %" PRId64, z->prot[i]);
	t_app(out, cap, " |");
	for (int o = 0; o < z->norders; o++)
		t_app(out, cap, " %" PRIu64 "%s", z->nr[o], memdump_types_str(z->types[o], ty, sizeof ty));
	t_app(out, cap, " =%" PRIu64 " pk%" PRIu64, z->total_kb, z->page_kb);
}

static void dump_text(const struct memdump *d, char *out, size_t cap)
{
	static char z[1024];

	out[0] = '\0';
	for (int i = 0; i < d->nzones; i++) {
		zone_text(&d->z[i], z, sizeof z);
		t_app(out, cap, "%s\n", z);
	}
}

static void real_53(void)
{
	static struct memdump d;
	const struct memdump_zone *z;
	size_t n = load("memdump-5.3-arch.txt");

	T_CHECK(n > 0, "5.3: fixture read");
	T_EQ_I(memdump_parse(msg, n, &d), 0, "5.3: the dump is complete");
	T_EQ_I(d.nzones, 3, "5.3: DMA, DMA32, Normal");
	T_CHECK(d.flags & MEMDUMP_ENDED, "5.3: ends at 'total pagecache pages'");
	z = memdump_find(&d, 0, "DMA32");
	T_CHECK(z != NULL, "5.3: Node 0 DMA32 found");
	if (!z)
		return;
	T_EQ_I(z->free_kb, 160740, "5.3: DMA32 free:160740kB");
	T_EQ_I(z->min_kb, 157952, "5.3: DMA32 min:157952kB");
	T_EQ_I(z->high_kb, 185728, "5.3: DMA32 high:185728kB");
	T_EQ_I(z->managed_kb, 3234336, "5.3: DMA32 managed:3234336kB");
	T_CHECK(!(z->have & MEMDUMP_HIGHATOMIC) && !(z->have & MEMDUMP_BOOST), "5.3: no boost, no reserved_highatomic printed");
	T_EQ_I(z->nprot, 5, "5.3: lowmem_reserve[] has 5 entries");
	T_EQ_I(z->prot[2], 663, "5.3: DMA32's reserve against Normal 663 pages");
	T_EQ_I(z->norders, 11, "5.3: 11 orders");
	T_EQ_I(z->nr[1], 8387, "5.3: 8387*8kB");
	T_EQ_I(z->types[3], MEMDUMP_MT_M | MEMDUMP_MT_E | MEMDUMP_MT_H, "5.3: 1229*32kB (MEH)");
	T_EQ_I(z->types[8], MEMDUMP_MT_H, "5.3: 1*1024kB (H)");
	T_EQ_I(z->nr[9] + z->nr[10], 0, "5.3: no order-9 or 10 block");
	T_EQ_I(z->total_kb, 160612, "5.3: = 160612kB");
	T_EQ_I(z->page_kb, 4, "5.3: 4 kB pages");
	z = memdump_find(&d, 0, "DMA");
	T_CHECK(z && z->types[10] == (MEMDUMP_MT_M | MEMDUMP_MT_E) && z->nr[10] == 3, "5.3: DMA 3*4096kB (ME)");
}

static void real_63(void)
{
	static struct memdump d;
	const struct memdump_zone *z;
	size_t n = load("memdump-6.3-gentoo-nonuma.txt");

	T_EQ_I(memdump_parse(msg, n, &d), 0, "6.3: the dump is complete");
	T_EQ_I(d.nzones, 3, "6.3: DMA, DMA32, Normal");
	z = memdump_find(&d, -1, "Normal");
	T_CHECK(z != NULL, "6.3: zones without 'Node N' (no CONFIG_NUMA) have node -1");
	if (!z)
		return;
	T_CHECK((z->have & MEMDUMP_BOOST) && (z->have & MEMDUMP_HIGHATOMIC), "6.3: boost and reserved_highatomic printed");
	T_EQ_I(z->reserved_highatomic_kb, 2048, "6.3: reserved_highatomic:2048KB (capital K)");
	T_EQ_I(z->nr[9], 1, "6.3: Normal 1*2048kB");
	T_EQ_I(z->types[9], MEMDUMP_MT_H, "6.3: ... (H)");
	T_EQ_I(z->nr[10], 0, "6.3: 0*4096kB");
	T_EQ_I(z->total_kb, 4609336, "6.3: = 4609336kB");
	T_EQ_I(z->prot[0] + z->prot[4], 0, "6.3: Normal's reserves are 0");
}

/* Feed msg[0..n) line by line, each line split the way KERN_CONT pieces split, foreign lines between. */
static void feed_split(struct memdump *d, const char *text, size_t n, int foreign)
{
	static char piece[4096];
	const char *p = text, *end = text + n;
	int k = 0;

	memdump_init(d);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *q = p, *le = p + len;

		if (getenv("MEMDUMP_DEBUG"))
			fprintf(stderr, "line: %.*s\n", (int)len, p);

		/* "Node N " alone, then the rest; every blank-separated token of a buddy line or a
		 * lowmem_reserve[] its own record (what an interleaving CPU makes of KERN_CONT). */
		int split = (memmem(p, len, "kB =", 4) && memchr(p, '*', len)) || strncmp(p, "lowmem_reserve", 14) == 0;
		if (len > 7 && strncmp(p, "Node ", 5) == 0 && (memmem(p, len, " free:", 6) || memchr(p, '*', len)) &&
		    memchr(p + 5, ' ', len - 5)) {
			const char *sp = memchr(p + 5, ' ', len - 5);
			memdump_feed(d, p, (size_t)(sp + 1 - p));
			q = sp + 1;
		}
		if (!split) {
			memdump_feed(d, q, (size_t)(le - q));
		} else {
			while (q < le) {
				const char *sp = memchr(q + 1, ' ', (size_t)(le - q - 1));
				const char *te = sp ? sp : le;
				/* "= 123kB" is one printk: keep it whole. */
				if (q[*q == ' '] == '=' && sp) {
					const char *sp2 = memchr(sp + 1, ' ', (size_t)(le - sp - 1));
					te = sp2 ? sp2 : le;
				}
				memcpy(piece, q, (size_t)(te - q));
				memdump_feed(d, piece, (size_t)(te - q));
				if (foreign && (k++ % 3) == 0) {
					static const char *const OTHER[] = { "CPU: 3 PID: 77 Comm: kworker/3:1 Not tainted",
									     "e1000e 0000:00:19.0 eth0: 10 Mbps", "12 abc" };
					memdump_feed(d, OTHER[k % 3], strlen(OTHER[k % 3]));
				}
				q = te;
			}
		}
		p += len + (nl ? 1 : 0);
	}
}

static void split_records(const char *fixture)
{
	static struct memdump whole, split;
	static char a[8192], b[8192];
	size_t n = load(fixture);

	memdump_parse(msg, n, &whole);
	dump_text(&whole, a, sizeof a);
	feed_split(&split, msg, n, 0);
	dump_text(&split, b, sizeof b);
	T_CHECK(memdump_complete(&split), "%s: complete when every KERN_CONT piece is its own record", fixture);
	T_EQ_S(b, a, "%s: ... and the same numbers", fixture);
	feed_split(&split, msg, n, 1);
	dump_text(&split, b, sizeof b);
	T_CHECK(memdump_complete(&split), "%s: complete with other CPUs' lines between the pieces", fixture);
	T_EQ_S(b, a, "%s: ... and the same numbers", fixture);
	T_CHECK(split.lines_other > 0, "%s: the foreign lines were skipped (%d)", fixture, split.lines_other);
}

/* Cut after every line: complete only once the last buddy line is in. */
static void truncated(void)
{
	static struct memdump d;
	size_t n = load("memdump-5.3-arch.txt");
	const char *last_buddy = strstr(msg, "Node 0 Normal: ");
	size_t need = (size_t)(strchr(last_buddy, '\n') + 1 - msg);
	int early = 0, cuts = 0;

	for (size_t cut = 0; cut + 1 < need; cut++)   /* need - 1: the whole line without its newline */
		if (msg[cut] == '\n' || cut % 97 == 0) {
			cuts++;
			early += memdump_parse(msg, cut, &d) == 0;
		}
	T_EQ_I(early, 0, "truncated: none of %d cuts before the last buddy line is complete", cuts);
	T_EQ_I(memdump_parse(msg, need, &d), 0, "truncated: complete right after it, without the end marker");
	T_EQ_I(memdump_parse(msg, n, &d), 0, "truncated: and with everything");
	/* Cut inside the last buddy line: its zone has no buddy numbers. */
	memdump_parse(msg, need - 20, &d);
	T_CHECK(!(memdump_find(&d, 0, "Normal")->have & MEMDUMP_BUDDY), "truncated: a buddy line cut short is not taken");
}

static void conflict_and_bad(void)
{
	static struct memdump d;
	static const char two[] =
		"Mem-Info:\n"
		"Node 0 DMA32 free:8000kB boost:0kB min:1024kB low:1280kB high:1536kB reserved_highatomic:0KB\n"
		"lowmem_reserve[]: 0 0 0 0 0\n"
		"Node 0 DMA32 free:216kB boost:0kB min:1024kB low:1280kB high:1536kB reserved_highatomic:0KB\n"
		"lowmem_reserve[]: 0 0 0 0 0\n"
		"Node 0 DMA32: 2*4kB (U) 1*8kB (M) = 16kB\n";
	static const char badsum[] =
		"Node 0 DMA32 free:16kB min:4kB low:5kB high:6kB\n"
		"lowmem_reserve[]: 0 0\n"
		"Node 0 DMA32: 2*4kB (U) 1*8kB (M) = 20kB\n";
	static const char badsize[] =
		"Node 0 DMA32 free:16kB min:4kB low:5kB high:6kB\n"
		"lowmem_reserve[]: 0 0\n"
		"Node 0 DMA32: 2*4kB (U) 1*16kB (M) = 24kB\n";
	static const char badletter[] =
		"Node 0 DMA32 free:16kB min:4kB low:5kB high:6kB\n"
		"lowmem_reserve[]: 0 0\n"
		"Node 0 DMA32: 2*4kB (UX) 1*8kB (M) = 16kB\n";
	static const char orphan_prot[] =
		"Node 0 DMA32: 2*4kB (U) 1*8kB (M) = 16kB\n"
		"lowmem_reserve[]: 0 0\n";
	static const char second_header[] =
		"Mem-Info:\n"
		"Node 0 DMA32 free:16kB min:4kB low:5kB high:6kB\n"
		"lowmem_reserve[]: 0 0\n"
		"Mem-Info:\n"
		"Node 0 DMA32: 2*4kB (U) 1*8kB (M) = 16kB\n";

	memdump_parse(two, sizeof two - 1, &d);
	T_CHECK(d.flags & MEMDUMP_CONFLICT, "conflict: one zone printed twice with other numbers");
	T_EQ_I(memdump_complete(&d), 0, "conflict: not complete");
	T_EQ_I(memdump_find(&d, 0, "DMA32")->free_kb, 8000, "conflict: the first numbers stay");
	T_EQ_I(memdump_parse(badsum, sizeof badsum - 1, &d), -1, "bad: a total that is not the sum");
	T_CHECK(d.flags & MEMDUMP_BAD, "bad: flagged");
	T_EQ_I(memdump_parse(badsize, sizeof badsize - 1, &d), -1, "bad: sizes that do not double (a lost piece)");
	T_EQ_I(memdump_parse(badletter, sizeof badletter - 1, &d), -1, "bad: a migrate type the kernel has no letter for");
	T_EQ_I(memdump_parse(orphan_prot, sizeof orphan_prot - 1, &d), -1, "bad: a lowmem_reserve[] with no zone line before it");
	T_CHECK(d.flags & MEMDUMP_BAD, "bad: ... flagged");
	memdump_parse(second_header, sizeof second_header - 1, &d);
	T_CHECK(!(memdump_find(&d, 0, "DMA32")->have & MEMDUMP_BUDDY), "a second Mem-Info: ends the first dump");
	T_EQ_I(memdump_feed(&d, "Node 0 DMA32 free:16kB min:4kB low:5kB high:6kB", 47), MEMDUMP_LINE_USED,
	       "feed: a zone line is used");
}

/* Lines that look almost like ours. */
static void near_misses(void)
{
	static struct memdump d;
	static const char *const OTHERS[] = {
		"Node 0 active_anon:2023164kB inactive_anon:549248kB",
		"Node 0 hugepages_total=0 hugepages_free=0 hugepages_surp=0 hugepages_size=2048kB",
		"Node 0 DMA per-cpu:",
		"DMA32 free:",
		"Node 0 DMA32 free:12kB min:1kB low:2kB",
		"CPU: 2 PID: 1022 Comm: gnome-shell Not tainted 5.3.0-rc7-1-ARCH #1",
		"Node 99999999999 DMA32 free:1kB min:1kB low:1kB high:1kB",
	};

	memdump_init(&d);
	for (size_t i = 0; i < sizeof OTHERS / sizeof OTHERS[0]; i++)
		memdump_feed(&d, OTHERS[i], strlen(OTHERS[i]));
	T_EQ_I(d.nzones, 0, "near misses: no zone made from lines that are not zone lines");
	T_CHECK(d.flags & MEMDUMP_BAD, "near misses: a zone line without high: is a bad zone line");
}

int main(void)
{
	real_53();
	real_63();
	split_records("memdump-5.3-arch.txt");
	split_records("memdump-6.3-gentoo-nonuma.txt");
	truncated();
	conflict_and_bad();
	near_misses();
	T_DONE();
}
