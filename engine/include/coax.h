/*
** coax.h: the one public header of libcoax.
**
** coax turns language-model replies into JSON values that conform to a JSON
** Schema. This header is the manual: every type and function a host may use,
** with ownership, NULL handling, thread-safety and errors stated where they
** are declared.
**
** General rules (they hold for every function unless its comment says
** otherwise):
**
** - No globals. Nothing in libcoax keeps process-wide state; two arenas (or,
**   later, two engines) never interfere. An object is used from one thread at
**   a time; different objects may be used from different threads.
** - Memory. Every allocation coax makes goes through a coax_allocator. A NULL
**   allocator pointer means the C library's malloc/realloc/free.
** - Errors. Fallible functions return a coax_code; COAX_OK is 0. Where a
**   coax_error pointer is taken it may be NULL; when not NULL it is filled on
**   failure with the code, a one-line message and, where one exists, a byte
**   offset, line and column into the input.
** - Strings. Text in and out is UTF-8 with an explicit length; coax never
**   requires NUL termination of input, and every string it returns is also
**   NUL-terminated for convenience.
*/
#ifndef COAX_H
#define COAX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COAX_VERSION "0.1.0"

/* ------------------------------------------------------------------------ */
/* Result codes                                                             */
/* ------------------------------------------------------------------------ */

/* Codes are stable: new ones are appended, none is renumbered. */
typedef enum coax_code {
    COAX_OK = 0,
    COAX_ENOJSON,   /* no JSON value could be recovered from the text */
    COAX_ESYNTAX,   /* strict parsing: the text is not valid JSON */
    COAX_EDEPTH,    /* nesting deeper than coax_limits.max_depth */
    COAX_ESIZE,     /* input longer than coax_limits.max_input */
    COAX_ESTRING,   /* a string longer than coax_limits.max_string */
    COAX_ENOMEM,    /* the allocator returned NULL */
    COAX_EINVAL,    /* a bad argument (NULL where a value is required, ...) */
    COAX_EIO,       /* reading or writing a file or stream failed */
    COAX_ENOTFOUND, /* a JSON Pointer names no value */
    COAX_EUTF8,     /* strict parsing or building: invalid UTF-8 */
    COAX_CODE_COUNT /* not a code: the number of codes */
} coax_code;

/* A sentence describing 'code'. Never NULL; a static string, thread-safe. */
const char *coax_strerror(coax_code code);

/* The name of 'code' ("COAX_ENOJSON"). Never NULL; a static string. */
const char *coax_code_name(coax_code code);

/* The exit status the coax command uses for 'code' (design.md, "Contracts"):
** 0 success, 1 the answer is no, 2 usage, 3 agent, 4 limit, 5 script. */
int coax_exit_status(coax_code code);

/* Where and why something failed. 'offset' is a byte offset into the input,
** 'line' and 'column' are 1-based (column counts code points); all three are
** 0 when no position applies. */
typedef struct coax_error {
    coax_code code;
    size_t offset;
    uint32_t line;
    uint32_t column;
    char msg[192];
} coax_error;

/* ------------------------------------------------------------------------ */
/* Allocator and limits                                                     */
/* ------------------------------------------------------------------------ */

/* A host-supplied allocator, in the style of yyjson and Lua: every function
** receives 'ctx'. realloc and free receive the size the block was allocated
** with, so an allocator can account for memory without headers. malloc and
** realloc return NULL on failure; coax then fails cleanly with COAX_ENOMEM and
** leaks nothing. */
typedef struct coax_allocator {
    void *(*malloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t size);
    void (*free)(void *ctx, void *ptr, size_t size);
    void *ctx;
} coax_allocator;

/* Named limits, each with a default (SQLite's sqlite3_limit is the model).
** Functions that take a 'const coax_limits *' use the defaults for NULL. A
** field set to 0 also means its default. */
typedef struct coax_limits {
    size_t max_depth;  /* nesting of arrays and objects; default 512 */
    size_t max_input;  /* bytes of one input text; default 256 MiB */
    size_t max_string; /* bytes of one decoded string; default 64 MiB */
} coax_limits;

#define COAX_DEFAULT_MAX_DEPTH 512
#define COAX_DEFAULT_MAX_INPUT ((size_t)256 << 20)
#define COAX_DEFAULT_MAX_STRING ((size_t)64 << 20)
/* max_input and max_string larger than this (4 GiB - 1) are lowered to it:
** values store lengths in 32 bits. */
#define COAX_MAX_INPUT_CAP ((size_t)0xFFFFFFFFu)

/* Fills 'limits' with the defaults. 'limits' must not be NULL. */
void coax_limits_default(coax_limits *limits);

/* ------------------------------------------------------------------------ */
/* Arenas                                                                   */
/* ------------------------------------------------------------------------ */

/* An arena owns every value, string and log entry built in it; freeing the
** arena frees them all at once. Not thread-safe: one thread at a time. */
typedef struct coax_arena coax_arena;

/* Creates an arena that allocates through 'alloc' (NULL: the C library). The
** allocator struct is copied. Returns NULL when out of memory. */
coax_arena *coax_arena_new(const coax_allocator *alloc);

/* Frees the arena and everything allocated in it. NULL is a no-op. After the
** call every pointer obtained from the arena is invalid. */
void coax_arena_free(coax_arena *arena);

/* Bytes currently held by the arena from its allocator (for metrics). */
size_t coax_arena_size(const coax_arena *arena);

/* ------------------------------------------------------------------------ */
/* JSON values                                                              */
/* ------------------------------------------------------------------------ */

/* A JSON value lives in an arena and is immutable once built. Objects keep
** key order; a duplicate key in parsed text keeps the first key's position
** and the last key's value (as JavaScript's JSON.parse does). Numbers keep
** their text, so 12345678901234567890 and 1.10 print back as written.
** Strings are valid UTF-8 and may contain NUL bytes. */
typedef struct coax_value coax_value;

typedef enum coax_type {
    COAX_NULL = 0,
    COAX_BOOL,
    COAX_NUMBER,
    COAX_STRING,
    COAX_ARRAY,
    COAX_OBJECT
} coax_type;

/* The type of 'v'. */
coax_type coax_value_type(const coax_value *v);

/* The name of a type: "null", "boolean", "number", "string", "array",
** "object". Never NULL. */
const char *coax_type_name(coax_type type);

/* The boolean of a COAX_BOOL value; 0 for any other type. */
int coax_value_bool(const coax_value *v);

/* Non-zero when a COAX_NUMBER value is written without fraction or exponent
** (JSON Schema's "integer" also accepts 1.0; see coax_number_is_integral). */
int coax_number_is_int_text(const coax_value *v);

/* The value of a COAX_NUMBER as a double (nearest; +-HUGE_VAL on overflow);
** 0 for any other type. */
double coax_value_double(const coax_value *v);

/* For COAX_NUMBER: the number's text. For COAX_STRING: its bytes. NULL for
** other types. The pointer lives as long as the arena; '*len' (if 'len' is
** not NULL) receives the length in bytes. */
const char *coax_value_text(const coax_value *v, size_t *len);

/* The number of items of an array or members of an object; 0 otherwise. */
size_t coax_value_len(const coax_value *v);

/* Item 'i' of an array; NULL when out of range or not an array. */
const coax_value *coax_array_get(const coax_value *v, size_t i);

/* Key and value of member 'i' of an object; NULL when out of range or not
** an object. */
const char *coax_object_key(const coax_value *v, size_t i, size_t *len);
const coax_value *coax_object_value(const coax_value *v, size_t i);

/* The value of member 'key' of an object, or NULL. */
const coax_value *coax_object_get(const coax_value *v, const char *key,
                                  size_t len);

/* Structural equality as JSON Schema defines it: numbers compare exactly by
** value (1 == 1.0, big integers digit for digit), objects ignore key order.
** Returns 1 when equal, 0 when not, -1 when out of memory (values nested
** deeper than 32 levels need a temporary stack from 'alloc', NULL: libc). */
int coax_value_equal(const coax_value *a, const coax_value *b,
                     const coax_allocator *alloc);

/* RFC 6901 JSON Pointer: the value 'pointer' names inside 'root'.
** An empty pointer names 'root'. Returns COAX_OK and sets '*out', or
** COAX_EINVAL for a malformed pointer, COAX_ENOTFOUND when nothing is there. */
coax_code coax_pointer_get(const coax_value *root, const char *pointer,
                           size_t len, const coax_value **out);

/* Strict parsing (RFC 8259) of 'text' into a value in 'arena'. Whitespace
** around the value is allowed; anything else fails with COAX_ESYNTAX (or
** COAX_EUTF8, COAX_EDEPTH, COAX_ESIZE, COAX_ESTRING, COAX_ENOMEM) and 'err'
** tells where. On failure nothing is left allocated beyond what the arena
** holds, and the arena stays usable. */
coax_code coax_parse(coax_arena *arena, const char *text, size_t len,
                     const coax_limits *limits, coax_value **out,
                     coax_error *err);

/* Writer flags. */
#define COAX_WRITE_PRETTY 1u /* two-space indentation, one member a line */

/* Writes 'v' as JSON text into a buffer from 'alloc' (NULL: the C library).
** On success '*out' is a NUL-terminated string the caller frees with
** coax_free(alloc, *out, *len + 1), and '*len' its length. Output is valid
** JSON that coax_parse reads back as an equal value. */
coax_code coax_write(const coax_value *v, unsigned flags,
                     const coax_allocator *alloc, char **out, size_t *len);

/* Frees a block returned by coax_write (or any coax function that says so).
** 'size' is the size stated by that function. NULL 'ptr' is a no-op. */
void coax_free(const coax_allocator *alloc, void *ptr, size_t size);

/* ------------------------------------------------------------------------ */
/* Repair: recover a JSON value from a raw model reply                      */
/* ------------------------------------------------------------------------ */

/* One fix the repair made, at a position in the original input. 'kind' is a
** stable identifier ("trailing_comma", "unquoted_key", ...; the README lists
** them all) and 'detail' a short human sentence. Both are static strings. */
typedef struct coax_repair_entry {
    const char *kind;
    const char *detail;
    size_t offset;
    uint32_t line;
    uint32_t column;
} coax_repair_entry;

/* Where a candidate was found in the text. */
typedef enum coax_source {
    COAX_SOURCE_WHOLE = 0, /* the whole text */
    COAX_SOURCE_FENCED,    /* a ``` or ~~~ code block */
    COAX_SOURCE_TAGGED,    /* a <json>...</json>-style tag */
    COAX_SOURCE_PROSE,     /* a balanced {...} or [...] span in prose */
    COAX_SOURCE_SEQUENCE   /* concatenated values or NDJSON, as an array */
} coax_source;

/* The name of a source: "whole", "fenced", "tagged", "prose", "sequence". */
const char *coax_source_name(coax_source source);

/* A recovered value and how it was obtained. 'start' and 'end' are byte
** offsets of the span in the input. 'complete' is non-zero when the span
** needed no closing of truncated strings, arrays or objects. */
typedef struct coax_candidate {
    coax_value *value;
    coax_source source;
    size_t start, end;
    int complete;
    coax_repair_entry *log;
    size_t nlog;
} coax_candidate;

/* The result of coax_repair. Everything lives in the arena passed in. */
typedef struct coax_repair_result {
    coax_value *value;        /* the chosen candidate's value */
    size_t chosen;            /* its index in 'candidates' */
    coax_candidate *candidates; /* every candidate, in text order */
    size_t ncandidates;
    coax_repair_entry *log;   /* the chosen candidate's repair log */
    size_t nlog;
} coax_repair_result;

/* Recovers JSON from 'text' (any bytes, not necessarily NUL-terminated).
**
** Valid JSON takes a fast path: the same value and an empty log (except for
** duplicate keys, which are logged). Otherwise coax finds candidates (fenced
** blocks, tags, balanced spans in prose, the whole text, concatenated values
** as an array), repairs each with a lenient parser, and chooses: the last
** tagged or fenced candidate if any, else the last complete prose span that
** needed no repair, else the longest prose span, else the whole text.
**
** Returns COAX_OK and fills 'out'; COAX_ENOJSON when nothing is recoverable;
** COAX_EDEPTH, COAX_ESIZE, COAX_ESTRING or COAX_ENOMEM for limits. Never
** reads outside text[0..len). 'limits' may be NULL (defaults). */
coax_code coax_repair(coax_arena *arena, const char *text, size_t len,
                      const coax_limits *limits, coax_repair_result *out,
                      coax_error *err);

#ifdef __cplusplus
}
#endif
#endif /* COAX_H */
