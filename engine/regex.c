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

/* ECMA-262 names General_Category values in full (\p{Letter}); PCRE2
** 10.42 knows only the short names. Scripts pass through by name. */
static const char *short_gc(const char *n, size_t len)
{
    static const char *const map[][2] = {
        {"Letter", "L"}, {"Cased_Letter", "L&"}, {"Uppercase_Letter", "Lu"},
        {"Lowercase_Letter", "Ll"}, {"Titlecase_Letter", "Lt"}, {"Modifier_Letter", "Lm"},
        {"Other_Letter", "Lo"}, {"Mark", "M"}, {"Combining_Mark", "M"},
        {"Nonspacing_Mark", "Mn"}, {"Spacing_Mark", "Mc"}, {"Enclosing_Mark", "Me"},
        {"Number", "N"}, {"Decimal_Number", "Nd"}, {"digit", "Nd"}, {"Letter_Number", "Nl"},
        {"Other_Number", "No"}, {"Punctuation", "P"}, {"punct", "P"},
        {"Connector_Punctuation", "Pc"}, {"Dash_Punctuation", "Pd"}, {"Open_Punctuation", "Ps"},
        {"Close_Punctuation", "Pe"}, {"Initial_Punctuation", "Pi"}, {"Final_Punctuation", "Pf"},
        {"Other_Punctuation", "Po"}, {"Symbol", "S"}, {"Math_Symbol", "Sm"},
        {"Currency_Symbol", "Sc"}, {"Modifier_Symbol", "Sk"}, {"Other_Symbol", "So"},
        {"Separator", "Z"}, {"Space_Separator", "Zs"}, {"Line_Separator", "Zl"},
        {"Paragraph_Separator", "Zp"}, {"Other", "C"}, {"Control", "Cc"}, {"cntrl", "Cc"},
        {"Format", "Cf"}, {"Surrogate", "Cs"}, {"Private_Use", "Co"}, {"Unassigned", "Cn"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i][0]) == len && !memcmp(map[i][0], n, len)) return map[i][1];
    return NULL;
}

/* Rewrites \p{Long_Name} and \p{gc=...}/\p{sc=...} into PCRE2 spelling. */
static void translate(coax_buf *b, const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (p[i] != '\\' || i + 1 >= len) {
            coax_buf_putc(b, p[i]);
            continue;
        }
        char k = p[i + 1];
        const char *close = (k == 'p' || k == 'P') && i + 2 < len && p[i + 2] == '{'
                                ? memchr(p + i + 3, '}', len - i - 3)
                                : NULL;
        if (!close) {
            coax_buf_put(b, p + i, 2);
            i++;
            continue;
        }
        const char *n = p + i + 3;
        size_t nl = (size_t)(close - n);
        const char *eq = memchr(n, '=', nl);
        if (eq) {
            size_t pl = (size_t)(eq - n);
            bool gc = (pl == 16 && !memcmp(n, "General_Category", 16)) || (pl == 2 && !memcmp(n, "gc", 2));
            bool sc = (pl == 6 && !memcmp(n, "Script", 6)) || (pl == 2 && !memcmp(n, "sc", 2));
            if (gc || sc) {
                nl -= pl + 1;
                n = eq + 1;
            }
        }
        const char *s = short_gc(n, nl);
        coax_buf_putc(b, '\\');
        coax_buf_putc(b, k);
        coax_buf_putc(b, '{');
        if (s) coax_buf_puts(b, s);
        else coax_buf_put(b, n, nl);
        coax_buf_putc(b, '}');
        i = (size_t)(close - p);
    }
}

coax_code coax_regex_compile(coax_regex_env *e, const char *p, size_t len, coax_regex **out,
                             coax_error *err)
{
    int code;
    PCRE2_SIZE off;
    coax_buf t;
    coax_buf_init(&t, e->alloc);
    translate(&t, p, len);
    if (t.oom) {
        coax_buf_free(&t);
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    }
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)(t.data ? t.data : ""), t.len,
                                  PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &code, &off, e->cc);
    coax_buf_free(&t);
    if (!c) {
        if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAP_FAILED)
            return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
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
