/* derived_roots.h - which symbol torch.export writes a Dim's derived sizes in.
 *
 * torch gives every input dim its own symbol, and a Dim that no input dim is by itself
 * (only `r - 1`, `2*r + 1` appear) a "phantom" symbol.  It then solves each derived
 * equality, size = a*root + b, for the symbol with the larger sample (ShapeEnv's
 * _maybe_guard_rel), when the solution has integer coefficients.  So `x: [r], y: [r - 1]`
 * comes out as x = s + 1, y = s (s being y's size, whose sample is smaller), and
 * `x: [r - 1]` alone as a size of its own, in [min - 1, max - 1]; `x: [r + 1]` stays
 * r + 1.  test/cli/derived_roots holds torch 2.14's answers. */
#ifndef SC_DERIVED_ROOTS_H
#define SC_DERIVED_ROOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/dynspec.h"
#include "lib/base/context.h"

typedef struct sc_root_orientation {
  const sc_root_dim *root;
  bool phantom;                   /* no input dim is the Dim itself */
  const sc_input_dims *base_input; /* the derived dim whose own symbol the Dim's sizes are
                                      written in; NULL: the Dim's symbol, as written */
  int base_dim;
  int64_t delta;                  /* the Dim = that size + delta */
  const char *symbol;             /* the base's symbol, once the analysis made it */
} sc_root_orientation;

/* One per root of spec (in spec->roots' order), or NULL when the spec has none. */
sc_root_orientation *sc_orient_derived_roots(sc_ctx *ctx, const sc_dynspec *spec);

#endif
