/*
** base/bytes.h: eight bytes in a word (word_eq, anywhere), and sixteen at a
** time for the byte scanners of the repair
** (the lenient parser's strings and spaces, the log's line and column sweep)
** and of the token estimator (tokens/chars.h: runs of letters and spaces). Text is
** read in place, with no padding after it, so a block is loaded only where
** sixteen bytes remain; shorter tails go a byte at a time. Without SSE2
** every helper says "no block" (bytes16_ok is false) and the callers'
** byte loops do all the work.
*/
#ifndef COAX_BASE_BYTES_H
#define COAX_BASE_BYTES_H

#include "base/core.h"

#ifdef __SSE2__
#include <emmintrin.h>
#define BYTES16 1
#else
#define BYTES16 0
#endif

/* Eight bytes in a word (SWAR), for text too short for a block or where
** a test needs no vector unit: WORD_ONES times a byte is that byte in
** each lane. */
#define WORD_ONES 0x0101010101010101ull
#define WORD_HIGHS 0x8080808080808080ull

/* The high bit of each byte of w that is c (a zero byte of w ^ c's). A
** borrow may flag a byte above the lowest one flagged, never below it: as
** a yes or no it is exact, and so is the lowest flagged byte. */
static inline uint64_t word_eq(uint64_t w, unsigned char c)
{
    uint64_t x = w ^ (WORD_ONES * c);
    return (x - WORD_ONES) & ~x & WORD_HIGHS;
}

/* The high bit of each byte of w that a JSON string escapes ('"', '\\',
** below 0x20) or that belongs to a UTF-8 sequence (0x80 and above): exact
** as word_eq is. */
static inline uint64_t word_json_stops(uint64_t w)
{
    return (((w - WORD_ONES * 0x20) | w) & WORD_HIGHS) | word_eq(w, '"') | word_eq(w, '\\');
}

/* How many bits of x are set (x below 2^16): the build targets baseline
** x86-64, where __builtin_popcount is a library call. */
static inline unsigned bits16(unsigned x)
{
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (x + (x >> 8)) & 0x1Fu;
}

/* How many bits of x are set, for 64-bit masks. */
static inline unsigned bits64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* The popcnt instruction, where the CPU has it: the build targets baseline
** x86-64, so a loop that counts bits in every block is compiled twice, once
** for popcnt (BITS_HW_TARGET, counting with bits64_as(x, true)) and once
** without, and picks one per call (bits_hw_ok). Elsewhere there is one
** way, bits64's. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define BITS_HW 1
#define BITS_HW_TARGET __attribute__((target("popcnt")))
static inline bool bits_hw_ok(void) { return __builtin_cpu_supports("popcnt"); }
#else
#define BITS_HW 0
#define BITS_HW_TARGET
static inline bool bits_hw_ok(void) { return false; }
#endif

/* AVX2, where the CPU has it, as popcnt above: a scanner that reads a
** text's every block (the log's line and column sweep, the candidate
** scan, the parsers' copies of the text) has a second way for 32 bytes at
** a time, in a BYTES32_TARGET function, and picks one per call
** (bytes32_ok). */
#if BYTES16 && defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define BYTES32 1
#define BYTES32_TARGET __attribute__((target("avx2")))
/* Set by the tests alone (spec/c/test_guard_page.c) to run the 16-byte way
** on an AVX2 machine and compare the two; one load beside the CPU check. */
extern bool coax_bytes32_off;
static inline bool bytes32_ok(void) { return !coax_bytes32_off && __builtin_cpu_supports("avx2"); }
#else
#define BYTES32 0
#endif

/* bits64, by the instruction when 'hw' (a constant, true only in a
** BITS_HW_TARGET function). */
static inline __attribute__((always_inline)) unsigned bits64_as(uint64_t x, bool hw)
{
#if BITS_HW
    if (hw) return (unsigned)__builtin_popcountll(x);
#endif
    return bits64(x);
}

#if BYTES16
/* Bit k set where byte k of the sixteen at p is c. */
static inline unsigned bytes16_eq(__m128i w, char c)
{
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_set1_epi8(c)));
}

static inline __m128i bytes16_load(const char *p) { return _mm_loadu_si128((const __m128i *)p); }

/* Bit k set where byte k is a UTF-8 continuation byte (10xxxxxx). */
static inline unsigned bytes16_cont(__m128i w)
{
    /* signed: 0x80..0xBF are the bytes below -64 */
    return (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(w, _mm_set1_epi8((char)0xC0)));
}

/* Bit k set where byte k is one of JSON's spaces or \f, \v (ws_tab). */
static inline unsigned bytes16_space(__m128i w)
{
    /* \t \n \v \f \r are 9..13: one unsigned range test, and the space */
    __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(_mm_sub_epi8(w, _mm_set1_epi8(9)), _mm_set1_epi8(4)),
                                 _mm_sub_epi8(w, _mm_set1_epi8(9)));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(ctl, _mm_cmpeq_epi8(w, _mm_set1_epi8(' '))));
}
#endif

#endif
