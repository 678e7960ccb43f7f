/* half_precision.h - float16 and bfloat16 programs computed in float32, rounded where
 * torch rounds.
 *
 * Torch's CPU kernels for half-precision tensors widen each element to float32, compute
 * (products and reductions accumulate in float32) and round the result to the tensor's
 * dtype once, when the op writes it.  So a half-precision program is the float32 program
 * whose every computed value is rounded to half precision after its op.  This pass makes
 * the program say so, and every float32 lowering then serves float16 and bfloat16 alike:
 *
 * - a user input of a half dtype keeps its dtype (the caller's buffer) and is widened
 *   once, by a `_to_copy` to float32 the pass puts first; its readers read the copy;
 * - a weight of a half dtype is widened at export (its bytes in the library are float32);
 * - every other half value becomes float32 with `meta.rounds_to` set: an elementwise op
 *   rounds it in its loop (the code generator), any other computing op (a product, a
 *   reduction, a norm, an attention) is followed by a `_to_copy` that rounds it, and ops
 *   that only move elements (views, indexing, concatenation) need no rounding;
 * - a user output of a half dtype is narrowed by a final `_to_copy` into the caller's
 *   dtype, under its own name, so the library's signature is the program's.
 *
 * Every float32 value standing for a half-precision one has `meta.rounds_to` set (inputs,
 * weights and moved elements too): a kernel may then take its operands in that dtype, as
 * the linear layers do in bfloat16 where the CPU has bfloat16 dot products
 * (sc_k_linear_site_bf16), with the same float32 accumulation.
 *
 * A half buffer the program updates (a mutation) stays float32 inside the library; an
 * update of the caller's half-precision input is narrowed into it.
 *
 * requires: an analysed program (the values' symbolic shapes); the weights bound
 * provides: no value of a half dtype is read or written by any node other than the
 *           conversions at the entry and the exit */
#ifndef SC_HALF_PRECISION_H
#define SC_HALF_PRECISION_H

#include <stdbool.h>

#include "ir/graph.h"
#include "ir/weights.h"

/* True when the program has a tensor of dtype float16 or bfloat16. */
bool sc_program_has_half(const sc_program *p);
/* Rewrites p (and widens w's half tensors that p reads) as above. */
void sc_compute_half_in_float32(sc_ctx *ctx, sc_program *p, sc_weights *w);

#endif
