/*
** parse_simdjson.cpp: simdjson's DOM parser (Debian's libsimdjson-dev) on
** the same JSON files as `bench_repair parse FILE`, measured the same way
** (../common/measure.h), printed in the same shape:
**   simdjson parse <MB/s> <bytes>
** yyjson, the peer the issue names, has no Debian package for this
** release; simdjson, as fast or faster, stands in for it.
*/
#include <simdjson.h>

#include <cstdio>

#include "../common/measure.h"

typedef struct work {
    simdjson::dom::parser *parser;
    simdjson::padded_string *text;
} work;

static size_t pass(void *ctx)
{
    work *w = (work *)ctx;
    simdjson::dom::element doc;
    return w->parser->parse(*w->text).get(doc) == simdjson::SUCCESS;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: parse_simdjson FILE.json [N]\n");
        return 2;
    }
    simdjson::padded_string text;
    if (simdjson::padded_string::load(argv[1]).get(text)) {
        std::fprintf(stderr, "parse_simdjson: cannot read %s\n", argv[1]);
        return 2;
    }
    simdjson::dom::parser parser;
    work w = {&parser, &text};
    size_t ok = 0;
    double warm = 0, rate = 0;
    if (argc > 2) measure_fixed(pass, &w, (size_t)atol(argv[2]), &ok);
    else rate = measure_best(pass, &w, &ok, &warm);
    std::printf("simdjson parse %.1f MB/s %zu bytes (warm-up %.1f s)\n", text.size() * rate / 1e6, text.size(), warm);
    return ok == 1 ? 0 : 1;
}
