/*
** lib.h: the library scripts and Lua hosts get (the coax module): shared
** helpers (lib.c), the table (library.c) and its parts (lib_*.c).
*/
#ifndef COAX_LCOAX_H
#define COAX_LCOAX_H

#include "base/core.h"

#include "script/compat.h" /* lua.h, lauxlib.h, and 5.4's API on older Luas */

/* Registry names of the metatables that mark JSON shapes on the Lua side. */
#define LCOAX_ARRAY "coax.array"   /* a table that is a JSON array */
#define LCOAX_OBJECT "coax.object" /* a table that is a JSON object */
#define LCOAX_NUMBER "coax.number" /* {text = "..."}: a number kept as text */
#define LCOAX_ORDER "coax.order"   /* weak table: object -> key list */
#define LCOAX_SCHEMA "coax.schema" /* a compiled schema (coax.schema) */

/* What Lua values own in C (lib_owned.c). A resource is listed per state
** with its allocator and the function that frees it, so it is freed by its
** box's __gc or __close, by lcoax_own_release, or when the state closes,
** even when the box's finalizer could not run. */
typedef struct lcoax_owned lcoax_owned;

/* Pushes a new box with the metatable 'tname' (made with __gc and __close
** if new) and returns its node, which owns nothing yet: make the resource
** with lcoax_owned_allocator(node) (the state's allocator, so a memory cap
** covers it) and hand it over with lcoax_owned_set before anything else
** can raise. 'release' frees it. */
lcoax_owned *lcoax_own(lua_State *L, const char *tname, void (*release)(void *));
const coax_allocator *lcoax_owned_allocator(lcoax_owned *node);
void lcoax_owned_set(lcoax_owned *node, void *resource);
/* Tells the collector about the memory the resource of the box at 'box'
** (a 'tname') holds, which it does not see (its pace counts only Lua's own
** objects): a script that drops large schemas in a loop would otherwise
** pile them up to the cap. For what a call hands back; what it frees before
** returning needs no charge. */
void lcoax_owned_charge(lua_State *L, int box, const char *tname);
/* Makes or fetches the metatable 'tname' of such boxes and pushes it. */
void lcoax_own_metatable(lua_State *L, const char *tname);
/* The resource of the box at 'box' (which must be a 'tname'), or NULL once
** it was released. */
void *lcoax_owned_get(lua_State *L, int box, const char *tname);
/* Frees the resource of the box at 'box' now. */
void lcoax_own_release(lua_State *L, int box, const char *tname);
/* Frees every resource still owned, for a state about to be closed:
** lua_close cannot call finalizers when allocation fails (a finalizer's
** call needs a CallInfo). Allocates nothing. */
void lcoax_free_owned(lua_State *L);

/* Pushes a new arena owned by a box (see above) and returns it. */
coax_arena *lcoax_arena(lua_State *L);
/* Frees the arena of the box lcoax_arena pushed (at 'box') now; a call
** that returned what it made need not wait for the collector. */
void lcoax_arena_release(lua_State *L, int box);

/* Compiles 'doc' through the state's allocator into a box of the kind
** 'tname' it pushes, which frees the schema (see lcoax_own). */
coax_code lcoax_compile_owned(lua_State *L, const char *tname, const coax_value *doc,
                              const coax_schema_options *o, coax_schema **out, coax_error *err);

/* In the engine's own Lua, where scripts run: every schema the coax module
** compiles (coax.schema, coax.extract's, coax.example's) validates within
** COAX_DEFAULT_MIN_STEPS steps and COAX_DEFAULT_MIN_REGEX_TOTAL regex steps
** a call, whatever the instance (a host's Lua keeps the defaults, which
** grow with it): one call into C runs to its end before the instruction
** budget is charged, so it must end soon. */
void lcoax_bound_validation(lua_State *L);
/* Whether lcoax_bound_validation was called on this state (the engine's Lua). */
bool lcoax_bounded(lua_State *L);

/* Pushes 'v' as a Lua value (see the README, "JSON on the Lua side").
** Raises a Lua error for nesting deeper than 'max_depth'. */
void lcoax_push_value(lua_State *L, const coax_value *v, size_t max_depth);

/* Converts the Lua value at 'idx' to a coax value in 'arena'. Raises a Lua
** error (with the path of the offending value) for what JSON cannot hold. */
coax_value *lcoax_to_value(lua_State *L, int idx, coax_arena *arena,
                           size_t max_depth);

/* The same within 'max_bytes' of the value's nodes and texts: past them a
** Lua error, with '*exceeded' (when not NULL) set first. What a script hands
** C past its memory cap (a recipe's schema, its messages) converts within
** this: shared tables repeat without a depth limit seeing them. */
coax_value *lcoax_to_value_max(lua_State *L, int idx, coax_arena *arena, size_t max_depth, size_t max_bytes,
                               bool *exceeded);

/* Pushes a new list: items 1..'kept' those of the list at 'prefix', the
** rest to 'n' plain copies of the list at 'list''s (their raw data, JSON
** marks and key orders, no other metatable; a table met twice copied once).
** Nesting past 'max_depth' raises as lcoax_to_value does (lib_copy.c). */
void lcoax_push_plain_list(lua_State *L, int list, int prefix, lua_Integer kept, lua_Integer n, size_t max_depth);

/* Reads an optional limits table {max_depth=, max_input=, max_string=}. */
coax_limits lcoax_limits(lua_State *L, int idx);

/* Pushes a repair log as a list of {kind, detail, offset, line, column}. */
/* One repair log entry as a table: {kind, detail, offset, line, column, class}. */
void lcoax_push_repair_entry(lua_State *L, const coax_repair_entry *e);
void lcoax_push_repair_log(lua_State *L, const coax_repair_entry *log, size_t n);

/* Pushes validation errors as a list of {instanceLocation, keywordLocation,
** absoluteKeywordLocation (past a reference), error}. */
void lcoax_push_errors(lua_State *L, const coax_validation *v);

/* The string option 'k' of the options table at 't', or NULL; raises for a
** value that is not a string. The string is appended to the table at the
** absolute index 'anchor', which keeps it alive while the caller keeps that
** table: neither __index nor the host's own table is trusted to. */
const char *lcoax_opt_string(lua_State *L, int t, const char *k, int anchor);

/* Raises a Lua error for a coax_code with its message; for COAX_ENOMEM,
** first runs the state's stop check, if one is set. */
int lcoax_error(lua_State *L, coax_code code, const coax_error *err);

/* Sets the function lcoax_error runs before it raises COAX_ENOMEM: the
** engine's, which raises the script's stop if one is pending (the cap
** refused the memory). A host interpreter's state has none. */
void lcoax_set_stop_check(lua_State *L, lua_CFunction check);

/* Whether the key at 'a' comes before the key at 'b' in the order an error
** picks the one bad key it names by. pairs' order follows the string hash,
** which Lua seeds afresh for every state (lstate.c's luai_makeseed: the
** clock and the addresses), so "the first bad key lua_next gives" named
** another key from run to run. Strings first, by bytes; then numbers, by
** value; then the other types by name (a key of those shows as its
** address, the run's own anyway). */
bool lcoax_key_before(lua_State *L, int a, int b);

/* In a lua_next loop, with the key on top: keeps it if it comes before the
** one at '*least' (0: none kept yet, and the first is kept in a new slot
** below the key, whose index '*least' becomes). */
void lcoax_keep_least_key(lua_State *L, int *least);

/* Raises "<fn>: unknown option 'k'" for a key of the options table at
** 'idx' (if a table) that is neither a reply's option (the limits,
** max_class, finish) nor in 'own' (NULL-terminated): a misspelt max_class
** would otherwise read the reply at the default, silently. Of several, the
** least (lcoax_key_before). */
void lcoax_check_keys(lua_State *L, int idx, const char *fn, const char *const *own);

/* Reads what a reply's reading depends on from the options table at 'idx'
** (if a table) into 'xo': max_class ("lossless", "inferred", "invented")
** and finish (the provider's finish reason: "length" is a cut, "stop" says
** the model stopped). Raises on a bad max_class. */
void lcoax_reply_options(lua_State *L, int idx, coax_extract_options *xo);

/* A coax allocator over the state's own (lua_getallocf), so a memory cap on
** the state covers coax's memory too. It lives where the caller puts it
** (beside what it allocates, in a userdata). */
typedef struct lcoax_lua_alloc {
    coax_allocator alloc;
    lua_Alloc f;
    void *ud;
    size_t live; /* bytes allocated through it and not freed */
} lcoax_lua_alloc;

/* Fills 'a' for 'L' and returns its allocator. */
const coax_allocator *lcoax_lua_allocator(lua_State *L, lcoax_lua_alloc *a);

/* Pushes a new table of every function of the library that touches no
** file, engine or host: what scripts get as their coax module, and what
** luaopen_coax (engine/lua/) adds coax.run and coax.engine to. */
int lcoax_open_library(lua_State *L);

/* Each part of the library adds its functions to the table on top. */
void lcoax_open_json(lua_State *L);
void lcoax_open_repair(lua_State *L);
void lcoax_open_extract(lua_State *L);
void lcoax_open_schema(lua_State *L);
void lcoax_open_example(lua_State *L);
void lcoax_open_tokens(lua_State *L);
void lcoax_open_pattern(lua_State *L);

#endif
