/* sweep --duet on Windows: its halves are child processes (fork, duet.c), which pgarena does
 * not start there. The command line refuses --duet with one line and exit 2 before a sweep
 * starts (sweep_opts.c), so these are never reached with a duet. */
#ifdef _WIN32

#include "sweep/sweep_int.h"

int sweep_run_duet(struct sweep_exec *x, size_t k)
{
    (void)x;
    (void)k;
    return -1;
}

void sweep_duet_check_same(struct sweep_exec *x)
{
    (void)x;
}

#endif
