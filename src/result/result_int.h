#ifndef PGARENA_RESULT_RESULT_INT_H
#define PGARENA_RESULT_RESULT_INT_H

/* Shared inside result/: the JSON form of a sparse histogram, the flattened environment. */

#include <jansson.h>

#include "result/part.h"
#include "result/result.h"
#include "stats/hist.h"

/* {"unit": "us", "count", "min", "max", "sum", "sumsq", "bins": [[value, count], ...]} */
json_t *result_hist_to_json(const struct hist_sparse *h);
/* Version 2's interval form: {"count", "min", "max", "sum", "sumsq", "compact": TEXT}, TEXT as
 * hist_compact_encode writes it (reduced precision, see stats/hist_compact.h). */
json_t *result_hist_to_json_compact(const struct hist_sparse *h);
/* Either form; -1 when the object is malformed (then out is empty). */
int result_hist_from_json(const json_t *j, struct hist_sparse *out);
/* An interval's histogram: as result_hist_from_json into it->histogram, except that the
 * compact form is checked and kept as text (it->compact) instead of decoded. */
int result_interval_hist_from_json(const json_t *j, struct result_interval *it);
/* An interval's histogram in the compact form, from its bins or from the text kept. */
json_t *result_interval_hist_json(const struct result_interval *it);

/* One interval of a file or a journal line; -1 when malformed (nothing to free then). */
int result_interval_from_json(const json_t *o, struct result_interval *it);

/* Sampling's paths (sampling.c): an interval's waits, client_cpu and host into o, and back
 * (-1 when malformed); the document's waits, client_cpu and statements_server into root, and
 * back; result_sampling_free frees what the latter read. */
void result_interval_sampling_json(const struct result_interval *it, json_t *o);
int result_interval_sampling_read(const json_t *o, struct result_interval *it);
void result_sampling_json(const struct result *r, json_t *root);
int result_sampling_read(const json_t *root, struct result *r);
void result_sampling_free(struct result *r);

/* The client's health (health.c): an interval's client_health into o and back, the
 * summary's into the summary object and back (-1 when malformed). */
void result_interval_health_json(const struct result_interval *it, json_t *o);
int result_interval_health_read(const json_t *o, struct result_interval *it);
void result_health_summary_json(const struct result *r, json_t *summary);
int result_health_summary_read(const json_t *summary, struct result *r);

/* Wait events (merge_sample.c): add src's into (*dst, *n) by name (the array grows; names
 * copied); sort them highest first and keep at most `keep` (the rest freed). */
void result_waits_add(struct result_wait **dst, size_t *n, const struct result_wait *src,
                      size_t n_src);
void result_waits_sort(struct result_wait *w, size_t *n, size_t keep);
/* Inside the server's paths (sio_json.c): an interval's server_io (NULL when it has none) and
 * back (-1 when malformed; the fields read are only those written until result_sio_fixup
 * adds the ones the document lists); the document's server_io_fields and events[] and back;
 * the summary's server_io_per_tx and events and back. */
json_t *result_sio_json(const struct result_sio *s);
int result_sio_from_json(const json_t *o, struct result_sio *s);
void result_sio_fixup(struct result *r);
void result_events_json(const struct result *r, json_t *root);
int result_events_read(const json_t *root, struct result *r);
void result_events_free(struct result *r);
void result_sio_summary_json(const struct result *r, json_t *summary);
void result_sio_summary_read(const json_t *summary, struct result *r);
/* An events[] array and back (read: appended to r's events; -1 when malformed), for the
 * journal's events lines; the fields r's intervals have: its server_io_fields, else those of
 * its server.version. */
json_t *result_events_array_json(const struct result_event *ev, size_t n);
int result_events_array_read(const json_t *events, struct result *r);
uint32_t result_sio_fields_known(const struct result *r);

/* Flatten the environment sections of root into r->env (r owns it; result_env_free). */
void result_env_read(const json_t *root, struct result *r);
void result_env_free(struct result *r);

/* write() all of s[0..n) to fd, retrying on EINTR; -1 with errno set. */
int result_write_all(int fd, const char *s, size_t n);

/* fsync the directory holding path, so that a rename into it survives a crash. */
void result_sync_dir(const char *path);

/* The latency object of a part of the run (a script, a class): min, mean, p50, p90, p95, p99,
 * max (write.c). */
json_t *result_part_latency_json(const struct latency_summary *s);
/* A latency object back (read.c): what is absent reads as 0. */
void result_latency_from_json(const json_t *l, struct latency_summary *out);

/* summary.classes[] (classes_json.c), when r has_classes, into summary; and back from a
 * summary (absent or malformed: left as they were, malformed ones none); freed. */
void result_classes_json(const struct result *r, json_t *summary);
void result_classes_read(const json_t *summary, struct result *r);
void result_classes_free(struct result *r);

/* Workloads' sections (part.c): read every registered one (-1 when one is malformed, *what
 * then naming it for the message); write those of r that sit at `at` into parent; free them;
 * merge the agents' into out. */
int result_parts_read(const json_t *root, struct result *r, const char **what);
/* recover: the parts a journal's snapshot object holds (its t_s, summary and the parts'
 * keys) replace r's; those it does not hold stay. */
void result_parts_read_snapshot(const json_t *snap, struct result *r);
void result_parts_json(const struct result *r, enum result_part_at at, json_t *parent,
                       json_t *summary);
void result_parts_free(struct result *r);
void result_parts_merge(struct result *const *in, size_t n, struct result *out);

#endif
