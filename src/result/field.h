#ifndef PGARENA_RESULT_FIELD_H
#define PGARENA_RESULT_FIELD_H

/*
 * A result's fields named by their path, as `compare --by` and `history --by/--where` name
 * them: label, run_id, started_at, workload.name, workload.scale,
 * options.clients, options.rate, options.protocol, server.version, the fields the workloads'
 * parts give (result/part.h: KEY.NAME, absent in a result without the part),
 * server.settings.NAME and meta.KEY. A field's value is text (numbers as a result file writes
 * them), and a field can be absent (no label, a setting the server did not report, a meta key not
 * given).
 */

#include "result/result.h"

/* The fixed names and the parts' fields, comma-separated, for messages ("label, run_id,
 * ..."), then the two families (static storage). */
const char *result_field_names(void);

/* Whether name is a field name: a fixed one, or server.settings.NAME or meta.KEY with a
 * non-empty NAME or KEY. */
int result_field_valid(const char *name);

/* The field's value in r: 1 and *value (the caller frees it) when present, 0 and *value NULL
 * when absent or when name is not a field name. options.rate is 0 for a run that was not
 * rate-limited; workload.scale and options.clients are absent when 0 (unknown). */
int result_field_value(const struct result *r, const char *name, char **value);

#endif
