/* Where replay record's proxy is not built (Windows): it refuses with one line. */
#ifdef _WIN32

#include <string.h>

#include "capture/proxy.h"

int proxy_run(const struct proxy_opts *o, struct record_stats *stats, struct err *e)
{
    (void)o;
    memset(stats, 0, sizeof *stats);
    return err_set(e, ERR_INPUT,
                   "replay record is not available on Windows (its proxy is POSIX only): run it "
                   "on a Linux host");
}

#endif
