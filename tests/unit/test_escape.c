/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_escape: every output format's escaping, table-driven, expected
 * strings written by hand; plus a random-bytes pass checked by python3's
 * strict UTF-8 decoder and XML/JSON/CSV parsers (independent implementations).
 */
#include <time.h>

#include "test.h"
#include "web/escape.h"

typedef int (*esc_fn)(struct strbuf *, const char *, size_t);

struct c {
	const char *in;
	size_t len;   /* 0: strlen */
	const char *want;
};

#define FFFD "\xef\xbf\xbd"

static void table(const char *name, esc_fn fn, const struct c *cs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct strbuf sb;
		size_t len = cs[i].len ? cs[i].len : strlen(cs[i].in);
		sb_init(&sb, 1 << 16);
		int r = fn(&sb, cs[i].in, len);
		T_CHECK(r == 0, "%s case %zu returns 0", name, i);
		T_EQ_S(sb.buf ? sb.buf : "", cs[i].want, "%s case %zu", name, i);
		sb_free(&sb);
	}
}

static int run_py(const char *code, const char *path)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "python3 -c '%s' %s", code, path);
	return system(cmd);
}

int main(void)
{
	static const struct c html[] = {
		{ "plain text", 0, "plain text" },
		{ "<script>alert(1)</script>", 0, "&lt;script&gt;alert(1)&lt;/script&gt;" },
		{ "a&b \"c\" 'd'", 0, "a&amp;b &quot;c&quot; &#39;d&#39;" },
		{ "bad \xff\xfe bytes", 0, "bad " FFFD FFFD " bytes" },
		{ "nul\0x", 5, "nul" FFFD "x" },
		{ "ctl\x01\x1b[31m\x7f", 0, "ctl" FFFD FFFD "[31m" FFFD },
		{ "tab\tnl\ncr\r", 0, "tab\tnl\ncr\r" },
		{ "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "overlong \xc0\xaf \xe0\x80\xaf", 0, "overlong " FFFD FFFD " " FFFD FFFD FFFD },
		{ "surrogate \xed\xa0\x80", 0, "surrogate " FFFD FFFD FFFD },
		{ "too big \xf4\x90\x80\x80", 0, "too big " FFFD FFFD FFFD FFFD },
		{ "truncated \xe2\x82", 0, "truncated " FFFD FFFD },
		{ "nonchar \xef\xbf\xbe", 0, "nonchar " FFFD },
		{ "real " FFFD " kept", 0, "real " FFFD " kept" },
		{ "", 0, "" },
	};
	static const struct c json[] = {
		{ "plain", 0, "\"plain\"" },
		{ "q\"b\\s/", 0, "\"q\\\"b\\\\s/\"" },
		{ "\b\f\n\r\t\x01\x1f", 0, "\"\\b\\f\\n\\r\\t\\u0001\\u001f\"" },
		{ "ls\xe2\x80\xa8ps\xe2\x80\xa9", 0, "\"ls\\u2028ps\\u2029\"" },
		{ "\xff", 0, "\"" FFFD "\"" },
		{ "</script>", 0, "\"</script>\"" },
		{ "", 0, "\"\"" },
	};
	static const struct c csv[] = {
		{ "plain", 0, "plain" },
		{ "a,b", 0, "\"a,b\"" },
		{ "say \"hi\"", 0, "\"say \"\"hi\"\"\"" },
		{ "two\nlines", 0, "\"two\nlines\"" },
		{ "=1+2", 0, "\"'=1+2\"" },
		{ "+cmd", 0, "\"'+cmd\"" },
		{ "-2", 0, "\"'-2\"" },
		{ "@SUM(A1)", 0, "\"'@SUM(A1)\"" },
		{ "\tx", 0, "\"'\tx\"" },
		{ " lead", 0, "\" lead\"" },
		{ "bad\xff", 0, "bad" FFFD },
		{ "ctl\x01", 0, "ctl" FFFD },
		{ "", 0, "" },
	};
	static const struct c prom[] = {
		{ "Normal", 0, "Normal" },
		{ "a\\b", 0, "a\\\\b" },
		{ "q\"", 0, "q\\\"" },
		{ "n\nl", 0, "n\\nl" },
		{ "\xff", 0, FFFD },
	};
	static const struct c utf8[] = {
		{ "<ok> \"\n", 0, "<ok> \"\n" },
		{ "\xff\xfe", 0, FFFD FFFD },
		{ "a\0b", 3, "a" FFFD "b" },
	};
	struct strbuf sb;
	unsigned seed = getenv("TEST_SEED") ? (unsigned)strtoul(getenv("TEST_SEED"), NULL, 10) : (unsigned)time(NULL);
	char dir[] = "/tmp/test_escape.XXXXXX", path[128], cmd[256];
	FILE *f;

	table("html", escape_html, html, sizeof html / sizeof html[0]);
	table("json", escape_json, json, sizeof json / sizeof json[0]);
	table("csv", escape_csv, csv, sizeof csv / sizeof csv[0]);
	table("prom", escape_prom_label, prom, sizeof prom / sizeof prom[0]);
	table("utf8", escape_utf8, utf8, sizeof utf8 / sizeof utf8[0]);

	sb_init(&sb, 8);
	T_EQ_I(escape_html(&sb, "<<<", 3), -1, "escaping past the cap is an error");
	T_CHECK(sb.err, "and sets the flag");
	sb_free(&sb);
	sb_init(&sb, 64);
	T_EQ_I(escape_html(&sb, NULL, 0), 0, "NULL writes nothing");
	T_EQ_I(sb.len, 0, "nothing written");
	sb_free(&sb);

	/* Random bytes: each format's output must be accepted by an independent parser. */
	printf("seed %u (replay: TEST_SEED=%u)\n", seed, seed);
	srand(seed);
	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp");
		T_DONE();
	}
	{
		struct strbuf h, j, c;
		sb_init(&h, 1 << 22);
		sb_init(&j, 1 << 22);
		sb_init(&c, 1 << 22);
		sb_puts(&h, "<r>");
		sb_puts(&j, "[");
		for (int i = 0; i < 500; i++) {
			char s[64];
			size_t n = (size_t)(rand() % 64);
			for (size_t k = 0; k < n; k++)
				s[k] = (char)(rand() % 256);
			sb_puts(&h, "<s a=\"");
			escape_html(&h, s, n);
			sb_puts(&h, "\">");
			escape_html(&h, s, n);
			sb_puts(&h, "</s>");
			sb_puts(&j, i ? "," : "");
			escape_json(&j, s, n);
			escape_csv(&c, s, n);
			sb_puts(&c, ",x\r\n");
		}
		sb_puts(&h, "</r>");
		sb_puts(&j, "]");
		T_CHECK(!h.err && !j.err && !c.err, "random strings escaped");
		snprintf(path, sizeof path, "%s/h.xml", dir);
		f = fopen(path, "wb");
		fwrite(h.buf, 1, h.len, f);
		fclose(f);
		T_EQ_I(run_py("import sys,xml.dom.minidom; d=xml.dom.minidom.parseString(open(sys.argv[1],\"rb\").read()); "
			      "assert len(d.getElementsByTagName(\"s\"))==500", path), 0,
		       "500 random strings as XML text and attributes: well-formed (python minidom)");
		snprintf(path, sizeof path, "%s/j.json", dir);
		f = fopen(path, "wb");
		fwrite(j.buf, 1, j.len, f);
		fclose(f);
		T_EQ_I(run_py("import sys,json; assert len(json.loads(open(sys.argv[1],\"rb\").read().decode(\"utf-8\")))==500",
			      path), 0, "500 random strings as JSON: valid UTF-8 JSON (python json)");
		snprintf(path, sizeof path, "%s/c.csv", dir);
		f = fopen(path, "wb");
		fwrite(c.buf, 1, c.len, f);
		fclose(f);
		T_EQ_I(run_py("import sys,csv; r=list(csv.reader(open(sys.argv[1],newline=\"\",encoding=\"utf-8\"))); "
			      "assert len(r)==500 and all(len(x)==2 and x[1]==\"x\" for x in r)", path), 0,
		       "500 random strings as CSV fields: 500 rows of 2 fields (python csv)");
		sb_free(&h);
		sb_free(&j);
		sb_free(&c);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		T_CHECK(0, "remove %s", dir);
	T_DONE();
}
