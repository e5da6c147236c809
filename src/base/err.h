#ifndef PGARENA_BASE_ERR_H
#define PGARENA_BASE_ERR_H

#include "base/printf.h"

/* How a failure maps to the process exit status (README.md, pgarena(1): 0 ok, 1 runtime, 2 input).
 */
enum err_code {
    ERR_NONE = 0,
    ERR_RUNTIME = 1, /* the run failed or was cut short */
    ERR_INPUT = 2,   /* bad usage or bad input: nothing ran */
};

/* A caller-owned error: functions below main fill it and return -1; only main prints it. */
struct err {
    enum err_code code;
    char msg[1024];
};

/* Set code and message (printf-style); returns -1 so callers can `return err_set(...)`. */
int err_set(struct err *e, enum err_code code, const char *fmt, ...) PRINTF_LIKE(3, 4);

#endif
