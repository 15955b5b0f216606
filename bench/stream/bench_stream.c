/*
** bench_stream.c: a reply streamed in pieces against one extraction of the
** whole reply, in the same run (issue 22's target: a 100 KB reply in
** 20-byte pieces costs at most 3x one parse).
**
**   bench_stream [BYTES] [PIECE] [EVERY]
**
** The reply is a fenced JSON object of records under a schema whose
** records are judged one by one (so parts complete as they close, and each
** gets its coerced value once). Rows: coax_extract of the whole reply; the
** reader fed PIECE-byte pieces without asking for partials; the same with
** a partial (stream_partial_get) every EVERY pieces; every piece. Each row
** gives its time (warmed up, best of 5 rounds: common/measure.h) and, when
** valgrind is installed, its instructions a pass (callgrind, 3 passes of
** that row alone: the program runs itself with "--count ROW"), both also
** as a ratio to coax_extract's. Instructions do not depend on what else
** the machine runs, so they compare two builds more closely than times.
*/
#include "base/core.h"
#include "stream/stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/measure.h"

static const char schema_text[] =
    "{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},\"price\":{\"type\":\"number\"},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"ok\":{\"type\":\"boolean\"}},"
    "\"required\":[\"id\",\"name\"]}}},\"required\":[\"items\"]}";

/* Passes a row's instructions are counted over. */
#define COUNT_PASSES 3

typedef struct job {
    const coax_schema *schema;
    const char *text;
    size_t len, piece, every; /* every: 0 none */
    coax_arena *arena;
    coax_arena *reader_arena;
} job;

/* Each row has a function of its own, so callgrind's --toggle-collect
** counts that row alone. */
static __attribute__((noinline)) size_t pass_extract(void *ud)
{
    job *j = ud;
    coax_extract_result x;
    coax_arena_reset(j->arena);
    return coax_extract(j->arena, j->schema, j->text, j->len, NULL, NULL, &x, NULL) == COAX_OK && x.valid;
}

static size_t stream_once(job *j)
{
    stream_options o = {j->schema, NULL, NULL, 0, j->reader_arena}; /* as a session lends it, reply after reply */
    stream_reader *r;
    if (stream_new(NULL, &o, &r, NULL)) return 0;
    coax_arena_reset(j->arena);
    stream_partial p = {0};
    size_t k = 0;
    for (size_t at = 0; at < j->len; at += j->piece, k++) {
        size_t n = j->len - at < j->piece ? j->len - at : j->piece;
        if (stream_feed(r, j->text + at, n, NULL)) break;
        if (j->every && k % j->every == 0 && stream_partial_get(r, j->arena, &p, NULL)) break;
    }
    stream_partial_get(r, j->arena, &p, NULL);
    size_t ok = p.ended && p.ncomplete == 1;
    stream_free(r);
    return ok;
}

static __attribute__((noinline)) size_t pass_stream_none(void *ud) { return stream_once(ud); }
static __attribute__((noinline)) size_t pass_stream_every(void *ud) { return stream_once(ud); }
static __attribute__((noinline)) size_t pass_stream_each(void *ud) { return stream_once(ud); }

typedef struct row {
    const char *fn; /* the pass function's name, for --toggle-collect */
    size_t (*pass)(void *);
    size_t every;   /* partials: 0 none, else every this many pieces */
} row;

/* Instructions of one pass of row 'i', by running this program under
** callgrind; 0 when valgrind is missing or fails. */
static double count_instructions(const char *self, size_t bytes, size_t piece, size_t every, size_t i, const row *rw)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=%s '%s' %zu %zu %zu "
             "--count %zu 2>&1",
             rw->fn, self, bytes, piece, every, i);
    double ir = measure_callgrind(cmd);
    return ir / COUNT_PASSES;
}

static bool have_valgrind(void) { return system("valgrind --version >/dev/null 2>&1") == 0; }

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    size_t piece = argc > 2 ? strtoul(argv[2], NULL, 10) : 20;
    size_t every = argc > 3 ? strtoul(argv[3], NULL, 10) : 10;
    bool counting = argc > 5 && !strcmp(argv[4], "--count");
    if (!piece) piece = 1;
    coax_buf b;
    coax_buf_init(&b, NULL);
    coax_buf_puts(&b, "Here is the list:\n```json\n{\"items\": [\n");
    for (size_t i = 0; b.len < bytes; i++)
        coax_buf_printf(&b, "%s  {\"id\": %zu, \"name\": \"item number %zu \\u00e9\", \"price\": %zu.25, "
                            "\"tags\": [\"a\", \"b\"], \"ok\": true}",
                        i ? ",\n" : "", i, i, i % 1000);
    coax_buf_puts(&b, "\n]}\n```\n");
    coax_arena *a = coax_arena_new(NULL);
    coax_value *sv;
    coax_schema *schema = NULL;
    if (coax_parse(a, schema_text, strlen(schema_text), NULL, &sv, NULL) ||
        coax_schema_compile(sv, NULL, NULL, &schema, NULL)) {
        fprintf(stderr, "bench_stream: the schema does not compile\n");
        return 1;
    }
    row rows[] = {{"pass_extract", pass_extract, 0},
                  {"pass_stream_none", pass_stream_none, 0},
                  {"pass_stream_every", pass_stream_every, every},
                  {"pass_stream_each", pass_stream_each, 1}};
    size_t nrows = sizeof rows / sizeof *rows;
    job j = {schema, b.data, b.len, piece, 0, coax_arena_new(NULL), coax_arena_new(NULL)};
    size_t ok;
    if (counting) { /* under callgrind: one row, a fixed number of passes */
        size_t i = strtoul(argv[5], NULL, 10);
        if (i >= nrows) return 2;
        j.every = rows[i].every;
        measure_fixed(rows[i].pass, &j, COUNT_PASSES, &ok);
        return ok ? 0 : 1;
    }
    bool ir = have_valgrind();
    printf("reply: %zu bytes, pieces of %zu bytes (time: best of 5 rounds; instructions: callgrind, a pass)\n",
           b.len, piece);
    printf("%-40s %10s %7s %14s %7s\n", "", "ms", "ratio", "instructions", "ratio");
    double rate0 = 0, ir0 = 0;
    for (size_t i = 0; i < nrows; i++) {
        j.every = rows[i].every;
        double rate = measure_best(rows[i].pass, &j, &ok, NULL);
        double n = ir ? count_instructions(argv[0], bytes, piece, every, i, &rows[i]) : 0;
        if (i == 0) {
            rate0 = rate;
            ir0 = n;
        }
        char label[64];
        if (i == 0) snprintf(label, sizeof label, "coax_extract, whole reply");
        else if (!rows[i].every) snprintf(label, sizeof label, "streamed, no partial");
        else snprintf(label, sizeof label, "streamed, a partial every %zu piece%s", rows[i].every,
                      rows[i].every == 1 ? "" : "s");
        printf("%-40s %10.3f %6.2fx", label, 1e3 / rate, rate0 / rate);
        if (n > 0 && ir0 > 0) printf(" %14.0f %6.2fx", n, n / ir0);
        printf("%s\n", ok ? "" : "  (FAILED)");
    }
    coax_schema_free(schema);
    coax_arena_free(j.arena);
    coax_arena_free(j.reader_arena);
    coax_arena_free(a);
    coax_buf_free(&b);
    return 0;
}
