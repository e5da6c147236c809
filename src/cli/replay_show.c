/* pgarena replay show CAPTURE: what a capture holds, read through once. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "cli/args.h"
#include "cli/opts.h"
#include "cli/replay.h"
#include "workload/replay/capture.h"
#include "workload/replay/normalize.h"

/* Classes beyond this many are counted as "other", so memory stays bounded. */
#define MAX_CLASSES 100000

struct show_class {
    char *text;
    uint64_t count, failed;
    int64_t total_us; /* of the statements with a known duration */
    uint64_t timed;   /* how many had one */
    struct show_class *next;
};

struct show_classes {
    struct show_class **buckets;
    size_t n_buckets, n;
    struct show_class other;
};

static uint64_t class_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static struct show_class *class_get(struct show_classes *t, const char *text)
{
    if (!t->n_buckets) {
        t->n_buckets = 4096;
        t->buckets = xcalloc(t->n_buckets, sizeof *t->buckets);
    }
    size_t k = class_hash(text) & (t->n_buckets - 1);
    for (struct show_class *c = t->buckets[k]; c; c = c->next)
        if (strcmp(c->text, text) == 0)
            return c;
    if (t->n >= MAX_CLASSES)
        return &t->other;
    struct show_class *c = xcalloc(1, sizeof *c);
    c->text = xstrdup(text);
    c->next = t->buckets[k];
    t->buckets[k] = c;
    t->n++;
    return c;
}

static int by_count(const void *a, const void *b)
{
    const struct show_class *x = *(struct show_class *const *)a;
    const struct show_class *y = *(struct show_class *const *)b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->text, y->text);
}

static int parse_show(int argc, char **argv, const char **path, int *top, int *events,
                      struct err *e)
{
    int opt;
    *top = 10;
    *events = 0;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_REPLAY_SHOW, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == OPT_TOP) {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > 100000)
                return err_set(e, ERR_INPUT,
                               "invalid value for --top: '%s' (expected an integer from 1 to "
                               "100000)",
                               optarg);
            *top = (int)v;
        } else if (opt == OPT_EVENTS) {
            *events = 1;
        } else if (opt == OPT_HELP) {
            cli_help(CLI_REPLAY_SHOW, stdout);
            return 1;
        } else {
            return args_bad_option("replay show", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (optind != argc - 1)
        return err_set(e, ERR_INPUT,
                       "replay show: expected one capture file (see pgarena replay show --help)");
    *path = argv[optind];
    return 0;
}

int cli_replay_show_parse(int argc, char **argv, struct err *e)
{
    const char *path;
    int top, events;
    return parse_show(argc, argv, &path, &top, &events, e) < 0 ? -1 : 0;
}

struct show_totals {
    uint64_t by_protocol[3], ok, failed, unknown, cancelled;
};

static void print_classes(struct show_classes *t, uint64_t n_statements, int top)
{
    struct show_class **all = xmalloc((t->n + 1) * sizeof *all);
    size_t n = 0;
    for (size_t i = 0; i < t->n_buckets; i++)
        for (struct show_class *c = t->buckets[i]; c; c = c->next)
            all[n++] = c;
    qsort(all, n, sizeof *all, by_count);
    printf("top statement classes:\n  %10s %7s %6s %10s  %s\n", "count", "share", "failed",
           "mean_ms", "class");
    for (size_t i = 0; i < n && (int)i < top; i++) {
        const struct show_class *c = all[i];
        char mean[32] = "-";
        if (c->timed)
            snprintf(mean, sizeof mean, "%.3f", (double)c->total_us / 1000.0 / (double)c->timed);
        int len = (int)strlen(c->text);
        printf("  %10llu %6.1f%% %6llu %10s  %.*s%s\n", (unsigned long long)c->count,
               100.0 * (double)c->count / (double)n_statements, (unsigned long long)c->failed, mean,
               len > 100 ? 100 : len, c->text, len > 100 ? "..." : "");
    }
    if (t->other.count)
        printf("  %10llu %6.1f%% %6llu %10s  (other classes)\n", (unsigned long long)t->other.count,
               100.0 * (double)t->other.count / (double)n_statements,
               (unsigned long long)t->other.failed, "-");
    free(all);
}

static void classes_free(struct show_classes *t)
{
    for (size_t i = 0; i < t->n_buckets; i++)
        for (struct show_class *c = t->buckets[i], *next; c; c = next) {
            next = c->next;
            free(c->text);
            free(c);
        }
    free(t->buckets);
}

static void print_header(const char *path, const struct capture_header *h)
{
    char start[64];
    cli_replay_format_time(h->start_us, start, sizeof start);
    printf("capture     %s (%s %d)\n", path, CAPTURE_FORMAT, h->version);
    if (*h->system_identifier || *h->address)
        printf("source      system_identifier %s, %s port %d\n",
               *h->system_identifier ? h->system_identifier : "-", *h->address ? h->address : "-",
               h->port);
    else
        printf("source      a log (no server identity)\n");
    printf("start       %s (restore the target to this moment for a faithful replay)\n", start);
    printf("duration    %.3f s\n", (double)h->duration_us / 1e6);
    printf("sessions    %llu\n", (unsigned long long)h->n_sessions);
    printf("skipped     %llu COPY FROM STDIN, %llu carrying a password, %llu unsupported\n",
           (unsigned long long)h->skipped_copy, (unsigned long long)h->skipped_secret,
           (unsigned long long)h->skipped_unsupported);
}

static const char *const protocols[] = {"simple", "extended-named", "extended-unnamed"};
static const char *const outcomes[] = {"unknown", "ok", "error"};

static json_t *event_json(const struct capture_event *ev)
{
    if (ev->kind != CAPTURE_EV_STATEMENT)
        return ev->kind == CAPTURE_EV_SESSION_START
                   ? json_pack("{s:s, s:I, s:I, s:s, s:s, s:s}", "event", "start", "session",
                               (json_int_t)ev->session.id, "offset_us",
                               (json_int_t)ev->session.offset_us, "log_id", ev->session.log_id,
                               "user", ev->session.user, "database", ev->session.database)
                   : json_pack("{s:s, s:I, s:I}", "event", "end", "session",
                               (json_int_t)ev->session.id, "offset_us",
                               (json_int_t)ev->session.offset_us);
    const struct capture_statement *st = &ev->statement;
    json_t *params = json_array();
    for (int i = 0; i < st->n_params; i++)
        json_array_append_new(params, st->params[i] ? json_string(st->params[i]) : json_null());
    return json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:o, s:I, s:s, s:s, s:s, s:I}", "event",
                     "statement", "session", (json_int_t)st->session, "offset_us",
                     (json_int_t)st->offset_us, "protocol", protocols[st->protocol], "name",
                     st->name, "text", st->text, "params", params, "duration_us",
                     (json_int_t)st->duration_us, "outcome", outcomes[st->outcome], "sqlstate",
                     st->sqlstate, "error", st->error, "cancel_us", (json_int_t)st->cancel_us);
}

static int print_events(struct capture_reader *r, struct err *e)
{
    struct capture_event ev;
    int rc;
    while ((rc = capture_reader_next(r, &ev, e)) == 1) {
        json_t *o = event_json(&ev);
        char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
        if (line)
            puts(line);
        free(line);
        json_decref(o);
    }
    return rc < 0 ? -1 : 0;
}

int cli_replay_show(int argc, char **argv, struct err *e)
{
    const char *path;
    int top, events;
    int rc = parse_show(argc, argv, &path, &top, &events, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    struct capture_reader *r = capture_reader_open(path, e);
    if (!r)
        return -1;
    if (events) {
        rc = print_events(r, e);
        capture_reader_close(r);
        return rc;
    }
    const struct capture_header *h = capture_reader_header(r);
    struct show_classes classes = {0};
    struct show_totals t = {0};
    struct capture_event ev;
    struct buf norm;
    buf_init(&norm);
    classes.other.text = "";
    while ((rc = capture_reader_next(r, &ev, e)) == 1) {
        if (ev.kind != CAPTURE_EV_STATEMENT)
            continue;
        const struct capture_statement *st = &ev.statement;
        t.by_protocol[st->protocol]++;
        t.ok += st->outcome == CAPTURE_OUTCOME_OK;
        t.failed += st->outcome == CAPTURE_OUTCOME_ERROR;
        t.unknown += st->outcome == CAPTURE_OUTCOME_UNKNOWN;
        t.cancelled += st->cancel_us >= 0;
        normalize_statement(st->text, strlen(st->text), &norm);
        struct show_class *c = class_get(&classes, norm.data);
        c->count++;
        c->failed += st->outcome == CAPTURE_OUTCOME_ERROR;
        if (st->duration_us >= 0) {
            c->total_us += st->duration_us;
            c->timed++;
        }
    }
    buf_free(&norm);
    if (rc == 0) {
        print_header(path, h);
        printf("statements  %llu: %llu simple, %llu extended named, %llu extended unnamed; "
               "%llu succeeded, %llu failed (%llu cancelled), %llu unknown\n",
               (unsigned long long)h->n_statements, (unsigned long long)t.by_protocol[0],
               (unsigned long long)t.by_protocol[1], (unsigned long long)t.by_protocol[2],
               (unsigned long long)t.ok, (unsigned long long)t.failed,
               (unsigned long long)t.cancelled, (unsigned long long)t.unknown);
        if (h->n_statements)
            print_classes(&classes, h->n_statements, top);
    }
    classes_free(&classes);
    capture_reader_close(r);
    return rc < 0 ? -1 : 0;
}
