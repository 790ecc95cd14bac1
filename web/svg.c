/* SPDX-License-Identifier: GPL-2.0-only */
/* svg: inline SVG charts; see svg.h. */
#include "web/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "web/escape.h"
#include "common/fmt.h"

#define DEF_W 540             /* two charts side by side in a 1280-pixel window */
#define DEF_H 230
#define MARGIN_L 56
#define MARGIN_R 12
#define MARGIN_B 44
#define LEGEND_ROW 16
#define LEGEND_SWATCH 14      /* the colour square and the gap after it */
#define LEGEND_GAP 14         /* between two legend entries */
/*
 * Legends and tick labels are laid out here, without a browser to measure text: at 11 px, no
 * character of DejaVu Sans or Liberation Sans (Debian's sans-serif) advances more than 7.2 px
 * but "W" and "m" (8.5-9.8), and the layout allows CHAR_W per character, which a long run of
 * capitals could still exceed: the browser test measures real bounding boxes.
 */
#define CHAR_W 7.0
#define FONT "font-family=\"sans-serif\" font-size=\"11\""
#define SPARK_W 150
#define SPARK_H 34

/* Distinct, colour-blind-friendlier palette (Okabe-Ito + Tableau extras), one per series. */
static const char *const palette[SVG_MAX_SERIES] = {
	"#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#f0e442", "#000000",
	"#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#9467bd", "#aec7e8", "#ff9896", "#98df8a",
};

struct frame {
	double px0, px1, py0, py1;   /* plot area: x px0..px1, y py1 (bottom) .. py0 (top) */
	int64_t t0, t1;
	double y0, y1;
	int w, h;
};

static double fx(const struct frame *f, int64_t t)
{
	return f->px0 + (double)(t - f->t0) * (f->px1 - f->px0) / (double)(f->t1 - f->t0);
}

static double fy(const struct frame *f, double v)
{
	return f->py1 - (v - f->y0) * (f->py1 - f->py0) / (f->y1 - f->y0);
}

static int text(struct strbuf *sb, const char *s)
{
	return s ? escape_html(sb, s, strlen(s)) : 0;
}

/* Round the y domain out to "nice" ticks (1, 2, 5 x 10^k); *step out. */
static void nice_y(double *lo, double *hi, double *step)
{
	double raw, mag, norm, s;

	if (!(*hi > *lo)) {
		double pad = fabs(*hi) > 0 ? fabs(*hi) * 0.1 : 1;
		*lo -= *lo == 0 ? 0 : pad;
		*hi += pad;
	}
	raw = (*hi - *lo) / 5;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	s = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10;
	*step = s * mag;
	*lo = floor(*lo / *step) * *step;
	*hi = ceil(*hi / *step) * *step;
	if (*hi <= *lo)
		*hi = *lo + *step;
}

/* Characters of an x tick label at this step (see tick_label, elapsed_label), at most. */
static size_t tick_chars(int elapsed, int64_t step, int64_t span)
{
	if (elapsed)
		return step < 60000 ? 8 : 6;   /* "1h00m30s", "2d12h" */
	if (step < 60000)
		return 8;                      /* "12:00:30" */
	if (step >= 86400000)
		return 5;                      /* "06-01" */
	return span >= 86400000 ? 11 : 5;  /* "06-01 12:00", "12:00" */
}

/*
 * The x tick step: the smallest round step with at most 7 ticks whose labels, at CHAR_W per
 * character and 10 px apart, fit the plot's width (a day's "06-01 12:00" labels need more room
 * than an hour's "12:00").
 */
static int64_t x_step(int elapsed, int64_t span, double plot_w)
{
	static const int64_t steps[] = {
		1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000, 1800000,
		3600000, 7200000, 10800000, 21600000, 43200000, 86400000, 172800000, 604800000,
		INT64_C(2592000000),
	};
	size_t i;

	for (i = 0; i < sizeof steps / sizeof steps[0] - 1; i++) {
		int64_t n = span / steps[i];
		double room = (double)tick_chars(elapsed, steps[i], span) * CHAR_W + 10;
		if (n <= 7 && (double)n * room <= plot_w)
			break;
	}
	return steps[i];
}

/*
 * An elapsed-time tick, exact to the second so two ticks never read alike: "0", "45s", "1m30s",
 * "30m", "2h", "1h30m", "1h00m30s", "3d", "2d12h", "1d00h30m".
 */
static void elapsed_label(int64_t t, char *out, size_t outlen)
{
	int64_t s = t / 1000, d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;
	size_t n;

	if (s == 0) {
		snprintf(out, outlen, "0");
		return;
	}
	if (d)
		n = (size_t)snprintf(out, outlen, "%lldd", (long long)d);
	else if (s >= 3600)
		n = (size_t)snprintf(out, outlen, "%lldh", (long long)(s / 3600));
	else if (s >= 60)
		n = (size_t)snprintf(out, outlen, "%lldm", (long long)(s / 60));
	else
		n = (size_t)snprintf(out, outlen, "%llds", (long long)s);
	/* The smaller units that are not zero, each after the ones above it. */
	if (d && (h || m || sec) && n < outlen)
		n += (size_t)snprintf(out + n, outlen - n, "%02lldh", (long long)h);
	if (s >= 3600 && (m || sec) && n < outlen)
		n += (size_t)snprintf(out + n, outlen - n, "%02lldm", (long long)m);
	if (s >= 60 && sec && n < outlen)
		snprintf(out + n, outlen - n, "%02llds", (long long)sec);
}

static void tick_label(int64_t t, int64_t step, int64_t span, char *out, size_t outlen)
{
	time_t s = (time_t)(t / 1000);
	struct tm tm;

	if (!gmtime_r(&s, &tm)) {
		snprintf(out, outlen, "?");
		return;
	}
	if (step < 60000)
		strftime(out, outlen, "%H:%M:%S", &tm);
	else if (step >= 86400000)
		strftime(out, outlen, "%m-%d", &tm);
	else if (span >= 86400000)
		strftime(out, outlen, "%m-%d %H:%M", &tm);
	else
		strftime(out, outlen, "%H:%M", &tm);
}

/* Characters of UTF-8 text (what a browser advances by), not bytes. */
static size_t chars(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* A legend's entries placed left to right in rows that fit [x0, x1]; a name too long for a row is cut with "...". */
struct legend_layout {
	int n, rows;
	double x[SVG_MAX_SERIES];
	int row[SVG_MAX_SERIES];
	char name[SVG_MAX_SERIES][128];
};

static void legend_place(struct legend_layout *l, const char *const *names, int n, double x0, double x1)
{
	size_t fit = (size_t)((x1 - x0 - LEGEND_SWATCH) / CHAR_W);
	double x = x0;
	int row = 0;

	l->n = n;
	for (int i = 0; i < n; i++) {
		const char *nm = names[i] ? names[i] : "";
		size_t len = chars(nm), keep = 0, b = 0;
		double w;

		if (len > fit && fit > 3) {
			/* Cut on a character boundary, leaving room for the ellipsis. */
			while (nm[b] && keep < fit - 3) {
				b++;
				while (((unsigned char)nm[b] & 0xc0) == 0x80)
					b++;
				keep++;
			}
			snprintf(l->name[i], sizeof l->name[i], "%.*s...", (int)b, nm);
			len = keep + 3;
		} else {
			snprintf(l->name[i], sizeof l->name[i], "%s", nm);
		}
		w = LEGEND_SWATCH + (double)len * CHAR_W;
		if (x > x0 && x + w > x1) {
			row++;
			x = x0;
		}
		l->x[i] = x;
		l->row[i] = row;
		x += w + LEGEND_GAP;
	}
	l->rows = n ? row + 1 : 0;
}

/*
 * The y tick labels y0, y0 + step, ..., y1: fmt_si with the fewest significant digits (4 at least)
 * that tell every tick apart, so "1M" never labels two lines; count.
 */
static int y_labels(double y0, double y1, double step, char lab[][32], int max)
{
	int n = 0;

	for (int prec = 4; prec <= 12; prec++) {
		int dup = 0;
		n = 0;
		for (double v = y0; v <= y1 + step / 2 && n < max; v += step, n++) {
			fmt_si_prec(v, prec, lab[n], 32);
			for (int k = 0; k < n && !dup; k++)
				dup = strcmp(lab[k], lab[n]) == 0;
		}
		if (!dup)
			break;
	}
	return n;
}

#define MAX_TICKS 24

/* Opening <figure>, <svg>, the frame, axes, grid and tick labels; legend_rows rows above the plot. */
static int begin(struct strbuf *sb, const struct svg_chart *c, struct frame *f, int legend_rows, int empty, int yticks)
{
	double ystep;
	int64_t span, step;
	char a[FMT_TIME_LEN], b[FMT_TIME_LEN], lab[32], ylab[MAX_TICKS][32];
	double right = -1e9;      /* right edge of the last x label drawn */
	int ny;

	f->w = c->width > 0 ? c->width : DEF_W;
	f->h = c->height > 0 ? c->height : DEF_H;
	f->px0 = MARGIN_L;
	f->px1 = f->w - MARGIN_R;
	f->py0 = 10 + legend_rows * LEGEND_ROW + 6;
	f->py1 = f->h - MARGIN_B;
	if (f->t0 < 0 || f->t0 > INT64_MAX / 2)
		f->t0 = 0;
	if (f->t1 <= f->t0 || f->t1 > INT64_MAX / 2)
		f->t1 = f->t0 + 1000;
	nice_y(&f->y0, &f->y1, &ystep);

	sb_puts(sb, "<figure class=\"chart\">\n");
	sb_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		  "role=\"img\">\n<title>", f->w, f->h, f->w, f->h);
	text(sb, c->title);
	sb_puts(sb, "</title>\n");
	sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" "
		  "stroke=\"#999\"/>\n", f->px0, f->py0, f->px1 - f->px0, f->py1 - f->py0);
	if (empty) {
		sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" " FONT " fill=\"#666\">"
			  "no data in this window</text>\n", (f->px0 + f->px1) / 2, (f->py0 + f->py1) / 2);
	} else {
		/* y grid and labels */
		ny = yticks ? y_labels(f->y0, f->y1, ystep, ylab, MAX_TICKS) : 0;
		for (int i = 0; i < ny; i++) {
			double y = fy(f, f->y0 + i * ystep);
			sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
				  "<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" " FONT ">%s</text>\n",
				  f->px0, y, f->px1, y, f->px0 - 4, y + 4, ylab[i]);
		}
		/* x grid and labels on round UTC instants (round elapsed times on an elapsed axis) */
		span = f->t1 - f->t0;
		step = x_step(c->x_elapsed, span, f->px1 - f->px0);
		for (int64_t t = (f->t0 + step - 1) / step * step; t <= f->t1; t += step) {
			double x = fx(f, t), half, left;
			const char *anchor = "middle";
			if (c->x_elapsed)
				elapsed_label(t, lab, sizeof lab);
			else
				tick_label(t, step, span, lab, sizeof lab);
			/* A label at the plot's left edge starts there, clear of the y axis's "0"; one at the
			   right edge ends there, inside the chart. */
			half = (double)chars(lab) * CHAR_W / 2;
			left = x - half;
			if (x - half < f->px0) {
				anchor = "start";
				left = x;
			} else if (x + half > f->w - 2) {
				anchor = "end";
				left = x - 2 * half;
			}
			sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>", x, f->py0,
				  x, f->py1 + 4);
			/* A label that would touch the one before it (an edge label moved aside) keeps its grid line only. */
			if (left < right + 6)
				continue;
			right = left + 2 * half;
			sb_printf(sb, "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" " FONT ">%s</text>\n",
				  x, f->py1 + 18, anchor, lab);
		}
	}
	if (c->x_elapsed) {
		char d[32];
		sb_printf(sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" " FONT " fill=\"#444\">time since the "
			  "run's start, 0 to %s</text>\n", (f->px0 + f->px1) / 2, f->h - 8, fmt_duration(f->t1, d, sizeof d));
	} else {
		sb_printf(sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" " FONT " fill=\"#444\">time (UTC), %s to %s"
			  "</text>\n", (f->px0 + f->px1) / 2, f->h - 8, fmt_time_human(f->t0, a, sizeof a),
			  fmt_time_human(f->t1, b, sizeof b));
	}
	sb_printf(sb, "<text x=\"12\" y=\"%.1f\" text-anchor=\"middle\" " FONT " fill=\"#444\" "
		  "transform=\"rotate(-90 12 %.1f)\">", (f->py0 + f->py1) / 2, (f->py0 + f->py1) / 2);
	text(sb, c->y_label);
	return sb_puts(sb, "</text>\n");
}

static int legend(struct strbuf *sb, const struct legend_layout *l, const int *colours)
{
	for (int i = 0; i < l->n; i++) {
		double x = l->x[i], y = 10 + l->row[i] * LEGEND_ROW;
		sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			  "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\" " FONT ">", x, y,
			  palette[(colours ? colours[i] : i) % SVG_MAX_SERIES], x + LEGEND_SWATCH, y + 9);
		text(sb, l->name[i]);
		sb_puts(sb, "</text>\n");
	}
	return sb->err ? -1 : 0;
}

/* The plot's horizontal extent for a chart of c's width (the legend spans it). */
static void plot_x(const struct svg_chart *c, double *x0, double *x1)
{
	*x0 = MARGIN_L;
	*x1 = (c->width > 0 ? c->width : DEF_W) - MARGIN_R;
}

static int end(struct strbuf *sb, const struct svg_chart *c)
{
	sb_puts(sb, "</svg>\n<figcaption><strong>");
	text(sb, c->title);
	sb_puts(sb, ".</strong> ");
	text(sb, c->caption);
	return sb_puts(sb, "</figcaption>\n</figure>\n");
}

/* Set the time extent from the chart or the data; 0 if there is any point. */
static void time_extent(const struct svg_chart *c, struct frame *f, int64_t lo, int64_t hi)
{
	if (c->t0_ms || c->t1_ms) {
		f->t0 = c->t0_ms;
		f->t1 = c->t1_ms;
	} else {
		f->t0 = lo;
		f->t1 = hi;
	}
}

int svg_line_chart(struct strbuf *sb, const struct svg_chart *c, const struct svg_series *s, int ns)
{
	struct frame f = { 0 };
	struct legend_layout *l = malloc(sizeof *l);
	const char *names[SVG_MAX_SERIES];
	int colours[SVG_MAX_SERIES];
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	double vlo = INFINITY, vhi = -INFINITY, x0, x1;
	int any = 0, ret;

	if (ns < 0 || ns > SVG_MAX_SERIES || !l) {
		free(l);
		return -1;
	}
	for (int i = 0; i < ns; i++) {
		if (s[i].n > SVG_MAX_POINTS) {
			free(l);
			return -1;
		}
		names[i] = s[i].name;
		colours[i] = s[i].colour > 0 ? s[i].colour - 1 : i;
		for (size_t j = 0; j < s[i].n; j++) {
			if (s[i].t_ms[j] < lo)
				lo = s[i].t_ms[j];
			if (s[i].t_ms[j] > hi)
				hi = s[i].t_ms[j];
			if (isfinite(s[i].v[j])) {
				any = 1;
				vlo = fmin(vlo, s[i].v[j]);
				vhi = fmax(vhi, s[i].v[j]);
			}
		}
	}
	if (lo > hi)
		lo = hi = 0;   /* no point at all */
	time_extent(c, &f, lo, hi);
	if (!any) {
		vlo = 0;
		vhi = 1;
	}
	if (c->y_from_zero) {
		vlo = fmin(vlo, 0);
		vhi = fmax(vhi, 0);
	}
	if (c->y_max > 0)
		vhi = fmax(vhi, c->y_max);
	f.y0 = vlo;
	f.y1 = vhi;
	plot_x(c, &x0, &x1);
	legend_place(l, names, ns, x0, x1);
	if (begin(sb, c, &f, l->rows, !any, 1) < 0) {
		free(l);
		return -1;
	}
	for (int i = 0; i < ns && any; i++) {
		const char *col = palette[colours[i] % SVG_MAX_SERIES];
		int pen = 0;

		if (s[i].style != SVG_MARKERS) {
			sb_printf(sb, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s d=\"", col,
				  s[i].style == SVG_DASHED ? " stroke-dasharray=\"6 4\"" : "");
			for (size_t j = 0; j < s[i].n; j++) {
				if (!isfinite(s[i].v[j]) || s[i].t_ms[j] < f.t0 || s[i].t_ms[j] > f.t1) {
					pen = 0;
					continue;
				}
				sb_printf(sb, "%c%.1f,%.1f", pen ? 'L' : 'M', fx(&f, s[i].t_ms[j]), fy(&f, s[i].v[j]));
				pen = 1;
			}
			sb_puts(sb, "\"><title>");
			text(sb, s[i].name);
			sb_puts(sb, "</title></path>\n");
		}
		if (s[i].style == SVG_MARKERS || s[i].style == SVG_LINE_MARKERS) {
			sb_printf(sb, "<g fill=\"%s\"><title>", col);
			text(sb, s[i].name);
			sb_puts(sb, "</title>");
			for (size_t j = 0; j < s[i].n; j++)
				if (isfinite(s[i].v[j]) && s[i].t_ms[j] >= f.t0 && s[i].t_ms[j] <= f.t1)
					sb_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>", fx(&f, s[i].t_ms[j]),
						  fy(&f, s[i].v[j]));
			sb_puts(sb, "</g>\n");
		}
	}
	ret = legend(sb, l, colours);
	free(l);
	return ret < 0 ? -1 : end(sb, c);
}

int svg_stacked_area(struct strbuf *sb, const struct svg_chart *c, const int64_t *t_ms, size_t n,
		     const double *const *layers, const char *const *names, int nlayers)
{
	struct frame f = { 0 };
	struct legend_layout *l = malloc(sizeof *l);
	double top = 0, lo[SVG_MAX_POINTS], hi[SVG_MAX_POINTS], x0, x1;
	int any = n > 0 && nlayers > 0, ret;

	if (n > SVG_MAX_POINTS || nlayers < 0 || nlayers > SVG_MAX_SERIES || !l) {
		free(l);
		return -1;
	}
	for (size_t j = 0; j < n; j++) {
		double sum = 0;
		for (int i = 0; i < nlayers; i++)
			sum += isfinite(layers[i][j]) && layers[i][j] > 0 ? layers[i][j] : 0;
		top = fmax(top, sum);
	}
	time_extent(c, &f, n ? t_ms[0] : 0, n ? t_ms[n - 1] : 0);
	f.y0 = 0;
	f.y1 = top;
	plot_x(c, &x0, &x1);
	legend_place(l, names, nlayers, x0, x1);
	if (begin(sb, c, &f, l->rows, !any, 1) < 0) {
		free(l);
		return -1;
	}
	for (size_t j = 0; j < n; j++)
		hi[j] = 0;
	for (int i = 0; i < nlayers && any; i++) {
		for (size_t j = 0; j < n; j++) {
			double v = layers[i][j];
			lo[j] = hi[j];
			hi[j] = lo[j] + (isfinite(v) && v > 0 ? v : 0);
		}
		sb_printf(sb, "<path fill=\"%s\" fill-opacity=\"0.85\" stroke=\"none\" d=\"", palette[i]);
		for (size_t j = 0; j < n; j++)
			sb_printf(sb, "%c%.1f,%.1f", j ? 'L' : 'M', fx(&f, t_ms[j]), fy(&f, hi[j]));
		for (size_t j = n; j-- > 0;)
			sb_printf(sb, "L%.1f,%.1f", fx(&f, t_ms[j]), fy(&f, lo[j]));
		sb_puts(sb, "Z\"><title>");
		text(sb, names[i]);
		sb_puts(sb, "</title></path>\n");
	}
	ret = legend(sb, l, NULL);
	free(l);
	return ret < 0 ? -1 : end(sb, c);
}

/* Colour of x in [0,1] on a light-yellow to dark-purple ramp (like magma reversed), in 32 steps. */
static void ramp(double x, char out[8])
{
	static const unsigned char stops[5][3] = {
		{ 0xfc, 0xfd, 0xbf }, { 0xfe, 0x9f, 0x6d }, { 0xde, 0x49, 0x68 }, { 0x8c, 0x29, 0x81 }, { 0x3b, 0x0f, 0x70 },
	};
	double q, u;
	int i, rgb[3];

	if (!(x >= 0))
		x = 0;
	if (x > 1)
		x = 1;
	q = floor(x * 31 + 0.5) / 31 * 4;   /* quantized: equal neighbours merge into one rect */
	i = q >= 4 ? 3 : (int)q;
	u = q - i;
	for (int k = 0; k < 3; k++)
		rgb[k] = (int)(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * u + 0.5);
	snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static void cell_colour(double v, double vmin, double vmax, char out[8])
{
	if (!isfinite(v))
		snprintf(out, 8, "#d9d9d9");
	else
		ramp(vmax > vmin ? (v - vmin) / (vmax - vmin) : 0, out);
}

int svg_heatmap(struct strbuf *sb, const struct svg_chart *c, const int64_t *t_ms, size_t n,
		const double *cells, const char *const *row_names, int nrows, double vmin, double vmax)
{
	struct frame f = { 0 };
	int any = n > 0 && nrows > 0;
	double rowh;
	char lab[32];

	if (n > SVG_MAX_POINTS || nrows < 0 || nrows > SVG_MAX_SERIES)
		return -1;
	time_extent(c, &f, n ? t_ms[0] : 0, n ? t_ms[n - 1] : 0);
	if (!(c->t0_ms || c->t1_ms) && n > 1)   /* room for the last column */
		f.t1 += (t_ms[n - 1] - t_ms[0]) / (int64_t)(n - 1);
	f.y0 = 0;
	f.y1 = 1;
	/* One legend row holds the colour scale; the y axis is the row names, not numbers. */
	if (begin(sb, c, &f, 1, !any, 0) < 0)
		return -1;
	rowh = (f.py1 - f.py0) / (nrows ? nrows : 1);
	for (int r = 0; r < nrows && any; r++) {
		double y = f.py1 - (r + 1) * rowh;
		size_t j = 0;
		sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" " FONT ">", f.px0 - 4, y + rowh / 2 + 4);
		text(sb, row_names[r]);
		sb_puts(sb, "</text>\n");
		while (j < n) {
			char col[8], c2[8];
			size_t k = j + 1;
			double x0, x1;

			cell_colour(cells[j * (size_t)nrows + (size_t)r], vmin, vmax, col);
			while (k < n && (cell_colour(cells[k * (size_t)nrows + (size_t)r], vmin, vmax, c2), strcmp(col, c2) == 0))
				k++;
			x0 = fx(&f, t_ms[j]);
			x1 = k < n ? fx(&f, t_ms[k]) : f.px1;
			if (x0 < f.px0)
				x0 = f.px0;
			if (x1 > f.px1)
				x1 = f.px1;
			if (x1 > x0)
				sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
					  x0, y, x1 - x0 + 0.3, rowh, col);
			j = k;
		}
	}
	/* Colour scale: 8 swatches from vmin to vmax. */
	for (int i = 0; i < 8 && any; i++) {
		char col[8];
		ramp(i / 7.0, col);
		sb_printf(sb, "<rect x=\"%.1f\" y=\"10\" width=\"20\" height=\"10\" fill=\"%s\"/>\n", f.px0 + 40 + i * 20, col);
	}
	if (any) {
		sb_printf(sb, "<text x=\"%.1f\" y=\"19\" text-anchor=\"end\" " FONT ">%s</text>\n", f.px0 + 36,
			  fmt_si(vmin, lab, sizeof lab));
		sb_printf(sb, "<text x=\"%.1f\" y=\"19\" " FONT ">%s</text>\n", f.px0 + 40 + 8 * 20 + 4,
			  fmt_si(vmax, lab, sizeof lab));
	}
	return end(sb, c);
}

int svg_sparkline(struct strbuf *sb, const int64_t *t_ms, const double *v, size_t n, int markers, const char *title)
{
	double lo = INFINITY, hi = -INFINITY, x0 = 2, x1 = SPARK_W - 5, y0 = 4, y1 = SPARK_H - 4;
	int64_t t0 = 0, t1 = 0;
	size_t last = n;
	int pen = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
			if (last == n)
				t0 = t_ms[i];
			t1 = t_ms[i];
			last = i;
		}
	sb_printf(sb, "<svg class=\"spark\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		  "viewBox=\"0 0 %d %d\" role=\"img\"><title>", SPARK_W, SPARK_H, SPARK_W, SPARK_H);
	text(sb, title);
	sb_puts(sb, "</title>");
	if (last == n) {
		sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\" "
			  "stroke-dasharray=\"2 3\"/>", x0, y1, x1, y1);
		return sb_puts(sb, "</svg>");
	}
	if (!(hi > lo)) {   /* a flat series: a line through the middle */
		lo -= 1;
		hi += 1;
	}
	if (t1 <= t0)
		t1 = t0 + 1;
#define SX(t) (x0 + (double)((t) - t0) * (x1 - x0) / (double)(t1 - t0))
#define SY(y) (y1 - ((y) - lo) * (y1 - y0) / (hi - lo))
	if (!markers) {
		sb_puts(sb, "<path fill=\"none\" stroke=\"#0072b2\" stroke-width=\"1.5\" d=\"");
		for (size_t i = 0; i < n; i++) {
			if (!isfinite(v[i])) {
				pen = 0;
				continue;
			}
			sb_printf(sb, "%c%.1f,%.1f", pen ? 'L' : 'M', SX(t_ms[i]), SY(v[i]));
			pen = 1;
		}
		sb_puts(sb, "\"/>");
	} else {
		sb_puts(sb, "<g fill=\"#0072b2\">");
		for (size_t i = 0; i < n; i++)
			if (isfinite(v[i]))
				sb_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>", SX(t_ms[i]), SY(v[i]));
		sb_puts(sb, "</g>");
	}
	/* The newest value, where the eye looks first. */
	sb_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#d55e00\"/>", SX(t_ms[last]), SY(v[last]));
#undef SX
#undef SY
	return sb_puts(sb, "</svg>");
}
