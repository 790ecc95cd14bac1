/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * maps: /proc/PID/maps lines.  A hand-checked table (shapes the kernel prints:
 * anonymous, [heap], a path with spaces, "(deleted)", 5-digit device minors)
 * and junk that must be refused; then every line of our own /proc/self/maps
 * against awk's reading of the same file (start, end, inode, path).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collector/maps.h"
#include "common/procfile.h"
#include "tests/unit/test.h"

struct good {
	const char *line;
	uint64_t start, end, offset, inode;
	uint32_t maj, min;
	const char *perms, *path;   /* path NULL: none */
};

static const struct good goods[] = {
	{ "5581c2a3e000-5581c2a44000 r--p 00000000 fe:01 1312345                    /usr/bin/cat",
	  0x5581c2a3e000, 0x5581c2a44000, 0, 1312345, 0xfe, 0x01, "r--p", "/usr/bin/cat" },
	{ "7f3a1c000000-7f3a1c021000 rw-p 00000000 00:00 0 ",
	  0x7f3a1c000000, 0x7f3a1c021000, 0, 0, 0, 0, "rw-p", NULL },
	{ "7f3a1c000000-7f3a1c021000 rw-p 00000000 00:00 0",
	  0x7f3a1c000000, 0x7f3a1c021000, 0, 0, 0, 0, "rw-p", NULL },
	{ "5581c3b1f000-5581c3b40000 rw-p 00000000 00:00 0                          [heap]",
	  0x5581c3b1f000, 0x5581c3b40000, 0, 0, 0, 0, "rw-p", "[heap]" },
	{ "7f3a1d7c2000-7f3a1d7e8000 r-xp 00028000 103:05 2621467                  /opt/my lib/libx.so (deleted)",
	  0x7f3a1d7c2000, 0x7f3a1d7e8000, 0x28000, 2621467, 0x103, 0x05, "r-xp", "/opt/my lib/libx.so (deleted)" },
	{ "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
	  0xffffffffff600000, 0xffffffffff601000, 0, 0, 0, 0, "--xp", "[vsyscall]" },
	{ "00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon",
	  0x400000, 0x452000, 0, 173521, 8, 2, "r-xp", "/usr/bin/dbus-daemon" },
	{ "7f0000000000-7f0000001000 rw-s 1fff000 00:05 12345678 /dev/zero (deleted)",
	  0x7f0000000000, 0x7f0000001000, 0x1fff000, 12345678, 0, 5, "rw-s", "/dev/zero (deleted)" },
};

static const char *const bads[] = {
	"",
	"5581c2a3e000",
	"5581c2a3e000-5581c2a44000",
	"5581c2a44000-5581c2a3e000 r--p 00000000 fe:01 1 /x",   /* start >= end */
	"5581c2a3e000-5581c2a3e000 r--p 00000000 fe:01 1 /x",
	"5581c2a3e000-5581c2a44000 r--pp 00000000 fe:01 1 /x",  /* perms not 4 */
	"5581c2a3e000-5581c2a44000 r-- 00000000 fe:01 1 /x",
	"5581c2a3e000-5581c2a44000 r--p 0000000g fe:01 1 /x",
	"5581c2a3e000-5581c2a44000 r--p 00000000 fe01 1 /x",    /* no ':' in dev */
	"5581c2a3e000-5581c2a44000 r--p 00000000 fe:01 -1 /x",
	"5581c2a3e000-5581c2a44000 r--p 00000000 fe:01 +1 /x",
	"5581c2a3e000-5581c2a44000 r--p 00000000 fe:01 99999999999999999999 /x",
	"0x5581c2a3e000-5581c2a44000 r--p 00000000 fe:01 1 /x",
	"15581c2a3e0000000-15581c2a3e0000001 r--p 00000000 fe:01 1 /x", /* 17 hex digits */
	"5581c2a3e000-5581c2a44000  r--p 00000000 fe:01 1 /x",  /* double space: empty field */
	"5581c2a3e000-5581c2a44000 r--p 00000000 fe:01",
};

static void test_table(void)
{
	struct maps_entry e;

	for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
		const struct good *g = &goods[i];
		int ok = maps_parse_line(g->line, strlen(g->line), &e) == 0;
		T_CHECK(ok, "good line %zu parses", i);
		if (!ok)
			continue;
		T_CHECK(e.start == g->start && e.end == g->end && e.offset == g->offset && e.inode == g->inode &&
				e.dev_major == g->maj && e.dev_minor == g->min,
			"good line %zu: numbers", i);
		T_EQ_S(e.perms, g->perms, "good line %zu: perms", i);
		if (g->path) {
			char p[128];
			snprintf(p, sizeof p, "%.*s", (int)e.path_len, e.path ? e.path : "");
			T_EQ_S(p, g->path, "good line %zu: path", i);
		} else
			T_CHECK(e.path == NULL && e.path_len == 0, "good line %zu: no path", i);
	}
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++)
		T_CHECK(maps_parse_line(bads[i], strlen(bads[i]), &e) < 0, "bad line %zu refused: \"%s\"", i, bads[i]);
	{
		/* fuzz_maps found this one: a NUL (or any other byte) inside the permissions */
		static const char nul[] = "7f0000000000-7f0000001000 r\0xp 00000000 fd:01 1234  /lib/x.so";
		static const char odd[] = "7f0000000000-7f0000001000 rwxq 00000000 fd:01 1234  /lib/x.so";
		T_CHECK(maps_parse_line(nul, sizeof nul - 1, &e) < 0, "a NUL in the permissions is refused");
		T_CHECK(maps_parse_line(odd, sizeof odd - 1, &e) < 0, "permissions other than [r-][w-][x-][ps] are refused");
	}
}

static void test_same_file(void)
{
	struct maps_entry a = { .inode = 7, .dev_major = 8, .dev_minor = 1 }, b = a, z = { 0 };

	T_CHECK(maps_same_file(&a, &b), "same dev and inode: same file");
	b.dev_minor = 2;
	T_CHECK(!maps_same_file(&a, &b), "other device: other file");
	b = a;
	b.inode = 8;
	T_CHECK(!maps_same_file(&a, &b), "other inode: other file");
	T_CHECK(!maps_same_file(&z, &z), "anonymous mappings are never the same file");
}

/* Our own maps, read once into a file, parsed here and by awk (strtonum-free: hex compared as text). */
static void test_self(void)
{
	static char buf[1 << 18], want[1 << 18], got[1 << 18];
	char path[] = "/tmp/test_maps.XXXXXX";
	int fd = mkstemp(path);
	ssize_t n = procfile_read(NULL, "proc/self/maps", buf, sizeof buf);
	size_t lines = 0, pos = 0;

	if (fd < 0 || n <= 0 || write(fd, buf, (size_t)n) != n) {
		T_SKIP("cannot snapshot /proc/self/maps");
		if (fd >= 0)
			unlink(path);
		return;
	}
	close(fd);
	got[0] = 0;
	while (pos < (size_t)n) {
		const char *l = buf + pos, *nl = memchr(l, '\n', (size_t)n - pos);
		size_t len = nl ? (size_t)(nl - l) : (size_t)n - pos;
		struct maps_entry e;
		pos += len + 1;
		if (maps_parse_line(l, len, &e) < 0) {
			t_app(got, sizeof got, "UNPARSED %.*s\n", (int)len, l);
			continue;
		}
		lines++;
		t_app(got, sizeof got, "%" PRIx64 " %" PRIx64 " %" PRIu64 " %.*s\n", e.start, e.end, e.inode,
		      (int)e.path_len, e.path ? e.path : "");
	}
	/* awk: split the range on '-', strip leading zeros of the hex as %x prints none, path = rest after field 6. */
	if (t_awk_file("{ split($1, r, \"-\"); s = r[1]; e = r[2]; sub(/^0+/, \"\", s); sub(/^0+/, \"\", e);"
		       " if (s == \"\") s = \"0\"; p = \"\"; if (NF >= 6) { p = $0; for (i = 0; i < 5; i++) sub(/^[^ ]+ +/, \"\", p) }"
		       " print s, e, $5, p }",
		       path, want, sizeof want) < 0)
		T_SKIP("awk not available");
	else
		T_EQ_S(got, want, "all %zu lines of /proc/self/maps parse as awk reads them", lines);
	T_CHECK(lines > 5, "/proc/self/maps has lines (%zu)", lines);
	unlink(path);
}

int main(void)
{
	test_table();
	test_same_file();
	test_self();
	T_DONE();
}
