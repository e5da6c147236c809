/* "[ADDR:]PORT" (base/listen_spec.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/listen_spec.h"

int listen_spec_parse(const char *spec, const char *option, int min_port, char *host,
                      size_t host_size, int *port, struct err *e)
{
    const char *p = spec, *colon = strrchr(spec, ':');
    size_t hn = 0;
    const char *h = "127.0.0.1";
    if (colon) {
        h = spec;
        hn = (size_t)(colon - spec);
        if (hn >= 2 && spec[0] == '[' && spec[hn - 1] == ']') {
            h = spec + 1;
            hn -= 2;
        }
        p = colon + 1;
    } else {
        hn = strlen(h);
    }
    char *end = NULL;
    errno = 0;
    long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
    if (v < min_port || v > 65535 || errno || !end || *end || hn == 0 || hn >= host_size ||
        memchr(h, ']', hn) || memchr(h, '[', hn))
        return err_set(e, ERR_INPUT, "%s: '%s' is not [ADDR:]PORT (a port from %d to 65535)",
                       option, spec, min_port);
    memcpy(host, h, hn);
    host[hn] = '\0';
    *port = (int)v;
    return 0;
}
