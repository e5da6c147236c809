/* The open files of a run, from its plan. */
#include "bench/files.h"

/* stdin, stdout, stderr; the engine's stop descriptor; the journal, the result's temporary
 * file and its directory (for the fsync after the rename). */
#define FILES_OF_THE_PROCESS 7
/* Opened and closed within a call while the run goes on: libpq's pgpass and service files, the
 * resolver's, TLS's; ASan's own maps reads. */
#define FILES_FOR_A_MOMENT 8

void bench_files_needed(const struct bench_plan *p, struct bench_files *out)
{
    long threads = p->threads > 0 ? (long)p->threads : 1;
    *out = (struct bench_files){
        .clients = (long)p->clients,
        .threads = 2 * threads,
        .logs = p->log.on ? threads : 0,
        .sampler = p->sampling.off ? 0 : 2,
        .coordination = p->agents.count > 0 ? 1 : 0,
        .capture = 1,
        .process = FILES_OF_THE_PROCESS + FILES_FOR_A_MOMENT,
    };
    out->besides =
        out->threads + out->logs + out->sampler + out->coordination + out->capture + out->process;
    out->total = out->clients + out->besides;
}
