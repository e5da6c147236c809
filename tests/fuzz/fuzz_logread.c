/* libFuzzer target: the log readers and prepare must never crash, leak or misbehave on any
 * input. The first byte picks the format (auto, stderr, csvlog, jsonlog) and whether a
 * log_line_prefix is given; the rest is the log. A log is prepared into a capture, which
 * must then read back whole; a refusal is ERR_INPUT naming the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/prepare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static char out[64];
    if (!out[0])
        snprintf(out, sizeof out, "/dev/shm/fuzz_logread_%d.cap", (int)getpid());
    int fd = memfd_create("log", 0);
    if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
        abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    static const char *const prefixes[] = {NULL, "%m|%u|%d|%c|%e|", "%c %m %e user=%u db=%d ",
                                           "%n [%p] %q%u@%d %c "};
    struct prepare_opts o = {.format = (enum log_format)(data[0] & 3),
                             .prefix = prefixes[(data[0] >> 2) & 3],
                             .from_us = INT64_MIN,
                             .to_us = INT64_MAX};
    struct prepare_stats stats;
    struct err e = {0};
    const char *paths[] = {path};
    if (prepare_logs(paths, 1, &o, out, &stats, &e) == 0) {
        struct capture_reader *r = capture_reader_open(out, &e);
        if (!r)
            abort();
        struct capture_event ev;
        uint64_t n = 0;
        int rc;
        while ((rc = capture_reader_next(r, &ev, &e)) == 1)
            n += ev.kind == CAPTURE_EV_STATEMENT;
        if (rc != 0 || n != stats.statements)
            abort();
        capture_reader_close(r);
        unlink(out);
    } else if (e.code != ERR_INPUT || strncmp(e.msg, path, strlen(path)) != 0) {
        abort(); /* every refusal of a log names the file */
    }
    close(fd);
    return 0;
}
