/* os/compat_win.h's functions, for the Windows build. */
#ifdef _WIN32

#include "os/compat_win.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = malloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

void *memmem(const void *hay, size_t hay_len, const void *needle, size_t needle_len)
{
    const unsigned char *h = hay;
    if (needle_len == 0)
        return (void *)h;
    for (size_t i = 0; i + needle_len <= hay_len; i++)
        if (h[i] == *(const unsigned char *)needle && memcmp(h + i, needle, needle_len) == 0)
            return (void *)(h + i);
    return NULL;
}

char *strcasestr(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (_strnicmp(hay, needle, n) == 0)
            return (char *)hay;
    return n == 0 ? (char *)hay : NULL;
}

ssize_t getline(char **line, size_t *cap, FILE *f)
{
    size_t n = 0;
    int c;
    if (!*line || *cap == 0) {
        *cap = 128;
        if (!(*line = realloc(*line, *cap)))
            return -1;
    }
    while ((c = getc(f)) != EOF) {
        if (n + 2 > *cap) {
            size_t bigger = 2 * *cap;
            char *p = realloc(*line, bigger);
            if (!p)
                return -1;
            *line = p;
            *cap = bigger;
        }
        (*line)[n++] = (char)c;
        if (c == '\n')
            break;
    }
    (*line)[n] = '\0';
    return n ? (ssize_t)n : -1;
}

#endif
