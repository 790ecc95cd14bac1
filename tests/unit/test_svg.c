/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_svg: charts are well-formed XML (python3 minidom), escape their
 * texts, place points where hand geometry says, respect the caps.
 */
#include <math.h>

#include "test.h"
#include "web/svg.h"

static char g_dir[] = "/tmp/test_svg.XXXXXX";

/* Parse sb as XML with python3; 0 when well-formed. */
static int xml_ok(const struct strbuf *sb)
{
	char path[128], cmd[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/c.svg", g_dir);
	if (!(f = fopen(path, "wb")))
		return -1;
	fwrite(sb->buf, 1, sb->len, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parseString(sys.stdin.read())' < %s",
		 path);
	return system(cmd);
}

static int count(const struct strbuf *sb, const char *s)
{
	int n = 0;

	for (const char *p = sb->buf; p && (p = strstr(p, s)); p += strlen(s))
		n++;
	return n;
}

/* The texts of class cls ("xtick", "ytick", "legend") in an SVG, '\n'-separated, into out; count. */
static int texts(const char *svg, const char *cls, char *out, size_t outlen)
{
	char pat[64];
	const char *p = svg;
	size_t n = 0;
	int count = 0;

	snprintf(pat, sizeof pat, "<text class=\"%s\"", cls);
	out[0] = '\0';
	while ((p = strstr(p, pat))) {
		const char *b = strchr(p, '>'), *e = b ? strstr(b, "</text>") : NULL;
		if (!e)
			break;
		n += (size_t)snprintf(out + n, n < outlen ? outlen - n : 0, "%.*s\n", (int)(e - b - 1), b + 1);
		count++;
		p = e;
	}
	return count;
}

/* Whether the '\n'-separated list has a line twice. */
static int has_dup(const char *list)
{
	for (const char *a = list; *a; a = strchr(a, '\n') + 1) {
		size_t la = strcspn(a, "\n");
		for (const char *b = strchr(a, '\n') + 1; *b; b = strchr(b, '\n') + 1)
			if (strcspn(b, "\n") == la && strncmp(a, b, la) == 0)
				return 1;
	}
	return 0;
}

/* Axis labels never repeat; legend entries placed within the chart, never on top of each other. */
static void test_labels(struct strbuf *sb)
{
	char list[4096];
	int n;

	/* An elapsed axis of 3 minutes: ticks every 30 s read 0, 30s, 1m, 1m30s, ... (two "1m" were the bug). */
	{
		int64_t tt[2] = { 0, 180000 };
		double vv[2] = { 1, 2 };
		struct svg_series s = { "a", tt, vv, 2, SVG_LINE, 0 };
		struct svg_chart c = { .title = "t", .y_label = "u", .caption = "c", .x_elapsed = 1 };
		sb_reset(sb);
		svg_line_chart(sb, &c, &s, 1);
		n = texts(sb->buf, "xtick", list, sizeof list);
		T_CHECK(n >= 4 && !has_dup(list) && strstr(list, "1m30s\n"), "elapsed ticks unique, 1m30s among them (%d)", n);
	}
	/* Elapsed over 2 days and over 100 minutes: every label unique. */
	for (int k = 0; k < 2; k++) {
		int64_t tt[2] = { 0, k ? 6000000 : 2 * 86400000 + 3600000 };
		double vv[2] = { 1, 2 };
		struct svg_series s = { "a", tt, vv, 2, SVG_LINE, 0 };
		struct svg_chart c = { .title = "t", .y_label = "u", .caption = "c", .x_elapsed = 1 };
		sb_reset(sb);
		svg_line_chart(sb, &c, &s, 1);
		n = texts(sb->buf, "xtick", list, sizeof list);
		T_CHECK(n >= 3 && !has_dup(list), "elapsed ticks over %s unique (%d)", k ? "100 minutes" : "2 days", n);
	}
	/* A 12-second window starting off a round second: the first tick sits at the plot's edge; its label
	   starts there (clear of the y axis's "0") and no two labels' boxes meet (at 7 px a character). */
	{
		int64_t tt[2] = { 1717243200900, 1717243212900 };
		double vv[2] = { 0, 1 }, x0[16], x1[16];
		struct svg_series s = { "a", tt, vv, 2, SVG_LINE, 0 };
		struct svg_chart c = { .title = "t", .y_label = "u", .caption = "c", .t0_ms = 1717243200000,
				       .t1_ms = 1717243212000 };
		const char *p;
		int k = 0, apart = 1;

		sb_reset(sb);
		svg_line_chart(sb, &c, &s, 1);
		for (p = sb->buf; k < 16 && (p = strstr(p, "<text class=\"xtick\" x=\"")); k++, p++) {
			double x = atof(p + strlen("<text class=\"xtick\" x=\""));
			const char *a = strstr(p, "text-anchor=\"") + 13;
			double w = 7.0 * (double)(strcspn(strchr(p, '>') + 1, "<"));
			x0[k] = strncmp(a, "start", 5) == 0 ? x : strncmp(a, "end", 3) == 0 ? x - w : x - w / 2;
			x1[k] = x0[k] + w;
		}
		for (int i = 1; i < k; i++)
			apart &= x0[i] >= x1[i - 1];
		T_CHECK(k >= 3 && apart && x0[0] >= 56, "x tick labels of a 12 s window apart, the first inside the plot (%d)", k);
	}
	/* Values 1,000,000..1,000,500: "%.4g" would label every line "1M". */
	{
		int64_t tt[2] = { 0, 60000 };
		double vv[2] = { 1000000, 1000500 };
		struct svg_series s = { "a", tt, vv, 2, SVG_LINE, 0 };
		struct svg_chart c = { .title = "t", .y_label = "u", .caption = "c" };
		sb_reset(sb);
		svg_line_chart(sb, &c, &s, 1);
		n = texts(sb->buf, "ytick", list, sizeof list);
		T_CHECK(n >= 3 && !has_dup(list) && strstr(list, "1.0001M\n"), "y ticks unique, 1.0001M among them (%d)", n);
	}
	/* Long legend names: placed in rows by width, none past the chart, none cut mid-character. */
	{
		static const char *const nm[6] = { "A: run guest-kernel-6.1:12 trend", "B: run guest-kernel-6.6:3 trend",
						   "a name much longer than any chart is wide, far too long to fit on one row",
						   "\xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9", "x", "Mo\"v<b> order 3" };
		int64_t tt[2] = { 0, 60000 };
		double vv[2] = { 1, 2 };
		struct svg_series s[6];
		struct svg_chart c = { .title = "t", .y_label = "u", .caption = "c" };
		double xs[6], ys[6], ws[6];
		const char *p;
		int ok = 1, k = 0;

		for (int i = 0; i < 6; i++)
			s[i] = (struct svg_series){ nm[i], tt, vv, 2, SVG_LINE, 0 };
		sb_reset(sb);
		T_EQ_I(svg_line_chart(sb, &c, s, 6), 0, "a chart with six long legend entries");
		T_EQ_I(xml_ok(sb), 0, "well-formed");
		for (p = sb->buf; k < 6 && (p = strstr(p, "<text class=\"legend\" x=\"")); k++) {
			const char *b = strchr(p, '>'), *e = strstr(b, "</text>");
			size_t chars = 0;
			xs[k] = atof(p + strlen("<text class=\"legend\" x=\""));
			ys[k] = atof(strstr(p, " y=\"") + 4);
			for (const char *q = b + 1; q < e; q++)   /* characters as drawn: an entity is one */
				if (*q == '&')
					q = strchr(q, ';');
				else if (((unsigned char)*q & 0xc0) != 0x80)
					chars++;
			ws[k] = 7.0 * (double)chars;
			ok &= xs[k] + ws[k] <= 540;
			p = e;
		}
		for (int i = 0; i < k; i++)
			for (int j = i + 1; j < k; j++)
				if (ys[i] == ys[j] && xs[i] < xs[j] + ws[j] && xs[j] < xs[i] + ws[i])
					ok = 0;
		T_CHECK(k == 6 && ok, "legend entries within 540 px and apart at 7 px per character (%d)", k);
		T_CHECK(strstr(sb->buf, "far too long...") == NULL && strstr(sb->buf, "...</text>") != NULL,
			"the over-long name is cut with ...");
	}
	/* A sparkline: small, well-formed, the newest point marked; an empty one is a dashed line. */
	{
		int64_t tt[3] = { 0, 1000, 2000 };
		double vv[3] = { 1, NAN, 3 };
		sb_reset(sb);
		T_EQ_I(svg_sparkline(sb, tt, vv, 3, 0, "x <y>"), 0, "sparkline");
		T_EQ_I(xml_ok(sb), 0, "sparkline well-formed");
		T_CHECK(strstr(sb->buf, "<title>x &lt;y&gt;</title>") && strstr(sb->buf, "fill=\"#d55e00\""),
			"title escaped, newest point marked");
		sb_reset(sb);
		T_EQ_I(svg_sparkline(sb, tt, vv, 0, 1, "none"), 0, "empty sparkline");
		T_CHECK(strstr(sb->buf, "stroke-dasharray") != NULL, "drawn as a dashed baseline");
	}
	sb_reset(sb);
}

int main(void)
{
	const int64_t t0 = INT64_C(1717243200000);   /* 2024-06-01T12:00:00Z */
	int64_t t[2000];
	double v[2000], w[2000], cells[2000 * 3];
	struct strbuf sb;
	const char *names[3] = { "<b>evil</b> & \"co\"", "two", "three" };
	struct svg_chart c = { .title = "Title <x> & 'y'", .y_label = "MB", .caption = "Look at \"this\" <now>.",
			       .t0_ms = t0, .t1_ms = t0 + 3 * 3600000, .y_from_zero = 1 };
	struct svg_series s[2];

	if (!mkdtemp(g_dir)) {
		T_CHECK(0, "mkdtemp");
		T_DONE();
	}
	for (int i = 0; i < 2000; i++) {
		t[i] = t0 + (int64_t)i * 3600000 * 3 / 1999;
		v[i] = i == 1000 ? NAN : 50 + 40 * sin(i / 100.0);
		w[i] = i;
	}

	/* line chart */
	sb_init(&sb, 1 << 22);
	s[0] = (struct svg_series){ names[0], t, v, 2000, SVG_LINE, 0 };
	s[1] = (struct svg_series){ names[1], t, w, 2000, SVG_LINE, 0 };
	T_EQ_I(svg_line_chart(&sb, &c, s, 2), 0, "line chart of 2 x 2000 points");
	T_EQ_I(xml_ok(&sb), 0, "line chart is well-formed XML");
	T_CHECK(strstr(sb.buf, "<title>Title &lt;x&gt; &amp; &#39;y&#39;</title>") != NULL, "title escaped");
	T_CHECK(strstr(sb.buf, "&lt;b&gt;evil&lt;/b&gt; &amp; &quot;co&quot;") && !strstr(sb.buf, "<b>"), "series name escaped");
	T_CHECK(strstr(sb.buf, "<figcaption><strong>Title &lt;x&gt; &amp; &#39;y&#39;.</strong> Look at &quot;this&quot; "
			       "&lt;now&gt;.</figcaption>"), "caption escaped");
	/* 3 h window: a tick every 30 min, 12:00 ... 15:00 */
	T_CHECK(strstr(sb.buf, ">12:00</text>") && strstr(sb.buf, ">12:30</text>") && strstr(sb.buf, ">15:00</text>") &&
		!strstr(sb.buf, ">12:15</text>"), "time ticks every 30 minutes, UTC");
	T_CHECK(strstr(sb.buf, "time (UTC), 2024-06-01 12:00:00 to 2024-06-01 15:00:00"), "time axis title");
	T_EQ_I(count(&sb, "<path fill=\"none\""), 2, "one path per series");
	{
		const char *p = strstr(sb.buf, "<path fill=\"none\""), *e = strstr(p, "\">");
		int m = 0;
		for (const char *q = p; q < e; q++)
			m += *q == 'M';
		T_EQ_I(m, 2, "a NaN breaks the first line into two segments");
	}
	/* y ticks for 0..1999: nice step 500 -> 0, 500, ..., 2000 */
	T_CHECK(strstr(sb.buf, ">1.5k</text>") && strstr(sb.buf, ">2k</text>") && strstr(sb.buf, ">0</text>"),
		"y ticks 0 .. 2k with SI labels");
	sb_reset(&sb);

	/* geometry: values 0 and 10 at the window's ends; y 0..10 (step 2); one legend row.
	   plot x 56..528 (540-12), y from 10+16+6 = 32 (top) to 230-44 = 186 (bottom) */
	{
		int64_t tt[2] = { t0, t0 + 3600000 };
		double vv[2] = { 0, 10 };
		struct svg_chart g = { .title = "g", .y_label = "u", .caption = "c", .y_from_zero = 1 };
		s[0] = (struct svg_series){ "a", tt, vv, 2, SVG_LINE, 0 };
		T_EQ_I(svg_line_chart(&sb, &g, s, 1), 0, "two-point chart");
		T_CHECK(strstr(sb.buf, "d=\"M56.0,186.0L528.0,32.0\"") != NULL, "points at the plot corners (hand geometry)");
		T_CHECK(strstr(sb.buf, ">10</text>") && strstr(sb.buf, ">8</text>") && !strstr(sb.buf, ">12</text>"),
			"y ticks 0..10 in steps of 2");
		T_EQ_I(xml_ok(&sb), 0, "well-formed");
		sb_reset(&sb);
	}

	/* empty and over-cap */
	s[0] = (struct svg_series){ "none", t, v, 0, SVG_LINE, 0 };
	T_EQ_I(svg_line_chart(&sb, &c, s, 1), 0, "empty series");
	T_CHECK(strstr(sb.buf, "no data in this window") != NULL, "says no data");
	T_EQ_I(xml_ok(&sb), 0, "empty chart well-formed");
	sb_reset(&sb);
	{
		struct svg_chart e = { .title = "e" };
		T_EQ_I(svg_line_chart(&sb, &e, s, 0), 0, "no series at all, no window");
		T_EQ_I(xml_ok(&sb), 0, "still well-formed");
		sb_reset(&sb);
	}
	s[0] = (struct svg_series){ "big", t, v, SVG_MAX_POINTS + 1, SVG_LINE, 0 };
	T_EQ_I(svg_line_chart(&sb, &c, s, 1), -1, "more than SVG_MAX_POINTS points is refused");
	sb_reset(&sb);
	T_EQ_I(svg_line_chart(&sb, &c, s, SVG_MAX_SERIES + 1), -1, "more than SVG_MAX_SERIES series is refused");
	sb_reset(&sb);

	/* stacked area */
	{
		const double *layers[3] = { w, w, w };
		T_EQ_I(svg_stacked_area(&sb, &c, t, 2000, layers, names, 3), 0, "stacked area 3 x 2000");
		T_EQ_I(xml_ok(&sb), 0, "stacked area well-formed");
		T_EQ_I(count(&sb, "fill-opacity=\"0.85\""), 3, "one area per layer");
		/* total reaches 3 x 1999 = 5997 -> axis to 6k */
		T_CHECK(strstr(sb.buf, ">6k</text>") != NULL, "y axis covers the stacked total (6k)");
		sb_reset(&sb);
	}

	/* heatmap: row 0 all 0, row 1 all 1, row 2 NaN */
	for (int i = 0; i < 200; i++) {
		cells[i * 3] = 0;
		cells[i * 3 + 1] = 1;
		cells[i * 3 + 2] = NAN;
	}
	T_EQ_I(svg_heatmap(&sb, &c, t, 200, cells, names, 3, 0, 1), 0, "heatmap 200 x 3");
	T_EQ_I(xml_ok(&sb), 0, "heatmap well-formed");
	/* equal neighbours merge: one rect per row (+ 8 scale swatches) */
	T_EQ_I(count(&sb, "<rect x=") - 1 /* frame */ - 8, 3, "equal cells merge into one rect per row");
	T_CHECK(strstr(sb.buf, "fill=\"#fcfdbf\"/>") && strstr(sb.buf, "fill=\"#3b0f70\"/>") &&
		strstr(sb.buf, "fill=\"#d9d9d9\"/>"), "0, 1 and NaN colours: ramp ends and grey");
	T_CHECK(strstr(sb.buf, "&lt;b&gt;evil") != NULL, "row names escaped");
	sb_reset(&sb);

	/* a tiny cap: the chart fails instead of emitting half an SVG */
	sb_free(&sb);
	sb_init(&sb, 200);
	s[0] = (struct svg_series){ "a", t, w, 100, SVG_LINE, 0 };
	T_EQ_I(svg_line_chart(&sb, &c, s, 1), -1, "a chart bigger than the buffer's cap is an error");
	T_CHECK(sb.err, "with the buffer's error flag set");
	sb_free(&sb);
	/* styles: 5 markers, a dashed line; an elapsed-time axis from 0 */
	{
		int64_t et[5] = { 0, 900000, 1800000, 2700000, 3600000 };
		double ev[5] = { 1, 2, 3, 4, 5 };
		struct svg_chart e = { .title = "e", .y_label = "x", .caption = "c", .x_elapsed = 1, .t1_ms = 3 * 3600000,
				       .y_max = 100 };
		int circles = 0;
		sb_init(&sb, 1 << 20);
		s[0] = (struct svg_series){ "dots", et, ev, 5, SVG_MARKERS, 0 };
		s[1] = (struct svg_series){ "trend", et, ev, 2, SVG_DASHED, 1 };
		T_EQ_I(svg_line_chart(&sb, &e, s, 2), 0, "markers and dashed");
		for (const char *p = sb.buf; (p = strstr(p, "<circle")); p++)
			circles++;
		T_EQ_I(circles, 5, "one circle per marker point");
		T_CHECK(strstr(sb.buf, "stroke-dasharray") != NULL, "dashed series");
		T_CHECK(strstr(sb.buf, ">1h</text>") && strstr(sb.buf, ">2h</text>") && strstr(sb.buf, ">0</text>") &&
			strstr(sb.buf, "time since the run's start, 0 to 3h 00m"), "elapsed axis: 0, 1h, 2h ticks and label");
		T_CHECK(strstr(sb.buf, ">100</text>") != NULL, "y_max raises the axis to 100");
		T_CHECK(strstr(sb.buf, "fill=\"#0072b2\"><title>dots") && strstr(sb.buf, "stroke=\"#0072b2\" stroke-width=\"1.5\" stroke-dasharray"),
			"colour 1 = the first palette entry, shared by data and trend");
		T_EQ_I(xml_ok(&sb), 0, "styled chart is well-formed XML");
		test_labels(&sb);
		sb_free(&sb);
	}
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
		if (system(cmd) != 0)
			T_CHECK(0, "cleanup");
	}
	T_DONE();
}
