#include "base/fdlimit.h"

#include <sys/resource.h>

long fdlimit_ensure(long needed)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    if (rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < needed) {
        struct rlimit want = rl;
        want.rlim_cur = rl.rlim_max == RLIM_INFINITY || (long)rl.rlim_max >= needed ? (rlim_t)needed
                                                                                    : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &want) == 0)
            rl = want;
    }
    return rl.rlim_cur == RLIM_INFINITY ? needed : (long)rl.rlim_cur;
}
