/* The commands' option tables and --help texts, made from cli/options.def. */
#include "cli/opts.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

const struct cli_cmd_def cli_cmds[CLI_N_CMDS] = {
#define CMD(id, name, brief, usage, about, footer) [CLI_##id] = {name, brief, usage, about, footer},
#include "cli/commands.def"
};

const struct cli_opt_def cli_opt_defs[] = {
#define OPT(id, name, sh, arg, ...) {OPT_##id, name, sh, arg, 0, 0},
#define ALIAS(id, cmds, name)       {OPT_##id, name, 0, -1, 1, cmds},
#include "cli/options.def"
};
const size_t cli_n_opt_defs = sizeof cli_opt_defs / sizeof cli_opt_defs[0];

const struct cli_opt_use cli_opt_uses[] = {
#define OPT(id, name, sh, arg, metavar, cmds, group, complete, help, text)                         \
    {OPT_##id, cmds, group, metavar, complete, help},
#define USE(id, cmds, group, metavar, complete, help, text)                                        \
    {OPT_##id, cmds, group, metavar, complete, help},
#include "cli/options.def"
};
const size_t cli_n_opt_uses = sizeof cli_opt_uses / sizeof cli_opt_uses[0];

const struct cli_opt_def *cli_opt_find(int code)
{
    for (size_t i = 0; i < cli_n_opt_defs; i++)
        if (cli_opt_defs[i].code == code && !cli_opt_defs[i].alias)
            return &cli_opt_defs[i];
    return NULL;
}

int cli_opt_val(const struct cli_opt_def *d)
{
    const struct cli_opt_def *o = d->alias ? cli_opt_find(d->code) : d;
    return o->short_name ? o->short_name : o->code;
}

int cli_cmd_takes_run(enum cli_cmd c)
{
    return c == CLI_SWEEP || c == CLI_CALIBRATE;
}

int cli_cmd_takes(enum cli_cmd c, const struct cli_opt_use *u)
{
    unsigned mask = 1u << c;
    if (cli_cmd_takes_run(c))
        mask |= C_RUN;
    return (u->cmds & mask) != 0;
}

#define MAX_OPTS 128
static struct option tables[CLI_N_CMDS][MAX_OPTS + 1];
static char shorts[CLI_N_CMDS][2 * MAX_OPTS + 2];
static int built[CLI_N_CMDS];

static void build(enum cli_cmd c)
{
    size_t n = 0, ns = 0;
    shorts[c][ns++] = ':';
    for (size_t i = 0; i < cli_n_opt_uses; i++) {
        const struct cli_opt_use *u = &cli_opt_uses[i];
        if (!cli_cmd_takes(c, u))
            continue;
        int seen = 0; /* an option used twice in a command (sweep's -c and run's) is one entry */
        for (size_t k = 0; k < i && !seen; k++)
            seen = cli_opt_uses[k].code == u->code && cli_cmd_takes(c, &cli_opt_uses[k]);
        if (seen)
            continue;
        const struct cli_opt_def *d = cli_opt_find(u->code);
        for (size_t k = 0; k < cli_n_opt_defs; k++) {
            if (cli_opt_defs[k].code != u->code || n == MAX_OPTS ||
                (cli_opt_defs[k].alias && !(cli_opt_defs[k].cmds & (1u << c)) &&
                 !(cli_cmd_takes_run(c) && (cli_opt_defs[k].cmds & C_RUN))))
                continue;
            tables[c][n++] =
                (struct option){cli_opt_defs[k].name, d->has_arg, NULL, cli_opt_val(d)};
        }
        if (d->short_name) {
            shorts[c][ns++] = d->short_name;
            if (d->has_arg == required_argument)
                shorts[c][ns++] = ':';
        }
    }
    tables[c][n] = (struct option){NULL, 0, NULL, 0};
    shorts[c][ns] = '\0';
    built[c] = 1;
}

const struct option *cli_getopt_table(enum cli_cmd c, const char **shortopts)
{
    if (!built[c])
        build(c);
    if (shortopts)
        *shortopts = shorts[c];
    return tables[c];
}

/* "  -x, --long METAVAR" and the help, its continuation lines under its first. */
static void print_option(FILE *f, const struct cli_opt_def *d, const struct cli_opt_use *u)
{
    char head[128];
    int n = snprintf(head, sizeof head, "  %s%c%s--%s%s%s", d->short_name ? "-" : " ",
                     d->short_name ? d->short_name : ' ', d->short_name ? ", " : "  ", d->name,
                     *u->metavar ? " " : "", u->metavar);
    fprintf(f, "%s%*s", head, n < 22 ? 24 - n : 2, "");
    for (const char *p = u->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%24s", "");
    }
    fputc('\n', f);
}

void cli_help(enum cli_cmd c, FILE *f)
{
    const struct cli_cmd_def *cmd = &cli_cmds[c];
    unsigned mask = 1u << c;
    fputs(cmd->usage, f);
    if (*cmd->about)
        fprintf(f, "\n%s", cmd->about);
    /* the groups in the order of their first option */
    const char *groups[32];
    size_t n_groups = 0;
    for (size_t i = 0; i < cli_n_opt_uses; i++) {
        if (!(cli_opt_uses[i].cmds & mask))
            continue;
        size_t g = 0;
        while (g < n_groups && strcmp(groups[g], cli_opt_uses[i].group) != 0)
            g++;
        if (g == n_groups && n_groups < sizeof groups / sizeof groups[0])
            groups[n_groups++] = cli_opt_uses[i].group;
    }
    for (size_t g = 0; g < n_groups; g++) {
        fprintf(f, *groups[g] ? "\n%s:\n" : "\n", groups[g]);
        for (size_t i = 0; i < cli_n_opt_uses; i++)
            if ((cli_opt_uses[i].cmds & mask) && strcmp(cli_opt_uses[i].group, groups[g]) == 0)
                print_option(f, cli_opt_find(cli_opt_uses[i].code), &cli_opt_uses[i]);
    }
    if (*cmd->footer)
        fprintf(f, "\n%s", cmd->footer);
}

char *cli_help_string(enum cli_cmd c)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f)
        return xstrdup("");
    cli_help(c, f);
    fclose(f);
    return s;
}

void cli_options_dump(FILE *f)
{
    for (int c = 0; c < CLI_N_CMDS; c++) {
        const struct option *t = cli_getopt_table((enum cli_cmd)c, NULL);
        for (; t->name; t++) {
            const struct cli_opt_def *d = NULL;
            for (size_t k = 0; k < cli_n_opt_defs && !d; k++)
                if (strcmp(cli_opt_defs[k].name, t->name) == 0 &&
                    cli_opt_val(&cli_opt_defs[k]) == t->val)
                    d = &cli_opt_defs[k];
            const struct cli_opt_def *o = cli_opt_find(d->code);
            const char *listed = "option";
            if (d->alias)
                listed = "alias";
            else {
                int own = 0;
                for (size_t i = 0; i < cli_n_opt_uses && !own; i++)
                    own = cli_opt_uses[i].code == d->code && (cli_opt_uses[i].cmds & (1u << c));
                if (!own)
                    listed = "passed"; /* sweep's run options: listed by run --help */
            }
            fprintf(f, "%s\t--%s\t%s%c\t%s\n", cli_cmds[c].name, t->name, o->short_name ? "-" : "",
                    o->short_name ? o->short_name : '-', listed);
        }
    }
}
