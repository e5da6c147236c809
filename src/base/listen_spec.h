#ifndef PGARENA_BASE_LISTEN_SPEC_H
#define PGARENA_BASE_LISTEN_SPEC_H

#include <stddef.h>

#include "base/err.h"

/* "[ADDR:]PORT" as an option (--metrics-listen, replay record --listen) takes it: ADDR a
 * host name, an IPv4 address or a bracketed IPv6 one (default 127.0.0.1) into host, PORT
 * from min_port to 65535 into *port. 0, or -1 with e set (ERR_INPUT: "OPTION: 'SPEC' is not
 * [ADDR:]PORT (...)"). */
int listen_spec_parse(const char *spec, const char *option, int min_port, char *host,
                      size_t host_size, int *port, struct err *e);

#endif
