/* replay capture's server side: turn on statement logging for a while (ALTER SYSTEM and a
 * reload, restored afterwards and on Ctrl-C), read the csvlog back through the server and
 * prepare it. */
#include "capture/prepare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "capture/server_logs.h"
#include "pg/pg.h"
#include "os/os.h"

/* What is changed, and to what; log_destination gets csvlog added to what it has. */
static const struct {
    const char *name;
    const char *value;
} settings[] = {
    {"log_destination", NULL},
    {"log_statement", "all"},
    {"log_connections", "on"},
    {"log_disconnections", "on"},
    {"lc_messages", "C"},
    {"log_parameter_max_length", "-1"},
    /* Each statement's duration (the order across sessions uses it); its parse and bind
     * ones too, bare, which prepare tells apart. */
    {"log_duration", "on"},
    /* No rotation while capturing (one may still come: server_logs.c reads every file). */
    {"log_rotation_size", "0"},
    {"log_rotation_age", "0"},
};
#define N_SETTINGS (sizeof settings / sizeof settings[0])

static volatile int interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* The old value of each setting and whether ALTER SYSTEM had set it. */
struct saved {
    char value[N_SETTINGS][1024];
    int from_auto[N_SETTINGS];
    int changed;
};

static int save_settings(struct pg_conn *c, struct saved *s, struct err *e)
{
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const char *name = settings[i].name;
        char from[16];
        struct pg_result *r = pg_query(
            c,
            "SELECT setting, coalesce(sourcefile LIKE '%postgresql.auto.conf', false)::text "
            "FROM pg_settings WHERE name = $1",
            1, &name, e);
        if (!r)
            return -1;
        if (pg_result_rows(r) != 1) {
            pg_result_free(r);
            return err_set(e, ERR_RUNTIME, "replay capture: no setting %s on the server", name);
        }
        snprintf(s->value[i], sizeof s->value[i], "%s", pg_result_value(r, 0, 0));
        snprintf(from, sizeof from, "%s", pg_result_value(r, 0, 1));
        s->from_auto[i] = strcmp(from, "true") == 0;
        pg_result_free(r);
    }
    return 0;
}

/* ALTER SYSTEM SET name = 'value' (quoted as a literal). */
static int alter_system(struct pg_conn *c, const char *name, const char *value, struct err *e)
{
    struct buf sql;
    buf_init(&sql);
    buf_printf(&sql, "ALTER SYSTEM SET %s = '", name);
    for (const char *v = value; *v; v++) {
        if (*v == '\'')
            buf_putc(&sql, '\'');
        buf_putc(&sql, *v);
    }
    buf_puts(&sql, "'");
    int rc = pg_exec(c, sql.data, e);
    buf_free(&sql);
    return rc;
}

static int apply_settings(struct pg_conn *c, struct saved *s, struct err *e)
{
    for (size_t i = 0; i < N_SETTINGS; i++) {
        char value[1100];
        if (settings[i].value)
            snprintf(value, sizeof value, "%s", settings[i].value);
        else if (strstr(s->value[i], "csvlog"))
            snprintf(value, sizeof value, "%s", s->value[i]);
        else
            snprintf(value, sizeof value, "%s%scsvlog", s->value[i], *s->value[i] ? "," : "");
        s->changed = 1;
        if (alter_system(c, settings[i].name, value, e) < 0)
            return -1;
    }
    return pg_exec(c, "SELECT pg_reload_conf()", e);
}

static int restore_settings(struct pg_conn *c, const struct saved *s, struct err *e)
{
    int rc = 0;
    for (size_t i = 0; i < N_SETTINGS; i++) {
        if (s->from_auto[i]) {
            rc |= alter_system(c, settings[i].name, s->value[i], e);
        } else {
            char sql[128];
            snprintf(sql, sizeof sql, "ALTER SYSTEM RESET %s", settings[i].name);
            rc |= pg_exec(c, sql, e);
        }
    }
    rc |= pg_exec(c, "SELECT pg_reload_conf()", e);
    return rc ? -1 : 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Wait for the reload: our session logs statements and the csvlog exists. */
static int wait_logging(struct pg_conn *c, struct server_logs *l, struct err *e)
{
    for (int i = 0; i < 100; i++) {
        char v[64];
        if (pg_query_value(c, "SELECT current_setting('log_statement')", v, sizeof v, e) < 0)
            return -1;
        int rc = strcmp(v, "all") == 0 ? server_logs_start(c, l, e) : 1;
        if (rc <= 0)
            return rc;
        sleep_ms(50);
    }
    return err_set(e, ERR_RUNTIME, "replay capture: the server did not start writing a csvlog");
}

struct capture_run {
    struct server_logs logs;
    char session[64];
};

static int capture_window(struct pg_conn *c, int seconds, struct capture_run *cr, struct err *e)
{
    if (wait_logging(c, &cr->logs, e) < 0)
        return -1;
    if (pg_query_value(c,
                       "SELECT to_hex(trunc(extract(epoch FROM backend_start))::bigint) || '.' || "
                       "to_hex(pid) FROM pg_stat_activity WHERE pid = pg_backend_pid()",
                       cr->session, sizeof cr->session, e) < 0)
        return -1;
    fprintf(stderr, "replay capture: logging for %d s (Ctrl-C ends it early)\n", seconds);
    for (int ms = 0; ms < seconds * 1000 && !interrupted; ms += 100) {
        sleep_ms(100);
        /* Each file current meanwhile is known: one removed before the end is missed. */
        if (ms % 1000 == 900 && server_logs_poll(c, &cr->logs, e) < 0)
            return -1;
    }
    return server_logs_end(c, &cr->logs, e);
}

static int read_back(struct pg_conn *c, struct capture_run *cr, const char *tmp, struct err *e)
{
    FILE *out = os_fopen(tmp, "wb");
    if (!out)
        return err_set(e, ERR_INPUT, "%s: %s", tmp, strerror(errno));
    int rc = server_logs_read(c, &cr->logs, out, e);
    if (fclose(out) != 0 && rc == 0)
        rc = err_set(e, ERR_RUNTIME, "%s: %s", tmp, strerror(errno));
    const struct server_logs *l = &cr->logs;
    if (rc == 0 && l->missing_files)
        fprintf(stderr,
                "replay capture: the capture is not whole: %llu log file(s) gone or cut short "
                "during it, at least %llu bytes of log missing (their statements are not in "
                "it)\n",
                (unsigned long long)l->missing_files, (unsigned long long)l->missing_bytes);
    return rc;
}

static int identify(struct pg_conn *c, struct capture_header *h, struct err *e)
{
    char port[16];
    if (pg_query_value(c, "SELECT system_identifier::text FROM pg_control_system()",
                       h->system_identifier, sizeof h->system_identifier, e) < 0 ||
        pg_query_value(c, "SELECT current_setting('port')", port, sizeof port, e) < 0)
        return -1;
    h->port = atoi(port);
    const char *host = pg_host(c);
    snprintf(h->address, sizeof h->address, "%s", host ? host : "");
    return 0;
}

/* Refuse (*by_hand set: the settings are to be made by hand) where the capture cannot be made
 * through the server. */
static int check_possible(struct pg_conn *c, int *by_hand, struct err *e)
{
    char su[16], collector[16];
    if (pg_query_value(c, "SELECT current_setting('is_superuser')", su, sizeof su, e) < 0 ||
        pg_query_value(c, "SELECT current_setting('logging_collector')", collector,
                       sizeof collector, e) < 0)
        return -1;
    if (strcmp(su, "on") != 0 || strcmp(collector, "on") != 0) {
        *by_hand = 1;
        return err_set(e, ERR_INPUT, "replay capture: %s; set the settings above by hand",
                       strcmp(su, "on") != 0 ? "needs a superuser connection"
                                             : "the server runs without logging_collector");
    }
    return 0;
}

static int capture_and_prepare(struct pg_conn *c, int seconds, const char *output,
                               struct prepare_stats *stats, int *by_hand, struct err *e)
{
    struct prepare_opts po = {.format = LOG_FORMAT_CSV, .from_us = INT64_MIN, .to_us = INT64_MAX};
    struct saved saved = {0};
    struct capture_run cr = {0};
    if (check_possible(c, by_hand, e) < 0 || identify(c, &po.source, e) < 0 ||
        save_settings(c, &saved, e) < 0)
        return -1;
    struct os_interrupt_saved old;
    os_on_interrupt(on_signal, &old);
    int rc = apply_settings(c, &saved, e);
    if (rc == 0)
        rc = capture_window(c, seconds, &cr, e);
    struct err re = {0};
    /* Whatever happened, the server's settings go back as they were. */
    if (saved.changed && restore_settings(c, &saved, &re) < 0 && rc == 0) {
        *e = re;
        rc = -1;
    }
    os_interrupt_restore(&old);
    if (rc < 0) {
        server_logs_free(&cr.logs);
        return -1;
    }
    char *tmp = xasprintf("%s.log-%d", output, (int)getpid());
    rc = read_back(c, &cr, tmp, e);
    po.exclude_session = cr.session;
    po.source.missing_files = cr.logs.missing_files;
    po.source.missing_bytes = cr.logs.missing_bytes;
    server_logs_free(&cr.logs);
    const char *paths[] = {tmp};
    if (rc == 0)
        rc = prepare_logs(paths, 1, &po, output, stats, e);
    os_unlink(tmp);
    free(tmp);
    return rc;
}

int prepare_server(const struct pg_connopts *conn, int seconds, const char *output,
                   struct prepare_stats *stats, int *by_hand, struct err *e)
{
    *by_hand = 0;
    interrupted = 0;
    struct pg_conn *c = pg_connect(conn, e);
    if (!c)
        return -1;
    int rc = capture_and_prepare(c, seconds, output, stats, by_hand, e);
    pg_finish(c);
    return rc;
}
