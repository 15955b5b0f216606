/*
** stream.h: the partial value of a reply that arrives in pieces.
**
**   reader.c   where the JSON starts (reasoning blocks skipped until they
**              close, code fences, tags, prose before the JSON) and a push
**              parser that resumes where the last piece stopped: a reply fed
**              in pieces of any size costs one pass over its bytes.
**   partial.c  which parts are complete, the values they will have in the
**              final value (coercions included), the part in progress, and
**              the errors of the complete parts.
**
** The contract a host relies on (README, "Streaming"):
** - A part is complete when it is closed, a delimiter after it proves a
**   number or literal ended, and nothing later in the reply can change it:
**   its coerced value is then exactly the one the final value will hold.
**   A complete part stays complete, with the same value, in every later
**   partial (itself or through an ancestor).
** - 'complete' lists the top-most complete parts only (a complete object is
**   listed once, not its members), in document order, as the full list.
** - 'in_progress' is the most specific pointer being written ("/items/2/name",
**   or "/count" while its digits arrive), NULL before the JSON starts and
**   once it has ended.
** - The value shows the complete parts and the one in progress, nothing
**   else: a string in progress as far as it goes (unless its pointer is
**   atomic), a number or literal in progress not at all, a closed part that
**   is not complete yet not at all; an item in progress only at its own
**   index (not after earlier items that are not shown).
** - When the reader meets text it cannot read with certainty (anything but
**   strict JSON inside the candidate, a duplicate key, a lone surrogate...;
**   JSON in a block that begins with a value of its own, or that a label
**   before it marks as no answer; a value after the one it followed), it
**   stops following the reply: later partials are the last one
**   (stopped = true). A tag that says it holds no answer (<example>) is
**   skipped as reasoning is. A candidate is never dropped for a later one: the
**   lenient parser may read the failed text as the answer. The final value comes from coax_extract
**   over the whole reply, never from the reader (stream_root_extract gives the reader's call of
**   it when the whole reply is the candidate: the same call, made once).
*/
#ifndef COAX_STREAM_H
#define COAX_STREAM_H

#include "base/core.h"

typedef struct stream_reader stream_reader;

typedef struct stream_options {
    const coax_schema *schema;  /* NULL: no schema, a part is complete once closed */
    const coax_limits *limits;  /* NULL: the defaults (depth, input, string) */
    const char *const *atomic;  /* JSON Pointers of strings shown only once complete */
    size_t natomic;
    /* NULL: the reader makes its own arena and frees it. Else an arena the
    ** reader uses, alone, until stream_free resets it (not freed): a caller
    ** reading reply after reply lends each reader the same one, so its
    ** blocks are reused rather than faulted in again each reply. */
    coax_arena *arena;
} stream_options;

/* A reader for one reply. 'o' and what it points to (the schema, the
** atomic pointers) must outlive the reader; NULL 'o': no schema, defaults. */
coax_code stream_new(const coax_allocator *alloc, const stream_options *o, stream_reader **out, coax_error *err);

/* Reads the next piece of the reply (any size, cut anywhere, even inside
** a UTF-8 character). Linear in 'len'. Fails for memory and limits only
** (max_input, max_depth, max_string): the reader then stays failed. */
coax_code stream_feed(stream_reader *r, const char *piece, size_t len, coax_error *err);

/* Bytes fed so far. */
size_t stream_bytes(const stream_reader *r);

/* Whether the partial would differ from the last one stream_partial gave
** (cheap: lets a caller skip building a partial that says nothing new). */
bool stream_changed(const stream_reader *r);

typedef struct stream_partial {
    const coax_value *value;   /* the value so far; NULL before the JSON starts */
    const char **complete;     /* the top-most complete parts, in document order */
    size_t ncomplete;
    const char *in_progress;   /* NULL: nothing in progress */
    coax_validation errors;    /* the errors at and under complete parts */
    bool doomed;               /* a complete part has an error that no later text
                               ** and no coercion can repair ('errors' holds it) */
    bool stopped;              /* the reader no longer follows the reply */
    bool ended;                /* the JSON value has ended (complete = {""}) */
} stream_partial;

/* The partial so far. The value shares the reader's memory (complete
** parts, the arrays of open containers, the string in progress) and the
** list, the in-progress pointer and the errors are the reader's: all stay
** valid until the next call on the reader (stream_feed,
** stream_partial_get, stream_free); 'arena' holds the rest (the value's
** root). Write it out
** (stream_partial_write) or copy it (coax_value_copy) before feeding more.
** The work is proportional to what changed since the last call plus the
** depth of the value and the pointers not listed before. */
coax_code stream_partial_get(stream_reader *r, coax_arena *arena, stream_partial *out, coax_error *err);

/* With a schema, once the JSON value has ended and when its candidate's
** text (from the value's first byte to its last) is text[0..len): the
** result of coax_extract over that text, with the default options and the
** reader's limits, that a partial asked for since the value ended (or
** runs now, as the next partial would, when 'now'). NULL when there is
** none (no schema, another text, the value has not ended, the extraction
** found no value or hit a limit, or memory ran out). It lives in the
** reader: valid until stream_free. A caller extracting the same text with
** the same options takes it rather than extracting it twice. */
const coax_extract_result *stream_root_extract(stream_reader *r, const char *text, size_t len, bool now);

/* Writes a partial as the JSON object hosts and the CLI see:
** {"partial": V, "complete": [...], "in_progress": "/x" | null} plus
** "errors": [{"instanceLocation", "keywordLocation", "error"}...] when any,
** with "stopped": true / "doomed": true when set. */
coax_code stream_partial_write(const stream_partial *p, coax_buf *out);

void stream_free(stream_reader *r);

#endif
