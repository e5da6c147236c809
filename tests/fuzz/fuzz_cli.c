/* libFuzzer target: the commands' option parsers must never crash, leak or misbehave on any
 * command line; options are either accepted or refused with ERR_INPUT and a message. The
 * input is the command line split at NUL bytes: "run\0-c\04\0-T\010". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "cli/cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* --help prints the usage on stdout: keep the fuzzer's output readable. */
    return freopen("/dev/null", "w", stdout) ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    int argc = 1;
    for (size_t i = 0; i < size; i++)
        argc += text[i] == '\0';
    char **argv = xcalloc((size_t)argc + 1, sizeof *argv);
    char *p = text;
    for (int i = 0; i < argc; i++) {
        argv[i] = p;
        p += strlen(p) + 1;
    }
    struct err e = {0};
    if (cli_parse_only(argc, argv, &e) < 0 && (e.code != ERR_INPUT || !e.msg[0]))
        abort(); /* every refusal is an input error with a message */
    free(argv);
    free(text);
    return 0;
}
