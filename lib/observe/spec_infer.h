/* spec_infer.h - one dynamic_shapes spec from the observations of every rank, with the
 * automatic-dynamic rule of torch's compiler collectives: a dim that takes more than one
 * value anywhere is dynamic everywhere, a dim that never changes stays static.
 *
 * requires: observations merged in rank order (observations.h); optionally the model
 * provides: the spec, in torch's serialized form, that every rank computes the same
 *           whichever of them merges.  With the model: dims that the program relates share
 *           one Dim (from the analysis's suggested fixes), and every observed call is
 *           checked against the resulting contract (a call the library would refuse is an
 *           error naming its rank, call and dim). */
#ifndef SC_SPEC_INFER_H
#define SC_SPEC_INFER_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "lib/base/context.h"
#include "lib/base/strbuf.h"
#include "observations.h"

typedef struct sc_infer_options {
  const char *model;            /* relate dims and check the calls against it; NULL: none */
  bool ranges;                  /* named Dims with the observed [min, max] instead of AUTO */
  bool prefer_deferred_asserts; /* analyse as export --prefer-deferred-runtime-asserts */
} sc_infer_options;

/* The spec (caller deletes), or NULL with errors recorded.  summary (may be NULL) gets a
 * line per input dim saying what was decided and why. */
cJSON *sc_spec_infer(sc_ctx *ctx, const sc_obs_set *set, const sc_infer_options *o, sc_strbuf *summary);

#endif
