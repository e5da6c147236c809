#ifndef PGARENA_OS_NET_H
#define PGARENA_OS_NET_H

/*
 * Sockets where they differ (os/os.h's companion for the modules that wait on one socket or
 * read addresses): the system's headers for inet_pton/inet_ntop and sockaddr, and os_poll,
 * which is poll on POSIX systems and WSAPoll on Windows (the engine's waits have their own
 * seam, engine/evwait.h). Windows needs os_init's Winsock start first.
 */

#include <stddef.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
static inline int os_poll(struct pollfd *p, unsigned long n, int timeout_ms)
{
    return WSAPoll(p, n, timeout_ms);
}
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
static inline int os_poll(struct pollfd *p, unsigned long n, int timeout_ms)
{
    return poll(p, (nfds_t)n, timeout_ms);
}
#endif

/* The addresses of this machine's interfaces, as text, in a new array of new strings: their
 * number (0 when none or unknown). */
size_t os_own_addresses(char ***out);

#endif
