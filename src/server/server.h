#ifndef PGARENA_SERVER_SERVER_H
#define PGARENA_SERVER_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/err.h"
#include "pg/pg.h"

/*
 * The environment a benchmark ran in: the server's settings, sizes, location and round-trip
 * time (read before the run), its statistics before and after the measured part, the client
 * machine, and the lint that turns settings and run facts into warnings. Capture functions
 * take a connection of the caller's (never one of the benchmark's clients) and run only
 * catalog and statistics queries; the lint and the conversions are pure.
 * Ownership: struct srv_env and srv_warning arrays own their strings (srv_env_free,
 * srv_warnings_free); everything else is plain data.
 */

/* One server setting, as pg_settings shows it. */
struct srv_setting {
    char *name;
    char *value;     /* as SHOW prints it, unit included: "128MB", "on", "5min" */
    char *raw;       /* pg_settings.setting: for numbers, a count of `unit` */
    char *unit;      /* pg_settings.unit ("8kB", "kB", "MB", "ms", "s", "min") or NULL */
    int non_default; /* changed from PostgreSQL's built-in default */
};

/* A user table in the benchmark's database. */
struct srv_table {
    char *name;          /* schema-qualified when not in public */
    int64_t bytes;       /* heap and TOAST */
    int64_t index_bytes; /* all its indexes */
};

enum srv_location { SRV_LOCATION_UNKNOWN, SRV_LOCATION_LOCAL, SRV_LOCATION_REMOTE };

/* What is read once, before the run. Numbers are -1 when the server would not say. */
struct srv_env {
    char *version; /* server_version, "16.2 (Debian ...)" */
    int version_num;
    size_t n_settings;
    struct srv_setting *settings; /* in srv_setting_names order, absent ones skipped */
    int64_t database_size_bytes;
    size_t n_tables; /* the largest SRV_MAX_TABLES user tables, largest first */
    struct srv_table *tables;
    int64_t dataset_bytes; /* every user table with its indexes */
    enum srv_location location;
    char *host;           /* where the connection went (socket directory or host name) */
    int ssl;              /* the connection is encrypted (so are the clients', same conninfo) */
    double rtt_us;        /* median round trip of a trivial query */
    int n_other_backends; /* client backends in this database besides ours */
};

#define SRV_MAX_TABLES 50

/* The settings recorded, NULL-terminated: those that shape a benchmark's numbers. */
extern const char *const srv_setting_names[];

/* Read version, settings, sizes, tables, location, round-trip time and the other backends on
 * c. Fails (-1, e set) only when the settings cannot be read; a missing size or table list
 * leaves -1 or nothing. env is filled either way and must be freed. */
int srv_env_capture(struct pg_conn *c, struct srv_env *env, struct err *e);

void srv_env_free(struct srv_env *env);

/* Server statistics: cumulative counters that the run's deltas are made of. */
enum srv_stat {
    SRV_XACT_COMMIT,
    SRV_XACT_ROLLBACK,
    SRV_BLKS_HIT,
    SRV_BLKS_READ,
    SRV_TUP_RETURNED,
    SRV_TUP_FETCHED,
    SRV_TUP_INSERTED,
    SRV_TUP_UPDATED,
    SRV_TUP_DELETED,
    SRV_DEADLOCKS,
    SRV_CONFLICTS,
    SRV_TEMP_FILES,
    SRV_TEMP_BYTES,
    SRV_WAL_BYTES,
    SRV_CHECKPOINTS, /* timed + requested */
    SRV_CHECKPOINTS_TIMED,
    SRV_CHECKPOINTS_REQUESTED,
    SRV_BUFFERS_CHECKPOINT, /* buffers written by checkpoints */
    SRV_BUFFERS_CLEAN,      /* ... by the background writer */
    SRV_BUFFERS_BACKEND,    /* ... by backends themselves */
    SRV_N_STATS
};

/* Their names in the result file's server_stats, in enum order. */
extern const char *const srv_stat_names[SRV_N_STATS];

/* One reading; -1 where the server did not give a value. */
struct srv_stats {
    int64_t v[SRV_N_STATS];
};

/* Read the counters on c: pg_stat_database for the current database, the WAL position
 * (unknown on a standby) and the checkpointer (its view moved in PostgreSQL 17). Never fails
 * as a whole: what a query could not read stays -1. Returns how many queries failed, with
 * the first failure in e. */
int srv_stats_read(struct pg_conn *c, int version_num, struct srv_stats *out, struct err *e);

/* Make the counts of c's own session so far part of the next reading (PostgreSQL 15+ holds
 * them back up to a second, and until exit when idle), so that the setup queries do not fall
 * into the run's deltas. Quietly does nothing where not allowed. */
void srv_stats_flush_own(struct pg_conn *c, int version_num);

/* after - before, per counter; -1 when either is unknown or the counter went back (a stats
 * reset during the run). */
void srv_stats_delta(const struct srv_stats *before, const struct srv_stats *after,
                     struct srv_stats *delta);

/* blks_hit / (blks_hit + blks_read) of a delta; -1 when nothing was read. */
double srv_cache_hit_ratio(const struct srv_stats *delta);

/* Statistics of a backend reach the shared counters when it exits, so wait (polling, up to
 * timeout_ns) until the database has no more client backends than n_other besides c. Returns
 * 0 when it came to that, -1 on timeout or error. */
int srv_wait_backends(struct pg_conn *c, int n_other, time_ns timeout_ns);

/* Facts of the run that the lint weighs against the settings. */
struct srv_run_facts {
    int clients;
    double duration_s;     /* of the measured part */
    int writes;            /* the workload inserted, updated or deleted rows */
    int64_t dataset_bytes; /* -1 unknown */
    enum srv_location location;
    const char *host; /* for the same-host warning's value */
};

/* A setting or fact that makes the numbers lie or the data unsafe, and why. */
struct srv_warning {
    char *setting;
    char *value;
    char *message; /* one sentence */
};

/* The warnings for these settings and facts, in a fixed order; *out is a new array (NULL when
 * there are none). Returns their count. Pure. */
size_t srv_lint(const struct srv_setting *settings, size_t n, const struct srv_run_facts *facts,
                struct srv_warning **out);

void srv_warnings_free(struct srv_warning *w, size_t n);

/* The setting called name, or NULL. */
const struct srv_setting *srv_setting_find(const struct srv_setting *s, size_t n, const char *name);

/* A memory setting in bytes ("16384" of "8kB" -> 134217728); -1 when not a memory amount. */
int64_t srv_setting_bytes(const struct srv_setting *s);

/* A time setting in seconds ("300" of "s" -> 300); -1 when not a time. */
double srv_setting_seconds(const struct srv_setting *s);

/* Whether pg_settings says a setting differs from PostgreSQL's built-in default: set from
 * anywhere but the defaults, to another value than the compiled one. An automatic value
 * (boot_val -1, as wal_buffers) is not a change. */
int srv_setting_is_changed(const char *raw, const char *boot_val, const char *source);

/* Whether a numeric address (IPv4 or IPv6 text) is loopback or one of own[] (the client's
 * interface addresses). Unparsable text is not local. */
int srv_addr_is_local(const char *addr, const char *const *own, size_t n_own);

/* The client machine's facts every result states (and an agent names itself by): its host
 * name, "sysname release machine", online CPUs, memory, and the versions of pgarena and of the
 * libpq it runs with. Owns its strings (srv_client_free). */
struct srv_client {
    char *hostname;        /* "" when gethostname fails */
    char *os;              /* NULL when uname fails */
    int cpus;              /* online */
    int64_t memory_bytes;  /* 0 when unknown */
    char *pgarena_version; /* PGARENA_VERSION */
    char *libpq_version;   /* "MAJOR.MINOR" */
};

void srv_client_read(struct srv_client *c);
void srv_client_free(struct srv_client *c);

/* The client machine beyond what uname and sysconf give directly. */
struct srv_machine {
    char *cpu_model;    /* /proc/cpuinfo "model name" (or the ARM equivalent), NULL if none */
    char *kernel;       /* uname release and version */
    char *distribution; /* /etc/os-release PRETTY_NAME, NULL if none */
};

void srv_machine_read(struct srv_machine *m);
void srv_machine_free(struct srv_machine *m);

/* The CPU model named in /proc/cpuinfo's text, as a new string, or NULL. Pure. */
char *srv_cpuinfo_model(const char *cpuinfo);

/* PRETTY_NAME of an os-release text, unquoted, as a new string, or NULL. Pure. */
char *srv_os_release_name(const char *os_release);

/* Server settings that a sweep varies (alter.c). */

/* The context of a server setting (pg_settings.context: "postmaster", "sighup", "user", ...)
 * into context, on a connection of its own. 0 found, 1 no such setting, -1 with e set when the
 * server cannot be asked. */
int srv_setting_context(const struct pg_connopts *o, const char *name, char *context, size_t size,
                        struct err *e);

/* ALTER SYSTEM SET name = value (value NULL: ALTER SYSTEM RESET name) on a connection of its
 * own; with reload, then pg_reload_conf() and a wait (up to 2 s) until a new session sees the
 * new value. 0, or -1 with e set (ERR_RUNTIME, the server's message). */
int srv_alter_system(const struct pg_connopts *o, const char *name, const char *value, int reload,
                     struct err *e);

#endif
