/*
** json/parse_scan.c: the strict parser's slow paths for strings (escapes,
** multi-byte sequences, faults) and whitespace runs, out of its loop.
*/
#include "json/parse_scan.h"

coax_code coax_json_fail(coax_error *err, const char *start, const char *end, coax_code code, const char *at,
                         const char *what)
{
    size_t off = (size_t)(at - start);
    if (code == COAX_ESYNTAX && at >= end)
        return coax_fail(err, code, off, "unexpected end of input, expected %s", what);
    if (code == COAX_ESYNTAX)
        return coax_fail(err, code, off, "expected %s", what);
    return coax_fail(err, code, off, "%s", what);
}

/* The copy of the input the faults are reported in. */
typedef struct text {
    const char *start, *end;
    coax_error *err;
} text;

static coax_code fail(const text *t, coax_code code, const char *at, const char *what)
{
    return coax_json_fail(t->err, t->start, t->end, code, at, what);
}

char *coax_json_skip_ws_run(char *p)
{
#ifdef __SSE2__
    for (;;) {
        __m128i w = _mm_loadu_si128((const __m128i *)p);
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8(' ')),
                                               _mm_cmpeq_epi8(w, _mm_set1_epi8('\n'))),
                                  _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('\t')),
                                               _mm_cmpeq_epi8(w, _mm_set1_epi8('\r'))));
        unsigned other = ~(unsigned)_mm_movemask_epi8(ws) & 0xFFFF;
        if (other) return p + (unsigned)__builtin_ctz(other);
        p += 16;
    }
#else
    while (is_ws[(unsigned char)*p]) p++;
    return p;
#endif
}

/* Decodes the escapes of a string body in place (s..e, known to be free of
** raw control characters and invalid UTF-8); returns the decoded length. */
static coax_code decode_escapes(const text *t, char *s, const char *e, size_t *outlen)
{
    char *d = s, *const first = s;
    while (s < e) {
        if (*s != '\\') {
            *d++ = *s++;
            continue;
        }
        const char *at = s;
        s++;
        switch (*s++) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '/': *d++ = '/'; break;
        case 'b': *d++ = '\b'; break;
        case 'f': *d++ = '\f'; break;
        case 'n': *d++ = '\n'; break;
        case 'r': *d++ = '\r'; break;
        case 't': *d++ = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (e - s < 4 || !coax_hex4(s, &cp)) return fail(t, COAX_ESYNTAX, at, "four hex digits after \\u");
            s += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (e - s < 6 || s[0] != '\\' || s[1] != 'u' || !coax_hex4(s + 2, &lo) ||
                    lo < 0xDC00 || lo > 0xDFFF)
                    return fail(t, COAX_EUTF8, at, "unpaired UTF-16 surrogate in \\u escape");
                s += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(t, COAX_EUTF8, at, "unpaired UTF-16 surrogate in \\u escape");
            }
            d += coax_utf8_encode(cp, d);
            break;
        }
        default:
            return fail(t, COAX_ESYNTAX, at, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        }
    }
    *outlen = (size_t)(d - first);
    return COAX_OK;
}

/* Length of the valid UTF-8 sequence at p (a byte >= 0x80), or 0. Two- and
** three-byte sequences are checked here (the NUL after the input fails the
** continuation test, so no length is checked); the rest by coax_utf8_decode. */
static inline size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
    if (p[0] >= 0xC2 && p[0] <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
    /* E1-EC and EE-EF: no overlong form, no surrogate to rule out */
    if (p[0] >= 0xE1 && p[0] <= 0xEF && p[0] != 0xED && (p[1] & 0xC0) == 0x80 &&
        (p[2] & 0xC0) == 0x80)
        return 3;
    uint32_t cp;
    return coax_utf8_decode(p, (size_t)(end - p), &cp);
}

string_end coax_json_string_rest(const char *start, const char *end, coax_error *err, char *s, char *p)
{
    const text t = {start, end, err};
    bool escaped = false;
    while (*p != '"') {
        if (*p == '\\') {
            escaped = true;
            if (end - p < 2) return (string_end){NULL, fail(&t, COAX_ESYNTAX, end, "'\"' to close the string")};
            p += 2 + string_scan(p + 2);
            continue;
        }
        if ((signed char)*p >= 0) { /* a control byte, or the NUL after the input */
            if (p >= end) return (string_end){NULL, fail(&t, COAX_ESYNTAX, end, "'\"' to close the string")};
            return (string_end){NULL, fail(&t, COAX_ESYNTAX, p, "no raw control character in a string (escape it)")};
        }
        /* a run of multi-byte sequences (text in most scripts but Latin) */
        do {
            size_t n = utf8_length((const unsigned char *)p, (const unsigned char *)end);
            if (!n) return (string_end){NULL, fail(&t, COAX_EUTF8, p, "invalid UTF-8 in string")};
            p += n;
        } while ((signed char)*p < 0);
        p += string_scan(p);
    }
    size_t n = (size_t)(p - s);
    if (escaped) {
        coax_code rc = decode_escapes(&t, s, p, &n);
        if (rc) return (string_end){NULL, rc};
    }
    return (string_end){p, n};
}

