/*
** bench_repair.c: coax_repair and coax_parse throughput.
**   bench_repair replies FILE.jsonl [N]  MB/s over every reply (one JSON string a line)
**   bench_repair valid [N]               MB/s repairing a valid 16 MB document
**   bench_repair parse FILE.json [N]     MB/s of coax_parse (strict) on one JSON file
**   bench_repair document SIZE           writes a valid document of SIZE bytes (dense
**                                        records, short strings) to standard output
**   bench_repair broken SIZE [N]         MB/s repairing one broken document of SIZE
**                                        bytes (inprocess's reply, at any size)
**   bench_repair inprocess [N]           µs per repair of a broken 16 KB reply: a new
**                                        arena per call, then one arena reset per call
**   bench_repair scaling                 MB/s on broken JSON from 1 KB to 64 MB
** Every figure is measured as bench/common/measure.h says (warm-up until the
** rate is stable, then the best of 5 rounds). N, when given, runs exactly N
** passes instead, so instruction counts under callgrind are comparable.
** Unless a mode says otherwise, one arena is reset between calls, as a host
** repairing reply after reply does (coax_arena_reset).
*/
#include "coax.h"

#include "../common/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "../common/slurp.h"

typedef struct reply {
    const char *text;
    size_t len;
} reply;

typedef struct work {
    const reply *r;
    size_t n;
    coax_arena *arena; /* NULL: a new arena per call */
} work;

static size_t fixed_passes; /* 0: measure_best */

static bool repair_one(coax_arena *reuse, const reply *r)
{
    coax_arena *a = reuse ? reuse : coax_arena_new(NULL);
    coax_repair_result res;
    bool ok = coax_repair(a, r->text, r->len, NULL, &res, NULL) == COAX_OK;
    if (reuse) coax_arena_reset(a);
    else coax_arena_free(a);
    return ok;
}

/* Repairs every reply once; returns how many gave a value. */
static size_t pass_repair(void *ctx)
{
    work *w = ctx;
    size_t ok = 0;
    for (size_t i = 0; i < w->n; i++) ok += repair_one(w->arena, &w->r[i]);
    return ok;
}

static size_t pass_parse(void *ctx)
{
    work *w = ctx;
    coax_value *v;
    size_t ok = coax_parse(w->arena, w->r->text, w->r->len, NULL, &v, NULL) == COAX_OK;
    coax_arena_reset(w->arena);
    return ok;
}

/* Passes per second, and what the warm-up took. */
static double rate(size_t (*pass)(void *), work *w, size_t *ok, double *warm)
{
    *warm = 0;
    if (!fixed_passes) return measure_best(pass, w, ok, warm);
    measure_fixed(pass, w, fixed_passes, ok);
    return 0;
}

static int replies(const char *path)
{
    size_t len;
    char *data = slurp(path, &len);
    if (!data) return 2;
    coax_arena *keep = coax_arena_new(NULL);
    reply *r = NULL;
    size_t n = 0, cap = 0, bytes = 0;
    for (char *p = data, *end = data + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        coax_value *v;
        if (l && coax_parse(keep, p, l, NULL, &v, NULL) == COAX_OK) {
            if (n == cap) r = realloc(r, (cap = cap ? cap * 2 : 1024) * sizeof *r);
            r[n].text = coax_value_text(v, &r[n].len);
            bytes += r[n].len;
            n++;
        }
        p += l + 1;
    }
    work w = {r, n, coax_arena_new(NULL)};
    size_t ok;
    double warm, passes = rate(pass_repair, &w, &ok, &warm);
    printf("coax %.1f MB/s %zu replies %zu bytes %zu recovered (warm-up %.1f s)\n",
           bytes * passes / 1e6, n, bytes, ok, warm);
    coax_arena_free(w.arena);
    coax_arena_free(keep);
    free(r);
    free(data);
    return 0;
}

/* A document of about 'size' bytes: records in an array, valid or broken. */
static char *document(size_t size, int broken, size_t *len)
{
    char *s = malloc(size + 512);
    size_t n = 0;
    s[n++] = '[';
    for (unsigned i = 0; n < size; i++) {
        n += (size_t)sprintf(s + n, broken ? "{id: %u, 'name': 'item %u', \"ok\": True, \"tags\": [\"a\", \"b\",],},"
                                           : "{\"id\":%u,\"name\":\"item %u\",\"ok\":true,\"tags\":[\"a\",\"b\"]},",
                             i, i);
    }
    s[n - 1] = ']';
    *len = n;
    return s;
}

/* One document through 'pass' (takes and frees 'doc'): prints
** "coax LABEL MB/s BYTES". */
static int one_document(const char *label, char *doc, size_t len, size_t (*pass)(void *))
{
    size_t ok;
    reply r = {doc, len};
    work w = {&r, 1, coax_arena_new(NULL)};
    double warm, passes = rate(pass, &w, &ok, &warm);
    printf("coax %s %.1f MB/s %zu bytes (warm-up %.1f s)\n", label, len * passes / 1e6, len, warm);
    coax_arena_free(w.arena);
    free(doc);
    return ok == 1 ? 0 : 1;
}

/* Page faults (minor: memory the kernel hands out again) so far. */
static long faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* The same broken 16 KB reply repaired call after call, first with a new
** arena each time (memory goes back to the C library, which may give it
** back to the kernel), then with one arena reset between calls. Besides
** the time, the page faults a call over 1000 calls: the kernel's share,
** which the clock on a shared machine blurs. */
static int inprocess(void)
{
    size_t len, ok;
    char *doc = document(16u << 10, 1, &len);
    reply r = {doc, len};
    work fresh = {&r, 1, NULL}, reused = {&r, 1, coax_arena_new(NULL)};
    double wf, wr;
    double f = rate(pass_repair, &fresh, &ok, &wf), g = rate(pass_repair, &reused, &ok, &wr);
    long f0 = faults();
    measure_fixed(pass_repair, &fresh, 1000, &ok);
    long f1 = faults();
    measure_fixed(pass_repair, &reused, 1000, &ok);
    long f2 = faults();
    printf("coax inprocess %zu bytes new-arena %.1f us reset-arena %.1f us faults %.2f %.2f (warm-up %.1f s, %.1f s)\n",
           len, f ? 1e6 / f : 0, g ? 1e6 / g : 0, (f1 - f0) / 1000.0, (f2 - f1) / 1000.0, wf, wr);
    coax_arena_free(reused.arena);
    free(doc);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int nargs = !strcmp(mode, "replies") || !strcmp(mode, "parse") || !strcmp(mode, "broken") ? 3 : 2;
    if (argc > nargs) fixed_passes = (size_t)atol(argv[nargs]);
    if (!strcmp(mode, "replies") && argc > 2) return replies(argv[2]);
    size_t len;
    char *doc;
    if (!strcmp(mode, "valid")) {
        doc = document(16u << 20, 0, &len);
        return one_document("valid", doc, len, pass_repair);
    }
    if (!strcmp(mode, "parse") && argc > 2) {
        doc = slurp(argv[2], &len);
        return doc ? one_document("parse", doc, len, pass_parse) : 2;
    }
    if (!strcmp(mode, "broken") && argc > 2) {
        doc = document((size_t)atol(argv[2]), 1, &len);
        return one_document("broken", doc, len, pass_repair);
    }
    if (!strcmp(mode, "document") && argc > 2) {
        doc = document((size_t)atol(argv[2]), 0, &len);
        fwrite(doc, 1, len, stdout);
        free(doc);
        return 0;
    }
    if (!strcmp(mode, "inprocess")) return inprocess();
    if (!strcmp(mode, "scaling")) {
        for (size_t size = 1024; size <= (64u << 20); size *= 4) {
            size_t len, ok;
            char *doc = document(size, 1, &len);
            reply r = {doc, len};
            work w = {&r, 1, coax_arena_new(NULL)};
            /* one window each: the big sizes would take minutes warmed */
            double mbs = len * measure_window(pass_repair, &w, 0.5, &ok) / 1e6;
            printf("coax scaling %zu bytes %.1f MB/s %.3f ms\n", len, mbs, len / mbs / 1e3);
            coax_arena_free(w.arena);
            free(doc);
        }
        return 0;
    }
    fprintf(stderr, "usage: bench_repair replies FILE [N] | valid [N] | parse FILE [N] | document SIZE | broken SIZE [N] | inprocess [N] | scaling\n");
    return 2;
}
