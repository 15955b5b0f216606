/*
** measure.h: how every benchmark here times a piece of work, coax and peers
** alike (bench/common/measure.mjs is the same procedure for the Node.js
** peers, so a ratio compares like with like):
**
**   1. warm-up: windows of WINDOW seconds, until two windows in a row agree
**      on the rate within 3% (caches, branch predictors, a JIT, the
**      allocator's free lists settle), at most MAX_WARM seconds;
**   2. then ROUNDS rounds of at least WINDOW seconds each; the figure is
**      the best round, the one least disturbed by the rest of the machine.
**
** 'pass' does the work once and returns how many items gave a result; the
** rate is passes per second. A fixed pass count (measure_fixed) replaces
** both steps when instructions are counted under callgrind.
*/
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MEASURE_WINDOW 0.2
#define MEASURE_MAX_WARM 3.0
#define MEASURE_ROUNDS 5

static inline double measure_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Passes per second over one window of at least 'secs'. */
static inline double measure_window(size_t (*pass)(void *), void *ctx, double secs, size_t *ok)
{
    double t0 = measure_now(), t;
    size_t n = 0;
    do {
        *ok = pass(ctx);
        n++;
        t = measure_now() - t0;
    } while (t < secs);
    return (double)n / t;
}

/* The best rate (passes per second) after the warm-up; 'warm' gets the
** warm-up's length in seconds. */
static inline double measure_best(size_t (*pass)(void *), void *ctx, size_t *ok, double *warm)
{
    double t0 = measure_now(), prev = 0;
    for (;;) {
        double r = measure_window(pass, ctx, MEASURE_WINDOW, ok);
        if (prev > 0 && r < prev * 1.03 && r > prev * 0.97) break;
        if (measure_now() - t0 > MEASURE_MAX_WARM) break;
        prev = r;
    }
    if (warm) *warm = measure_now() - t0;
    double best = 0;
    for (int i = 0; i < MEASURE_ROUNDS; i++) {
        double r = measure_window(pass, ctx, MEASURE_WINDOW, ok);
        if (r > best) best = r;
    }
    return best;
}

/* Runs 'pass' exactly 'n' times (for instruction counts). */
static inline void measure_fixed(size_t (*pass)(void *), void *ctx, size_t n, size_t *ok)
{
    for (size_t i = 0; i < n; i++) *ok = pass(ctx);
}

/* The instructions callgrind collected running 'cmd' (a valgrind command
** line whose output goes to stdout: end it with 2>&1); 0 when valgrind is
** missing or the command fails. */
static inline double measure_callgrind(const char *cmd)
{
    if (system("valgrind --version >/dev/null 2>&1") != 0) return 0;
    FILE *f = popen(cmd, "r");
    if (!f) return 0;
    char line[512];
    double ir = 0;
    while (fgets(line, sizeof line, f)) {
        const char *c = strstr(line, "Collected :");
        if (c) ir = strtod(c + 11, NULL);
    }
    return pclose(f) == 0 ? ir : 0;
}
#endif
