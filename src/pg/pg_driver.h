#ifndef PGARENA_PG_PG_DRIVER_H
#define PGARENA_PG_PG_DRIVER_H

/*
 * What a connection implementation provides: libpq's (pg_libpq.c, the default) or a test's
 * scripted fake (tests/unit/fake_pg.c). Every struct pg_conn, pg_result and pg_cancel starts
 * with the driver that made it, and pg.c dispatches each call through it: one indirect call
 * per operation, cheap beside the system calls behind it. Only src/pg/ and tests include
 * this header. Ownership as in pg.h: the driver allocates, its finish/free functions free.
 */

#include "pg/pg.h"

struct pg_driver {
    struct pg_conn *(*start)(const struct pg_connopts *o);
    enum pg_poll (*poll)(struct pg_conn *c);
    void (*finish)(struct pg_conn *c);
    int (*socket)(const struct pg_conn *c);
    int (*ok)(const struct pg_conn *c);
    int (*set_nonblocking)(struct pg_conn *c);
    int (*send_simple)(struct pg_conn *c, const char *sql);
    int (*send_params)(struct pg_conn *c, const char *sql, int n, const char *const *values,
                       const struct pg_param_forms *forms);
    int (*send_prepared)(struct pg_conn *c, const char *name, int n, const char *const *values,
                         const struct pg_param_forms *forms);
    int (*send_prepare)(struct pg_conn *c, const char *name, const char *sql, int n_params,
                        const uint32_t *types);
    int (*flush)(struct pg_conn *c);
    int (*consume)(struct pg_conn *c);
    int (*is_busy)(const struct pg_conn *c);
    struct pg_result *(*next_result)(struct pg_conn *c);
    int (*get_copy_data)(struct pg_conn *c);
    int (*put_copy_data)(struct pg_conn *c, const char *data, int n);
    int (*put_copy_end)(struct pg_conn *c, const char *errmsg);
    int (*pipeline_enter)(struct pg_conn *c);
    void (*pipeline_exit)(struct pg_conn *c);
    int (*pipeline_sync)(struct pg_conn *c);
    /* A sync queued without flushing (\syncpipeline); NULL: pipeline_sync serves. */
    int (*pipeline_send_sync)(struct pg_conn *c);
    /* A Flush message queued in pipeline mode; NULL: a no-op (the fake's results are there). */
    int (*pipeline_flush_request)(struct pg_conn *c);
    int (*in_pipeline)(const struct pg_conn *c);
    enum pg_txn (*txn_status)(const struct pg_conn *c);
    /* The raw message (may span lines), "" when none. */
    const char *(*error_message)(const struct pg_conn *c);
    struct pg_cancel *(*cancel_new)(struct pg_conn *c);
    void (*cancel_send)(struct pg_cancel *k);
    void (*cancel_free)(struct pg_cancel *k);

    enum pg_status (*result_status)(const struct pg_result *r);
    int (*result_rows)(const struct pg_result *r);
    int (*result_cols)(const struct pg_result *r);
    const char *(*result_value)(const struct pg_result *r, int row, int col);
    int (*result_isnull)(const struct pg_result *r, int row, int col);
    const char *(*result_colname)(const struct pg_result *r, int col);
    const char *(*result_sqlstate)(const struct pg_result *r);
    const char *(*result_detail)(const struct pg_result *r);
    /* The raw message (may span lines), "" when none. */
    const char *(*result_message)(const struct pg_result *r);
    void (*result_free)(struct pg_result *r);
};

struct pg_conn {
    const struct pg_driver *drv;
};

struct pg_result {
    const struct pg_driver *drv;
};

struct pg_cancel {
    const struct pg_driver *drv;
};

/* libpq's driver. */
extern const struct pg_driver pg_libpq_driver;

/* Make pg_conn_start use d (NULL: back to libpq). For tests; not thread-safe against
 * connections being started. */
void pg_driver_install(const struct pg_driver *d);

#endif
