#include "cli/sweep_int.h"
int sweep_capacity(struct sweep_exec *x, struct err *e)
{
    (void)x;
    return err_set(e, ERR_RUNTIME, "not yet");
}
