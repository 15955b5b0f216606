/*
** lenient_space.c: what the lenient parser (lenient.h) passes between
** tokens: spaces, comments (logged; invented when they say content was
** left out or swallowed what followed) and Unicode spaces; the ellipses
** that stand for left-out content; and the class of a missing comma. Not
** in lenient.c: lenient.c calls the fast loop (lenient_fast.c), which calls
** these, and engine/ has no call cycle between files.
*/
#include "repair/lenient.h"
#include "base/bytes.h"

#include <math.h>

/* A Unicode space outside strings: returns its byte length, or 0. */
static size_t unicode_space(const char *p, const char *e, bool *bom)
{
    size_t n = repair_unicode_space(p, e);
    *bom = n == 3 && !memcmp(p, "\xEF\xBB\xBF", 3);
    return n;
}

/* The comment's text s..*stop (at most 120 bytes) in buf, its Unicode
** spaces one writes for a space as ASCII ones, byte for byte: "//<NBSP>37"
** offers 37 and "//<NBSP>actually<NBSP>37" takes the value back, as with
** spaces. */
static const char *plain_comment(const char *s, const char **stop, char *buf)
{
    size_t n = (size_t)(*stop - s);
    memcpy(buf, s, n);
    buf[n] = '\0';
    for (size_t i = 0, k; i < n; i += k ? k : 1)
        if ((k = repair_visible_space(s + i, *stop))) memset(buf + i, ' ', k);
    *stop = buf + n;
    return buf;
}

/* The byte length of the character shown as nothing (coax_invisible_at)
** that ends at p (from b), or 0. */
static size_t invisible_before(const char *b, const char *p)
{
    for (size_t n = 2; n <= 4; n++)
        if ((size_t)(p - b) >= n && coax_invisible_at(p - n, p) == n) return n;
    return 0;
}

/* Whether the reply's own text before p ends in characters shown as
** nothing alone, after a token (the read view has them as spaces):
** [1<U+200B>2] shows "12", and reads 1 and 2 only as a guess. */
static bool parted_unseen(const lp *ps, const char *p)
{
    const char *b = lp_orig(ps, ps->b), *o = lp_orig(ps, p), *c = o;
    for (size_t n; (n = invisible_before(b, c));) c -= n;
    return c < o && c > b && !ws_tab[(unsigned char)c[-1]] && !repair_unicode_space(c - 1, o) &&
           !(c - b >= 2 && repair_unicode_space(c - 2, o) == 2) && !(c - b >= 3 && repair_unicode_space(c - 3, o) == 3);
}

/* A comment from 'at' to 'end'. One that runs into the end of the text
** inside a value may have swallowed what was meant to follow
** ({"id": 7, "priority": 2 # high, "owner": "bob"}: the owner, and the
** closing brace, were text of the comment): closing what is open after it
** is then a guess. */
static bool only_space(const char *s, const char *t);

static inline bool is_alpha_ascii(char c) { return (unsigned)((c | 0x20) - 'a') < 26u; }

/* Whether the n letters at p are the lowercase word w, in any case. */
static bool letters_are(const char *p, const char *w, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if ((p[k] | 0x20) != w[k]) return false;
    return true;
}

#define W(s) COAX_WORD(s),
#define WORD_IS(p, n, words) coax_word_in(p, n, words, sizeof words / sizeof *words)

/* A word's bit in a list's filter, from its first and last letters (in any
** case) and its length: a word whose bit a list lacks is in none of its
** words, so the comments' looks skip a list's compares for most words (a
** walk of every list for every word of every comment cost some 280
** instructions a comment). BIT_OF is word_bit for a list's literal, a
** constant. */
#define BIT_OF(s) ((uint64_t)1 << ((((s)[0] | 0x20) + 3 * ((s)[sizeof(s) - 2] | 0x20) + 5 * (sizeof(s) - 1)) & 63)) |
static inline uint64_t word_bit(const char *p, size_t n) /* n: 1 or more */
{
    return (uint64_t)1 << ((((unsigned char)p[0] | 0x20) + 3 * ((unsigned char)p[n - 1] | 0x20) + 5 * n) & 63);
}

/* The words elision_word knows, for its filter (word_bit): most words of
** a comment are none of them, and skip its switch, a jump through a table
** that was mispredicted at nearly every word of the bench's comments. */
#define ELISIONS(X)                                                                                                    \
    X("on") X("etc") X("more") X("omit") X("rest") X("snip") X("todo") X("forth") X("elided") X("others")            \
    X("repeat") X("omitted") X("similar") X("snipped") X("skipped") X("brevity") X("partial") X("excerpt")           \
    X("abridged") X("continue") X("truncated") X("remaining") X("shortened") X("continues") X("continued")           \
    X("abbreviated") X("placeholder")

/* Whether the word p[0..len) says something was left out; after_so: the
** word before it was "so". */
static bool elision_word(const char *p, size_t len, bool after_so)
{
    static const uint64_t elision_bits = ELISIONS(BIT_OF) 0;
    if (!(word_bit(p, len) & elision_bits)) return false;
    switch (len) {
    case 2: return after_so && letters_are(p, "on", 2);
    case 3: return letters_are(p, "etc", 3);
    case 4: return letters_are(p, "more", 4) || letters_are(p, "omit", 4) || letters_are(p, "rest", 4) ||
                   letters_are(p, "snip", 4) || letters_are(p, "todo", 4);
    case 5: return after_so && letters_are(p, "forth", 5);
    case 6: return letters_are(p, "elided", 6) || letters_are(p, "others", 6) || letters_are(p, "repeat", 6);
    case 7: return letters_are(p, "omitted", 7) || letters_are(p, "similar", 7) || letters_are(p, "snipped", 7) ||
                   letters_are(p, "skipped", 7) || letters_are(p, "brevity", 7) || letters_are(p, "partial", 7) ||
                   letters_are(p, "excerpt", 7);
    case 8: return letters_are(p, "abridged", 8) || letters_are(p, "continue", 8);
    case 9: return letters_are(p, "truncated", 9) || letters_are(p, "remaining", 9) || letters_are(p, "shortened", 9) ||
                   letters_are(p, "continues", 9) || letters_are(p, "continued", 9);
    case 11: return letters_are(p, "abbreviated", 11) || letters_are(p, "placeholder", 11);
    default: return false;
    }
}

/* A comment that says the model left content out, as an ellipsis does
** ([1, 2 // and 20 more], {"a": 1 # other fields omitted}): removing it
** would accept the part as the whole. Whole words, any case ("so on" and
** "so forth" as "so" then the word); two dots or U+2026 anywhere. Such a
** remark is short: the look is bounded, as comments are common and one may
** run to the end of a one-line reply (a sentence's worth: "the full list
** goes on with many other identifiers, omitted here"). 'e': the text's end. */
#if BYTES16
/* The letters (is_alpha_ascii's), dots and 0xE2 bytes of s[0..n) (n at
** most 120, the text ending at e) as bit masks, bytes 0-63 in word 0 and
** 64-127 in word 1: the look asks about a comment's words, which a byte at
** a time cost seven instructions a byte. */
static void comment_masks(const char *s, size_t n, const char *e, uint64_t alpha[2], uint64_t dot[2],
                          uint64_t e2[2])
{
    alpha[0] = alpha[1] = dot[0] = dot[1] = e2[0] = e2[1] = 0;
    for (size_t k = 0; k < n; k += 16) {
        __m128i w;
        if (e - (s + k) >= 16) {
            w = bytes16_load(s + k);
        } else { /* the text's last bytes */
            char pad[16] = {0};
            memcpy(pad, s + k, (size_t)(e - (s + k)));
            w = bytes16_load(pad);
        }
        /* (c | 0x20) - 'a' below 26, unsigned */
        __m128i l = _mm_sub_epi8(_mm_or_si128(w, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
        unsigned h = (unsigned)(k >> 6), at = (unsigned)(k & 63);
        alpha[h] |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(25)), l)) << at;
        dot[h] |= (uint64_t)bytes16_eq(w, '.') << at;
        e2[h] |= (uint64_t)bytes16_eq(w, (char)0xE2) << at;
    }
    unsigned h = n >= 64, cut = (unsigned)(n - 64 * h); /* bits from n on: none (cut is below 64) */
    uint64_t keep = ((uint64_t)1 << cut) - 1;
    alpha[h] &= keep;
    dot[h] &= keep;
    e2[h] &= keep;
}

/* The byte loop's answer (below, for builds without SSE2): any of the
** events it returns on, wherever they are, from the masks. */
static bool comment_elides(const char *s, const char *t, const char *e)
{
    size_t n = t - s > 120 ? 120 : (size_t)(t - s);
    uint64_t a[2], d[2], x[2];
    comment_masks(s, n, e, a, d, x);
    if ((d[0] & (d[0] >> 1 | d[1] << 63)) | (d[1] & d[1] >> 1)) return true; /* two dots, both before t */
    for (unsigned h = 0; h < 2; h++)
        for (uint64_t m = x[h]; m; m &= m - 1)
            if (lp_ellipsis_at(s + 64 * h + (unsigned)__builtin_ctzll(m), s + n)) return true;
    bool after_so = false; /* the last word was "so" */
    size_t prev_end = 0;   /* just past the last word */
    for (unsigned h = 0; h < 2; h++) {
        /* a word starts at a letter after a byte that is none (the last
        ** byte of word 0 comes before word 1's first) */
        uint64_t starts = a[h] & ~(a[h] << 1 | (h ? a[0] >> 63 : 0));
        for (; starts; starts &= starts - 1) {
            unsigned k = (unsigned)__builtin_ctzll(starts);
            size_t i = 64 * h + k;
            uint64_t rest = ~(a[h] >> k);
            size_t len = rest ? (size_t)__builtin_ctzll(rest) : 64;
            if (!h && len == 64 - k) len += (size_t)__builtin_ctzll(~a[1]); /* on into word 1 (never all letters) */
            bool so = after_so;
            for (size_t j = prev_end; so && j < i; j++) so = s[j] == ' ' || s[j] == '\t'; /* only blanks since "so" */
            if (elision_word(s + i, len, so)) return true;
            after_so = len == 2 && letters_are(s + i, "so", 2);
            prev_end = i + len;
        }
    }
    return false;
}
#else
static bool comment_elides(const char *s, const char *t, const char *e)
{
    if (t - s > 120) t = s + 120;
    bool after_so = false;
    for (const char *p = s; p < t;) {
        unsigned char c = (unsigned char)*p;
        if (!is_alpha_ascii((char)c)) {
            if ((c == '.' && t - p >= 2 && p[1] == '.') || (c == 0xE2 && lp_ellipsis_at(p, t))) return true;
            after_so &= c == ' ' || c == '\t';
            p++;
            continue;
        }
        const char *q = p + 1;
        while (q < t && is_alpha_ascii(*q)) q++;
        size_t len = (size_t)(q - p);
        if (elision_word(p, len, after_so)) return true;
        after_so = len == 2 && letters_are(p, "so", 2);
        p = q;
    }
    return false;
}
#endif

/* Whether the value a comment follows says none (none_before) or the
** comment holds a condition (conditional), which keeps some of its words
** from disowning the value: worked out the first time such a word is met
** (the bench's comments have none, and the look cost some 70 instructions
** a comment), then kept. */
typedef struct none_look {
    const char *b, *t;    /* the text's start, the value's end */
    const char *s, *stop; /* the comment's words */
    int answer;           /* -1 until asked */
} none_look;

static bool none_before(const char *b, const char *t);
static bool conditional(const char *s, const char *t);

static bool says_none(none_look *n)
{
    if (n->answer < 0) n->answer = none_before(n->b, n->t) || conditional(n->s, n->stop);
    return n->answer;
}

/* A comment on a value's line after it that disowns the value: says it
** is a mistake ({"age": 36 // actually 37}, "typo", "should be", "I
** meant"), made up ("dummy", "fake", "replace with ...") or a stand-in for
** no answer ({"age": 0 // unknown}, "not found", "N/A", "?"): removing it
** accepts a value its writer took back. A stand-in for none is what null,
** "" or an empty container already say ({"email": null // not given}).
** Whether the word p[0..n) of such a comment disowns the value; prev: the
** word before it, pn its length (0: none); none: whether that value is
** null, "" or empty, which a "no answer" remark agrees with, or the
** comment a condition (says_none). */
#define TAKEN_BACK(X)                                                                                                  \
    X("actually") X("typo") X("mistake") X("mistaken") X("wrong") X("incorrect") X("erroneous") X("oops")            \
    X("correction") X("corrected") X("instead") X("dummy") X("fake") X("fictional") X("fictitious")                  \
    X("hypothetical") X("replace")
/* not "not stated": a value inferred is meant ({"age": 36 // inferred, not stated}) */
#define NO_ANSWER(X) X("unknown") X("missing") X("unspecified") X("unavailable")
#define NOT_WHAT(X) X("found") X("given") X("provided") X("specified") X("available") X("known")
/* a value in doubt: "// probably", "# not sure", "// or 37" (another value offered), "// TBD" */
#define DOUBTED(X)                                                                                                     \
    X("probably") X("maybe") X("perhaps") X("possibly") X("unsure") X("uncertain") X("unverified") X("unconfirmed")  \
    X("guess") X("guessing") X("guessed") X("tbd") X("tbc") X("todo") X("fixme")
static bool disowning_word(const char *p, size_t n, const char *prev, size_t pn, none_look *none)
{
    static const coax_word taken_back[] = {TAKEN_BACK(W)}, no_answer[] = {NO_ANSWER(W)}, not_what[] = {NOT_WHAT(W)},
                           doubted[] = {DOUBTED(W)};
    static const uint64_t taken_back_bits = TAKEN_BACK(BIT_OF) 0, no_answer_bits = NO_ANSWER(BIT_OF) 0,
                          not_what_bits = NOT_WHAT(BIT_OF) 0, doubted_bits = DOUBTED(BIT_OF) 0;
    uint64_t bit = word_bit(p, n);
    if ((bit & taken_back_bits && WORD_IS(p, n, taken_back)) || (bit & doubted_bits && WORD_IS(p, n, doubted)))
        return true;
    if (!pn && n == 2 && letters_are(p, "or", 2)) return true;
    if (pn == 3 && letters_are(prev, "not", 3) &&
        ((n == 4 && letters_are(p, "sure", 4)) || (n == 7 && letters_are(p, "certain", 7))))
        return true;
    if (pn == 6 && letters_are(prev, "should", 6) &&
        ((n == 2 && letters_are(p, "be", 2)) || (n == 4 && letters_are(p, "have", 4))))
        return true;
    if (pn == 1 && (*prev | 0x20) == 'i' && n == 5 && letters_are(p, "meant", 5)) return true;
    return ((bit & no_answer_bits && WORD_IS(p, n, no_answer)) ||
            (pn == 3 && letters_are(prev, "not", 3) && bit & not_what_bits && WORD_IS(p, n, not_what))) &&
           !says_none(none);
}

/* Whether the text ending at t (after spaces) is a value that says none:
** null (None, nil), "" or '' or an empty [] or {}. */
static bool none_before(const char *b, const char *t)
{
    static const struct {
        char text[5];
        uint8_t n;
    } nulls[] = {{"null", 4}, {"None", 4}, {"nil", 3}, {"\"\"", 2}, {"''", 2}, {"[]", 2}, {"{}", 2}};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++) {
        size_t n = nulls[i].n;
        if ((size_t)(t - b) >= n && !memcmp(t - n, nulls[i].text, n) &&
            ((size_t)(t - b) == n || !is_alpha_ascii(t[-(ptrdiff_t)n - 1])))
            return true;
    }
    return false;
}

/* Whether the words s..t hold a condition ("null if unknown", "0 when
** not found", "else empty"): a remark on the format, which a "no answer"
** word in it does not make about the value before it. */
static bool conditional(const char *s, const char *t)
{
#define CONDITIONS(X) X("if") X("when") X("unless") X("otherwise") X("else")
    static const coax_word words[] = {CONDITIONS(W)};
    static const uint64_t bits = CONDITIONS(BIT_OF) 0;
    for (const char *p = s; p < t;) {
        if (!is_alpha_ascii(*p)) {
            p++;
            continue;
        }
        const char *q = p + 1;
        while (q < t && is_alpha_ascii(*q)) q++;
        if (word_bit(p, (size_t)(q - p)) & bits && WORD_IS(p, (size_t)(q - p), words)) return true;
        p = q;
    }
    return false;
}

/* The number at s..t (a sign, digits, a point, an exponent), or NAN. */
static double number_text(const char *s, const char *t)
{
    char buf[64];
    bool is_int;
    size_t n = (size_t)(t - s);
    if (!n || n >= sizeof buf || coax_number_span(s, n, &is_int) != n) return NAN;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return coax_dot_strtod(buf, NULL);
}

/* Whether the comment's text s..stop is nothing but another scalar than
** the value ending at t: {"version": 19 //16}, {"ok": true # false},
** {"age": 36 // -> 37}, a block comment holding 37 after 36: the value it
** replaced, or the one meant? Which is a guess. The same value again
** (36 // 36, 5 // 5.0), a unit, a range or words (30 // seconds, 5 //
** 0-10, 3 // 3 items) offer none. */
static bool comment_offers_value(const char *b, const char *t, const char *s, const char *stop)
{
    for (size_t k; stop > s && ((k = coax_blank_before(s, stop)) || ws_tab[(unsigned char)stop[-1]] ||
                                (stop[-1] == '/' && stop - s >= 2 && stop[-2] == '*'));)
        stop -= k ? k : stop[-1] == '/' ? 2 : 1;
    s = lp_space_end(s, stop); /* a no-break space as a space: // 37 */
    /* an arrow to it (-> 37, => 37, U+2192's → 37) or parentheses around it, (37) */
    size_t arrow = stop - s >= 2 && (s[0] == '-' || s[0] == '=') && s[1] == '>' ? 2
                   : stop - s >= 3 && !memcmp(s, "\xE2\x86\x92", 3)     ? 3
                                                                          : 0;
    s = lp_space_end(s + arrow, stop);
    if (stop - s >= 2 && *s == '(' && stop[-1] == ')') s++, stop--;
    /* marked about or equal (~37, U+2248's ≈37, = 37) or with a sentence's
    ** point (37.): it offers 37 all the same; a bound (<37) offers none */
    size_t mark = s < stop && (*s == '~' || *s == '=') ? 1 : stop - s >= 3 && !memcmp(s, "\xE2\x89\x88", 3) ? 3 : 0;
    s = lp_space_end(s + mark, stop);
    if (stop - s >= 2 && (stop[-1] == '.' || stop[-1] == '!') && is_digit(stop[-2])) stop--;
    /* after a scalar's last sign (not a container's closer, nor other text) */
    unsigned char last = (unsigned char)t[-1];
    if (s == stop || last >= 0x80 || !(is_ident(last) || last == '"' || last == '\'' || last == '.')) return false;
    size_t n = (size_t)(stop - s);
    bool quoted = n >= 2 && (*s == '"' || *s == '\'') && stop[-1] == *s && !memchr(s + 1, *s, n - 2);
    bool literal = (n == 4 && (!memcmp(s, "true", 4) || !memcmp(s, "null", 4))) || (n == 5 && !memcmp(s, "false", 5));
    double offered = number_text(*s == '+' ? s + 1 : s, stop);
    if (!quoted && !literal && isnan(offered)) return false;
    /* the same text again (in quotes of either kind), or the same number written another way */
    if ((size_t)(t - b) >= n && !memcmp(t - n + quoted, s + quoted, n - 2 * quoted) &&
        (quoted ? (*(t - n) == '"' || *(t - n) == '\'') && t[-1] == *(t - n) /* t[-n]: -n, unsigned, overflows */
                : (size_t)(t - b) == n || !is_ident((unsigned char)*(t - n - 1))))
        return false;
    const char *v = t;
    while (v > b && (is_digit(v[-1]) || coax_byte_in("+-.eE", v[-1]))) v--;
    return isnan(offered) || number_text(v, t) != offered;
}

/* Whether the words s..stop of a comment after the whole value say it is
** no answer, as a label before it would ({"age": 36} // example, # sample,
** a placeholder, a template, a draft): inside a value such a comment may
** be about the format ({"date": "..." // example: 2024-01-01}). */
static bool comment_labels(const char *s, const char *stop)
{
#define LABELS(X) X("example") X("examples") X("sample") X("placeholder") X("template") X("draft") X("mock")
    /* words that point at another value: "// as in the example above", "# see examples" */
#define POINTING(X) X("see") X("as") X("like") X("from") X("in") X("per") X("based") X("above") X("below")
    static const coax_word words[] = {LABELS(W)}, pointing[] = {POINTING(W)};
    size_t n = 0;
    bool label = false;
    for (const char *p = s; p < stop;) { /* the label among the comment's first three words */
        if (!is_alpha_ascii(*p)) {
            p++;
            continue;
        }
        const char *q = p + 1;
        while (q < stop && is_alpha_ascii(*q)) q++;
        if (WORD_IS(p, (size_t)(q - p), pointing)) return false;
        label = label || (n++ < 3 && WORD_IS(p, (size_t)(q - p), words));
        p = q;
    }
    return label;
}

/* Whether the comment from 'at' to 'end' follows a value on its line
** (after a comma, perhaps), or the whole value, and disowns it. The look is the comment's first
** 120 bytes and, back, its line: linear over all comments, as each line's
** look stops at the comment or value before. */
static bool comment_disowns(const lp *ps, const char *at, const char *end)
{
    const char *t = at;
    /* ASCII blanks first, a compare each (coax_blank_before's steps, which
    ** ask for the Unicode ones too, cost some fifteen instructions a byte of
    ** a comment's indentation) */
    while (t > ps->b && (t[-1] == ' ' || t[-1] == '\t')) t--;
    /* after the whole value (nothing open), a comment on a line of its own
    ** can be about that value only */
    for (size_t k;
         t > ps->b && ((k = coax_blank_before(ps->b, t)) || (!ps->nopens && (t[-1] == '\n' || t[-1] == '\r')));)
        t -= k ? k : 1;
    bool after_comma = t > ps->b && t[-1] == ',';
    if (after_comma) t--;
    t = coax_blanks_start(ps->b, t);
    /* no value before it on its line (a NUL too: strchr's answer was true for it) */
    if (t == ps->b) return false;
    switch (t[-1]) {
    case '{': case '[': case ':': case ',': case '\n': case '\r': case '\0': return false;
    default: break;
    }
    const char *s = at, *stop = end - at > 120 ? at + 120 : end;
    while (s < stop && (*s == '/' || *s == '#' || *s == '*')) s++; /* the comment's opening */
    char buf[128];
    s = plain_comment(s, &stop, buf);
    /* in a list, a value alone in a comment after an item's comma is an
    ** item left out ([1, // 2 ⏎ 3]), not another value for the one before;
    ** and outside every value the text before it may be no value of this
    ** parse (a span's candidates start after text) */
    bool in_list = after_comma && ps->nopens && !ps->opens[ps->nopens - 1].object;
    if (ps->nopens && !in_list && comment_offers_value(ps->b, t, s, stop)) return true;
    none_look none = {ps->b, t, s, stop, -1};
    const char *prev = NULL;
    size_t pn = 0;
    bool question = false;
    if (!ps->nopens && comment_labels(s, stop)) return true;
    for (const char *p = s; p < stop;) {
        if (!is_alpha_ascii(*p)) {
            /* a question about the value ("// ?", "// 37?", "# in years?"; not a URL's "?q=") */
            if (*p == '?' && (p + 1 == stop || !is_alpha_ascii(p[1]))) question = true;
            /* "N/A", "n/a" between spaces (not a path's /n/a) */
            if (*p == '/' && p > s && p + 1 < stop && (p[-1] | 0x20) == 'n' && (p[1] | 0x20) == 'a' &&
                (p - 1 == s || ws_tab[(unsigned char)p[-2]] || coax_blank_before(s, p - 1)) &&
                (p + 2 == stop || ws_tab[(unsigned char)p[2]] || coax_blank_at(p + 2, stop) || p[2] == ',' ||
                 p[2] == '.' || p[2] == '*') &&
                !says_none(&none))
                return true;
            p++;
            continue;
        }
        const char *q = p + 1;
        while (q < stop && is_alpha_ascii(*q)) q++;
        if (disowning_word(p, (size_t)(q - p), prev, pn, &none)) return true;
        prev = p;
        pn = (size_t)(q - p);
        p = q;
    }
    return question && !says_none(&none); /* the value is in doubt */
}

/* Whether the comment at..end stands between a member's colon and its
** value and holds nothing but another scalar than that value ("age": a
** block comment holding 37, then 36; "v": // 16, then 19 on the next
** line): as after it (comment_offers_value), the value it replaced, or
** the one meant? The same value again, a unit or words offer none. The
** look is the value's first 64 bytes and the comment's first 120. */
static bool comment_before_offers(const lp *ps, const char *at, const char *end)
{
    const char *c = at, *e = ps->e;
    while (c > ps->b && ws_tab[(unsigned char)c[-1]]) c--; /* the ASCII ones first, as comment_disowns */
    for (size_t k; c > ps->b && ((k = coax_blank_before(ps->b, c)) || ws_tab[(unsigned char)c[-1]]);) c -= k ? k : 1;
    if (c == ps->b || c[-1] != ':' || !ps->nopens || !ps->opens[ps->nopens - 1].object) return false;
    const char *v = lp_space_end(end, e);
    const char *w = v, *limit = e - v > 64 ? v + 64 : e;
    if (w < limit && (*w == '"' || *w == '\'')) { /* a quoted string on its line */
        char q = *w++;
        while (w < limit && *w != q && *w != '\n') w += *w == '\\' && w + 1 < limit ? 2 : 1;
        if (w >= limit || *w != q) return false;
        w++;
    } else {
        while (w < limit && (is_ident((unsigned char)*w) || *w == '.' || *w == '+' || *w == '-')) w++;
    }
    if (w == v || w == limit) return false;
    const char *s = at, *stop = end - at > 120 ? at + 120 : end;
    while (s < stop && (*s == '/' || *s == '#' || *s == '*')) s++; /* the comment's opening */
    char buf[128];
    s = plain_comment(s, &stop, buf);
    return comment_offers_value(v, w, s, stop);
}

/* Marks the innermost open array and object whose closer the comment at..end
** holds, one no opener in the comment matches: if the reply's end leaves it
** open, the comment took its closer in as text or it was never written, and
** which one is a guess (lp_closer_commented: [[ ## answer ## ]] then ["a"]
** is ["a"] under a label, not [[["a"]]]; "// see [1]" closes nothing). */
static __attribute__((noinline)) void mark_commented_closers(lp *ps, const char *at, const char *end)
{
    size_t depth[2] = {0, 0}; /* arrays', objects' opened in the comment */
    bool stray[2] = {false, false};
    for (const char *c = at; c < end; c++) {
        int object = *c == '{' || *c == '}';
        if (*c == '[' || *c == '{') depth[object]++;
        else if (*c == ']' || *c == '}') {
            if (depth[object]) depth[object]--;
            else stray[object] = true;
        }
    }
    for (int object = 0; object < 2; object++) {
        if (!stray[object]) continue;
        for (size_t k = ps->nopens; k-- > 0;)
            if (ps->opens[k].object == (bool)object) {
                ps->opens[k].closer_commented = true;
                break;
            }
    }
}

/* Whether s..t (a comment, in the bytes parsed) holds a closing bracket:
** mostly none, the look mark_commented_closers needs before its walk.
** Sixteen bytes a step, inline: two calls of memchr cost a comment some
** eighty instructions. A step may read past t: the text's NUL and zero
** bytes after e (lenient.h) are there. */
static inline bool holds_closer(const char *s, const char *t)
{
#if BYTES16
    for (; s < t; s += 16) {
        __m128i w = bytes16_load(s);
        unsigned m = bytes16_eq(w, ']') | bytes16_eq(w, '}');
        if (t - s < 16) m &= (1u << (t - s)) - 1;
        if (m) return true;
    }
    return false;
#else
    return memchr(s, ']', (size_t)(t - s)) || memchr(s, '}', (size_t)(t - s));
#endif
}

static void note_comment(lp *ps, const char *at, const char *end, bool closed)
{
    /* a block comment the reply ends inside, a value open around it: the
    ** reply was cut in the comment ({"a": 1, then an opened block comment),
    ** what came after it lost */
    bool cut = !closed && at[0] == '/' && at[1] == '*' && ps->nopens;
    /* only spaces after it (a reply's last new line), or a fence that ends the value there
    ** (lp_fence_ends_value: {"a": 1 # x, "b": 2}⏎```): its first non-space ends the look, so
    ** the looks of all comments are linear together */
    const char *rest = skip_ws_run(end, ps->e);
    bool last = ps->nopens && (rest == ps->e || lp_fence_ends_value(ps, rest));
    bool swallowed = last && memchr(at, ps->opens[ps->nopens - 1].object ? '}' : ']', (size_t)(end - at));
    /* values after it in what it may have closed (with nothing after it, swallowed says all) */
    if (ps->nopens && !last && holds_closer(at, end)) mark_commented_closers(ps, at, end);
    /* each look only when the one before said no: all are questions, nothing else */
    bool invented = cut || swallowed || (ps->nopens && comment_elides(at, end, ps->e)) ||
                    comment_disowns(ps, at, end) || comment_before_offers(ps, at, end);
    note_as(ps, RK_COMMENT, invented ? COAX_CLASS_INVENTED : COAX_CLASS_LOSSLESS, at);
}

/* The Unicode blanks and characters shown as nothing among the spaces
** p..e, which the bytes parsed read as ASCII ones (repair_read_view), each
** noted as one read as a space is. */
static void note_blanks(lp *ps, const char *p, const char *e)
{
    for (const char *own = lp_orig(ps, p); p < e; p++, own++) {
        size_t n = *p == *own ? 0 : repair_viewed_space(own, lp_orig(ps, e));
        if (!n) continue;
        note(ps, n == 3 && !memcmp(own, "\xEF\xBB\xBF", 3) ? RK_BYTE_ORDER_MARK : RK_UNICODE_WHITESPACE, p);
        p += n - 1;
        own += n - 1;
    }
}

void lp_skip_space_slow(lp *ps)
{
    const char *p = ps->p, *e = ps->e;
    for (;;) {
        const char *run = p;
        p = skip_ws_run(p, e);
        if (ps->viewed) note_blanks(ps, run, p);
        if (p >= e) break;
        bool closed;
        const char *end = lp_comment_end(p, e, &closed);
        if (end != p) {
            note_comment(ps, p, end, closed);
            p = end;
            continue;
        }
        if ((unsigned char)*p >= 0x80) {
            bool bom;
            size_t n = unicode_space(p, e, &bom);
            if (n) {
                note(ps, bom ? RK_BYTE_ORDER_MARK : RK_UNICODE_WHITESPACE, p);
                p += n;
                continue;
            }
        }
        break;
    }
    ps->p = p;
}

/* Whether s..t holds nothing but whitespace. */
static bool only_space(const char *s, const char *t)
{
    for (; s < t; s++)
        if (!ws_tab[(unsigned char)*s]) return false;
    return true;
}

/* An ellipsis ("...", U+2026, or the two-dot leader U+2025 and the
** midline and vertical ellipses U+22EF, U+22EE) at p: its length, or 0. */
size_t lp_ellipsis_at(const char *p, const char *e)
{
    if (e - p >= 3 && p[0] == '.' && p[1] == '.' && p[2] == '.') {
        size_t n = 3;
        while (p + n < e && p[n] == '.') n++;
        return n;
    }
    if (e - p < 3 || (unsigned char)p[0] != 0xE2) return 0;
    unsigned char b1 = (unsigned char)p[1], b2 = (unsigned char)p[2];
    return (b1 == 0x80 && (b2 == 0xA6 || b2 == 0xA5)) || (b1 == 0x8B && (b2 == 0xAF || b2 == 0xAE)) ? 3 : 0;
}

/* Whether the text before p, spaces and one comma aside, ends with a string whose text ends with 'c' right before
** its closing quote: "Ada," "age": 36 is "Ada," and a comma lost, or "Ada", with the quote and comma exchanged;
** "First}", {"id": 2 is "First}" and its object's brace lost, or "First"} exchanged the same way. */
bool lp_string_ends_with(const lp *ps, const char *p, char c)
{
    while (p > ps->b && ws_tab[(unsigned char)p[-1]]) p--;
    if (c != ',' && p > ps->b && p[-1] == ',')
        for (p--; p > ps->b && ws_tab[(unsigned char)p[-1]];) p--;
    if (p - ps->b < 3 || p[-1] != '"' || p[-2] != c || p[-3] == '"') return false;
    /* after an odd run of backslashes c is escaped ("a\,"); after an even one ("a\\,") the string's last text */
    const char *s = p - 2;
    while (s > ps->b && s[-1] == '\\') s--;
    return (p - 2 - s) % 2 == 0;
}

/* Whether a comma missing before p, in the container top, has one
** reading. Not where two quotes meet ("a""b": a doubled quote may be an
** escape, as in CSV, not two strings) or a quote meets a digit, nor after a string that kept an
** unescaped quote (where it ended was itself a guess: "a "b" c" "d", which
** quote closes?), nor before an item in doubt, nor after a container
** closed right after a comma ({"u": {"n": "Eve",} "age": 3}: the comma was
** this member's, the closer typed early), nor after a string ending in a
** comma (lp_string_ends_with); and a member or an item starts at p. */
bool lp_missing_comma_clear(const lp *ps, const lopen *top, const char *p)
{
    if (lp_string_ends_with(ps, p, ',')) return false;
    const char *c = p;
    while (c > ps->b && ws_tab[(unsigned char)c[-1]]) c--;
    if (c > ps->b && (c[-1] == '}' || c[-1] == ']')) {
        for (c--; c > ps->b && ws_tab[(unsigned char)c[-1]];) c--;
        if (c > ps->b && c[-1] == ',') return false;
    }
    uint32_t q;
    /* a quote glued to a number's last digit may be the number's too: an inch mark, or a
    ** string's opening quote moved past it ([5"", "x"], "age": 36",notes": "x") */
    char prev = p > ps->b ? p[-1] : ' ';
    bool adjacent = (prev == '"' || prev == '\'' || (prev >= '0' && prev <= '9')) && quote_at(p, ps->e, &q);
    bool after_quoted = ps->quoted_end && ps->quoted_end <= p && only_space(ps->quoted_end, p);
    /* a string whose last character is a comma or a closer ("<your name>," "z": 1, "Eve}" "age": 3): the
    ** comma missing, or the closer before it, may be that byte, typed inside the closing quote */
    for (c = p; c > ps->b && ws_tab[(unsigned char)c[-1]];) c--;
    bool comma_inside = c - ps->b >= 3 && (c[-1] == '"' || c[-1] == '\'') && coax_byte_in(",}]", c[-2]) &&
                        c[-3] != '\\';
    for (const char *k = c - 3; comma_inside && c[-2] != ',' && k > ps->b && c - k < 256 && *k != c[-1]; k--)
        comma_inside = *k != (c[-2] == '}' ? '{' : '['); /* "(see [1]" "b": the string's own closer */
    return !adjacent && !after_quoted && !comma_inside && !parted_unseen(ps, p) && !lp_item_in_doubt(ps, top, p) &&
           !(*p == '[' && repair_citation_at(ps->b, p, ps->e, true)) && lp_member_starts(p, ps->e, top->object);
}

