/* pgarena sweep: plan the cells, prepare DIR (or resume what it holds), run, print. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/session.h"
#include "cli/store_cmd.h"
#include "cli/sweep_cmd.h"
#include "os/os.h"

/* The command that identifies a sweep: its arguments without those that only change what is
 * printed (--force, -q, --json, --compare AXIS), password masked. */
static char *identity(int argc, char **argv)
{
    char **kept = xcalloc((size_t)argc + 1, sizeof *kept);
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--compare") == 0 && i + 1 < argc) {
            i++;
            continue;
        }
        if (strcmp(argv[i], "--force") != 0 && strcmp(argv[i], "-q") != 0 &&
            strcmp(argv[i], "--quiet") != 0 && strcmp(argv[i], "--json") != 0 &&
            strncmp(argv[i], "--compare=", 10) != 0)
            kept[n++] = argv[i];
    }
    char *s = args_masked_command(n, kept);
    free(kept);
    return s;
}

/* DIR: created if missing; a sweep.json of the same command is resumed, of another one refused
 * unless --force; anything else in it is refused. Sets *old when there is one to resume. */
static int prepare_dir(struct sweep_exec *x, struct sweep_doc *old, int *have_old, int *created,
                       struct err *e)
{
    const char *dir = x->o->dir;
    struct stat st;
    *have_old = 0;
    if (os_stat(dir, &st) != 0) {
        if (os_mkdir(dir) == 0)
            *created = 1;
        else
            return err_set(e, ERR_INPUT, "sweep: cannot create the directory %s: %s", dir,
                           strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        return err_set(e, ERR_INPUT, "sweep: %s is not a directory", dir);
    }
    if (os_access(dir, W_OK | X_OK) != 0)
        return err_set(e, ERR_INPUT, "sweep: cannot write in %s: %s", dir, strerror(errno));
    if (os_access(x->json_path, F_OK) == 0) {
        if (sweep_doc_read(x->json_path, old, e) < 0) {
            if (!x->o->force)
                return err_set(e, ERR_INPUT,
                               "sweep: %s holds no sweep of pgarena's (%s); "
                               "--force replaces it",
                               dir, e->msg);
            return 0;
        }
        if (strcmp(old->command, x->doc.command) != 0 && !x->o->force) {
            sweep_doc_free(old);
            return err_set(e, ERR_INPUT, "sweep: %s holds another sweep (%s); --force replaces it",
                           dir, "its command differs");
        }
        *have_old = strcmp(old->command, x->doc.command) == 0;
        if (!*have_old)
            sweep_doc_free(old);
    }
    return 0;
}

static void copy_axes(struct sweep_doc *to, const struct sweep_doc *from)
{
    /* The plan moves into the sweep's document; the options keep nothing they free twice. */
    *to = *from;
}

int cli_sweep_parse(int argc, char **argv, struct err *e)
{
    struct sweep_opts o;
    memset(&o, 0, sizeof o);
    int rc = sweep_parse(argc, argv, &o, e);
    sweep_opts_free(&o);
    return rc < 0 ? -1 : 0;
}

/* What the sweep says, on stderr: its progress line in place on a terminal. */
static void say(const struct sweep_exec *x, enum sweep_say kind, const char *text)
{
    int tty = isatty(2);
    switch (kind) {
    case SWEEP_SAY_PROGRESS:
        fprintf(stderr, "%s%s%s", tty ? "\r\033[K" : "", text, tty ? "" : "\n");
        break;
    case SWEEP_SAY_CLEAR:
        fprintf(stderr, "%s%s", tty ? "\r\033[K" : "", text);
        break;
    case SWEEP_SAY_BREAK:
        fprintf(stderr, "%s%s", !x->o->quiet && tty ? "\n" : "", text);
        break;
    case SWEEP_SAY_END:
        if (tty)
            fputs("\n", stderr);
        break;
    default:
        fputs(text, stderr);
    }
    fflush(stderr);
}
/* A line of the store that follows the cells (sweep --store), from its thread or a cell's. */
static void live_warning(const char *line, void *arg)
{
    sweep_say(arg, SWEEP_SAY_LINE, "%s", line);
}

int cli_sweep(int argc, char **argv, struct err *e)
{
    struct sweep_opts o;
    memset(&o, 0, sizeof o);
    int rc = sweep_parse(argc, argv, &o, e);
    if (rc != 0) {
        sweep_opts_free(&o);
        return rc > 0 ? 0 : -1;
    }
    char *command = identity(argc, argv);
    struct sweep_doc done;
    rc = sweep_command_execute(&o, command, 1, &done, e);
    if (rc >= 0)
        sweep_doc_free(&done);
    sweep_opts_free(&o);
    return rc;
}

int sweep_command_execute(struct sweep_opts *o, char *command, int print, struct sweep_doc *done,
                          struct err *e)
{
    struct sweep_exec x = {.o = o, .stop = &session_interrupted, .say = say};
    struct cli_store_live live = {o->store, live_warning, &x};
    if (o->store)
        x.live = cli_store_live(&live);
    copy_axes(&x.doc, &o->plan);
    memset(&o->plan, 0, sizeof o->plan);
    x.doc.command = command;
    x.command = x.doc.command;
    x.json_path = xasprintf("%s/sweep.json", o->dir);
    struct sweep_doc old;
    int have_old = 0, created = 0;
    int rc = 0;
    /* Listening before any cell: a port in use refuses the sweep; every cell serves there. */
    if (o->run.metrics_listen && !(o->run.metrics = metrics_open(o->run.metrics_listen, e)))
        rc = -1;
    if (rc == 0)
        rc = prepare_dir(&x, &old, &have_old, &created, e);
    if (rc == 0) {
        if (!o->max_rate)
            sweep_plan_cells(&x.doc);
        if (have_old && !o->max_rate)
            sweep_resume_from(&x.doc, &old);
        else if (have_old) /* a capacity search takes its steps again from the old cells */
            for (size_t i = 0; i < old.n_cells; i++)
                sweep_doc_add_cell(&x.doc, &old.cells[i]);
        if (have_old)
            sweep_doc_free(&old);
        session_signals_install();
        rc = sweep_execute(&x, e);
        /* Refused before any cell ran (a --set that cannot be): leave no directory behind. */
        if (rc < 0 && created && x.n_done == 0) {
            os_unlink(x.json_path);
            os_rmdir(o->dir);
        }
    }
    if (rc >= 0) {
        struct err pe = {0};
        /* The final write of sweep.json (with the comparisons): a failure is named once, even
         * when a cell's write already failed the same way. */
        if (print && sweep_print(&x.doc, o->dir, x.json_path, o->json, &pe) < 0 &&
            !x.manifest_failed++)
            fprintf(stderr, "pgarena: %s\n", pe.msg);
        if (rc == 2)
            fprintf(stderr, "pgarena: sweep interrupted; the same command resumes it\n");
        else if (x.n_failed)
            fprintf(stderr,
                    "pgarena: sweep: %d cell%s failed (see above); the same command "
                    "reruns them\n",
                    x.n_failed, x.n_failed > 1 ? "s" : "");
        rc = rc == 2 || x.n_failed || x.manifest_failed ? 1 : 0;
        /* --store: every result of the directory, earlier cells too (storing is idempotent) */
        const char *dir = o->dir;
        if (o->store && cli_store_files(o->store, &dir, 1, o->quiet, e) < 0)
            rc = -1;
    }
    metrics_close(o->run.metrics);
    o->run.metrics = NULL;
    free(x.json_path);
    if (rc >= 0) {
        *done = x.doc;
        return rc;
    }
    sweep_doc_free(&x.doc);
    return rc;
}
