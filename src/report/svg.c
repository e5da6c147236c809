#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/fmt.h"

/* Okabe & Ito (2008), "Color Universal Design": distinguishable with any common colour
 * vision deficiency. Yellow, weak on white, comes last. */
static const char *const colors[SVG_N_STYLES] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                 "#E69F00", "#56B4E9", "#000000", "#F0E442"};

/* A second cue besides colour, for grey print and for readers who cannot rely on hue. */
static const char *const dashes[SVG_N_STYLES] = {"none", "7 3", "2 3",      "9 3 2 3",
                                                 "4 4",  "1 2", "12 3 3 3", "5 2 1 2"};

#define WIDTH      540.0
#define PLOT_H     240.0
#define LEFT       76.0
#define RIGHT_PAD  30.0
#define BOTTOM_PAD 50.0
#define LEGEND_ROW 20.0
#define CHAR_W     7.4 /* mean advance of a 13 px sans-serif character, for layout only */

const char *svg_color(size_t style)
{
    return colors[style % SVG_N_STYLES];
}

const char *svg_dash(size_t style)
{
    return dashes[style % SVG_N_STYLES];
}

void svg_ticks_linear(double lo, double hi, int max_n, struct svg_ticks *out)
{
    if (!isfinite(lo))
        lo = 0;
    if (!(hi > lo) || !isfinite(hi)) /* also NaN */
        hi = lo + (lo != 0 ? fabs(lo) : 1);
    if (max_n < 2)
        max_n = 2;
    if (max_n > SVG_MAX_TICKS - 2)
        max_n = SVG_MAX_TICKS - 2;
    double raw = (hi - lo) / (max_n - 1);
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    /* The tolerance keeps a bound that is a multiple of step up to rounding from adding a
     * whole extra tick. */
    double k0 = floor(lo / step + 1e-9), k1 = ceil(hi / step - 1e-9);
    out->n = 0;
    for (double k = k0; k <= k1 && out->n < SVG_MAX_TICKS; k++)
        out->v[out->n++] = k * step;
    out->step = step;
    out->lo = k0 * step;
    out->hi = out->v[out->n - 1];
}

/* The largest 1, 2 or 5 times a power of ten at or below v (up: the smallest at or above). */
static double round125(double v, int up)
{
    static const double m[] = {1, 2, 5, 10};
    double dec = pow(10, floor(log10(v)));
    if (up) {
        for (int i = 0; i < 4; i++)
            if (m[i] * dec >= v * (1 - 1e-12))
                return m[i] * dec;
        return 10 * dec;
    }
    for (int i = 3; i >= 0; i--)
        if (m[i] * dec <= v * (1 + 1e-12))
            return m[i] * dec;
    return dec;
}

void svg_ticks_log(double lo, double hi, struct svg_ticks *out)
{
    if (!(hi > 0))
        hi = 1;
    if (!(lo > 0) || lo > hi)
        lo = hi / 10;
    if (lo == hi) {
        lo /= 2;
        hi *= 2;
    }
    out->lo = round125(lo, 0);
    out->hi = round125(hi, 1);
    out->step = 0;
    int decades_only = log10(out->hi / out->lo) > 2.7; /* 1-2-5 would make more than ~8 */
    static const double m[] = {1, 2, 5};
    out->n = 0;
    for (double dec = pow(10, floor(log10(out->lo))); dec <= out->hi * 1.0001; dec *= 10) {
        for (int i = 0; i < 3 && out->n < SVG_MAX_TICKS; i++) {
            double v = m[i] * dec;
            if ((decades_only && i > 0) || v < out->lo * 0.9999 || v > out->hi * 1.0001)
                continue;
            out->v[out->n++] = v;
        }
    }
}

double svg_px(const struct svg_chart *c, double x)
{
    double f = c->x.log ? log10(x / c->xt.lo) / log10(c->xt.hi / c->xt.lo)
                        : (x - c->xt.lo) / (c->xt.hi - c->xt.lo);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return c->left + f * (c->right - c->left);
}

double svg_py(const struct svg_chart *c, double y)
{
    double f = c->y.log ? log10(y / c->yt.lo) / log10(c->yt.hi / c->yt.lo)
                        : (y - c->yt.lo) / (c->yt.hi - c->yt.lo);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return c->bottom - f * (c->bottom - c->top);
}

static void ticks_for(const struct svg_axis *a, struct svg_ticks *t)
{
    if (a->log)
        svg_ticks_log(a->lo, a->hi, t);
    else
        svg_ticks_linear(a->lo, a->hi, a->max_ticks ? a->max_ticks : 6, t);
}

static void tick_label(const struct svg_chart *c, const struct svg_axis *a,
                       const struct svg_ticks *t, double v, char *buf, size_t size)
{
    if (a->fmt == SVG_FMT_NINES)
        report_fmt_nines(buf, size, v);
    else if (a->fmt == SVG_FMT_LATENCY && a->log)
        report_fmt_latency_tick(buf, size, v);
    else if (a->fmt == SVG_FMT_LATENCY)
        report_fmt_tick(buf, size, v / c->y_unit_us, t->step / c->y_unit_us);
    else
        report_fmt_tick(buf, size, v, t->step > 0 ? t->step : v);
}

/* A name cut to at most max bytes, on a UTF-8 character boundary, with an ellipsis. */
static void put_cut(struct buf *b, const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max) {
        report_escape(b, s);
        return;
    }
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    char cut[256];
    snprintf(cut, sizeof cut, "%.*s…", (int)max, s);
    report_escape(b, cut);
}

#define LEGEND_MAX_NAME 48

static double legend_width(const char *name)
{
    size_t n = strlen(name);
    return 30 + CHAR_W * (double)(n > LEGEND_MAX_NAME ? LEGEND_MAX_NAME + 1 : n) + 18;
}

/* Lay out and draw the legend above the plot, wrapping entries into rows; returns the rows. */
static int legend(struct svg_chart *c, const struct svg_legend_entry *e, size_t n, int draw)
{
    double x = LEFT, y = 14;
    int rows = n > 0;
    for (size_t i = 0; i < n; i++) {
        double w = legend_width(e[i].name);
        if (x > LEFT && x + w > WIDTH - RIGHT_PAD) {
            x = LEFT;
            y += LEGEND_ROW;
            rows++;
        }
        if (draw) {
            buf_printf(c->out,
                       "<g class=\"lg\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"%s\" stroke-width=\"2.5\" stroke-dasharray=\"%s\"/>"
                       "<text x=\"%.1f\" y=\"%.1f\">",
                       x, y, x + 24, y, svg_color(e[i].style), svg_dash(e[i].style), x + 30,
                       y + 4.5);
            put_cut(c->out, e[i].name, LEGEND_MAX_NAME);
            buf_puts(c->out, "</text></g>\n");
        }
        x += w;
    }
    return rows;
}

static void axis_title(struct svg_chart *c, const struct svg_axis *a, int is_y)
{
    if (!a->title)
        return;
    const char *unit = "";
    if (is_y && a->fmt == SVG_FMT_LATENCY && !a->log)
        unit = c->y_unit_us >= 1e6 ? " (s)" : c->y_unit_us >= 1e3 ? " (ms)" : " (µs)";
    if (is_y)
        buf_printf(c->out,
                   "<text class=\"at\" transform=\"rotate(-90)\" x=\"%.1f\" y=\"16\" "
                   "text-anchor=\"middle\">",
                   -(c->top + c->bottom) / 2);
    else
        buf_printf(c->out, "<text class=\"at\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                   (c->left + c->right) / 2, c->bottom + 42);
    report_escape(c->out, a->title);
    buf_printf(c->out, "%s</text>\n", unit);
}

static void grid(struct svg_chart *c)
{
    char label[64];
    buf_puts(c->out, "<g class=\"grid\" stroke=\"#d9d9d9\" stroke-width=\"1\">\n");
    for (size_t i = 0; i < c->yt.n; i++) {
        double y = svg_py(c, c->yt.v[i]);
        buf_printf(c->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", c->left, y,
                   c->right, y);
    }
    for (size_t i = 0; i < c->xt.n; i++) {
        double x = svg_px(c, c->xt.v[i]);
        buf_printf(c->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, c->top,
                   x, c->bottom);
    }
    buf_puts(c->out, "</g>\n<g class=\"ax\" fill=\"#333\">\n");
    for (size_t i = 0; i < c->yt.n; i++) {
        tick_label(c, &c->y, &c->yt, c->yt.v[i], label, sizeof label);
        buf_printf(c->out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", c->left - 6,
                   svg_py(c, c->yt.v[i]) + 4.5);
        report_escape(c->out, label);
        buf_puts(c->out, "</text>\n");
    }
    for (size_t i = 0; i < c->xt.n; i++) {
        tick_label(c, &c->x, &c->xt, c->xt.v[i], label, sizeof label);
        buf_printf(c->out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                   svg_px(c, c->xt.v[i]), c->bottom + 18);
        report_escape(c->out, label);
        buf_puts(c->out, "</text>\n");
    }
    buf_puts(c->out, "</g>\n");
    buf_printf(c->out,
               "<path class=\"frame\" d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"#555\"/>\n",
               c->left, c->top, c->bottom, c->right);
}

void svg_chart_begin(struct svg_chart *c, struct buf *out, const char *id, const char *title,
                     const struct svg_axis *x, const struct svg_axis *y,
                     const struct svg_legend_entry *legend_entries, size_t n_legend)
{
    memset(c, 0, sizeof *c);
    c->out = out;
    snprintf(c->id, sizeof c->id, "%s", id);
    c->x = *x;
    c->y = *y;
    ticks_for(x, &c->xt);
    ticks_for(y, &c->yt);
    c->y_unit_us = c->yt.hi >= 1e6 ? 1e6 : c->yt.hi >= 1e3 ? 1e3 : 1;
    int rows = legend(c, legend_entries, n_legend, 0);
    c->width = WIDTH;
    c->left = LEFT;
    c->right = WIDTH - RIGHT_PAD;
    c->top = 12 + rows * LEGEND_ROW;
    c->bottom = c->top + PLOT_H;
    c->height = c->bottom + BOTTOM_PAD;
    buf_printf(out,
               "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
               "aria-labelledby=\"%s-t\" font-family=\"system-ui, sans-serif\" "
               "font-size=\"13\">\n<title id=\"%s-t\">",
               c->width, c->height, id, id);
    report_escape(out, title);
    buf_printf(
        out,
        "</title>\n<defs><pattern id=\"%s-h\" width=\"6\" height=\"6\" "
        "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" "
        "y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" stroke-width=\"1.5\"/></pattern></defs>\n",
        id);
    legend(c, legend_entries, n_legend, 1);
    grid(c);
    axis_title(c, &c->x, 0);
    axis_title(c, &c->y, 1);
}

void svg_band(struct svg_chart *c, double x0, double x1, int hatched, const char *label)
{
    double a = svg_px(c, x0), b = svg_px(c, x1);
    if (b - a < 0.5)
        return;
    if (hatched)
        buf_printf(c->out, "<g class=\"band\"><rect fill=\"url(#%s-h)\"", c->id);
    else
        buf_puts(c->out, "<g class=\"band\"><rect fill=\"#000\" fill-opacity=\"0.08\"");
    buf_printf(c->out, " x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">", a, c->top, b - a,
               c->bottom - c->top);
    if (label) {
        buf_puts(c->out, "<title>");
        report_escape(c->out, label);
        buf_puts(c->out, "</title>");
    }
    buf_puts(c->out, "</rect>");
    /* The label goes inside the band when it fits; the caption explains it in any case. */
    if (label && (b - a) >= CHAR_W * 0.85 * (double)strlen(label) + 8) {
        buf_printf(c->out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", a + 4, c->top + 13);
        report_escape(c->out, label);
        buf_puts(c->out, "</text>");
    }
    buf_puts(c->out, "</g>\n");
}

void svg_event_band(struct svg_chart *c, double x0, double x1, size_t style, const char *label)
{
    double a = svg_px(c, x0), b = svg_px(c, x1);
    if (a < c->left)
        a = c->left;
    if (b > c->right)
        b = c->right;
    if (b - a < 1)
        b = a + 1;
    buf_printf(c->out,
               "<g class=\"event\"><rect fill=\"%s\" fill-opacity=\"0.18\" x=\"%.1f\" "
               "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
               svg_color(style), a, c->top, b - a, c->bottom - c->top);
    if (label) {
        buf_puts(c->out, "<title>");
        report_escape(c->out, label);
        buf_puts(c->out, "</title>");
    }
    buf_puts(c->out, "</rect></g>\n");
}

static int usable(const struct svg_chart *c, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!c->x.log || x > 0) && (!c->y.log || y > 0);
}

void svg_series(struct svg_chart *c, const double *xs, const double *ys, size_t n, size_t style)
{
    buf_printf(c->out,
               "<path class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
               "stroke-linejoin=\"round\" stroke-dasharray=\"%s\" d=\"",
               svg_color(style), svg_dash(style));
    int in_line = 0;
    for (size_t i = 0; i < n; i++) {
        if (!usable(c, xs[i], ys[i])) {
            in_line = 0;
            continue;
        }
        buf_printf(c->out, "%s%.1f %.1f", in_line ? "L" : "M", svg_px(c, xs[i]), svg_py(c, ys[i]));
        in_line = 1;
    }
    buf_puts(c->out, "\"/>\n");
    /* A point with no usable neighbour would draw nothing as a path. */
    for (size_t i = 0; i < n; i++) {
        int prev = i > 0 && usable(c, xs[i - 1], ys[i - 1]);
        int next = i + 1 < n && usable(c, xs[i + 1], ys[i + 1]);
        if (usable(c, xs[i], ys[i]) && !prev && !next)
            buf_printf(c->out,
                       "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                       svg_px(c, xs[i]), svg_py(c, ys[i]), svg_color(style));
    }
}

void svg_chart_end(struct svg_chart *c)
{
    buf_puts(c->out, "</svg>\n");
}

void svg_area(struct svg_chart *c, const double *xs, const double *lo, const double *hi, size_t n,
              size_t style)
{
    svg_fill(c, xs, lo, hi, n, style, 0.18);
}

void svg_fill(struct svg_chart *c, const double *xs, const double *lo, const double *hi, size_t n,
              size_t style, double opacity)
{
    /* Runs of points where both bounds are usable, each one closed polygon: up along hi,
     * back along lo. */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && usable(c, xs[j], lo[j]) && usable(c, xs[j], hi[j]))
            j++;
        if (j - i >= 2) {
            buf_printf(c->out, "<path class=\"area\" fill=\"%s\" fill-opacity=\"%.2f\" d=\"",
                       svg_color(style), opacity);
            for (size_t k = i; k < j; k++)
                buf_printf(c->out, "%s%.1f %.1f", k == i ? "M" : "L", svg_px(c, xs[k]),
                           svg_py(c, hi[k]));
            for (size_t k = j; k-- > i;)
                buf_printf(c->out, "L%.1f %.1f", svg_px(c, xs[k]), svg_py(c, lo[k]));
            buf_puts(c->out, "Z\"/>\n");
        }
        i = j > i ? j : i + 1;
    }
}
