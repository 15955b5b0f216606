/*
** stack.c: the floor of the C stack for the engine's recursions (stack.h).
*/
#define _GNU_SOURCE /* pthread_getattr_np */
#include "base/stack.h"

#if defined(__linux__)
#include <pthread.h>
#endif

_Thread_local uintptr_t coax_stack_floor;

/* What may still run below the floor, unchecked: Lua's handling of its
** "C stack overflow" (16 KiB), a few levels of a recursion between two of
** its checks, the leaf C functions a script calls there. */
#define STACK_RESERVE (COAX_STACK_SCALE * 64u * 1024u)

/* The lowest address of this thread's stack, or 0 when unknown; read once
** a thread (for the main one glibc reads /proc/self/maps). */
static _Thread_local uintptr_t stack_low;
static _Thread_local bool stack_low_read;

static uintptr_t thread_stack_low(void)
{
    if (stack_low_read) return stack_low;
    stack_low_read = true;
#if defined(__linux__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr;
        size_t size;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) stack_low = (uintptr_t)addr;
        pthread_attr_destroy(&attr);
    }
#endif
    return stack_low;
}

/* The floor is COAX_STACK_BUDGET below the outermost call, and never
** nearer the thread's end than STACK_RESERVE: on a thread of less than the
** 512 KiB the README asks (256 KiB, a host's choice) the recursions and
** Lua's nesting stop early instead of running off it. */
uintptr_t coax_stack_arm(void)
{
    uintptr_t before = coax_stack_floor;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (before) return before;
    uintptr_t floor = here > COAX_STACK_BUDGET ? here - COAX_STACK_BUDGET : 0;
    uintptr_t low = thread_stack_low();
    if (low && here > low && floor < low + STACK_RESERVE)
        floor = here - low > STACK_RESERVE ? low + STACK_RESERVE : here; /* nothing left: every check stops */
    coax_stack_floor = floor;
    return before;
}

void coax_stack_restore(uintptr_t before)
{
    coax_stack_floor = before;
}
