/* A workload's own run options (issue 35): declared by the workload, checked as they are given,
 * parsed into its own struct by bench_plan_check, carried opaque by the plan (copied with it),
 * refused to the workloads that do not take them; `replay run CAPTURE` and
 * `run -w replay --capture CAPTURE` make the same plan. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "cli/run_opts.h"
#include "workload/replay/replay.h"
#include "workload/tpcc/tpcc.h"

/* `run WORDS dbname=x` parsed and checked into o: its return; e holds the refusal. */
static int parse_run(const char *words, struct cli_run_opts *o, char **store, struct err *e)
{
    char *argv[64];
    int argc = 0;
    *store = strdup(words);
    argv[argc++] = "run";
    for (char *w = strtok(*store, " "); w && argc < 62; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc++] = "dbname=x";
    argv[argc] = NULL;
    cli_run_opts_init(o);
    optind = 0;
    *e = (struct err){0};
    return cli_run_parse_argv(argc, argv, o, e);
}

/* Whether command cmd has a row (OPT or USE) of the option named `name`. */
static int has_row(enum cli_cmd cmd, const char *name)
{
    for (size_t k = 0; k < cli_n_opt_defs; k++) {
        if (cli_opt_defs[k].alias || strcmp(cli_opt_defs[k].name, name) != 0)
            continue;
        for (size_t i = 0; i < cli_n_opt_uses; i++)
            if (cli_opt_uses[i].code == cli_opt_defs[k].code &&
                (cli_opt_uses[i].cmds & (1u << cmd)))
                return 1;
    }
    return 0;
}

/* Every name of groups is a row of command cmd (cli/options.def and the workloads' options.def
 * it includes): their count, failing on one that is not. */
static int declared_in(const struct workload *w, const struct workload_option_group *const *groups,
                       enum cli_cmd cmd, const char *cmd_name)
{
    int n = 0;
    for (const struct workload_option_group *const *g = groups; g && *g; g++)
        for (const char *const *name = (*g)->names; *name; name++) {
            if (!has_row(cmd, *name))
                fail_msg("-w %s declares --%s, which has no row of %s", w->name, *name, cmd_name);
            n++;
        }
    return n;
}

/* Every option a workload declares is one of run's or init's (options.def), so that it can be
 * given. */
static void test_declared_options_are_run_options(void **state)
{
    (void)state;
    int n = 0, n_init = 0;
    for (const struct workload *const *w = workload_all(); *w; w++) {
        n += declared_in(*w, (*w)->options, CLI_RUN, "run");
        n_init += declared_in(*w, (*w)->init_options, CLI_INIT, "init");
    }
    assert_true(n >= 13);      /* tpcc's 4 (twice: ch takes them), ch's 2, replay's 7 */
    assert_true(n_init >= 42); /* pgbench's 10 (its 3), sysbench's 2 (its 4), tpcc's 2 (and ch's) */
}

/* The rows of the workloads' folders (build/gen/workload_options.def gathers them), each part's
 * as cli/options.def includes it; a folder's name starts its rows. */
enum part { PART_INIT, PART_RUN, PART_COMMANDS };
struct folder_row {
    const char *folder; /* a folder's first entry: its name, no row */
    int code;
    unsigned cmds;
    enum part part;
};
#define WORKLOAD_FOLDER(name)                      {name, 0, 0, 0},
#define OPT(id, name, sh, arg, metavar, cmds, ...) {NULL, OPT_##id, cmds, PART},
#define USE(id, cmds, ...)                         {NULL, OPT_##id, cmds, PART},
static const struct folder_row folder_rows[] = {
#define PART PART_INIT
#define WORKLOAD_OPTIONS_INIT
#include "workload_options.def"
#undef WORKLOAD_OPTIONS_INIT
#undef PART
#define PART PART_RUN
#define WORKLOAD_OPTIONS_RUN
#include "workload_options.def"
#undef WORKLOAD_OPTIONS_RUN
#undef PART
#define PART PART_COMMANDS
#define WORKLOAD_OPTIONS_COMMANDS
#include "workload_options.def"
#undef WORKLOAD_OPTIONS_COMMANDS
#undef PART
};
#undef WORKLOAD_FOLDER
#undef OPT
#undef USE

/* Whether a workload's group (its init groups, or its run groups) has the option. */
static int some_group_has(const char *name, int at_init)
{
    for (const struct workload *const *w = workload_all(); *w; w++)
        for (const struct workload_option_group *const *g = at_init ? (*w)->init_options
                                                                    : (*w)->options;
             g && *g; g++)
            for (const char *const *n = (*g)->names; *n; n++)
                if (strcmp(*n, name) == 0)
                    return 1;
    return 0;
}

/* Every row in a workload's folder is an option of a workload's group (else every workload
 * refuses it), in the part of its command (else --help lists it among another command's):
 * init's rows in init's groups, run's in run's, the other commands' (replay run's, sweep's)
 * options of run's groups too. */
static void test_folder_rows_are_in_groups(void **state)
{
    (void)state;
    const char *folder = NULL;
    int n = 0, folders = 0;
    for (size_t i = 0; i < sizeof folder_rows / sizeof folder_rows[0]; i++) {
        const struct folder_row *r = &folder_rows[i];
        if (r->folder) {
            folder = r->folder;
            folders++;
            continue;
        }
        const char *name = cli_opt_find(r->code)->name;
        unsigned in_part = r->part == PART_INIT  ? (r->cmds & C_INIT) && !(r->cmds & C_RUN)
                           : r->part == PART_RUN ? (r->cmds & C_RUN) && !(r->cmds & C_INIT)
                                                 : !(r->cmds & (C_INIT | C_RUN));
        if (!in_part)
            fail_msg("%s/options.def: --%s's row is in part %d, not its command's", folder, name,
                     (int)r->part);
        if (!some_group_has(name, r->part == PART_INIT))
            fail_msg("%s/options.def: --%s is in no workload's %s group", folder, name,
                     r->part == PART_INIT ? "init" : "run");
        n++;
    }
    assert_int_equal(folders / 3, 5); /* ch, pgbench, replay, sysbench, tpcc; once per part */
    assert_true(n >= 37);
}

/* init's: a value is checked as it is given, by the first workload that takes the option;
 * init's own options (-j) are no workload's. */
static void test_init_values_checked_as_given(void **state)
{
    (void)state;
    struct err e = {0};
    assert_int_equal(workload_init_option_check("fillfactor", "5", &e), -1);
    assert_string_equal(e.msg, "invalid value for -F: '5' (expected an integer from 10 to 100)");
    assert_int_equal(workload_init_option_check("tables", "3", &e), 1);
    assert_int_equal(workload_init_option_check("warehouses", "0", &e), -1);
    assert_int_equal(workload_init_option_check("jobs", "2", &e), 0);
}

/* A value is checked when the option is given, by the workload that takes it, before -w is
 * known; an option no workload takes is not one. */
static void test_values_checked_as_given(void **state)
{
    (void)state;
    struct err e = {0};
    assert_int_equal(workload_option_check("warehouses", "0", &e), -1);
    assert_string_equal(e.msg, "invalid value for --warehouses: '0' (expected an integer from 1 "
                               "to 100000)");
    assert_int_equal(workload_option_check("mix", "50,50", &e), -1);
    assert_non_null(strstr(e.msg, "invalid value for --mix"));
    assert_int_equal(workload_option_check("speed", "max", &e), 1);
    assert_int_equal(workload_option_check("map-db", "a", &e), -1);
    assert_non_null(strstr(e.msg, "expected FROM=TO"));
    assert_int_equal(workload_option_check("scale", "3", &e), 0);
}

/* The refusals keep their words; an option is refused to a workload that does not take it. */
static void test_foreign_options_refused(void **state)
{
    (void)state;
    static const struct {
        const char *words, *msg;
    } cases[] = {
        {"--mix 45,43,4,4,4", "run: --warehouses, --mix, --keying-thinking and --procedures are "
                              "for -w tpcc"},
        {"-w tpcc --analytic-clients 1", "run: --analytic-clients and --queries are for -w ch"},
        {"-w oltp-read-only --capture c.pgc",
         "run: --capture, --speed, --order, --map-db, --map-user, --session-set, --reset-from, "
         "--read-only, --force and --copy-from are for -w replay"},
        {"-w replay --capture c.pgc --procedures",
         "run: --warehouses, --mix, --keying-thinking and --procedures are for -w tpcc"},
        {"-w replay --speed 2", "run: -w replay needs --capture CAPTURE (or: pgarena replay run "
                                "CAPTURE)"},
        {"-w replay --capture c.pgc -c 2", "run: -w replay takes its clients, pace and length "
                                           "from its input (no -c, -R, -t or -T)"},
        {"-w replay --capture c.pgc --reset-from t --local",
         "run: --reset-from needs the template on the target, not a fresh --local server"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cli_run_opts o;
        struct err e;
        char *store;
        int rc = parse_run(cases[i].words, &o, &store, &e);
        if (rc != -1 || e.code != ERR_INPUT || strcmp(e.msg, cases[i].msg) != 0)
            fail_msg("run %s: rc %d, '%s'", cases[i].words, rc, e.msg);
        pg_connopts_free(&o.plan.conn);
        free(store);
    }
}

/* -w ch takes TPC-C's options and its own: parsed into its struct, what bench needs back in
 * generic fields (the streams, the warehouses a load takes). */
static void test_ch_options_parsed(void **state)
{
    (void)state;
    struct cli_run_opts o;
    struct err e;
    char *store;
    assert_int_equal(
        parse_run("-w ch --warehouses 3 --analytic-clients 2 --mix 40,44,4,4,8", &o, &store, &e),
        0);
    assert_int_equal(o.plan.stream_clients, 2);
    assert_int_equal(o.plan.protocol, PROTO_PREPARED); /* TPC-C's default */
    const struct tpcc_opts *t = (const struct tpcc_opts *)o.plan.wopts.bytes;
    assert_int_equal(t->warehouses, 3);
    assert_int_equal(t->mix[0], 40);
    assert_int_equal(t->mix[4], 8);
    struct load_options lo;
    struct workload_opts load_opts;
    bench_plan_load_options(&o.plan, 0, &lo, &load_opts);
    assert_int_equal(((const struct tpcc_init_opts *)lo.opts)->warehouses, 3);
    pg_connopts_free(&o.plan.conn);
    free(store);
    /* tpcc without --mix: the spec's */
    assert_int_equal(parse_run("-w tpcc", &o, &store, &e), 0);
    t = (const struct tpcc_opts *)o.plan.wopts.bytes;
    assert_memory_equal(t->mix, tpcc_default_mix, sizeof t->mix);
    assert_int_equal(o.plan.stream_clients, 0);
    pg_connopts_free(&o.plan.conn);
    free(store);
}

/* The plan's copy is the workload's options' copy: a sweep cell's --speed changes its plan
 * only. */
static void test_replay_options_copied_with_the_plan(void **state)
{
    (void)state;
    struct cli_run_opts o;
    struct err e;
    char *store;
    assert_int_equal(parse_run("-w replay --capture c.pgc --map-db a=b --map-user u=v --read-only "
                               "--speed 2",
                               &o, &store, &e),
                     0);
    const struct replay_opts *r = (const struct replay_opts *)o.plan.wopts.bytes;
    assert_string_equal(r->capture, "c.pgc");
    assert_true(r->speed == 2);
    assert_int_equal(r->n_map_db, 1);
    assert_int_equal((int)r->map_db[0].from_len, 1);
    assert_string_equal(r->map_db[0].to, "b");
    assert_string_equal(r->map_user[0].to, "v");
    assert_int_equal(r->read_only, 1);
    assert_int_equal(o.plan.duration_s, 0); /* its length is the capture's */
    struct bench_plan cell = o.plan;
    assert_int_equal(bench_plan_set_option(&cell, "speed", "max", &e), 0);
    assert_true(((const struct replay_opts *)cell.wopts.bytes)->speed == 0);
    assert_true(r->speed == 2);
    pg_connopts_free(&o.plan.conn);
    free(store);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_declared_options_are_run_options),
        cmocka_unit_test(test_folder_rows_are_in_groups),
        cmocka_unit_test(test_values_checked_as_given),
        cmocka_unit_test(test_init_values_checked_as_given),
        cmocka_unit_test(test_foreign_options_refused),
        cmocka_unit_test(test_ch_options_parsed),
        cmocka_unit_test(test_replay_options_copied_with_the_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
