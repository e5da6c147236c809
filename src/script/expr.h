#ifndef PGARENA_SCRIPT_EXPR_H
#define PGARENA_SCRIPT_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "script/funcs.h"
#include "script/value.h"

/*
 * pgbench's expression language (\set, \if, \elif): a tree parsed from text and evaluated per
 * client. Operators and functions are evaluated by funcs.c; AND, OR and CASE are lazy and
 * handled here. Private to workload/. Ownership: expr_free frees a whole tree.
 */

enum expr_kind { EX_CONST, EX_VAR, EX_FUNC, EX_AND, EX_OR, EX_CASE };

struct expr {
    enum expr_kind kind;
    struct value constant; /* EX_CONST */
    int var;               /* EX_VAR */
    enum func_id func;     /* EX_FUNC */
    int n_args;            /* EX_FUNC, EX_AND, EX_OR (2), EX_CASE (when, then, ..., else) */
    struct expr **args;
};

struct script_set;
struct script_vars;

/* Parse an expression from text (which ends at its NUL). Returns NULL with msg set and *err_at
 * the offset of the offending character. Variables are resolved through script_var_index. */
struct expr *expr_parse(const char *text, struct script_set *s, char *msg, size_t msg_size,
                        size_t *err_at);

/* Evaluate with a client's variables; -1 with msg on a runtime error. */
int expr_eval(const struct expr *x, const struct script_set *s, const struct script_vars *vars,
              struct rng *r, struct value *out, char *msg, size_t msg_size);

void expr_free(struct expr *x);

#endif
