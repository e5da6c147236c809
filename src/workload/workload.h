#ifndef PGARENA_WORKLOAD_WORKLOAD_H
#define PGARENA_WORKLOAD_WORKLOAD_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "engine/feed.h"
#include "pg/pg.h"
#include "result/result.h"
#include "script/script.h"
#include "workload/load/load.h"

/*
 * The table of workloads: one entry each, with the operations that know its tables: parse
 * and check the options given for it, detect its tables on a server, give its scripts, load
 * it, check its data, add its figures to a result (its own section: result/part.h) and print
 * them. An entry lives in its workload's folder (workload/NAME/); workloads.def lists them,
 * one line each. Adding a workload touches its folder and that one line
 * (examples/workload/kv/ shows one).
 * Ownership: the entries are static data; generated text is the caller's to free; the
 * per-run state a workload allocates in detect is freed by its free_state.
 */

/* A workload's own run options (its struct, in its folder): opaque to bench/, plain data
 * (copying a plan copies them; the strings point into argv). */
#define WORKLOAD_OPTS_SIZE 2048
struct workload_opts {
    alignas(max_align_t) unsigned char bytes[WORKLOAD_OPTS_SIZE];
};

/* A run or init option as given: its long name (as options.def spells it) and its value
 * (NULL: a flag). */
struct workload_option {
    const char *name, *arg;
};

/* Options a workload takes, and whose they are: the refusal when another workload is given
 * one is made from both ("--a, --b and --c are for WHOSE", after "run: " or "init: "). An
 * option only the workload takes is a row of its folder's options.def, named here by its
 * option_ID (workload/option_names.h); a shared one by its name (cli/options.def's row). */
struct workload_option_group {
    const char *const *names; /* long names, NULL-terminated */
    const char *whose;        /* "-w tpcc" */
};

/* An axis a sweep varies for a workload (sweep --NAME LIST): one of its own run options, set
 * in each cell's plan to the cell's value. Values are numbers in [lo, hi], and `top` (when
 * not NULL) names the one past them ("max"); a list that is neither is refused "(expected
 * <expected>)". */
struct workload_sweep_axis {
    const char *name; /* the option's long name, as options.def spells it */
    double lo, hi;
    const char *top;
    const char *expected;
};

/* What run gives a workload, and what the workload fills in (plain data). */
struct workload_params {
    const struct pg_connopts *conn;
    const char *name; /* the run's workload name, for messages ("custom": several) */
    int64_t scale;    /* 0: detected */
    int64_t seed, warmup_s;
    void *opts;  /* its own options (struct workload_opts), the run's copy */
    void *state; /* the workload's own, from detect to free_state */
    /* Out, from detect: the last stream_scripts of the scripts are analytic streams, run by
     * the plan's stream_clients besides -c (engine_config's stream_*); 0: none. */
    int stream_scripts;
    int sleep_is_terminal_time; /* out: engine_config's */
    int64_t clients; /* out: the clients the workload runs (from its input), 0: the plan's */
    int64_t threads; /* the plan's -j (a workload with a feed spreads it over them) */
    /* Out, from detect: the dataset's sizes besides scale (its forms are the workload's
     * sizes), for the result. */
    size_t n_sizes;
    struct result_size sizes[RESULT_MAX_SIZES];
};

/* run's options as a workload checks them (bench_plan_check). */
struct workload_run_opts {
    int64_t scale;
    void *opts; /* its own, parsed */
    int local;  /* run --local: a fresh server */
    /* Out: the defaults the workload wants when -M and --max-tries are not given. */
    int prepared;           /* 1: -M prepared */
    int64_t max_tries;      /* 0: run's default */
    int64_t stream_clients; /* out: clients it runs besides -c (analytic streams) */
};

/* init's options about the dataset, as given (-s among them), and whether -f runs an init
 * script instead of the workload's loader. */
struct workload_init_given {
    const struct workload_option *opt;
    int n;
    int script;
};

struct workload {
    const char *name;        /* as given to -w / -b */
    const char *description; /* one line for --help and -b list */
    int dataset;             /* the tables it runs on (workload_int.h); for workload/ only */
    const char *script;   /* pgbench script text; NULL for those made once the tables are known */
    const char *why_no_b; /* script NULL: why -b NAME is refused */
    int sysbench;         /* SB_* groups of a sysbench workload (workload_int.h) */

    /* The operations; NULL where there is nothing to do. ERR_INPUT for what the user must
     * change, messages beginning "run: " or "init: ". */
    /* run's options: the refusals and the defaults. */
    int (*check_run)(const struct workload *w, struct workload_run_opts *o, struct err *e);
    /* init's options, as given, before they are parsed: the refusals in its own words (what
     * its dataset takes instead). Options it does not take and does not refuse here are
     * refused in their group's words. */
    int (*check_init)(const struct workload *w, const struct workload_init_given *g, struct err *e);
    /* Its own init options, as options below: the groups it takes, its defaults into opts (a
     * struct workload_opts: load_options' opts) and one as given into opts. */
    const struct workload_option_group *const *init_options;
    void (*init_options_init)(void *opts);
    int (*init_option)(void *opts, const char *name, const char *arg, struct err *e);
    /* Before the run, on the setup connection c: the tables (ERR_INPUT naming what is
     * missing), the sizes p does not give, and the state the run needs. */
    int (*detect)(const struct workload *w, struct pg_conn *c, struct workload_params *p,
                  struct err *e);
    /* Before the run's first connection, when its own connections (setup, environment,
     * sampling) need a database CONN does not name: conn's new dbname (a conninfo or a name,
     * caller frees), or NULL to leave conn as it is. */
    char *(*own_dbname)(const struct workload *w, const struct pg_connopts *conn, const void *opts);
    /* The scripts made from the tables, once detect has run. */
    int (*scripts)(const struct workload *w, const struct workload_params *p, struct script_set *s,
                   struct err *e);
    /* --show-script's text when script is NULL (caller frees). */
    char *(*show_script)(const struct workload *w);
    /* The loader (workload/load/load.h). */
    int (*load)(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);
    /* init was interrupted while loading: e says which tables are incomplete. */
    void (*interrupted)(const struct load_options *opt, struct err *e);
    /* pgarena check: 0 when the data's conditions hold (report: the line to print), 1 when
     * one fails (report: which), -1 with e. */
    int (*check)(const struct pg_connopts *conn, int all, int jobs, char *report,
                 size_t report_size, struct err *e);
    /* At the start of the measured part, after a warmup. */
    void (*measure_start)(const struct workload *w, struct workload_params *p);
    /* After the run: the workload's figures into r. */
    void (*result)(const struct workload *w, const struct workload_params *p, struct result *r);
    /* Free p->state. */
    void (*free_state)(const struct workload *w, struct workload_params *p);
    /* Its input sets its clients, pace and length (a capture's sessions): -c, -R, -t and -T
     * are refused, and -T has no default. */
    int paced_by_input;
    /* After detect: the feed the engine runs instead of the scripts (its input's statements), or
     * NULL. */
    const struct engine_feed *(*feed)(const struct workload *w, struct workload_params *p);
    /* While the run goes on (the run's main thread, workers running): the figures `result`
     * gives, as they stand (r->summary.duration_s: the run's time so far), for the journal
     * to carry them to recover. NULL: the workload has none of its own. */
    void (*snapshot)(const struct workload *w, const struct workload_params *p, struct result *r);
    /* Its own section of the result file (result/part.h), or NULL; several workloads may share
     * one. */
    const struct result_part_ops *part;
    /* Its own run options: the groups it takes (NULL-terminated; NULL: none), its defaults
     * into opts (a struct workload_opts), and one option as given into opts (-1 with e for a
     * bad value: "invalid value for --NAME: ..."). */
    const struct workload_option_group *const *options;
    void (*options_init)(void *opts);
    int (*option)(void *opts, const char *name, const char *arg, struct err *e);
    /* A run option of another workload's given to this one: -1 with e to refuse it in this
     * one's words (what its dataset takes instead), 0 to leave it to the option's group's
     * refusal. NULL: the group's. */
    int (*foreign_option)(const struct workload *w, const char *name, struct err *e);
    /* The forms of the sizes its detect gives (NULL-terminated; NULL: none). */
    const struct result_size_form *const *sizes;
    /* What its run options (opts) and -s (scale, 0: not given) give a load (run --local,
     * sweep --init): into init_opts, its init options at their defaults. */
    void (*load_sizes)(const void *opts, int64_t scale, void *init_opts);
    /* The axis a sweep varies in place of -c when the workload is paced by its input, or
     * NULL. */
    const struct workload_sweep_axis *sweep_axis;
};

/* The workload called `name`, or NULL. */
const struct workload *workload_find(const char *name);

/* Hand result/ every workload's section and size forms (result_parts_register,
 * result_sizes_register): once, at startup, before a result file is read. */
void workload_parts_register(void);

/* A run option as it is given, before -w is known: 0 when no workload takes `name`, 1 when
 * one does and arg is a value it takes, -1 with e (ERR_INPUT) when not. */
int workload_option_check(const char *name, const char *arg, struct err *e);

/* The options given, into w's own struct: one w does not take is refused (ERR_INPUT, "run:
 * ... are for -w NAME", or in w's words: its foreign_option, after the others' refusals and the
 * parse), then each parsed in the order given. */
int workload_options_parse(const struct workload *w, const struct workload_option *given, int n,
                           struct workload_opts *out, struct err *e);

/* init's: an option as it is given, before -w is known (as workload_option_check); and the
 * options given (g), checked (w's check_init, then the group's refusal of one w does not
 * take: ERR_INPUT "init: ...") and parsed into w's own struct. */
int workload_init_option_check(const char *name, const char *arg, struct err *e);
int workload_init_options_parse(const struct workload *w, const struct workload_init_given *g,
                                struct workload_opts *out, struct err *e);

/* The option called name among those given, or NULL; whether one of group's was given. */
const struct workload_option *workload_given(const struct workload_init_given *g, const char *name);
int workload_given_any(const struct workload_init_given *g,
                       const struct workload_option_group *group);

/* -s and --partitions as init takes them: ERR_INPUT "invalid value for -s: ..." (1 to
 * 1000000), "... --partitions ..." (0 to 100000). */
int workload_parse_scale(const char *arg, int *out, struct err *e);
int workload_parse_partitions(const char *arg, int *out, struct err *e);

/* All workloads, NULL-terminated. */
const struct workload *const *workload_all(void);

/* The built-in that `name` names as pgbench's -b does: the whole name, else a unique prefix
 * among pgbench's own three built-ins (so `-b t`, `-b si`, `-b se` mean what they mean to
 * pgbench), else a unique prefix among all. NULL when none or several match; *n_matches then
 * says which (0 unknown, more than 1 ambiguous). */
const struct workload *workload_by_prefix(const char *name, int *n_matches);

#endif
