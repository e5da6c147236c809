#ifndef PGARENA_BASE_FDLIMIT_H
#define PGARENA_BASE_FDLIMIT_H

/* The process's open-file limit, raised for many connections. Nothing is allocated. */

/* Make room for at least `needed` open files: raise the soft RLIMIT_NOFILE as far as the hard
 * limit allows when it is lower. Returns the soft limit in force afterwards (-1 if unknown). */
long fdlimit_ensure(long needed);

#endif
