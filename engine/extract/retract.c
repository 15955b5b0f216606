/*
** retract.c: prose after an answer that takes it back. A reply that goes
** on, after its JSON, with "Actually, the age is 37." or "Oops, I meant
** Lyon." holds two readings of the answer, the value written and the one
** the words give, and no way to read the second: the value is no answer.
** Only what opens a sentence counts ("Let me know if I made a mistake"
** takes nothing back), besides a few phrases anywhere (a typo named, "I
** meant", "should have been").
*/
#include "extract/coerce.h"

#include <string.h>

/* How far after the answer the look goes: the remark that takes it back
** comes right after it; a long explanation's later sentences do not. */
#define RETRACT_LOOK 400

/* Whether text[at..e) starts with the words w (spaces as in w, any case),
** a letter not following them. */
static bool opens_with(const char *text, size_t at, size_t e, const char *w)
{
    size_t n = strlen(w);
    return e - at >= n && coax_ascii_casesame(text + at, w, n) && (e - at == n || !coax_ascii_alpha(text[at + n]));
}

/* Whether the sentence starting at text[at] takes back what came before
** it. "Actually" and "Wait" do as a remark set off ("Actually, ...",
** "Wait:") or before its subject or a value ("Actually the age is 37",
** "actually 37"), not as an
** adverb ("Actually useful for tests"). */
static bool retracting_sentence(const char *text, size_t at, size_t e)
{
    static const char *const openers[] = {"oops",   "whoops",  "correction",       "hold on",        "oh wait",
                                          "my mistake", "my bad", "erratum", "i made a mistake", "i made an error"};
    static const char *const subjects[] = {"it", "the", "that", "this", "i", "she", "he", "they", "we"};
    for (size_t i = 0; i < sizeof openers / sizeof *openers; i++)
        if (opens_with(text, at, e, openers[i])) return true;
    size_t n = opens_with(text, at, e, "actually") ? 8 : opens_with(text, at, e, "wait") ? 4 : 0;
    if (!n || at + n >= e) return false;
    char next = text[at + n];
    if (strchr(",:;!.", next) || (unsigned char)next == 0xE2) return true; /* a comma, or a dash (U+2014) */
    if (next != ' ') return false;
    if (at + n + 1 < e && (strchr("0123456789\"'", text[at + n + 1]))) return true; /* "actually 37" */
    for (size_t i = 0; i < sizeof subjects / sizeof *subjects; i++)
        if (opens_with(text, at + n + 1, e, subjects[i])) return true;
    return false;
}

/* Whether a phrase that takes a value back anywhere starts at text[at]: a
** typo named, "I meant", "should actually be", "should have been",
** "scratch that", "on second thought". */
static bool retracting_phrase(const char *text, size_t at, size_t e)
{
    static const char *const phrases[] = {"typo",         "typos",           "i meant", "should actually",
                                          "should have been", "scratch that", "on second thought"};
    for (size_t i = 0; i < sizeof phrases / sizeof *phrases; i++)
        if (opens_with(text, at, e, phrases[i])) return true;
    return false;
}

size_t extract_taken_back(const char *text, size_t from, size_t to)
{
    size_t e = to - from > RETRACT_LOOK ? from + RETRACT_LOOK : to;
    bool start = true; /* a sentence may start here */
    for (size_t p = from; p < e; p++) {
        unsigned char ch = (unsigned char)text[p];
        if (coax_ascii_alpha(ch)) {
            if (start && retracting_sentence(text, p, e)) return p;
            if ((p == from || !coax_ascii_alpha((unsigned char)text[p - 1])) && retracting_phrase(text, p, e))
                return p;
            start = false;
            continue;
        }
        /* a line, a sentence's end then a space, markdown's marks and a
        ** fence's backticks start one; other signs and spaces keep it */
        if (ch == '\n' || ((ch == '.' || ch == '!' || ch == '?' || ch == ';') && p + 1 < e && text[p + 1] == ' '))
            start = true;
        else if (!strchr(" \t\r*_>#-`(", ch))
            start = false;
    }
    return SIZE_MAX;
}
