#include "workload/workload.h"

#include <string.h>

/* The scripts are pgbench's own (pgbench --show-script), so results compare like for like. */

#define PGBENCH_RANDOM_VARS                                                                        \
    "\\set aid random(1, 100000 * :scale)\n"                                                       \
    "\\set bid random(1, 1 * :scale)\n"                                                            \
    "\\set tid random(1, 10 * :scale)\n"                                                           \
    "\\set delta random(-5000, 5000)\n"

#define PGBENCH_ACCOUNT_UPDATE                                                                     \
    "BEGIN;\n"                                                                                     \
    "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"                 \
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"

#define PGBENCH_HISTORY_INSERT                                                                     \
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, "         \
    ":delta, CURRENT_TIMESTAMP);\n"                                                                \
    "END;\n"

static const struct builtin_workload tpcb_like = {
    "tpcb-like", "pgbench's TPC-B (sort of) transaction", DATASET_PGBENCH,
    PGBENCH_RANDOM_VARS PGBENCH_ACCOUNT_UPDATE
    "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
    "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = "
    ":bid;\n" PGBENCH_HISTORY_INSERT,
    0};

static const struct builtin_workload simple_update = {
    "simple-update", "pgbench -N: update accounts, insert history", DATASET_PGBENCH,
    PGBENCH_RANDOM_VARS PGBENCH_ACCOUNT_UPDATE PGBENCH_HISTORY_INSERT, 0};

static const struct builtin_workload select_only = {
    "select-only", "pgbench -S: one primary-key lookup", DATASET_PGBENCH,
    "\\set aid random(1, 100000 * :scale)\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n",
    0};

/* sysbench 1.0's OLTP scripts (oltp_read_write.lua and friends); see builtin_sysbench.c. */
static const struct builtin_workload oltp_read_write = {
    "oltp-read-write", "sysbench oltp_read_write: 10 point selects, 4 ranges, 4 writes",
    DATASET_SYSBENCH, NULL, SB_POINT_SELECTS | SB_RANGES | SB_WRITES | SB_TRX};

static const struct builtin_workload oltp_read_only = {
    "oltp-read-only", "sysbench oltp_read_only: 10 point selects, 4 ranges", DATASET_SYSBENCH, NULL,
    SB_POINT_SELECTS | SB_RANGES | SB_TRX};

static const struct builtin_workload oltp_point_select = {
    "oltp-point-select", "sysbench oltp_point_select: 1 primary-key lookup", DATASET_SYSBENCH, NULL,
    SB_POINT_SELECTS | SB_ONE_POINT};

static const struct builtin_workload oltp_write_only = {
    "oltp-write-only", "sysbench oltp_write_only: 2 updates, delete + insert", DATASET_SYSBENCH,
    NULL, SB_WRITES | SB_TRX};

/* TPC-C's five transactions; the scripts are generated (builtin_tpcc.c). */
static const struct builtin_workload tpcc = {
    "tpcc", "TPC-C: New-Order, Payment, Order-Status, Delivery, Stock-Level", DATASET_TPCC, NULL,
    0};

static const struct builtin_workload *const all[] = {
    &tpcb_like,       &simple_update,  &select_only,
    &oltp_read_write, &oltp_read_only, &oltp_point_select,
    &oltp_write_only, &tpcc,           NULL};

const struct builtin_workload *builtin_find(const char *name)
{
    for (int i = 0; all[i]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

const struct builtin_workload *const *builtin_all(void)
{
    return all;
}
