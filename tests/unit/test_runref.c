/* SPDX-License-Identifier: GPL-2.0-only */
/* test_runref: run references across databases ("ID", "NAME:ID"), table-driven. */
#include "common/runref.h"
#include "test.h"

static void test_parse(void)
{
	static const struct { const char *in; int ok; const char *db; int64_t id; } cases[] = {
		{ "1", 1, "", 1 }, { "42", 1, "", 42 }, { "a:3", 1, "a", 3 }, { "guest-1.x_y:7", 1, "guest-1.x_y", 7 },
		{ "9223372036854775807", 1, "", INT64_MAX },
		{ "0", 0, "", 0 }, { "-1", 0, "", 0 }, { "01", 0, "", 0 }, { "", 0, "", 0 }, { ":1", 0, "", 0 },
		{ "a:", 0, "", 0 }, { "a:0", 0, "", 0 }, { "a:b", 0, "", 0 }, { "a:1:2", 0, "", 0 }, { "a b:1", 0, "", 0 },
		{ "a/b:1", 0, "", 0 }, { "a%:1", 0, "", 0 }, { "\xc3\xa9:1", 0, "", 0 }, { "1 ", 0, "", 0 },
		{ "abcdefghijabcdefghijabcdefghijab:1", 1, "abcdefghijabcdefghijabcdefghijab", 1 },   /* 32 bytes */
		{ "abcdefghijabcdefghijabcdefghijabc:1", 0, "", 0 },                                   /* 33 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct runref r;
		int rc = runref_parse(cases[i].in, strlen(cases[i].in), &r);
		T_CHECK((rc == 0) == cases[i].ok && (!cases[i].ok || (r.id == cases[i].id && !strcmp(r.db, cases[i].db))),
			"runref_parse(\"%s\") %s", cases[i].in, cases[i].ok ? "accepted" : "rejected");
	}
	{
		struct runref r;
		T_CHECK(runref_parse("a:12", 3, &r) == 0 && r.id == 1, "only len bytes are read");
	}
}

static void test_names(void)
{
	static const struct { const char *paths[4]; int n; const char *want[4]; } cases[] = {
		{ { "a.db", "b.db" }, 2, { "a", "b" } },
		{ { "/x/guest1/fpusoakd.db", "/y/guest2/fpusoakd.db", "fpusoakd.db" }, 3,
		  { "fpusoakd", "fpusoakd-2", "fpusoakd-3" } },
		{ { "k 6.1.sqlite3", "k6.6.sqlite", "plain", "dir/" }, 4, { "k_6.1", "k6.6", "plain", "db" } },
		{ { "a-2.db", "a.db", "a.db" }, 3, { "a-2", "a", "a-3" } },
		{ { ".db", "\xc3\xa9t\xc3\xa9.db" }, 2, { ".db", "__t__" } },
		{ { "abcdefghijabcdefghijabcdefghijabcdefghij.db", "abcdefghijabcdefghijabcdefghijabcdefghij.db" }, 2,
		  { "abcdefghijabcdefghijabcdefghijab", "abcdefghijabcdefghijabcdefghij-2" } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		runref_name names[4];
		int ok = 1;
		runref_names(cases[i].paths, cases[i].n, names);
		for (int k = 0; k < cases[i].n; k++)
			ok &= strcmp(names[k], cases[i].want[k]) == 0;
		T_CHECK(ok, "names of case %zu: %s, %s%s%s", i, names[0], names[1], cases[i].n > 2 ? ", " : "",
			cases[i].n > 2 ? names[2] : "");
	}
}

static void test_find_format(void)
{
	const runref_name names[2] = { "a", "b" };
	struct runref r;
	char out[RUNREF_LEN];

	runref_parse("b:4", 3, &r);
	T_EQ_I(runref_find(&r, names, 2), 1, "b:4 is in the second database");
	runref_parse("4", 1, &r);
	T_EQ_I(runref_find(&r, names, 2), RUNREF_AMBIGUOUS, "a bare id with two databases is ambiguous");
	T_EQ_I(runref_find(&r, names, 1), 0, "a bare id with one database is that database's");
	runref_parse("c:4", 3, &r);
	T_EQ_I(runref_find(&r, names, 2), RUNREF_NO_DB, "an unknown name");
	T_EQ_I(runref_find(&r, names, 1), RUNREF_NO_DB, "an unknown name with one database too");
	T_EQ_S(runref_format("a", 1, 7, out, sizeof out), "7", "one database: the bare id");
	T_EQ_S(runref_format("a", 2, 7, out, sizeof out), "a:7", "two: NAME:ID");
	runref_parse(out, strlen(out), &r);
	T_CHECK(r.id == 7 && runref_find(&r, names, 2) == 0, "format and parse round-trip");
}

int main(void)
{
	test_parse();
	test_names();
	test_find_format();
	T_DONE();
}
