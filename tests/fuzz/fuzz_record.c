/* libFuzzer target: the recording proxy's reading of a connection must never crash, leak or
 * misbehave on any bytes. The input is a conversation: a startup packet (its length first),
 * then chunks, each a byte (high bit: from the server; low bits: its length) and its bytes,
 * fed through each side's framer to the recorder as the proxy feeds them. The capture is then
 * written and must read back whole. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char out[64];
    if (!out[0])
        snprintf(out, sizeof out, "/dev/shm/fuzz_record_%d.cap", (int)getpid());
    struct err e = {0};
    struct recorder *rec = recorder_new(out, NULL, 1700000000000000LL, 0, &e);
    if (!rec)
        abort();
    long n = pgwire_startup_len(data, size);
    struct pgwire_startup su = {.kind = PGWIRE_STARTUP_V3};
    size_t pos = 0;
    if (n > 0 && (size_t)n <= size && pgwire_startup_parse(data, (size_t)n, &su) == 0)
        pos = (size_t)n;
    struct rec_session *s = recorder_session_start(rec, &su, 1);
    struct pgwire_framer fe, be;
    pgwire_framer_init(&fe, RECORD_FRONTEND_TYPES, 4096);
    pgwire_framer_init(&be, RECORD_BACKEND_TYPES, 4096);
    int64_t t = 2;
    int broken = 0;
    while (pos < size && !broken) {
        int from_server = data[pos] >> 7;
        size_t len = data[pos] & 0x7f;
        pos++;
        if (len > size - pos)
            len = size - pos;
        struct pgwire_framer *f = from_server ? &be : &fe;
        for (size_t at = 0; at < len;) {
            size_t used;
            char type;
            const uint8_t *body;
            size_t blen;
            int rc = pgwire_framer_feed(f, data + pos + at, len - at, &used, &type, &body, &blen);
            at += used;
            if (rc < 0) {
                broken = 1;
                break;
            }
            if (rc == 0)
                break;
            if (from_server)
                recorder_backend(rec, s, type, body, blen, t);
            else
                recorder_frontend(rec, s, type, body, blen, t);
        }
        pos += len;
        t += 3;
        if (recorder_flush(rec, t, &e) < 0)
            abort();
    }
    recorder_session_end(rec, s, t);
    pgwire_framer_free(&fe);
    pgwire_framer_free(&be);
    struct record_stats st;
    struct capture_header h = {0};
    if (recorder_close(rec, &h, &st, &e) < 0) {
        fprintf(stderr, "recorder_close: %s\n", e.msg);
        abort();
    }
    recorder_free(rec);
    struct capture_reader *r = capture_reader_open(out, &e);
    if (!r)
        abort();
    struct capture_event ev;
    int rc;
    uint64_t statements = 0;
    while ((rc = capture_reader_next(r, &ev, &e)) == 1)
        statements += ev.kind == CAPTURE_EV_STATEMENT;
    if (rc < 0 || statements != st.statements) {
        fprintf(stderr, "read back: %s (%llu statements of %llu)\n", rc < 0 ? e.msg : "",
                (unsigned long long)statements, (unsigned long long)st.statements);
        abort();
    }
    capture_reader_close(r);
    unlink(out);
    return 0;
}
