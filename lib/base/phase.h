/* phase.h - wall-clock timings of an export's phases, printed under `shapec export -v`.
 *
 * A phase is timed from sc_phase_start to sc_phase_end; with the context's `verbose` set,
 * each finished phase prints one line to stderr at once, so a long export shows its
 * progress as it goes:  `shapec: [  1.234 s] LLVM optimization: 0.812 s`. */
#ifndef SC_PHASE_H
#define SC_PHASE_H

#include "context.h"

/* Seconds on the monotonic clock. */
double sc_clock_seconds(void);
/* The time a phase starts; pass it to sc_phase_end. */
double sc_phase_start(void);
/* Ends the phase `name` started at `started`: prints it when ctx->verbose. */
void sc_phase_end(sc_ctx *ctx, const char *name, double started);

#endif
