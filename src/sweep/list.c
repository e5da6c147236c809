/* A sweep's axis values (1,2,4,8 or 1..64x2) and its service-level objective (p99<=5ms). */
#include "sweep/sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

static int list_error(const char *opt, const char *text, struct err *e)
{
    return err_set(e, ERR_INPUT,
                   "invalid list for %s: '%s' (expected values like 1,2,4,8 or a geometric range "
                   "like 1..64x2)",
                   opt, text);
}

/* One number of a list, whole, finite, in [lo, hi]; integer when integral is set. */
static int list_number(const char *s, size_t len, int integral, double lo, double hi, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf || isspace((unsigned char)s[0]))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi || (integral && v != floor(v)))
        return -1;
    *out = v;
    return 0;
}

/* A..BxF: A, A F, A F^2, ... up to B (B itself when the steps land on it, within rounding). */
static int list_range(const char *opt, const char *text, const char *dots, int integral, double lo,
                      double hi, double **vals, size_t *n, struct err *e)
{
    const char *x = strchr(dots + 2, 'x');
    double a, b, f;
    if (!x || list_number(text, (size_t)(dots - text), integral, lo, hi, &a) < 0 ||
        list_number(dots + 2, (size_t)(x - dots - 2), integral, lo, hi, &b) < 0 ||
        list_number(x + 1, strlen(x + 1), 0, 1.0001, 1e6, &f) < 0 || b < a)
        return list_error(opt, text, e);
    size_t cap = 16;
    *vals = xmalloc(cap * sizeof **vals);
    *n = 0;
    double prev = -1;
    for (double v = a; v <= b * (1 + 1e-9); v *= f) {
        double w = integral ? floor(v + 0.5) : v;
        if (w == prev)
            continue;
        if (*n == SWEEP_MAX_VALUES) {
            free(*vals);
            return err_set(e, ERR_INPUT, "invalid list for %s: '%s' has over %d values", opt, text,
                           SWEEP_MAX_VALUES);
        }
        if (*n == cap)
            *vals = xrealloc(*vals, (cap *= 2) * sizeof **vals);
        (*vals)[(*n)++] = prev = w;
    }
    return 0;
}

int sweep_parse_list(const char *opt, const char *text, int integral, double lo, double hi,
                     double **vals, size_t *n, struct err *e)
{
    *vals = NULL;
    *n = 0;
    const char *dots = strstr(text, "..");
    if (dots)
        return list_range(opt, text, dots, integral, lo, hi, vals, n, e);
    size_t count = 1;
    for (const char *p = text; *p; p++)
        count += *p == ',';
    if (count > SWEEP_MAX_VALUES)
        return err_set(e, ERR_INPUT, "invalid list for %s: '%s' has over %d values", opt, text,
                       SWEEP_MAX_VALUES);
    *vals = xmalloc(count * sizeof **vals);
    const char *p = text;
    for (size_t i = 0; i < count; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (list_number(p, len, integral, lo, hi, &(*vals)[i]) < 0) {
            free(*vals);
            *vals = NULL;
            return list_error(opt, text, e);
        }
        for (size_t k = 0; k < i; k++)
            if ((*vals)[k] == (*vals)[i]) {
                free(*vals);
                *vals = NULL;
                return err_set(e, ERR_INPUT, "invalid list for %s: '%s' repeats a value", opt,
                               text);
            }
        p += len + 1;
    }
    *n = count;
    return 0;
}

int sweep_parse_slo(const char *text, struct sweep_slo *slo, struct err *e)
{
    static const struct {
        const char *name;
        double q;
    } quantiles[] = {{"p50", 0.50},   {"p95", 0.95}, {"p99.9", 0.999},
                     {"p999", 0.999}, {"p99", 0.99}, {"max", 1.0}};
    const char *le = strstr(text, "<=");
    size_t i = 0, n = sizeof quantiles / sizeof quantiles[0];
    for (; le && i < n; i++)
        if (strlen(quantiles[i].name) == (size_t)(le - text) &&
            strncmp(text, quantiles[i].name, (size_t)(le - text)) == 0)
            break;
    double v = 0, unit = 0;
    const char *num = le ? le + 2 : "";
    size_t len = strlen(num), unit_len = 2;
    if (len > 2 && strcmp(num + len - 2, "ms") == 0)
        unit = 1000;
    else if (len > 2 && strcmp(num + len - 2, "us") == 0)
        unit = 1;
    else if (len > 1 && num[len - 1] == 's')
        unit = 1e6, unit_len = 1;
    if (!le || i == n || unit == 0 || list_number(num, len - unit_len, 0, 1e-3, 1e9, &v) < 0)
        return err_set(e, ERR_INPUT,
                       "invalid value for --slo: '%s' (expected QUANTILE<=LIMIT with QUANTILE "
                       "p50, p95, p99, p99.9 or max and LIMIT in us, ms or s, e.g. 'p99<=5ms')",
                       text);
    slo->q = quantiles[i].q;
    slo->limit_us = v * unit;
    slo->text = text;
    return 0;
}

int sweep_parse_axis(const struct workload_sweep_axis *a, const char *text, double **vals,
                     size_t *n, struct err *e)
{
    *vals = NULL;
    *n = 0;
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", a->name);
    if (strstr(text, "..")) /* a geometric range has no top in it */
        return sweep_parse_list(opt, text, 0, a->lo, a->hi, vals, n, e);
    size_t count = 1;
    for (const char *p = text; *p; p++)
        count += *p == ',';
    if (count > SWEEP_MAX_VALUES)
        return err_set(e, ERR_INPUT, "invalid list for %s: '%s' has over %d values", opt, text,
                       SWEEP_MAX_VALUES);
    double *v = xcalloc(count, sizeof *v);
    const char *p = text;
    for (size_t i = 0; i < count; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int bad = 0;
        if (a->top && len == strlen(a->top) && strncmp(p, a->top, len) == 0)
            v[i] = SWEEP_SPEED_MAX;
        else
            bad = list_number(p, len, 0, a->lo, a->hi, &v[i]) < 0;
        for (size_t k = 0; k < i && !bad; k++)
            bad = v[k] == v[i] ? 2 : 0;
        if (bad) {
            free(v);
            return bad == 2 ? err_set(e, ERR_INPUT, "invalid list for %s: '%s' repeats a value",
                                      opt, text)
                            : err_set(e, ERR_INPUT, "invalid list for %s: '%s' (expected %s)", opt,
                                      text, a->expected);
        }
        p += len + 1;
    }
    *vals = v;
    *n = count;
    return 0;
}

const char *sweep_axis_arg(const struct workload_sweep_axis *a, double v, char *buf, size_t size)
{
    if (v == SWEEP_SPEED_MAX && a->top)
        return a->top;
    snprintf(buf, size, "%.17g", v);
    return buf;
}
