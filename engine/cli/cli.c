/*
** cli.c: main() of the coax command and the subcommand table.
*/
#include "cli/cli.h"

#include <signal.h>
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
    fprintf(f, "usage: coax COMMAND [OPTIONS] [FILE|-]\n"
               "coax gets JSON that conforms to a JSON Schema out of language-model replies.\n"
               "\nCommands:\n");
    for (size_t i = 0; commands[i].name; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nOptions:\n"
               "  --help, -h   this help; 'coax COMMAND --help' (or 'coax help COMMAND')\n"
               "               lists a command's options\n"
               "  --version    the version\n"
               "Exit: 0 success, 1 the answer is no, 2 usage, 3 agent error, 4 a limit,\n"
               "5 script error.\n"
               "Examples:\n"
               "  coax run lua/recipes/contact.lua --input lua/recipes/contact.input.txt\n"
               "  echo \"Sure! {name: 'Ada', tags: ['x',],}\" | coax repair\n"
               "  coax validate schemas/contact.schema.json card.json\n");
}

static int command(const char *name)
{
    for (int i = 0; commands[i].name; i++)
        if (!strcmp(name, commands[i].name)) return i;
    return -1;
}

int main(int argc, char **argv)
{
    /* A reader that went away (coax ... | head -1) is a failed write, EPIPE,
    ** which every command reports and exits on (4), after ending the
    ** commands it started; never a death by SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        cli_errf("coax: a COMMAND is required:");
        for (size_t i = 0; commands[i].name; i++) cli_errf("%s %s", i ? "," : "", commands[i].name);
        cli_errf(" (try coax --help)\n");
        return 2;
    }
    const char *a = argv[1];
    if (!strcmp(a, "help") && argc > 2) {
        int k = command(argv[2]);
        if (k < 0) {
            cli_errf("coax: unknown command '%s' (try coax --help)\n", argv[2]);
            return 2;
        }
        char *help[] = {argv[2], "--help", NULL};
        return commands[k].run(2, help);
    }
    if (!strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(a, "--version")) {
        printf("coax %s\n", COAX_VERSION);
        return 0;
    }
    int k = command(a);
    if (k >= 0) return commands[k].run(argc - 1, argv + 1);
    if (a[0] == '-')
        cli_errf("coax: unknown option '%s' (try coax --help)\n", a);
    else
        cli_errf("coax: unknown command '%s' (try coax --help)\n", a);
    return 2;
}
