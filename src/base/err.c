#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>

int err_set(struct err *e, enum err_code code, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    e->code = code;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}
