/*
** regex.c: ECMA-262 patterns on PCRE2, with coax's allocator and limits on
** every match (steps, backtracking depth, heap), so a catastrophic pattern
** on a hostile string ends with an error instead of running for hours.
** ecma.c translates the pattern; PCRE2 compiles the translation.
*/
#define PCRE2_CODE_UNIT_WIDTH 8
#include "regex.h"
#include "ecma.h"

#include <pcre2.h>

#define DEFAULT_MATCH_LIMIT 1000000u
#define DEPTH_LIMIT 10000u    /* nested backtracking points of one match */
#define HEAP_LIMIT_KB 16384u  /* backtracking memory of one match: 16 MiB */

struct coax_regex_env {
    const coax_allocator *alloc;
    pcre2_general_context *gen;
    pcre2_compile_context *cc;
    pcre2_match_context *mc;
};

struct coax_regex {
    pcre2_code *code;
};

/* PCRE2's free does not pass the size, coax's allocator wants it: keep it
** in a header in front of the block. */
typedef union header {
    size_t size;
    max_align_t align;
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
    pcre2_set_match_limit(e->mc, match_limit ? match_limit : DEFAULT_MATCH_LIMIT);
    pcre2_set_depth_limit(e->mc, DEPTH_LIMIT);
    pcre2_set_heap_limit(e->mc, HEAP_LIMIT_KB);
    return e;
}

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
                                  PCRE2_UTF | PCRE2_MATCH_UNSET_BACKREF | PCRE2_NEVER_BACKSLASH_C,
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
    re->code = c;
    *out = re;
    return COAX_OK;
}

void coax_regex_free(coax_regex_env *e, coax_regex *re)
{
    if (!re) return;
    pcre2_code_free(re->code);
    coax_free_raw(e->alloc, re, sizeof *re);
}

coax_regex_scratch *coax_regex_scratch_new(const coax_regex_env *e)
{
    return (coax_regex_scratch *)pcre2_match_data_create(1, e->gen);
}

void coax_regex_scratch_free(coax_regex_scratch *s)
{
    pcre2_match_data_free((pcre2_match_data *)s);
}

int coax_regex_match(const coax_regex_env *e, const coax_regex *re, const char *s, size_t len)
{
    return coax_regex_match_in(e, re, s, len, NULL);
}

int coax_regex_match_in(const coax_regex_env *e, const coax_regex *re, const char *s, size_t len,
                        coax_regex_scratch *scratch)
{
    pcre2_match_data *md = (pcre2_match_data *)scratch;
    if (!md && !(md = pcre2_match_data_create(1, e->gen))) return -2;
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, md, e->mc);
    if (!scratch) pcre2_match_data_free(md);
    if (rc >= 0) return 1;
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc == PCRE2_ERROR_NOMEMORY) return -2;
    return -1; /* match, depth or heap limit */
}
