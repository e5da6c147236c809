/* gen_docs: what is written from cli/options.def besides the parsers and --help (make docs).
 *   gen_docs man TEMPLATE          the man page: TEMPLATE with each line "@OPTIONS NAME@"
 *                                  replaced by command NAME's options, by group
 *   gen_docs completion TEMPLATE   the bash completion: @COMMANDS@, @SUBCOMMANDS@, @OPTIONS@
 *                                  (each command's option words) and @VALUES@ (what each
 *                                  option's value completes with)
 *   gen_docs readme README         README with the lines between "<!-- synopsis -->" and
 *                                  "<!-- /synopsis -->" replaced by every command's synopsis
 * Each writes to standard output; exit status 2 on bad arguments or a template it cannot read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"

/* The man page's text of each use, in cli_opt_uses' order. */
static const char *const texts[] = {
#define OPT(id, name, sh, arg, metavar, cmds, group, complete, help, text) text,
#define USE(id, cmds, group, metavar, complete, help, text)                text,
#include "cli/options.def"
};

/* s in roff: backslashes and hyphens escaped, continuation lines joined. */
static void roff(FILE *f, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '\\')
            fputs("\\e", f);
        else if (*p == '-')
            fputs("\\-", f);
        else if (*p == '\n')
            fputc(' ', f);
        else
            fputc(*p, f);
    }
}

static void man_option(FILE *f, const struct cli_opt_use *u, const char *text)
{
    const struct cli_opt_def *d = cli_opt_find(u->code);
    fputs(".TP\n.BR ", f);
    if (d->short_name)
        fprintf(f, "\\-%c \", \" ", d->short_name);
    fputs("\\-\\-", f);
    roff(f, d->name);
    if (*u->metavar) {
        fputs(" \" \\fI", f);
        roff(f, u->metavar);
        fputs("\\fR\"", f);
    }
    fputc('\n', f);
    if (*text) {
        fprintf(f, "%s\n", text);
    } else { /* --help's words, as a sentence */
        if (u->help[0] >= 'a' && u->help[0] <= 'z')
            fputc(u->help[0] - 'a' + 'A', f);
        roff(f, u->help + (u->help[0] >= 'a' && u->help[0] <= 'z'));
        fputs(".\n", f);
    }
}

static int find_cmd(const char *name)
{
    for (int c = 0; c < CLI_N_CMDS; c++)
        if (strcmp(cli_cmds[c].name, name) == 0)
            return c;
    return -1;
}

static void man_options(FILE *f, int c)
{
    const char *done[32];
    size_t n_done = 0;
    for (size_t i = 0; i < cli_n_opt_uses; i++) {
        const char *group = cli_opt_uses[i].group;
        int seen = 0;
        for (size_t g = 0; g < n_done && !seen; g++)
            seen = strcmp(done[g], group) == 0;
        if (seen || !(cli_opt_uses[i].cmds & (1u << c)) || n_done == 32)
            continue;
        done[n_done++] = group;
        if (*group)
            fprintf(f, ".PP\n%c%s:\n",
                    group[0] >= 'a' && group[0] <= 'z' ? group[0] - 32 : group[0], group + 1);
        for (size_t k = i; k < cli_n_opt_uses; k++)
            if ((cli_opt_uses[k].cmds & (1u << c)) && strcmp(cli_opt_uses[k].group, group) == 0)
                man_option(f, &cli_opt_uses[k], texts[k]);
    }
}

/* Every command the top level dispatches to (replay's subcommands aside), sorted. */
static int top_command(int c)
{
    return strchr(cli_cmds[c].name, ' ') == NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(cli_cmds[*(const int *)a].name, cli_cmds[*(const int *)b].name);
}

/* The completion's name of command c: "run", "replay-run". */
static void key(FILE *f, int c)
{
    for (const char *p = cli_cmds[c].name; *p; p++)
        fputc(*p == ' ' ? '-' : *p, f);
}

/* local commands="..." (or subcommands: replay's), sorted as bash lists them. */
static void completion_commands(FILE *f, int sub)
{
    int order[CLI_N_CMDS], n = 0;
    for (int c = 0; c < CLI_N_CMDS; c++)
        if (top_command(c) != sub)
            order[n++] = c;
    qsort(order, (size_t)n, sizeof order[0], by_name);
    fputs(sub ? "    local subcommands=\"" : "    local commands=\"", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? " " : "",
                sub ? strchr(cli_cmds[order[i]].name, ' ') + 1 : cli_cmds[order[i]].name);
    fputs("\"\n", f);
}

/* Whether use i is the first of its option that command c takes. */
static int first_use(int c, size_t i)
{
    if (!cli_cmd_takes((enum cli_cmd)c, &cli_opt_uses[i]))
        return 0;
    for (size_t k = 0; k < i; k++)
        if (cli_opt_uses[k].code == cli_opt_uses[i].code &&
            cli_cmd_takes((enum cli_cmd)c, &cli_opt_uses[k]))
            return 0;
    return 1;
}

/* A case arm per command: its option words. */
static void completion_options(FILE *f)
{
    for (int c = 0; c < CLI_N_CMDS; c++) {
        if (c == CLI_REPLAY)
            continue;
        fputs("    ", f);
        key(f, c);
        fputs(") words=\"", f);
        const char *sep = "";
        for (size_t i = 0; i < cli_n_opt_uses; i++) {
            if (!first_use(c, i))
                continue;
            const struct cli_opt_def *d = cli_opt_find(cli_opt_uses[i].code);
            fprintf(f, "%s--%s", sep, d->name);
            if (d->short_name)
                fprintf(f, " -%c", d->short_name);
            sep = " ";
        }
        fputs("\" ;;\n", f);
    }
}

/* Whether command c takes use i's option through run (sweep) but has a use of its own. */
static int overridden(int c, size_t i)
{
    if (cli_opt_uses[i].cmds & (1u << c))
        return 0;
    for (size_t k = 0; k < cli_n_opt_uses; k++)
        if (k != i && cli_opt_uses[k].code == cli_opt_uses[i].code &&
            (cli_opt_uses[k].cmds & (1u << c)))
            return 1;
    return 0;
}

/* "cmd -x" | "cmd --long" for every command that takes use u's option as u means it;
 * 0 when none. */
static int value_patterns(FILE *f, size_t i)
{
    const struct cli_opt_def *d = cli_opt_find(cli_opt_uses[i].code);
    int n = 0;
    for (int c = 0; c < CLI_N_CMDS; c++) {
        if (!cli_cmd_takes((enum cli_cmd)c, &cli_opt_uses[i]) || overridden(c, i))
            continue;
        for (int form = d->short_name ? 0 : 1; form < 2; form++) {
            fputs(n++ ? " | \"" : "\"", f);
            key(f, c);
            if (form == 0)
                fprintf(f, " -%c\"", d->short_name);
            else
                fprintf(f, " --%s\"", d->name);
        }
    }
    return n;
}

/* A case arm per use of an option that takes a value: what the value completes with. */
static void completion_values(FILE *f)
{
    for (size_t i = 0; i < cli_n_opt_uses; i++) {
        if (cli_opt_find(cli_opt_uses[i].code)->has_arg != required_argument)
            continue;
        fputs("    ", f);
        if (!value_patterns(f, i))
            fputs("\"\"", f);
        fprintf(f, ")\n        _pgarena_value \"%s\"\n        return\n        ;;\n",
                cli_opt_uses[i].complete);
    }
}

static void completion_line(FILE *f, const char *line)
{
    if (strcmp(line, "@COMMANDS@") == 0)
        completion_commands(f, 0);
    else if (strcmp(line, "@SUBCOMMANDS@") == 0)
        completion_commands(f, 1);
    else if (strcmp(line, "@OPTIONS@") == 0)
        completion_options(f);
    else if (strcmp(line, "@VALUES@") == 0)
        completion_values(f);
    else
        fprintf(f, "%s\n", line);
}

static int each_line(const char *path, int (*fn)(FILE *, const char *, void *), void *arg)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        perror(path);
        return 2;
    }
    char line[4096];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        rc = fn(stdout, line, arg);
    }
    fclose(in);
    return rc;
}

static int man_line(FILE *f, const char *line, void *arg)
{
    (void)arg;
    char name[64];
    if (sscanf(line, "@OPTIONS %63[a-z ]@", name) == 1) {
        int c = find_cmd(name);
        if (c < 0) {
            fprintf(stderr, "gen_docs: no command '%s'\n", name);
            return 2;
        }
        man_options(f, c);
        return 0;
    }
    fprintf(f, "%s\n", line);
    return 0;
}

static int comp_line(FILE *f, const char *line, void *arg)
{
    (void)arg;
    completion_line(f, line);
    return 0;
}

static int readme_line(FILE *f, const char *line, void *arg)
{
    int *inside = arg;
    if (*inside && strcmp(line, "<!-- /synopsis -->") != 0)
        return 0;
    fprintf(f, "%s\n", line);
    if (strcmp(line, "<!-- synopsis -->") == 0) {
        fputs("```\n", f);
        cli_synopsis(f);
        fputs("```\n", f);
        *inside = 1;
    } else if (*inside) {
        *inside = 0;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int inside = 0;
    if (argc == 3 && strcmp(argv[1], "man") == 0)
        return each_line(argv[2], man_line, NULL);
    if (argc == 3 && strcmp(argv[1], "completion") == 0)
        return each_line(argv[2], comp_line, NULL);
    if (argc == 3 && strcmp(argv[1], "readme") == 0)
        return each_line(argv[2], readme_line, &inside);
    fprintf(stderr, "usage: gen_docs man|completion|readme TEMPLATE\n");
    return 2;
}
