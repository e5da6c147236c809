#ifndef PGARENA_CAPTURE_PREPARE_INT_H
#define PGARENA_CAPTURE_PREPARE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/hash.h" /* hash_str: the session table and late ERRORs */
#include "capture/prepare.h"

/* Inside prepare: the sessions, the queued events and the entry handler. */

/* A session of the log. Owned by the table while open, then by the queued events that
 * refer to it (refs): the last one written frees it. */
struct psess {
    struct psess *next; /* in its bucket */
    char *log_id, *user, *database;
    struct pev *pending;        /* its last statement while still queued: an ERROR may follow */
    int64_t ext_us;             /* parse and bind time not yet given to an execute */
    int64_t last_us;            /* when its last statement written ended */
    int64_t last_start_us;      /* its last statement's start: the next one's earliest */
    uint32_t cap_id;            /* its number in CAPTURE, once emitted */
    uint32_t refs;              /* queued events that refer to it */
    unsigned emitted : 1;       /* its start is written */
    unsigned ended : 1;         /* its end is written */
    unsigned dropped : 1;       /* another user or database than asked */
    unsigned in_table : 1;      /* findable by its log id (not disconnected yet) */
    unsigned swallow_error : 1; /* its last statement was left out: so is that one's ERROR */
    unsigned late_valid : 1;    /* late_hash is set */
    uint64_t late_hash; /* the text of its last statement, written before any ERROR could come */
};

/* An event waiting in the reorder heap. */
struct pev {
    int64_t abs_us; /* the log's time */
    uint64_t seq;   /* order of arrival, for equal times */
    enum capture_event_kind kind;
    struct psess *s;
    enum capture_protocol protocol;
    char *name, *text, *error;
    char **params;
    int n_params;
    int64_t duration_us, cancel_us;
    enum capture_outcome outcome;
    char sqlstate[6];
    uint32_t fetches; /* "execute fetch from" its portal, folded into it (prepare_entry.c) */
};

struct prep {
    const struct prepare_opts *o;
    struct prepare_stats *stats;
    struct capture_writer *w;
    struct pev **heap;
    size_t heap_len, heap_cap;
    uint64_t seq;
    struct psess **buckets;
    size_t n_buckets, n_open;
    int64_t max_duration_us; /* the longest seen: widens the window */
    int started;
    int64_t origin_us;    /* the capture's start */
    int64_t last_us;      /* the last event written */
    int64_t file_last_us; /* the time of the current log's last entry read */
    int64_t watch_us;     /* the next log's first entry (its time and entry_hash), */
    uint64_t watch_hash;  /* seen in this one (watch_seen): they overlap */
    long watch_line;      /* and its number in its session (0: none) */
    int watch_seen;
    uint32_t next_id;
};

/* Queue ev (owned by the heap from now on). */
void prep_push(struct prep *p, struct pev *ev);

/* The open session of an entry; a new one is started (its start queued) at t. */
struct psess *prep_session_of(struct prep *p, const struct log_entry *le, int64_t t);

/* The open session with the log's session id, or NULL. */
struct psess *prep_session_find(struct prep *p, const char *log_id);

/* Free an event that is not queued. */
void prep_event_free(struct pev *ev);

/* Whether s is of the --database and --user asked (all when not given). */
int prep_keep_session(const struct prep *p, const struct psess *s);

/* Drop a session from the table at its disconnection (its end event owns it). */
void prep_session_close(struct prep *p, struct psess *s);

/* Turn one log entry into events. 0, or -1 with e set. */
int prep_entry(struct prep *p, const struct log_entry *le, struct err *e);

#endif
