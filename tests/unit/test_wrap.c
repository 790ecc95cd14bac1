/* SPDX-License-Identifier: GPL-2.0-only */
/* test_wrap: folding at word boundaries keeps every word, never cuts one, and respects the width. */
#include "common/wrap.h"
#include "test.h"

static const char *wrap(const char *text, size_t width, const char *indent)
{
	static struct strbuf sb;

	sb_free(&sb);
	sb_init(&sb, 1 << 16);
	if (wrap_words(&sb, text, width, indent) < 0)
		return "(error)";
	return sb.buf;
}

/* Every line at most width bytes, unless it is one word; the words, joined, are the input's. */
static int sound(const char *in, const char *out, size_t width, size_t ilen)
{
	char a[4096] = "", b[4096] = "";
	const char *l = out;

	while (*l) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n > width && memchr(l + ilen, ' ', n - ilen))
			return 0;
		l += n + (nl ? 1 : 0);
	}
	size_t na = 0, nb = 0;
	for (const char *p = in; *p && na < sizeof a - 1; p++)
		if (*p != ' ' || (na && a[na - 1] != ' '))
			a[na++] = *p;
	for (const char *p = out; *p && nb < sizeof b - 1; p++)
		if ((*p != ' ' && *p != '\n') || (nb && b[nb - 1] != ' '))
			b[nb++] = *p == '\n' ? ' ' : *p;
	a[na] = b[nb] = 0;
	while (strlen(a) && a[strlen(a) - 1] == ' ')
		a[strlen(a) - 1] = 0;
	while (strlen(b) && b[strlen(b) - 1] == ' ')
		b[strlen(b) - 1] = 0;
	return strcmp(a, b) == 0;
}

int main(void)
{
	const char *line = "capacity probe: 256 vs 228 (-10.9%), HL shift -28 [-35, -21], Mann-Whitney p=0.002: significant";

	T_EQ_S(wrap("short line", 72, "  "), "short line\n", "a short line stays one line");
	T_EQ_S(wrap(line, 72, "  "),
	       "capacity probe: 256 vs 228 (-10.9%), HL shift -28 [-35, -21],\n"
	       "  Mann-Whitney p=0.002: significant\n", "a 95-column verdict folds at a space (76 > 72), p-value kept");
	T_EQ_S(wrap("aaaa bbbb cccc", 9, ""), "aaaa bbbb\ncccc\n", "exactly the width fits");
	T_EQ_S(wrap("aaaa bbbb cccc", 8, ""), "aaaa\nbbbb\ncccc\n", "one byte less does not");
	T_EQ_S(wrap("cgroup /sys/fs/cgroup/memory/process_api/fca87a78be82ac27375865f6475120a9/x exists", 30, "  "),
	       "cgroup\n  /sys/fs/cgroup/memory/process_api/fca87a78be82ac27375865f6475120a9/x\n  exists\n",
	       "a word wider than the line stands alone, whole");
	T_EQ_S(wrap("a  b   c", 72, ""), "a  b   c\n", "spaces within a line stay (aligned columns)");
	T_EQ_S(wrap("key         value   more", 17, "  "), "key         value\n  more\n", "spaces at a break go");
	T_EQ_S(wrap("", 72, ""), "\n", "empty text: an empty line");
	int bad = 0;
	unsigned seed = 12345;
	for (int it = 0; it < 2000; it++) {
		char in[600];
		size_t n = 0, width = 10 + it % 70;
		while (n < 500) {
			seed = seed * 1103515245 + 12345;
			size_t wl = 1 + (seed >> 16) % (it % 3 ? 12 : 90);
			for (size_t i = 0; i < wl && n < 500; i++)
				in[n++] = (char)('a' + (seed >> (i % 16)) % 26);
			in[n++] = ' ';
		}
		in[n] = 0;
		bad += !sound(in, wrap(in, width, "    "), width, 4);
	}
	T_EQ_I(bad, 0, "2000 random texts: no line over the width but single words, and no word lost or cut");
	T_DONE();
}
