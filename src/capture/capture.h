#ifndef PGARENA_CAPTURE_CAPTURE_H
#define PGARENA_CAPTURE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * CAPTURE: pgarena's replay file (format "pgarena-capture", CAPTURE_VERSION), written and
 * read as a stream, so a capture of any size needs memory for one event only.
 *
 * On disk it is gzip: a first member holding one line of JSON (the header: format, version,
 * source, start time, counts), then members holding the events as binary records in offset
 * order (LEB128 varints, offsets as deltas, strings as length + bytes). `zcat CAPTURE | head
 * -1` shows the header. The writer writes the events to a temporary file beside CAPTURE and
 * puts the header in front at close, when the counts are known; CAPTURE appears whole (by
 * rename) or not at all. A live writer (replay record's) writes CAPTURE as it goes instead.
 *
 * The events: a session starts (its number, user, database), its statements follow, it
 * ends. Sessions are numbered 0..n_sessions-1 in the order they start, so a reader can keep
 * per-session state in an array sized from the header.
 *
 * Ownership: the writer copies what it is given; what the reader hands out (strings,
 * params) belongs to the reader and is valid until the next capture_reader_next or
 * capture_reader_close.
 */

#define CAPTURE_FORMAT "pgarena-capture"
/* The newest version this pgarena reads and writes. A capture is written as version 1 unless
 * it holds what only version 2 holds (a session's startup parameters, a COPY FROM STDIN's
 * rows, an OID returned) or version 3 (an id a sequence gave, returned; parameter types and
 * formats, binary values; result formats; the settings a statement changed, a session's
 * NegotiateProtocolVersion; where each COPY's rows end in a statement of several; a COPY its
 * client ended with a CopyFail): older pgarena
 * then still reads the captures of server logs, and version 2's. */
#define CAPTURE_VERSION 3
/* The most rows of an INSERT's RETURNING whose ids a statement keeps. */
#define CAPTURE_RETURNED_ROWS_MAX 1000
/* The resolution of a server log's timestamps (csvlog, jsonlog, %m, %n): milliseconds. */
#define CAPTURE_LOG_RESOLUTION_US 1000

/* How the original client sent a statement. */
enum capture_protocol {
    CAPTURE_SIMPLE = 0,           /* a Query message (PQsendQuery) */
    CAPTURE_EXTENDED_NAMED = 1,   /* Parse once under a name, then Bind/Execute it */
    CAPTURE_EXTENDED_UNNAMED = 2, /* the unnamed statement: Parse/Bind/Execute each time */
};

/* What the statement did on the captured server. */
enum capture_outcome {
    CAPTURE_OUTCOME_UNKNOWN = 0, /* the log does not say (no ERROR line, no duration) */
    CAPTURE_OUTCOME_OK = 1,      /* a duration line, or no ERROR before the session's next one */
    CAPTURE_OUTCOME_ERROR = 2,   /* an ERROR line tied to it; sqlstate when the log has it */
};

enum capture_event_kind {
    CAPTURE_EV_SESSION_START = 1, /* event.session: all fields */
    CAPTURE_EV_STATEMENT = 2,     /* event.statement */
    CAPTURE_EV_SESSION_END = 3,   /* event.session: id and offset_us only */
};

struct capture_session {
    uint32_t id;          /* 0..n_sessions-1, in order of start */
    int64_t offset_us;    /* connect (start) or disconnect (end), µs from the capture's start */
    const char *log_id;   /* the server's session id (%c), "" when unknown */
    const char *user;     /* "" when the log did not say */
    const char *database; /* "" when the log did not say */
    /* SESSION_START of a recorded capture (version 2): every startup parameter as the client
     * sent it (user and database among them), in its order; 0 and NULL otherwise. */
    int n_startup;
    const char *const *startup_names, *const *startup_values;
    /* SESSION_START of a recorded capture whose server answered the startup with a
     * NegotiateProtocolVersion (version 3; a startup asking protocol 3.2 of an older server,
     * or naming a _pq_ option it does not know): negotiated 1, the newest minor version of
     * protocol 3 the server supports, and the options it did not recognise, in its order;
     * all 0 and NULL otherwise. */
    int negotiated, negotiated_minor, n_unrecognised;
    const char *const *unrecognised;
};

/* A user's type (OID 16384 or above) a statement's parameters may hold, named as the
 * capture's server named it (version 3, recorded): a replay sends its own server's OID for
 * the same schema and name. kind says how a binary value of it holds other types' OIDs: 'a'
 * an array (its header names its element type, inner), 'c' a composite (each field names its
 * type), 'd' a domain (a value of its base type, inner), 'o' none. */
#define CAPTURE_FIRST_USER_OID 16384u /* PostgreSQL's FirstNormalObjectId */
struct capture_type_name {
    uint32_t oid;
    const char *schema, *name;
    char kind;
    uint32_t inner;
};

struct capture_statement {
    uint32_t session;  /* the session's id */
    int64_t offset_us; /* when it started, µs from the capture's start */
    enum capture_protocol protocol;
    const char *name; /* the prepared statement's name (EXTENDED_NAMED), else "" */
    const char *text; /* the statement's text (for a named one, the text it was prepared with) */
    int n_params;
    const char *const *params; /* n_params values as text; NULL is SQL NULL */
    /* Version 3 (recorded): parameters as the client bound them. param_formats NULL: every
     * one text; else n_params formats, 0 text, 1 binary (that value's bytes in params, NUL
     * terminated for reading but of param_lengths' length). param_lengths: each value's bytes
     * (-1 NULL); a writer may leave it NULL when every value is text. param_types: the
     * n_param_types type OIDs of its Parse (0: the server infers it), NULL when none. A Bind's
     * result-column formats as sent (n_result_formats 0: all text; 1: all in that one). */
    const int *param_formats, *param_lengths;
    int n_param_types;
    const uint32_t *param_types;
    int n_result_formats;
    const int *result_formats;
    int64_t duration_us; /* the original duration, -1 when unknown */
    enum capture_outcome outcome;
    char sqlstate[6];  /* with CAPTURE_OUTCOME_ERROR: the SQLSTATE, "" when unknown */
    const char *error; /* with CAPTURE_OUTCOME_ERROR: the message ("" when unknown), else "" */
    int64_t cancel_us; /* µs after its start at which the original was cancelled, -1 if not */
    /* A COPY ... FROM STDIN whose rows the capture holds (version 2: recorded by the proxy):
     * copy_kept 1, and the data the client sent (its CopyData messages' bytes, in order;
     * copy_len may be 0). 0 otherwise (a log holds no rows). */
    int copy_kept;
    const uint8_t *copy_data;
    size_t copy_len;
    /* Version 3 (recorded): a statement of several COPY FROM STDIN (psql's `COPY a FROM
     * STDIN\; COPY b FROM STDIN`), each given its own rows: where each one's rows end in
     * copy_data, as the n_copy_parts (2 or more) byte lengths in order, summing to copy_len.
     * 0 and NULL otherwise: copy_data is the one COPY's. */
    int n_copy_parts;
    const size_t *copy_parts;
    /* Version 3 (recorded): the client ended the statement's COPY FROM STDIN numbered
     * copy_fail_at (from 0, in the order of copy_parts; the server's error ends the statement
     * there) with a CopyFail carrying this message, its rows before it kept (copy_kept); NULL
     * and 0 otherwise. */
    const char *copy_fail;
    int copy_fail_at;
    /* Version 2 (recorded): the value the server returned when a later statement may carry it
     * as a literal and a replay's server returns another (one row of one column of type oid:
     * lo_create, lo_import, lo_from_bytea...), as text; NULL otherwise. Version 3:
     * returned_id 1 when it is an id a sequence gave (an INSERT's RETURNING, currval...),
     * which a replay maps only where a value stands in a later statement; an INSERT of
     * several rows' ids are its rows' in order, a '\n' between them (at most
     * CAPTURE_RETURNED_ROWS_MAX). */
    const char *returned;
    int returned_id;
    /* Version 3 (recorded): no Sync between it and its session's previous Execute (a batch,
     * a pipeline: one implicit transaction with it, which an error ends for all). */
    int same_sync;
    /* Version 3 (recorded): the settings the server reported changed (its ParameterStatus
     * messages after the login: SET TimeZone, RESET ALL, SET SESSION AUTHORIZATION's
     * is_superuser...) with this statement, in their order; on PostgreSQL 14 and later, which
     * reports at the end of a Sync group, with its last statement. 0 and NULL when none. */
    int n_param_status;
    const char *const *param_status_names, *const *param_status_values;
    /* Version 3 (recorded): the user's types its Parse named, and those their values hold
     * (an array's element, a composite's fields, a domain's base, and theirs in turn). */
    int n_type_names;
    const struct capture_type_name *type_names;
};

struct capture_event {
    enum capture_event_kind kind;
    struct capture_session session;     /* SESSION_START, SESSION_END */
    struct capture_statement statement; /* STATEMENT */
};

/* What a capture leaves out as unsupported, by kind, each with the text of its first
 * statement (cut to CAPTURE_EXAMPLE_MAX - 1 bytes). Older captures have none (all zero). */
enum capture_unsupported {
    CAPTURE_UNSUP_FETCH,                 /* older captures: a portal's fetch (now folded) */
    CAPTURE_UNSUP_PARAMETERS_NOT_LOGGED, /* $n without the log's "parameters:" */
    CAPTURE_UNSUP_PARAMETERS_UNREADABLE, /* a "parameters:" ("Parameters:") that does not read */
    CAPTURE_UNSUP_OUT_OF_ORDER,          /* logged after its session's end */
    CAPTURE_UNSUP_PARAMETERS_CUT,        /* a value log_parameter_max_length cut ('...') */
    CAPTURE_UNSUP_BINARY_PARAMETERS,     /* recorded: parameters in binary format */
    CAPTURE_UNSUP_FUNCTION_CALL,         /* recorded: a FunctionCall not libpq's lo_* */
    CAPTURE_UNSUP__COUNT
};
#define CAPTURE_EXAMPLE_MAX 200
/* The kinds' names in the header, result files and `replay show`. */
extern const char *const capture_unsupported_names[CAPTURE_UNSUP__COUNT];
struct capture_unsupported_kind {
    uint64_t count;
    char example[CAPTURE_EXAMPLE_MAX];
};
/* Count one statement of kind k (text: its example when the first). */
void capture_count_unsupported(struct capture_unsupported_kind *kinds, enum capture_unsupported k,
                               const char *text);

/* The COPY ... FROM STDIN statements a capture keeps (their data is not in the log: a replay
 * loads it from a file, replay --copy-from, or skips them), by table: the first
 * CAPTURE_COPY_TABLES tables apart, the rest in other. kept: the capture holds them (older
 * captures left them out, counted in skipped_copy). */
#define CAPTURE_COPY_TABLES 32
struct capture_copy_table {
    char table[128];
    uint64_t count;
};
struct capture_copy_in {
    int kept;
    uint64_t with_rows; /* of those counted, the ones whose rows the capture holds (version 2) */
    size_t n_tables;
    struct capture_copy_table tables[CAPTURE_COPY_TABLES];
    uint64_t other;
};
/* The table of a COPY ... FROM STDIN as the server reads its name (unquoted parts in lower
 * case, quoted ones as written, "schema.table" when qualified) into table: 0, -1 when text
 * names none (a query's COPY, or a name too long). */
int capture_copy_table_of(const char *text, char *table, size_t size);
/* Count one COPY into table in c. */
void capture_count_copy(struct capture_copy_in *c, const char *table);
/* Count text in c when it is a COPY ... FROM STDIN whose table reads (capture/sqltext.h). */
void capture_count_copy_of(struct capture_copy_in *c, const char *text);
/* Count a recorded statement in c: by the table of its COPY ... FROM STDIN (its first
 * statement's, or, when its rows were recorded, its first COPY FROM STDIN's in a statement of
 * several), and in with_rows when its rows were recorded (st->copy_kept). */
void capture_count_copy_statement(struct capture_copy_in *c, const struct capture_statement *st);

/* The header. At close the writer fills version, duration_us, n_sessions and n_statements
 * itself; the caller gives the rest. */
struct capture_header {
    int version;                /* 1 to 3 (set by the writer: the lowest that holds the events) */
    char system_identifier[32]; /* the source's, "" when unknown (only `replay capture` knows) */
    char address[256];          /* the source's host or address, "" when unknown */
    int port;                   /* the source's port, 0 when unknown */
    int64_t start_us;           /* the capture's start, µs since the Unix epoch (UTC) */
    int64_t duration_us;        /* the last event's offset */
    /* How precise the events' times are: an event's true time lies in [offset, offset +
     * time_resolution_us). A server log's are milliseconds (CAPTURE_LOG_RESOLUTION_US, also
     * what a header without the field means); 0: exact. The order across sessions uses it. */
    int64_t time_resolution_us;
    uint64_t n_sessions;
    uint64_t n_statements;
    uint64_t skipped_copy;        /* COPY ... FROM STDIN: the data is not in the log */
    uint64_t skipped_secret;      /* statements carrying a password: never written */
    uint64_t skipped_unsupported; /* what the log shows but a replay cannot send */
    struct capture_unsupported_kind unsupported[CAPTURE_UNSUP__COUNT]; /* its kinds */
    struct capture_copy_in copy_in;
    /* replay capture: the log it could not read whole (files gone or truncated during it,
     * at least these bytes); 0 when whole (and for prepare's captures) */
    uint64_t missing_files, missing_bytes;
    /* "execute fetch from" (more rows of a portal started before) folded into the portal's
     * first execute, which a replay runs whole; 0 in older captures (they counted them as
     * unsupported "fetch") */
    uint64_t portal_fetches;
    /* Recorded: statements the client sent before its previous one's result (a pipeline),
     * which a replay sends each after the one before; 0 in a log's capture (the log cannot
     * tell) and in older ones */
    uint64_t pipelined;
    /* Recorded: statements in their session's previous one's Sync group (no Sync between
     * them: one implicit transaction, which an error ends for all), which a replay sends with
     * one Sync per group; 0 in a log's capture and in older ones */
    uint64_t same_sync;
    /* Read from a capture its recorder never closed (replay record killed): the counts
     * above are its whole records' (what the recorder did not keep apart, skipped and
     * unsupported, is not known); each session still open ends at the last event. */
    int cut;
};

struct capture_writer;
struct capture_reader;

/* Start writing CAPTURE at path: events go to a temporary file beside it. NULL with e set
 * (ERR_INPUT) when it cannot be created. */
struct capture_writer *capture_writer_open(const char *path, struct err *e);

/* Append a session's start; s->id must be the next number (0, 1, ...) and s->offset_us not
 * before the previous event's (an earlier one is written at the previous event's offset, so
 * the stream stays in order). 0, or -1 with e set (write error, wrong id). */
int capture_write_session_start(struct capture_writer *w, const struct capture_session *s,
                                struct err *e);

/* Append a statement of a started, not ended session (offsets as above). 0 or -1 with e set. */
int capture_write_statement(struct capture_writer *w, const struct capture_statement *st,
                            struct err *e);

/* Append the end of a started session. 0 or -1 with e set. */
int capture_write_session_end(struct capture_writer *w, uint32_t session, int64_t offset_us,
                              struct err *e);

/* A live writer (replay record's): CAPTURE itself is written as the events come, in a form
 * capture_reader_open reads whole up to the last event written even when the writer never
 * closes it (killed: header.cut). capture_writer_begin writes its header first (h: the
 * source and start; the counts come at close), capture_writer_sync makes what was written
 * readable (a gzip sync flush), and close puts the header with the counts in front as
 * capture_writer_close does. An abort leaves CAPTURE as it was written. */
struct capture_writer *capture_writer_open_live(const char *path, struct err *e);
int capture_writer_begin(struct capture_writer *w, const struct capture_header *h, struct err *e);
int capture_writer_sync(struct capture_writer *w, struct err *e);

/* Put the header (h, its counts completed by the writer) in front of the events and rename
 * the file into place; frees w in every case. 0, or -1 with e set and no CAPTURE left. */
int capture_writer_close(struct capture_writer *w, const struct capture_header *h, struct err *e);

/* Give up: remove the temporary file and free w (NULL is fine). */
void capture_writer_abort(struct capture_writer *w);

/* Open CAPTURE at path and read its header. NULL with e set (ERR_INPUT: "PATH: ...") when it
 * is missing, not a capture, or of another version. */
struct capture_reader *capture_reader_open(const char *path, struct err *e);

/* The header read at open; valid until close. */
const struct capture_header *capture_reader_header(const struct capture_reader *r);

/* The next event into ev: 1 read, 0 at the end (after the last event, with the counts
 * checked against the header), -1 with e set (ERR_INPUT, "PATH: record N: ...") when the
 * file is truncated or corrupt. */
int capture_reader_next(struct capture_reader *r, struct capture_event *ev, struct err *e);

/* Close and free r (NULL is fine). */
void capture_reader_close(struct capture_reader *r);

/* What a capture holds, read through once (replay show): the header, the statements by
 * protocol and outcome, and per statement class (the text normalised: capture/normalize.h)
 * its count, failures and original durations. At most CAPTURE_SUMMARY_MAX_CLASSES classes
 * are kept apart; statements of any further class count in `other`, so memory stays bounded.
 * Ownership: the summary owns its classes (capture_summary_free). */

#define CAPTURE_SUMMARY_MAX_CLASSES 100000

struct capture_class {
    char *text;
    uint64_t count, failed;
    int64_t total_us; /* of the statements with a known duration */
    uint64_t timed;   /* how many had one */
};

struct capture_summary {
    struct capture_header header;
    uint64_t by_protocol[3]; /* by enum capture_protocol */
    /* Named statements: their distinct names (at most CAPTURE_SUMMARY_MAX_CLASSES, the rest
     * not counted), and the prepares a replay sends for them: a name's first use in its
     * session, again after the session deallocated it (DEALLOCATE, DISCARD ALL, unless it
     * failed) or used it for another text. */
    uint64_t named_names, named_prepares;
    /* DEALLOCATE and DISCARD statements, by enum sqltext_unprepare (NONE unused). */
    uint64_t unprepare[4];
    uint64_t ok, failed, unknown, cancelled;
    uint64_t param_status; /* the settings the server reported changed (version 3) */
    size_t n_classes;
    struct capture_class *classes; /* by count, most first, then by text */
    struct capture_class other;    /* the classes beyond the cap (text "") */
    /* The SET statements as written (white space trimmed), by count, most first: what the
     * capture's sessions set themselves (what a driver sent at startup is not in a log). At
     * most CAPTURE_SUMMARY_MAX_SETS apart, the rest in other_sets. */
    size_t n_sets;
    struct capture_class *sets;
    struct capture_class other_sets;
};

#define CAPTURE_SUMMARY_MAX_SETS 1000

/* Read CAPTURE at path through and summarise it into s. 0, or -1 with e set as
 * capture_reader_open and capture_reader_next set it (s is then empty). */
int capture_summarise(const char *path, struct capture_summary *s, struct err *e);

void capture_summary_free(struct capture_summary *s);

#endif
