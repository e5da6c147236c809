#ifndef PGARENA_CLI_OPTS_H
#define PGARENA_CLI_OPTS_H

/* Every command's long options: one enum of codes (above every short option character, so no
 * two options of any command share one) and the option tables of the commands whose options
 * are passed on (run's, which sweep accepts too). The fuzz target's dictionary is made from
 * cli_option_tables at build time. */

#include <getopt.h>

enum cli_opt {
    OPT_FIRST = 256,
    /* run (and sweep, which takes every run option) */
    OPT_LABEL,
    OPT_SEED,
    OPT_LOCAL,
    OPT_HELP,
    OPT_WARMUP,
    OPT_MAX_TRIES,
    OPT_TIMEOUT,
    OPT_TABLES,
    OPT_TABLE_SIZE,
    OPT_REPORT,
    OPT_WAREHOUSES,
    OPT_MIX,
    OPT_KEYING_THINKING,
    OPT_PROCEDURES,
    OPT_SHOW_SCRIPT,
    OPT_LOG_PREFIX,
    OPT_SAMPLING_RATE,
    OPT_AGGREGATE_INTERVAL,
    OPT_FAILURES_DETAILED,
    OPT_PROGRESS_TIMESTAMP,
    OPT_AGENTS,
    OPT_AGENT_INDEX,
    OPT_RUN_ID,
    OPT_COORD,
    OPT_MERGED,
    OPT_AGENT_WAIT,
    OPT_SAMPLE_MS,
    OPT_NO_SAMPLING,
    /* sweep */
    OPT_SETUP,
    OPT_SET,
    OPT_TRIALS,
    OPT_FORCE,
    OPT_INIT,
    OPT_MAX_RATE,
    OPT_SLO,
    OPT_JSON,
    /* init */
    OPT_PARTITIONS,
    OPT_PARTITION_METHOD,
    OPT_FOREIGN_KEYS,
    OPT_UNLOGGED,
    OPT_TABLESPACE,
    OPT_INDEX_TABLESPACE,
    /* compare, report, check, show, local */
    OPT_CSV,
    OPT_INTERVALS,
    OPT_SUMMARY,
    OPT_DIR,
    OPT_FAIL_IF_WORSE,
    OPT_MARGIN,
    OPT_TITLE,
    OPT_ALL,
    /* run -w ch */
    OPT_ANALYTIC_CLIENTS,
    OPT_QUERIES,
    /* run --meta */
    OPT_META,
    /* store, history; run --store */
    OPT_STORE,
    OPT_INTO,
    OPT_WHERE,
    OPT_BY,
    OPT_ORDER,
    OPT_METRIC,
    OPT_MIN_EFFECT,
    OPT_FAIL_IF_REGRESSED,
    OPT_ACCEPT,
    OPT_HISTORY,
    /* replay prepare, show, capture */
    OPT_FROM,
    OPT_TO,
    OPT_DATABASE,
    OPT_USER,
    OPT_PREFIX,
    OPT_FORMAT,
    OPT_SECONDS,
    OPT_TOP,
    OPT_EVENTS,
    /* sweep --compare, compare --by, --no-statements */
    OPT_SWEEP_COMPARE,
    OPT_COMPARE_BY,
    OPT_NO_STATEMENTS,
    /* replay run */
    OPT_SPEED,
    OPT_MAP_DB,
    OPT_MAP_USER,
    OPT_RESET_FROM,
    OPT_READ_ONLY,
    /* sweep --replay */
    OPT_REPLAY,
};

/* run's options (NULL-terminated) and short options. */
extern const struct option cli_run_options[];
extern const char cli_run_shortopts[];

/* Each command's table (NULL-terminated), in its command's file. */
extern const struct option cli_init_options[], cli_check_options[], cli_compare_options[],
    cli_local_options[], cli_merge_options[], cli_recover_options[], cli_report_options[],
    cli_show_options[], cli_sweep_options[];
extern const struct option cli_store_options[], cli_history_options[];
extern const struct option cli_replay_prepare_options[], cli_replay_show_options[],
    cli_replay_capture_options[];
extern const struct option cli_replay_run_options[];

/* Every command's table, by command (NULL-terminated): for the fuzz dictionary. */
struct cli_option_table {
    const char *command;
    const struct option *options;
};
extern const struct cli_option_table cli_option_tables[];

#endif
