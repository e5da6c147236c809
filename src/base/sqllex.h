#ifndef PGARENA_BASE_SQLLEX_H
#define PGARENA_BASE_SQLLEX_H

/* SQL text as the server's lexer splits it, as far as pgarena looks into statements: words,
 * quoted identifiers, string constants (with their E/B/X/N/U& prefix, dollar-quoted bodies
 * too), semicolons and the rest, comments skipped. Pure: the script parser (script/) and
 * the capture (capture/) share it. */

/* A token's kind. SQL_TOK_OTHER is one byte (a parenthesis, an operator's character). */
enum sql_tok {
    SQL_TOK_END,
    SQL_TOK_WORD,
    SQL_TOK_IDENT,
    SQL_TOK_STRING,
    SQL_TOK_SEMI,
    SQL_TOK_OTHER
};

struct sql_token {
    enum sql_tok kind;
    const char *start, *end;
};

/* The token at s, past blanks and comments (-- to the line's end; nested block comments). An
 * unterminated quote or comment runs to the text's end. */
struct sql_token sql_token_next(const char *s);

/* 1 when t is the word w (case-insensitive). */
int sql_token_is(const struct sql_token *t, const char *w);

/* 1 when c may continue a word (letters, digits, '_'). */
int sql_word_char(char c);

/* The COPY protocol a statement puts the connection in: rows the client sends (COPY ... FROM
 * STDIN) or reads (COPY ... TO STDOUT). A COPY of a file or a PROGRAM on the server is none:
 * the server moves its rows itself. */
enum sql_copy { SQL_COPY_NONE, SQL_COPY_IN, SQL_COPY_OUT };

/* What the statement of text that begins at text (up to its ';') is: FROM or TO followed by
 * STDIN or STDOUT outside parentheses (the server takes either word on either side) after a
 * first word COPY. at (when not NULL): where its COPY begins. next (when not NULL): the next
 * statement's start, NULL when there is none. */
enum sql_copy sql_copy_client(const char *text, const char **at, const char **next);

#endif
