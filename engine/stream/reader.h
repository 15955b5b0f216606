/*
** reader.h: internals of the streaming reader, shared by seek.c (where
** the JSON starts), reader.c (the push parser), partial.c (the parts the parser
** reports: the tree of open containers, what is complete, the partial a
** caller gets) and complete.c (with a schema: which closed parts are
** final, and their coerced values).
**
** Memory: everything that stays until the reader is freed (keys, values of
** closed parts, the arrays of open containers, pointers) lives in the
** reader's own arena 'ar', so a partial can share it instead of copying the
** value shown every time; buffers that grow (the string being read, the
** candidate's text) and the skeletons' scratch arena are loans from it, so
** their blocks too serve the next reader given the same arena (memory.c).
*/
#ifndef COAX_STREAM_READER_H
#define COAX_STREAM_READER_H

#include "stream/stream.h"
#include "schema/map.h"

/* One open container. Its children so far are 'raw' (as parsed, every one
** that closed); 'shown' holds the values of its complete children (their
** final values, coerced with a schema) plus one slot past them, where a
** partial puts the child in progress. Without a schema 'shown' is 'raw'. */
typedef struct sframe {
    bool object;
    const char *ptr;        /* this container's JSON Pointer (reader arena), its first plen
                            ** bytes (a child's may follow); NULL until asked for (frame_ptr) */
    size_t plen;
    void *raw;              /* coax_value[] or coax_member[] */
    size_t nraw, rawcap;
    void *shown;            /* the same, complete children only (+1 slot) */
    size_t nshown, showncap;
    size_t count;           /* children begun: the index of the next one */
    size_t entries_from;    /* where its complete children begin in r->entries */
    const char *key;        /* object: the key of the member being read (reader arena) */
    size_t klen;
    bool key_ready;         /* object: 'key' is complete (the colon or value may follow) */
    /* object: the keys seen, for duplicates: a filter (json/key_bits.h; a
    ** search only once a bit repeats) for the first few, then a table (open
    ** addressing, allocator) */
    uint64_t keybits;
    uint32_t *keyslots;     /* index into raw + 1; 0 empty */
    size_t keymask;
    /* with a schema (complete.c): the subschema of this container, and
    ** whether its children may be complete before it is */
    const coax_value *sub;
    bool children_final;
    bool names;             /* object: its subschema has "propertyNames" */
    const coax_value *props; /* object: its "properties" (NULL: none) */
    const coax_value *items; /* array: the subschema of every item */
    const coax_value *key_sub; /* object: the subschema declared for 'key', NULL: undeclared */
    bool child_trivial;     /* the child being read (an item; a declared key's value) is
                            ** judged by nothing: it settles as parsed (complete.c) */
} sframe;

/* What complete.c knows of one subschema as a container's child reaches
** it, computed once per reader and subschema (a direct-mapped cache: a
** subschema displaced by another is computed again, never wrong). */
typedef struct ssub {
    const coax_value *schema;  /* the subschema as reached (the key; NULL: empty slot) */
    const coax_value *sub;     /* with its local "$ref" followed; NULL: not followed */
    const coax_value *props;   /* its "properties", or NULL */
    const coax_value *items;   /* the subschema of its items ("items", else true) */
    bool plain_object, plain_array; /* plain() for an object, an array */
    bool names;                /* it has "propertyNames" */
    bool trivial;              /* nothing in it can fail or coerce: true, {} or annotations */
} ssub;

#define STREAM_SUB_SLOTS 64

/* One complete part in the list: its parent's pointer and its key or
** index; the pointer text is built the first time a partial shows it. */
typedef struct sentry {
    const char *parent; /* the parent's pointer (NULL: the root itself) */
    size_t plen;
    const char *key;    /* NULL: an array index */
    size_t klen;
    size_t index;
    const char *text;   /* the pointer, once built */
} sentry;

/* A closed part waiting for its coerced value (complete.c computes it,
** partial.c shows it). */
typedef struct spending {
    size_t depth, index;     /* child 'index' of frames[depth] */
    bool trivial;            /* its subschema judges nothing: its value is the one parsed */
    const coax_value *value; /* its final value, once computed */
    const char *ptr;         /* its pointer, then */
} spending;

/* The state where nothing more is read. */
#define STREAM_SEEK_DONE 12

/* Where the JSON starts (seek.c), and the parser reading it (reader.c). */
enum seek_state {
    SK_PROSE,      /* looking for a value, a fence, a tag */
    SK_TAG,        /* after '<': a tag's name */
    SK_REASONING,  /* inside a reasoning block: looking for its closing tag */
    SK_TAG_BODY,   /* after a tag that says it holds no answer: does JSON start its content? */
    SK_FENCE_RUN,  /* a run of backticks or tildes */
    SK_FENCE_LANG, /* a fence's language */
    SK_FENCE_EOL,  /* spaces after the language */
    SK_FENCE_BODY, /* the block's first bytes: spaces, then { or [ */
    SK_FENCE_SKIP, /* a block that holds no JSON: up to its closing fence */
    SK_BRACKET,    /* a '[' in prose: does JSON follow? */
    SK_JSON,       /* the parser reads the candidate */
    SK_AFTER,      /* the value ended: watching for another that might win */
    SK_DONE = STREAM_SEEK_DONE /* stopped or failed: nothing more is read */
};
_Static_assert(SK_AFTER + 1 == SK_DONE, "STREAM_SEEK_DONE is the state after the others");

enum parse_state {
    P_VALUE,          /* a value (after ':' or ',' in an array) */
    P_VALUE_OR_CLOSE, /* after '[' */
    P_KEY_OR_CLOSE,   /* after '{' */
    P_KEY,            /* after ',' in an object */
    P_COLON,          /* after a key */
    P_AFTER,          /* after a value: ',' or a closer */
    P_STRING,         /* inside a string or key */
    P_NUMBER,
    P_LITERAL
};


/* The kinds of value the parser is in the middle of (reader.c). */
typedef enum sscalar { SC_NONE, SC_STRING, SC_KEY, SC_NUMBER, SC_LITERAL } sscalar;

struct stream_reader {
    const coax_allocator *alloc;
    stream_options o;
    coax_limits lim;
    coax_arena *ar;         /* what lives as long as the reader */
    coax_code failed;       /* a limit or memory: the reader stays failed */
    coax_error fail_err;
    size_t bytes;           /* fed so far */
    size_t list_bytes;      /* the complete list's pointers built so far (at most max_input) */
    bool stopped, ended, changed;
    /* where the JSON starts (reader.c) */
    int seek;               /* seek_state */
    size_t run;             /* fence run length, tag name length, or match position */
    char fence_char;
    char name[40];          /* a tag's name, a fence's language, a closing tag */
    size_t nlen;
    bool block_start;       /* nothing but spaces since the text, a tag or a block began */
    int source;             /* coax_source of the candidate */
    /* the push parser (reader.c) */
    int pstate;             /* parser state: what the next byte may be */
    int lstate;             /* lexer state inside a string, number or literal */
    sscalar scalar;
    coax_value held;        /* a scalar read, not yet proven final (type 0xFF: none) */
    bool held_spaced;       /* a space followed it */
    bool bracket_pending;   /* a '[' in prose turned out to start the candidate */
    bool closing_seen;      /* after the value: the fenced candidate's closing fence passed */
    bool after_text;        /* after the value: a byte other than a space came */
    char recent[256];       /* the last bytes before the JSON, a ring (seek.c, labelled) */
    size_t nrecent;         /* bytes put in it, ever */
    size_t block_at;        /* nrecent where the block (the reply, a tag's content...) began */
    char lead[32];          /* the block's first bytes (seek.c, block_of_values) */
    char first[16];         /* after the value: the first text (seek.c, value_follows) */
    uint8_t nfirst;         /* its length; sizeof first once it is decided */
    const char *literal;    /* the literal being matched ("true"...) */
    uint32_t hex, high;     /* \u escape being read; pending high surrogate */
    unsigned char u8[4];    /* a UTF-8 character being read */
    size_t u8n, u8need;
    coax_buf text;          /* the string, key or number being read (decoded) */
    coax_buf cand;          /* the candidate's text, from its first byte */
    uint64_t scalars;       /* scalars begun: tells the key being read from one read before */
    /* The pointer of the part in progress as the last partial built it
    ** (partial.c), and what it was built from: the next partial that points
    ** to the same part takes it as it is, or, for a key being read, adds the
    ** key's bytes read since. Built afresh each time, a key of n bytes in
    ** progress cost n a partial (n^2 over partials every 64 bytes). */
    coax_buf ip;
    const char *ip_parent, *ip_key; /* its parent's pointer; its key (NULL: an index) */
    size_t ip_plen, ip_klen, ip_index;
    uint64_t ip_scalar;     /* a key being read: 'scalars' then, else 0 */
    /* the tree (partial.c) */
    sframe *frames;
    size_t depth, framecap;
    uint64_t seed;          /* of the key tables */
    coax_value *root;       /* the root's final value once it is listed */
    coax_value root_raw;    /* the root as parsed, once it closed */
    coax_value root_shown;  /* the root as shown when it closed (its complete children) */
    const char **ptrs;      /* the entries' pointers, as a partial lists them */
    size_t ptrcap;
    size_t nptrs;           /* ptrs[0..nptrs) are the current entries' (a partial set them) */
    sentry *entries;        /* the complete parts, top-most, in document order */
    size_t nentries, entrycap;
    bool root_listed;
    bool root_pending;      /* with a schema: the root closed, coax_extract has not read it yet */
    /* with a schema (complete.c) */
    spending *pending; /* closed parts waiting for their coerced value */
    size_t npending, pendingcap;
    coax_arena *scratch;    /* the skeletons' (reset after each) */
    ssub subs[STREAM_SUB_SLOTS]; /* what complete.c knows of subschemas */
    smap pidx;              /* per large "properties" looked into, a hash of its names (complete.c) */
    coax_extract_result root_x; /* the root's extraction (its errors wait for the settled parts when invalid) */
    bool root_read;         /* 'root_x' holds it: coax_extract read the candidate */
    bool root_errors_pending;
    coax_schema_error *errors; /* errors at and under complete parts (reader arena) */
    size_t nerrors, errorcap;
    bool doomed;
};

/* ---- seek.c: where the JSON starts --------------------------------------- */

/* Passes over prose from p[i] up to the next byte that may matter in it;
** returns its index (len: none in this piece). */
size_t seek_prose(stream_reader *r, const unsigned char *p, size_t i, size_t len);
/* Keeps bytes the seek read in a window of the last ones (reader.c calls it). */
void seek_remember(stream_reader *r, const unsigned char *p, size_t n);
/* One byte outside the candidate. Returns true when it is to be read again
** in the state it led to (SK_JSON: the candidate begins with it). */
bool seek_byte(stream_reader *r, unsigned char c);

/* ---- partial.c: the parser's reports ----------------------------------- */

/* A container opens (as the root, an item, or the value of the current key). */
coax_code tree_open(stream_reader *r, bool object);
/* The current member's key is complete. false: a duplicate (the reader stops). */
coax_code tree_key(stream_reader *r, const char *key, size_t klen, bool *dup);
/* A scalar ended (a delimiter proved it for numbers and literals). */
coax_code tree_scalar(stream_reader *r, const coax_value *v);
/* The innermost container closed. */
coax_code tree_close(stream_reader *r);
/* Frees the allocator memory of the frames. */
void tree_free(stream_reader *r);

/* ---- memory.c ------------------------------------------------------------ */

/* The arena of a new reader: 'lent' (stream_options.arena), reset, or a
** new one. */
coax_arena *stream_arena_take(const coax_allocator *alloc, coax_arena *lent);
/* The reader is done with 'a': reset when it was lent (its blocks kept for
** the next reader, up to a bound), else freed. */
void stream_arena_give(coax_arena *a, const coax_arena *lent);

/* Fail the reader (it stays failed) for memory, or a limit with a message. */
coax_code stream_oom(stream_reader *r, coax_error *err);
coax_code stream_limit(stream_reader *r, coax_code code, coax_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "parent/key" with RFC 6901's escapes (~0, ~1), or "parent/index" (key
** NULL), in 'a'; NULL when out of memory. */
char *stream_pointer(coax_arena *a, const char *parent, size_t plen, const char *key, size_t klen, size_t index,
                     size_t *outlen);

/* The JSON Pointer of the open container at depth 'd' (its length in
** frames[d].plen), built the first time it is asked for: most containers
** close unasked (with a schema and no partial, nothing asks). NULL: out of
** memory. */
const char *frame_ptr(stream_reader *r, size_t d);
/* Grows an array in the reader's arena to hold 'need' elements of 'size'
** bytes (doubling; the old block stays: a partial may still show it).
** Inline when there is room: every child, entry and pending part asks. */
bool stream_grow_to(stream_reader *r, void **p, size_t *cap, size_t need, size_t size);
static inline bool stream_grow(stream_reader *r, void **p, size_t *cap, size_t need, size_t size)
{
    return need <= *cap || stream_grow_to(r, p, cap, need, size);
}

/* ---- complete.c: with a schema ------------------------------------------ */

/* The subschema of a new container and whether its children may complete
** on their own (every ancestor plain, every key on the way declared, the
** root's type pinned); a container under a root key that may name an
** envelope makes that key undeclared (parent->key_sub NULL). */
void complete_frame(stream_reader *r, sframe *f, sframe *parent);
/* Whether the child being closed in 'f' may be complete on its own. */
static inline bool complete_child_final(const sframe *f)
{
    return f->children_final && (!f->object || f->key_sub);
}
/* The key of the member being read in 'f' is 'key': its declared
** subschema (key_sub, child_trivial). Returns the schema's own copy of the key when it declares it
** (it outlives the reader: no copy needed), else NULL. */
const char *complete_key(stream_reader *r, sframe *f, const char *key, size_t klen);
/* A closed child of frames[d] waits for its coerced value (inline: every
** part that closes below a plain container comes here). */
static inline coax_code complete_pend(stream_reader *r, size_t d, size_t index)
{
    if (!stream_grow(r, (void **)&r->pending, &r->pendingcap, r->npending + 1, sizeof *r->pending))
        return stream_oom(r, NULL);
    r->pending[r->npending++] = (spending){d, index, r->frames[d].child_trivial, NULL, NULL};
    return COAX_OK;
}
/* The frame at depth 'd' (pointer 'ptr', of 'plen' bytes; NULL when no
** error is kept) closed: its children wait no more, and their errors give
** way to its own, which its coerced value brings back. */
void complete_unpend(stream_reader *r, size_t d, const char *ptr, size_t plen);
/* Computes the coerced values and pointers of the parts pending (one
** skeleton), and their errors; partial.c then shows and lists them. */
coax_code complete_settle(stream_reader *r, coax_error *err);
/* The root closed: its value as coax_extract gives it for the candidate
** (the result kept whole in 'root_x', for stream_root_extract).
** When valid, the root is listed and the parts pending wait no more (their
** values are the root's business); else its errors wait in 'root_x' for
** complete_root_errors, once the pending parts are settled. */
coax_code complete_root(stream_reader *r, coax_error *err);
/* The root's errors that are not at or under a part listed complete. */
coax_code complete_root_errors(stream_reader *r, coax_error *err);

#endif
