/*
** cli/tokens.c: coax tokens [--encoding E] [--jsonl | --chat] [FILE|-]
*/
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: coax tokens [OPTIONS] [FILE|-]\n"
    "Prints the estimated number of tokens of the input.\n"
    "Options:\n"
    "  --encoding E          o200k (default), cl100k, llama3, claude or chars4\n"
    "  --jsonl               a JSON string a line in; its estimate a line out (null, and exit\n"
    "                        1, for a line that is not a JSON string or is over a limit)\n"
    "  --chat                the input is a JSON array of chat messages {\"role\", \"content\"};\n"
    "                        prints the prompt tokens of the request, framing included\n"
    "  --max-depth N         nesting of arrays and objects (default 512)\n"
    "  --max-input N         bytes of input (default 256M; k, M and G suffixes)\n"
    "  --max-string N        bytes of one decoded string (default 64M)\n"
    "  --help, -h            this help\n"
    "Exit: 0 done, 1 a --jsonl line was not a JSON string, 2 usage, 4 a limit.\n"
    "Example: coax tokens --encoding cl100k README.md\n";

/* --jsonl: one output line per input line, in order; null for a line that
** is not a JSON string or is over a limit. */
typedef struct tokens_lines {
    coax_encoding enc;
    const coax_limits *lim;
    size_t line_no;
} tokens_lines;

static int tokens_line(void *ud, const char *text, size_t len, coax_buf *out)
{
    tokens_lines *t = ud;
    t->line_no++;
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("tokens", COAX_ENOMEM, NULL);
    coax_value *v;
    coax_error err = {0};
    coax_code rc = COAX_ESIZE;
    if (!text) cli_line_too_long(err.msg, sizeof err.msg, t->lim->max_input);
    else rc = coax_parse(arena, text, len, t->lim, &v, &err);
    int status = 0;
    if (rc == COAX_ENOMEM) {
        status = cli_fail("tokens", rc, &err);
    } else if (rc == COAX_OK && coax_value_type(v) == COAX_STRING) {
        size_t n;
        const char *s = coax_value_text(v, &n);
        coax_buf_printf(out, "%zu\n", coax_tokens(t->enc, s, n));
    } else {
        cli_errf("coax tokens: line %zu: %s\n", t->line_no, rc ? err.msg : "not a JSON string");
        coax_buf_puts(out, "null\n");
        status = 1;
    }
    coax_arena_free(arena);
    return status;
}

/* --chat: a JSON array of {"role", "content", "name"?} objects. */
static int tokens_chat(const char *data, size_t len, coax_encoding enc, const coax_limits *lim)
{
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("tokens", COAX_ENOMEM, NULL);
    coax_value *v;
    coax_error err;
    int status = 0;
    coax_code rc = coax_parse(arena, data, len, lim, &v, &err);
    if (rc) {
        status = rc == COAX_ESYNTAX || rc == COAX_EUTF8 ? cli_usage("tokens", "--chat: %s", err.msg)
                                                       : cli_fail("tokens", rc, &err);
        coax_arena_free(arena);
        return status;
    }
    size_t n = coax_value_type(v) == COAX_ARRAY ? coax_value_len(v) : 0;
    coax_message *msgs = n ? coax_arena_alloc(arena, n * sizeof *msgs) : NULL;
    if (coax_value_type(v) != COAX_ARRAY) {
        status = cli_usage("tokens", "--chat wants a JSON array of messages");
    } else if (n && !msgs) {
        status = cli_fail("tokens", COAX_ENOMEM, NULL);
    }
    static const char *const fields[] = {"role", "content", "name"};
    for (size_t i = 0; i < n && !status; i++) {
        const coax_value *m = coax_array_get(v, i);
        const char *text[3] = {NULL, NULL, NULL};
        size_t tlen[3] = {0, 0, 0};
        for (int f = 0; f < 3; f++) {
            const coax_value *x = coax_value_type(m) == COAX_OBJECT
                                      ? coax_object_get(m, fields[f], strlen(fields[f]))
                                      : NULL;
            if (x && coax_value_type(x) != COAX_STRING) x = NULL;
            if (x) text[f] = coax_value_text(x, &tlen[f]);
            else if (f < 2) {
                status = cli_usage("tokens", "--chat: message %zu needs a string \"%s\"", i + 1,
                                   fields[f]);
                break;
            }
        }
        msgs[i] = (coax_message){text[0], tlen[0], text[1], tlen[1], text[2], tlen[2]};
    }
    if (!status) {
        coax_buf out;
        coax_buf_init(&out, NULL);
        coax_buf_printf(&out, "%zu\n", coax_tokens_chat(enc, msgs, n));
        status = cli_flush("tokens", &out);
        coax_buf_free(&out);
    }
    coax_arena_free(arena);
    return status;
}

int cli_tokens(int argc, char **argv)
{
    bool jsonl = false, chat = false;
    const char *path = NULL, *name = "o200k";
    coax_limits lim;
    coax_limits_default(&lim);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_limit_opt("tokens", argc, argv, &i, &lim);
        if (r < 0) return 2;
        if (r > 0) continue;
        r = cli_opt(argc, argv, &i, "encoding", &name);
        if (r < 0) return 2;
        if (r > 0) continue;
        if (!strcmp(a, "--jsonl")) jsonl = true;
        else if (!strcmp(a, "--chat")) chat = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage("tokens", "unknown option '%s' (try --help)", a);
        } else if (path) {
            return cli_usage("tokens", "one input file at a time ('%s' and '%s')", path, a);
        } else {
            path = a;
        }
    }
    coax_encoding enc;
    if (coax_encoding_parse(name, strlen(name), &enc))
        return cli_usage("tokens", "unknown encoding '%s' (o200k, cl100k, llama3, claude, chars4)",
                         name);
    if (jsonl && chat) return cli_usage("tokens", "--jsonl and --chat exclude each other");
    if (jsonl) { /* a stream of texts: each line is limited, as it is read */
        tokens_lines t = {enc, &lim, 0};
        return cli_each_line("tokens", path, lim.max_input, tokens_line, &t);
    }
    char *data;
    size_t len;
    coax_error err;
    coax_code rc = cli_read(path, lim.max_input, &data, &len, &err);
    if (rc) return cli_fail("tokens", rc, &err);
    int status;
    if (chat) {
        status = tokens_chat(data, len, enc, &lim);
    } else {
        coax_buf out;
        coax_buf_init(&out, NULL);
        coax_buf_printf(&out, "%zu\n", coax_tokens(enc, data, len));
        status = cli_flush("tokens", &out);
        coax_buf_free(&out);
    }
    free(data);
    return status;
}
