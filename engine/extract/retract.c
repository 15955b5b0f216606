/*
** retract.c: prose after an answer that takes it back. A reply that goes
** on, after its JSON, with "Actually, the age is 37." or "Oops, I meant
** Lyon." holds two readings of the answer, the value written and the one
** the words give, and no way to read the second: the value is no answer.
** Only what opens a sentence counts ("Let me know if I made a mistake"
** takes nothing back), besides a few phrases anywhere (a typo named, "I
** meant", "should have been"). Doubt does the same, after the value ("I'm
** not sure about the age") or before it ("Probably {...}", "I think
** it's {...}", "Not sure:" on the line above): the value is a guess the
** reply does not stand by. And words before a value can mark it as no
** answer at all ("For example, {...}"). The same in other languages:
** retract_lang.c; the matchers both use: extract/retract.h.
*/
#include "extract/retract.h"

/* How far after the answer the look goes: the remark that takes it back
** comes right after it; a long explanation's later sentences do not. */
#define RETRACT_LOOK 400


/* Whether words at text[at] doubt what the reply can tell: "hard to say",
** "can't tell", "if I'm reading this right", "if I'm not mistaken". */
static bool doubt_phrase(const char *text, size_t at, size_t e)
{
    static const char *const phrases[] = {"hard to say", "hard to tell", "difficult to say", "difficult to tell",
                                          "can't tell", "cannot tell", "can't be sure", "cannot be sure",
                                          "no way to know", "if i'm reading", "if i am reading", "if i read",
                                          "if i understand", "if i understood", "if i'm not mistaken",
                                          "if i am not mistaken", "unless i'm mistaken", "unless i am mistaken",
                                          "unless i'm wrong", "unless i am wrong", "low confidence",
                                          "confidence: low", "confidence low"};
    if (MATCHED_ANY(text, at, e, phrases)) return true;
    return false;
}


/* Whether a value ends right before text[at], a space between ("37 is
** also possible"). */
static bool value_before(const char *text, size_t from, size_t at)
{
    size_t b = blanks_start(text, from, at);
    return b < at && b > from && (is_digit(text[b - 1]) || text[b - 1] == '"');
}

/* What words that take a value back do to it: doubt it (nothing the answer's value can
** settle), correct it to the value after them, or call wrong the value before them; a
** correction to the answer's value, a value called wrong none of the answer's, settles on
** the answer (extract_settles_on_answer): "..., but the age is actually 36." */
typedef enum { DOUBTS, CORRECTS, CALLS_WRONG } retraction;

/* Whether the sentence starting at text[at] takes back what came before it. "Actually" and
** "Wait" do as a remark set off ("Actually, ...", "Wait:") or before its subject or a value
** ("Actually the age is 37", "actually 37"), not as an adverb ("Actually useful for tests").
** *corrects: it corrects ("Oops", "Actually"), not doubts or offers ("Not sure", "Or 37"). */
static bool retracting_sentence(const char *text, size_t at, size_t e, bool end, bool *corrects)
{
    static const char *const openers[] = {"oops",             "whoops",           "oh wait",          "my mistake",
                                          "my bad",           "i made a mistake", "i made an error",  "ignore the above",
                                          "ignore my",        "disregard the above", "disregard that", "disregard my",
                                          "please disregard", "that's wrong",     "that is wrong",    "that was wrong",
                                          "the above is wrong", "the above is incorrect", "i was wrong",
                                          "i was mistaken", "let me correct", "let me fix", "let me revise",
                                          "let me redo", "let me try again", "on reflection", "on second thoughts",
                                          "sorry, i made", "sorry, the above"};
    /* words that take back only as a remark set off ("Correction:", "Hold
    ** on,"), not as a noun or verb ("Correction factor: 1.2") */
    static const char *const remarks[] = {"actually", "wait",     "correction", "erratum",  "hold on", "edit",
                                          "update",   "updated",  "revised",    "revision", "amendment", "addendum"};
    static const char *const subjects[] = {"it", "the", "that", "this", "i", "she", "he", "they", "we", "no", "not"};
    if ((*corrects = MATCHED_ANY(text, at, e, openers))) return true;
    /* doubt that opens the sentence after the answer: "Not sure about the
    ** age.", "(not certain)" */
    static const char *const doubts[] = {"not sure", "not certain", "not 100%", "not entirely sure", "unsure",
                                         "uncertain", "not confident", "unverified"};
    if (MATCHED_ANY(text, at, e, doubts)) return true;
    /* another value offered: "Or 37, depending on the date.", "(or 37)",
    ** "Possibly 37.", "Either 36 or 37." */
    static const char *const offering[] = {"or", "either", "possibly", "perhaps", "maybe", "probably"};
    if (phrase_then_value(text, at, e, offering, sizeof offering / sizeof *offering, true)) return true;
    size_t n = MATCHED_ANY(text, at, e, remarks);
    if (!(*corrects = n)) return false;
    size_t rest = at + n; /* spaces and line breaks after it end nothing: "{...}\n\nWait\n" is cut as well */
    while (rest < e && coax_byte_in(" \t\r\n", text[rest])) rest++;
    if (rest >= e) return end; /* the reply cut right after it: "{...}\n\nActually" */
    char next = text[at + n];
    /* a comma, a dash (U+2014), **Correction**, a line of its own ("Wait⏎⏎Let me know ...") */
    if (coax_byte_in(",:;!.*\r\n", next) || (unsigned char)next == 0xE2) return true;
    size_t line_end = blanks_end(text, at + n, e); /* a line of its own with blanks after it, "Wait  ⏎" */
    if (line_end < e && (text[line_end] == '\n' || text[line_end] == '\r')) return true;
    /* "Actually" and "Wait" also before a subject or a value ("actually 37") */
    size_t v = blanks_end(text, at + n, e);
    if (v == at + n || !(opens_with(text, at, e, "actually") || opens_with(text, at, e, "wait"))) return false;
    if (v < e && coax_byte_in("0123456789\"'", text[v])) return true;
    for (size_t i = 0; i < sizeof subjects / sizeof *subjects; i++)
        if (opens_with(text, v, e, subjects[i])) return true;
    return false;
}

/* Whether text[p..e) opens with a dash, en or em (U+2013, U+2014). */
static bool dash(const char *text, size_t p, size_t e)
{
    return e - p >= 3 && !memcmp(text + p, "\xE2\x80", 2) && (text[p + 2] == '\x93' || text[p + 2] == '\x94');
}

/* Whether the sentence before text[at], from 'from' on, asks or supposes
** rather than says ("If anything is wrong", "Tell me whether it is wrong"). */
static bool hedged_before(const char *text, size_t from, size_t at)
{
    static const coax_word words[] = {COAX_WORD("if"),       COAX_WORD("whether"),   COAX_WORD("when"),
                                      COAX_WORD("unless"),   COAX_WORD("anything"),  COAX_WORD("something"),
                                      COAX_WORD("whatever")};
    size_t b = at;
    while (b > from && !coax_byte_in(".!?\n", text[b - 1])) b--;
    for (size_t p = b; p < at;) {
        size_t q = p;
        while (q < at && coax_ascii_alpha((unsigned char)text[q])) q++;
        if (q > p && coax_word_in(text + p, q - p, words, sizeof words / sizeof *words)) return true;
        p = q + 1;
    }
    return false;
}

/* Whether the clause before text[at], from 'from' on, denies what
** follows ("Nothing here is made up", "None of it was guessed"; not "The
** text gives no age, so I had to guess"). */
static bool denied_before(const char *text, size_t from, size_t at)
{
    static const coax_word words[] = {COAX_WORD("no"), COAX_WORD("not"), COAX_WORD("nothing"), COAX_WORD("none"),
                                      COAX_WORD("never"), COAX_WORD("nor"), COAX_WORD("neither"),
                                      COAX_WORD("nowhere")};
    size_t b = at;
    while (b > from && !coax_byte_in(".!?,;:\n", text[b - 1])) b--;
    for (size_t p = b; p < at;) {
        size_t q = p;
        while (q < at && (coax_ascii_alpha((unsigned char)text[q]) || text[q] == '\'')) q++;
        if (q > p && (coax_word_in(text + p, q - p, words, sizeof words / sizeof *words) ||
                      (q - p > 3 && !memcmp(text + q - 3, "n't", 3))) &&
            !opens_with(text, q, at, " only") && !opens_with(text, q, at, " just")) /* "Not only is it wrong" */
            return true;
        p = q + 1;
    }
    return false;
}

/* Whether a phrase that takes a value back anywhere starts at text[at]: a typo named, "I
** meant", "should actually be", "should have been", "scratch that", "on second thought", "{...}
** is not the answer", a guess named, doubt ("I'm not sure", "could not be verified"), a value
** named another ("should be 37"), a value called wrong ("36 is wrong") in a sentence that does
** not ask; 'end': the look reaches the reply's end. *kind: what the words do to a value. */
static bool retracting_phrase(const char *text, size_t from, size_t at, size_t e, bool end, retraction *kind)
{
    /* a value called wrong, the one before them ("the input's \"37\" is a typo") */
    static const char *const calling[] = {"typo", "typos", "would be wrong"};
    /* a correction, to the value after them ("should have been 37") */
    static const char *const correcting[] = {"should actually", "should have been", "scratch that", "on second thought"};
    static const char *const phrases[] = {"is not the answer",
                                          /* a guess named as one: which value is right, the reply does not know */
                                          "just a guess", "only a guess", "a rough guess", "best guess",
                                          "am guessing", "i'm guessing", "i guess",
                                          /* doubt in the first person: the reply does not know its value */
                                          "i'm not sure", "i am not sure", "i'm not certain", "i am not certain",
                                          "i'm not 100%", "not 100% sure", "i'm not entirely", "i am not entirely",
                                          "i'm unsure", "i am unsure", "i'm not confident", "i am not confident",
                                          "i might be wrong", "i could be wrong", "i may be wrong", "i might be mistaken",
                                          "i could be mistaken", "i may be mistaken", "don't quote me",
                                          "can't verify", "cannot verify", "couldn't verify", "could not verify",
                                          "can't confirm", "cannot confirm", "couldn't confirm", "could not confirm",
                                          "might be wrong", "may be wrong", "could be wrong", "might be off",
                                          "may be off", "could be off", "might be incorrect", "may be incorrect",
                                          "might not be accurate", "may not be accurate", "might not be correct",
                                          "may not be correct", "not verified",
                                          "double-check", "double check", "could not be verified",
                                          "couldn't be verified", "cannot be verified", "can't be verified",
                                          "could not be confirmed", "couldn't be confirmed", "cannot be confirmed",
                                          "can't be confirmed", "unconfirmed", "not been verified",
                                          "hopefully this is correct", "hopefully this is right",
                                          "hopefully that's correct", "hopefully that's right", "hopefully it's correct",
                                          "hopefully it's right", "hopefully correct", "hope this is correct",
                                          "hope this is right", "hope i got it right", "hope i got that right",
                                          "i got it wrong", "i got that wrong", "i had it wrong", "i misread",
                                          "i miscalculated", "i misspoke", "if i recall correctly", "if memory serves"};
    /* a value named another ("the age should be 37", "is actually \"Lyon\"") */
    static const char *const valued[] = {"should be", "is actually", "was actually", "are actually"};
    /* or another value offered beside it, as a possibility ("The age could
    ** also be 37.", "it may be \"Lyon\""): which one holds, the reply
    ** does not know */
    static const char *const offered[] = {"could also be", "might also be", "may also be", "can also be",
                                          "could be",      "might be",      "may be",      "or possibly",
                                          "or maybe",      "or perhaps",    "or rather",   "or even"};
    if (MATCHED_ANY(text, at, e, calling)) return *kind = CALLS_WRONG, true;
    if (MATCHED_ANY(text, at, e, correcting)) return *kind = CORRECTS, true;
    size_t n = MATCHED_ANY(text, at, e, phrases);
    /* the reply's own check ("Let me double-check: ...", "Double-check: ..."), not the user's */
    if (n && (opens_with(text, at, e, "double") && ((at + n < e && text[at + n] == ':') || (at >= from + 7 &&
                                                    coax_ascii_casesame(text + at - 7, "let me ", 7)))))
        *kind = CORRECTS;
    if (n) return true;
    if (phrase_then_value(text, at, e, valued, sizeof valued / sizeof *valued, false)) return *kind = CORRECTS, true;
    if (
        phrase_then_value(text, at, e, offered, sizeof offered / sizeof *offered, true))
        return true;
    /* "37 is also possible", "\"Lyon\" would also fit" */
    static const char *const also[] = {"is also possible", "is possible too", "is also likely", "is equally likely",
                                       "would also fit", "also fits", "would also work", "also works"};
    for (size_t i = 0; value_before(text, from, at) && i < sizeof also / sizeof *also; i++)
        if (opens_with(text, at, e, also[i])) return true;
    /* values said not to be read but made up, assumed, doubted or given as
    ** an example ("The age is a guess.", "I made up the age", "The age is
    ** uncertain.", "This is sample data."): a stand-in for no answer, as "//
    ** dummy" is; an estimate is an answer, and "made up of" a make-up */
    static const char *const made_up[] = {
        "a guess",          "guesses",         "guessed",          "i had to guess",  "educated guess",
        "wild guess",       "made up",         "made-up",          "i invented",      "is invented",
        "is a placeholder", "are placeholders", "as a placeholder", "placeholder value", "placeholder values",
        "is fictional",     "are fictional",   "is fictitious",    "are fictitious",  "dummy value",
        "dummy values",     "fake value",      "fake values",      "is fake",         "are fake",
        "fabricated",       "my assumption",   "an assumption",    "i assumed",       "is assumed",
        "was assumed",      "are assumed",     "were assumed",     "is uncertain",    "are uncertain",
        "is unclear",       "are unclear",     "is not certain",   "is unverified",   "are unverified",
        "is speculative",   "are speculative", "is tentative",     "are tentative",   "is hypothetical",
        "are hypothetical", "grain of salt",   "is an example",    "is just an example", "are examples",
        "example only",     "for illustration", "illustrative",    "sample data",     "sample values",
        "example data",     "example values",  "dummy data",       "mock data",       "test data",
        "fake data"};
    n = MATCHED_ANY(text, at, e, made_up);
    if (n && !opens_with(text, at + n, e, " of") && !hedged_before(text, from, at) && !denied_before(text, from, at))
        return true;
    /* "Note that 36 is wrong"; not "If anything is wrong, ask" */
    static const char *const wrong[] = {"is wrong",         "is incorrect",      "was wrong",        "was incorrect",
                                        "is not right",     "isn't right",       "is not correct",   "isn't correct",
                                        "that's not right", "that's incorrect",  "that's not correct", "this is wrong"};
    if (MATCHED_ANY(text, at, e, wrong) && !hedged_before(text, from, at)) return *kind = CALLS_WRONG, true;
    /* the same with the subject between ("Not only is the age wrong, ..."); not "Nor is the age wrong" */
    static const char *const copulas[] = {"is", "are", "was", "were"};
    static const char *const called[] = {"wrong", "incorrect", "inaccurate", "invalid", "erroneous", "a typo"};
    size_t w = inverted_called_wrong(text, at, e, copulas, sizeof copulas / sizeof *copulas, called,
                                     sizeof called / sizeof *called);
    if (w != SIZE_MAX && !hedged_before(text, from, w) && !denied_before(text, from, w))
        return *kind = CALLS_WRONG, true;
    /* "I meant" and what was meant ("I meant Lyon", or the reply cut after it), not "what I meant." */
    size_t m = matched(text, at, e, "i meant"), rest = at + m;
    while (m && rest < e && coax_byte_in(" \t\r\n", text[rest])) rest++;
    if (m && end && rest == e) return true; /* spaces after it end nothing */
    size_t v = m == 7 ? blanks_end(text, at + 7, e) : at;
    *kind = CORRECTS;
    return v > at + 7 && v < e && (coax_ascii_alnum((unsigned char)text[v]) || text[v] == '"' || text[v] == '\'');
}

/* Whether the words right after the answer, on its line, make it hold only on a condition:
** "{...} if she was born in 1990", "{...}, assuming ...", "(unless ...)". A new line or
** sentence ("{...}\n\nIf you need more, ask") is another matter. */
static bool conditional_after(const char *text, size_t from, size_t e)
{
    static const char *const words[] = {"if",       "unless",  "assuming", "provided", "supposing", "presuming",
                                        /* or as a guess: "{...} probably", "{...}, I think" */
                                        "probably", "maybe",   "perhaps",  "possibly", "i think",   "i believe",
                                        "i suspect", "i reckon", "i'd guess", "i'd say", "i would say", "i would guess"};
    size_t p = blanks_end(text, from, e);
    if (p < e && text[p] == '?') return true; /* "{...}?": a question, not an answer */
    for (size_t k; p < e && ((k = blank_at(text, p, e)) || coax_byte_in(",(*_-", text[p]) || dash(text, p, e) ||
                             mark_at(text, p, e, "，、（"));)
        p += k ? k : (unsigned char)text[p] >= 0x80 ? 3 : 1; /* "{...}，可能不对" as "{...}, probably" */
    return MATCHED_ANY(text, p, e, words) || extract_conditional_elsewhere(text, p, e); /* or in another language */
}

/* Whether words at text[at] that take a value back of the kind given settle on the answer. */
static bool settles(const char *text, size_t from, size_t at, size_t e, retraction kind, const coax_value *answer)
{
    return answer && kind != DOUBTS && extract_settles_on_answer(text, from, at, e, kind == CORRECTS, answer);
}

size_t extract_taken_back(const char *text, size_t from, size_t to, const coax_value *answer)
{
    size_t e = to - from > RETRACT_LOOK ? from + RETRACT_LOOK : to;
    if (conditional_after(text, from, e)) return from;
    size_t remark = extract_labelling_remark(text, from, e); /* "{...} (example)", "{...} // wrong" */
    if (remark != SIZE_MAX) return remark;
    static const char *const interjections[] = {"hmm,", "hm,", "oh,", "ah,", "um,", "uh,", "well,", "no,",
                                                "ok,", "okay,", "so,", "sorry,"};
    bool start = true, end = e == to; /* a sentence may start here; the look reaches the reply's end */
    for (size_t p = from; p < e; p++) {
        unsigned char ch = (unsigned char)text[p];
        if ((coax_ascii_alpha(ch) || ch >= 0xC0) && word_start(text, from, p) &&
            extract_retracting_elsewhere(text, from, p, e, start || cjk_sentence_end(text, from, p)))
            return p;
        if (coax_ascii_alpha(ch)) {
            bool corrects = false;
            retraction kind = DOUBTS;
            if (start && retracting_sentence(text, p, e, end, &corrects) &&
                !settles(text, from, p, e, corrects ? CORRECTS : DOUBTS, answer))
                return p;
            if ((p == from || !coax_ascii_alpha((unsigned char)text[p - 1])) &&
                ((retracting_phrase(text, from, p, e, end, &kind) && !settles(text, from, p, e, kind, answer)) ||
                 doubt_phrase(text, p, e)))
                return p;
            size_t n = start ? MATCHED_ANY(text, p, e, interjections) : 0; /* "Hmm, actually ...", "No, wait" */
            if (n) p += n - 1;
            else start = false;
            continue;
        }
        /* a line, a sentence's end then a space, markdown's marks and a
        ** fence's backticks start one; other signs, spaces and a comment's
        ** opening ("{...} // actually 37" then prose, which the whole
        ** reply's reading logs and a span of prose does not) keep it */
        size_t k = blank_at(text, p, e);
        if (ch == '\n' ||
            (coax_byte_in(".!?;:", ch) && p + 1 < e && (coax_byte_in(" *_", text[p + 1]) || blank_at(text, p + 1, e))))
            start = true; /* "**Note:** Actually" */
        else if (dash(text, p, e)) /* "{...} — not sure about the age" */
            p += 2;
        else if (k)
            p += k - 1;
        else if (!coax_byte_in("\r*_>#-`(/", ch))
            start = false;
    }
    return SIZE_MAX;
}

#define WORD_OF(text, at, n, words) coax_word_in((text) + (at), n, words, sizeof words / sizeof *words)

/* Whether the word text[at..at+n), after the word text[pw..pw+pn) (pn 0:
** none), marks the JSON after it in its clause as no answer: a
** supposition ("Suppose ...", "Imagine", "Hypothetically"), a value to
** avoid or replace ("Avoid", "Instead of", "Rather than"), or an example
** named as one ("For example", "an example of the format", "as an
** illustration"; "the example you gave" is another thing), a guess, an
** assumption or a draft ("If I had to guess", "Assuming ...", "Draft:"). */
static bool marking_word(const char *text, size_t at, size_t n, size_t pw, size_t pn)
{
    static const coax_word anywhere[] = {COAX_WORD("imagine"), COAX_WORD("suppose"), COAX_WORD("supposing"),
                                         COAX_WORD("hypothetically"), COAX_WORD("hypothetical"), COAX_WORD("avoid"),
                                         COAX_WORD("assuming"), COAX_WORD("assume"), COAX_WORD("presuming"),
                                         COAX_WORD("guessing"), COAX_WORD("guessed"), COAX_WORD("draft"),
                                         /* values named as not read ("Made-up values:", "Assumed values:") */
                                         COAX_WORD("assumed"), COAX_WORD("illustrative"), COAX_WORD("fictional"),
                                         COAX_WORD("fictitious"), COAX_WORD("fabricated")};
    /* "guess" after a word ("If I had to guess", "My best guess is"); a
    ** label "Guess:" alone names a game's answer (hunt13.jsonl) */
    if (pn && n == 5 && coax_ascii_casesame(text + at, "guess", 5)) return true;
    /* "made up", "made-up", "a mock-up" */
    if (pn == 4 && n == 2 && coax_ascii_casesame(text + at, "up", 2) &&
        (coax_ascii_casesame(text + pw, "made", 4) || coax_ascii_casesame(text + pw, "mock", 4)))
        return true;
    static const coax_word named[] = {COAX_WORD("example"), COAX_WORD("examples"), COAX_WORD("instance"),
                                      COAX_WORD("illustration"), COAX_WORD("sample")};
    static const coax_word naming[] = {COAX_WORD("a"), COAX_WORD("an"), COAX_WORD("for"), COAX_WORD("as"),
                                       COAX_WORD("another"), COAX_WORD("one"), COAX_WORD("some")};
    if (WORD_OF(text, at, n, anywhere)) return true;
    if (WORD_OF(text, at, n, named) && pn && WORD_OF(text, pw, pn, naming)) return true;
    return pn && ((n == 2 && coax_ascii_casesame(text + at, "of", 2) && pn == 7 &&
                   coax_ascii_casesame(text + pw, "instead", 7)) ||
                  (n == 4 && coax_ascii_casesame(text + at, "than", 4) && pn == 6 &&
                   coax_ascii_casesame(text + pw, "rather", 6)));
}

/* Whether the word text[at..at+n) says the value a word or two after it
** is a wrong or an earlier one ("The wrong answer is {...}", "Your
** previous value {...}"; not "Updated from the previous turn: {...}"). */
static bool wrong_word(const char *text, size_t at, size_t n)
{
    static const coax_word words[] = {COAX_WORD("wrong"), COAX_WORD("incorrect"), COAX_WORD("invalid"),
                                      COAX_WORD("previous"), COAX_WORD("rejected"), COAX_WORD("outdated")};
    return WORD_OF(text, at, n, words);
}

/* Whether text[p..q) is the word "not" or "don't". */
static bool negation(const char *text, size_t p, size_t q)
{
    return (q - p == 3 && coax_ascii_casesame(text + p, "not", 3)) ||
           (q - p == 5 && coax_ascii_casesame(text + p, "don't", 5));
}

/* Whether text[from..to) holds only spaces and markdown's marks. */
static bool blank(const char *text, size_t from, size_t to)
{
    for (size_t k = from, n; k < to; k += n ? n : 1)
        if (!(n = blank_at(text, k, to)) && !coax_byte_in("*_`", text[k])) return false;
    return true;
}

/* Whether the word text[at..at+n), last before the value, after the word
** text[pw..pw+pn), names a shape the answer may take, not the answer:
** "such as {...}", "something like {...}", "would look like {...}" (not
** "Looks like the answer is {...}", where more words follow). */
static bool shape_named(const char *text, size_t at, size_t n, size_t pw, size_t pn)
{
    static const coax_word before_like[] = {COAX_WORD("something"), COAX_WORD("look"), COAX_WORD("looks"),
                                            COAX_WORD("looking")};
    if (!pn) return false;
    if (n == 2 && coax_ascii_casesame(text + at, "as", 2)) return pn == 4 && coax_ascii_casesame(text + pw, "such", 4);
    return n == 4 && coax_ascii_casesame(text + at, "like", 4) && WORD_OF(text, pw, pn, before_like);
}

/* Whether the sentence at text[b] opens with "If" ("If she was born in
** 1990, the answer would be {...}"): with "would" before the value, the
** value holds on its condition only. */
static bool conditional_opening(const char *text, size_t b, size_t e)
{
    for (size_t k = b; b < e; b = k) { /* blanks, markdown's marks, what shows nothing (a BOM) */
        k = extract_past_invisible(text, blanks_end(text, b, e), e);
        while (k < e && coax_byte_in("*_>#-", text[k])) k++;
        if (k == b) break;
    }
    return opens_with(text, b, e, "if");
}

/* Whether the word text[at..at+n), after the word text[pw..pw+pn) (pn 0:
** none), doubts what the sentence says: "Probably {...}", "It might be
** {...}", "It seems to be {...}", "IIRC". */
static bool doubt_word(const char *text, size_t at, size_t n, size_t pw, size_t pn)
{
    static const coax_word alone[] = {COAX_WORD("probably"),  COAX_WORD("perhaps"),    COAX_WORD("maybe"),
                                      COAX_WORD("possibly"),  COAX_WORD("presumably"), COAX_WORD("likely"),
                                      COAX_WORD("unsure"),    COAX_WORD("uncertain"),  COAX_WORD("iirc"),
                                      COAX_WORD("afaik"),     COAX_WORD("afaict"),     COAX_WORD("unclear"),
                                      COAX_WORD("tentative"), COAX_WORD("tentatively"), COAX_WORD("guessed"),
                                      COAX_WORD("guesstimate")};
    /* a word after another: "might be", "seems to", "if I remember correctly" */
    static const struct { const char *before, *word; } pairs[] = {
        {"might", "be"},     {"may", "be"},         {"could", "be"},        {"seems", "to"},
        {"seem", "to"},      {"appears", "to"},     {"remember", "correctly"}, {"recall", "correctly"},
        /* a guess named ("my best guess", "an educated guess"); "Guess:" alone names a game's answer */
        {"best", "guess"},   {"my", "guess"},       {"a", "guess"},         {"educated", "guess"},
        {"rough", "guess"},  {"i", "guess"},        {"i'd", "guess"}};
    if (WORD_OF(text, at, n, alone)) return true;
    for (size_t i = 0; pn && i < sizeof pairs / sizeof *pairs; i++)
        if (matched(text, at, at + n, pairs[i].word) == n && matched(text, pw, pw + pn, pairs[i].before) == pn)
            return true;
    return false;
}

/* Whether the word text[at..at+n), after the word text[pw..pw+pn), is a
** verb of belief in the first person ("I think", "I believe", "I'd say")
** whose object is the value: nothing but a verb "to be" stands between it
** and the value at 'start' ("I think it's {...}", "I believe the answer
** is: {...}"; "I think this is what you need: {...}" doubts the need). */
static bool belief_of_value(const char *text, size_t at, size_t n, size_t pw, size_t pn, size_t start)
{
    static const struct { const char *before, *word; } verbs[] = {
        {"i", "think"}, {"i", "believe"}, {"i", "suspect"}, {"i", "reckon"}, {"i'd", "say"}, {"would", "say"}};
    bool belief = false;
    for (size_t i = 0; pn && !belief && i < sizeof verbs / sizeof *verbs; i++)
        belief = matched(text, at, at + n, verbs[i].word) == n && matched(text, pw, pw + pn, verbs[i].before) == pn;
    if (!belief) return false;
    size_t q = start;
    for (size_t k; q > at + n && ((k = coax_blank_before(text + at + n, text + q)) || coax_byte_in(":*_`-", text[q - 1]));)
        q -= k ? k : 1;
    if (q == at + n) return true; /* "I think: {...}" */
    size_t w = q;
    while (w > at + n && !coax_blank_before(text + at + n, text + w)) w--;
    static const char *const copulas[] = {"is", "are", "was", "were", "be", "it's", "that's", "this"};
    for (size_t i = 0; i < sizeof copulas / sizeof *copulas; i++)
        if (matched(text, w, q, copulas[i]) == q - w) return true;
    return false;
}


/* Where a word in the sentence text[b..start) before a value doubts it
** (doubt_word, belief_of_value): SIZE_MAX when none does. */
static size_t doubted_before(const char *text, size_t b, size_t start)
{
    /* from the last tag on: reasoning's close ("maybe 36.</think> {...}",
    ** Kimi's "◁/think▷") ends what doubts the value, as it ends a clause */
    for (size_t k = start; k > b; k--)
        if (text[k - 1] == '>' || (k - b >= 3 && !memcmp(text + k - 3, "\xE2\x96\xB7", 3))) {
            b = k;
            break;
        }
    static const coax_word sure[] = {COAX_WORD("sure"), COAX_WORD("certain"), COAX_WORD("confident"),
                                     COAX_WORD("positive")};
    /* words that deny what follows: "Rather than a guess, here ...", "no guessing needed" */
    static const coax_word denying[] = {COAX_WORD("no"), COAX_WORD("never"), COAX_WORD("without"),
                                        COAX_WORD("than"), COAX_WORD("instead"), COAX_WORD("not")};
    size_t pw = 0, pn = 0, since_not = SIZE_MAX, since_denial = SIZE_MAX; /* words since a "not", a denial */
    for (size_t p = b; p < start;) {
        if (!coax_ascii_alpha((unsigned char)text[p])) {
            p++;
            continue;
        }
        size_t q = p;
        while (q < start && (coax_ascii_alpha((unsigned char)text[q]) || text[q] == '\'' ||
                             (start - q >= 3 && !memcmp(text + q, "\xE2\x80\x99", 3) && (q += 2))))
            q++;
        /* "not sure", "not quite sure", "not 100% certain", "not entirely confident" */
        if ((since_denial >= 3 && doubt_word(text, p, q - p, pw, pn)) ||
            belief_of_value(text, p, q - p, pw, pn, start) || (since_not < 3 && WORD_OF(text, p, q - p, sure)) ||
            doubt_phrase(text, p, start))
            return p;
        since_not = q - p == 3 && coax_ascii_casesame(text + p, "not", 3) ? 0 : since_not + (since_not != SIZE_MAX);
        since_denial = WORD_OF(text, p, q - p, denying) ? 0 : since_denial + (since_denial != SIZE_MAX);
        pw = p, pn = q - p, p = q;
    }
    return extract_doubted_elsewhere(text, b, start);
}

/* The word in text[b..start), the sentence before a value at 'start', that marks it as no answer: in its clause
** right before the value, or the one before that when the value opens its own ("For example, {...}", "Here is an
** example of the format: {...}"), but no further: "Based on the example you gave, here is the result: {...}" marks
** nothing; a tag or another value ends a clause too ("<example>...</example> and {...}"). SIZE_MAX: none. */
static size_t marked_clause(const char *text, size_t b, size_t start)
{
    size_t c = start;
    while (c > b && !coax_byte_in(",;:()<>[]{}", text[c - 1])) c--;
    size_t from = c, to = start;
    if (c > b && blank(text, c, start)) {
        to = c - 1;
        for (from = to; from > b && !coax_byte_in(",;:()<>[]{}", text[from - 1]);) from--;
    }
    size_t neg = SIZE_MAX;   /* where a "not" stands that only "return" and spaces follow */
    size_t wrong = SIZE_MAX; /* where a wrong_word stands, and the words since */
    size_t since = 0, pw = 0, pn = 0;
    for (size_t p = from; p < to;) {
        if (!coax_ascii_alpha((unsigned char)text[p])) {
            size_t k = blank_at(text, p, to);
            if (!k) neg = SIZE_MAX;
            p += k ? k : 1;
            continue;
        }
        size_t q = p;
        while (q < to && (coax_ascii_alpha((unsigned char)text[q]) || text[q] == '\'')) q++;
        bool eg = q - p == 1 && (text[p] | 32) == 'e' && q + 1 < to && text[q] == '.' && (text[q + 1] | 32) == 'g';
        if (marking_word(text, p, q - p, pw, pn) || eg || (blank(text, q, to) && shape_named(text, p, q - p, pw, pn)))
            return p;
        if (q - p == 5 && coax_ascii_casesame(text + p, "would", 5) && conditional_opening(text, b, start)) return p;
        if (negation(text, p, q)) neg = p;
        else if (!(q - p == 6 && coax_ascii_casesame(text + p, "return", 6))) neg = SIZE_MAX;
        since++;
        if (wrong_word(text, p, q - p)) wrong = p, since = 0;
        pw = p;
        pn = q - p;
        p = q;
    }
    size_t example = extract_example_elsewhere(text, from, to);
    if (example != SIZE_MAX) return example;
    if (to != start) return SIZE_MAX; /* a clause before the value's own: its label's words said it */
    return neg != SIZE_MAX ? neg : wrong != SIZE_MAX && since <= 2 ? wrong : SIZE_MAX; /* "Not {...}" */
}

/* Where the line above a value that starts its line, past blank lines and
** a fence's opening (and that line's own text before its backticks:
** "Probably: ```json"), doubts it (doubted_before) in its last sentence:
** "Probably:", "I think:", "I'm not sure about the age, but here goes.", or,
** ending in a colon, marks it (marked_clause: "Here is an example of the
** output:"); not one that asks or supposes ("You asked whether maybe ..."), nor a line
** with a bracket (JSON above). SIZE_MAX when none does, or the value does
** not start its line. The look is one line of at most RETRACT_LOOK bytes. */
static size_t doubted_above(const char *text, size_t start)
{
    size_t origin = extract_text_origin(text, start), line = start;
    while (line > origin && text[line - 1] != '\n') line--;
    if (!blank(text, line, start)) return SIZE_MAX;
    bool fence = false;
    while (line > origin) {
        size_t end = line - 1, b = end; /* end: the '\n' ending the line above */
        while (b > origin && text[b - 1] != '\n' && end - b < RETRACT_LOOK) b--;
        size_t e = end;
        while (e > b && (text[e - 1] == '\r' || text[e - 1] == ' ' || text[e - 1] == '\t')) e--;
        line = b;
        if (e == b) continue; /* a blank line */
        size_t tick = b;
        while (!fence && tick + 3 <= e && memcmp(text + tick, "```", 3) && memcmp(text + tick, "~~~", 3)) tick++;
        if (!fence && tick + 3 <= e) { /* a fence's opening: its text before, else the line above */
            fence = true;
            if (blank(text, b, tick)) continue;
            e = tick;
        }
        for (size_t k = b; k < e; k++)
            if (coax_byte_in("{}[]", text[k])) return SIZE_MAX; /* JSON above, no label */
        /* its last sentence, unless it asks or supposes ("You asked whether maybe ...") */
        size_t t = e, s0;
        while (t > b && coax_byte_in(" \t*_:.!?", text[t - 1])) t--;
        for (s0 = t; s0 > b && !coax_byte_in(".!?;", text[s0 - 1]);) s0--;
        if (hedged_before(text, s0, t)) return SIZE_MAX;
        size_t doubt = doubted_before(text, s0, t), colon = e;
        /* a sentence that introduces the value with a colon marks it on the line below as on its own
        ** ("Here is an example of the output:" above it, as "... output: {...}") */
        while (colon > s0 && coax_byte_in(" \t*_", text[colon - 1])) colon--;
        return doubt != SIZE_MAX || colon == s0 || text[colon - 1] != ':' ? doubt : marked_clause(text, s0, colon);
    }
    return SIZE_MAX;
}

size_t extract_marked_before(const char *text, size_t start, bool prose)
{
    size_t above = doubted_above(text, start);
    if (above != SIZE_MAX || !prose) return above;
    size_t b = start, stop = start > RETRACT_LOOK ? start - RETRACT_LOOK : 0;
    if (stop < extract_text_origin(text, start)) stop = extract_text_origin(text, start);
    /* the sentence: back to its line's start or a sentence's end (a stop
    ** then a space; not e.g.'s) */
    for (; b > stop && text[b - 1] != '\n'; b--) {
        size_t r = blank_at(text, b, start) ? b : blanks_start(text, stop, b); /* a run's end only */
        if (r < b && r >= stop + 1 && coax_byte_in(".!?", text[r - 1]) &&
            !(r >= 3 && (text[r - 2] | 32) == 'g' && text[r - 3] == '.'))
            break;
    }
    size_t doubt = doubted_before(text, b, start);
    if (doubt != SIZE_MAX) return doubt;
    return marked_clause(text, b, start);
}

bool extract_remark_takes_back(const char *s, size_t n)
{
    static const coax_word words[] = {COAX_WORD("actually"), COAX_WORD("typo"), COAX_WORD("typos"),
                                      COAX_WORD("incorrect"), COAX_WORD("wrong"), COAX_WORD("mistake"),
                                      COAX_WORD("mistaken"), COAX_WORD("correction"), COAX_WORD("corrected"),
                                      COAX_WORD("instead")};
    if (n > RETRACT_LOOK) n = RETRACT_LOOK;
    if (extract_taken_back(s, 0, n, NULL) != SIZE_MAX) return true;
    for (size_t p = 0; p < n;) {
        if (!coax_ascii_alpha((unsigned char)s[p])) {
            p++;
            continue;
        }
        size_t q = p;
        while (q < n && coax_ascii_alpha((unsigned char)s[q])) q++;
        if (WORD_OF(s, p, q - p, words) || (opens_with(s, p, n, "should be"))) return true;
        p = q;
    }
    return extract_wrong_elsewhere(s, n); /* the same words in the other languages */
}
