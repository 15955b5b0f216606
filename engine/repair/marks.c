/*
** marks.c: prose's own marks in brackets, which a span of prose or the
** whole text's values may take for a list: words in brackets ([INFO],
** [sic]), a reference's numbers (See [1], section [3.2]), a footnote's
** line ([1] Source: ...) and a citation's mark after a value ({...} [1]).
** Each look is bounded by its line or a few bytes: every span asks.
*/
#include "repair/repair.h"

#include <string.h>

static inline bool around_value(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; }

static bool ident_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Whether t[from..to), inside brackets, holds nothing JSON writes a list
** with (quotes, commas, brackets, braces, NUL): words, as prose writes them. */
static bool unlisted_text(const char *t, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (coax_byte_in("\"'`,[]{}", t[i]) || !t[i]) return false;
    return true;
}

/* Whether t[from..to) holds numbers only: digits, points, commas and blanks (coax_blank_at: a
** tab or a no-break space too, "[2,⇥3]"), and one digit at least. */
static bool numbers_only(const char *t, size_t from, size_t to)
{
    bool digit = false;
    for (size_t k = from, n; k < to; k += n ? n : 1) {
        n = coax_blank_at(t + k, t + to);
        digit |= t[k] >= '0' && t[k] <= '9';
        if (!n && !(t[k] >= '0' && t[k] <= '9') && t[k] != '.' && t[k] != ',') return false;
    }
    return digit;
}

/* Whether the '[' at 'at' follows a word that names a place in a text
** (See [1], section [3.2], fig. [2]). Singular: "pages [3, 5]" may be the
** pages asked for. */
static bool place_word_before(const char *t, size_t at)
{
    static const char *const places[] = {"see", "cf", "section", "sec", "chapter", "ch", "figure", "fig",
                                         "table", "page", "p", "pp", "ref", "reference", "eq", "equation",
                                         "appendix", "footnote", "note", "paragraph", "para", "clause",
                                         "article", "art", "step", "line", "source", "citation", "item", "rule",
                                         "sources", "references", "citations"};
    size_t b = (size_t)(coax_blanks_start(t, t + at) - t);
    bool label = b > 0 && t[b - 1] == ':'; /* Sources: [1]; not Note: [1, 2], Item: [5], a label of values */
    if (b > 0 && (t[b - 1] == '.' || label)) b--; /* fig. [2] */
    size_t w = b;
    while (w > 0 && (unsigned)((t[w - 1] | 0x20) - 'a') < 26u) w--;
    if (w == b || b - w > 10 || (w > 0 && ident_byte(t[w - 1]))) return false;
    char word[11];
    for (size_t k = w; k < b; k++) word[k - w] = (char)(t[k] | 0x20);
    word[b - w] = '\0';
    for (size_t k = 0; k < sizeof places / sizeof *places; k++)
        if (!strcmp(places[k], word)) return !label || strstr("source sources ref reference references citation "
                                                              "citations", word);
    return false;
}

/* Whether a list's span has a citation's mark after it on its line ([1] [2], [3, 4] [1]): two
** lists, or a list and its mark? The mark's span is a guess as well (repair_citation_at). */
static bool cited_after(const char *t, size_t len, size_t start, size_t end)
{
    const char *after = coax_blanks_end(t + end, t + len);
    return t[start] == '[' && after > t + end && *after == '[' && repair_citation_at(t, after, t + len, true);
}

/* Whether words in brackets stand before 'at' on its line ("Options: [a]
** or [b]"), or a reference's numbers ("See [1] and then: [Paris]"): the
** span at 'at' is one of several, not the answer. Other numbers in
** brackets there are a list of their own, a rival, so they say nothing
** here. Looked at over 256 bytes before 'at', so many spans on one long
** line cost each a bounded look. */
static bool words_in_brackets_before(const char *t, size_t at)
{
    size_t stop = at > 256 ? at - 256 : 0, close = SIZE_MAX;
    for (size_t i = at; i > stop && t[i - 1] != '\n'; i--) {
        char c = t[i - 1];
        if (c == ']') close = i - 1;
        else if (c == '[' && close != SIZE_MAX) {
            bool letter = false, blank = true; /* blank: a task's open box, [ ] */
            for (size_t k = i; k < close; k++) {
                unsigned char b = (unsigned char)t[k];
                letter = letter || b >= 0x80 || (unsigned)((b | 0x20) - 'a') < 26u;
                blank = blank && coax_blank_at(t + k, t + close); /* [⇥] too */
            }
            if ((letter || blank) && unlisted_text(t, i, close)) return true;
            if (numbers_only(t, i, close) && place_word_before(t, i - 1)) return true;
            close = SIZE_MAX;
        }
    }
    return false;
}

/* Whether the value val, a span of prose or a reply's value before its
** trailing text, is words in brackets that words follow on their line,
** or that come after other words in brackets on it, prose's own
** punctuation: a log's level ([INFO] Server started), a task's
** box (- [x] Buy milk), an editor's note (He said [inaudible] then left);
** not a list (["Paris"] then text, [red, green], [1], and Tags: [python]
** at the line's end are lists). */
static bool bracketed_words(const char *t, size_t len, size_t start, size_t end, const coax_value *v)
{
    for (size_t k; end > start && ((k = coax_blank_before(t, t + end)) || around_value(t[end - 1]));)
        end -= k ? k : 1; /* a no-break space after it too */
    /* one unquoted item, or none between spaces: a task's open box, [ ] */
    if (t[start] != '[' || end - start < 3 || t[end - 1] != ']' || v->type != COAX_ARRAY || v->len > 1 ||
        (v->len == 1 && v->u.items[0].type != COAX_STRING))
        return false;
    if (!unlisted_text(t, start + 1, end - 1)) return false;
    if (words_in_brackets_before(t, start)) return true;
    end = (size_t)(coax_blanks_end(t + end, t + len) - t);
    return end < len && (ident_byte(t[end]) || (unsigned char)t[end] >= 0x80); /* words follow on its line */
}

/* Whether the value val, a span of prose, is numbers in brackets after a word that names a
** place in a text (See section [3.2] for details, as in figure [2], cf. [1, 4]): a reference,
** its section's or its sources' numbers, not the list asked for ("The answer is [1]" is one). */
static bool reference_marker(const char *t, size_t len, size_t start, size_t end, const coax_value *v)
{
    if (t[start] != '[' || v->type != COAX_ARRAY || !v->len) return false;
    for (size_t i = 0; i < v->len; i++)
        if (v->u.items[i].type != COAX_NUMBER) return false;
    /* numbers in brackets after it on its line ("See [1] and [2, 3]") are a rival: two lists,
    ** which the choice between them refuses already; words in brackets are not ("See [1] and
    ** then: [Paris] ok": prose's, bracketed_words, as it is, and it was left the answer) */
    for (size_t e = end, open = SIZE_MAX; e < len && t[e] != '\n'; e++) {
        if (t[e] == '[') open = e;
        else if (t[e] == ']' && open != SIZE_MAX) {
            if (numbers_only(t, open + 1, e)) return false;
            open = SIZE_MAX;
        }
    }
    return place_word_before(t, start);
}

bool repair_prose_mark(const char *t, size_t len, size_t start, size_t end, const coax_value *v)
{
    return bracketed_words(t, len, start, end, v) || reference_marker(t, len, start, end, v) ||
           repair_footnote_at(t, t + start, t + len) || repair_citation_at(t, t + start, t + len, true) ||
           cited_after(t, len, start, end);
}

size_t repair_field_marker_at(const char *p, const char *end)
{
    const char *k = p, *name;
    if (end - k < 12 || memcmp(k, "[[", 2)) return 0;
    for (k += 2; k < end && *k == ' ';) k++;
    if (end - k < 2 || memcmp(k, "##", 2)) return 0;
    for (name = k += 2; k < end && k - name < 64 && (ident_byte(*k) || *k == ' ' || *k == '-');) k++;
    if (end - k < 4 || memcmp(k, "##", 2) || k < name + 2 || k[-1] != ' ' || name[0] != ' ') return 0;
    for (k += 2; k < end && *k == ' ';) k++;
    return end - k >= 2 && !memcmp(k, "]]", 2) ? (size_t)(k + 2 - p) : 0;
}

/* Whether t[from..to) and the end of vs..ve hold the same bytes but for blanks, ending together. */
static bool ends_alike(const char *vs, const char *ve, const char *from, const char *to)
{
    while (from < to && ve > vs) {
        if (around_value(to[-1])) to--;
        else if (around_value(ve[-1])) ve--;
        else if (to[-1] != ve[-1]) return false;
        else to--, ve--;
    }
    while (from < to && around_value(to[-1])) to--;
    return from == to;
}

const char repair_string_tail_detail[] =
    "the end of a string and more after the value, its closing bracket last: the value went on, written again "
    "with other values? which is a guess";

bool repair_string_tail_after(const coax_value *v, const char *vs, const char *ve, const char *at, const char *end)
{
    char closer = v->type == COAX_OBJECT ? '}' : v->type == COAX_ARRAY ? ']' : 0;
    if (end - at > 2048) end = at + 2048;
    const char *q = at;
    while (q < end && around_value(*q)) q++;
    const char *words = q; /* the string's last words, if any, then its closing quote, on their line */
    while (q < end && *q != '"' && *q != '\n') q++;
    if (!closer || q == end || *q != '"') return false;
    const char *after = q + 1; /* a value's or a key's closing quote ('score": 3⏎}') */
    while (after < end && (*after == ' ' || *after == '\t' || *after == '\r')) after++;
    if (after < end && *after != ',' && *after != ':' && *after != closer && *after != '\n') return false;
    /* The container's own closer is the first that no bracket after the quote opened, wherever its line
    ** goes on: a closing remark, a citation's mark, a fence or an end-of-turn token may follow it. */
    int open = 0;
    const char *k = after;
    for (; k < end && open >= 0; k++) open += (*k == '{' || *k == '[') - (*k == '}' || *k == ']');
    return open == -1 && k[-1] == closer && !ends_alike(vs, ve, words, k);
}
