/*
** test.h: a minimal C test harness. Each test is a function; CHECK* macros
** record a failure with its line and keep going. main() runs every test in
** the TESTS list and prints one line "N passed, N failed" (spec/run sums
** these).
**
**   static void test_something(void) { CHECK(1 + 1 == 2); }
**   #define TESTS X(test_something)
**   #include "test.h"   -- at the end of the file
*/
#ifndef COAX_TEST_H
#define COAX_TEST_H
#include <stdio.h>
#include <string.h>

static int test_failed_now;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            test_failed_now = 1;                                             \
        }                                                                    \
    } while (0)

#define CHECK_STR(got, want)                                                 \
    do {                                                                     \
        const char *g_ = (got), *w_ = (want);                                \
        if (!g_ || strcmp(g_, w_) != 0) {                                    \
            printf("  %s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
                   g_ ? g_ : "(null)", w_);                                  \
            test_failed_now = 1;                                             \
        }                                                                    \
    } while (0)

#define CHECK_INT(got, want)                                                   \
    do {                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);               \
        if (g_ != w_) {                                                        \
            printf("  %s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #got, \
                   g_, w_);                                                    \
            test_failed_now = 1;                                               \
        }                                                                      \
    } while (0)
#endif

#ifdef TESTS
int main(void)
{
    int passed = 0, failed = 0;
#define X(fn)                                \
    test_failed_now = 0;                     \
    fn();                                    \
    if (test_failed_now) {                   \
        printf("FAIL %s\n", #fn);            \
        failed++;                            \
    } else {                                 \
        passed++;                            \
    }
    TESTS
#undef X
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
#endif
