/* Structural equality and the structural hash (issue 17, item 7): equal
** values hash alike under any seed, however deep and in any member order;
** objects compare by key set, not by position; allocation failure is
** reported, never a wrong answer, and nothing leaks. */
#include "base/core.h"
#include "base/hash.h"

#include <stdbool.h>
#include <stdlib.h>

#include "counting.h"
#include "test.h"

static coax_value *parse(coax_arena *a, const char *text)
{
    coax_value *v = NULL;
    if (coax_parse(a, text, strlen(text), NULL, &v, NULL) != COAX_OK) return NULL;
    return v;
}

static uint64_t hash_of(const coax_value *v, uint64_t seed)
{
    uint64_t h = 0;
    CHECK_INT(coax_value_hash(v, seed, NULL, &h, NULL), 0);
    return h;
}

/* Every pair: equal or not, and equal values hash alike under two seeds. */
static void test_equal_values_hash_alike(void)
{
    static const char *pairs[][3] = {
        {"1", "1.0", "1"}, {"1", "10e-1", "1"}, {"-0", "0", "1"}, {"0.01", "1e-2", "1"},
        {"12345678901234567890", "1.2345678901234567890e19", "1"},
        {"[1,{\"a\":[true,null]}]", "[1.0,{\"a\":[true,null]}]", "1"},
        {"{\"a\":1,\"b\":{\"x\":1,\"y\":2}}", "{\"b\":{\"y\":2,\"x\":1.0},\"a\":1}", "1"},
        {"{\"a\":1,\"b\":2}", "{\"a\":2,\"b\":1}", "0"},   /* same keys, values swapped */
        {"{\"a\":1,\"b\":2}", "{\"a\":1,\"c\":2}", "0"},   /* same length, other key */
        {"{\"ab\":1,\"c\":2}", "{\"a\":1,\"bc\":2}", "0"}, /* keys split differently */
        {"[1,2]", "[2,1]", "0"}, {"\"1\"", "1", "0"}, {"[]", "{}", "0"}, {"[[]]", "[[],[]]", "0"},
        {"{\"a\":{}}", "{\"a\":[]}", "0"}, {"0.1", "0.10000000000000000001", "0"},
    };
    coax_arena *a = coax_arena_new(NULL);
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        coax_value *x = parse(a, pairs[i][0]), *y = parse(a, pairs[i][1]);
        CHECK(x && y);
        if (!x || !y) continue;
        int want = pairs[i][2][0] - '0';
        CHECK_INT(coax_value_equal(x, y, NULL), want);
        CHECK_INT(coax_value_equal(y, x, NULL), want);
        for (uint64_t seed = 1; seed <= 2; seed++) {
            bool same = hash_of(x, seed) == hash_of(y, seed);
            if (want && !same) printf("  pair %zu: equal values hash apart\n", i);
            if (!want && same) printf("  pair %zu: different values hash alike\n", i);
            CHECK(same == (bool)want);
        }
    }
    coax_arena_free(a);
}

/* A value of 'depth' arrays around an object {"k": LEAF}. */
static char *deep_text(size_t depth, const char *leaf)
{
    size_t n = strlen(leaf);
    char *s = malloc(2 * depth + n + 16);
    size_t k = 0;
    for (size_t i = 0; i < depth; i++) s[k++] = '[';
    k += (size_t)sprintf(s + k, "{\"k\":%s}", leaf);
    for (size_t i = 0; i < depth; i++) s[k++] = ']';
    s[k] = '\0';
    return s;
}

/* Past 32 levels the old hash stopped looking: every deep item hashed
** alike, and uniqueItems compared all pairs. Now the leaf counts. */
static void test_the_hash_sees_every_level(void)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_limits lim = {2000, 0, 0};
    char *t1 = deep_text(1000, "1"), *t2 = deep_text(1000, "2"), *t3 = deep_text(1000, "1.0");
    coax_value *x, *y, *z;
    CHECK_INT(coax_parse(a, t1, strlen(t1), &lim, &x, NULL), COAX_OK);
    CHECK_INT(coax_parse(a, t2, strlen(t2), &lim, &y, NULL), COAX_OK);
    CHECK_INT(coax_parse(a, t3, strlen(t3), &lim, &z, NULL), COAX_OK);
    CHECK(hash_of(x, 7) != hash_of(y, 7));
    CHECK(hash_of(x, 7) == hash_of(z, 7));
    CHECK_INT(coax_value_equal(x, y, NULL), 0);
    CHECK_INT(coax_value_equal(x, z, NULL), 1);
    size_t nodes = 0;
    uint64_t h;
    CHECK_INT(coax_value_hash(x, 7, NULL, &h, &nodes), 0);
    CHECK_INT(nodes, 1002); /* 1000 arrays, the object, the number */
    free(t1), free(t2), free(t3);
    coax_arena_free(a);
}

/* Two objects of 5,000 members in opposite orders; the twin differs in
** its last value only. */
static void test_reordered_objects(void)
{
    enum { N = 5000 };
    char *p = malloc(N * 24 + 4), *q = malloc(N * 24 + 4), *r = malloc(N * 24 + 4);
    size_t kp = 0, kq = 0, kr = 0;
    p[kp++] = q[kq++] = r[kr++] = '{';
    for (int i = 0; i < N; i++) {
        int j = N - 1 - i;
        kp += (size_t)sprintf(p + kp, "%s\"k%d\":%d", i ? "," : "", i, i);
        kq += (size_t)sprintf(q + kq, "%s\"k%d\":%d", i ? "," : "", j, j);
        kr += (size_t)sprintf(r + kr, "%s\"k%d\":%d", i ? "," : "", j, j == 0 ? -1 : j);
    }
    p[kp++] = q[kq++] = r[kr++] = '}';
    p[kp] = q[kq] = r[kr] = '\0';
    coax_arena *a = coax_arena_new(NULL);
    coax_value *x = parse(a, p), *y = parse(a, q), *z = parse(a, r);
    CHECK(x && y && z);
    if (x && y && z) {
        CHECK_INT(coax_value_equal(x, y, NULL), 1);
        CHECK_INT(coax_value_equal(x, z, NULL), 0);
        CHECK(hash_of(x, 3) == hash_of(y, 3));
        CHECK(hash_of(x, 3) != hash_of(z, 3));
    }
    free(p), free(q), free(r);
    coax_arena_free(a);
}

/* Every allocation of a deep, reordered comparison and hash failed in
** turn: -1 and nothing leaked, or the right answer. */
static void test_allocation_failure(void)
{
    char *t1 = deep_text(100, "{\"b\":1,\"a\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}");
    char *t2 = deep_text(100, "{\"i\":9,\"h\":8,\"g\":7,\"f\":6,\"e\":5,\"d\":4,\"c\":3,\"b\":1,\"a\":2}");
    coax_arena *a = coax_arena_new(NULL);
    coax_value *x = parse(a, t1), *y = parse(a, t2);
    CHECK(x && y);
    for (long fail = 1; x && y && fail < 20; fail++) {
        counting c = {0, 0, fail};
        coax_allocator al = COUNTING_ALLOCATOR(&c);
        int r = coax_value_equal(x, y, &al);
        CHECK(r == 1 || r == -1);
        CHECK_INT(c.live, 0);
        counting d = {0, 0, fail};
        coax_allocator bl = COUNTING_ALLOCATOR(&d);
        uint64_t h;
        r = coax_value_hash(x, 5, &bl, &h, NULL);
        CHECK(r == 0 || r == -1);
        if (r == 0) CHECK(h == hash_of(y, 5));
        CHECK_INT(d.live, 0);
    }
    free(t1), free(t2);
    coax_arena_free(a);
}

/* The keyed byte hash: the seed changes it, the bytes all count. */
static void test_keyed_byte_hash(void)
{
    CHECK(coax_hash_bytes("abcdefghij", 10, 1) != coax_hash_bytes("abcdefghij", 10, 2));
    CHECK(coax_hash_bytes("abcdefghij", 10, 1) != coax_hash_bytes("abcdefghiJ", 10, 1));
    CHECK(coax_hash_bytes("abcdefghij", 10, 1) != coax_hash_bytes("abcdefghij", 9, 1));
    CHECK(coax_hash_bytes("a\0", 2, 1) != coax_hash_bytes("a", 1, 1));
    CHECK(coax_hash_bytes("abcdefghij", 10, 9) == coax_hash_bytes("abcdefghij", 10, 9));
    int x, y;
    CHECK(coax_hash_seed(&x) != coax_hash_seed(&y));
}

/* Keys whose bytes cancel a public constant of the hash's multiplies
** (0xe7037ed1a0b428db, where a key xored with it would reach a multiply
** alone) must still hash apart: every multiply also carries the seed. */
static void test_keys_cannot_zero_a_multiply(void)
{
    const uint32_t hi = 0xe7037ed1u, lo = 0xa0b428dbu;
    const uint64_t whole = 0xe7037ed1a0b428dbull;
    unsigned char k12[12], k40[40];
    uint64_t h12[64], h40[64];
    memcpy(k12, &hi, 4), memcpy(k12 + 4, &lo, 4);
    memcpy(k40, &whole, 8);
    memset(k40 + 8, 'x', 32);
    for (int i = 0; i < 64; i++) {
        uint32_t v = (uint32_t)i * 2654435761u;
        memcpy(k12 + 8, &v, 4);
        memcpy(k40 + 8, &v, 4); /* the rest of the first 16-byte block */
        h12[i] = coax_hash_bytes(k12, 12, 42);
        h40[i] = coax_hash_bytes(k40, 40, 42);
    }
    int same12 = 0, same40 = 0;
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < i; j++) same12 += h12[i] == h12[j], same40 += h40[i] == h40[j];
    CHECK_INT(same12, 0);
    CHECK_INT(same40, 0);
}

#define TESTS                              \
    X(test_equal_values_hash_alike)        \
    X(test_the_hash_sees_every_level)      \
    X(test_reordered_objects)              \
    X(test_allocation_failure)             \
    X(test_keyed_byte_hash)                \
    X(test_keys_cannot_zero_a_multiply)
#include "test.h"
