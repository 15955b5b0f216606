/*
** regex.c: ECMA-262 patterns on PCRE2, with coax's allocator and limits on
** every match (steps, backtracking depth, heap), so a catastrophic pattern
** on a hostile string ends with an error instead of running for hours.
** ecma.c translates the pattern; PCRE2 compiles the translation.
**
** Beyond one match, a caller may charge every match to a budget of its
** own (a whole validation's). PCRE2's match limit cannot measure that: it
** restarts at every start position and does not see the characters a
** repeat or a back-reference runs over. So patterns are compiled with an
** automatic callout before every item, and a budgeted match counts the
** callouts and the distance the subject position moved between them; the
** callouts cost nothing when no budget is given.
*/
#define PCRE2_CODE_UNIT_WIDTH 8
#include "regex/regex.h"
#include "regex/ecma.h"

#include <pcre2.h>

#define DEFAULT_MATCH_LIMIT 1000000u

struct coax_regex_env {
    const coax_allocator *alloc;
    pcre2_general_context *gen;
    pcre2_compile_context *cc;
    pcre2_match_context *mc;
    uint32_t match_limit;
};

/* Most schema patterns are anchored runs of ASCII classes ("^[A-Z]{3}$",
** "^[a-z0-9-]+$", "^\\d{4}-\\d{2}$"). Those also compile to a list of
** (class, min, max) elements matched by a small backtracking loop with a
** step budget; PCRE2 answers when the budget runs out. */
#define FAST_MAX 24 /* at most 32: an element is a bit of coax_regex.in */
#define FAST_BUDGET 4096
_Static_assert(FAST_MAX <= 32, "an element is a bit of a uint32_t");

typedef struct relem {
    uint64_t set[2]; /* ASCII members */
    uint32_t min, max;
} relem;

struct coax_regex {
    pcre2_code *code;
    relem el[FAST_MAX];
    uint32_t in[256]; /* per byte, bit k: it is in element k's class (a byte per step of a run) */
    uint8_t nel;
    bool fast, to_end; /* to_end: the pattern ends with $ */
};

static void set_add(relem *e, unsigned lo, unsigned hi)
{
    for (unsigned c = lo; c <= hi && c < 128; c++) e->set[c >> 6] |= (uint64_t)1 << (c & 63);
}

/* A class escape (\d \w) or an escaped syntax character at p[1]; false for
** anything else (those patterns go to PCRE2 alone). */
static bool fast_escape(relem *e, char c, bool in_class)
{
    if (c == 'd') set_add(e, '0', '9');
    else if (c == 'w') set_add(e, '0', '9'), set_add(e, 'A', 'Z'), set_add(e, 'a', 'z'), set_add(e, '_', '_');
    else if (coax_byte_in("^$\\.*+?()[]{}|/", c)) set_add(e, (unsigned char)c, (unsigned char)c);
    else if (c == '-' && in_class) set_add(e, '-', '-');
    else return false;
    return true;
}

/* Reads an ECMA pattern (already checked by ecma.c) as fast elements. */
static bool fast_compile(coax_regex *re, const char *p, size_t len)
{
    if (len < 1 || p[0] != '^') return false;
    size_t i = 1, end = len;
    re->to_end = false;
    if (end >= 2 && p[end - 1] == '$' && p[end - 2] != '\\') {
        re->to_end = true;
        end--;
    }
    while (i < end) {
        if (re->nel == FAST_MAX) return false;
        relem *e = &re->el[re->nel++];
        memset(e, 0, sizeof *e);
        unsigned char c = (unsigned char)p[i];
        if (c == 0 || c >= 0x80 || coax_byte_in(".()|^$*+?{}]", c)) return false; /* a NUL: the full engine */
        if (c == '\\') {
            if (i + 1 >= end || !fast_escape(e, p[i + 1], false)) return false;
            i += 2;
        } else if (c == '[') {
            i++;
            if (i < end && p[i] == '^') return false;
            while (i < end && p[i] != ']') {
                unsigned char a = (unsigned char)p[i];
                if (a >= 0x80) return false;
                if (a == '\\') {
                    if (i + 1 >= end || !fast_escape(e, p[i + 1], true)) return false;
                    if (i + 2 < end && p[i + 2] == '-' && i + 3 < end && p[i + 3] != ']') return false;
                    i += 2;
                    continue;
                }
                if (i + 2 < end && p[i + 1] == '-' && p[i + 2] != ']') {
                    unsigned char b = (unsigned char)p[i + 2];
                    if (b >= 0x80 || b == '\\' || b < a) return false;
                    set_add(e, a, b);
                    i += 3;
                } else {
                    set_add(e, a, a);
                    i++;
                }
            }
            if (i >= end) return false;
            i++;
        } else {
            set_add(e, c, c);
            i++;
        }
        e->min = e->max = 1;
        if (i < end && (p[i] == '?' || p[i] == '*' || p[i] == '+')) {
            e->min = p[i] == '+';
            e->max = p[i] == '?' ? 1 : UINT32_MAX;
            i++;
        } else if (i < end && p[i] == '{') {
            unsigned long lo = 0, hi;
            i++;
            while (i < end && p[i] >= '0' && p[i] <= '9' && lo < 100000) lo = lo * 10 + (unsigned long)(p[i++] - '0');
            hi = lo;
            if (i < end && p[i] == ',') {
                i++;
                if (i < end && p[i] == '}') hi = UINT32_MAX;
                else for (hi = 0; i < end && p[i] >= '0' && p[i] <= '9' && hi < 100000;) hi = hi * 10 + (unsigned long)(p[i++] - '0');
            }
            if (i >= end || p[i] != '}' || lo >= 100000 || (hi >= 100000 && hi != UINT32_MAX)) return false;
            i++;
            e->min = (uint32_t)lo;
            e->max = (uint32_t)hi;
        }
        if (i < end && p[i] == '?' && e->min != e->max) i++; /* lazy: the same answer for a whole match */
    }
    return true;
}

/* 1 match, 0 no match, -1 budget spent: each length tried for an element
** takes a step. Recursion depth is at most FAST_MAX. */
static int fast_match(const coax_regex *re, unsigned k, const unsigned char *s, size_t n, size_t pos, int *budget)
{
    if (k == re->nel) return !re->to_end || pos == n;
    const relem *e = &re->el[k];
    size_t lim = n - pos < e->max ? n - pos : e->max, run = 0;
    uint32_t bit = (uint32_t)1 << k;
    while (run < lim && (re->in[s[pos + run]] & bit)) run++; /* the longest run of the class */
    if (run < e->min) return 0;
    if (k + 1 == re->nel) {
        /* the last element: the loop below would try the lengths from the
        ** longest down, a step each, and only the longest can reach the end
        ** (the first tried), or any does without "$": the steps it would
        ** take, counted at once */
        bool ok = !re->to_end || pos + run == n;
        size_t tries = ok ? 1 : run - e->min + 1;
        if (tries > (size_t)*budget) {
            *budget = -1;
            return -1;
        }
        *budget -= (int)tries;
        return ok;
    }
    for (size_t j = run;; j--) {
        if (--*budget < 0) return -1;
        int r = fast_match(re, k + 1, s, n, pos + j, budget);
        if (r) return r;
        if (j == e->min) return 0;
    }
}

/* PCRE2's free does not pass the size, coax's allocator wants it: keep it
** in a header in front of the block. The header keeps the alignment of
** what PCRE2 stores (pointers, sizes, doubles), not max_align_t's 16
** bytes: a host allocator such as LuaJIT's gives 8-byte aligned blocks,
** and a 16-byte header type read there is undefined behaviour. */
typedef union header {
    size_t size;
    void *pointer;
    double number;
    long long integer;
} header;

static void *re_malloc(PCRE2_SIZE size, void *ud)
{
    const coax_allocator *a = ud;
    if (size > SIZE_MAX - sizeof(header)) return NULL;
    header *h = coax_alloc_raw(a, size + sizeof(header));
    if (!h) return NULL;
    h->size = size + sizeof(header);
    return h + 1;
}

static void re_free(void *p, void *ud)
{
    if (!p) return;
    header *h = (header *)p - 1;
    coax_free_raw(ud, h, h->size);
}

coax_regex_env *coax_regex_env_new(const coax_allocator *alloc, uint32_t match_limit)
{
    coax_regex_env *e = coax_alloc_raw(alloc, sizeof *e);
    if (!e) return NULL;
    memset(e, 0, sizeof *e);
    e->alloc = alloc;
    e->gen = pcre2_general_context_create(re_malloc, re_free, (void *)alloc);
    if (e->gen) e->cc = pcre2_compile_context_create(e->gen);
    if (e->gen) e->mc = pcre2_match_context_create(e->gen);
    if (!e->gen || !e->cc || !e->mc) {
        coax_regex_env_free(e);
        return NULL;
    }
    e->match_limit = match_limit ? match_limit : DEFAULT_MATCH_LIMIT;
    pcre2_set_match_limit(e->mc, e->match_limit);
    pcre2_set_depth_limit(e->mc, COAX_REGEX_DEPTH_LIMIT);
    pcre2_set_heap_limit(e->mc, COAX_REGEX_HEAP_LIMIT_KB);
    return e;
}

uint32_t coax_regex_match_limit(const coax_regex_env *e) { return e->match_limit; }

void coax_regex_env_free(coax_regex_env *e)
{
    if (!e) return;
    pcre2_match_context_free(e->mc);
    pcre2_compile_context_free(e->cc);
    pcre2_general_context_free(e->gen);
    coax_free_raw(e->alloc, e, sizeof *e);
}

coax_code coax_regex_compile(coax_regex_env *e, const char *p, size_t len, coax_regex **out,
                             coax_error *err)
{
    int code;
    PCRE2_SIZE off;
    coax_buf t;
    coax_buf_init(&t, e->alloc);
    coax_code rc = coax_ecma_translate(p, len, &t, e->alloc, err);
    if (rc) {
        coax_buf_free(&t);
        return rc;
    }
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)(t.data ? t.data : ""), t.len,
                                  PCRE2_UTF | PCRE2_MATCH_UNSET_BACKREF | PCRE2_NEVER_BACKSLASH_C |
                                      PCRE2_AUTO_CALLOUT,
                                  &code, &off, e->cc);
    coax_buf_free(&t);
    if (!c) {
        if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAP_FAILED)
            return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
        PCRE2_UCHAR msg[120];
        pcre2_get_error_message(code, msg, sizeof msg);
        return coax_fail(err, COAX_EINVAL, 0,
                         "unsupported pattern: valid ECMA-262, but PCRE2 cannot run it (%s)",
                         (const char *)msg);
    }
    coax_regex *re = coax_alloc_raw(e->alloc, sizeof *re);
    if (!re) {
        pcre2_code_free(c);
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    }
    memset(re, 0, sizeof *re);
    re->code = c;
    re->fast = fast_compile(re, p, len);
    for (unsigned k = 0; re->fast && k < re->nel; k++)
        for (unsigned c = 0; c < 128; c++)
            if ((re->el[k].set[c >> 6] >> (c & 63)) & 1) re->in[c] |= (uint32_t)1 << k;
    *out = re;
    return COAX_OK;
}

void coax_regex_free(coax_regex_env *e, coax_regex *re)
{
    if (!re) return;
    pcre2_code_free(re->code);
    coax_free_raw(e->alloc, re, sizeof *re);
}

/* The scratch: match data, and a match context of its own whose callout
** counts steps against the budget of the match in progress. */
struct coax_regex_scratch {
    pcre2_match_data *md;
    pcre2_match_context *mc;
    uint64_t *budget;  /* steps left, during a budgeted match */
    PCRE2_SIZE at;     /* the subject position at the last callout */
    bool spent;        /* the budget ran out */
};

static int count_step(pcre2_callout_block *b, void *ud)
{
    coax_regex_scratch *r = ud;
    PCRE2_SIZE pos = b->current_position;
    uint64_t cost = 1 + (pos > r->at ? pos - r->at : r->at - pos) / 16;
    r->at = pos;
    if (*r->budget < cost) {
        *r->budget = 0;
        r->spent = true;
        return PCRE2_ERROR_CALLOUT;
    }
    *r->budget -= cost;
    return 0;
}

coax_regex_scratch *coax_regex_scratch_new(const coax_regex_env *e)
{
    coax_regex_scratch *r = coax_alloc_raw(e->alloc, sizeof *r);
    if (!r) return NULL;
    memset(r, 0, sizeof *r);
    r->md = pcre2_match_data_create(1, e->gen);
    r->mc = pcre2_match_context_copy(e->mc);
    if (!r->md || !r->mc) {
        pcre2_match_data_free(r->md);
        pcre2_match_context_free(r->mc);
        coax_free_raw(e->alloc, r, sizeof *r);
        return NULL;
    }
    pcre2_set_callout(r->mc, count_step, r);
    return r;
}

void coax_regex_scratch_free(const coax_regex_env *e, coax_regex_scratch *r)
{
    if (!r) return;
    pcre2_match_data_free(r->md);
    pcre2_match_context_free(r->mc);
    coax_free_raw(e->alloc, r, sizeof *r);
}

int coax_regex_match(const coax_regex_env *e, const coax_regex *re, const char *s, size_t len)
{
    return coax_regex_match_in(e, re, s, len, NULL, NULL);
}

int coax_regex_match_in(const coax_regex_env *e, const coax_regex *re, const char *s, size_t len,
                        coax_regex_scratch *scratch, uint64_t *budget)
{
    if (budget && !scratch) return -2;
    if (re->fast) {
        int left = FAST_BUDGET;
        int r = fast_match(re, 0, (const unsigned char *)s, len, 0, &left);
        if (budget) {
            uint64_t cost = (uint64_t)(FAST_BUDGET - (left > 0 ? left : 0)) + 1 + len / 16;
            if (*budget < cost) {
                *budget = 0;
                return -3;
            }
            *budget -= cost;
        }
        if (r >= 0) return r;
    }
    pcre2_match_data *md = scratch ? scratch->md : pcre2_match_data_create(1, e->gen);
    if (!md) return -2;
    pcre2_match_context *mc = e->mc;
    if (budget) {
        scratch->budget = budget;
        scratch->at = 0;
        scratch->spent = false;
        mc = scratch->mc;
    }
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, md, mc);
    if (!scratch) pcre2_match_data_free(md);
    if (budget && scratch->spent) return -3;
    if (rc >= 0) return 1;
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc == PCRE2_ERROR_NOMEMORY) return -2;
    return rc == PCRE2_ERROR_MATCHLIMIT ? -1 : -4; /* else the depth or heap limit */
}
