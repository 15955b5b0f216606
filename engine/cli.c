/*
** cli.c: main() of the coax command and the subcommand table.
*/
#include "cli.h"

#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"repair", cli_repair, "recover a JSON value from a raw model reply"},
    {"validate", cli_validate, "validate a JSON instance against a JSON Schema"},
    {"extract", cli_extract, "the value in a reply that fits a schema, coerced"},
    {"example", cli_example, "an instance that validates against a JSON Schema"},
    {"run", cli_run, "run a recipe: prompt, recover, validate, retry"},
    {"batch", cli_batch, "run a recipe over JSON lines, N in flight, resumable"},
    {"tokens", cli_tokens, "estimate the tokens of a text (o200k, cl100k, ...)"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: coax COMMAND [OPTIONS] [FILE|-]\n\ncommands:\n");
    for (size_t i = 0; commands[i].name; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'coax COMMAND --help' describes a command. Exit status: 0 success, 1 the\n"
               "answer is no, 2 usage, 3 agent error, 4 a limit, 5 script error.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("coax %s\n", COAX_VERSION);
        return 0;
    }
    for (size_t i = 0; commands[i].name; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "coax: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
