#include "report/fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result/result.h"

void report_escape(struct buf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&':
            buf_puts(b, "&amp;");
            break;
        case '<':
            buf_puts(b, "&lt;");
            break;
        case '>':
            buf_puts(b, "&gt;");
            break;
        case '"':
            buf_puts(b, "&quot;");
            break;
        case '\'':
            buf_puts(b, "&#39;");
            break;
        default:
            if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n')
                buf_putc(b, (char)c);
        }
    }
}

/* Copy the number text src into buf with a comma every three digits of its integer part. */
static char *group_digits(char *buf, size_t size, const char *src)
{
    const char *digits = src + (*src == '-' || *src == '+');
    size_t int_len = strspn(digits, "0123456789");
    size_t o = 0;
    for (const char *p = src; *p && o + 1 < size; p++) {
        buf[o++] = *p;
        size_t pos = (size_t)(p - digits); /* index within the integer digits */
        if (p >= digits && pos + 1 < int_len && (int_len - pos - 1) % 3 == 0 && o + 1 < size)
            buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}

char *report_fmt_count(char *buf, size_t size, uint64_t n)
{
    char raw[32];
    snprintf(raw, sizeof raw, "%llu", (unsigned long long)n);
    return group_digits(buf, size, raw);
}

/* v rounded to sig significant digits, and the decimals that shows them. */
static double round_sig(double v, int sig, int *decimals)
{
    if (v == 0 || !isfinite(v)) {
        *decimals = 0;
        return v;
    }
    int mag = (int)floor(log10(fabs(v)));
    double unit = pow(10, mag - sig + 1);
    double r = round(v / unit) * unit;
    if (r != 0 && (int)floor(log10(fabs(r))) > mag) /* 9.996 -> 10.0: one digit more */
        mag++;
    int d = sig - 1 - mag;
    *decimals = d < 0 ? 0 : d > 9 ? 9 : d;
    return r;
}

/* Drop the zeros ending a decimal fraction, and the point if nothing is left after it. */
static void trim_zeros(char *s)
{
    char *dot = strchr(s, '.');
    if (!dot)
        return;
    char *end = s + strlen(s);
    while (end > dot + 1 && end[-1] == '0')
        *--end = '\0';
    if (end == dot + 1)
        *dot = '\0';
}

char *report_fmt_sig(char *buf, size_t size, double v, int sig)
{
    if (isnan(v)) {
        snprintf(buf, size, "-");
        return buf;
    }
    int d;
    double r = round_sig(v, sig, &d);
    char raw[64];
    snprintf(raw, sizeof raw, "%.*f", d, r);
    return group_digits(buf, size, raw);
}

char *report_fmt_num(char *buf, size_t size, double v, int sig)
{
    report_fmt_sig(buf, size, v, sig);
    trim_zeros(buf);
    return buf;
}

static char *fmt_latency(char *buf, size_t size, double us, int trim)
{
    if (isnan(us)) {
        snprintf(buf, size, "-");
        return buf;
    }
    int d;
    double r = round_sig(us, 3, &d);
    const char *unit = "µs";
    if (fabs(r) >= 1e6) {
        r = round_sig(us / 1e6, 3, &d);
        unit = "s";
    } else if (fabs(r) >= 1e3) {
        r = round_sig(us / 1e3, 3, &d);
        unit = "ms";
    }
    char num[48];
    snprintf(num, sizeof num, "%.*f", d, r);
    if (trim)
        trim_zeros(num);
    char grouped[64];
    snprintf(buf, size, "%s %s", group_digits(grouped, sizeof grouped, num), unit);
    return buf;
}

char *report_fmt_latency(char *buf, size_t size, double us)
{
    return fmt_latency(buf, size, us, 0);
}

char *report_fmt_latency_tick(char *buf, size_t size, double us)
{
    return fmt_latency(buf, size, us, 1);
}

/* Decimals that show every multiple of step exactly (steps are 1, 2 or 5 times a power of
 * ten, so this is the step's own decimals). */
static int step_decimals(double step)
{
    for (int d = 0; d < 9; d++) {
        double scaled = step * pow(10, d);
        if (fabs(scaled - round(scaled)) < 1e-6 * scaled)
            return d;
    }
    return 9;
}

char *report_fmt_tick(char *buf, size_t size, double v, double step)
{
    if (isnan(v)) {
        snprintf(buf, size, "-");
        return buf;
    }
    if (!(step > 0))
        step = 1;
    if (fabs(v) < step * 1e-9) /* no "-0" from rounding */
        v = 0;
    const char *suffix = "";
    if (step >= 1e5 && fabs(v) >= 1e6) {
        v /= 1e6;
        step /= 1e6;
        suffix = "M";
    } else if (step >= 100 && fabs(v) >= 1e3) {
        v /= 1e3;
        step /= 1e3;
        suffix = "k";
    }
    char raw[48], grouped[64];
    snprintf(raw, sizeof raw, "%.*f", step_decimals(step), v);
    snprintf(buf, size, "%s%s", group_digits(grouped, sizeof grouped, raw), suffix);
    return buf;
}

char *report_fmt_nines(char *buf, size_t size, double nines)
{
    if (isnan(nines) || nines < 0) {
        snprintf(buf, size, "-");
        return buf;
    }
    double pct = 100 * (1 - pow(10, -nines));
    int whole = (int)floor(nines + 1e-9);
    int d = whole - 2 + (fabs(nines - round(nines)) > 1e-9 ? 1 : 0);
    if (d < 0)
        d = 0;
    snprintf(buf, size, "%.*f%%", d, pct);
    return buf;
}

char *report_fmt_change(char *buf, size_t size, double pct)
{
    if (isnan(pct)) {
        snprintf(buf, size, "-");
        return buf;
    }
    snprintf(buf, size, "%+.1f%%", pct);
    if (strcmp(buf, "+0.0%") == 0 || strcmp(buf, "-0.0%") == 0)
        snprintf(buf, size, "0.0%%");
    return buf;
}

char *report_fmt_cut(char *buf, size_t size, const char *s)
{
    size_t n = 0;
    for (; s[n] && n + 1 < size; n++)
        buf[n] = s[n] == '\n' || s[n] == '\t' ? ' ' : s[n];
    buf[n] = '\0';
    if (s[n] && n >= 3) {
        n -= 3;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--; /* not inside a UTF-8 character */
        memcpy(buf + n, "...", 4);
    }
    return buf;
}

char *report_fmt_dataset(char *buf, size_t size, const struct result *r)
{
    if (r->workload.n_sizes == 0) {
        snprintf(buf, size, "scale %lld", (long long)r->workload.scale);
        return buf;
    }
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->workload.n_sizes && n < size; i++) {
        const struct result_size *s = &r->workload.sizes[i];
        char v[32];
        if (s->form->grouped)
            report_fmt_count(v, sizeof v, (uint64_t)s->value);
        else
            snprintf(v, sizeof v, "%lld", (long long)s->value);
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", i ? " × " : "", v,
                              s->value == 1 ? s->form->one : s->form->many);
    }
    return buf;
}
