/* cg_attention.c - attention written with basic ops, computed as one kernel on the CPU path.
 *
 * A model that spells attention out, softmax(q @ k.transpose(-2, -1) / sqrt(d)) @ v, gives
 * the graph a product, a scale (absorbed into the product, cg_epilogue.c), a softmax and a
 * second product.  Run node by node, every score is written and read back twice and the
 * first product, with the head's width as its depth, runs at half the FMA peak.  When the
 * scores and their softmax have no other reader, the second product instead calls
 * sc_k_attention_f32 (backends/cpu/runtime/attention.c), which keeps each block of scores
 * in L1, and the nodes before it emit nothing.  q, k and v are read in place through the
 * views cg_transpose.c planned, and the result goes where the second product's would
 * have gone.
 *
 * On CPUs with AVX-512 the nodes stay separate (cg_plan_attention says why).
 *
 * The nodes folded in read q and k when the kernel runs, so their outputs count as
 * computed inside the kernel's node (inlined) for the lifetimes (cg_lifetime.c): q's and
 * k's buffers live until then. */
#include <string.h>

#include "lower.h"

static const char *second_operand(const sc_node *n) { return n->op->id == SC_OP_BMM ? "mat2" : "other"; }

/* The float32 tensor input `name` of n, read by nothing else, or NULL. */
static const sc_value *sole_input(cg *g, const sc_node *n, const char *name) {
  const sc_value *v = cg_tensor_input(n, name);
  if (!v || v->def_node < 0 || v->meta.dtype != SC_DTYPE_F32 || cg_get(g, v)->uses != 1) return NULL;
  return v;
}

/* Whether the kernel reads x's rows as contiguous vectors: x is compact, or a view (every
 * view on the CPU path has a base, cg_transpose.c) whose last dim is its base's last. */
static bool rows_contiguous(const cg_value *x) {
  int r = x->v->meta.rank;
  return !x->view_base || x->view_perm[r - 1] == r - 1;
}

static int64_t softmax_dim(const sc_node *n, int rank) {
  const sc_arg *a = NULL;
  for (size_t k = 0; k < n->n_inputs; k++)
    if (strcmp(n->inputs[k].name, "dim") == 0) a = &n->inputs[k].arg;
  if (!a || a->n_items != 1 || a->items[0].value || a->kind != SC_ARG_INT) return -1;
  return a->items[0].i < 0 ? a->items[0].i + rank : a->items[0].i;
}

/* softmax(scores) @ v at node i, scores = q @ k^T (times a number): the first product's
 * node, or -1. */
static int scores_product(cg *g, size_t i) {
  const sc_graph *gr = g->p->graph;
  const sc_node *n = &gr->nodes[i];
  if (!cg_is_strided_product(n)) return -1;
  const sc_value *p = sole_input(g, n, "self"), *v = cg_tensor_input(n, second_operand(n));
  const sc_value *out = n->outputs[0].items[0].value;
  if (!p || !v || v->meta.dtype != SC_DTYPE_F32 || out->meta.dtype != SC_DTYPE_F32) return -1;
  if (!rows_contiguous(cg_get(g, v)) || !rows_contiguous(cg_get(g, out))) return -1;
  const sc_node *sm = &gr->nodes[p->def_node];
  int rank = p->meta.rank;
  if ((sm->op->id != SC_OP_SOFTMAX && sm->op->id != SC_OP_SOFTMAX_INT) || softmax_dim(sm, rank) != rank - 1) return -1;
  const sc_value *x = sole_input(g, sm, "self");
  if (!x) return -1;
  /* the scale node, absorbed into the product before it, or the product itself */
  int first = g->folded[x->def_node].into ? g->folded[x->def_node].into->v->def_node : x->def_node;
  const sc_node *fn = &gr->nodes[first];
  if (!cg_is_strided_product(fn) || fn->outputs[0].items[0].value->meta.rank != rank) return -1;
  const sc_value *q = cg_tensor_input(fn, "self"), *kt = cg_tensor_input(fn, second_operand(fn));
  if (!q || !kt || q->meta.dtype != SC_DTYPE_F32 || kt->meta.dtype != SC_DTYPE_F32) return -1;
  return first; /* q and k^T in any layout: the kernel reads both through strides */
}

void cg_plan_attention(cg *g) {
  /* The device path runs the nodes one by one.  With AVX-512, oneDNN's 16-lane products
   * and the softmax between them beat this 8-lane kernel by 3-5% (zoo encoder at 128, 512
   * and 2048 tokens, one core), though they hold every score: 149 MB of peak memory
   * against 30 at 2048 tokens; speed decides. */
  if (g->has_cuda || cg_has_avx512(g)) return;
  const sc_graph *gr = g->p->graph;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    int first = scores_product(g, i);
    if (first < 0) continue;
    const sc_value *p = cg_tensor_input(&gr->nodes[i], "self");
    int softmax = p->def_node;
    int scale = cg_tensor_input(&gr->nodes[softmax], "self")->def_node;
    g->folded[i].attention_scores = first + 1;
    int parts[3] = {first, scale, softmax};
    for (int k = 0; k < 3; k++) {
      g->folded[parts[k]].in_attention = true;
      cg_get(g, gr->nodes[parts[k]].outputs[0].items[0].value)->inlined = true;
    }
    g->absorbed.attentions++;
  }
}
