/* libFuzzer target: the script parser and expression evaluator must never crash, leak or
 * misbehave on any input; a script either parses or is refused with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "script/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct script_set set;
    struct err e = {0};
    script_set_init(&set);
    if (script_set_add(&set, "fuzz.sql", text, 1, &e) == 0) {
        /* Evaluate every expression once, with every variable set to 3. */
        struct script_vars vars;
        struct rng rng;
        rng_seed(&rng, 1);
        script_vars_init(&vars, &set);
        for (int v = 0; v < set.n_vars; v++)
            script_vars_set(&vars, v, 3);
        const struct script *sc = &set.scripts[0];
        for (int i = 0; i < sc->n_cmds; i++) {
            const struct script_command *c = &sc->cmds[i];
            if (c->kind != CMD_SET && c->kind != CMD_IF && c->kind != CMD_ELIF)
                continue;
            struct value out;
            char msg[256];
            if (script_eval(&set, c, &vars, &rng, &out, msg, sizeof msg) == 0 && c->kind == CMD_SET)
                script_vars_set_value(&vars, c->var, out);
        }
        script_vars_free(&vars);
    } else if (e.code != ERR_INPUT || strncmp(e.msg, "fuzz.sql:", 9) != 0) {
        abort(); /* every refusal names the file and position */
    }
    script_set_free(&set);
    free(text);
    return 0;
}
