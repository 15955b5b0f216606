/*
** stack.h: the C stack the engine's recursions may still use (stack.c).
** A recipe's Lua nests up to 200 C calls (a callback of string.gsub takes
** 2 KB of stack), and under them it may start engine work that recurses
** at its own limits (a validation of 1,024 evaluations takes about
** 350 KB): together 800 KB, past the 512 KiB the README asks of a host
** thread. The VM sets a floor COAX_STACK_BUDGET below its outermost call;
** the recursions that a script can start (validation, the schema
** compiler, example generation, a Lua table's conversion) stop at it with
** COAX_EDEPTH, as at their nesting limits; Lua's own calls into Lua (the
** vendored lstate.c) and cjson's nesting stop at it too. A host's limits
** may be any size (coax_limits.max_depth, a schema's max_depth), so
** coax_schema_compile, coax_validate and coax_extract set one as well
** when no call above set it; an extraction reads only the nesting the
** stack left to it holds (its looks recurse: extract/nesting.c).
*/
#ifndef COAX_STACK_H
#define COAX_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ASan's frames are several times larger (its specs give it 4 times the stack) */
#if defined(__SANITIZE_ADDRESS__)
#define COAX_STACK_SCALE 4u
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COAX_STACK_SCALE 4u
#endif
#endif
#ifndef COAX_STACK_SCALE
#define COAX_STACK_SCALE 1u
#endif
#define COAX_STACK_BUDGET (COAX_STACK_SCALE * 448u * 1024u) /* 64 KiB of the 512 left for what runs before and after */

#define COAX_STACK_WHY "deeper than the C stack left to it (448 KiB from the outermost call, a script's C calls included)"

extern _Thread_local uintptr_t coax_stack_floor; /* 0: none */

/* Sets the floor COAX_STACK_BUDGET below the caller unless one is set;
** returns the floor before, for coax_stack_restore. */
uintptr_t coax_stack_arm(void);
void coax_stack_restore(uintptr_t before);

/* The bytes of C stack between the caller's frame and the floor: 0 below
** it, SIZE_MAX when none is set. */
static inline size_t coax_stack_left(void)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (!coax_stack_floor) return SIZE_MAX;
    return here > coax_stack_floor ? here - coax_stack_floor : 0;
}

/* The caller's frame is below the floor (the stack grows down on every
** target coax builds for). */
static inline bool coax_stack_short(void)
{
    return coax_stack_floor && (uintptr_t)__builtin_frame_address(0) < coax_stack_floor;
}

#endif
