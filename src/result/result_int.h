#ifndef PGARENA_RESULT_RESULT_INT_H
#define PGARENA_RESULT_RESULT_INT_H

/* Shared inside result/: the JSON form of a sparse histogram, the flattened environment. */

#include <jansson.h>

#include "result/result.h"
#include "stats/hist.h"

/* {"unit": "us", "count", "min", "max", "sum", "sumsq", "bins": [[value, count], ...]} */
json_t *result_hist_to_json(const struct hist_sparse *h);
/* -1 when the object is malformed (then out is empty). */
int result_hist_from_json(const json_t *j, struct hist_sparse *out);

/* Flatten the environment sections of root into r->env (r owns it; result_env_free). */
void result_env_read(const json_t *root, struct result *r);
void result_env_free(struct result *r);

/* write() all of s[0..n) to fd, retrying on EINTR; -1 with errno set. */
int result_write_all(int fd, const char *s, size_t n);

/* fsync the directory holding path, so that a rename into it survives a crash. */
void result_sync_dir(const char *path);

#endif
