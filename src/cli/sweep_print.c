/* The sweep's table (or JSON) on stdout, from DIR; its comparisons into sweep.json. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/sweep_cmd.h"
#include "compare/sweep_figs.h"
#include "report/sweep_out.h"

int sweep_print(struct sweep_doc *d, const char *dir, const char *json_path, int json,
                struct err *e)
{
    struct sweep_figs f;
    if (sweep_figs_build(d, dir, &f, e) < 0)
        return -1;
    int rc = 0;
    if (json)
        rc = report_sweep_json(stdout, d, &f, e);
    else
        report_sweep_text(stdout, d, &f);
    if (json_path) {
        /* The document takes the comparisons (the figures keep none to free twice). */
        for (size_t i = 0; i < d->n_comparisons; i++)
            sweep_comparison_free(&d->comparisons[i]);
        free(d->comparisons);
        d->comparisons = f.cmps;
        d->n_comparisons = f.n_cmps;
        f.cmps = NULL;
        f.n_cmps = 0;
        if (rc == 0)
            rc = sweep_doc_write(d, json_path, e);
    }
    sweep_figs_free(&f);
    return rc;
}
