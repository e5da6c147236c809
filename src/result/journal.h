#ifndef PGARENA_RESULT_JOURNAL_H
#define PGARENA_RESULT_JOURNAL_H

#include <stddef.h>

#include "base/err.h"
#include "result/result.h"

/*
 * The journal of a run, RESULT.json.journal: where the intervals live while the run goes on,
 * and what survives a run killed by SIGKILL, the OOM killer or a power loss. Line 1 is the
 * result document as known before the run (environment, workload, options, an empty summary
 * and no intervals) with the journal's version as its last key ("journal_version": 2; none
 * in version 1), then one line per interval exactly as the result file holds it, with side
 * lines between them (snapshots of a workload's own figures, a sampled run's server events and
 * sampler lines).
 * Each line is written whole with one write() (flushed every interval) and the file is fsynced at
 * most once a second. A normal end writes the result (copying the interval lines) and removes
 * the journal; `pgarena recover` turns a journal left behind into a result.
 * Ownership: struct journal owns its file descriptor and path (journal_close).
 */

struct journal;

/* RESULT.json.journal for RESULT.json (caller frees). */
char *journal_path(const char *result_path);

/* Whether result_path has a journal (a run that did not end left it, or one is running). */
int journal_exists(const char *result_path);

/* Remove the journal of result_path left by a run that did not end (a crash, SIGKILL): for a
 * caller that runs the same thing again instead of recovering it. 1 when one was removed, 0
 * when there was none, -1 with e set (ERR_INPUT) when a running pgarena still writes it. */
int journal_discard_stale(const char *result_path, struct err *e);

/* Create the journal of result_path with header as line 1 (its intervals and journal fields
 * are ignored), and lock it so recover can tell a live run. NULL with e set (ERR_RUNTIME). */
struct journal *journal_create(const char *result_path, const struct result *header, struct err *e);

/* Append one interval line. -1 with e set (ERR_RUNTIME) when the write failed; the journal
 * then holds the lines before it. */
int journal_append(struct journal *j, const struct result_interval *it, struct err *e);

/* Append a snapshot line of the figures a workload gathers itself, as they stand at t_s:
 * r's parts (result/part.h) and summary.classes[], so that recover keeps them. It
 * is no interval line: the result copies none, recover takes the last whole one. Returns
 * the line's length, or -1 with e set (ERR_RUNTIME; the journal then holds the lines before
 * it). */
long journal_append_snapshot(struct journal *j, const struct result *r, double t_s, struct err *e);

/* Whether a journal line (after the header) is a snapshot line, not an interval. */
int journal_line_is_snapshot(const char *line, size_t len);

/* Append an events line: the server events seen since the last one (events[] as the result
 * holds them) and the measured start on the wall clock, at
 * t_s. A sampled run writes one after its first interval line (so recover knows the run
 * wrote them, even with no event) and after each interval that brought events. No interval
 * line either. -1 with e set (ERR_RUNTIME; the journal then holds the lines before it). */
int journal_append_events(struct journal *j, const char *measured_start_at,
                          const struct result_event *ev, size_t n, double t_s, struct err *e);

/* What the sampler knows of the whole run so far that the interval lines do not hold. */
struct journal_sampler {
    int present;            /* 0: nothing known */
    double max_thread_core; /* the busiest client thread's share of one core (client_cpu) */
    int sees_all;           /* waits.visibility: 1 "all", 0 "own-user", -1 unknown */
};

/* Append a sampler line, {"sampler": {"t_s", "max_thread", "visibility"}}, as the run stands at
 * t_s: a sampled run writes one after an interval line when it changed, so that recover
 * derives client_cpu and waits.visibility. No interval line either. -1 with e set
 * (ERR_RUNTIME; the journal then holds the lines before it). */
int journal_append_sampler(struct journal *j, const struct journal_sampler *s, double t_s,
                           struct err *e);

/* The run's cumulative counts through an interval, beside the interval lines (which hold the
 * run's totals only): what a recovered file needs for clients[], statements[], several
 * scripts' figures, retries, skips, late ones, errors and the -R lag. */
struct journal_script_counts {
    uint64_t transactions, failed;
    struct hist_sparse latency;
    uint64_t retried, skipped; /* after the histogram in the line; absent before: 0 */
};
struct journal_counters {
    double t_s; /* the end of the interval they count through */
    uint64_t retried, retries, skipped, late;
    uint64_t errors[RESULT_N_ERRORS];
    struct hist_sparse lag;
    size_t n_scripts; /* as the workload's scripts */
    struct journal_script_counts *scripts;
    size_t n_clients; /* the terminals, as clients[] */
    struct result_client *clients;
    size_t n_statements; /* as statements[]: count, mean_us and p99_us */
    struct result_statement *statements;
};

/* Append a counters line, {"counters": {...}}, right after the interval line of c->t_s:
 * recover takes its figures from the last one, as of c->t_s (the intervals up to it).
 * No interval line either. Returns the line's length, or -1 with e set (ERR_RUNTIME; the
 * journal then holds the lines before it). */
long journal_append_counters(struct journal *j, const struct journal_counters *c, struct err *e);
void journal_counters_free(struct journal_counters *c);

/* Whether a journal line (after the header) is an interval line: the kinds of line beside
 * them ({"snapshot": ...}, {"events": ...}, and any a later pgarena adds) are objects of one
 * key that is not t_s, and readers skip the kinds they do not know. */
int journal_line_is_interval(const char *line, size_t len);

/* Interval lines written so far, and the journal's path (owned by j). */
size_t journal_count(const struct journal *j);
const char *journal_file(const struct journal *j);

/* Close (and fsync) the journal; remove the file too when remove is set. */
void journal_close(struct journal *j, int remove);

/*
 * Rebuild a result from the journal of result_path: the header's fields, complete false,
 * end_reason "killed", finished_at the time of the journal's last write, and the summary
 * (transactions, failed, tps, duration, latency figures, whole-run histogram) rebuilt from
 * every interval line that is whole; a torn last line is left out. A sampled run's waits
 * are the intervals' events summed (their top ones: the note says so), its samples estimated
 * from the period. The parts and summary.classes[] a snapshot line holds are the last such
 * line's (each part told from when: its recovered operation), else the header's with nothing
 * counted yet.
 * A sampled run's events[], measured_start_at and summary.events are its events lines', its
 * server_io_fields those of its server version, and summary.server_io_per_tx the intervals'
 * server_io summed, server_stats from the same sums, a lone script's summary.scripts[0] the
 * whole run's (a journal of a pgarena before events lines has none of the server's), and
 * with sampler lines client_cpu (the intervals' client CPU over their lengths, the last line's
 * busiest thread) and waits.visibility. With counters lines, the last whole one's counts give
 * clients[], statements[], summary.scripts[] and the summary's retries, skipped, late, errors
 * and -R lag, as of its time (counters_as_of_s); every interval is kept all the same.
 * r->journal and
 * r->n_journal point at those lines, so result_write copies them. -1 with e set (ERR_INPUT)
 * when there is no journal, it is still being written by a running pgarena, its header
 * is not a result, or its journal_version is newer than this reader's.
 */
int journal_recover(const char *result_path, struct result *r, struct err *e);

#endif
