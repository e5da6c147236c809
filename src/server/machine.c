#include "server/server.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "os/net.h"
#include "os/os.h"
#include "server/server_int.h"

/* The client machine, and whether the server shares it. Parsers are pure; the readers only
 * open /proc and /etc files and ask the OS layer (os/os.h) for the rest. */

/* The value after "key<spaces>:" on a line of text, trimmed, as a new string. */
static char *line_value(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, klen) != 0)
            continue;
        const char *q = p + klen;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q != ':')
            continue;
        q++;
        while (*q == ' ' || *q == '\t')
            q++;
        size_t n = strcspn(q, "\n");
        while (n > 0 && isspace((unsigned char)q[n - 1]))
            n--;
        return n ? xstrndup(q, n) : NULL;
    }
    return NULL;
}

char *srv_cpuinfo_model(const char *cpuinfo)
{
    /* x86 says "model name"; ARM kernels say "Hardware" or only "CPU implementer/part";
     * s390 and POWER say "cpu". */
    static const char *const keys[] = {"model name", "Hardware", "cpu model", "cpu", NULL};
    for (int i = 0; keys[i]; i++) {
        char *v = line_value(cpuinfo, keys[i]);
        if (v)
            return v;
    }
    return NULL;
}

char *srv_os_release_name(const char *os_release)
{
    for (const char *p = os_release; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, "PRETTY_NAME=", 12) != 0)
            continue;
        const char *v = p + 12;
        size_t n = strcspn(v, "\n");
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v++;
            n -= 2;
        }
        return n ? xstrndup(v, n) : NULL;
    }
    return NULL;
}

/* A small text file, whole; NULL when unreadable. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    struct buf b;
    buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (1 << 20))
        buf_append(&b, chunk, n);
    fclose(f);
    char *s = xstrdup(b.data ? b.data : "");
    buf_free(&b);
    return s;
}

void srv_client_read(struct srv_client *c)
{
    memset(c, 0, sizeof *c);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    c->hostname = xstrdup(host);
    c->os = os_system();
    c->cpus = (int)os_cpus();
    c->memory_bytes = os_memory_bytes();
    c->pgarena_version = xstrdup(PGARENA_VERSION);
    int v = pg_lib_version();
    c->libpq_version = xasprintf("%d.%d", v / 10000, v % 100);
}

void srv_client_free(struct srv_client *c)
{
    free(c->hostname);
    free(c->os);
    free(c->pgarena_version);
    free(c->libpq_version);
    memset(c, 0, sizeof *c);
}

void srv_machine_read(struct srv_machine *m)
{
    memset(m, 0, sizeof *m);
    m->cpu_model = os_cpu_model();
    char *text = m->cpu_model ? NULL : slurp("/proc/cpuinfo");
    if (text)
        m->cpu_model = srv_cpuinfo_model(text);
    free(text);
    m->distribution = os_distribution();
    text = m->distribution ? NULL : slurp("/etc/os-release");
    if (!text && !m->distribution)
        text = slurp("/usr/lib/os-release");
    if (text)
        m->distribution = srv_os_release_name(text);
    free(text);
    m->kernel = os_kernel();
}

void srv_machine_free(struct srv_machine *m)
{
    free(m->cpu_model);
    free(m->kernel);
    free(m->distribution);
    memset(m, 0, sizeof *m);
}

int srv_addr_is_local(const char *addr, const char *const *own, size_t n_own)
{
    unsigned char a[16], b[16];
    int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
    if (inet_pton(family, addr, a) != 1)
        return 0;
    static const unsigned char v6_loopback[16] = {[15] = 1};
    static const unsigned char v4_mapped[12] = {[10] = 0xff, [11] = 0xff};
    if (family == AF_INET && a[0] == 127)
        return 1;
    if (family == AF_INET6 &&
        (memcmp(a, v6_loopback, 16) == 0 || (memcmp(a, v4_mapped, 12) == 0 && a[12] == 127)))
        return 1;
    for (size_t i = 0; i < n_own; i++) {
        int f = strchr(own[i], ':') ? AF_INET6 : AF_INET;
        if (f == family && inet_pton(f, own[i], b) == 1 &&
            memcmp(a, b, family == AF_INET ? 4 : 16) == 0)
            return 1;
    }
    return 0;
}
