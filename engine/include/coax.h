/*
** coax.h: the one public header of libcoax.
**
** coax turns language-model replies into JSON values that conform to a JSON
** Schema. This header is the manual: every type and function a host may use,
** with ownership, NULL, thread-safety and errors stated where they are
** declared. General rules (for every function unless its comment says not):
** - No globals. Nothing in libcoax keeps process-wide state; two arenas, or
**   two engines, never interfere. An object is used from one thread at a
**   time; different objects may be used from different threads.
** - Memory. Every allocation coax makes goes through a coax_allocator (NULL: the C library's malloc,
**   realloc, free; one with a NULL function is refused: COAX_EINVAL, or NULL from a _new function).
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
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COAX_VERSION "0.1.0"

/* Marks the functions of this header, the whole surface of libcoax: the
** library is built with -fvisibility=hidden, so libcoax.so exports these
** and nothing else (spec/surface_spec.lua compares the two). */
#if defined(__GNUC__) /* clang too */
#define COAX_API __attribute__((visibility("default")))
#else
#define COAX_API
#endif

/* ---- Result codes ----------------------------------------------------- */

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
    COAX_ESCHEMA,   /* an invalid JSON Schema (or an unresolvable reference) */
    COAX_ELIMIT,    /* a limit of validation (regex steps, reference cycle) */
    COAX_ESCRIPT,   /* a Lua script failed to load or raised an error */
    COAX_ECANCELED, /* the session stopped the host's reply (stream.stop_early) */
    COAX_CODE_COUNT /* not a code: the number of codes */
} coax_code;

/* A sentence describing 'code'. Never NULL; a static string, thread-safe. */
COAX_API const char *coax_strerror(coax_code code);

/* The name of 'code' ("COAX_ENOJSON"). Never NULL; a static string. */
COAX_API const char *coax_code_name(coax_code code);

/* The exit status the coax command uses for 'code': 0 success, 1 the answer
** is no, 2 usage, 3 agent, 4 limit, 5 script. */
COAX_API int coax_exit_status(coax_code code);

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

/* ---- Allocator and limits --------------------------------------------- */

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

/* Fills 'limits' with the defaults (NULL: nothing to fill). */
COAX_API void coax_limits_default(coax_limits *limits);

/* ---- Arenas ----------------------------------------------------------- */

/* An arena owns every value, string and log entry built in it; freeing the
** arena frees them all at once. Not thread-safe: one thread at a time. */
typedef struct coax_arena coax_arena;

/* Creates an arena that allocates through 'alloc' (NULL: the C library). The
** allocator struct is copied. Returns NULL when out of memory. */
COAX_API coax_arena *coax_arena_new(const coax_allocator *alloc);

/* Frees the arena and everything allocated in it. NULL is a no-op. After the
** call every pointer obtained from the arena is invalid. */
COAX_API void coax_arena_free(coax_arena *arena);

/* Frees everything allocated in the arena but keeps its memory for what is
** allocated next: a host that repairs, parses or validates one reply after
** another in one arena, resetting it between them, reuses the same blocks
** and stops calling its allocator. Every pointer obtained from the arena
** is invalid after the call. NULL is a no-op. */
COAX_API void coax_arena_reset(coax_arena *arena);

/* Gives the memory the arena keeps for reuse (what coax_arena_reset and
** failed attempts freed; at most 1024 blocks) back to its allocator.
** coax_arena_free does this too. NULL is a no-op. */
COAX_API void coax_arena_trim(coax_arena *arena);

/* Bytes currently held by the arena from its allocator, the memory kept
** for reuse included (for metrics). */
COAX_API size_t coax_arena_size(const coax_arena *arena);

/* ---- JSON values ------------------------------------------------------ */

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

/* The type of 'v'. The readers below take NULL (a member not found) as absent: COAX_NULL, no text nor items. */
COAX_API coax_type coax_value_type(const coax_value *v);

/* The name of a type: "null", "boolean", "number", "string", "array",
** "object". Never NULL. */
COAX_API const char *coax_type_name(coax_type type);

/* The boolean of a COAX_BOOL value; 0 for any other type. */
COAX_API int coax_value_bool(const coax_value *v);

/* Non-zero when a COAX_NUMBER value is written without fraction or exponent
** (JSON Schema's "integer" also accepts 1.0 and 1e2: coax_validate decides
** by value, not by text). */
COAX_API int coax_number_is_int_text(const coax_value *v);

/* The value of a COAX_NUMBER as a double (nearest; +-HUGE_VAL on overflow);
** 0 for any other type. */
COAX_API double coax_value_double(const coax_value *v);

/* For COAX_NUMBER: the number's text. For COAX_STRING: its bytes. NULL for
** other types. The pointer lives as long as the arena; '*len' (if 'len' is
** not NULL) receives the length in bytes. */
COAX_API const char *coax_value_text(const coax_value *v, size_t *len);

/* The number of items of an array or members of an object; 0 otherwise. */
COAX_API size_t coax_value_len(const coax_value *v);

/* Item 'i' of an array; NULL when out of range or not an array. */
COAX_API const coax_value *coax_array_get(const coax_value *v, size_t i);

/* Key and value of member 'i' of an object; NULL when out of range or not
** an object. */
COAX_API const char *coax_object_key(const coax_value *v, size_t i, size_t *len);
COAX_API const coax_value *coax_object_value(const coax_value *v, size_t i);

/* The value of member 'key' of an object, or NULL. */
COAX_API const coax_value *coax_object_get(const coax_value *v, const char *key, size_t len);

/* Structural equality as JSON Schema defines it: numbers compare exactly by
** value (1 == 1.0, big integers digit for digit), objects ignore key order.
** n log n in the values' size at worst (objects whose keys are in another
** order are compared through their members sorted by key). Returns 1 when
** equal, 0 when not, -1 when out of memory (values nested deeper than 32
** levels, and reordered objects, need temporary memory from 'alloc', NULL:
** libc). */
COAX_API int coax_value_equal(const coax_value *a, const coax_value *b, const coax_allocator *alloc);

/* RFC 6901 JSON Pointer: the value 'pointer' names inside 'root'.
** An empty pointer names 'root'. Returns COAX_OK and sets '*out', or
** COAX_EINVAL for a malformed pointer, COAX_ENOTFOUND when nothing is there. */
COAX_API coax_code coax_pointer_get(const coax_value *root, const char *pointer, size_t len, const coax_value **out);

/* Strict parsing (RFC 8259) of 'text' into a value in 'arena'. Whitespace
** around the value is allowed; anything else fails with COAX_ESYNTAX (or
** COAX_EUTF8, COAX_EDEPTH, COAX_ESIZE, COAX_ESTRING, COAX_ENOMEM) and 'err'
** tells where. On failure nothing is left allocated beyond what the arena
** holds, and the arena stays usable. */
COAX_API coax_code coax_parse(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                              coax_value **out, coax_error *err);

/* Writer flags. */
#define COAX_WRITE_PRETTY 1u /* two-space indentation, one member a line */

/* Writes 'v' as JSON text into a buffer from 'alloc' (NULL: the C library).
** On success '*out' is a NUL-terminated string the caller frees with
** coax_free(alloc, *out, *len + 1), and '*len' its length. Output is valid
** JSON that coax_parse reads back as an equal value. */
COAX_API coax_code coax_write(const coax_value *v, unsigned flags,
                              const coax_allocator *alloc, char **out, size_t *len);

/* Frees a block returned by coax_write (or any coax function that says so).
** 'size' is the size stated by that function. NULL 'ptr' is a no-op. */
COAX_API void coax_free(const coax_allocator *alloc, void *ptr, size_t size);

/* ---- Repair: recover a JSON value from a raw model reply -------------- */

/* How sure coax is that a repair or coercion kept the model's meaning.
** Ordered: a higher class is less certain. */
typedef enum coax_class {
    COAX_CLASS_LOSSLESS = 0, /* the meaning is certain (fences, trailing commas, quote styles) */
    COAX_CLASS_INFERRED = 1, /* one obvious reading (a missing comma between complete members) */
    COAX_CLASS_INVENTED = 2  /* structure or content was guessed (text turned into a key) */
} coax_class;

/* The name of a class: "lossless", "inferred", "invented"; else "unknown". */
COAX_API const char *coax_class_name(coax_class cls);

/* The class named 'name' ("lossless", "inferred", "invented") into '*out':
** returns 1, or 0 (and leaves '*out') for any other name or NULL. */
COAX_API int coax_class_parse(const char *name, coax_class *out);

/* One fix the repair made, at a position in the original input. 'kind' is a
** stable identifier ("trailing_comma", "unquoted_key", ...; the README lists
** them all) and 'detail' a short human sentence. Both are static strings.
** 'cls' is the fix's confidence class. */
typedef struct coax_repair_entry {
    const char *kind;
    const char *detail;
    size_t offset;
    uint32_t line;
    uint32_t column;
    coax_class cls;
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
COAX_API const char *coax_source_name(coax_source source);

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
** as an array), repairs each with a lenient parser, and chooses (the rule
** of the README's "coax repair"): the last fenced or tagged block, complete
** ones before truncated ones; else the whole text, when it is nothing but
** values; in both, an object or array before a bare scalar beside it; else
** the last complete object in prose, else the last complete array, else a
** truncated span; else whatever the whole text gave. A candidate that
** needed an invented repair (entry class COAX_CLASS_INVENTED) is chosen only
** when no other exists: the value may be a guess (the log says), which
** coax_extract refuses (`coax repair` is coax_extract with the schema true).
** A span over a limit (depth, string length) is a rejected candidate; the
** limit is returned only when no candidate is left.
**
** Returns COAX_OK and fills 'out'; COAX_ENOJSON when nothing is recoverable;
** COAX_EDEPTH, COAX_ESIZE, COAX_ESTRING or COAX_ENOMEM for limits (depth and
** string length only when every candidate was over them). Never
** reads outside text[0..len). 'limits' may be NULL (defaults). */
COAX_API coax_code coax_repair(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                               coax_repair_result *out, coax_error *err);

/* ---- JSON Schema: compile once, validate many times ------------------- */

/* A compiled schema: immutable once compiled, so one compiled schema may be
** used by any number of validations at once, from several threads, as long
** as its allocator is thread-safe (matching regular expressions allocates
** through it). */
typedef struct coax_schema coax_schema;

/* The drafts coax implements. A schema's "$schema" chooses; without one the
** host's choice applies (coax_schema_options.draft), else 2020-12. */
typedef enum coax_draft {
    COAX_DRAFT_AUTO = 0,
    COAX_DRAFT_4 = 4,
    COAX_DRAFT_6 = 6,
    COAX_DRAFT_7 = 7,
    COAX_DRAFT_2019_09 = 2019,
    COAX_DRAFT_2020_12 = 2020
} coax_draft;

/* "2020-12", "2019-09", "7", "6", "4" (also "draft7", "draft-07",
** "draft2020-12"); COAX_DRAFT_AUTO for anything else. 'name' may be NULL. */
COAX_API coax_draft coax_draft_parse(const char *name);

/* "2020-12", "2019-09", "7", "6", "4"; "auto" for COAX_DRAFT_AUTO; else "unknown". */
COAX_API const char *coax_draft_name(coax_draft draft);

/* A host-supplied resolver for references to documents coax does not hold
** (coax never touches the network). Called during coax_schema_compile with
** an absolute URI without fragment. On success it builds the document in
** 'arena' (coax_parse is the usual way), sets '*out' and returns COAX_OK;
** COAX_ENOTFOUND when it has no such document (the reference is then
** unresolvable: COAX_ESCHEMA); any other code stops compilation with it. */
typedef coax_code (*coax_schema_resolver)(void *ud, const char *uri,
                                          coax_arena *arena, coax_value **out,
                                          coax_error *err);

#define COAX_DEFAULT_MAX_SCHEMA_DEPTH 1024
#define COAX_DEFAULT_MAX_REGEX_STEPS 1000000u

#define COAX_SCHEMA_NO_META 1u /* skip checking the schema against its meta-schema */
/* "format": by default it asserts in drafts 4, 6 and 7 (their text asks
** for validation) and the 2020-12 format-assertion vocabulary, and is an
** annotation in 2019-09 and 2020-12 (schemas an extraction compiles itself
** assert). Checked: date-time, date, time, duration, email, idn-email,
** hostname, idn-hostname, ipv4, ipv6, uri, uri-reference, iri,
** iri-reference, uuid, uri-template, json-pointer, relative-json-pointer,
** regex; any other name is an annotation. */
#define COAX_SCHEMA_ASSERT_FORMAT 2u
#define COAX_SCHEMA_ANNOTATE_FORMAT 4u

/* The official meta-schemas, compiled once for the checks of the
** compilations that share the cache (at most 8: one per URI and "format"
** flags), one compilation at a time; the schemas made do not need it. */
typedef struct coax_meta_cache coax_meta_cache;
COAX_API coax_meta_cache *coax_meta_cache_new(const coax_allocator *alloc);
COAX_API void coax_meta_cache_free(coax_meta_cache *cache);

/* Options of coax_schema_compile; NULL means all defaults, and a zero field
** its default. */
typedef struct coax_schema_options {
    coax_draft draft;               /* for schemas without "$schema"; AUTO: 2020-12 */
    coax_schema_resolver resolve;   /* NULL: only embedded meta-schemas and remote_dir */
    void *resolve_ud;
    /* A folder that holds the documents under a URI prefix: with
    ** remote_base "http://localhost:1234/", the URI
    ** http://localhost:1234/a/b.json is the file remote_dir/a/b.json. Tried
    ** after 'resolve'. Paths with ".." segments are refused. */
    const char *remote_dir;
    const char *remote_base;
    /* Nesting of subschema evaluation (each applicator or reference entered
    ** is one level): deeper is COAX_EDEPTH. Default 1024. It also bounds the
    ** nesting of schema documents at compile time. */
    size_t max_depth;
    uint32_t max_regex_steps;       /* steps of one regex match; default 1000000 */
    unsigned flags;                 /* COAX_SCHEMA_* */
    /* The work of one validation, in steps: a subschema applied to a
    ** value, a keyword run, an item or member visited, a value of "enum"
    ** or "const" compared, 64 bytes of a string read. A schema whose
    ** subschemas fan out (each of 40 $defs referencing the next twice is
    ** 2^40 applications) ends with COAX_ELIMIT instead of running for
    ** days. 0: the default, twice the schema's size (the subschemas and
    ** keywords a validation can apply, $dynamicRef targets too) times the
    ** instance's (values, members, string bytes / 64), at most 1024 times
    ** the two summed (linear), at least COAX_DEFAULT_MIN_STEPS. */
    uint64_t max_steps;
    /* Regular-expression steps of one validation, summed over every match
    ** ("pattern", "patternProperties", patterns under "propertyNames",
    ** "format": "regex"), where max_regex_steps bounds one match: more is
    ** COAX_ELIMIT. 0: the default, 64 per value, member and string byte of
    ** the instance, at least COAX_DEFAULT_MIN_REGEX_TOTAL. */
    uint64_t max_regex_total;
    /* Bytes of one validation's error units (locations, messages), and of its annotations' locations:
    ** more is COAX_ELIMIT. Default COAX_DEFAULT_MAX_ERROR_BYTES (64 MiB). */
    size_t max_error_bytes;
    /* URI text read resolving "$id"s and references (but "#..."): more is COAX_ELIMIT. 0: 64 MiB */
    size_t max_uri_bytes;
    coax_meta_cache *meta_cache; /* NULL: the meta-schema is compiled for the check */
} coax_schema_options;

#define COAX_DEFAULT_MIN_STEPS 1000000u
#define COAX_DEFAULT_MIN_REGEX_TOTAL 10000000u
#define COAX_DEFAULT_MAX_ERROR_BYTES ((size_t)64 << 20)

/* Compiles 'schema' (any JSON value; a boolean is a schema too), a copy:
** 'schema' may be freed after the call. Every reference is resolved now, in
** this order: the schema's own resources, the embedded official meta-schemas
** (drafts 4, 6, 7, 2019-09, 2020-12), the resolver, remote_dir. The schema
** is checked against its meta-schema (unless COAX_SCHEMA_NO_META).
**
** Returns COAX_OK and sets '*out' (free it with coax_schema_free);
** COAX_ESCHEMA for an invalid schema, an unknown "$schema" or an
** unresolvable reference, with 'err->msg' naming the location in the
** schema; COAX_EDEPTH, COAX_ENOMEM, or a code from the resolver. On failure
** nothing is left allocated. 'alloc' NULL: the C library; the allocator
** struct is copied. 'schema' and 'out' must not be NULL. */
COAX_API coax_code coax_schema_compile(const coax_value *schema, const coax_schema_options *options,
                                       const coax_allocator *alloc, coax_schema **out, coax_error *err);

/* Frees a compiled schema. NULL is a no-op. */
COAX_API void coax_schema_free(coax_schema *schema);

/* The draft of the schema's root resource (NULL: COAX_DRAFT_AUTO). */
COAX_API coax_draft coax_schema_draft(const coax_schema *schema);

/* One validation error, in the JSON Schema output format's words. */
typedef struct coax_schema_error {
    const char *instance_location;          /* JSON Pointer into the instance */
    const char *keyword_location;           /* evaluation path, through references */
    const char *absolute_keyword_location;  /* NULL unless a reference was crossed */
    const char *message;                    /* "expected integer, got string \"12\"" */
    /* The subschemas the error is nested in, outermost first: for each,
    ** the lengths of keyword_location and instance_location where it
    ** begins (2 * nnesting values; the detailed output groups by them). */
    const uint32_t *nesting;
    size_t nnesting;
} coax_schema_error;

/* One annotation: the value of an annotation keyword ("title",
** "description", "default", "examples", "readOnly", "writeOnly",
** "deprecated", "format", "contentEncoding", "contentMediaType",
** "contentSchema") of a subschema that passed. */
typedef struct coax_schema_annotation {
    const char *instance_location;          /* JSON Pointer into the instance */
    const char *keyword_location;           /* evaluation path, through references */
    const char *absolute_keyword_location;  /* NULL unless a reference was crossed */
    const coax_value *value;                /* the keyword's value, in the compiled schema */
} coax_schema_annotation;

/* The result of coax_validate; everything lives in the arena passed in
** (annotation values in the compiled schema: valid while it lives). */
typedef struct coax_validation {
    int valid;
    coax_schema_error *errors; /* every error, in evaluation order */
    size_t nerrors;
    /* With COAX_VALIDATE_ANNOTATIONS and a valid instance: the annotations
    ** of every subschema that passed, in evaluation order (a failing
    ** subschema, and a failed validation, keep none). */
    coax_schema_annotation *annotations;
    size_t nannotations;
} coax_validation;

#define COAX_VALIDATE_FIRST 1u       /* stop at the first error (the "flag" output) */
#define COAX_VALIDATE_ANNOTATIONS 2u /* collect annotations (coax_validation.annotations) */

/* Validates 'instance' against 'schema', collecting every error (or only
** whether it is valid, with COAX_VALIDATE_FIRST). Errors inside subschemas
** whose failure does not matter (a failing anyOf branch when another
** matches, "if", "not") are not reported.
**
** Returns COAX_OK and fills '*out' (strings in 'arena'): the answer is in
** out->valid. Fails with COAX_EDEPTH when evaluation nests deeper than
** max_depth, COAX_ELIMIT when a regular expression exceeds its steps, the
** validation its step budget (max_steps) or its regex budget
** (max_regex_total), or a reference cycle never consumes the instance
** ({"$ref": "#"}), COAX_ENOMEM.
** Thread-safe for one schema and different arenas. No argument may be
** NULL except 'err'. */
COAX_API coax_code coax_validate(const coax_schema *schema, const coax_value *instance, coax_arena *arena,
                                 unsigned flags, coax_validation *out, coax_error *err);

/* The output formats of the specification. */
typedef enum coax_output {
    COAX_OUTPUT_FLAG = 0, /* {"valid": false} */
    COAX_OUTPUT_BASIC,    /* {"valid": false, "errors": [unit, ...]}: a flat list */
    COAX_OUTPUT_DETAILED  /* units nested as the schema nests them */
} coax_output;

/* "flag", "basic", "detailed"; -1 for anything else (or NULL). */
COAX_API int coax_output_parse(const char *name);

/* Writes 'result' as one line of compact JSON (no newline) into a buffer
** from 'alloc' (NULL: the C library); free '*out' with coax_free(alloc,
** *out, *len + 1). A unit is {"instanceLocation", "keywordLocation",
** "absoluteKeywordLocation" (only when set), "error"}; an annotation unit
** has "annotation" (the keyword's value) instead of "error". In detailed,
** every unit also has "valid", and a group below a reference its
** "absoluteKeywordLocation" when it can be told. A valid result
** with annotations is {"valid": true, "annotations": [unit, ...]} in basic,
** with the root's "instanceLocation" and "keywordLocation" in detailed;
** flag never lists them. */
COAX_API coax_code coax_validation_write(const coax_validation *result, coax_output format,
                                         const coax_allocator *alloc, char **out, size_t *len);

/* ---- Extract: schema-aligned recovery without another model call ------ */

/* One coercion: a value that was right in substance and wrong in form.
** 'kind' is a stable name, with its class:
**   lossless: "float_to_integer" (2.0 -> 2);
**   inferred: "string_to_integer", "string_to_number", "string_to_boolean",
**   "number_to_string", "wrap_in_array", "unwrap_array", "enum_match",
**   "const_match" (ignoring case, after Unicode NFC), "default_filled",
**   "key_renamed" (" Answer " -> "answer"), "property_dropped",
**   "envelope_unwrapped" (only for a key that names the whole answer),
**   "bare_scalar" (a reply that is one scalar: TWO, **42**).
** No coercion is invented, and none drops, renames or fills a value a
** repair invented. 'pointer' is the JSON Pointer of the place changed (in
** the result value), 'detail' a sentence. 'kind' and 'detail' are static;
** 'pointer' lives in the arena. */
typedef struct coax_coercion {
    const char *kind;
    const char *pointer;
    const char *detail;
    coax_class cls; /* the coercion's confidence class */
} coax_coercion;

#define COAX_EXTRACT_STRICT 1u  /* no coercion: repair, validate, choose */
/* CUT_OFF: the provider said the reply was cut off (finish "length"): a
** value that needed closing brackets is never complete. FINISHED: it said
** the model stopped ("stop"): a number an open reply ends on ended there. */
#define COAX_EXTRACT_CUT_OFF 2u
#define COAX_EXTRACT_FINISHED 4u

/* Options of coax_extract. NULL means the defaults: no flags and
** 'max_class' COAX_CLASS_INFERRED. Unlike coax_limits, a zero 'max_class'
** is a choice (COAX_CLASS_LOSSLESS, the strictest), never a default:
** start from coax_extract_options_default. */
typedef struct coax_extract_options {
    unsigned flags;        /* COAX_EXTRACT_* */
    coax_class max_class;  /* the least certain repair a value may depend on */
} coax_extract_options;

/* Fills 'options' with the defaults (NULL: nothing to fill). */
COAX_API void coax_extract_options_default(coax_extract_options *options);

/* The result of coax_extract; everything lives in the arena passed in. */
typedef struct coax_extract_result {
    int valid;                    /* 'value' validates against the schema */
    const coax_value *value;      /* the best candidate, coerced */
    size_t candidate;             /* its index in repair.candidates */
    coax_repair_result repair;    /* all candidates; repair.log is the best one's */
    coax_coercion *coercions;     /* the best candidate's coercions, in order */
    size_t ncoercions;
    coax_validation validation;   /* of 'value': the errors when !valid */
    /* The repair 'value' was refused for (its class is less certain than
    ** the options' max_class; the first error names it), or NULL. An entry
    ** of repair.log. */
    const coax_repair_entry *refused;
} coax_extract_result;

/* Recovers from 'text' the value that best fits 'schema'.
**
** Every candidate coax_repair finds (fences, tags, prose spans, the whole
** text, concatenated values as an array) is checked against the options'
** 'max_class': a candidate whose repair log holds a repair of a less
** certain class is never valid, and its first error names that repair and
** where it is ("unreadable text at line 1, column 40 (a key was guessed
** from text not written as one: '000.00'); send valid JSON"). Each is
** validated and, unless COAX_EXTRACT_STRICT, coerced: a coercion is applied only where the schema
** rejects the value and the change makes that location pass without new
** errors; the work is a bounded number of validations of the candidate,
** whatever its number of errors. A single-key envelope ({"result": {...}})
** is unwrapped when only the inner value fits and its key names the whole
** answer. A scalar candidate counts only when it is the whole reply (or
** the whole of its block), give or take spaces, a final period and
** surrounding quotes, backticks or "**" ("2 or 3" is not 2); for a schema
** asking for one scalar, a bare reply ("TWO", "**42**") is read as that
** scalar when no candidate is valid (or, read as a JSON scalar, `"hi"`,
** over a whole-text candidate that needed repairs), and then it joins
** out->repair's candidates as the whole text. Candidates are scored: valid
** first, then fewer invented repairs, fewer errors, complete before
** truncated, fewer inferred repairs, fewer coercions, and the last one on
** a tie. A truncated candidate is never valid: its first error says the
** reply was cut off. A candidate that is not complete is truncated unless
** its only closing was brackets missing at the very end after a complete
** member (an inferred closed_bracket) and COAX_EXTRACT_CUT_OFF is not set:
** a string, key or comma cut off, a number the text ends on ({"n": 12 of
** 1234?) unless COAX_EXTRACT_FINISHED, an unclosed fence or tag, or a
** provider's cut all make it truncated. Coercion looks keywords up in the
** document 'schema' was compiled from (local "$ref"s are followed).
** Returns COAX_OK with out->valid saying whether the value validates (the
** errors are in out->validation); COAX_ENOJSON when the text holds no JSON (nor a bare scalar the
** schema accepts) or a control byte (not a tab or line break); a limit met by any candidate (COAX_EDEPTH,
** COAX_ESIZE, COAX_ESTRING, COAX_ELIMIT) or COAX_ENOMEM. 'limits', 'options' may be NULL. */
COAX_API coax_code coax_extract(coax_arena *arena, const coax_schema *schema,
                                const char *text, size_t len,
                                const coax_limits *limits,
                                const coax_extract_options *options,
                                coax_extract_result *out, coax_error *err);

/* ---- Example instances ------------------------------------------------ */

#define COAX_EXAMPLE_MINIMAL 1u /* required properties only, minItems items */

/* Options of coax_example; NULL means all defaults, a zero field its
** default. */
typedef struct coax_example_options {
    size_t max_depth; /* nesting of the instance; default 32, at most 256 */
    size_t max_steps; /* subschemas visited, a bound on time; default 20000.
                      ** Checking the candidates draws on one budget of 500
                      ** validation steps (and 500 regex steps) per step:
                      ** when it runs dry the example ends with COAX_ELIMIT */
    unsigned flags;   /* COAX_EXAMPLE_* */
} coax_example_options;

/* The result of coax_example; everything lives in the arena passed in. */
typedef struct coax_example_result {
    int valid;                  /* 'value' validates against the schema */
    const coax_value *value;    /* the example; when !valid the closest
                                ** attempt (NULL when nothing was built) */
    coax_validation validation; /* when !valid and value: its errors */
    size_t checks;              /* candidates validated along the way */
    unsigned limited;           /* when !valid: the COAX_EXAMPLE_HIT_* that cut it */
} coax_example_result;

#define COAX_EXAMPLE_HIT_DEPTH 1u /* options->max_depth was reached */
#define COAX_EXAMPLE_HIT_STEPS 2u /* options->max_steps was used up */
#define COAX_EXAMPLE_HIT_SIZE 4u  /* an array needed more than the most items: */
#define COAX_EXAMPLE_MAX_ITEMS 65536 /* an example's array, whatever max_steps */
/* Builds an instance that validates against 'schema': what a model is shown
** when it asks for an example, what a recipe author reads to see a schema.
**
** The compiled schema is walked with every reference resolved as the
** validator resolves it (local, $defs/definitions, $id, anchors, remote).
** For each subschema coax tries, in order: allOf merged with reference
** targets; anyOf and oneOf branches and if/then/else, first to last; the
** schema's "examples", "default", "const" and "enum" values; then each
** allowed type built from the keywords: numbers inside minimum/maximum
** (exclusive or not) on a multipleOf, strings of the right length from a
** "format" (a real date, date-time, time, email, hostname, ipv4, ipv6, uri,
** uuid, duration, ...) or a "pattern", arrays with minItems items (at
** least one), prefixItems, contains and distinct items under uniqueItems,
** objects with every declared property (required ones at least),
** dependentRequired, dependentSchemas, minProperties and propertyNames.
** Every candidate is validated before it is kept and the whole instance
** once more at the end, so a valid result is never wrong; the same schema
** always gives the same example. Recursive schemas end: once a subschema
** recurs within itself the rest is minimal (required properties only,
** branches that do not recur first), nesting is bounded by
** options->max_depth and work by options->max_steps.
**
** Returns COAX_OK and fills '*out': out->valid says whether an instance was
** found. When not (a schema nothing satisfies, like false, or one beyond
** what the generator can build), out->value is the closest attempt and
** out->validation its errors. COAX_ELIMIT or COAX_EDEPTH when validating
** every candidate hit a validation limit ({"$ref": "#"}) or the checks
** used up their budget (max_steps x 500: a schema that fans out);
** COAX_ENOMEM; COAX_EINVAL for a NULL argument. On failure '*out' is zeroed. Thread-safe
** for one schema and different arenas. 'options' and 'err' may be NULL. */
COAX_API coax_code coax_example(const coax_schema *schema,
                                const coax_example_options *options, coax_arena *arena,
                                coax_example_result *out, coax_error *err);

/* ---- Engines and sessions: the retry loop ----------------------------- */

/* An engine owns one Lua state (sandboxed: the README's "Limits and
** security"), its scheduler and its sessions. It starts no thread (libcurl resolves a host name on one that
** ends with the lookup) and never blocks longer than a poll's timeout. One engine, one thread at a time. */
typedef struct coax_engine coax_engine;

/* One extraction: a bounded series of attempts. It belongs to its engine. */
typedef struct coax_session coax_session;

#define COAX_DEFAULT_LUA_MEMORY ((size_t)64 << 20)  /* bytes, the whole Lua state */
#define COAX_DEFAULT_LUA_INSTRUCTIONS 10000000u    /* per call into a script (an agent's: 16 over its resumes) */
#define COAX_DEFAULT_MAX_ATTEMPTS 3
#define COAX_DEFAULT_HTTP_CONNECT_TIMEOUT_MS 10000L
#define COAX_DEFAULT_HTTP_TIMEOUT_MS 600000L
#define COAX_DEFAULT_HTTP_MAX_RESPONSE ((size_t)32 << 20)

/* One line of the engine's log: a line per HTTP request and per response
** (method, URL, status, time, sizes). Authorization headers are never
** logged and key-like URL parts are redacted. Called from inside
** coax_engine_poll; 'line' is valid during the call. */
typedef void (*coax_log_fn)(void *ud, const char *line);

/* The value of the secret 'name' (an API key a script asked for with
** coax.secret), or NULL when there is none or scripts may not have it.
** Scripts never see the value: it goes into a request's header when the
** request is made, and is redacted from what the response hands back.
** Called from inside coax_engine_poll, or a session's making (its recipe runs then: frees wait as in a poll);
** the value must stay valid until the engine is polled again. */
typedef const char *(*coax_secret_fn)(void *ud, const char *name);

typedef struct coax_engine_options {
    const coax_allocator *alloc; /* NULL: the C library; the struct is copied */
    /* The folder holding the coax scripts (coax/runtime.lua, ...). NULL: $COAX_LUA_PATH, else "lua" when
    ** it holds coax/runtime.lua (a build tree), else the installed
    ** share folder (COAX_SHARE_DIR, /usr/local/share/coax/lua). Copied. */
    const char *script_dir;
    /* The folders, besides a recipe's own and the project's schemas/ (beside
    ** the scripts' folder), that a recipe may name files in (its schema):
    ** a NULL-terminated list, or NULL for none. A path outside them, after
    ** symlinks and ".." are resolved, makes the session invalid without the
    ** file being opened. Copied; a folder that cannot be resolved is
    ** COAX_EIO from coax_engine_new. */
    const char *const *allow_dirs;
    size_t lua_memory;         /* 0: COAX_DEFAULT_LUA_MEMORY */
    uint32_t lua_instructions; /* 0: COAX_DEFAULT_LUA_INSTRUCTIONS */
    coax_limits limits;        /* zero fields: defaults */
    /* HTTP (coax.http, the transport of agents; README, "Talking to
    ** models"). TLS peers are always verified; redirects are not followed;
    ** only http and https URLs are allowed. */
    long http_connect_timeout_ms; /* 0: COAX_DEFAULT_HTTP_CONNECT_TIMEOUT_MS */
    long http_timeout_ms;         /* a request's whole time when it sets none
                                  ** itself; 0: COAX_DEFAULT_HTTP_TIMEOUT_MS */
    size_t http_max_response;     /* headers and body of one response; past
                                  ** it the session ends with COAX_OUTCOME_LIMIT.
                                  ** 0: COAX_DEFAULT_HTTP_MAX_RESPONSE */
    /* NULL: the proxy the environment names (http_proxy, https_proxy, all_proxy, no_proxy, as curl reads
    ** them); "": none; else a proxy URL. Copied. */
    const char *proxy;
    const char *ca_file;          /* NULL: the system's CA certificates. Copied */
    coax_log_fn log;              /* NULL: no log */
    void *log_ud;
    coax_secret_fn secret;        /* NULL: environment variables named *_API_KEY */
    void *secret_ud;
} coax_engine_options;

/* Creates an engine: a Lua state with the sandbox and the runtime scripts
** loaded. 'options' may be NULL. Returns COAX_OK and sets '*out'; COAX_EIO
** when the scripts are not found; COAX_ESCRIPT when they fail to load (the
** message holds the Lua error); COAX_ENOMEM. Free with coax_engine_free. */
COAX_API coax_code coax_engine_new(const coax_engine_options *options, coax_engine **out, coax_error *err);

/* Frees the engine, its sessions and its Lua state. NULL is a no-op. */
COAX_API void coax_engine_free(coax_engine *engine);

/* Stops every script the engine runs, now and from then on: the running one within its next 1000 Lua
** instructions. Sessions then end with the outcome limit ("script stopped: the host interrupted it"). For a
** host that is shutting down; async-signal-safe (it sets a flag), so a signal handler may call it. */
COAX_API void coax_engine_interrupt(coax_engine *engine);

/* Advances every session (a pass starts one attempt a session at most), then waits for timers and HTTP at most
** 'timeout_ms' (0: never; past it, it returns within 64 passes, or once they cost one script call's budget).
** Requests in flight move at every poll. Returns the sessions still running (in a callback: moves nothing). */
COAX_API size_t coax_engine_poll(coax_engine *engine, int timeout_ms);

/* How a session ended. */
typedef enum coax_outcome {
    COAX_OUTCOME_RUNNING = 0,  /* not ended yet */
    COAX_OUTCOME_OK,           /* a value was accepted */
    COAX_OUTCOME_EXHAUSTED,    /* attempts used up, whatever the last failure was */
    COAX_OUTCOME_AGENT_ERROR,  /* transport or provider, after the agent's own retries */
    COAX_OUTCOME_LIMIT,        /* tokens, deadline, Lua memory or instructions, a limit, out of memory */
    COAX_OUTCOME_SCRIPT_ERROR, /* a recipe, template, strategy or agent raised an error */
    COAX_OUTCOME_INVALID       /* invalid schema or recipe, before any model call */
} coax_outcome;

/* "running", "ok", "exhausted", "agent_error", "limit", "script_error", "invalid". */
COAX_API const char *coax_outcome_name(coax_outcome outcome);

/* The exit status of the coax command for an outcome: 0 ok, 1 exhausted,
** 2 invalid, 3 agent_error, 4 limit, 5 script_error. */
COAX_API int coax_outcome_exit_status(coax_outcome outcome);

/* Why a session failed, finer than its outcome: each failure belongs to one
** outcome (in brackets). Its name (coax_failure_name) is the report's
** error.code. */
typedef enum coax_session_failure {
    COAX_FAILURE_NONE = 0,              /* "none": the session runs, or succeeded */
    COAX_FAILURE_EXHAUSTED,             /* "exhausted": attempts used up [exhausted] */
    COAX_FAILURE_AGENT_ERROR,           /* "agent_error": the transport, the provider or the host
                                        ** failed, or the reply had no text [agent_error] */
    COAX_FAILURE_REFUSAL,               /* "refusal": the model declined [agent_error] */
    COAX_FAILURE_TOKENS,                /* "tokens": the token budget would be passed [limit] */
    COAX_FAILURE_DEADLINE,              /* "deadline": the session's deadline passed [limit] */
    COAX_FAILURE_TOOL_ROUNDS,           /* "tool_rounds": tools mode's rounds used up [limit] */
    COAX_FAILURE_SCRIPT_LIMIT,          /* "limit": Lua memory or instructions, an HTTP response's
                                        ** size, the host's interrupt [limit] */
    COAX_FAILURE_OUT_OF_MEMORY,         /* "out_of_memory" [limit] */
    COAX_FAILURE_REPLY_LIMIT,           /* "reply_limit": a reply past a coax_limits limit [limit];
                                        ** the report's code is the limit's ("COAX_EDEPTH", ...) */
    COAX_FAILURE_SCHEMA_LIMIT,          /* "schema_limit": the schema past a limit [limit] */
    COAX_FAILURE_SCRIPT_ERROR,          /* "script_error": a script raised an error [script_error] */
    COAX_FAILURE_INVALID_RECIPE,        /* "invalid_recipe" [invalid] */
    COAX_FAILURE_INVALID_SCHEMA,        /* "invalid_schema": not JSON, or not a schema [invalid] */
    COAX_FAILURE_INVALID_AGENT_OPTIONS, /* "invalid_agent_options": agent_json not an object [invalid] */
    COAX_FAILURE_COUNT                  /* not a failure: the number of them */
} coax_session_failure;

/* The name of a failure (above, in quotes); "unknown" outside the enum. A
** static string. */
COAX_API const char *coax_failure_name(coax_session_failure failure);

/* An event of a session: "attempt_start", "reply", "parse_error",
** "validation_error", "rejection", "success", "partial" (a streamed
** reply's value so far; README, "Streaming") and, for the host only,
** "failure". 'data', a JSON object ({"attempt": n, ...}), is valid during
** the call. Called from inside coax_engine_poll or coax_session_run, which a callback may call: they then
** move nothing (the poll outside goes on); coax_session_free and coax_engine_free there take effect when
** that poll returns (nothing more is told; a freed engine's poll returns 0). */
typedef void (*coax_event_fn)(void *ud, coax_session *session, const char *name, const char *data);

/* The host's business rules on a value that validated, after the recipe's own on_submit accepted it: return
** true to accept it, or false to reject it with a reason (written to 'reason', at most 'cap' bytes with the
** NUL), which the model gets as feedback, as for a rejection in Lua. 'value' is compact JSON, valid during the
** call; called as events are (just above). */
typedef bool (*coax_submit_fn)(void *ud, coax_session *session, const char *value, size_t len, char *reason,
                               size_t cap);

/* Options of a session; zero fields are defaults. Strings are copied. */
typedef struct coax_session_options {
    const char *input;      /* the input the prompt is made from */
    size_t input_len;
    int max_attempts;       /* 0: the recipe's, else COAX_DEFAULT_MAX_ATTEMPTS */
    /* The agent's options as a JSON object, merged over the recipe's agent
    ** table ({"name": "replay", "replies": [...]}). NULL: none. */
    const char *agent_json;
    coax_event_fn on_event; /* NULL: none */
    void *event_ud;
    coax_submit_fn on_submit; /* NULL: none */
    void *submit_ud;
    /* The command the "command" agent runs (`/bin/sh -c COMMAND`, the
    ** prompt on stdin, the reply from stdout). Only the host can name it:
    ** a recipe cannot. NULL: none (the command agent then fails). */
    const char *command;
} coax_session_options;

/* Starts a session from a recipe file (a Lua file returning a table; a
** relative "schema" path is relative to the recipe). Nothing runs until
** the engine is polled. Recipe or schema problems do not fail the call: the
** session ends at once with outcome COAX_OUTCOME_INVALID and says why in its
** report. Returns COAX_OK and sets '*out', COAX_EIO for an unreadable file or not a regular one (a FIFO,
** a device), COAX_ESIZE for a recipe or input past lua_memory, COAX_EINVAL for bad arguments, COAX_ENOMEM,
** COAX_ECANCELED when a callback freed the engine meanwhile (*out NULL). Freed by coax_session_free or its engine. */
COAX_API coax_code coax_session_from_file(coax_engine *engine, const char *path, const coax_session_options *options,
                                          coax_session **out, coax_error *err);

/* The same from recipe text; 'name' names it in messages ("=recipe"); COAX_ESIZE for 'len' past lua_memory. */
COAX_API coax_code coax_session_from_text(coax_engine *engine, const char *text, size_t len, const char *name,
                                          const coax_session_options *options, coax_session **out, coax_error *err);

/* The same from C alone, without a recipe: 'schema' is JSON text ('schema_len' bytes), 'prompt' the prompt
** (NUL-terminated; "{{input}}" in it is replaced by options->input). The agent comes from options->agent_json
** (default: replay). A schema that is not JSON or not a valid schema ends the session at once with outcome
** COAX_OUTCOME_INVALID, as for a recipe. Errors as coax_session_from_file. */
COAX_API coax_code coax_session_from_schema(coax_engine *engine, const char *schema, size_t schema_len,
                                            const char *prompt, const coax_session_options *options,
                                            coax_session **out, coax_error *err);

/* Polls the session's engine until the session ends; returns its outcome. */
COAX_API coax_outcome coax_session_run(coax_session *session);

/* The outcome so far (COAX_OUTCOME_RUNNING until it ends). */
COAX_API coax_outcome coax_session_outcome(const coax_session *session);

/* Why the session failed, without parsing its report: the failure, and '*message' (when 'message' is not NULL)
** set to its message for people (NUL-terminated, valid UTF-8, owned by the session; the report's error.message:
** a script error's keeps its traceback). COAX_FAILURE_NONE, with '*message' NULL, while the session runs and
** when it succeeded (and for NULL). */
COAX_API coax_session_failure coax_session_error(const coax_session *session, const char **message);

/* The accepted value as compact JSON (NUL-terminated), or NULL unless the outcome is COAX_OUTCOME_OK. Owned by
** the session. */
COAX_API const char *coax_session_value(const coax_session *session, size_t *len);

/* The session report as JSON (README, "The report"): outcome, value, error, metrics and every attempt. Built
** when the session ends; NULL before, or if memory ran out building it. Owned by the session. */
COAX_API const char *coax_session_report(const coax_session *session, size_t *len);

/* ---- The host agent --------------------------------------------------------
** A session whose agent is "host" ({"name": "host"} in agent_json, or agent = "host" in the recipe) asks the
** host for each reply instead of a provider: so an engine with its own networking, or its own local model,
** uses coax. When the session needs a reply it waits and raises the event "host_request", data {"attempt": n,
** "request": R}, R also from coax_session_host_request until the host answers: {"messages": [{"role",
** "content"}, ...], "schema": {...}, "options": {...the agent options...}}. The host answers later, from any
** frame (or at once, inside the event callback), with coax_session_host_reply or _host_fail, perhaps after
** pieces (coax_session_host_piece); the next coax_engine_poll goes on from there. coax_session_run on such a
** session returns COAX_OUTCOME_RUNNING while it waits for its host, instead of waiting forever. */

/* The request the session waits on its host for (JSON, NUL-terminated, owned by the session, valid until it
** is answered), or NULL when it waits for none. */
COAX_API const char *coax_session_host_request(const coax_session *session, size_t *len);

/* Hands over the next piece of the reply's text as it arrives ('len' bytes, copied; text NULL: the reply
** starts over, as after a transport retry), so that the session tells "partial" events on the next polls and
** may stop a doomed reply (README, "Streaming"; the recipe's stream options apply, partials on by default).
** COAX_ECANCELED when stream.stop_early stopped the reply (with this piece or before): cancel the request;
** the attempt fails, stopped early, and the next poll raises "host_request" again. COAX_ESIZE when the pieces
** would pass max_input (not taken); COAX_ENOMEM (no more partials for this reply); errors as
** coax_session_host_reply. */
COAX_API coax_code coax_session_host_piece(coax_session *session, const char *text, size_t len, coax_error *err);

/* Answers the session's host request with the model's reply text ('len' bytes, copied: all of it, the pieces
** joined; a text that is not counts as the reply started over, which may not contradict a partial told) and
** the provider's usage (-1 where unknown). COAX_EINVAL when 'session' is NULL or waits for no reply (asked
** for none, already answered, or ended); COAX_ECANCELED (above); COAX_ENOMEM (try again). */
COAX_API coax_code coax_session_host_reply(coax_session *session, const char *text, size_t len, long long input_tokens,
                                           long long output_tokens, coax_error *err);

/* Says why the host's model stopped the reply the host answers next (the provider's finish, at most 23 bytes,
** copied: "stop" when it ended, so a number an open reply ends on counts as written; "length" cut off at its
** token limit; NULL: not known, the default). COAX_EINVAL for a longer one; other errors as _host_reply. */
COAX_API coax_code coax_session_host_finish(coax_session *session, const char *finish, coax_error *err);

/* Answers the host request with a failure: the session ends with outcome COAX_OUTCOME_AGENT_ERROR and
** 'message' (copied; NULL: "the host failed"). Errors as coax_session_host_reply. */
COAX_API coax_code coax_session_host_fail(coax_session *session, const char *message, coax_error *err);

/* Frees a session (an engine frees its sessions itself). NULL: no-op. */
COAX_API void coax_session_free(coax_session *session);

/* ---- Token estimation ------------------------------------------------- */

/* Which tokenizer an estimate is for. The calibrated encodings split text
** exactly as the real pre-tokenizer does and add, per piece, its exact count
** when the piece is one of the frequent pieces of the calibration corpus and
** a fitted expected count otherwise (README, "Token estimation", has the
** measured accuracy). No vocabulary is loaded: the tables are compiled in. */
typedef enum coax_encoding {
    COAX_ENC_O200K = 0, /* GPT-4o, GPT-4.1, o-series and later: calibrated */
    COAX_ENC_CL100K,    /* GPT-4, GPT-3.5: calibrated */
    COAX_ENC_LLAMA3,    /* Llama 3: the cl100k estimate (its vocabulary is
                        ** cl100k's plus 28k mostly non-English tokens, with
                        ** the same pre-tokenizer), so non-English text is
                        ** overestimated by up to the o200k/cl100k gap */
    COAX_ENC_CLAUDE,    /* Claude: the o200k estimate x 1.2, rounded up.
                        ** Anthropic's tokenizer is not public; third-party
                        ** comparisons report 15-30% more tokens than o200k.
                        ** Not calibrated: prefer the provider's usage */
    COAX_ENC_CHARS4,    /* ceil(code points / 4): the classic rule */
    COAX_ENC_COUNT      /* not an encoding: the number of encodings */
} coax_encoding;

/* The name of an encoding ("o200k", "cl100k", "llama3", "claude",
** "chars4"); "unknown" outside the enum. A static string. */
COAX_API const char *coax_encoding_name(coax_encoding enc);

/* The encoding called 'name' (len bytes; the names above). Returns COAX_OK
** and sets '*out', or COAX_EINVAL for an unknown name (or NULL arguments). */
COAX_API coax_code coax_encoding_parse(const char *name, size_t len, coax_encoding *out);

/* The estimated number of tokens of text[0..len) under 'enc'. A pure
** function: no allocation, no state, thread-safe. Any bytes are accepted
** (an invalid UTF-8 byte counts as one character); NULL 'text' or 'len' 0
** gives 0, and a non-empty text at least 1. An 'enc' outside the enum is
** treated as COAX_ENC_O200K. */
COAX_API size_t coax_tokens(coax_encoding enc, const char *text, size_t len);

/* One chat message for coax_tokens_chat. 'name' may be NULL (no name);
** NULL 'role' or 'content' counts as empty. */
typedef struct coax_message {
    const char *role;
    size_t role_len;
    const char *content;
    size_t content_len;
    const char *name;
    size_t name_len;
} coax_message;

/* The estimated prompt tokens of a chat request: every message's role,
** content and name, plus the framing tokens each message costs and the
** tokens that prime the reply (o200k, cl100k, claude: 3 a message, 1 a
** name, 3 for the reply, as OpenAI documents; llama3: 4 a message and 5 for
** <|begin_of_text|> and the reply header; chars4: none). NULL 'msgs' with
** 'n' 0 gives the reply priming alone. Pure and thread-safe. */
COAX_API size_t coax_tokens_chat(coax_encoding enc, const coax_message *msgs, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* COAX_H */
