/*
** clock.h: the engine's one clock (clock.c), monotonic: timers, deadlines,
** elapsed times and the VM's time charge all read it, never the wall clock
** a host may set back.
*/
#ifndef COAX_CLOCK_H
#define COAX_CLOCK_H

#include <stdint.h>

/* Milliseconds since an arbitrary point (CLOCK_MONOTONIC). */
double coax_now_ms(void);

/* The same clock in nanoseconds, for the VM's fine time charge. */
uint64_t coax_now_ns(void);

#endif
