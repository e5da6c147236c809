#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_int.h"
#include "engine/engine.h"
#include "script/script.h"

/* init -f FILE.sql: the init script runs once, on one connection, through the same language
 * as the benchmark scripts (so \set, :scale, \if and the functions work there too). */
int bench_init_script(const struct pg_connopts *conn, const char *path, int64_t scale,
                      uint64_t seed, struct err *e)
{
    char *text;
    if (bench_read_file(path, &text, e) < 0)
        return -1;
    struct script_set set;
    script_set_init(&set);
    int rc = script_set_add(&set, path, text, 1, e);
    free(text);
    if (rc == 0)
        rc = script_set_check_protocol(&set, 1, e) == 0 ? 0 : -1;
    if (rc < 0) {
        script_set_free(&set);
        return -1;
    }
    struct engine_config cfg = {
        .conn = conn,
        .scripts = &set,
        .scale = scale,
        .clients = 1,
        .threads = 1,
        .tx_per_client = 1,
        .protocol = PROTO_SIMPLE,
        .interval_us = 1000000,
        .seed = seed,
        .max_tries = 1,
    };
    struct engine_result er;
    rc = engine_run(&cfg, &er, e);
    if (rc == 0) {
        if (er.end_reason != END_FINISHED && er.end_reason != END_ERROR) /* ERROR: failed */
            rc = err_set(e, ERR_RUNTIME, "init script %s was interrupted", path);
        else if (er.n_failed > 0 || er.n_tx != 1)
            rc = err_set(e, ERR_RUNTIME, "init script %s failed: %s", path,
                         er.first_error[0] ? er.first_error : "unknown error");
        engine_result_free(&er);
    }
    script_set_free(&set);
    return rc;
}
