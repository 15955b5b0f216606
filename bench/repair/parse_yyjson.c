/*
** parse_yyjson.c: yyjson's reader (Debian's libyyjson-dev, where the release
** has it) on the same JSON files as `bench_repair parse FILE`, measured the
** same way (../common/measure.h), printed in the same shape:
**   yyjson parse <MB/s> <bytes>
** Built only when the library is installed (bench/Makefile); run.sh says so
** when it is not.
*/
#include <yyjson.h>

#include <stdio.h>
#include <stdlib.h>

#include "../common/measure.h"

typedef struct work {
    const char *text;
    size_t len;
} work;

static size_t pass(void *ctx)
{
    work *w = ctx;
    yyjson_doc *doc = yyjson_read(w->text, w->len, 0);
    size_t ok = doc != NULL;
    yyjson_doc_free(doc);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: parse_yyjson FILE.json [N]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "parse_yyjson: cannot read %s\n", argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    work w = {text, fread(text, 1, (size_t)n, f)};
    fclose(f);
    size_t ok = 0;
    double warm = 0, rate = 0;
    if (argc > 2) measure_fixed(pass, &w, (size_t)atol(argv[2]), &ok);
    else rate = measure_best(pass, &w, &ok, &warm);
    printf("yyjson parse %.1f MB/s %zu bytes (warm-up %.1f s)\n", w.len * rate / 1e6, w.len, warm);
    free(text);
    return ok == 1 ? 0 : 1;
}
