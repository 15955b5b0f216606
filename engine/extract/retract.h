/*
** extract/retract.h: the matchers retract.c (prose taking an answer back
** in English) and retract_lang.c (the same in the other languages) share:
** words matched at a place, blanks, values written in prose; and what
** retract_lang.c gives retract.c.
*/
#ifndef COAX_EXTRACT_RETRACT_H
#define COAX_EXTRACT_RETRACT_H

#include "extract/coerce.h"

#include <string.h>

/* The blank at text[p] (coax_blank_at: a space, a tab, U+00A0, U+3000 and the other Unicode
** spaces), its byte length; past the run of them at p; the start of the run ending at p (from
** 'from'). A run of blanks parts prose's words as one space does: "Actually⇥the", "Not  sure". */
static inline size_t blank_at(const char *text, size_t p, size_t e) { return coax_blank_at(text + p, text + e); }
static inline size_t blanks_end(const char *text, size_t p, size_t e)
{
    return (size_t)(coax_blanks_end(text + p, text + e) - text);
}
static inline size_t blanks_start(const char *text, size_t from, size_t p)
{
    return (size_t)(coax_blanks_start(text + from, text + p) - text);
}

/* Whether text[p] starts a letter of a word the words before it go on: ASCII, or two bytes
** past it (accented Latin, Greek, Cyrillic: "señor" is no "se", "Несколько" no "Не"); none
** after a Chinese or Japanese character 'w' ends on, as those scripts have no spaces. */
static inline bool goes_on(const char *text, size_t p, size_t e, const char *w, size_t wn)
{
    if (p >= e || (wn && !coax_ascii_alpha((unsigned char)w[wn - 1]) && (unsigned char)w[wn - 1] < 0x80))
        return false; /* "l'", "hmm,": what ends them ends a word */
    unsigned char ch = (unsigned char)text[p];
    size_t last = wn;
    while (last > 0 && ((unsigned char)w[last - 1] & 0xC0) == 0x80) last--;
    if (last > 0 && last < wn && (unsigned char)w[last - 1] >= 0xE0) return false;
    return coax_ascii_alpha(ch) || (ch >= 0xC3 && ch <= 0xDF);
}

/* How many bytes of text[at..e) the words w take (each space of w a run of blanks, any case,
** an apostrophe straight or curly: "I’m"), a letter not following them (goes_on; a stem ending
** in '*' takes any: "неправильн*"): 0 when they do not open it. */
static inline size_t matched(const char *text, size_t at, size_t e, const char *w)
{
    size_t p = at;
    const char *w0 = w;
    for (; *w; w++) {
        if (*w == '*' && !w[1]) return p - at;
        if (*w == ' ') {
            if (!blank_at(text, p, e)) return 0;
            p = blanks_end(text, p, e);
            continue;
        }
        if (*w == '\'' && e - p >= 3 && !memcmp(text + p, "\xE2\x80\x99", 3)) {
            p += 3;
            continue;
        }
        if (p >= e) return 0;
        char t = text[p++];
        if (coax_ascii_alpha((unsigned char)*w) ? !coax_ascii_alpha((unsigned char)t) || (t | 32) != (*w | 32) : t != *w)
            return 0;
    }
    return goes_on(text, p, e, w0, (size_t)(w - w0)) ? 0 : p - at;
}

/* Whether text[at..e) starts with the words w (matched). */
static inline bool opens_with(const char *text, size_t at, size_t e, const char *w)
{
    return matched(text, at, e, w) != 0;
}

/* Whether one of the three-byte characters 'marks' (full-width punctuation
** written as it is, "。，！") stands at text[p..e). */
static inline bool mark_at(const char *text, size_t p, size_t e, const char *marks)
{
    if (p > e || e - p < 3) return false;
    for (; *marks; marks += 3)
        if (!memcmp(text + p, marks, 3)) return true;
    return false;
}

/* The length of the first of words[0..n) that opens text[at..e) (matched), 0 when none
** does. Each word's first byte is compared first, case folded the ASCII way (a byte past
** ASCII may pass, matched tells): the tables are long and most words of the prose they are
** tried on open with none of them. */
static inline size_t matched_any(const char *text, size_t at, size_t e, const char *const *words, size_t n)
{
    if (at >= e) return 0;
    unsigned char first = (unsigned char)text[at] | 32;
    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)words[i][0] | 32) != first) continue;
        size_t m = matched(text, at, e, words[i]);
        if (m) return m;
    }
    return 0;
}

#define MATCHED_ANY(text, at, e, words) matched_any(text, at, e, words, sizeof words / sizeof *words)

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The end of a value written at text[at], a number or a quoted text on one
** line: at when none is. */
static inline size_t value_end(const char *text, size_t at, size_t e)
{
    size_t p = at;
    if (p < e && (text[p] == '"' || text[p] == '\'')) {
        char q = text[p++];
        while (p < e && text[p] != q && text[p] != '\n') p++;
        return p < e && text[p] == q ? p + 1 : at;
    }
    if (p < e && text[p] == '-') p++;
    size_t digits = p;
    while (p < e && (is_digit(text[p]) || ((text[p] == '.' || text[p] == ',') && p + 1 < e && is_digit(text[p + 1]))))
        p++;
    return p == digits ? at : p;
}

/* Whether a value alone starts at text[at], ending its clause ("37.",
** "37,", "37)", "\"Lyon\"", "37 instead.", "36 or 37."); "0 when unknown"
** goes on to say when, a remark on the format. */
static inline bool value_alone(const char *text, size_t at, size_t e)
{
    static const char *const after[] = {" instead", " too", " as well"};
    size_t p = value_end(text, at, e);
    if (p == at) return false;
    for (size_t i = 0; i < sizeof after / sizeof *after; i++) p += matched(text, p, e, after[i]);
    size_t o = matched(text, p, e, " or ");
    if (o && value_end(text, p + o, e) != p + o) return value_alone(text, p + o, e);
    /* a full-width full stop, comma or exclamation mark ends one too ("37。") */
    return p == e || coax_byte_in(".,;:!)\r\n", text[p]) ||
           mark_at(text, p, e, "。，！");
}

/* Whether one of the phrases opens text[at..e) and a value follows it after a
** space: one that ends its clause ('alone', value_alone), or any number or quoted text. */
static inline bool phrase_then_value(const char *text, size_t at, size_t e, const char *const *phrases, size_t count,
                              bool alone)
{
    unsigned char first = at < e ? (unsigned char)text[at] | 32 : 0;
    for (size_t i = 0; i < count; i++) {
        if (((unsigned char)phrases[i][0] | 32) != first) continue; /* most words open with none (matched_any) */
        size_t n = matched(text, at, e, phrases[i]);
        if (n && at + n < e && text[at + n] == ',') n++; /* "Possibly, 37." */
        size_t v = n ? blanks_end(text, at + n, e) : at;
        if (v == at + n || v >= e) continue;
        char next = text[v];
        if (alone ? value_alone(text, v, e) : coax_byte_in("0123456789\"'", next)) return true;
    }
    return false;
}

/* Whether a word may start at text[p]: no letter, ASCII or past it, ends
** right before; a character past ASCII (Chinese, Japanese) starts one
** wherever it stands, as those scripts have no spaces. */
static inline bool word_start(const char *text, size_t from, size_t p)
{
    unsigned char ch = (unsigned char)text[p], prev = p > from ? (unsigned char)text[p - 1] : ' ';
    if ((ch & 0xC0) == 0x80) return false; /* inside a character */
    if (ch >= 0xE3 && ch <= 0xE9) return true; /* CJK and kana: 3-byte characters from U+3000 */
    return (!coax_ascii_alpha(prev) && prev < 0x80) || blanks_start(text, from, p) < p;
}

/* Whether a sentence of Chinese or Japanese ends right before text[p]
** (its full stop, exclamation or question mark; spaces after it). */
static inline bool cjk_sentence_end(const char *text, size_t from, size_t p)
{
    p = blanks_start(text, from, p);
    return p - from >= 3 && mark_at(text, p - 3, p, "。！？");
}

/* Whether the sentence from text[p] on asks ("Is the age 37?", "..., right?"): a question
** mark, ASCII or full-width, before its end (a line's, "!", or "." then a space). */
static inline bool sentence_asks(const char *text, size_t p, size_t e)
{
    for (size_t q = p; q < e && q - p < 120; q++) {
        if (text[q] == '?' || (e - q >= 3 && !memcmp(text + q, "\xEF\xBC\x9F", 3))) return true;
        if (coax_byte_in("!\n", text[q]) || (text[q] == '.' && (q + 1 >= e || coax_byte_in(" \r\n", text[q + 1])))) break;
    }
    return false;
}

/* Where the word calling something wrong stands when a verb "to be" opens text[at..e) and
** its subject, one to four words, stands between them ("Not only is the age wrong",
** "Leider ist das Alter falsch", as "the age is wrong" says it in order): the word ends
** its clause or a conjunction follows ("is the wrong age" names one); SIZE_MAX when it
** is not so, or the sentence asks ("Is the age wrong?"). */
static inline size_t inverted_called_wrong(const char *text, size_t at, size_t e, const char *const *copulas,
                                           size_t ncopulas, const char *const *wrongs, size_t nwrongs)
{
    static const char *const going_on[] = {"but", "and", "too", "either", "as", "also", "because", "since", "so",
                                           "sondern", "und", "aber", "auch", "weil", "denn", "da", "oder"};
    size_t p = matched_any(text, at, e, copulas, ncopulas);
    if (!p || !blank_at(text, at + p, e)) return SIZE_MAX;
    p = blanks_end(text, at + p, e);
    for (int words = 0; words < 5 && p < e; words++) {
        size_t w = matched_any(text, p, e, wrongs, nwrongs);
        if (w && words > 0) {
            size_t after = p + w, next = blanks_end(text, after, e);
            bool ends = after == e || coax_byte_in(",.;:!?)\r\n", text[after]) || mark_at(text, after, e, "，。！？") ||
                        next == e || (next > after && matched_any(text, next, e, going_on,
                                                                  sizeof going_on / sizeof *going_on));
            return ends && !sentence_asks(text, after, e) ? p : SIZE_MAX;
        }
        size_t q = p; /* a word of the subject: letters, accented ones, markdown's marks, an apostrophe */
        while (q < e && (coax_ascii_alpha((unsigned char)text[q]) || (unsigned char)text[q] >= 0x80 ||
                         coax_byte_in("'*_`-", text[q])) && !blank_at(text, q, e))
            q++;
        if (q == p || !blank_at(text, q, e)) return SIZE_MAX;
        p = blanks_end(text, q, e);
    }
    return SIZE_MAX;
}

/* ---- the other languages (retract_lang.c), each as retract.c reads English ---- */

/* Whether the words at text[at] take the answer back in another language
** ('start': a sentence opens there; 'from': where the look began). */
bool extract_retracting_elsewhere(const char *text, size_t from, size_t at, size_t e, bool start);

/* Whether words at text[p..e), right after the answer on its line, make it hold only on a
** condition or as a guess in another language ("{...} si ...", "{...}，可能不对"). */
bool extract_conditional_elsewhere(const char *text, size_t p, size_t e);

/* Where, in the sentence text[b..start) before a value, words of another language doubt it
** ("Probablemente {...}", "Creo que es {...}"): SIZE_MAX when none do. */
size_t extract_doubted_elsewhere(const char *text, size_t b, size_t start);

/* Where, in the clause text[from..to) before a value, words of another language name it an
** example or a supposition ("Por ejemplo, {...}", "假设{...}"): SIZE_MAX when none do. */
size_t extract_example_elsewhere(const char *text, size_t from, size_t to);

/* Whether a remark s[0..n) calls a value wrong or corrected in another language, a word not
** denied ("incorrecto", "错误"; not "没有错误"). */
bool extract_wrong_elsewhere(const char *s, size_t n);

#endif
