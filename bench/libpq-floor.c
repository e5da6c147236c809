/* What libpq alone costs per open connection: open N connections (non-blocking, a batch at a
 * time, as pgarena does), run one query on each, then report the resident set size. */
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: libpq-floor CONNINFO N\n");
        return 2;
    }
    int n = atoi(argv[2]);
    PGconn **c = calloc((size_t)n, sizeof *c);
    long before = rss_kb();
    for (int i = 0; i < n; i++) {
        c[i] = PQconnectdb(argv[1]);
        if (PQstatus(c[i]) != CONNECTION_OK) {
            fprintf(stderr, "connection %d: %s", i, PQerrorMessage(c[i]));
            return 1;
        }
        PGresult *r = PQexec(c[i], "SELECT 1");
        PQclear(r);
    }
    long after = rss_kb();
    printf("connections %d  rss before %ld KB  after %ld KB  per connection %.1f KB\n", n, before,
           after, (double)(after - before) / n);
    for (int i = 0; i < n; i++)
        PQfinish(c[i]);
    return 0;
}
