#ifndef PGARENA_REPORT_SVG_H
#define PGARENA_REPORT_SVG_H

#include <stddef.h>

#include "base/buf.h"

/*
 * Chart primitives for the HTML report: inline SVG with a viewBox (it scales to any width),
 * axes with round ticks and units, line series, shaded bands and a legend, in a palette that
 * colour-blind readers can tell apart, with a dash pattern per series for grey print.
 * Ownership: a struct svg_chart borrows the buffer it writes to and the strings it is given
 * for as long as it is drawn; it allocates nothing.
 */

#define SVG_MAX_TICKS 24
#define SVG_N_STYLES  8

/* The colour of series style i (Okabe-Ito, ordered for lines on white; cycles after
 * SVG_N_STYLES) and its dash pattern for stroke-dasharray ("none" for solid). */
const char *svg_color(size_t style);
const char *svg_dash(size_t style);

/* Tick values of an axis, and the range they span (the axis' extent). */
struct svg_ticks {
    size_t n;
    double v[SVG_MAX_TICKS];
    double step; /* linear: the distance between ticks; log: 0 */
    double lo, hi;
};

/* Round ticks 1, 2 or 5 times a power of ten apart covering [lo, hi], at most about max_n of
 * them (2 <= max_n <= SVG_MAX_TICKS - 2); the range widens to the outer ticks. An empty or
 * inverted range widens to one unit. */
void svg_ticks_linear(double lo, double hi, int max_n, struct svg_ticks *out);

/* Ticks of a log10 axis covering [lo, hi] (lo > 0; a non-positive lo becomes hi / 10): the
 * range widens to the nearest 1, 2 or 5 times a power of ten, ticks at those values, or only
 * at the powers of ten when that would make more than about eight. */
void svg_ticks_log(double lo, double hi, struct svg_ticks *out);

/* How an axis labels its ticks. */
enum svg_fmt {
    SVG_FMT_NUMBER,  /* plain numbers, k and M for thousands and millions */
    SVG_FMT_LATENCY, /* microseconds: one unit for a linear axis (in its title), per tick on log */
    SVG_FMT_NINES,   /* the "nines" scale of a percentile plot: 90%, 99%, 99.9% */
};

struct svg_axis {
    double lo, hi; /* the data to show; ticks widen it to round numbers */
    int log;       /* log10 scale */
    enum svg_fmt fmt;
    const char *title; /* with its unit, e.g. "throughput (tps)" */
    int max_ticks;     /* 0: the default (6) */
};

struct svg_legend_entry {
    const char *name;
    size_t style;
};

struct svg_chart {
    struct buf *out;
    struct svg_axis x, y;
    struct svg_ticks xt, yt;
    double width, height;            /* the viewBox */
    double left, right, top, bottom; /* the plot area */
    double y_unit_us;                /* SVG_FMT_LATENCY on a linear y: 1, 1e3 or 1e6 */
    char id[32];
};

/* Start a chart in out: the <svg> element titled title (id makes its element ids unique in
 * the document), the legend above the plot, grid, ticks and axis titles. */
void svg_chart_begin(struct svg_chart *c, struct buf *out, const char *id, const char *title,
                     const struct svg_axis *x, const struct svg_axis *y,
                     const struct svg_legend_entry *legend, size_t n_legend);

/* Shade x0..x1 (data units, clipped to the plot) in grey, or hatch it, and label it at its top
 * (label may be NULL). */
void svg_band(struct svg_chart *c, double x0, double x1, int hatched, const char *label);

/* A band from x0 to x1 in style's colour, faint, with a tooltip label (an event's span: a
 * checkpoint, an autovacuum); at least a pixel wide, so that a short one shows. */
void svg_event_band(struct svg_chart *c, double x0, double x1, size_t style, const char *label);

/* A line through (xs[i], ys[i]); a NaN (or a non-positive value on a log axis) breaks it, and a
 * point alone between breaks is drawn as a dot. */
void svg_series(struct svg_chart *c, const double *xs, const double *ys, size_t n, size_t style);

/* A shaded band between lo[i] and hi[i] along xs[i] (a confidence band around a series), in
 * style's colour, translucent; a point where a bound is unusable breaks it. */
void svg_area(struct svg_chart *c, const double *xs, const double *lo, const double *hi, size_t n,
              size_t style);

/* The same with the given fill opacity (1: opaque, for stacked areas). */
void svg_fill(struct svg_chart *c, const double *xs, const double *lo, const double *hi, size_t n,
              size_t style, double opacity);

/* Close the chart. */
void svg_chart_end(struct svg_chart *c);

/* Data to viewBox coordinates (clamped to the plot area). */
double svg_px(const struct svg_chart *c, double x);
double svg_py(const struct svg_chart *c, double y);

#endif
