/* cg_epilogue.c - what a matrix product absorbs from the node after it, on the CPU path.
 *
 * Attention scales its scores, softmax(q @ k^T / sqrt(d)); a transformer block adds its
 * input back after a linear layer, x + linear(y).  Each is a pass over the product's
 * output that the product itself can do while writing it:
 * - a multiplication or division by a number after bmm or a batched matmul becomes the
 *   product's alpha (BLAS's C = alpha * A B); a division by c becomes alpha = 1 / c, which
 *   may round differently from torch's division by one unit in the last place;
 * - an add of a same-shaped tensor after a linear layer becomes the layer's residual
 *   (oneDNN's binary post-op; OpenBLAS starts from bias + residual instead of the bias);
 * - so does an add after a convolution (and the batch norm folded into it), as in
 *   resnet's blocks, relu(bn(conv(x)) + identity): oneDNN's sum post-op, before the ReLU
 *   that cg_fold.c then adds.  The residual may come in the kernel's blocked layout
 *   (cg_conv_layout.c), so a block's output never goes back to NCHW between blocks.
 * The absorbed node's output is then the product's buffer (g->folded[node].into). */
#include <math.h>
#include <string.h>

#include "lower.h"
#include "runtime_abi.h"

static const sc_arg *node_arg(const sc_node *n, const char *name) {
  for (size_t k = 0; k < n->n_inputs; k++)
    if (strcmp(n->inputs[k].name, name) == 0) return &n->inputs[k].arg;
  return NULL;
}

static const sc_value *sole_output(const sc_node *n) {
  if (n->n_outputs != 1 || n->outputs[0].n_items != 1) return NULL;
  return n->outputs[0].items[0].value;
}

/* A number argument (not a tensor): *out. */
static bool number_arg(const sc_node *n, const char *name, double *out) {
  const sc_arg *a = node_arg(n, name);
  if (!a || a->n_items != 1 || a->items[0].value || a->items[0].is_none) return false;
  if (a->kind == SC_ARG_FLOAT) *out = a->items[0].f;
  else if (a->kind == SC_ARG_INT) *out = (double)a->items[0].i;
  else return false;
  return true;
}

/* The float32 output of node `producer` when node `reader` is its only reader and reads it
 * as `name`, or NULL. */
static cg_value *only_reader_of(cg *g, const sc_node *reader, const char *name) {
  const sc_value *v = cg_tensor_input(reader, name);
  if (!v || v->def_node < 0 || v->meta.dtype != SC_DTYPE_F32) return NULL;
  cg_value *cv = cg_get(g, v);
  return cv->uses == 1 ? cv : NULL;
}

/* x * c, x / c after a strided product (cg_transpose.c): the product's alpha. */
static void plan_scale(cg *g, size_t i) {
  const sc_node *n = &g->p->graph->nodes[i];
  int id = n->op->id;
  double c;
  if ((id != SC_OP_MUL_TENSOR && id != SC_OP_MUL_SCALAR && id != SC_OP_DIV_TENSOR && id != SC_OP_DIV_SCALAR) ||
      !number_arg(n, "other", &c) || !(c != 0 && isfinite(c)))
    return;
  cg_value *x = only_reader_of(g, n, "self");
  const sc_value *out = sole_output(n);
  if (!x || !out || out->meta.dtype != SC_DTYPE_F32 || cg_get(g, out)->inlined) return;
  size_t p = (size_t)x->v->def_node;
  if (!cg_is_strided_product(&g->p->graph->nodes[p]) || g->folded[p].scale) return;
  g->folded[p].scale = id == SC_OP_MUL_TENSOR || id == SC_OP_MUL_SCALAR ? c : 1.0 / c;
  g->folded[i].into = x;
  g->absorbed.scales++;
}

/* Whether any node strictly between `from` and `to` reads v (it might change it in place,
 * and the product reads v at `from`). */
static bool read_between(const sc_graph *gr, size_t from, size_t to, const sc_value *v) {
  for (size_t i = from + 1; i < to; i++)
    for (size_t k = 0; k < gr->nodes[i].n_inputs; k++)
      for (size_t j = 0; j < gr->nodes[i].inputs[k].arg.n_items; j++)
        if (gr->nodes[i].inputs[k].arg.items[j].value == v) return true;
  return false;
}

/* What y renames when it is the output of an identity at inference (dropout, as
 * nn.TransformerEncoderLayer has before each residual add; detach, alias), each step its
 * input's only reader: the value that node computes.  Those nodes rename their input
 * (lower_view), so the add may take the product's buffer through them. */
static cg_value *through_renames(cg *g, cg_value *y) {
  for (;;) {
    const sc_node *d = &g->p->graph->nodes[y->v->def_node];
    int id = d->op->id;
    if (id != SC_OP_DROPOUT && id != SC_OP_DETACH && id != SC_OP_ALIAS) return y;
    cg_value *x = only_reader_of(g, d, id == SC_OP_DROPOUT ? "input" : "self");
    if (!x || x->v->meta.rank != y->v->meta.rank) return y;
    y = x;
  }
}

/* r + linear(x) or linear(x) + r, same shapes: the layer's residual. */
static void plan_residual(cg *g, size_t i) {
  const sc_graph *gr = g->p->graph;
  const sc_node *n = &gr->nodes[i];
  double alpha = 1;
  if (n->op->id != SC_OP_ADD_TENSOR || (node_arg(n, "alpha") && (!number_arg(n, "alpha", &alpha) || alpha != 1))) return;
  const sc_value *out = sole_output(n);
  if (!out || out->meta.dtype != SC_DTYPE_F32 || cg_get(g, out)->inlined) return;
  for (int side = 0; side < 2; side++) {
    cg_value *y = only_reader_of(g, n, side ? "other" : "self");
    const sc_value *r = cg_tensor_input(n, side ? "self" : "other");
    if (!y || !r || r == y->v || r->meta.dtype != SC_DTYPE_F32 || r->meta.rank != out->meta.rank) continue;
    y = through_renames(g, y);
    /* the batch-first transpose after nn.MultiheadAttention's out-projection is that
     * layer's buffer as it is (cg_batch_first.c) */
    int yid = gr->nodes[y->v->def_node].op->id;
    bool batch_first = (yid == SC_OP_TRANSPOSE || yid == SC_OP_PERMUTE) && g->folded[y->v->def_node].into;
    cg_value *layer_out = batch_first ? g->folded[y->v->def_node].into : y;
    size_t l = (size_t)layer_out->v->def_node;
    const sc_node *ln = &gr->nodes[l];
    const sc_value *w = ln->op->id == SC_OP_LINEAR ? cg_tensor_input(ln, "weight") : NULL;
    const sc_value *bias = cg_tensor_input(ln, "bias");
    /* the layer's own path (cg_ops.c): a 2-D weight, a 1-D bias or none */
    if (!w || w->meta.rank != 2 || (bias && bias->meta.rank != 1) || g->folded[l].residual ||
        y->v->meta.rank != out->meta.rank)
      continue;
    bool same = true;
    for (int d = 0; d < out->meta.rank; d++) same &= r->shape[d] == out->shape[d] && y->v->shape[d] == out->shape[d];
    /* the layer reads r when it runs: r must exist then, in its own buffer, unchanged until the add */
    if (!same || r->def_node >= (int)l || cg_get(g, r)->inlined || read_between(gr, l, i, r)) continue;
    g->folded[l].residual = cg_get(g, r);
    g->folded[i].into = layer_out;
    g->absorbed.residuals++;
    return;
  }
}

/* Whether `add` adds two tensors at alpha 1 (add.Tensor without a scaled `other`, or add_,
 * which computes a new value once inplace_updates.c has run). */
static bool is_plain_add(const sc_node *add) {
  double alpha = 1;
  return (add->op->id == SC_OP_ADD_TENSOR || add->op->id == SC_OP_ADD_) && !(node_arg(add, "alpha") && (!number_arg(add, "alpha", &alpha) || alpha != 1));
}

void cg_plan_conv_residuals(cg *g) {
  if (g->has_cuda) return; /* the device path has its own kernels */
  const sc_graph *gr = g->p->graph;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    const sc_value *out = sole_output(n);
    if (!is_plain_add(n) || !out || out->meta.dtype != SC_DTYPE_F32 || out->meta.rank != 4) continue;
    for (int side = 0; side < 2; side++) {
      cg_value *y = only_reader_of(g, n, side ? "other" : "self");
      const sc_value *r = cg_tensor_input(n, side ? "self" : "other");
      if (!y || !r || r == y->v || r->meta.dtype != SC_DTYPE_F32 || r->meta.rank != 4) continue;
      size_t c = (size_t)y->v->def_node;
      if (g->folded[c].into) c = (size_t)g->folded[c].into->v->def_node; /* through a folded batch norm */
      const sc_node *cn = &gr->nodes[c];
      if (!cg_is_batched_conv2d(cn) || g->folded[c].residual || g->folded[c].act) continue;
      bool same = true;
      for (int d = 0; d < 4; d++) same &= r->shape[d] == out->shape[d] && y->v->shape[d] == out->shape[d];
      /* the convolution reads r when it runs: r must exist then, in its own buffer,
       * unchanged until the add (in resnet's downsampling blocks the identity's
       * convolution runs after the block's second one, and takes the add) */
      if (!same || r->def_node >= (int)c || cg_get(g, r)->inlined || read_between(gr, c, i, r)) continue;
      g->folded[c].residual = cg_get(g, r);
      g->folded[i].into = cg_get(g, cn->outputs[0].items[0].value);
      cg_get(g, out)->inlined = false; /* its reader (a ReLU the kernel takes too) reads the kernel's buffer */
      g->absorbed.conv_residuals++;
      break;
    }
  }
}

void cg_plan_product_epilogues(cg *g) {
  if (g->has_cuda) return; /* the device path has its own kernels */
  for (size_t i = 0; i < g->p->graph->n_nodes; i++) {
    plan_scale(g, i);
    plan_residual(g, i);
  }
}
