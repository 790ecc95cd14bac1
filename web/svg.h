/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * svg: chart primitives that write a <figure> with inline SVG and a
 * caption into a strbuf: line chart, stacked area, heatmap.
 *
 * Server-rendered, no scripts and no external assets, so a report is
 * readable with JS off and survives being saved as one file.  The output is
 * well-formed XML (tests parse it).  The time axis is UTC with ticks on
 * round instants; the y axis has round ticks, a unit label and starts at 0
 * when asked.  Every text (titles, series names, captions) is escaped here.
 *
 * Size: callers downsample (store/query.h does it in SQL); a chart refuses
 * more than SVG_MAX_POINTS time points per series, so a page stays small
 * (a 2,000-point series is ~20 KB of path).  Each function returns 0, or -1
 * when the input is over a cap or sb hit its own cap.
 */
#ifndef FPUSOAK_SVG_H
#define FPUSOAK_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

#define SVG_MAX_POINTS 2000   /* time points per series */
#define SVG_MAX_SERIES 16     /* series, layers or heatmap rows per chart */

struct svg_chart {
	const char *title;        /* bold start of the caption, and the SVG <title> */
	const char *y_label;      /* the y unit: "MB", "events/s", "index" */
	const char *caption;      /* one sentence: what to look for */
	int64_t t0_ms, t1_ms;     /* x range; both 0 = the data's extent */
	int width, height;        /* pixels; 0 = 540 x 230 (two charts side by side at 1280 pixels) */
	int y_from_zero;          /* y axis includes 0 */
	int x_elapsed;            /* times are ms since a start: ticks read "0h", "1h30m", the axis "time since start" */
	double y_max;             /* > 0: the y axis ends here at least (e.g. 100 for percentages) */
};

enum svg_style {
	SVG_LINE = 0,             /* a line through the points */
	SVG_DASHED,               /* a dashed line (trend lines) */
	SVG_MARKERS,              /* a dot per point, no line (events, sparse probes) */
	SVG_LINE_MARKERS,         /* both */
};

struct svg_series {
	const char *name;         /* legend text */
	const int64_t *t_ms;      /* n ascending times */
	const double *v;          /* n values; NaN breaks the line */
	size_t n;
	enum svg_style style;
	int colour;               /* 0: the series' position; i > 0: palette entry i - 1 (a trend shares its data's colour) */
};

/* Lines, one per series, with a legend. */
int svg_line_chart(struct strbuf *sb, const struct svg_chart *c, const struct svg_series *s, int ns);

/* Stacked areas over shared times t_ms[n]: layers[i][j] is layer i at t_ms[j] (NaN = 0), layer 0 at the bottom. */
int svg_stacked_area(struct strbuf *sb, const struct svg_chart *c, const int64_t *t_ms, size_t n,
		     const double *const *layers, const char *const *names, int nlayers);

/* Heatmap, time across, rows up (row 0 at the bottom): cells[j * nrows + r] for time j; colour from vmin to vmax; NaN = grey. */
int svg_heatmap(struct strbuf *sb, const struct svg_chart *c, const int64_t *t_ms, size_t n,
		const double *cells, const char *const *row_names, int nrows, double vmin, double vmax);

/* A sparkline, 150 x 34 px, no axes: a line (or dots with markers) through the finite points, the newest one
 * marked; title says what it shows (its tooltip and text alternative). */
int svg_sparkline(struct strbuf *sb, const int64_t *t_ms, const double *v, size_t n, int markers, const char *title);

#endif
