#ifndef PGARENA_WORKLOAD_EXPR_H
#define PGARENA_WORKLOAD_EXPR_H

#include <stdint.h>

#include "base/rng.h"

/* \set expressions: a tree parsed from text, evaluated per client. Private to workload/.
 * Ownership: expr_free frees a whole tree. */

enum expr_kind { EX_INT, EX_VAR, EX_NEG, EX_ADD, EX_SUB, EX_MUL, EX_DIV, EX_MOD, EX_RANDOM };

struct expr {
    enum expr_kind kind;
    int64_t ival;       /* EX_INT */
    int var;            /* EX_VAR */
    struct expr *a, *b; /* operands; EX_RANDOM: lo, hi */
};

struct script_set;

/* Parse an expression starting at *p (advanced past it). Returns NULL with a message and the
 * offending position in *p on error. Variables are resolved through script_var_index. */
struct expr *expr_parse(const char **p, struct script_set *s, char *msg, unsigned long msg_size);

/* Evaluate with the client's variable values; -1 with msg on a runtime error. */
int expr_eval(const struct expr *x, const int64_t *vals, const unsigned char *is_set,
              char *const *var_names, struct rng *r, int64_t *out, char *msg,
              unsigned long msg_size);

void expr_free(struct expr *x);

#endif
