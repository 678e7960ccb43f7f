/* cg_conv_round.c - a convolution that rounds its own output to half precision.
 *
 * In a bfloat16 or float16 program every convolution's float32 result is followed by a
 * rounding copy (passes/half_precision.c), as torch rounds each op's result.  That copy
 * was a pass of its own between convolutions, and it hid the batch norm, residual add and
 * ReLU after it from the folds that give float32 networks their speed: each activation
 * left oneDNN's blocked layout and came back (docs/benchmarks.md measured a bfloat16
 * network 1.5x slower than its float32 self).  On the CPU path the convolution now takes
 * the copy: oneDNN's bfloat16 kernel writes bfloat16 elements (rounded to nearest even, as
 * torch rounds), any other kernel rounds its output in place after it (onednn.c).  The
 * copy's output becomes the convolution's buffer, so the folds of cg_fold.c and
 * cg_epilogue.c and the blocked layouts of cg_conv_layout.c apply as in float32, with
 * bfloat16 activations of half the bytes between convolutions.
 *
 * What it changes in the numbers: an op folded after the convolution (batch norm, a
 * residual add) is computed in float32 before the one rounding, where torch rounds
 * between them, as Inductor's fusions do (docs/half-precision.md). */
#include "lower.h"

/* The rounding copy node k absorbs into a convolution: the convolution's node, or -1. */
static int rounded_convolution(cg *g, size_t k) {
  const sc_graph *gr = g->p->graph;
  const sc_node *n = &gr->nodes[k];
  if (n->op->id != SC_OP_TO_COPY || g->folded[k].into || n->n_outputs != 1 || n->outputs[0].n_items != 1) return -1;
  const sc_value *out = n->outputs[0].items[0].value, *in = cg_tensor_input(n, "self");
  if (!out || !in || out->meta.dtype != SC_DTYPE_F32 || in->meta.dtype != SC_DTYPE_F32) return -1;
  if ((out->meta.rounds_to != SC_DTYPE_BF16 && out->meta.rounds_to != SC_DTYPE_F16) ||
      in->meta.rounds_to != SC_DTYPE_UNKNOWN || in->def_node < 0 || cg_get(g, in)->uses != 1)
    return -1;
  size_t c = (size_t)in->def_node;
  if (g->folded[c].into) c = (size_t)g->folded[c].into->v->def_node; /* through a batch norm folded in */
  const sc_node *cn = &gr->nodes[c];
  if (!cg_is_batched_conv2d(cn)) return -1;
  if (g->folded[c].round_to != SC_DTYPE_UNKNOWN && g->folded[c].round_to != out->meta.rounds_to) return -1;
  return (int)c;
}

void cg_plan_conv_rounding(cg *g) {
  if (g->has_cuda) return; /* the device path has its own kernels, and keeps the copies */
  const sc_graph *gr = g->p->graph;
  for (size_t k = 0; k < gr->n_nodes; k++) {
    int c = rounded_convolution(g, k);
    if (c < 0) continue;
    cg_value *rounded = cg_get(g, gr->nodes[k].outputs[0].items[0].value);
    g->folded[c].round_to = rounded->v->meta.rounds_to;
    g->folded[k].into = cg_get(g, gr->nodes[c].outputs[0].items[0].value);
    rounded->inlined = false; /* its readers read the convolution's buffer */
    g->absorbed.conv_roundings++;
  }
}
