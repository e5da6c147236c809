#ifndef PGARENA_WORKLOAD_TPCC_RESULT_H
#define PGARENA_WORKLOAD_TPCC_RESULT_H

#include <stdint.h>

#include "result/part.h"

/*
 * summary.tpcc, TPC-C's section of the result file (a part, result/part.h): its figures, its
 * JSON, the merge of agents' sections, and its lines in show, report and compare. The
 * workloads tpcc and ch give it (ch's terminals run TPC-C's transactions).
 * Ownership: the figures own mode.
 */

struct tpcc_figures {
    int warehouses;
    double nopm;        /* New-Orders per minute from the server's sum(d_next_o_id) */
    double nopm_client; /* committed New-Orders the clients counted, per minute */
    double tpm;         /* completed transactions of all five kinds per minute */
    uint64_t new_order_rollbacks;
    char *mode; /* "sql" or "procedures" */
    int keying_thinking;
};

extern const struct result_part_ops tpcc_result_part;

#endif
