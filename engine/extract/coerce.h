/*
** coerce.h: schema-aligned coercion of one candidate, used by coax_extract
** (extract.c). coerce.c drives the rounds (validate, try every coercible
** error's next trial at once, keep what passes); coerce_trials.c reads the
** failing keyword and builds the trial values.
*/
#ifndef COAX_COERCE_H
#define COAX_COERCE_H

#include "base/core.h"
#include "schema/map.h"

typedef struct coerce_ctx {
    coax_arena *arena;
    const coax_schema *schema;
    const coax_value *doc; /* the schema document: where keywords are looked up */
    int draft;
    coax_error *err;
    /* The coercions of the candidate being coerced (arena memory). */
    coax_coercion *log;
    size_t n, cap;
    /* Indexes of the schema's large objects by member name, each built once
    ** (schema_lookup.c's doc_member: an object's members -> its index): errors
    ** under one "properties" of n names look their keyword up in constant
    ** time, not n each. The four latest were kept: a walk through eight such
    ** objects a member built each again (8,000 members beside 8 x 8,000
    ** names: 10.6 s; attack round 20). */
    smap docidx;
    uint64_t docidx_seed;
    /* Each local "$ref" value -> what it resolved to (coerce_local_ref): a
    ** walk for each member resolved every reference it met again, the
    ** reply's members times the pointers' length (10 references to keys of
    ** 40,000 bytes beside 4,000 members: 0.97 s; attack round 20). */
    smap refs;
    /* The regex steps the look-ups of member names in "patternProperties"
    ** have taken (coax_schema_pattern_names: at most COAX_SCHEMA_NAMES_REGEX
    ** for one extraction, past which a name is taken as one a pattern may match). */
    uint64_t names_regex;
    /* The values of defaults compared and filled (coerce_default_charge). */
    size_t default_values;
    /* Per schema value, what was built for it once (smap_getp): the large
    ** enums' indexes (coerce_trials.c), so enums taking turns are not
    ** indexed again each time. */
    smap built;
    /* The trials last built for an object's "required" or forbidden
    ** members, within one plan (coerce.c bumps 'plan_id'): its n errors
    ** (one a forbidden member) share them, so a scan of the object each
    ** would cost n^2 (coerce_trials.c). */
    unsigned plan_id, memo_plan;
    const coax_value *memo_obj, *memo_kv;
    const char *memo_loc;
    void *memo_trials;
    /* The last value read against a "type" (or an "enum" or "const"), within
    ** one plan: the errors at one place, one per keyword path through unions,
    ** ask again, and each reading costs the value's length (16,383 errors on
    ** a string of 1 MB: 7.9 s; attack round 18). 'key' is the type's name
    ** (or the enum), 'allowed' the items' enum; 'out' the reading, 'kind' its name. */
    struct coerce_read_memo {
        unsigned plan;
        const coax_value *x, *allowed, *out;
        const void *key;
        const char *kind;
    } read_memo;
} coerce_ctx;

/* Whether the read memo holds x read against 'key' (and 'allowed') in this plan. */
static inline bool read_memo_hit(const coerce_ctx *c, const coax_value *x, const void *key, const coax_value *allowed)
{
    const struct coerce_read_memo *m = &c->read_memo;
    return m->plan == c->plan_id && m->x == x && m->key == key && m->allowed == allowed && m->plan;
}

/* Rewinds the context's arena to 'mark' (a losing candidate's memory, a
** round's bad changes) and drops what the context built in it to be used
** again (the schema's indexes, the enums', the trials' memo): a later
** lookup would read, and a later memo write go into, memory the arena
** hands out again (ASan: use-after-poison in coerce_memo_put). They are
** built anew when needed. */
static inline void coerce_rewind(coerce_ctx *c, coax_arena_mark mark)
{
    coax_arena_rewind(c->arena, mark);
    memset(&c->docidx, 0, sizeof c->docidx);
    memset(&c->refs, 0, sizeof c->refs);
    memset(&c->built, 0, sizeof c->built);
    c->memo_trials = NULL;
    c->memo_plan = 0;
    c->read_memo.plan = 0;
}

/* Validates 'v' and, while it is invalid, applies coercions that make a
** failing location pass without new errors, until none applies. Sets
** '*out' to the final value and 'val' to its validation. 'v' is not
** changed (the result shares what it did not change). Returns COAX_OK or
** a validation failure (limit, memory). The work is a bounded number of
** validations of the whole candidate, whatever its number of errors. */
coax_code coerce_candidate(coerce_ctx *c, const coax_value *v, const coax_value **out,
                           coax_validation *val);

/* Appends one coercion to c's log ('pointer' is copied). */
coax_code coerce_log(coerce_ctx *c, const char *kind, const char *detail, const char *pointer,
                     size_t plen);

/* ---- the schema document (extract/schema_lookup.c) ------------------------- */

/* The member 'key' of 'obj' when it is an object, else NULL. */
const coax_value *coerce_member(const coax_value *obj, const char *key);

/* One hash seed per coercion, for its indexes. */
uint64_t coerce_seed(coerce_ctx *c);

/* Follows a local "$ref" ("#" or "#/json/pointer") from 'doc'; NULL for
** any other. With a coercion's context (c non-NULL) lookups are indexed. */
const coax_value *coerce_local_ref(coerce_ctx *c, const coax_value *doc, const coax_value *ref);

/* A subschema with its own "$ref"s followed (for "properties/x": {"$ref"}). */
const coax_value *coerce_deref(coerce_ctx *c, const coax_value *doc, const coax_value *s);

/* Walks an evaluation path through the schema document. On success sets the
** subschema holding the failing keyword, and the keyword's name and value. */
bool coerce_keyword_at(coerce_ctx *c, const coax_value *doc, const char *loc, const coax_value **parent,
                       char *kw, size_t kwcap, const coax_value **value);

/* The schemas an evaluation path 'loc' (an error's keywordLocation) applies
** to the instance its last keyword fails at, from the one where that
** instance is entered (past the last "properties/x", "items", ...) to the
** one holding the keyword, in path[0..n) (n returned; 0: a path not read,
** through an "$id", a "$dynamicRef" or an unknown keyword, or longer than
** 'cap'). */
size_t coerce_entry_path(coerce_ctx *c, const char *loc, const coax_value **path, size_t cap);

/* The one default the schemas path[0..n) (coerce_entry_path) give an
** object's property 'name': NULL when none, when two differ, or when one
** applies only to some objects (a branch's, a "then"'s) and the others give
** none or another. */
const coax_value *coerce_property_default(coerce_ctx *c, const coax_value **path, size_t n, const coax_value *name);

/* Takes the JSON values of the default 'v' from what one extraction may
** compare and fill (COERCE_DEFAULT_VALUES): false, taking none, once they
** do not fit. n properties referring to one default of B values cost n x B
** to fill, and the walk compares it with its copies: a schema of 427 KB
** made the reply {} a value of 124 MB (5.4 s, 1.4 GB; attack round 20). */
#define COERCE_DEFAULT_VALUES (1u << 20)
bool coerce_default_charge(coerce_ctx *c, const coax_value *v);

/* Pushes the values of the array or object 'v' on the explicit stack of a
** walk ('*stack' holds '*n' of '*cap', moved into arena memory when it
** grows); false out of memory. */
bool coerce_push_children(coax_arena *a, const coax_value ***stack, size_t *n, size_t *cap, const coax_value *v);

/* Whether a schema of path[0..n) that applies to the object (its own, an
** allOf branch's, a $ref target's, a branch's, then's, or a condition's)
** names the property key[0..klen): declares it in its "properties", lists
** it in "required" or a dependency, or has a "patternProperties" pattern
** that matches it; true when that is not known (a path not read, a
** reference not followed, past 64 schemas). */
bool coerce_names_anywhere(coerce_ctx *c, const coax_value **path, size_t n, const char *key, size_t klen);

/* Whether a schema that applies to the object ('path', as
** coerce_names_anywhere, and every branch of a union on it) declares a
** property other than 'to' that key[0..klen) is joined another way:
** "userid" to rename to "userId" where an allOf branch, or the union's
** other branch, declares "user_id" (which one the reply meant is a
** guess). True when unsure (past the schemas looked into, out of memory). */
bool coerce_joined_elsewhere(coerce_ctx *c, const coax_value **path, size_t n, const char *key, size_t klen,
                             const char *to, size_t tolen);

/* The innermost union branches (at most COERCE_UNION_LEVELS) of keyword
** path 'kw': for each, innermost last, the length of kw up to its branch
** index's end (end[]) and how many tokens of an error's instance location
** lead to the place the union applies at (steps[]: one per "properties/x",
** "items", ... before it; "$ref", "allOf/0", "not" take none). Returns how
** many it has in all. A name after "properties" or "$defs" is no keyword
** ("properties/anyOf/type" is a property's). */
#define COERCE_UNION_LEVELS 8
size_t coerce_unions(const char *kw, size_t end[COERCE_UNION_LEVELS], size_t steps[COERCE_UNION_LEVELS]);

/* The innermost union under an error's keyword path: kw[0..pl) names it
** (up to its branch index: "anyOf/" or "oneOf/" as a keyword, not a
** property's name), kw[0..bl) its branch, and 'branch' is that branch's
** number + 1; all 0 under none. */
typedef struct coerce_union_at {
    size_t pl, bl, branch;
} coerce_union_at;

/* An error as coercion reads it: its locations' lengths, its innermost
** union, and (ul) the length of its instance location up to the place that
** union applies at: a union under "items" is one per item, and a branch
** failing for good at one item says nothing of another ([{"a": 150}, {"a":
** 200}] for objects whose "a" is at most 100 or a string); the whole
** location when the keyword path is not read. Read once a validation: each
** was read a dozen times an error, and a location is kilobytes on a deep
** schema or under a long key. */
typedef struct coerce_error {
    const coax_schema_error *e;
    size_t ll, kl;
    coerce_union_at u;
    size_t ul;
} coerce_error;
void coerce_error_read(coerce_error *ce, const coax_schema_error *e);

/* Whether a union branch's keyword path 'kw' (past its index) fails a
** member or an item for being there, or for its name, not for what it
** holds: a false schema ("additionalProperties": false, "items": false) or
** a "propertyNames" keyword. Such a branch reads nothing of the value. */
bool coerce_rejects_name(const char *kw);

/* Whether a union's other branch takes values of x's type, bounded only (a
** maximum, a pattern, items; by "type" or, with none, by such keywords; no
** enum or const), when error 'ce' is a branch's own "type", "enum" or "const"
** error and its trial 'to' (NULL: any) is of another type: x, written as
** that branch's kind of value, fails there, and converting it for this
** branch (150 past "maximum": 100 into a string branch's "150", 20 into a
** list's [20]) would pass another meaning off for what the reply wrote. A
** branch naming its values claims none ("12" is no "unknown": 12 for an
** integer branch stays the one reading). */
bool coerce_union_claims(coerce_ctx *c, const coax_value *x, const coax_value *to, const coerce_error *ce);

/* Whether string x, matched loosely to the string 'hit' at a union
** branch's own "enum" or "const" error 'ce', is another string of that
** union's branches joined another way: {"oneOf": [{"const": "in_progress"},
** {"const": "inProgress"}]} for "IN_PROGRESS" (as joined_twice within one
** enum). Out of memory, or past a bound of work, reads as "it is". */
bool coerce_union_joined(coerce_ctx *c, const coax_value *x, const coax_value *hit, const coerce_error *ce);

/* Whether x, failing its tuple slot's "type" ('loc': .../prefixItems/i/type
** or, before 2020-12, .../items/i/type;
** 'up' the array), fits slot k as written while slot k's item fits slot i's
** and not its own: ["5", 6] for an integer and a string is 5 and "6", or
** the two swapped; which one is a guess. */
bool coerce_tuple_swapped(coerce_ctx *c, const coax_value *x, const coax_value *up, const char *loc);

/* Whether the schema document 'doc' names key[0..klen) a way a reply may
** write it: any "properties" declares it, joined another way or a few edits
** off, or a "patternProperties" pattern matches it ('schema' compiled them;
** NULL: any may), or its root may read any key (a map's, or behind a
** reference not followed); true out of memory or for a key too long to
** compare. '*spent': the patterns' steps so far (coax_schema_pattern_names). */
bool coerce_named_in_doc(coax_arena *a, const coax_value *doc, const coax_schema *schema, const char *key, size_t klen,
                         uint64_t *spent);

/* The names every "properties" of the schema document declares, as
** written or ('normalized') as coerce_norm_key writes them: sets built once
** per context (c->built); NULL when out of memory. */
const smap *coerce_declared_names(coerce_ctx *c, bool normalized);

/* An index of the object 'obj''s members by name, in 'a': open addressing
** over *mask + 1 slots, each a member's index + 1 (0: empty), a name's
** first slot coax_hash_bytes(name, seed) & *mask. NULL out of memory. */
uint32_t *coerce_name_index(coax_arena *a, const coax_value *obj, uint64_t seed, size_t *mask);

/* The member of 'obj' named key[0..n), a large object's through an index
** built once ('c' a coerce_ctx; a coax_member_lookup for coax_pointer_walk). */
const coax_value *coerce_indexed_member(void *c, const coax_value *obj, const char *key, size_t n);

/* ---- trials (coerce_trials.c) ------------------------------------------- */

#define COERCE_MAX_TRIALS 8

/* One change to a member of an object. */
typedef enum { MEDIT_ADD, MEDIT_DROP, MEDIT_RENAME } medit_op;
typedef struct medit {
    medit_op op;
    const char *kind, *detail; /* the coercion logged for it */
    const char *key;          /* the member as written (ADD: the key added) */
    size_t klen;
    const char *to;           /* RENAME: the new key */
    size_t tolen;
    const coax_value *value;  /* ADD: the value added */
} medit;

/* A candidate change at one place: a replacement value, or edits of the
** members of the object there. */
typedef struct coerce_trial {
    const char *kind, *detail;  /* for a replacement (edits carry their own kind) */
    const coax_value *value;    /* the replacement, or NULL */
    medit *edits;
    size_t nedits;
} coerce_trial;

typedef struct coerce_trials {
    coerce_trial t[COERCE_MAX_TRIALS];
    size_t n;
    const char *at;  /* where the trials apply: the error's location, or its object's */
    size_t atlen;
} coerce_trials;

/* The trials for error 'ce' whose instance is 'x' (at its location; 'up'
** is the container holding x, or NULL at the root). Nothing is built for a
** keyword coax cannot read, and no trial drops or renames a member whose
** value carries COAX_VF_INVENTED. */
void coerce_make_trials(coerce_ctx *c, const coax_value *x, const coax_value *up, const coerce_error *ce,
                        coerce_trials *ts);

/* The trials an object's error under the keyword 'kv' reached by 'loc' had in this plan
** (copied into 'ts'), and keeping them (schema_lookup.c). */
bool coerce_memo_get(coerce_ctx *c, const coax_value *x, const coax_value *kv, const char *loc, coerce_trials *ts);
void coerce_memo_put(coerce_ctx *c, const coax_value *x, const coax_value *kv, const char *loc, const coerce_trials *ts);

/* Whether s[0..n) is one of the strings of the "enum" 'allowed' (NULL:
** none); a large one through an index built at its first look (c->built),
** so that n values against n allowed ones cost n lookups. */
bool coerce_enum_holds(coerce_ctx *c, const coax_value *allowed, const char *s, size_t n);

/* The one value of allowed[0..n) that 'x' matches ignoring case (ASCII and
** the common scripts' simple case pairs) and surrounding whitespace, after
** Unicode NFC normalisation; NULL when none or several match. */
const coax_value *coerce_loose_match(coax_arena *a, const coax_value *x, const coax_value *allowed, size_t n);

/* What a bare-text reply can be for the schema document's root: any
** scalar (an enum, a const, or only integer/number/boolean/null), only a
** quoted JSON string or other JSON scalar (a root that takes strings: any
** prose is a string, so unquoted text is not read), or nothing. */
typedef enum { ROOT_OTHER, ROOT_SCALAR, ROOT_STRING } coerce_root;
coerce_root coerce_scalar_root(const coax_value *doc);

/* Whether a single-key envelope's 'key' names the whole answer ("result",
** "data", "output", "answer", "response", "value", "json", ..., or the
** schema's title; any label of an object or array that names no property,
** coerce_named_in_doc) rather than being content ({"greeting": "hello"}).
** 'inner' is the envelope's value; '*spent' as coerce_named_in_doc's. */
bool coerce_wrapper_key(coax_arena *a, const coax_value *doc, const coax_schema *schema, const char *key, size_t klen,
                        const coax_value *inner, uint64_t *spent);

/* Whether a label (an envelope's key, a tag's name) says what it holds is
** not the answer: "errors", "example", "draft", "rejected_items", "old". */
bool coerce_not_answer_label(const char *key, size_t klen);

/* Whether a tag's name says its block holds no answer: such a label, or
** words that others wrote, which a reply quotes (<user>, <system>,
** <context>, <document>, <tool_result>, <search_results>, <observation>):
** a word that names an answer's envelope ({"user": {...}}) as well. */
bool coerce_not_answer_tag(const char *name, size_t n);

/* Whether a candidate of 'source' (prose, fenced) that starts right after
** before[0..len) is marked as no answer by what stands before it ("Wrong
** answer:", "Example:" on the line above, a comment opening on its line):
** labels.c's own test, for the streaming reader, which keeps the text
** before a candidate in a window (a window too short only says no). */
bool extract_labelled_no_answer(const char *before, size_t len, coax_source source);
/* Whether a tagged candidate's tag says it holds no answer, or a label or a
** comment before a candidate of prose or a block says so (labels.c). */
bool extract_unanswering_tag(const char *text, size_t len, const coax_candidate *cand);
bool extract_unanswering_prose(const char *text, size_t len, const coax_candidate *cand);
/* Whether text[0..b) ends with a list item's marker that opens its line, its
** indentation (or a byte order mark) aside ("1. ", "2) ", "- ", "* ", "+ "
** before the JSON): the item's text begins at b as a line's would (labels.c). */
bool extract_item_marker_before(const char *text, size_t b);
/* Where a short remark right after an answer ending at text[from], set off as one (in parentheses or
** brackets, a comment, after an arrow or a dash, on the next line alone), labels it as no answer or
** doubts it ("(example)", "// wrong", "<- old", "(my guess)"), in text[from..e): SIZE_MAX if none. */
size_t extract_labelling_remark(const char *text, size_t from, size_t e);

/* Whether candidate o, beside the answer, is JSON the reply holds that coax could read only by a guess: its
** repair invented ('guessed': the text it is in needed one), and it holds a quoted key or is a list the reply
** ends inside; not LaTeX's \frac{1}{2} nor a schema's text a colon follows. */
bool extract_unread_json(const char *text, size_t len, const coax_candidate *o, bool guessed);

/* ---- prose that takes an answer back (extract/retract.c) ------------------- */

/* Where in text[from..to), the prose after an answer, a sentence opens by
** taking it back ("Actually, ...", "Oops, I meant ...", "Correction:") or
** a typo is named: SIZE_MAX when none does in the first bytes looked at.
** A correction to the answer's own value, or another value called wrong,
** takes nothing back ('answer' NULL: every one does). */
size_t extract_taken_back(const char *text, size_t from, size_t to, const coax_value *answer);

/* Whether the words at text[at] that take a value back, in the look
** text[from..e), settle on the answer (contradicted.c): 'correction', a
** correction whose sentence ends on the answer's value for what it names
** ("Let me double-check: the age is 35... no, 36."); else a word calling
** wrong the value before it in its sentence, none of the answer's ("Note
** that age: 37 would be wrong."). */
bool extract_settles_on_answer(const char *text, size_t from, size_t at, size_t e, bool correction,
                               const coax_value *answer);

/* Where the prose beside an answer, text[from..start) before it and
** text[end..to) after it, states another value for one of its members
** ("The age is 37.", "Age: 37", "The correct value is 37" beside {"age":
** 36}), within the first bytes on each side (contradicted.c): SIZE_MAX when
** none does. */
size_t extract_contradicted(const char *text, size_t from, size_t start, size_t end, size_t to,
                            const coax_value *answer);

/* Where in the clause of prose before a value starting at text[start] (or
** the clause before, when the value opens its own) a word marks it as no
** answer: an example named as one ("For example, {...}"), a supposition,
** a value to avoid ("Instead of", "Not {...}"), a wrong or earlier one a
** word or two before it, a doubt ("Probably {...}"); or, for a value that
** starts its line, fenced or not ('prose' false: a block, where only
** doubt counts), a doubt on the line above ("Probably:", "I think:"):
** SIZE_MAX when none does. */
size_t extract_marked_before(const char *text, size_t start, bool prose);

/* Where JSON after the answer inside its own fenced block or tag offers
** another value ("```json\n{...} and {...}\n```", "{...}\nFixed: {...}"):
** the spans of prose around a block are candidates of their own, a block's
** rest is not. The same value again offers none. SIZE_MAX when none does
** (retract.c). */
size_t extract_more_in_block(coax_arena *arena, const coax_limits *limits, const char *text, size_t len,
                             const coax_candidate *b);

/* Where members whose object's opening brace is lost stand in text[from..start) before the
** answer text[start..end): a quoted key ("name": ...) and then, before the answer or after
** it up to 'to', a closing brace no opening one matches, or after it another quoted key
** ("\"name\": \"Ada\"} {...}", "\"a\": {...}}", "\"a\": [1], \"b\": 3": a record the answer
** alone drops, or holds; a brace closed at once by a bracket, {]"name": ..., opens none);
** or the fence of the answer's block, when a key or a bracket opens its line ({"code"
** ```json ⏎ {...} ⏎ ```}). SIZE_MAX when none do (labels.c). */
size_t extract_members_unopened(const char *text, size_t from, size_t start, size_t end, size_t to);

/* Where the reply's first line starts, for a look back from 'at' (a value's
** start, past any byte order mark): after its byte order marks, which hide
** no label or doubt before the value ("\xEF\xBB\xBFExample: {...}"), else 0. */
static inline size_t extract_text_origin(const char *text, size_t at)
{
    size_t o = 0;
    while (at - o >= 3 && !memcmp(text + o, "\xEF\xBB\xBF", 3)) o += 3;
    return o;
}

/* text[b..e) past the characters that show nothing at its start (a byte
** order mark or a zero-width space or joiner, U+FEFF, U+200B-U+200D,
** U+2060): they hide no label ("\n\n\xEF\xBB\xBFExample:") and no
** condition ("\xEF\xBB\xBFIf she was born ..."). */
static inline size_t extract_past_invisible(const char *text, size_t b, size_t e)
{
    while (e - b >= 3 && (!memcmp(text + b, "\xEF\xBB\xBF", 3) || !memcmp(text + b, "\xE2\x81\xA0", 3) ||
                          (!memcmp(text + b, "\xE2\x80", 2) && (unsigned char)text[b + 2] >= 0x8B &&
                           (unsigned char)text[b + 2] <= 0x8D)))
        b += 3;
    return b;
}

/* Whether a remark (a string member the schema does not declare, "note":
** "age should be 36") takes a value back: a retraction as after an
** answer, or a correction's word anywhere in its first bytes. */
bool extract_remark_takes_back(const char *s, size_t n);

/* ---- members that give a property a second value (extract/restated.c) ------ */

/* The words that, before or after a property's name, say a member replaces
** it (corrected_age, newAge, age_final) or offers another value for it
** (possible_age, likely_city); the first is "" (first_name beside
** firstName: the name itself written another way). */
#define COERCE_REPLACING_WORDS 22
extern const char *const coerce_replacing_words[COERCE_REPLACING_WORDS];

/* In a value valid against the schema, the first place with a second
** reading: a member no "properties" of the schema declares that gives a
** declared property of its object another value, by its name ({"age": 36,
** "corrected_age": 37}), by its members ("correction": {"age": 36}) or by a
** remark naming it ("note": "age should be 36"); else a string spelling
** null where null fits too (extract_find_null_text). *message and *pointer
** (arena memory) say why and where; both NULL when none. */
coax_code extract_find_restated(coerce_ctx *c, const coax_value *v, const char **message, const char **pointer);

/* The first string in 'v' that spells null ("None", "null", "undefined")
** at a place where the schema takes null too: its pointer and a message. */
coax_code extract_find_null_text(coerce_ctx *c, const coax_value *v, const char **message, const char **pointer);

/* ---- places (extract/places.c) -------------------------------------------- */

/* Where a union's branch failed for good: the common ancestor ('at', 'len')
** of the places of its errors no trial may fix (at NULL: none yet). */
typedef struct coerce_place {
    const char *at;
    size_t len;
} coerce_place;

/* Narrows d to the common ancestor of its place and at[0..len). */
void coerce_place_narrow(coerce_place *d, const char *at, size_t len);

/* Whether place at[0..len) is d's place or above it (d NULL or empty:
** yes): the branch's failures all lie at or inside it, so what it read
** there may be what the reply meant. A branch failing for good elsewhere
** ({"kind": "dog"} for a branch of "cat") read nothing the reply meant. */
bool coerce_place_within(const coerce_place *d, const char *at, size_t len);

/* Appends one reference token of a JSON Pointer ('~' and '/' escaped). */
void extract_put_token(coax_buf *b, const char *k, size_t n);

/* Appends an item's index as a reference token. */
void extract_put_index(coax_buf *b, size_t i);

/* A place a walk through a value has reached, on the walk's C stack: the
** member key (or, key NULL, the item index) that leads to it from 'up'
** (NULL at the root). Its pointer is written only when wanted. */
typedef struct extract_frame {
    const struct extract_frame *up;
    const char *key;
    size_t klen, index;
} extract_frame;

/* Appends the JSON Pointer of place 'f' (NULL: the root, nothing). */
void extract_put_pointer(coax_buf *b, const extract_frame *f);

/* Whether a walk picks string 's', a member of key[0..klen) (NULL at the
** root; an item goes by its list's name). */
typedef bool (*extract_pick)(void *ctx, const coax_value *s, const char *key, size_t klen);

/* One error a probe met at a place, the next one there after it. */
typedef struct extract_probe_error {
    const coax_schema_error *e;
    const struct extract_probe_error *next;
} extract_probe_error;

/* Validates, once, a copy of 'v' with every string 'pick' chooses made
** 'with' (*count of them; no validation when none), and maps in 'errors_at'
** each error's instance location to its errors there, in their order. */
coax_code extract_probe(coerce_ctx *c, const coax_value *v, extract_pick pick, void *ctx, const coax_value *with,
                        smap *errors_at, size_t *count);

/* ---- lists of one (extract/unwrapped.c) ---------------------------------------- */

/* In *at, the place of a value the coercion put in a list of one or took out of
** one where the repair placed a bracket of 'cand' (its place is a guess), or of a
** list of one in 'value' (the coercion's value of cand's) above items the log
** unwrapped from lists of one, where the
** list of one dropped instead, as written inside, is another valid value
** ([[[1], [2]]] for lists of numbers: [[1, 2]] or [[1], [2]]), or of a list
** at or above values the log wrapped where the list as written put in a
** list of one is; NULL: none. In *why, the error saying which. */
coax_code coerce_unwrapped_items_place(coerce_ctx *c, const coax_value *value, const coax_candidate *cand,
                                       const char **at, const char **why);
/* In *at the place of a list whose items the coercion wrapped each in a list of its own where one list of them
** all is as much the reply's reading, or of items side by side each wrapped, or coerce_unwrapped_items_place's;
** NULL: none. In *why, the error saying which. */
coax_code coerce_wrapped_items_place(coerce_ctx *c, const coax_value *value, const coax_candidate *cand,
                                     const char **at, const char **why);

/* ---- number texts (extract/number_text.c) ----------------------------------- */

/* The integer text of an integral number text ("2.0" -> "2", "1e3" ->
** "1000") in 'buf' (false: not integral, or longer than 'cap'). */
bool coerce_integral_text(const char *s, size_t n, char *buf, size_t cap);

/* Whether a text is one to three digits, a dot and three more ("1.000"):
** a dot that may group thousands. */
bool coerce_dot_grouped(const char *s, size_t n);

/* ---- names and types (extract/labels.c) ------------------------------------- */

/* 'key' lowercased with only its letters, digits and bytes past ASCII (no
** spaces, '_', '-', '.', brackets), in 'out' (false: too long). */
bool coerce_norm_key(const char *key, size_t klen, char *out, size_t cap);

/* s[0..n) joined (coerce_norm_key: "user_id", "userId" and "User ID" are
** "userid"), in the arena; NULL out of memory. */
char *coerce_joined(coax_arena *a, const char *s, size_t n);

/* Whether y[0..yn) joined is 'joined' (coerce_joined) ignoring case after
** NFC ("überCool" is "ÜBER_COOL" joined another way); out of memory reads
** as "equal": a match that may be a guess is not made. */
bool coerce_joined_equal(coax_arena *a, const char *joined, const char *y, size_t yn);

/* Whether s[0..n), its surrounding spaces trimmed, is name[0..nn) byte for
** byte: only spaces differ, so no other name joined another way is meant. */
bool coerce_same_trimmed(const char *s, size_t n, const char *name, size_t nn);

/* Moves s[0..n) past its surrounding spaces, tabs and line breaks. */
void coerce_trim(const char **s, size_t *n);

/* Equal ignoring case and surrounding whitespace, after NFC (false out of
** memory). */
bool coerce_loose_equal(coax_arena *a, const char *x, size_t xn, const char *y, size_t yn);

/* Whether two member names may be one misspelt ("aeg" and "age",
** "age_years" and "age"). */
bool coerce_names_close(const char *x, size_t xn, const char *y, size_t yn);
/* coerce_names_close, and with 'holding' false, only the edits (a name
** holding the other is not it). */
bool coerce_names_near(const char *x, size_t xn, const char *y, size_t yn, bool holding);

/* Whether forbidden member 'm' may be a declared property of 'props'
** misspelt: named close to one of props' members named[0..n) whose
** "type" takes m's value and that is absent from the object (taken[i]
** NULL: {"aeg": 36} beside a missing "age"), or named within a few edits
** of one holding another value there ({"name": "Ada", "nmae": "Bob"}: one
** property given twice). Dropping it
** would lose what the reply said, or pick one of two values. Each
** comparison with an absent one, or with a present one from
** named[free_until], is charged to '*budget'; past it, true. */
bool coerce_may_be_declared(coerce_ctx *c, const coax_value *props, const coax_value *const *taken, const size_t *named,
                            size_t n, size_t free_until, const coax_member *m, size_t *budget);

/* Whether a key holds a closer and, after a comma, an opener ("qty: 2}, {sku"): members of two items run
** together. */
bool coerce_key_holds_items(const char *k, size_t n);

/* Of 'fits', the type bits of dropped members' values some absent property takes, those that tell the member may
** be that property renamed ({"name": "Ada", "edad": 37}): a string fits too many properties to tell, but where none
** of the 'np' is present, 'taken' (every member dropped: {"nombre": "Ada"}). */
unsigned coerce_telling_fits(const coax_value *const *taken, size_t np, unsigned fits);

/* A value's bit among those of coerce_types_taken (integers apart). */
unsigned coerce_type_bit(const coax_value *v);

/* The bits of the values a "type" keyword's value 't' admits; every bit
** when there is none (NULL) or it is malformed. */
unsigned coerce_types_taken(const coax_value *t);
/* coerce_types_taken of a property schema's "type", or where it states none, of the values its "enum" lists. */
unsigned coerce_property_types(const coax_value *schema);

/* The class of coercion 'kind' (every kind is lossless or inferred: a
** coercion never guesses). */
coax_class coerce_class(const char *kind);

/* ---- placeholders (extract/placeholder.c) ---------------------------------- */

/* Whether a string holds a place rather than a value: an ellipsis ("...",
** "[...]"), a template's variable ("{{name}}", "${name}"), or a bracketed
** name of its member ("email": "<email>", "{email}"), instruction ("[Your
** Name]") or phrase ("<first name>"). 'key' is its member's name, or NULL. */
bool extract_is_placeholder(const char *s, size_t n, const char *key, size_t klen);

/* The first placeholder string in 'v' (an array's items go by the array's
** member name) that no "enum" or "const" of the schema names: its error's
** message and JSON Pointer (arena memory), both NULL when none;
** COAX_ENOMEM when memory ran out. */
coax_code extract_find_placeholder(coerce_ctx *c, const coax_value *v, const char **message, const char **pointer);


/* ---- bare replies (extract/bare.c) ---------------------------------------- */

/* Whether candidate 'cand' of text[0..len) may stand for the reply: any
** container; a scalar only when it is the whole reply, or the whole of its
** fenced block or tag, give or take spaces, a final period and surrounding
** quotes, backticks or "**" ("2 or 3" does not give 2). */
bool extract_scalar_alone(const char *text, size_t len, const coax_candidate *cand);

/* The whole reply read as one scalar ("TWO", "**Two**", "\"two\".",
** "`42`"): a JSON scalar when the trimmed text is one, else (unless
** 'literal_only') the text as a string when it is one line. NULL when
** nothing is left, the text is a container, or out of memory. */
coax_value *extract_bare_scalar(coax_arena *a, const char *text, size_t len, bool literal_only);

/* ---- without a schema (extract/sure.c) ----------------------------------- */

/* coax_extract's work, within 'limits' as given (nesting.c lowers their max_depth to what the C
** stack left to it holds). */
coax_code extract_within(coax_arena *arena, const coax_schema *schema, const char *text, size_t len,
                         const coax_limits *limits, const coax_extract_options *options, coax_extract_result *out,
                         coax_error *err);

/* The value `coax repair` and coax.repair accept from 'text': coax_extract's
** with the schema true, so a value that depends on a repair less certain
** than options' max_class, one of two different answers, a reply cut off or
** a value labelled an example is refused (out->valid 0, the first error
** says why). Returns what coax_extract returns. */
coax_code extract_sure_repair(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                              const coax_extract_options *options, coax_extract_result *out, coax_error *err);

/* coax_repair's own choice, whatever it depends on (its log's classes say
** what was guessed), in the same shape: out->valid when there is one. */
coax_code extract_guess_repair(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                               coax_extract_result *out, coax_error *err);

/* The least certain class a value rests on, its repairs' and its coercions'
** (lossless when none): what coax repair --jsonl, coax extract --jsonl and
** coax batch say of a value, so a guess --max-class invented took never
** looks certain. */
coax_class extract_least_class(const coax_extract_result *r);

/* The first invented repair a value rests on, or NULL: what coax repair,
** coax extract and coax run tell on stderr beside a value printed alone. */
const coax_repair_entry *extract_first_guess(const coax_extract_result *r);

#endif
