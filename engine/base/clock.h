/*
** clock.h: the engine's one clock (clock.c), monotonic: timers, deadlines,
** elapsed times and the VM's time charge all read it, never the wall clock
** a host may set back; and the thread's CPU time, for that charge.
*/
#ifndef COAX_CLOCK_H
#define COAX_CLOCK_H

#include <stdint.h>

/* Milliseconds since an arbitrary point (CLOCK_MONOTONIC). */
double coax_now_ms(void);

/* The same clock in nanoseconds, for the VM's fine time charge. */
uint64_t coax_now_ns(void);

/* The CPU time the calling thread has used, in nanoseconds
** (CLOCK_THREAD_CPUTIME_ID): what the VM charges a script when the clock
** above says a stretch was long, since a machine's load stretches the
** clock too. A system call (about 1 us), where coax_now_ns is not: read
** only then. */
uint64_t coax_cpu_ns(void);

#endif
