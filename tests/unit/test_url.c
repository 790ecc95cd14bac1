/* SPDX-License-Identifier: GPL-2.0-only */
/* test_url: request-target parsing, table-driven; expected values by hand. */
#include "test.h"
#include "web/url.h"

struct c {
	const char *in;
	int want;
	const char *path;
};

int main(void)
{
	static const struct c cases[] = {
		{ "/", URL_OK, "/" },
		{ "/runs/3", URL_OK, "/runs/3" },
		{ "/runs/%33", URL_OK, "/runs/3" },
		{ "/a%2Fb", URL_OK, "/a/b" },
		{ "/runs?", URL_OK, "/runs" },
		{ "/runs#frag", URL_OK, "/runs" },
		{ "http://host:8089/runs?from=1", URL_OK, "/runs" },
		{ "https://host", URL_BAD, NULL },
		{ "runs", URL_BAD, NULL },
		{ "", URL_BAD, NULL },
		{ "*", URL_BAD, NULL },
		{ "/%00", URL_BAD, NULL },
		{ "/%0a", URL_BAD, NULL },
		{ "/%zz", URL_BAD, NULL },
		{ "/%4", URL_BAD, NULL },
		{ "/a b", URL_BAD, NULL },
		{ "/\xff", URL_BAD, NULL },
		{ "/?from=1&from=2", URL_BAD, NULL },
		{ "/?from=-1", URL_BAD, NULL },
		{ "/?from=+1", URL_BAD, NULL },
		{ "/?from=01", URL_BAD, NULL },
		{ "/?from=1.5", URL_BAD, NULL },
		{ "/?from=9223372036854775808", URL_BAD, NULL },
		{ "/?from=253402300800000", URL_BAD, NULL },
		{ "/?max_points=0", URL_BAD, NULL },
		{ "/?max_points=10001", URL_BAD, NULL },
		{ "/?max_points=10000", URL_OK, "/" },
		{ "/?a=0", URL_BAD, NULL },
		{ "/?format=pdf", URL_BAD, NULL },
		{ "/?format=csv&format=json", URL_BAD, NULL },
		{ "/?name=Active(anon)", URL_OK, "/" },
		{ "/?name=a%20b", URL_BAD, NULL },
		{ "/?name=%3Cx%3E", URL_BAD, NULL },
		{ "/?name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", URL_BAD, NULL },
		{ "/?to=2024-02-30", URL_BAD, NULL },
		{ "/?to=2024-02-29", URL_OK, "/" },
		{ "/?to=2023-02-29", URL_BAD, NULL },
		{ "/?to=2024-06-01T24:00", URL_BAD, NULL },
		{ "/?to=2024-06-01T12:00:60", URL_BAD, NULL },
		{ "/?to=2024-06-01T12:00:00.5", URL_BAD, NULL },
		{ "/?to=2024-06-01T12:00Zjunk", URL_BAD, NULL },
		{ "/?to=1969-12-31", URL_BAD, NULL },
		{ "/?unknown=%zz", URL_BAD, NULL },
		{ "/?unknown=whatever&&&", URL_OK, "/" },
		{ "/?from=&to=", URL_OK, "/" },
	};
	struct url u;
	const char *why;
	char buf[URL_MAX + 64];
	int64_t ms;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int r = url_parse(cases[i].in, strlen(cases[i].in), &u, &why);
		T_EQ_I(r, cases[i].want, "url \"%s\" (%s)", cases[i].in, why);
		if (r == URL_OK && cases[i].path)
			T_EQ_S(u.path, cases[i].path, "path of \"%s\"", cases[i].in);
	}

	T_EQ_I(url_parse("/x?from=1717243200000&to=2024-06-01T12:05:30.250Z&max_points=50&format=csv&name=MemFree&a=1&b=22",
			 96, &u, &why), URL_OK, "every known parameter");
	T_EQ_I(u.p.from_ms, 1717243200000LL, "from epoch ms");
	T_EQ_I(u.p.to_ms, 1717243200000LL + 330250, "to ISO: 12:05:30.250 is 330250 ms after 12:00");
	T_CHECK(u.p.has_from && u.p.has_to && u.p.has_max_points && u.p.max_points == 50, "max_points 50");
	T_CHECK(u.p.format == URL_FMT_CSV && strcmp(u.p.name, "MemFree") == 0 && u.p.a.id == 1 && u.p.b.id == 22 && !u.p.a.db[0], "format, name, a, b");
	T_EQ_I(url_parse("/?from=&to=+", 12, &u, &why), URL_BAD, "'+' decodes to a space: not a time");
	T_EQ_I(url_parse("/?from=2024-06-01+12:00", 23, &u, &why), URL_OK, "'+' as the date/time separator (a form)");
	T_EQ_I(u.p.from_ms, 1717243200000LL, "which is 2024-06-01T12:00Z");

	/* hand-checked epochs: 1970-01-01 = 0, 2000-03-01 = 951868800 s, 2100-03-01 = 4107542400 s */
	T_CHECK(url_parse_time("1970-01-01", 10, &ms) == 0 && ms == 0, "1970-01-01 is 0");
	T_CHECK(url_parse_time("2000-03-01T00:00", 16, &ms) == 0 && ms == 951868800000LL, "2000-03-01 (leap century)");
	T_CHECK(url_parse_time("2100-03-01", 10, &ms) == 0 && ms == 4107542400000LL, "2100-03-01 (not leap)");
	T_CHECK(url_parse_time("2100-02-29", 10, &ms) == -1, "2100-02-29 does not exist");
	T_CHECK(url_parse_time("0", 1, &ms) == 0 && ms == 0, "0 ms");

	/* caps */
	memset(buf, 0, sizeof buf);
	strcpy(buf, "/?");
	for (int i = 0; i < 16; i++)
		strcat(buf, "k=v&");
	T_EQ_I(url_parse(buf, strlen(buf), &u, &why), URL_OK, "16 parameters are fine");
	strcat(buf, "k=v");
	T_EQ_I(url_parse(buf, strlen(buf), &u, &why), URL_BAD, "17 are too many");
	memset(buf, 'a', sizeof buf);
	memcpy(buf, "/?x=", 4);
	T_EQ_I(url_parse(buf, 4 + URL_VALUE_MAX, &u, &why), URL_OK, "a value of URL_VALUE_MAX bytes is fine");
	T_EQ_I(url_parse(buf, 4 + URL_VALUE_MAX + 1, &u, &why), URL_BAD, "one more is a 400");
	buf[1] = 'a';
	T_EQ_I(url_parse(buf, URL_PATH_MAX, &u, &why), URL_OK, "a path of URL_PATH_MAX bytes is fine");
	T_EQ_I(url_parse(buf, URL_PATH_MAX + 1, &u, &why), URL_TOO_LONG, "one more is a 414");
	T_EQ_I(url_parse(buf, URL_MAX + 1, &u, &why), URL_TOO_LONG, "a target over URL_MAX is a 414");
	T_DONE();
}
