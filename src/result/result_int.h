#ifndef PGARENA_RESULT_RESULT_INT_H
#define PGARENA_RESULT_RESULT_INT_H

/* Shared inside result/: the JSON form of a sparse histogram. */

#include <jansson.h>

#include "stats/hist.h"

/* {"unit": "us", "count", "min", "max", "sum", "sumsq", "bins": [[value, count], ...]} */
json_t *result_hist_to_json(const struct hist_sparse *h);
/* -1 when the object is malformed (then out is empty). */
int result_hist_from_json(const json_t *j, struct hist_sparse *out);

#endif
