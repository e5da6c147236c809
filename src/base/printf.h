#ifndef PGARENA_BASE_PRINTF_H
#define PGARENA_BASE_PRINTF_H

/* The format attribute of pgarena's printf-like functions: C99's formats (%zu, %lld) on every
 * system, which the Windows build gets from mingw-w64's own printf (__USE_MINGW_ANSI_STDIO)
 * rather than the C runtime's. */
#ifdef _WIN32
#define PRINTF_LIKE(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#else
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#endif

#endif
