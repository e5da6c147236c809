/* Wait events renamed between majors, so that runs on either side of a rename count one event. */
#include "result/result.h"

#include <stdlib.h>
#include <string.h>

/* PostgreSQL 17 derives the names from the C symbols (WAIT_EVENT_WAL_SYNC: WalSync), which
 * changed the case of most of these 16 names; 18 kept 17's. Found by comparing 17's
 * pg_wait_events with the names in 16's binary, and 16's with 13's to 15's (16 renamed two
 * of parallel hash join's). Sorted by the old name (strcmp) for bsearch. */
static const char *const renamed[][2] = {
    {"Activity:AutoVacuumMain", "Activity:AutovacuumMain"},
    {"Activity:BgWriterHibernate", "Activity:BgwriterHibernate"},
    {"Activity:BgWriterMain", "Activity:BgwriterMain"},
    {"Activity:SysLoggerMain", "Activity:SysloggerMain"},
    {"Client:GSSOpenServer", "Client:GssOpenServer"},
    {"Client:LibPQWalReceiverConnect", "Client:LibpqwalreceiverConnect"},
    {"Client:LibPQWalReceiverReceive", "Client:LibpqwalreceiverReceive"},
    {"Client:SSLOpenServer", "Client:SslOpenServer"},
    {"Client:WalSenderWaitForWAL", "Client:WalSenderWaitForWal"},
    {"IO:BaseBackupRead", "IO:BasebackupRead"},
    {"IO:BaseBackupSync", "IO:BasebackupSync"},
    {"IO:BaseBackupWrite", "IO:BasebackupWrite"},
    {"IO:BufFileRead", "IO:BuffileRead"},
    {"IO:BufFileTruncate", "IO:BuffileTruncate"},
    {"IO:BufFileWrite", "IO:BuffileWrite"},
    {"IO:DSMAllocate", "IO:DsmAllocate"},
    {"IO:DSMFillZeroWrite", "IO:DsmFillZeroWrite"},
    {"IO:LockFileAddToDataDirRead", "IO:LockFileAddtodatadirRead"},
    {"IO:LockFileAddToDataDirSync", "IO:LockFileAddtodatadirSync"},
    {"IO:LockFileAddToDataDirWrite", "IO:LockFileAddtodatadirWrite"},
    {"IO:LockFileReCheckDataDirRead", "IO:LockFileRecheckdatadirRead"},
    {"IO:SLRUFlushSync", "IO:SlruFlushSync"},
    {"IO:SLRURead", "IO:SlruRead"},
    {"IO:SLRUSync", "IO:SlruSync"},
    {"IO:SLRUWrite", "IO:SlruWrite"},
    {"IO:WALBootstrapSync", "IO:WalBootstrapSync"},
    {"IO:WALBootstrapWrite", "IO:WalBootstrapWrite"},
    {"IO:WALCopyRead", "IO:WalCopyRead"},
    {"IO:WALCopySync", "IO:WalCopySync"},
    {"IO:WALCopyWrite", "IO:WalCopyWrite"},
    {"IO:WALInitSync", "IO:WalInitSync"},
    {"IO:WALInitWrite", "IO:WalInitWrite"},
    {"IO:WALRead", "IO:WalRead"},
    {"IO:WALSenderTimelineHistoryRead", "IO:WalsenderTimelineHistoryRead"},
    {"IO:WALSync", "IO:WalSync"},
    {"IO:WALSyncMethodAssign", "IO:WalSyncMethodAssign"},
    {"IO:WALWrite", "IO:WalWrite"},
    {"IPC:BgWorkerShutdown", "IPC:BgworkerShutdown"},
    {"IPC:BgWorkerStartup", "IPC:BgworkerStartup"},
    {"IPC:BufferIO", "IPC:BufferIo"},
    {"IPC:HashGrowBatchesAllocate", "IPC:HashGrowBatchesReallocate"},
    {"IPC:HashGrowBucketsAllocate", "IPC:HashGrowBucketsReallocate"},
    {"IPC:ProcArrayGroupUpdate", "IPC:ProcarrayGroupUpdate"},
};

static int by_old(const void *key, const void *entry)
{
    return strcmp(key, ((const char *const *)entry)[0]);
}

const char *result_wait_name_current(const char *name)
{
    const char *const *e =
        bsearch(name, renamed, sizeof renamed / sizeof renamed[0], sizeof renamed[0], by_old);
    return e ? e[1] : name;
}
