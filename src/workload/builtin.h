#ifndef PGARENA_WORKLOAD_BUILTIN_H
#define PGARENA_WORKLOAD_BUILTIN_H

/* Built-in workloads: a dataset and a transaction script in pgbench's language.
 * All data is static; nothing to free. */

enum dataset {
    DATASET_PGBENCH, /* pgbench_accounts, _branches, _tellers, _history */
};

struct builtin_workload {
    const char *name;        /* as given to -w / -b */
    const char *description; /* one line for --help */
    enum dataset dataset;
    const char *script; /* pgbench script text */
};

/* The workload called `name`, or NULL. */
const struct builtin_workload *builtin_find(const char *name);

/* All built-ins, NULL-terminated. */
const struct builtin_workload *const *builtin_all(void);

#endif
