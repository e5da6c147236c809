#ifndef PGARENA_WORKLOAD_SCRIPT_H
#define PGARENA_WORKLOAD_SCRIPT_H

#include <stdint.h>

#include "base/err.h"
#include "base/rng.h"

/*
 * Transaction scripts in pgbench's language: SQL commands with :variables and meta-commands.
 * This is the compiled form the engine runs; the parser fills it from script text.
 *
 * Supported so far: SQL commands (several per line, multi-line, ';'-terminated), :var
 * substitution (`::` is a cast, not a variable), and `\set VAR EXPR` where EXPR has integer
 * constants, :variables, + - * / %, unary minus, parentheses and random(lo, hi).
 *
 * Ownership: a struct script_set owns its scripts, commands and strings (script_set_free).
 * Per-client state (struct script_vars) is owned by the client.
 */

/* Variables are numbered once per script set, so clients keep values in a flat array. */
#define SCRIPT_VAR_SCALE     0
#define SCRIPT_VAR_CLIENT_ID 1

struct expr;

/* One piece of an SQL command: literal text, then optionally a variable reference. */
struct sql_part {
    char *text;
    int var; /* -1: no variable after this text */
};

enum cmd_kind {
    CMD_SQL, /* send sql to the server */
    CMD_SET, /* \set var expr */
};

struct command {
    enum cmd_kind kind;
    int line;   /* 1-based line in the script, for messages and statement stats */
    char *text; /* the command as written (trimmed), for reports */
    /* CMD_SQL */
    int n_parts;
    struct sql_part *parts; /* for simple mode: text with values substituted */
    char *sql_params;       /* for extended/prepared mode: :var replaced by $1, $2 ... */
    char *stmt_name;        /* prepared mode: "P<script>_<command>", unique in the set */
    int n_params;
    int *param_vars; /* variable of each $n */
    /* CMD_SET */
    int var;
    struct expr *expr;
};

struct script {
    char *name;   /* "builtin: tpcb-like" or the file name */
    char *source; /* the full text, kept for the result file */
    int weight;
    int n_cmds;
    struct command *cmds;
};

struct script_set {
    int n_scripts;
    struct script *scripts;
    int total_weight;
    int n_vars;
    char **var_names; /* var_names[SCRIPT_VAR_SCALE] == "scale" ... */
};

/* Per-client variable values. */
struct script_vars {
    int n;
    int64_t *value;
    unsigned char *is_set;
};

void script_set_init(struct script_set *s);
void script_set_free(struct script_set *s);

/* Parse `text` (named `name` in messages) and add it with `weight`. On a syntax error returns
 * -1 with e set to ERR_INPUT and "NAME:LINE:COL: message". */
int script_set_add(struct script_set *s, const char *name, const char *text, int weight,
                   struct err *e);

/* Index of variable `name`, creating it if absent. */
int script_var_index(struct script_set *s, const char *name);

void script_vars_init(struct script_vars *v, const struct script_set *s);
void script_vars_free(struct script_vars *v);
void script_vars_set(struct script_vars *v, int var, int64_t value);

/* Pick a script by weight. */
const struct script *script_choose(const struct script_set *s, struct rng *r);

/* Run a \set: evaluate and store. -1 with msg (runtime error: undefined variable, division by
 * zero, overflow) on failure. */
int script_exec_set(const struct script_set *s, const struct command *c, struct script_vars *v,
                    struct rng *r, char *msg, unsigned long msg_size);

/* Text value of variable var into out (>= 24 bytes); -1 when it is not set. */
int script_var_text(const struct script_vars *v, int var, char *out, unsigned long out_size);

#endif
