#include <string.h>

#include "pg/pg.h"

/* libpq hands a failed connection's reason over as text only (no SQLSTATE reaches the client
 * before the session exists), so the kinds callers act on are told apart here, in one place:
 * libpq's own words, the server's FATAL lines as an English server writes them, and
 * pg_connect_aux's deadline. */
enum pg_connect_failure pg_connect_failure_of(const char *msg)
{
    if (strstr(msg, "timeout expired") || strstr(msg, "no answer from the server"))
        return PG_CONNECT_NO_ANSWER;
    if (strstr(msg, "too many clients") || strstr(msg, "remaining connection slots are reserved"))
        return PG_CONNECT_TOO_MANY_CLIENTS;
    /* database "NAME" does not exist: the name closed by the quote the message goes on from. */
    const char *db = strstr(msg, "database \"");
    const char *end = db ? strchr(db + sizeof "database \"" - 1, '"') : NULL;
    if (end && strncmp(end, "\" does not exist", sizeof "\" does not exist" - 1) == 0)
        return PG_CONNECT_NO_DATABASE;
    return PG_CONNECT_OTHER;
}
