/* cg_batch_first.c - nn.MultiheadAttention(batch_first=True)'s result in batch-first rows.
 *
 * After its attention the layer takes the heads' result [N, H, L, D] through
 * permute(2, 0, 1, 3) to [L, N, H, D], reshapes that to [L N, E] for the out-projection, and
 * views the projection's rows back as [L, N, E'] to transpose them to batch-first [N, L, E'].
 * A linear layer treats its rows alike, so they may as well come in batch-first order: the
 * attention writes its result as [N, L, H, D] (the permutation's buffer with its first two
 * dims swapped), the projection's rows are then in (n, l) order, and the transpose back is
 * the projection's buffer as it is (folded into it, as a batch norm into its convolution).
 * The transpose was a copy, or a strided read by the residual add after it
 * (nn.TransformerEncoderLayer), which could then be neither the projection's epilogue nor
 * part of the layer norm after that (cg_epilogue.c, cg_tiny_linear.c).
 *
 * Every step between the attention and the transpose must be read by the next step alone:
 * only the transpose's result is a compact tensor in its own order. */
#include <string.h>

#include "lower.h"

/* The node that alone reads v (and v is no graph output), or NULL. */
static const sc_node *sole_reader(cg *g, const sc_value *v, int *input) {
  int readers;
  const cg_read *reads = cg_readers(g, v, &readers);
  if (readers != 1 || cg_get(g, v)->uses != 1 || reads[0].item != 0) return NULL;
  *input = reads[0].input;
  return &g->p->graph->nodes[reads[0].node];
}

static const sc_value *result(const sc_node *n) {
  return n->n_outputs == 1 && n->outputs[0].n_items == 1 ? n->outputs[0].items[0].value : NULL;
}

static bool is_reshape(const sc_node *n) {
  return n->op->id == SC_OP_VIEW || n->op->id == SC_OP_RESHAPE || n->op->id == SC_OP_UNSAFE_VIEW;
}

/* Whether n permutes its rank-`rank` input "self" as `want`. */
static bool permutes(const sc_node *n, int input, int rank, const int *want) {
  int perm[CG_MAX_RANK];
  const sc_value *out = result(n);
  if ((n->op->id != SC_OP_PERMUTE && n->op->id != SC_OP_TRANSPOSE) || strcmp(n->inputs[input].name, "self") != 0 || !out ||
      out->meta.rank != rank)
    return false;
  cg_permutation_of(n, rank, perm);
  return memcmp(perm, want, (size_t)rank * sizeof *perm) == 0;
}

void cg_plan_batch_first_attention(cg *g) {
  if (g->has_cuda || !g->folded) return; /* the device path runs the nodes one by one */
  const sc_graph *gr = g->p->graph;
  static const int heads_last[4] = {2, 0, 1, 3}, swap[3] = {1, 0, 2};
  for (size_t s = 0; s < gr->n_nodes; s++) {
    const sc_node *sn = &gr->nodes[s];
    const sc_value *heads = sn->op->id == SC_OP_SDPA ? result(sn) : NULL;
    if (!heads || heads->meta.rank != 4 || heads->meta.dtype != SC_DTYPE_F32) continue;
    int in;
    const sc_node *pn = sole_reader(g, heads, &in); /* permute(2, 0, 1, 3): [L, N, H, D] */
    if (!pn || !permutes(pn, in, 4, heads_last)) continue;
    const sc_value *p = result(pn);
    const sc_node *rn = sole_reader(g, p, &in); /* reshape to [L N, E] */
    const sc_value *rows = rn && is_reshape(rn) ? result(rn) : NULL;
    if (!rows || rows->meta.rank != 2 || rows->shape[0] != sc_expr_mul(g->ctx, p->shape[0], p->shape[1]) ||
        rows->shape[1] != sc_expr_mul(g->ctx, p->shape[2], p->shape[3]))
      continue;
    const sc_node *ln = sole_reader(g, rows, &in); /* the out-projection */
    const sc_value *proj = ln && ln->op->id == SC_OP_LINEAR && strcmp(ln->inputs[in].name, "input") == 0 ? result(ln) : NULL;
    if (!proj || proj->meta.rank != 2 || proj->meta.dtype != SC_DTYPE_F32) continue;
    const sc_node *vn = sole_reader(g, proj, &in); /* viewed as [L, N, E'] */
    const sc_value *view = vn && is_reshape(vn) ? result(vn) : NULL;
    if (!view || view->meta.rank != 3 || view->shape[0] != p->shape[0] || view->shape[1] != p->shape[1] ||
        view->shape[2] != proj->shape[1])
      continue;
    const sc_node *tn = sole_reader(g, view, &in); /* and transposed to [N, L, E'] */
    if (!tn || !permutes(tn, in, 3, swap)) continue;
    cg_value *hv = cg_get(g, heads), *pv = cg_get(g, p);
    if (hv->view_base || hv->inlined || pv->inlined) continue;
    /* the attention writes [N, H, L, D] into the permutation's buffer, which holds [N, L, H, D] */
    hv->view_base = pv;
    hv->writes_into_base = true;
    for (int d = 0; d < 4; d++) hv->view_perm[heads_last[d]] = d;
    pv->written_by_producer = true;
    pv->held_swapped = true;
    g->folded[tn - gr->nodes].into = cg_get(g, proj);
    g->absorbed.permuted_results++;
    g->absorbed.batch_first++;
  }
}
