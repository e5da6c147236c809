#ifndef PGARENA_TESTS_REPLAY_FIXTURE_H
#define PGARENA_TESTS_REPLAY_FIXTURE_H

#include <stdlib.h>

#include "result/result.h"
#include "workload/replay/replay_result.h"

/* r's replay {} (workload/replay/replay_result.h), given to r empty when it has none. */
static inline struct replay_result *replay_fixture(struct result *r)
{
    struct replay_result *p = (struct replay_result *)replay_result_of(r);
    if (!p) {
        p = calloc(1, sizeof *p);
        result_part_set(r, &replay_part, p);
    }
    return p;
}

#endif
