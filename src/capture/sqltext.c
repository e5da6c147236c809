#include "capture/sqltext.h"

#include <ctype.h>
#include <string.h>

/* Skip white space, comments and opening parentheses. */
static const char *skip_space(const char *s)
{
    for (;;) {
        while (isspace((unsigned char)*s) || *s == '(')
            s++;
        if (s[0] == '-' && s[1] == '-') {
            while (*s && *s != '\n')
                s++;
        } else if (s[0] == '/' && s[1] == '*') {
            const char *end = strstr(s + 2, "*/");
            s = end ? end + 2 : s + strlen(s);
        } else {
            return s;
        }
    }
}

static int is_word(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* 1 when s begins with the keyword kw (case-insensitive, then a non-word character). */
static int keyword(const char *s, const char *kw)
{
    size_t n = strlen(kw);
    return strncasecmp(s, kw, n) == 0 && !is_word(s[n]);
}

/* 1 when the word w appears in s[0..n) as a whole word, case-insensitively. */
static int has_word(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= n; i++)
        if ((i == 0 || !is_word(s[i - 1])) && strncasecmp(s + i, w, wl) == 0 &&
            (i + wl == n || !is_word(s[i + wl])))
            return 1;
    return 0;
}

int sqltext_is_secret(const char *text)
{
    /* Each piece between semicolons is looked at as a statement of its own. */
    for (const char *s = text; *s;) {
        const char *end = strchr(s, ';');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        const char *k = skip_space(s);
        if ((keyword(k, "create") || keyword(k, "alter")) && has_word(s, n, "password"))
            return 1;
        s += n;
        if (*s)
            s++;
    }
    return 0;
}

static int copy_with(const char *text, const char *dir, const char *end)
{
    const char *s = skip_space(text);
    if (!keyword(s, "copy"))
        return 0;
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        if ((i == 0 || !is_word(s[i - 1])) && keyword(s + i, dir)) {
            const char *t = skip_space(s + i + strlen(dir));
            if (keyword(t, end))
                return 1;
        }
    }
    return 0;
}

int sqltext_is_copy_from_stdin(const char *text)
{
    return copy_with(text, "from", "stdin");
}

int sqltext_is_copy_to_stdout(const char *text)
{
    return copy_with(text, "to", "stdout");
}
