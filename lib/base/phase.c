/* phase.c - phase timings; see phase.h. */
#include "phase.h"

#include <stdio.h>
#include <time.h>

double sc_clock_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double sc_phase_start(void) { return sc_clock_seconds(); }

void sc_phase_end(sc_ctx *ctx, const char *name, double started) {
  if (!ctx->verbose) return;
  double now = sc_clock_seconds();
  if (ctx->started == 0) ctx->started = started;
  fprintf(stderr, "shapec: [%8.3f s] %s: %.3f s\n", now - ctx->started, name, now - started);
  fflush(stderr);
}
