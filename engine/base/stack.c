/*
** stack.c: the floor of the C stack for the engine's recursions (stack.h).
*/
#include "base/stack.h"

_Thread_local uintptr_t coax_stack_floor;

uintptr_t coax_stack_arm(void)
{
    uintptr_t before = coax_stack_floor;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (!before && here > COAX_STACK_BUDGET) coax_stack_floor = here - COAX_STACK_BUDGET;
    return before;
}

void coax_stack_restore(uintptr_t before)
{
    coax_stack_floor = before;
}
