/*
** bench_extract_big.c: coax_extract on a big document with many schema
** errors, against validating the same document. One measurement a process,
** so each reports its own peak memory:
**   bench_extract_big validate [MB] [PERCENT]   coax_parse + coax_validate
**   bench_extract_big extract  [MB] [PERCENT]   coax_extract (repair, validate, coerce)
** prints "MODE SECONDS PEAK_KB BYTES valid=V coercions=C CODE". The document is
** an array of records of about MB megabytes (default 16) in which PERCENT
** percent (default 30) carry a quantity written as a string ("7" for 7),
** which coercion turns back into the integer the schema asks for. Each
** measurement runs once: at 16 MB a warm-up would cost minutes where the
** code is not linear, and this row is about growth, not the last percent.
*/
#include "coax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../common/measure.h"

static const char *schema_text =
    "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"required\":[\"id\",\"name\",\"qty\",\"price\"],"
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"
    "\"qty\":{\"type\":\"integer\",\"minimum\":0},\"price\":{\"type\":\"number\"},\"ok\":{\"type\":\"boolean\"}},"
    "\"additionalProperties\":false}}";

static char *document(size_t size, unsigned percent, size_t *len)
{
    char *s = malloc(size + 256);
    size_t n = 0;
    s[n++] = '[';
    for (unsigned i = 0; n < size; i++) {
        bool mistyped = (i * 37u) % 100u < percent; /* spread evenly */
        n += (size_t)sprintf(s + n,
                             mistyped ? "{\"id\":%u,\"name\":\"item %u\",\"qty\":\"%u\",\"price\":%u.25,\"ok\":true},"
                                      : "{\"id\":%u,\"name\":\"item %u\",\"qty\":%u,\"price\":%u.25,\"ok\":true},",
                             i, i, i % 50, i % 1000);
    }
    s[n - 1] = ']';
    *len = n;
    return s;
}

static long peak_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "validate") && strcmp(argv[1], "extract"))) {
        fprintf(stderr, "usage: bench_extract_big validate|extract [MB] [PERCENT]\n");
        return 2;
    }
    size_t mb = argc > 2 ? (size_t)atol(argv[2]) : 16;
    unsigned percent = argc > 3 ? (unsigned)atoi(argv[3]) : 30;
    size_t len;
    char *doc = document(mb << 20, percent, &len);
    coax_arena *sa = coax_arena_new(NULL);
    coax_value *sv;
    coax_schema *schema;
    coax_error err;
    if (coax_parse(sa, schema_text, strlen(schema_text), NULL, &sv, &err) ||
        coax_schema_compile(sv, NULL, NULL, &schema, &err)) {
        fprintf(stderr, "bench_extract_big: %s\n", err.msg);
        return 2;
    }
    long base_kb = peak_kb();
    coax_arena *a = coax_arena_new(NULL);
    int valid = 0;
    size_t coercions = 0;
    coax_code rc;
    double t0 = measure_now();
    if (!strcmp(argv[1], "validate")) {
        coax_value *v;
        coax_validation val;
        rc = coax_parse(a, doc, len, NULL, &v, &err);
        if (!rc) rc = coax_validate(schema, v, a, 0, &val, &err);
        valid = !rc && val.valid;
    } else {
        coax_extract_result r;
        rc = coax_extract(a, schema, doc, len, NULL, NULL, &r, &err);
        valid = !rc && r.valid;
        coercions = rc ? 0 : r.ncoercions;
    }
    double t = measure_now() - t0;
    if (rc) fprintf(stderr, "bench_extract_big: %s: %s\n", argv[1], err.msg);
    printf("%s %.3f %ld %zu valid=%d coercions=%zu %s\n", argv[1], t, peak_kb() - base_kb, len, valid, coercions,
           coax_code_name(rc));
    coax_arena_free(a);
    coax_schema_free(schema);
    coax_arena_free(sa);
    free(doc);
    return rc ? 1 : 0;
}
