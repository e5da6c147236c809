/* mkcapture: write a CAPTURE from a plain description, for tests and benchmarks (built by
 * `make unit` as build/tests/mkcapture; not installed).
 *
 *   mkcapture OUT < DESCRIPTION
 *     one event or header field per line, fields separated by tabs, in offset order:
 *       H  key  value         system_identifier, address, port, start_us, skipped_copy,
 *                             skipped_secret, skipped_unsupported, time_resolution_us
 *                             (default 0: the offsets are exact)
 *       S  id  offset_us  user  database
 *       E  id  offset_us
 *       Q  session  offset_us  simple|named|unnamed  name  duration_us  ok|error|unknown
 *          sqlstate  cancel_us  n_params  param...  text
 *     (\N is a NULL parameter, \n and \t in a text or parameter are a newline and a tab)
 *   mkcapture OUT --select SESSIONS STATEMENTS GAP_US [ACCOUNTS]
 *     SESSIONS sessions side by side, each STATEMENTS of pgbench's select-only statement
 *     GAP_US apart (simple protocol), for benchmarks and the memory check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] == 'n')
            *o++ = '\n', s++;
        else if (s[0] == '\\' && s[1] == 't')
            *o++ = '\t', s++;
        else
            *o++ = *s;
    }
    *o = '\0';
}

static int die(const struct err *e)
{
    fprintf(stderr, "mkcapture: %s\n", e->msg);
    return 2;
}

static int select_capture(struct capture_writer *w, struct capture_header *h, int argc, char **argv)
{
    struct err e = {0};
    long sessions = atol(argv[3]), statements = atol(argv[4]), gap = atol(argv[5]);
    long accounts = argc > 6 ? atol(argv[6]) : 100000;
    for (long s = 0; s < sessions; s++) {
        struct capture_session cs = {.id = (uint32_t)s, .log_id = "", .user = "", .database = ""};
        if (capture_write_session_start(w, &cs, &e) < 0)
            return die(&e);
    }
    char text[128];
    unsigned long long x = 88172645463325252ULL;
    for (long k = 0; k < statements; k++) {
        for (long s = 0; s < sessions; s++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            snprintf(text, sizeof text, "SELECT abalance FROM pgbench_accounts WHERE aid = %llu;",
                     x % (unsigned long long)accounts + 1);
            struct capture_statement st = {.session = (uint32_t)s,
                                           .offset_us = k * gap,
                                           .protocol = CAPTURE_SIMPLE,
                                           .name = "",
                                           .text = text,
                                           .duration_us = gap / 2,
                                           .outcome = CAPTURE_OUTCOME_OK,
                                           .error = "",
                                           .cancel_us = -1};
            if (capture_write_statement(w, &st, &e) < 0)
                return die(&e);
        }
    }
    for (long s = 0; s < sessions; s++)
        if (capture_write_session_end(w, (uint32_t)s, statements * gap, &e) < 0)
            return die(&e);
    if (capture_writer_close(w, h, &e) < 0)
        return die(&e);
    return 0;
}

static void header_field(struct capture_header *h, const char *key, const char *v)
{
    if (strcmp(key, "system_identifier") == 0)
        snprintf(h->system_identifier, sizeof h->system_identifier, "%s", v);
    else if (strcmp(key, "address") == 0)
        snprintf(h->address, sizeof h->address, "%s", v);
    else if (strcmp(key, "port") == 0)
        h->port = atoi(v);
    else if (strcmp(key, "start_us") == 0)
        h->start_us = atoll(v);
    else if (strcmp(key, "time_resolution_us") == 0)
        h->time_resolution_us = atoll(v);
    else if (strcmp(key, "skipped_copy") == 0)
        h->skipped_copy = strtoull(v, NULL, 10);
    else if (strcmp(key, "skipped_secret") == 0)
        h->skipped_secret = strtoull(v, NULL, 10);
    else if (strcmp(key, "skipped_unsupported") == 0)
        h->skipped_unsupported = strtoull(v, NULL, 10);
}

#define MAX_FIELDS 64

static int described(struct capture_writer *w, struct capture_header *h)
{
    static char line[1 << 20];
    struct err e = {0};
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *f[MAX_FIELDS];
        int n = 0;
        for (char *p = line; n < MAX_FIELDS;) {
            f[n++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = '\0';
            p = tab + 1;
        }
        for (int i = 0; i < n; i++)
            unescape(f[i]);
        int rc = 0;
        if (f[0][0] == 'H' && n >= 3) {
            header_field(h, f[1], f[2]);
        } else if (f[0][0] == 'S' && n >= 5) {
            struct capture_session s = {.id = (uint32_t)atol(f[1]),
                                        .offset_us = atoll(f[2]),
                                        .log_id = "",
                                        .user = f[3],
                                        .database = f[4]};
            rc = capture_write_session_start(w, &s, &e);
        } else if (f[0][0] == 'E' && n >= 3) {
            rc = capture_write_session_end(w, (uint32_t)atol(f[1]), atoll(f[2]), &e);
        } else if (f[0][0] == 'Q' && n >= 11) {
            int np = atoi(f[9]);
            if (np < 0 || 10 + np + 1 > n) {
                fprintf(stderr, "mkcapture: bad line (parameters)\n");
                return 2;
            }
            const char *params[MAX_FIELDS];
            for (int i = 0; i < np; i++)
                params[i] = strcmp(f[10 + i], "\\N") == 0 ? NULL : f[10 + i];
            struct capture_statement st = {
                .session = (uint32_t)atol(f[1]),
                .offset_us = atoll(f[2]),
                .protocol = strcmp(f[3], "named") == 0     ? CAPTURE_EXTENDED_NAMED
                            : strcmp(f[3], "unnamed") == 0 ? CAPTURE_EXTENDED_UNNAMED
                                                           : CAPTURE_SIMPLE,
                .name = f[4],
                .duration_us = atoll(f[5]),
                .outcome = strcmp(f[6], "ok") == 0      ? CAPTURE_OUTCOME_OK
                           : strcmp(f[6], "error") == 0 ? CAPTURE_OUTCOME_ERROR
                                                        : CAPTURE_OUTCOME_UNKNOWN,
                .error = "",
                .cancel_us = atoll(f[8]),
                .n_params = np,
                .params = params,
                .text = f[10 + np],
            };
            snprintf(st.sqlstate, sizeof st.sqlstate, "%s", f[7]);
            rc = capture_write_statement(w, &st, &e);
        } else if (f[0][0] && f[0][0] != '#') {
            fprintf(stderr, "mkcapture: bad line: %s\n", f[0]);
            return 2;
        }
        if (rc < 0)
            return die(&e);
    }
    if (capture_writer_close(w, h, &e) < 0)
        return die(&e);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argc > 2 && strcmp(argv[2], "--select") == 0 && argc < 6)) {
        fprintf(stderr, "usage: mkcapture OUT < DESCRIPTION | mkcapture OUT --select SESSIONS "
                        "STATEMENTS GAP_US [ACCOUNTS]\n");
        return 2;
    }
    struct err e = {0};
    struct capture_writer *w = capture_writer_open(argv[1], &e);
    if (!w)
        return die(&e);
    struct capture_header h = {0};
    if (argc > 2 && strcmp(argv[2], "--select") == 0)
        return select_capture(w, &h, argc, argv);
    return described(w, &h);
}
