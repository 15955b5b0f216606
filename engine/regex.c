/*
** regex.c: PCRE2 with coax's allocator and a step limit. For now a pattern
** goes to PCRE2 as written (UTF mode, '$' only at the very end as in
** ECMA-262); issue 4 translates ECMA-262 syntax first.
*/
#define PCRE2_CODE_UNIT_WIDTH 8
#include "regex.h"

#include <pcre2.h>

#define DEFAULT_MATCH_LIMIT 1000000u

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
    pcre2_set_depth_limit(e->mc, 10000);
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
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)p, len, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &code,
                                  &off, e->cc);
    if (!c) {
        if (code == PCRE2_ERROR_NOMEMORY) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
        PCRE2_UCHAR msg[120];
        pcre2_get_error_message(code, msg, sizeof msg);
        return coax_fail(err, COAX_EINVAL, off, "invalid regular expression: %s at offset %zu",
                         (const char *)msg, (size_t)off);
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

int coax_regex_match(const coax_regex_env *e, const coax_regex *re, const char *s, size_t len)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, e->gen);
    if (!md) return -2;
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, md, e->mc);
    pcre2_match_data_free(md);
    if (rc >= 0) return 1;
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc == PCRE2_ERROR_NOMEMORY || rc == PCRE2_ERROR_HEAPLIMIT) return rc == PCRE2_ERROR_NOMEMORY ? -2 : -1;
    return -1;
}
