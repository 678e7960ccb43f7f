/* cg_conv_pool.c - a convolution's global average pool, computed by the convolution.
 *
 * A small CNN ends in conv -> (batch norm) -> ReLU -> a global average pool: the
 * convolution writes every output plane and the pool reads each back to sum it.  Where the
 * pool alone reads the convolution's output (through a batch norm and an activation folded
 * into it, cg_fold.c), the convolution site computes the means itself (SC_CONV_MEAN_HW):
 * the kernel that keeps two output rows per register (conv_pair_rows.c) sums them there and
 * writes no plane; any other convolution runs as before into a block of its own that the
 * pool's kernel then reads (onednn.c).  In cnn_pool (bench/small_models.py) the pool's
 * rows and calls were 13% of the call. */
#include "lower.h"

static bool is_graph_output(const sc_graph *gr, const sc_value *v) {
  for (size_t i = 0; i < gr->n_outputs; i++)
    for (size_t j = 0; j < gr->outputs[i].n_items; j++)
      if (gr->outputs[i].items[j].value == v) return true;
  return false;
}

/* A value that only the next node of the chain reads: not a graph output, one reader. */
static bool read_once(cg *g, const sc_value *v) {
  return v && v->kind == SC_VALUE_TENSOR && v->def_node >= 0 && cg_get(g, v)->uses == 1 && !cg_get(g, v)->inlined &&
         !is_graph_output(g->p->graph, v);
}

/* A global average pool over a rank-4 float32 tensor: adaptive_avg_pool2d to 1x1 (torch.export
 * writes it so), or mean over dims 2 and 3, kept or not (the mean a trace decomposes it to,
 * and x.mean((2, 3))).  Either way its output holds one float per plane, in plane order. */
static bool is_global_average_pool(const sc_node *p) {
  if (p->n_outputs != 1 || p->outputs[0].n_items != 1) return false;
  const sc_value *out = p->outputs[0].items[0].value;
  if (!out || out->meta.dtype != SC_DTYPE_F32) return false;
  if (p->op->id == SC_OP_ADAPTIVE_AVG_POOL2D) {
    int64_t h, w;
    return out->meta.rank == 4 && sc_expr_is_const(out->shape[2], &h) && sc_expr_is_const(out->shape[3], &w) && h == 1 &&
           w == 1;
  }
  if (p->op->id != SC_OP_MEAN_DIM) return false;
  const sc_arg *dims = cg_node_arg(p, "dim"), *dtype = cg_node_arg(p, "dtype");
  if (!dims || dims->n_items != 2 || (dtype && dtype->n_items && !dtype->items[0].is_none)) return false;
  bool seen[4] = {false, false, false, false};
  for (size_t i = 0; i < 2; i++) {
    int64_t d = dims->items[i].i;
    if (d < -4 || d > 3) return false;
    seen[d < 0 ? d + 4 : d] = true;
  }
  return seen[2] && seen[3];
}

void cg_plan_conv_pools(cg *g) {
  if (g->has_cuda) return; /* the device path has its own kernels */
  const sc_graph *gr = g->p->graph;
  for (size_t p = 0; p < gr->n_nodes; p++) {
    const sc_node *pn = &gr->nodes[p];
    const sc_value *in = is_global_average_pool(pn) ? cg_tensor_input(pn, "self") : NULL;
    if (!read_once(g, in) || in->meta.rank != 4) continue;
    /* back through the nodes folded into the convolution, each read by the next alone */
    size_t c = (size_t)in->def_node;
    bool chain = true;
    for (size_t steps = 0; g->folded[c].into && chain && steps < gr->n_nodes; steps++) {
      const sc_value *conv_out = g->folded[c].into->v;
      chain = read_once(g, conv_out) && conv_out->def_node >= 0;
      if (chain) c = (size_t)conv_out->def_node;
    }
    const sc_node *cn = &gr->nodes[c];
    /* a convolution that rounds its output (cg_conv_round.c) gives the pool rounded planes */
    if (!chain || !cg_is_batched_conv2d(cn) || g->folded[c].mean_hw || g->folded[c].round_to ||
        g->folded[c].kernel_layout_out || !read_once(g, cn->outputs[0].items[0].value))
      continue;
    g->folded[c].mean_hw = cg_get(g, pn->outputs[0].items[0].value);
    g->folded[p].pooled_by_conv = true;
    g->absorbed.conv_pools++;
  }
}
