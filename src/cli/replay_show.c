/* pgarena replay show CAPTURE: what a capture holds (capture_summarise), or its events. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capture/capture.h"
#include "capture/sqltext.h"
#include "cli/args.h"
#include "cli/opts.h"
#include "cli/replay.h"

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

static void print_classes(const struct capture_summary *s, int top)
{
    uint64_t n_statements = s->header.n_statements;
    printf("top statement classes:\n  %10s %7s %6s %10s  %s\n", "count", "share", "failed",
           "mean_ms", "class");
    for (size_t i = 0; i < s->n_classes && (int)i < top; i++) {
        const struct capture_class *c = &s->classes[i];
        char mean[32] = "-";
        if (c->timed)
            snprintf(mean, sizeof mean, "%.3f", (double)c->total_us / 1000.0 / (double)c->timed);
        int len = (int)strlen(c->text);
        printf("  %10llu %6.1f%% %6llu %10s  %.*s%s\n", (unsigned long long)c->count,
               100.0 * (double)c->count / (double)n_statements, (unsigned long long)c->failed, mean,
               len > 100 ? 100 : len, c->text, len > 100 ? "..." : "");
    }
    if (s->other.count)
        printf("  %10llu %6.1f%% %6llu %10s  (other classes)\n", (unsigned long long)s->other.count,
               100.0 * (double)s->other.count / (double)n_statements,
               (unsigned long long)s->other.failed, "-");
}

/* The SET statements the sessions ran themselves, and where to give the others. */
static void print_sets(const struct capture_summary *s, int top)
{
    if (!s->n_sets) {
        printf("SET statements: none (what a driver sets at connection is not in a log: replay "
               "run --session-set NAME=VALUE)\n");
        return;
    }
    printf("SET statements (what a driver sets at connection is not among them: replay run "
           "--session-set NAME=VALUE):\n  %10s  %s\n",
           "count", "statement");
    for (size_t i = 0; i < s->n_sets && (int)i < top; i++) {
        const struct capture_class *c = &s->sets[i];
        int len = (int)strlen(c->text);
        printf("  %10llu  %.*s%s\n", (unsigned long long)c->count, len > 100 ? 100 : len, c->text,
               len > 100 ? "..." : "");
    }
    if (s->n_sets > (size_t)top || s->other_sets.count) {
        uint64_t more = s->other_sets.count;
        for (size_t i = (size_t)top; i < s->n_sets; i++)
            more += s->sets[i].count;
        printf("  %10llu  (other SET statements)\n", (unsigned long long)more);
    }
}

/* How the statements go to the server: the named ones with the prepares a replay sends for
 * them, the portal fetches folded, the DEALLOCATE and DISCARD that make a name be prepared
 * again. */
static void print_protocols(const struct capture_summary *s)
{
    printf("named       %llu executions of %llu names; a replay prepares %llu (once per session "
           "and name, again after a DEALLOCATE of it or under another text)\n",
           (unsigned long long)s->by_protocol[CAPTURE_EXTENDED_NAMED],
           (unsigned long long)s->named_names, (unsigned long long)s->named_prepares);
    printf("portals     %llu fetches folded into their portal's first execute (run whole)\n",
           (unsigned long long)s->header.portal_fetches);
    printf("deallocate  %llu DEALLOCATE name, %llu DEALLOCATE ALL or DISCARD ALL, %llu DISCARD "
           "PLANS (names kept)\n",
           (unsigned long long)s->unprepare[SQLTEXT_UNPREPARE_NAMES],
           (unsigned long long)s->unprepare[SQLTEXT_UNPREPARE_ALL],
           (unsigned long long)s->unprepare[SQLTEXT_UNPREPARE_PLANS]);
}

static void print_header(const char *path, const struct capture_summary *sum)
{
    const struct capture_header *h = &sum->header;
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
    cli_replay_print_kept("            ", h->unsupported, &h->copy_in, h->portal_fetches,
                          h->pipelined, h->same_sync, sum->param_status);
    if (h->cut)
        printf("cut         its recorder did not close it (killed): read up to its last whole "
               "event, the sessions still open end there, its skipped counts are not known\n");
    if (h->missing_files)
        printf("missing     %llu log file(s) gone or cut short during the capture, at least %llu "
               "bytes: their statements are not in it\n",
               (unsigned long long)h->missing_files, (unsigned long long)h->missing_bytes);
}

static const char *const protocols[] = {"simple", "extended-named", "extended-unnamed"};
static const char *const outcomes[] = {"unknown", "ok", "error"};

/* n bytes at p as JSON: their text (unless binary), or, binary or not UTF-8, bytea's hex
 * ("\\x0102"). */
static json_t *bytes_json(const char *p, size_t n, int binary)
{
    json_t *text = binary ? NULL : json_stringn(p, n);
    if (text)
        return text;
    char *hex = xmalloc(2 * n + 3);
    memcpy(hex, "\\x", 2);
    for (size_t k = 0; k < n; k++)
        snprintf(hex + 2 + 2 * k, 3, "%02x", (unsigned char)p[k]);
    hex[2 + 2 * n] = '\0';
    json_t *v = json_string(hex);
    free(hex);
    return v;
}

/* A parameter as JSON: null, or its value (bytes_json's). */
static json_t *param_json(const struct capture_statement *st, int i)
{
    if (!st->params[i])
        return json_null();
    size_t n = st->param_lengths ? (size_t)st->param_lengths[i] : strlen(st->params[i]);
    return bytes_json(st->params[i], n, st->param_formats && st->param_formats[i]);
}

static json_t *text_json(const char *s)
{
    return bytes_json(s, strlen(s), 0);
}

/* n name, value pairs as [[name, value], ...] in their order. */
static json_t *pairs_json(int n, const char *const *names, const char *const *values)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_pack("[o, o]", text_json(names[i]), text_json(values[i])));
    return a;
}

static json_t *event_json(const struct capture_event *ev)
{
    if (ev->kind == CAPTURE_EV_SESSION_END)
        return json_pack("{s:s, s:I, s:I}", "event", "end", "session", (json_int_t)ev->session.id,
                         "offset_us", (json_int_t)ev->session.offset_us);
    if (ev->kind == CAPTURE_EV_SESSION_START) {
        const struct capture_session *s = &ev->session;
        json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s}", "event", "start", "session",
                              (json_int_t)s->id, "offset_us", (json_int_t)s->offset_us, "log_id",
                              s->log_id, "user", s->user, "database", s->database);
        if (s->n_startup) /* version 2: the startup parameters, as pairs in their order */
            json_object_set_new(o, "startup",
                                pairs_json(s->n_startup, s->startup_names, s->startup_values));
        if (s->negotiated) { /* version 3: the server's NegotiateProtocolVersion */
            json_t *options = json_array();
            for (int i = 0; i < s->n_unrecognised; i++)
                json_array_append_new(options, text_json(s->unrecognised[i]));
            json_object_set_new(
                o, "negotiated",
                json_pack("{s:i, s:o}", "minor", s->negotiated_minor, "unrecognised", options));
        }
        return o;
    }
    const struct capture_statement *st = &ev->statement;
    json_t *params = json_array();
    for (int i = 0; i < st->n_params; i++)
        json_array_append_new(params, param_json(st, i));
    json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:o, s:I, s:s, s:s, s:s, s:I}", "event",
                          "statement", "session", (json_int_t)st->session, "offset_us",
                          (json_int_t)st->offset_us, "protocol", protocols[st->protocol], "name",
                          st->name, "text", st->text, "params", params, "duration_us",
                          (json_int_t)st->duration_us, "outcome", outcomes[st->outcome], "sqlstate",
                          st->sqlstate, "error", st->error, "cancel_us", (json_int_t)st->cancel_us);
    if (st->copy_kept) /* version 2: the COPY's rows are in the capture (their size here) */
        json_object_set_new(o, "copy_bytes", json_integer((json_int_t)st->copy_len));
    if (st->n_copy_parts) { /* version 3: each COPY's part of them, of a statement of several */
        json_t *parts = json_array();
        for (int i = 0; i < st->n_copy_parts; i++)
            json_array_append_new(parts, json_integer((json_int_t)st->copy_parts[i]));
        json_object_set_new(o, "copy_parts", parts);
    }
    if (st->copy_fail) /* version 3: the COPY its client ended with a CopyFail, its message */
        json_object_set_new(
            o, "copy_fail",
            json_pack("{s:i, s:s}", "copy", st->copy_fail_at, "message", st->copy_fail));
    if (st->param_formats) { /* version 3: the formats, binary values above as bytea's hex */
        json_t *f = json_array();
        for (int i = 0; i < st->n_params; i++)
            json_array_append_new(f, json_integer(st->param_formats[i]));
        json_object_set_new(o, "param_formats", f);
    }
    if (st->n_param_types > 0) {
        json_t *t = json_array();
        for (int i = 0; i < st->n_param_types; i++)
            json_array_append_new(t, json_integer(st->param_types[i]));
        json_object_set_new(o, "param_types", t);
    }
    if (st->n_result_formats > 0) {
        json_t *f = json_array();
        for (int i = 0; i < st->n_result_formats; i++)
            json_array_append_new(f, json_integer(st->result_formats[i]));
        json_object_set_new(o, "result_formats", f);
    }
    if (st->returned) { /* version 2: the value the server handed back (3: an id) */
        json_object_set_new(o, "returned", json_string(st->returned));
        if (st->returned_id)
            json_object_set_new(o, "returned_id", json_true());
    }
    if (st->same_sync) /* version 3: in its session's previous statement's Sync group */
        json_object_set_new(o, "same_sync", json_true());
    if (st->n_param_status) /* version 3: the settings the server reported changed */
        json_object_set_new(
            o, "param_status",
            pairs_json(st->n_param_status, st->param_status_names, st->param_status_values));
    if (st->n_type_names > 0) { /* version 3: the user's types its parameters hold, named */
        json_t *t = json_array();
        for (int i = 0; i < st->n_type_names; i++) {
            const struct capture_type_name *n = &st->type_names[i];
            json_array_append_new(t,
                                  json_pack("{s:I, s:s, s:s, s:s#, s:I}", "oid", (json_int_t)n->oid,
                                            "schema", n->schema, "name", n->name, "kind", &n->kind,
                                            1, "inner", (json_int_t)n->inner));
        }
        json_object_set_new(o, "type_names", t);
    }
    return o;
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
    if (events) {
        struct capture_reader *r = capture_reader_open(path, e);
        if (!r)
            return -1;
        rc = print_events(r, e);
        capture_reader_close(r);
        return rc;
    }
    struct capture_summary sum;
    if (capture_summarise(path, &sum, e) < 0)
        return -1;
    const struct capture_header *h = &sum.header;
    print_header(path, &sum);
    printf("statements  %llu: %llu simple, %llu extended named, %llu extended unnamed; "
           "%llu succeeded, %llu failed (%llu cancelled), %llu unknown\n",
           (unsigned long long)h->n_statements, (unsigned long long)sum.by_protocol[0],
           (unsigned long long)sum.by_protocol[1], (unsigned long long)sum.by_protocol[2],
           (unsigned long long)sum.ok, (unsigned long long)sum.failed,
           (unsigned long long)sum.cancelled, (unsigned long long)sum.unknown);
    print_protocols(&sum);
    if (h->n_statements) {
        print_classes(&sum, top);
        print_sets(&sum, top);
    }
    capture_summary_free(&sum);
    return 0;
}
