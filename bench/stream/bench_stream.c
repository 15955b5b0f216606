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
** a partial (stream_partial_get) every EVERY pieces; every piece.
*/
#include "base/core.h"
#include "stream/stream.h"

#include <stdio.h>
#include <stdlib.h>

#include "../common/measure.h"

static const char schema_text[] =
    "{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},\"price\":{\"type\":\"number\"},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"ok\":{\"type\":\"boolean\"}},"
    "\"required\":[\"id\",\"name\"]}}},\"required\":[\"items\"]}";

typedef struct job {
    const coax_schema *schema;
    const char *text;
    size_t len, piece, every; /* every: 0 none */
    coax_arena *arena;
} job;

static size_t pass_extract(void *ud)
{
    job *j = ud;
    coax_extract_result x;
    coax_arena_reset(j->arena);
    return coax_extract(j->arena, j->schema, j->text, j->len, NULL, NULL, &x, NULL) == COAX_OK && x.valid;
}

static size_t pass_stream(void *ud)
{
    job *j = ud;
    stream_options o = {j->schema, NULL, NULL, 0};
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

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    size_t piece = argc > 2 ? strtoul(argv[2], NULL, 10) : 20;
    size_t every = argc > 3 ? strtoul(argv[3], NULL, 10) : 10;
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
    job j = {schema, b.data, b.len, piece, 0, coax_arena_new(NULL)};
    size_t ok;
    double extract = measure_best(pass_extract, &j, &ok, NULL);
    if (!ok) fprintf(stderr, "bench_stream: the extraction failed\n");
    printf("reply: %zu bytes, pieces of %zu bytes\n", b.len, piece);
    printf("%-44s %10.3f ms\n", "coax_extract, whole reply", 1e3 / extract);
    size_t everys[] = {0, every, 1};
    for (size_t i = 0; i < sizeof everys / sizeof *everys; i++) {
        j.every = everys[i];
        double rate = measure_best(pass_stream, &j, &ok, NULL);
        char label[64];
        if (!everys[i]) snprintf(label, sizeof label, "streamed, no partial");
        else snprintf(label, sizeof label, "streamed, a partial every %zu piece%s", everys[i], everys[i] == 1 ? "" : "s");
        printf("%-44s %10.3f ms  %5.2fx%s\n", label, 1e3 / rate, extract / rate, ok ? "" : "  (FAILED)");
    }
    coax_schema_free(schema);
    coax_arena_free(j.arena);
    coax_arena_free(a);
    coax_buf_free(&b);
    return 0;
}
