/*
** seek.c: where the JSON of a streamed reply starts, a byte at a time (so a
** piece may end inside "```json" or "<think>"), following the candidate
** scan of coax_repair (repair/scan.c); see reader.c for the rules. The
** reader (reader.c) calls it for every byte outside the candidate.
*/
#include "stream/reader.h"

#include "json/parse_scan.h"

#include "extract/coerce.h"
#include "repair/repair.h"

static bool is_name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

void seek_remember(stream_reader *r, const unsigned char *p, size_t n)
{
    if (r->nrecent - r->block_at < sizeof r->lead) { /* the block's first bytes */
        size_t at = r->nrecent - r->block_at, k = sizeof r->lead - at < n ? sizeof r->lead - at : n;
        memcpy(r->lead + at, p, k);
    }
    const size_t cap = sizeof r->recent;
    if (n > cap) {
        p += n - cap;
        r->nrecent += n - cap;
        n = cap;
    }
    for (size_t i = 0; i < n; i++) r->recent[(r->nrecent + i) % cap] = (char)p[i];
    r->nrecent += n;
}

/* Whether the candidate starting now is marked as no answer by the text
** before it ("Wrong answer:" above a fence, "Example: {...}", "<!-- {...}"):
** the extraction scores no such candidate and may take a later one, or
** refuses the reply. A prose candidate's '[' (and spaces after it) is its
** own text. */
static bool labelled(stream_reader *r, coax_source source, bool bracket)
{
    const size_t cap = sizeof r->recent;
    char before[sizeof r->recent];
    size_t n = r->nrecent < cap ? r->nrecent : cap;
    for (size_t i = 0; i < n; i++) before[i] = r->recent[(r->nrecent - n + i) % cap];
    for (size_t i = 0, k; i < n; i += k ? k : 1) /* "Exemple<NBSP>:" read as the extraction reads it */
        if ((k = repair_visible_space(before + i, before + n))) memset(before + i, ' ', k);
    if (bracket) {
        while (n && before[n - 1] != '[') n--;
        if (n) n--;
    }
    /* and what the extraction refuses the candidate for, if it is the answer:
    ** a sentence that marks it ("For example, {") or doubts it ("Probably {",
    ** "I think:" above a fence) */
    return extract_labelled_no_answer(before, n, source) ||
           extract_marked_before(before, n, source == COAX_SOURCE_PROSE) != SIZE_MAX;
}

/* Whether the block the candidate is in begins with a value of its own
** (repair's test over its first bytes, past spaces and a byte order mark):
** then the lenient parser reads the block as values one after another, or
** as one string, and the candidate may be one of them (1. {"a": 1} is
** [1.0,{"a":1}] to a schema that takes an array), part of a string ('x {"a":
** 1}' is the text) or of one left open ('Sure,' {"a": 1} is refused as cut
** off): the reader follows nothing in it. A first text read as prose
** ("Sure", "200 OK") is not one. */
static bool block_of_values(const stream_reader *r, char first)
{
    char lead[sizeof r->lead + 1]; /* and the candidate's first byte: "1. {" is a list's item */
    size_t n = r->nrecent - r->block_at < sizeof r->lead ? r->nrecent - r->block_at : sizeof r->lead, i = 0;
    memcpy(lead, r->lead, n);
    if (first) lead[n++] = first; /* a prose '[' is in the lead already */
    for (;;) {
        while (i < n && is_ws[(unsigned char)lead[i]]) i++;
        if (n - i >= 3 && !memcmp(lead + i, "\xEF\xBB\xBF", 3)) i += 3;
        else break;
    }
    return repair_value_starts(lead + i, lead + n);
}

static bool begin_candidate(stream_reader *r, coax_source source)
{
    /* a candidate the extraction does not score, or one inside a block of
    ** values: the reader follows nothing after it either (it cannot tell
    ** which later one will be taken) */
    if ((source == COAX_SOURCE_PROSE && block_of_values(r, r->seek == SK_BRACKET ? 0 : '{')) ||
        ((source == COAX_SOURCE_PROSE || source == COAX_SOURCE_FENCED) &&
         labelled(r, source, r->seek == SK_BRACKET))) {
        r->stopped = true;
        r->changed = true;
        r->seek = SK_DONE;
        return false;
    }
    r->source = (int)source;
    r->seek = SK_JSON;
    r->pstate = P_VALUE;
    r->scalar = SC_NONE;
    r->held.type = 0xFF;
    r->cand.len = 0;
    r->changed = true;
    return true;
}


/* Whether the bytes before a '>' close a reasoning block none opened
** ("...</think>"): the reply began inside reasoning, so the extraction
** takes all before the tag as reasoning (repair/scan.c), the value the
** reader followed with it. */
static bool closes_reasoning(const stream_reader *r)
{
    const size_t cap = sizeof r->recent;
    char name[34];
    size_t n = 0;
    while (n < sizeof name && n < r->nrecent && n < cap &&
           is_name_char((unsigned char)r->recent[(r->nrecent - 1 - n) % cap]))
        n++;
    if (!n || n == sizeof name || r->nrecent < n + 2 || n + 2 > cap) return false;
    if (r->recent[(r->nrecent - n - 1) % cap] != '/' || r->recent[(r->nrecent - n - 2) % cap] != '<') return false;
    for (size_t i = 0; i < n; i++) name[i] = r->recent[(r->nrecent - n + i) % cap];
    return repair_is_reasoning(name, n);
}

/* Whether the bytes read before this one end with s[0..n). */
static bool recent_ends_with(const stream_reader *r, const char *s, size_t n)
{
    const size_t cap = sizeof r->recent;
    if (r->nrecent < n || n > cap) return false;
    for (size_t i = 0; i < n; i++)
        if (r->recent[(r->nrecent - n + i) % cap] != s[i]) return false;
    return true;
}

/* Kimi's reasoning markers, but for their last byte (0xB7, the one the
** reader stops at): the scan reads all before the closing one, and all
** after an opening one at the reply's start left open, as reasoning
** (repair/scan.c, kimi_reasoning_end). */
static const char kimi_open[] = "\xE2\x97\x81think\xE2\x96", kimi_close[] = "\xE2\x97\x81/think\xE2\x96";

/* Whether the bytes before this 0xB7 open Kimi's reasoning at the reply's
** start, after spaces only. */
static bool kimi_opens(const stream_reader *r)
{
    const size_t n = sizeof kimi_open - 1;
    if (r->nrecent > sizeof r->recent || !recent_ends_with(r, kimi_open, n)) return false;
    for (size_t i = 0; i + n < r->nrecent; i++)
        if (!is_ws[(unsigned char)r->recent[i]]) return false;
    return true;
}

/* Bytes that matter in prose. */
static const uint8_t prose_stops[256] = {['{'] = 1, ['['] = 1, ['<'] = 1, ['`'] = 1, ['~'] = 1, [0xB7] = 1};

size_t seek_prose(stream_reader *r, const unsigned char *p, size_t i, size_t len)
{
    while (i < len && !prose_stops[p[i]]) {
        if (!is_ws[p[i]]) r->block_start = false;
        i++;
    }
    return i;
}

/* The first text after the value, a byte at a time (a bounded window of
** it): whether it starts another value the lenient parser reads beside
** this one (a string in any quotes, a number, a literal: repair's own
** test), so that the text holds several values: an array to a schema that
** takes one ({"a": 1} "x" is [{"a":1},"x"]), else refused. Backticks are
** a code span's quotes in a run of one or two (a reply may end after ``, an
** empty string), a fence in a longer one: either stops the reader, but a
** fenced candidate's own closing fence. */
static bool value_follows(stream_reader *r, unsigned char c)
{
    if (r->nfirst >= sizeof r->first || (!r->nfirst && is_ws[c])) return false;
    r->first[r->nfirst++] = (char)c;
    if (r->first[0] == '`' && r->source != COAX_SOURCE_FENCED) return true;
    if (r->first[0] == '`') {
        size_t run = 0;
        while (run < r->nfirst && r->first[run] == '`') run++;
        if (run == r->nfirst) return false; /* the run goes on */
        if (run >= 3) {
            r->nfirst = sizeof r->first; /* a fence: the reader's own rule */
            return false;
        }
    }
    return repair_value_starts(r->first, r->first + r->nfirst);
}

bool seek_byte(stream_reader *r, unsigned char c)
{
    switch (r->seek) {
    case SK_PROSE:
        if (c == '{') {
            begin_candidate(r, r->block_start ? COAX_SOURCE_WHOLE : COAX_SOURCE_PROSE);
            return true;
        }
        if (c == '[') {
            if (r->block_start) {
                begin_candidate(r, COAX_SOURCE_WHOLE);
                return true;
            }
            r->seek = SK_BRACKET;
            return false;
        }
        if (c == '<') {
            r->seek = SK_TAG;
            r->nlen = 0;
            return false;
        }
        if (c == '`' || c == '~') {
            r->seek = SK_FENCE_RUN;
            r->fence_char = (char)c;
            r->run = 1;
            return false;
        }
        if (c == 0xB7 && kimi_opens(r)) { /* up to its closing marker, whole */
            memcpy(r->name, kimi_close, sizeof kimi_close - 1);
            r->name[sizeof kimi_close - 1] = (char)0xB7;
            r->nlen = sizeof kimi_close;
            r->run = 0;
            r->seek = SK_REASONING;
            return false;
        }
        if (!is_ws[c]) r->block_start = false;
        return false;
    case SK_BRACKET:
        if (is_ws[c]) return false;
        if (c == '{' || c == '[' || c == '"' || c == ']') {
            if (!begin_candidate(r, COAX_SOURCE_PROSE)) return false;
            /* the '[' itself, then this byte */
            r->seek = SK_JSON;
            r->bracket_pending = true;
            return true;
        }
        r->seek = SK_PROSE;
        r->block_start = false;
        return true;
    case SK_TAG:
        /* The harmony format's analysis channel ("<|channel|>analysis" then
        ** "<|message|>", this '|' after its '<') is reasoning up to its
        ** <|end|>, as the scan reads it (repair/scan.c): no part in it. */
        if (c == '|' && !r->nlen && recent_ends_with(r, "<|channel|>analysis<", 20)) {
            memcpy(r->name, "<|end|>", 7);
            r->nlen = 7;
            r->run = 0;
            r->seek = SK_REASONING;
            return false;
        }
        if (is_name_char(c) && r->nlen < 33) {
            if (r->nlen < sizeof r->name) r->name[r->nlen] = (char)c;
            r->nlen++;
            return false;
        }
        r->seek = SK_PROSE;
        if (c != '>' || r->nlen == 0 || r->nlen > 32) {
            r->block_start = false;
            return true;
        }
        /* A reasoning block, or one whose tag says it holds no answer
        ** (<example>, <draft>, <wrong_answer>) when its content starts
        ** with JSON (the scan's tagged block): the extraction takes no
        ** candidate in it (extract.c, unanswering_tag), and the reader
        ** follows none: up to its closing tag. */
        r->block_at = r->nrecent + 1; /* after this '>' */
        bool reasoning = repair_is_reasoning(r->name, r->nlen);
        if (reasoning || coerce_not_answer_tag(r->name, r->nlen)) {
            /* the closing tag, as the scan looks for it: "</" name ">" */
            memmove(r->name + 2, r->name, r->nlen);
            r->name[0] = '<';
            r->name[1] = '/';
            r->name[r->nlen + 2] = '>';
            r->nlen += 3;
            r->run = 0;
            r->seek = reasoning ? SK_REASONING : SK_TAG_BODY;
        } else {
            r->block_start = true; /* a tag's content: any value */
        }
        return false;
    case SK_TAG_BODY:
        if (is_ws[c]) return false;
        if (c == '{' || c == '[') {
            r->seek = SK_REASONING;
            return false;
        }
        /* prose in the tag: its spans are candidates as anywhere */
        r->seek = SK_PROSE;
        r->block_start = true;
        return true;
    case SK_REASONING:
        /* a mismatch restarts: the closer's first byte ('<', 0xE2) comes
        ** again only in Kimi's, where a false start may hide a match (the
        ** reader then lists nothing more: never a part the scan drops) */
        if ((char)c == r->name[r->run]) {
            if (++r->run == r->nlen) {
                r->seek = SK_PROSE;
                r->block_start = true; /* the text after reasoning may be one value */
                r->block_at = r->nrecent + 1;
            }
        } else {
            r->run = (char)c == r->name[0] ? 1 : 0;
        }
        return false;
    case SK_FENCE_RUN:
        if ((char)c == r->fence_char) {
            r->run++;
            return false;
        }
        if (r->run < 3) {
            r->seek = SK_PROSE;
            r->block_start = false;
            return true;
        }
        r->seek = SK_FENCE_LANG;
        r->nlen = 0;
        return true;
    case SK_FENCE_LANG:
        if (is_name_char(c) || c == '+') {
            if (r->nlen < sizeof r->name) r->name[r->nlen] = (char)c;
            r->nlen++;
            return false;
        }
        r->seek = SK_FENCE_EOL;
        return true;
    case SK_FENCE_EOL:
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            if (c == '\n') r->seek = SK_FENCE_BODY;
            return false;
        }
        r->seek = SK_FENCE_BODY;
        return true;
    case SK_FENCE_BODY:
        if (is_ws[c]) return false;
        if (c == '{' || c == '[') {
            begin_candidate(r, COAX_SOURCE_FENCED);
            return true;
        }
        /* A block that does not start with a container (prose, a scalar,
        ** another language): nothing to follow in it. */
        r->seek = SK_FENCE_SKIP;
        r->run = 0;
        return true;
    case SK_FENCE_SKIP:
        if ((char)c == r->fence_char) {
            r->run++;
            return false;
        }
        if (r->run >= 3) {
            r->seek = SK_PROSE;
            r->block_start = false;
            return true;
        }
        r->run = 0;
        return false;
    case SK_AFTER:
        if (value_follows(r, c) || (c == '>' && closes_reasoning(r)) ||
            (c == 0xB7 && recent_ends_with(r, kimi_close, sizeof kimi_close - 1))) {
            r->stopped = true;
            r->changed = true;
            r->seek = SK_DONE;
            return false;
        }
        /* Another value, or another block, might be what the extraction
        ** prefers: the reader no longer answers for the reply. A fenced
        ** candidate's own closing fence is expected. A comma right after
        ** it says the value was closed early ({"a": 1}, "b": 2}): the
        ** extraction reads the members after it, or refuses the value. */
        if (c == '{' || c == '[' || (c == ',' && !r->after_text)) {
            r->stopped = true;
            r->changed = true;
            r->seek = SK_DONE;
        } else if (c == '`' || c == '~') {
            r->run++;
            if (r->run >= 3 && !(r->source == COAX_SOURCE_FENCED && !r->closing_seen)) {
                r->stopped = true;
                r->changed = true;
                r->seek = SK_DONE;
            }
        } else {
            if (r->run >= 3) r->closing_seen = true;
            r->run = 0;
        }
        r->after_text |= !is_ws[c];
        return false;
    default:
        return false;
    }
}

