/* The statement classes of the text summary: the top ones by total time. */
#include "report/text.h"

#include <string.h>

/* Classes listed in the summary (the result file keeps the top 200). */
#define TEXT_CLASSES 10
/* A class's text is cut to this many characters in the table. */
#define TEXT_CLASS_WIDTH 60

static double ms(double us)
{
    return us / 1000.0;
}

static double total_ms(const struct result_script_figures *c)
{
    return ms(c->latency_us.mean * (double)(c->transactions - c->failed));
}

void report_text_classes(FILE *out, const struct result *r)
{
    size_t n = r->summary.n_classes;
    if (n == 0)
        return;
    fprintf(out, "%-*s %9s %7s %10s %9s %9s %9s\n", TEXT_CLASS_WIDTH, "top classes (by total time)",
            "count", "failed", "total_ms", "mean_ms", "p50_ms", "p99_ms");
    for (size_t i = 0; i < n && i < TEXT_CLASSES; i++) {
        const struct result_script_figures *c = &r->summary.classes[i];
        char text[TEXT_CLASS_WIDTH + 1];
        size_t len = strlen(c->name ? c->name : "");
        snprintf(text, sizeof text, "%s", c->name ? c->name : "");
        if (len > TEXT_CLASS_WIDTH)
            memcpy(text + TEXT_CLASS_WIDTH - 3, "...", 3);
        fprintf(out, "%-*s %9llu %7llu %10.1f %9.3f %9.3f %9.3f\n", TEXT_CLASS_WIDTH, text,
                (unsigned long long)c->transactions, (unsigned long long)c->failed, total_ms(c),
                ms(c->latency_us.mean), ms(c->latency_us.p50), ms(c->latency_us.p99));
    }
    if (n > TEXT_CLASSES)
        fprintf(out, "(%zu classes more in the result file)\n", n - TEXT_CLASSES);
}
