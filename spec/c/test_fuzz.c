/* The fuzzers' findings, replayed in the ordinary suite: every file in
** spec/fixtures/fuzz/NAME/ (an input that once broke a harness) and every
** hand-picked seed in spec/fuzz/seeds/NAME/ goes through harness
** spec/fuzz/fuzz_NAME.c again, with each FUZZ_CHECK a test check instead
** of an abort. Under `make asan` the sanitizers watch too.
** spec/fixtures/fuzz/README.md says which bug each input found. */
#include <dirent.h>
#include <stdlib.h>

#include "test.h"

#define FUZZ_CHECK(cond)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            printf("  %s:%d: FUZZ_CHECK(%s) failed on %s\n", __FILE__, __LINE__, #cond, \
                   replaying);                                                        \
            test_failed_now = 1;                                                      \
        }                                                                             \
    } while (0)

static const char *replaying = "";

/* Each harness becomes a function of its own name. */
#define LLVMFuzzerTestOneInput fuzz_repair
#include "../fuzz/fuzz_repair.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_json
#include "../fuzz/fuzz_json.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_extract
#include "../fuzz/fuzz_extract.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_schema
#include "../fuzz/fuzz_schema.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tokens
#include "../fuzz/fuzz_tokens.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_regex
#include "../fuzz/fuzz_regex.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_pattern
#include "../fuzz/fuzz_pattern.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_recipe
#include "../fuzz/fuzz_recipe.c"
#undef LLVMFuzzerTestOneInput

/* Feeds every file of folder 'dir' to 'fn'; returns how many. */
static int replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
    char path[512];
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        CHECK(f != NULL);
        if (!f) continue;
        size_t cap = 1 << 16, len = 0;
        uint8_t *buf = malloc(cap);
        size_t got;
        while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
            len += got;
            if (len == cap) {
                uint8_t *bigger = realloc(buf, cap *= 2);
                if (!bigger) free(buf);
                buf = bigger;
            }
        }
        fclose(f);
        CHECK(buf != NULL);
        if (!buf) continue;
        /* An exact-size copy, so ASan sees any read past the input. */
        uint8_t *exact = malloc(len ? len : 1);
        if (exact) {
            memcpy(exact, buf, len);
            replaying = path;
            fn(exact, len);
            free(exact);
            n++;
        }
        free(buf);
    }
    closedir(d);
    return n;
}

/* The findings and the seeds of harness 'name'. */
static int replay(const char *name, int (*fn)(const uint8_t *, size_t))
{
    char dir[256];
    snprintf(dir, sizeof dir, "spec/fixtures/fuzz/%s", name);
    int n = replay_dir(dir, fn);
    snprintf(dir, sizeof dir, "spec/fuzz/seeds/%s", name);
    return n + replay_dir(dir, fn);
}

static void test_repair_findings(void) { CHECK_INT(replay("repair", fuzz_repair), 8); }
static void test_json_findings(void) { CHECK_INT(replay("json", fuzz_json), 1); }
static void test_extract_findings(void) { CHECK_INT(replay("extract", fuzz_extract), 8); }
static void test_schema_findings(void) { CHECK_INT(replay("schema", fuzz_schema), 2); }
static void test_tokens_findings(void) { CHECK_INT(replay("tokens", fuzz_tokens), 1); }
static void test_regex_findings(void) { CHECK_INT(replay("regex", fuzz_regex), 3); }
static void test_pattern_findings(void) { CHECK_INT(replay("pattern", fuzz_pattern), 9); }
static void test_recipe_findings(void) { CHECK_INT(replay("recipe", fuzz_recipe), 1); }

#define TESTS                        \
    X(test_repair_findings)          \
    X(test_json_findings)            \
    X(test_extract_findings)         \
    X(test_schema_findings)          \
    X(test_tokens_findings)          \
    X(test_regex_findings)           \
    X(test_pattern_findings)         \
    X(test_recipe_findings)
#include "test.h"
