#ifndef PGARENA_SERVER_PROCSTAT_H
#define PGARENA_SERVER_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The host's and the client's own CPU and disk counters, from Linux's /proc. The parsers take
 * the text of a file and are pure (unit-tested on fixtures); the readers open the files.
 * Counters only grow: callers keep two readings and take their difference.
 * Ownership: struct proc_tasks owns its arrays (proc_tasks_free).
 */

/* The first line of /proc/stat ("cpu  user nice system idle iowait irq softirq steal ..."),
 * in clock ticks. */
struct proc_cpu {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* 0, or -1 when text has no well-formed "cpu " line. */
int proc_parse_cpu(const char *text, struct proc_cpu *out);

/* The shares of CPU time between two readings, as fractions of all the host's CPU time (0..1):
 * user (with nice), system (with irq and softirq), iowait, idle, and steal (time the hypervisor
 * gave another guest while this one wanted to run). All zero when no time passed. */
struct proc_cpu_share {
    double user, system, iowait, idle, steal;
};
void proc_cpu_share(const struct proc_cpu *before, const struct proc_cpu *after,
                    struct proc_cpu_share *out);

/* Bytes read and written by whole disks (sectors of 512 bytes, as /proc/diskstats counts). */
struct proc_disk {
    uint64_t read_bytes, write_bytes;
};

/* Sum the lines of /proc/diskstats whose device is one of disks[0..n_disks): 0, or -1 when a
 * line is malformed. */
int proc_parse_diskstats(const char *text, const char *const *disks, size_t n_disks,
                         struct proc_disk *out);

/* Whether a block device name is a physical disk worth counting: not a loop, RAM, zram,
 * device-mapper, md, optical, floppy or network block device (those are either not disks or
 * stacked over disks already counted). */
int proc_is_physical_disk(const char *name);

/* user and system time (clock ticks) from a /proc/PID/stat or /proc/PID/task/TID/stat line,
 * whose second field (the command in parentheses) may itself hold spaces and parentheses: 0,
 * or -1 when malformed. */
int proc_parse_task_stat(const char *text, uint64_t *utime, uint64_t *stime);

/* Readers of the live files: 0, or -1 when the file cannot be read (not Linux, no /proc). */
int proc_read_cpu(struct proc_cpu *out);
int proc_read_disk(struct proc_disk *out);

/* CPU time of every thread of this process, in clock ticks, by thread ID. */
struct proc_tasks {
    size_t n;
    int *tid;
    uint64_t *ticks; /* user + system */
};
int proc_read_tasks(struct proc_tasks *out);
void proc_tasks_free(struct proc_tasks *t);

/* The highest share of one core any thread used between two readings that seconds apart
 * (threads missing from either reading are skipped); 0 when none. */
double proc_tasks_max_core(const struct proc_tasks *before, const struct proc_tasks *after,
                           double seconds);

#endif
