#include "cli/args.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"

static void replace(char **slot, const char *value)
{
    free(*slot);
    *slot = xstrdup(value);
}

int args_conn_option(int opt, const char *value, struct pg_connopts *conn)
{
    switch (opt) {
    case 'h':
        replace(&conn->host, value);
        return 1;
    case 'p':
        replace(&conn->port, value);
        return 1;
    case 'U':
        replace(&conn->user, value);
        return 1;
    case 'd': /* pgbench 17's; a last argument, read later, wins as in pgbench */
        replace(&conn->dbname, value);
        return 1;
    default:
        return 0;
    }
}

int args_positional(int argc, char **argv, int optind, struct pg_connopts *conn, const char *cmd,
                    struct err *e)
{
    if (optind < argc - 1)
        return err_set(e, ERR_INPUT, "%s: too many arguments, starting with '%s'", cmd,
                       argv[optind + 1]);
    if (optind == argc - 1)
        replace(&conn->dbname, argv[optind]);
    return 0;
}

int args_bad_option(const char *cmd, int argc, char **argv, int optind, int optopt, int missing,
                    struct err *e)
{
    const char *text = optind - 1 < argc && optind >= 1 ? argv[optind - 1] : "?";
    char shortopt[3] = {'-', (char)optopt, '\0'};
    const char *name = optopt ? shortopt : text;
    if (missing)
        return err_set(e, ERR_INPUT, "%s: option %s needs a value (see pgarena %s --help)", cmd,
                       name, cmd);
    return err_set(e, ERR_INPUT, "%s: unknown option '%s' (see pgarena %s --help)", cmd, name, cmd);
}

/* Replace the value after `key` (up to the next space, or a quoted value) with "***". */
static void mask_conninfo_key(struct buf *out, const char *arg, int in_uri)
{
    const char *p = arg;
    while (*p) {
        const char *hit = strstr(p, "password");
        if (!hit) {
            buf_puts(out, p);
            return;
        }
        const char *q = hit + 8;
        while (isspace((unsigned char)*q))
            q++;
        if (*q != '=' || (hit > arg && (isalnum((unsigned char)hit[-1]) || hit[-1] == '_'))) {
            buf_append(out, p, (size_t)(q - p));
            p = q;
            continue;
        }
        q++;
        while (isspace((unsigned char)*q))
            q++;
        buf_append(out, p, (size_t)(q - p));
        buf_puts(out, "***");
        if (*q == '\'') {
            for (q++; *q && *q != '\''; q++)
                if (*q == '\\' && q[1])
                    q++;
            if (*q)
                q++;
        } else {
            /* '&' separates URI query parameters; in a conninfo it is part of the value. */
            while (*q && !isspace((unsigned char)*q) && !(in_uri && *q == '&'))
                q++;
        }
        p = q;
    }
}

char *args_mask_password(const char *arg)
{
    struct buf out;
    buf_init(&out);
    const char *scheme = strstr(arg, "://");
    int in_uri =
        scheme && (strncmp(arg, "postgresql://", 13) == 0 || strncmp(arg, "postgres://", 11) == 0);
    if (in_uri) {
        const char *auth = scheme + 3;
        const char *at = strchr(auth, '@');
        const char *slash = strchr(auth, '/');
        const char *colon = strchr(auth, ':');
        if (at && (!slash || at < slash) && colon && colon < at) {
            buf_append(&out, arg, (size_t)(colon + 1 - arg));
            buf_puts(&out, "***");
            arg = at;
        }
    }
    mask_conninfo_key(&out, arg, in_uri);
    char *s = xstrdup(out.data);
    buf_free(&out);
    return s;
}

char *args_masked_command(int argc, char **argv)
{
    struct buf out;
    buf_init(&out);
    for (int i = 0; i < argc; i++) {
        char *m = args_mask_password(argv[i]);
        if (i)
            buf_putc(&out, ' ');
        int quote = strpbrk(m, " \t'\"") != NULL || !*m;
        if (quote) {
            buf_putc(&out, '\'');
            for (const char *p = m; *p; p++) {
                if (*p == '\'')
                    buf_puts(&out, "'\\''");
                else
                    buf_putc(&out, *p);
            }
            buf_putc(&out, '\'');
        } else {
            buf_puts(&out, m);
        }
        free(m);
    }
    char *s = xstrdup(out.data);
    buf_free(&out);
    return s;
}

int args_seconds(const char *value, int *out, struct err *e)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (*end || end == value || v < 1 || v > 86400)
        return err_set(e, ERR_INPUT,
                       "invalid value for --seconds: '%s' (expected an integer from 1 to 86400)",
                       value);
    *out = (int)v;
    return 0;
}
