#ifndef PGARENA_SCRIPT_SCRIPT_H
#define PGARENA_SCRIPT_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/rng.h"
#include "script/value.h"

/*
 * Transaction scripts in pgbench's language, compiled into the commands the engine runs:
 * SQL (several per line, multi-line, ';'-terminated, `\;` joining a compound command) with
 * :variables (`::` is a cast), and the meta-commands \set, \sleep, \gset, \aset, \if, \elif,
 * \else, \endif, \startpipeline, \syncpipeline and \endpipeline. \shell and \setshell are refused.
 *
 * Ownership: a struct script_set owns its scripts, commands and strings (script_set_free).
 * Per-client state (struct script_vars) is owned by the client and owns its texts.
 */

/* Variables are numbered once per script set, so clients keep values in a flat array; these
 * four are predefined by script_set_init, at these indexes. */
#define SCRIPT_VAR_SCALE        0
#define SCRIPT_VAR_CLIENT_ID    1
#define SCRIPT_VAR_DEFAULT_SEED 2
#define SCRIPT_VAR_RANDOM_SEED  3

struct expr; /* a compiled expression (script/expr.h) */

/* One piece of an SQL command: literal text, then optionally a variable reference. */
struct sql_part {
    char *text;
    int var; /* -1: no variable after this text */
};

/* What a command does. */
enum cmd_kind {
    CMD_SQL,            /* send sql to the server */
    CMD_SET,            /* \set var expr */
    CMD_SLEEP,          /* \sleep N [us|ms|s] */
    CMD_IF,             /* \if expr */
    CMD_ELIF,           /* \elif expr */
    CMD_ELSE,           /* \else */
    CMD_ENDIF,          /* \endif */
    CMD_PIPELINE_START, /* \startpipeline */
    CMD_PIPELINE_END,   /* \endpipeline */
    CMD_PIPELINE_SYNC,  /* \syncpipeline: a sync inside the pipeline, which goes on */
};

/* What to keep of an SQL command's results. */
enum gset_kind {
    GSET_NONE,
    GSET_LAST, /* \gset: the last result must have one row; its columns become variables */
    GSET_ALL,  /* \aset: every result's columns (last row; none if no row) */
};

/* One command of a script, compiled. Which members are meaningful depends on kind. */
struct script_command {
    enum cmd_kind kind;
    int line;   /* 1-based line in the script, for messages and statement stats */
    char *text; /* the command as written (trimmed), for reports */
    /* CMD_SQL */
    int n_parts;
    struct sql_part *parts; /* for simple mode: text with values substituted */
    char *sql_params;       /* for extended/prepared mode: :var replaced by $1, $2 ... */
    int n_params;
    int *param_vars; /* variable of each $n */
    char *stmt_name; /* prepared mode: "P<script>_<command>", unique in the set */
    enum gset_kind gset;
    char *gset_prefix; /* "" when none */
    /* CMD_SET: var and expr; CMD_IF, CMD_ELIF: expr */
    int var;
    struct expr *expr;
    /* CMD_SLEEP: a constant or a variable, times unit_us */
    int64_t sleep_value;
    int sleep_var; /* -1: constant */
    int64_t sleep_unit_us;
    /* CMD_IF, CMD_ELIF, CMD_ELSE: the next \elif, \else or \endif of the same \if; and for
     * all four the index of that \endif */
    int next_branch;
    int endif;
};

/* One script of a set: its commands and its weight in the mix. */
struct script {
    char *name;   /* "builtin: tpcb-like" or the file name */
    char *source; /* the full text, kept for the result file */
    int weight;
    int n_cmds;
    struct script_command *cmds;
    int uses_pipeline;
};

/* -D NAME=VALUE: a variable and the text every client starts with in it. */
struct script_define {
    int var;
    char *text;
};

/* The scripts of a run and the variables they share (names numbered once for all). */
struct script_set {
    int n_scripts;
    struct script *scripts;
    int total_weight;
    int n_vars;
    char **var_names; /* var_names[SCRIPT_VAR_SCALE] == "scale" ... */
    int n_defines;    /* -D NAME=VALUE, set in every client */
    struct script_define *defines;
};

/* A client's variable: unset, a value (from \set), or a text (from \gset, \aset or -D, which
 * is read as a number when an expression uses it, as pgbench does). */
enum var_state { VAR_UNSET, VAR_VALUE, VAR_TEXT };

/* A client's variable: its state, and the value or text (owned) that goes with it. */
struct var_slot {
    enum var_state state;
    struct value value;
    char *text;
};

/* A client's variables, indexed like the set's var_names (n of them). */
struct script_vars {
    int n;
    struct var_slot *slot;
};

/* Make s an empty set with the four predefined variables (SCRIPT_VAR_*). */
void script_set_init(struct script_set *s);

/* Free every script, command, variable name and define of s; s is then invalid until
 * script_set_init. */
void script_set_free(struct script_set *s);

/* Parse `text` (named `name` in messages) and add it with `weight`. On a syntax error returns
 * -1 with e set to ERR_INPUT and "NAME:LINE:COL: message: the offending line". */
int script_set_add(struct script_set *s, const char *name, const char *text, int weight,
                   struct err *e);

/* -D NAME=VALUE: every client starts with NAME set to the text VALUE (copied; a second define
 * of the same NAME replaces the first). */
void script_set_define(struct script_set *s, const char *name, const char *text);

/* Whether prefix followed by name is a variable name pgbench accepts (a letter, '_' or a
 * non-ASCII byte first, then also digits): \gset and \aset refuse to store into others. */
int script_var_name_valid(const char *prefix, const char *name);

/* Index of variable `name` (copied into the set), creating it if absent. Clients made by
 * script_vars_init before a new variable was created do not have it. */
int script_var_index(struct script_set *s, const char *name);

/* A client's variables for set s: every one unset, except the -D defines, set as texts. */
void script_vars_init(struct script_vars *v, const struct script_set *s);

/* Free the texts and slots of v. */
void script_vars_free(struct script_vars *v);

/* Set variable var (an index of the set) to the integer value. */
void script_vars_set(struct script_vars *v, int var, int64_t value);

/* Set variable var to value, dropping any text it held. */
void script_vars_set_value(struct script_vars *v, int var, struct value value);

/* Set variable var to a copy of text (read as a number when an expression uses it). */
void script_vars_set_text(struct script_vars *v, int var, const char *text);

/* The value of a variable for an expression; -1 with msg when unset or not a number. */
int script_var_value(const struct script_vars *v, const struct script_set *s, int var,
                     struct value *out, char *msg, size_t msg_size);

/* The text a variable substitutes as into SQL: its own text, or its value formatted into buf.
 * NULL when the variable is unset. */
const char *script_var_sql(const struct script_vars *v, int var, char *buf, size_t buf_size);

/* Pick a script by weight, drawing one number from r. The set must hold a script. */
const struct script *script_choose(const struct script_set *s, struct rng *r);

/* Evaluate a \set, \if or \elif expression; -1 with msg on a runtime error (undefined
 * variable, division by zero, overflow...). */
int script_eval(const struct script_set *s, const struct script_command *c, struct script_vars *v,
                struct rng *r, struct value *out, char *msg, size_t msg_size);

/* Truth of an \if or \elif result as pgbench takes it: null and zero are false. Returns 0
 * (msg is unused: every value has a truth). */
int script_truth(const struct value *v, int *out, char *msg, size_t msg_size);

/* A script with \startpipeline cannot run with the simple protocol: -1 with e (ERR_INPUT). */
int script_set_check_protocol(const struct script_set *s, int simple_protocol, struct err *e);

#endif
