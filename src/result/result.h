#ifndef PGARENA_RESULT_RESULT_H
#define PGARENA_RESULT_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "result/health.h"
#include "result/run_id.h"
#include "result/part.h"
#include "result/server_io.h"
#include "stats/hist.h"
#include "stats/summary.h"

/*
 * The result file: a versioned JSON document (format "pgarena-result", version 3) written
 * atomically, and read back for show, compare and report. docs/result.schema.json describes
 * its paths (README.md, "The result file", lists them).
 * Ownership: struct result owns every string and array it points to (result_free). Strings
 * may be NULL when absent.
 */

#define RESULT_FORMAT "pgarena-result"
/* Version 2: interval histograms in compact form (stats/hist_compact.h). Version 3: sampled
 * figures compact (server_io without its zeros, client_cpu and host as arrays of integers),
 * and a one-script run's summary.scripts[0] without the histogram it shares with the
 * document's. The reader reads 1, 2 and 3. */
#define RESULT_VERSION 3

enum {
    RESULT_ERR_SERIALIZATION,
    RESULT_ERR_DEADLOCK,
    RESULT_ERR_CONNECTION,
    RESULT_ERR_TIMEOUT,
    RESULT_ERR_OTHER,
    RESULT_N_ERRORS
};

extern const char *const result_error_names[RESULT_N_ERRORS];

struct result_script_text {
    char *name;
    int weight;
    char *text;
};

/* summary.scripts[]: one script's share of the run. */
struct result_script_figures {
    char *name;
    int weight;
    uint64_t transactions;
    uint64_t failed;
    /* pgbench 18's per script: transactions retried, starts skipped (-R --latency-limit);
     * summary.scripts[] only (0 in files before them) */
    uint64_t retried, skipped;
    double tps;
    struct latency_summary latency_us; /* stddev and p999 are not written */
    struct hist_sparse histogram;      /* its successful transactions (mergeable) */
};

/* waits.events and intervals[].waits: a wait event ("Lock:transactionid", or "CPU" for an
 * active backend without one) and how many times a sampled backend of the run was in it. */
struct result_wait {
    char *name;
    uint64_t count;
};

/* The newest name of a wait event renamed between majors ("IO:WALSync" in 16 is "IO:WalSync"
 * from 17), name itself when it was not renamed. */
const char *result_wait_name_current(const char *name);

/* intervals[].host: the host's CPU shares (fractions of all its CPU time) and disk bytes,
 * when the server runs on the client's host. Files before steal was recorded have four
 * shares: has_steal is 0 and steal 0 then. */
struct result_host {
    double user, system, iowait, idle;
    int64_t read_bytes, write_bytes;
    double steal;
    int has_steal;
};

/* Shares (fractions summing to about 1) as n integers summing to exactly total, by largest
 * remainder: each gets the floor of its exact part and the units left go to the largest
 * remainders (the lower index first on a tie). Shares summing to 0 or less give all zeros.
 * n is at most RESULT_SHARES_MAX. */
#define RESULT_SHARES_MAX 8
void result_round_shares(const double *share, size_t n, int64_t total, int64_t *out);

/* At most this many wait events are kept per interval (the interval's top ones). */
#define RESULT_INTERVAL_WAITS 6

/* tx_100ms: an interval's transactions in each of its tenths. */
#define RESULT_INTERVAL_TENTHS 10

struct result_interval {
    double t_s;        /* end of the interval, seconds since the measured start */
    double duration_s; /* its length (the last one may be shorter) */
    uint64_t transactions;
    uint64_t failed;
    /* tx_100ms, a duet half's only (a duet compares half-seconds): the transactions that
     * completed in each 100 ms of the interval, summing to transactions; n_tenths the 100 ms
     * it covers (fewer in a short last interval), 0: none. */
    size_t n_tenths;
    uint64_t tenths[RESULT_INTERVAL_TENTHS];
    double tps;
    double p50_us, p99_us, max_us;
    /* Its latencies: count, min_us, max_us, sum_us and sumsq_us always; the bins either here
     * or, for an interval read from a version-2 file, still in their compact text (compact,
     * checked when read), decoded only when a figure needs them (result_interval_add,
     * result_interval_merge, result_interval_decoded): a 24-hour file's 86,400 decoded
     * histograms would take hundreds of MB, their text a tenth of that. */
    struct hist_sparse histogram;
    char *compact; /* NULL when histogram.bins holds the bins */
    size_t compact_len;
    /* Sampling; absent without it. */
    size_t n_waits;
    struct result_wait *waits; /* the interval's top events, highest count first */
    int has_client_cpu;
    double cpu_user, cpu_system; /* the client process's CPU in cores (1.0: one core busy) */
    int has_host;
    struct result_host host;
    /* server_io (result/server_io.h); sio.have == 0: none */
    struct result_sio sio;
    struct result_interval_health health; /* client_health (result/health.h) */
};

/* Free what an interval owns (its histogram and wait events). */
void result_interval_clear(struct result_interval *it);

/* Figures of intervals (result/figures.c): n things an interval counted, a second (NaN for an
 * interval without a length); its transactions a second (the tps it was written with when it
 * has no length); how many intervals are whole, leaving out a last one shorter than the first
 * (the run ended inside it). */
double result_interval_rate(const struct result_interval *it, double n);
double result_interval_tps(const struct result_interval *it);
size_t result_whole_intervals(const struct result *r);

/* Add the interval's latencies to h (decoding them when they are kept compact): 0, or -1
 * when a value is out of h's range. */
int result_interval_add(struct hist *h, const struct result_interval *it);
/* Merge the interval's latencies into acc (decoding them when kept compact). 0, or -1 when
 * the compact text does not decode (it was checked when read: not from a file read). */
int result_interval_merge(struct hist_sparse *acc, const struct result_interval *it);
/* The interval's latencies with their bins, in out (the caller frees it with
 * hist_sparse_free): a copy, or the compact text decoded. 0, or -1 as result_interval_merge. */
int result_interval_decoded(const struct result_interval *it, struct hist_sparse *out);

/* waits: what the sampler saw over the whole measured part. */
struct result_waits {
    int present;      /* 0: no sampling (--no-sampling, or a file written before it) */
    int sample_ms;    /* sampling period */
    uint64_t samples; /* sampling rounds */
    size_t n_events;
    struct result_wait *events; /* every event seen, highest count first */
    char *visibility;           /* "all", "own-user" (pg_stat_activity shows only the user's
                                   sessions), or NULL when unknown */
    char *note;                 /* why events are missing, or NULL */
};

/* client_cpu: the client process over the whole measured part. */
struct result_client_cpu {
    int present;
    double user, system;    /* mean cores */
    double max_thread_core; /* the busiest thread's share of one core */
};

/* statements_server[]: a statement's pg_stat_statements delta over the measured part. */
struct result_server_statement {
    char *query;
    uint64_t calls;
    double total_ms, mean_ms;
    uint64_t rows;
};

struct result_statement {
    char *script; /* the script's name */
    int line;     /* line of the command in the script */
    char *sql;
    uint64_t count;
    double mean_us, p99_us;
};

struct result_client {
    uint64_t transactions;
    uint64_t failed;
};

/* server.settings: a setting as SHOW prints it, and whether it differs from PostgreSQL's
 * built-in default (listed in server.non_default_settings). */
struct result_setting {
    char *name;
    char *value;
    int non_default;
};

/* server.warnings[]: a setting or fact that makes the numbers lie or the data unsafe. */
struct result_warning {
    char *setting;
    char *value;
    char *message;
};

/* server.tables[]: a user table of the benchmark's database, before the run. */
struct result_table {
    char *name;
    int64_t bytes;       /* heap and TOAST */
    int64_t index_bytes; /* all its indexes */
};

/* A size of a workload's dataset besides its scale (so many tables of so many rows), at
 * workload.KEY in the file. Its workload declares the form (struct workload's sizes);
 * result_sizes_register hands result/ every form, and a file's sizes of no registered form are
 * not read. A dataset with sizes is told by them, joined by " × ": "2 tables × 10,000 rows". */
struct result_size_form {
    const char *key;        /* in the workload object */
    const char *one, *many; /* written after the number when it is 1, and otherwise */
    int grouped;            /* the number with thousands separators */
};

struct result_size {
    const struct result_size_form *form;
    int64_t value; /* > 0 */
};

#define RESULT_MAX_SIZES 4

/* Hand result/ the forms of the sizes it reads (NULL-terminated; kept, not copied). */
void result_sizes_register(const struct result_size_form *const *forms);

/* server_stats: one delta over the measured part; known is 0 when it could not be read. */
struct result_stat {
    char *name;
    int64_t value;
    int known;
};

/* One scalar of the environment sections (client, server, workload, options) of a file, by
 * its dotted path ("options.clients", "server.settings.work_mem"). Elements of an array share
 * the array's path ("server.warnings.message" once per warning). */
struct result_env_item {
    char *path;
    char *value;
};

/* agent: one agent's share of a run split over several load hosts (run --agents). In a merged
 * result, agents[] holds each agent's object with its figures filled too. */
struct result_agent {
    int index, count;
    char *run_id;
    double clock_offset_us;      /* the server's clock minus this host's */
    double clock_uncertainty_us; /* the offset is known to +/- this (half the best round trip) */
    int64_t start_us;            /* measured start on the server's clock, us since the Unix epoch;
                                    0 unknown */
    int64_t start_local_us;      /* the same on this host's own clock */
    /* agents[] only: the agent's host and figures */
    char *host;
    int clients;
    double rate;
    uint64_t transactions;
    double tps, p99_us;
    int complete;
    char *end_reason;
    int has_cpu; /* the client process's CPU (sampling), in cores */
    double cpu_user, cpu_system;
};

/* merge: what a merged result (n_agents > 0) says about its agents. */
struct result_merge {
    double start_spread_us;      /* latest minus earliest measured start, server clock */
    double clock_uncertainty_us; /* the largest of the agents' */
    int64_t server_xact_commit;  /* the server's commits over the run (first agent's delta);
                                    -1 unknown */
    uint64_t transactions;       /* summed over the agents, to compare with it */
    int aligned;                 /* intervals aligned by absolute time (else by index) */
};

/* meta: run --meta KEY=VALUE, free metadata (a commit, a build, a ticket), in the order
 * given; a key appears once. */
struct result_meta {
    char *key;
    char *value;
};

/* A schedule lag's figures: how late things were started or sent behind their schedule. */
struct result_lag {
    double p50_us, p99_us, max_us;
    struct hist_sparse hist; /* so results merge exactly; count 0: none (nothing measured,
                              * or a file written before it kept one) */
};

/* Whether a lag was measured: a histogram, or (a merge or recover of files without one) its
 * bounds. */
int result_lag_known(const struct result_lag *l);

/* At most this many classes in summary.classes[], besides "other". */
#define RESULT_MAX_CLASSES 200

struct result {
    char *label;
    char *started_at;
    char *finished_at;
    char *command; /* password masked */
    int complete;
    char *end_reason; /* "finished", "interrupted", "server-lost", "error" */
    /* recover only (else 0): the run time that clients[], statements[], summary.scripts[] and
     * the summary's retried, retries, skipped, late, errors and lag are counted through (the
     * journal's last counters line); the summary's other figures are every interval's. */
    double counters_as_of_s;

    struct {
        char *hostname, *os, *pgarena_version, *libpq_version;
        char *kernel, *cpu_model, *distribution; /* NULL when unknown */
        int cpus;
        int64_t memory_bytes;
    } client;
    struct {
        char *version;
        size_t n_settings;
        struct result_setting *settings;
        int64_t database_size_bytes; /* -1 unknown */
        int64_t dataset_bytes;       /* all user tables with indexes; -1 unknown */
        size_t n_tables;
        struct result_table *tables;
        char *location;    /* "local", "remote" or NULL (unknown) */
        int ssl;           /* -1 unknown */
        double rtt_us;     /* round trip of a trivial query before the run; < 0 unknown */
        double capture_ms; /* time spent reading all this, before and after; < 0 unknown */
        size_t n_warnings;
        struct result_warning *warnings;
    } server;
    /* Deltas of the server's statistics over the measured part (n_server_stats == 0: none). */
    size_t n_server_stats;
    struct result_stat *server_stats;
    double cache_hit_ratio; /* of those deltas; < 0 unknown */
    struct {
        char *name;
        int64_t scale;
        size_t n_scripts;
        struct result_script_text *scripts;
        size_t n_sizes; /* 0: the dataset is told by its scale */
        struct result_size sizes[RESULT_MAX_SIZES];
    } workload;
    struct {
        int clients, threads;
        double duration_s;
        int64_t transactions_per_client;
        double rate;
        double latency_limit_ms;
        int connect_per_tx;
        char *protocol;
        double warmup_s;
        uint64_t seed;
    } options;
    struct {
        double duration_s;
        uint64_t transactions, failed, retried;
        double tps;
        uint64_t errors[RESULT_N_ERRORS];
        struct latency_summary latency_us;
        double under_100ms, under_1000ms, under_5000ms;
        uint64_t skipped; /* -R with --latency-limit: not started, already too late */
        uint64_t late;    /* successful but over --latency-limit */
        uint64_t retries; /* tries beyond the first, in all */
        /* -R: how far behind the schedule transactions started */
        double lag_mean_us, lag_p99_us, lag_max_us;
        /* -C: connections opened, their mean time, and tps without that time */
        uint64_t connections;
        double connect_mean_us;
        double tps_excluding_connect;
        /* per script, in the order of workload.scripts; 0 in files written before it */
        size_t n_scripts;
        struct result_script_figures *scripts;
        /* successful, but slower than the histogram holds (HIST_MAX_US): in the counts, not
         * in the latency figures */
        uint64_t latency_out_of_range;
        /* statement classes (name: the class, the statement with its constants replaced by
         * placeholders; transactions: its count, failures included), top RESULT_MAX_CLASSES
         * by total time and "other", for a run that counts them (has_classes: written, even
         * empty) */
        int has_classes;
        size_t n_classes;
        struct result_script_figures *classes;
    } summary;
    size_t n_intervals;
    struct result_interval *intervals;
    /* When not NULL: a journal (result/journal.h) whose first n_journal interval lines are the
     * file's first intervals, copied as they are by result_write before intervals[]. A long
     * run keeps its intervals there rather than in memory. */
    char *journal;
    size_t n_journal;
    struct hist_sparse histogram;
    /* Histogram parameters of the file: unit ("us"; NULL when not stated) and sub-buckets per
     * power of two (HIST_SUB_BUCKETS; files that do not state it have that). */
    char *hist_unit;
    int hist_sub_buckets;
    /* run --agents: this file's share (has_agent); a merged file's agents and their check */
    int has_agent;
    struct result_agent agent;
    size_t n_agents;
    struct result_agent *agents;
    struct result_merge merge;
    size_t n_clients;
    struct result_client *clients;
    size_t n_statements;
    struct result_statement *statements;
    struct result_waits waits;
    struct result_client_cpu client_cpu;
    /* pg_stat_statements' top statements by total time; statements_server_note says why there
     * are none (the extension is not installed...), NULL when not asked (--no-sampling). */
    size_t n_statements_server;
    struct result_server_statement *statements_server;
    char *statements_server_note;
    /* Filled by result_read only: every environment scalar in file order, so that compare
     * can diff environments generically, including fields this version does not model. */
    size_t n_env;
    struct result_env_item *env;
    /* run_id: a UUID naming the run (result/run_id.h); result_read derives one from the
     * file's bytes when a file written before it has none, so it is never NULL after a
     * read. */
    char *run_id;
    size_t n_meta;
    struct result_meta *meta;
    /* Inside the server (result/server_io.h): the fields the server reported (0: none
     * sampled), events[] in time order, summary.server_io_per_tx and summary.events. */
    uint32_t sio_fields;
    size_t n_events;
    struct result_event *events;
    struct result_sio_per_tx sio_per_tx;
    uint64_t event_counts[RESULT_N_EVENT_KINDS];
    /* The measured part's start on the wall clock (ISO 8601 with ms, UTC): intervals' and
     * events' t_s count from it, which lines them up with the server log. NULL unknown. */
    char *measured_start_at;
    /* The workloads' own sections (result/part.h). */
    struct result_parts parts;
    /* summary.client_health (result/health.h) */
    struct result_client_health client_health;
    /* duet {}: this file is one half of a duet (sweep --duet), has_duet 0: a solo run. id
     * names the duet (the same in both halves), partner is the other half's run_id, role 'a'
     * or 'b' (the setup that started as the first side of the pair). */
    int has_duet;
    struct {
        char id[RUN_ID_LEN + 1];
        char partner[RUN_ID_LEN + 1];
        char role; /* 'a' or 'b' */
    } duet;
};

void result_free(struct result *r);

/* What a run measured, the inputs of its summary's figures (result/figures.c, the one place
 * that derives figures): the engine's counts and histograms for a run, a journal's interval
 * lines summed for recover, the agents' results added up for merge. */
struct result_measured {
    double duration_s; /* the measured part */
    uint64_t transactions, failed, retried, retries, skipped, late, latency_out_of_range;
    uint64_t errors[RESULT_N_ERRORS];
    const struct hist *latency; /* successful transactions, microseconds */
    const struct hist *lag;     /* -R: how late transactions started; NULL: not measured (the
                                 * lag figures are left as they are) */
    uint64_t connections;       /* -C: connections opened, their total time, and the clients
                                 * that share it out */
    double connect_s;
    int64_t clients;
};

/* The client process's CPU over spans: the seconds of CPU it used and the spans' length. */
struct result_cpu_measured {
    double elapsed_s, user_s, system_s;
    double max_thread_core; /* the busiest thread's share of one core, as measured */
};

/* The figures of what was measured. h is only read; each histogram filled is replaced (its
 * old bins are freed). */
/* r->summary's counts, tps, latency_us, under_*ms fractions, lag and connection figures, and
 * r->histogram (summary.scripts[] and classes[] are left as they are). */
void result_derive_summary(struct result *r, const struct result_measured *m);
/* A script's counts, tps, latency_us and histogram over duration_s. */
void result_derive_script(struct result_script_figures *s, uint64_t transactions, uint64_t failed,
                          double duration_s, const struct hist *h);
/* A script statement's figures: its mean over count from the latencies' sum, its p99 from h. */
void result_derive_statement(uint64_t count, double sum_us, const struct hist *h, double *mean_us,
                             int64_t *p99_us);
/* A statement class: the same, count including its failures. */
void result_derive_class(struct result_script_figures *c, uint64_t count, uint64_t failed,
                         double duration_s, const struct hist *h);
/* An interval's counts, duration_s, tps, p50_us, p99_us, max_us and histogram (it->compact
 * must be NULL); t_s is the caller's. */
void result_derive_interval(struct result_interval *it, uint64_t transactions, uint64_t failed,
                            double duration_s, const struct hist *h);
/* A schedule lag's figures and histogram. */
void result_derive_lag(struct result_lag *l, const struct hist *h);
/* client_cpu: present when the spans are not empty. */
void result_derive_client_cpu(struct result_client_cpu *c, const struct result_cpu_measured *m);
/* The share of block reads found in shared buffers (cache_hit_ratio, an interval's hit ratio):
 * -1 when a count is unknown (< 0) or there was no read. */
double result_hit_ratio(int64_t hit, int64_t read);

/* Free what an agent object owns (run_id, host, end_reason) and clear it. */
void result_agent_free(struct result_agent *a);

/* Write r to path atomically: a temporary file beside it, fsync, rename. On failure the
 * temporary file is removed and path is untouched (a file that was there before survives);
 * -1 with e set (ERR_RUNTIME). */
int result_write(const struct result *r, const char *path, struct err *e);

/* One interval as one line of compact JSON, as the result file and the journal hold it
 * (caller frees). */
char *result_interval_dumps(const struct result_interval *it);

/* The document without intervals ("intervals": []) as one line of compact JSON: a journal's
 * header, a run's row in the results store (caller frees; NULL when out of memory). */
char *result_header_dumps(const struct result *r);

/* Read and validate a result file. -1 with e set (ERR_INPUT: "FILE: why") when the file is
 * unreadable, not JSON, of another format, a future version, or missing a required path. */
int result_read(const char *path, struct result *r, struct err *e);

/* The same from len bytes of JSON text in memory (no NUL needed); name stands for the file in
 * messages. */
int result_read_text(const char *text, size_t len, const char *name, struct result *r,
                     struct err *e);

#endif
