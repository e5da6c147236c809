/* The sweep's table (or JSON) on stdout, from DIR. */
#include <stdio.h>

#include "cli/sweep_cmd.h"
#include "compare/sweep_figs.h"
#include "report/sweep_out.h"

int sweep_print(const struct sweep_doc *d, const char *dir, int json, struct err *e)
{
    struct sweep_figs f;
    if (sweep_figs_build(d, dir, &f, e) < 0)
        return -1;
    int rc = 0;
    if (json)
        rc = report_sweep_json(stdout, d, &f, e);
    else
        report_sweep_text(stdout, d, &f);
    sweep_figs_free(&f);
    return rc;
}
