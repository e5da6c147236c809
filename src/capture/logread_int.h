#ifndef PGARENA_CAPTURE_LOGREAD_INT_H
#define PGARENA_CAPTURE_LOGREAD_INT_H

#include <stddef.h>
#include <stdint.h>

/* Inside the log reader: the stderr prefix (log_prefix.c). */

#define LOG_PREFIX_MAX_ITEMS 32

/* One piece of a log_line_prefix: literal text, or a %-escape (its letter). */
struct log_prefix_item {
    char field;   /* 0 for literal text, else the escape's letter (m, n, c, u, d, ...) */
    char lit[32]; /* the literal */
    size_t lit_len;
};

struct log_prefix {
    struct log_prefix_item items[LOG_PREFIX_MAX_ITEMS];
    int n_items;
    char spec[128];     /* as given or inferred, for messages */
    char session_field; /* 'c', or 'p' when the prefix has a pid but no session id */
};

/* What a match found in one line; pointers into the line, lengths beside them. */
struct log_prefix_match {
    int64_t time_us;
    const char *session, *user, *database, *sqlstate;
    size_t session_len, user_len, database_len, sqlstate_len;
    const char *severity;
    size_t severity_len;
    const char *message; /* after "SEVERITY:  " */
};

/* Compile a log_line_prefix; -1 with msg set when it lacks a millisecond time or a session
 * id (%c, or failing that the pid %p: then a new connection of a pid starts a new session). */
int log_prefix_compile(struct log_prefix *p, const char *spec, char *msg, size_t msg_size);

/* Match a line (not NUL-terminated: n bytes); 0 on a match, -1 otherwise. */
int log_prefix_match(const struct log_prefix *p, const char *line, size_t n,
                     struct log_prefix_match *m);

/* Infer a prefix from one line written by a client backend (its message begins "statement:",
 * "execute", "duration:" or "connection authorized:"); 0 when a usable one was found. */
int log_prefix_infer(struct log_prefix *p, const char *line, size_t n);

/* The severity word at line[0..n) followed by ":  " (its length, 0 when none). */
size_t log_severity_at(const char *s, size_t n);

#endif
