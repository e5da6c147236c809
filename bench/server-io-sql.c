/* bench/server-io-sql VERSION_NUM: print the server_io statement pgarena's sampler sends to a
 * server of that version (src/server/server_io.c), for bench/sampling-cost to time it. */
#include <stdio.h>
#include <stdlib.h>

#include "server/server_io.h"

int main(int argc, char **argv)
{
    char *sql = argc == 2 ? srvio_sql(atoi(argv[1])) : NULL;
    if (!sql) {
        fprintf(stderr, "usage: server-io-sql VERSION_NUM (100000 or later)\n");
        return 2;
    }
    printf("%s;\n", sql);
    free(sql);
    return 0;
}
