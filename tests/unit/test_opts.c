/* The one option table (cli/options.def, cli/commands.def) and what is made from it: each
 * command's getopt_long table, short options and --help. An option added to the table must
 * not collide with one its commands already take, and must show in their --help. */
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

static int is_alias(const char *name)
{
    for (size_t k = 0; k < cli_n_opt_defs; k++)
        if (cli_opt_defs[k].alias && strcmp(cli_opt_defs[k].name, name) == 0)
            return 1;
    return 0;
}

/* No command takes one long name, or one short option, twice; each short option in the
 * short-option string is an option of the table, with its argument; two names of one option
 * are an option and its alias. */
static void test_no_command_takes_a_name_twice(void **state)
{
    (void)state;
    for (int c = 0; c < CLI_N_CMDS; c++) {
        const char *shorts;
        const struct option *t = cli_getopt_table((enum cli_cmd)c, &shorts);
        assert_int_equal(shorts[0], ':');
        for (const struct option *a = t; a->name; a++)
            for (const struct option *b = a + 1; b->name; b++) {
                if (strcmp(a->name, b->name) == 0)
                    fail_msg("%s takes --%s twice", cli_cmds[c].name, a->name);
                if (a->val == b->val && !is_alias(a->name) && !is_alias(b->name))
                    fail_msg("%s: --%s and --%s are one option", cli_cmds[c].name, a->name,
                             b->name);
            }
        for (const char *p = shorts + 1; *p; p++) {
            if (*p == ':')
                continue;
            const struct option *o = t;
            while (o->name && o->val != *p)
                o++;
            if (!o->name)
                fail_msg("%s: -%c is in its short options but not its table", cli_cmds[c].name, *p);
            assert_int_equal(p[1] == ':', o->has_arg == required_argument);
        }
    }
}

/* Every option a command lists (aliases aside) is in its --help, by its long name and its
 * short form; and every use names an option of the table. */
static void test_help_lists_every_option(void **state)
{
    (void)state;
    for (size_t i = 0; i < cli_n_opt_uses; i++)
        assert_non_null(cli_opt_find(cli_opt_uses[i].code));
    for (int c = 0; c < CLI_N_CMDS; c++) {
        if (c == CLI_REPLAY)
            continue;
        char *help = cli_help_string((enum cli_cmd)c);
        for (size_t i = 0; i < cli_n_opt_uses; i++) {
            if (!(cli_opt_uses[i].cmds & (1u << c)))
                continue;
            const struct cli_opt_def *d = cli_opt_find(cli_opt_uses[i].code);
            char flag[64];
            snprintf(flag, sizeof flag, "--%s", d->name);
            if (!strstr(help, flag))
                fail_msg("%s --help misses %s", cli_cmds[c].name, flag);
            snprintf(flag, sizeof flag, "-%c, --%s", d->short_name, d->name);
            if (d->short_name && !strstr(help, flag))
                fail_msg("%s --help misses %s", cli_cmds[c].name, flag);
        }
        free(help);
    }
}

/* getopt_long returns an option's short form when it has one, else its code. */
static void test_codes(void **state)
{
    (void)state;
    const struct option *t = cli_getopt_table(CLI_RUN, NULL);
    int seen = 0;
    for (; t->name; t++) {
        if (strcmp(t->name, "workload") == 0)
            assert_int_equal(t->val, 'w'), seen++;
        if (strcmp(t->name, "warmup") == 0)
            assert_int_equal(t->val, OPT_WARMUP), seen++;
        if (strcmp(t->name, "random-seed") == 0)
            assert_int_equal(t->val, OPT_SEED), seen++;
    }
    assert_int_equal(seen, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_command_takes_a_name_twice),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
