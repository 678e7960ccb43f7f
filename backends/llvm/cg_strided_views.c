/* cg_strided_views.c - views that fused loops read in place.
 *
 * A slice, select, narrow, expand or permutation is lowered as a copy into a compact
 * buffer, since most kernels read compact tensors.  Where every reader of the view is a
 * fused elementwise loop, the copy is a pass over memory that the loop could do itself: it
 * already reads each operand through per-dim strides (0 where it broadcasts).  Such views
 * are marked here; lower_view (cg_ops.c) then gives them their input's memory and strides,
 * and collect_leaves (cg_elementwise.c) reads them through those.  x[:, ::2] + 1 on [64,
 * 512, 64] took 2.5x torch's time as a copy and an add, x * y.expand(-1, 512, -1) 3x. */
#include <stdlib.h>

#include "lower.h"

static bool is_view_op(const sc_node *n) {
  if (!n->op || n->n_outputs != 1) return false;
  switch (n->op->id) {
    case SC_OP_SLICE: case SC_OP_SELECT: case SC_OP_NARROW: case SC_OP_EXPAND: case SC_OP_EXPAND_AS:
    case SC_OP_PERMUTE: case SC_OP_TRANSPOSE: case SC_OP_T:
      return true;
    default:
      return false;
  }
}

/* The node whose loop computes node i: i itself, or, when its result is inlined, the
 * loop of its one reader, and so on. */
static int loop_root(cg *g, const int *reader, int i) {
  const sc_graph *gr = g->p->graph;
  for (int steps = 0; steps < (int)gr->n_nodes; steps++) {
    const sc_node *n = &gr->nodes[i];
    if (n->n_outputs < 1 || !n->outputs[0].n_items || !n->outputs[0].items[0].value) return i;
    if (!cg_get(g, n->outputs[0].items[0].value)->inlined || reader[i] < 0) return i;
    i = reader[i];
  }
  return -1;
}

/* An identity that only renames its input (dropout in eval, detach, alias): a view reaches
 * the loops through it.  nn.TransformerEncoderLayer's transpose back to batch-first reaches
 * its residual add through a dropout. */
static bool passes_view_on(const sc_node *n) {
  if (!n->op || n->n_outputs != 1 || !n->outputs[0].n_items || !n->outputs[0].items[0].value) return false;
  return n->op->id == SC_OP_DROPOUT || n->op->id == SC_OP_DETACH || n->op->id == SC_OP_ALIAS;
}

/* Whether every reader of value v is a fused loop of the CPU path's own (an elementwise
 * node whose loop root is not folded into a kernel: a convolution's residual, the attention
 * kernel) or an identity whose readers all are; v is no graph output.  With `mark`, those
 * identities' results are marked strided. */
static bool read_by_loops_only(cg *g, const sc_value *v, const int *reader, bool mark) {
  int readers;
  const cg_read *reads = cg_readers(g, v, &readers);
  for (int r = 0; r < readers; r++) {
    int i = reads[r].node;
    const sc_node *n = &g->p->graph->nodes[i];
    if (passes_view_on(n) && reads[r].input == 0 && reads[r].item == 0) {
      const sc_value *w = n->outputs[0].items[0].value;
      if (!read_by_loops_only(g, w, reader, mark)) return false;
      if (mark) cg_get(g, w)->strided = true;
      continue;
    }
    if (!cg_is_elementwise(n) || g->folded[i].into || g->folded[i].in_attention) return false;
    int root = loop_root(g, reader, i);
    if (root < 0 || g->folded[root].into || g->folded[root].in_attention) return false;
  }
  return readers > 0 && readers == cg_get(g, v)->uses;
}

void cg_plan_strided_views(cg *g) {
  if (g->has_cuda || !g->folded) return; /* the device kernels read compact operands */
  const sc_graph *gr = g->p->graph;
  int *reader = malloc((gr->n_nodes + 1) * sizeof *reader); /* an inlined node's one reader */
  if (!reader) return;
  cg_inlined_readers(g, reader);
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    if (!is_view_op(n) || !n->outputs[0].n_items || !n->n_inputs || !n->inputs[0].arg.n_items) continue;
    const sc_value *out = n->outputs[0].items[0].value, *in = n->inputs[0].arg.items[0].value;
    if (!out || !in || out->kind != SC_VALUE_TENSOR || in->kind != SC_VALUE_TENSOR || !cg_llvm_type(g, out->meta.dtype))
      continue;
    cg_value *cv = cg_get(g, out), *x = cg_get(g, in);
    /* the input must be compact (not a view of these kinds or of cg_transpose.c's), and the
     * view not one that a product reads or writes in place already */
    if (x->strided || x->transposed || x->view_base || x->inlined || cv->view_base || cv->written_by_producer ||
        cv->transposed || g->folded[i].into)
      continue;
    cv->strided = read_by_loops_only(g, out, reader, false) && read_by_loops_only(g, out, reader, true);
    g->absorbed.strided_views += cv->strided;
  }
  free(reader);
}
