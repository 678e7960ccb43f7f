/* cg_fold.c - what a convolution absorbs at export: the batch norm after it, and the
 * ReLU or ReLU6 after that.
 *
 * In inference a batch norm is y = (x - mean) * gamma / sqrt(var + eps) + beta per
 * channel.  When x is a convolution's output that nothing else reads, and every one of
 * these tensors is a constant weight, the scale goes into the convolution's weights and
 * the shift into its bias: the library computes one pass fewer over the activations (as
 * TorchScript's freeze does).  The folded tensors are new pieces of the weights blob (the
 * originals leave it when nothing else reads them); the batch norm's output becomes the
 * convolution's buffer.
 *
 * A ReLU (or hardtanh(0, 6), ReLU6) that is the only reader of a convolution's output
 * (directly or through a folded batch norm or residual add, cg_epilogue.c) becomes the
 * convolution kernel's epilogue:
 * applied to each output block right after the GEMM, while it is in cache, instead of a
 * separate pass over the tensor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "runtime_abi.h"

const sc_arg *cg_node_arg(const sc_node *n, const char *name) {
  for (size_t k = 0; k < n->n_inputs; k++)
    if (strcmp(n->inputs[k].name, name) == 0) return &n->inputs[k].arg;
  return NULL;
}

const sc_value *cg_tensor_input(const sc_node *n, const char *name) {
  const sc_arg *a = cg_node_arg(n, name);
  if (!a || !a->n_items || a->items[0].is_none || !a->items[0].value) return NULL;
  return a->items[0].value->kind == SC_VALUE_TENSOR ? a->items[0].value : NULL;
}

int64_t cg_int_arg(const sc_node *n, const char *name, int64_t def) {
  const sc_arg *a = cg_node_arg(n, name);
  if (!a || a->kind == SC_ARG_NONE || !a->n_items || a->items[0].is_none || a->items[0].value) return def;
  if (a->kind == SC_ARG_BOOL) return a->items[0].b;
  return a->kind == SC_ARG_INT || a->kind == SC_ARG_SYM_INT ? a->items[0].i : def;
}

const float *cg_constant_floats(cg *g, const sc_value *v, int64_t want) {
  if (!v) return NULL;
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    const sc_input_spec *s = &g->p->input_specs[i];
    if (sc_input_spec_value(s) != v) continue;
    if (s->kind != SC_INPUT_PARAMETER && s->kind != SC_INPUT_BUFFER && s->kind != SC_INPUT_TENSOR_CONSTANT) return NULL;
    if (g->state && g->state[i]) return NULL; /* mutated: its value changes between calls */
    const sc_weight *w = sc_weights_find(g->w, s->target);
    if (!w || w->dtype != SC_DTYPE_F32 || w->nbytes != (size_t)want * sizeof(float)) return NULL;
    return (const float *)w->data;
  }
  return NULL;
}

/* A constant, or a view of one (nn.MultiheadAttention with keys other than its queries
 * splits in_proj_weight into the query's rows and the keys' and values': without this, those
 * layers multiplied by a transposed copy of their weights made on every call). */
bool cg_is_constant_weight(cg *g, const sc_value *v) {
  for (int depth = 0; v && depth < 16; depth++) {
    for (size_t i = 0; i < g->p->n_input_specs; i++) {
      const sc_input_spec *s = &g->p->input_specs[i];
      if (sc_input_spec_value(s) != v) continue;
      bool weight = s->kind == SC_INPUT_PARAMETER || s->kind == SC_INPUT_BUFFER || s->kind == SC_INPUT_TENSOR_CONSTANT;
      return weight && !(g->state && g->state[i]);
    }
    if (v->def_node < 0 || (size_t)v->def_node >= g->p->graph->n_nodes) return false;
    const sc_node *n = &g->p->graph->nodes[v->def_node];
    if (!n->op || n->op->op_class != SC_OPC_VIEW || !n->n_inputs || !n->inputs[0].arg.n_items) return false;
    v = n->inputs[0].arg.items[0].value; /* the view's input, "self" */
  }
  return false;
}

static double float_input(const sc_node *n, const char *name, double def) {
  const sc_arg *a = cg_node_arg(n, name);
  if (!a || !a->n_items || a->items[0].value) return def;
  return a->kind == SC_ARG_FLOAT ? a->items[0].f : a->kind == SC_ARG_INT ? (double)a->items[0].i : def;
}

static bool bool_input(const sc_node *n, const char *name, bool def) {
  const sc_arg *a = cg_node_arg(n, name);
  if (!a || !a->n_items || a->items[0].value || a->kind != SC_ARG_BOOL) return def;
  return a->items[0].b;
}

/* The batch norm node that is the only reader of conv's output, or -1. */
static int sole_batch_norm_reader(cg *g, size_t conv) {
  const sc_graph *gr = g->p->graph;
  const sc_node *c = &gr->nodes[conv];
  if (c->n_outputs != 1 || !c->outputs[0].n_items || !c->outputs[0].items[0].value) return -1;
  const sc_value *out = c->outputs[0].items[0].value;
  const cg_value *conv_out = cg_get(g, out);
  if (conv_out->uses != 1) return -1;
  for (size_t j = conv + 1; j < gr->n_nodes; j++) {
    const sc_node *b = &gr->nodes[j];
    if (g->folded[j].into == conv_out && b->op->id == SC_OP_TO_COPY) { /* its rounding, taken (cg_conv_round.c) */
      out = b->outputs[0].items[0].value;
      if (cg_get(g, out)->uses != 1) return -1;
      continue;
    }
    if (b->op->id != SC_OP_BATCH_NORM_INFER && b->op->id != SC_OP_BATCH_NORM) continue;
    if (cg_tensor_input(b, "input") != out) continue;
    if (b->op->id == SC_OP_BATCH_NORM && bool_input(b, "training", true)) return -1;
    for (size_t k = 1; k < b->n_outputs; k++) /* the saved statistics must be unread */
      for (size_t i = 0; i < b->outputs[k].n_items; i++)
        if (b->outputs[k].items[i].value && cg_get(g, b->outputs[k].items[i].value)->uses) return -1;
    return (int)j;
  }
  return -1;
}

bool cg_is_conv2d_like(const sc_node *n) {
  const sc_value *w = cg_tensor_input(n, "weight"); /* a 3-D convolution has its own path (conv3d.c) */
  return (n->op->id == SC_OP_CONV2D || n->op->id == SC_OP_CONVOLUTION) && !(w && w->meta.rank == 5) &&
         !(cg_node_arg(n, "transposed") && bool_input(n, "transposed", false));
}

static bool is_string_input(const sc_node *n, const char *name, const char *want) {
  const sc_arg *a = cg_node_arg(n, name);
  if (!a || !a->n_items || a->kind != SC_ARG_STRING) return strcmp(want, "none") == 0; /* the default */
  return strcmp(a->items[0].s, want) == 0;
}

/* The activation node r computes (SC_ACT_*), or SC_ACT_NONE for any other node. */
static int activation_of(const sc_node *r) {
  if (r->op->id == SC_OP_RELU || r->op->id == SC_OP_RELU_) return SC_ACT_RELU;
  if (r->op->id == SC_OP_GELU && is_string_input(r, "approximate", "none")) return SC_ACT_GELU;
  if ((r->op->id == SC_OP_HARDTANH || r->op->id == SC_OP_HARDTANH_) && float_input(r, "min_val", -1) == 0.0 &&
      float_input(r, "max_val", 1) == 6.0)
    return SC_ACT_RELU6;
  if (r->op->id == SC_OP_RELU6) return SC_ACT_RELU6;
  if (r->op->id == SC_OP_SILU) return SC_ACT_SILU;
  if (r->op->id == SC_OP_HARDSWISH) return SC_ACT_HARDSWISH;
  return SC_ACT_NONE;
}

/* A linear layer whose output can take an activation as its epilogue: a 2-D weight (the
 * layer's own path in cg_ops.c applies it after either kernel). */
static bool is_fusable_linear(const sc_node *n) {
  const sc_value *w = n->op->id == SC_OP_LINEAR ? cg_tensor_input(n, "weight") : NULL;
  return w && w->meta.rank == 2 && w->meta.dtype == SC_DTYPE_F32;
}

/* ReLU / ReLU6 / SiLU / hardswish nodes whose input is a float32 convolution's output (or a
 * folded batch norm's or residual add's, which is the same buffer) that nothing else reads;
 * ReLU and exact GELU after a linear layer likewise.  SiLU and hardswish only where the
 * output is float32 itself: a widened half-precision program rounds the convolution's
 * output before the activation reads it, which a fused activation would skip. */
void cg_plan_activation_epilogues(cg *g) {
  if (g->has_cuda) return; /* the device path has its own kernels */
  const sc_graph *gr = g->p->graph;
  for (size_t r = 0; r < gr->n_nodes; r++) {
    const sc_node *rn = &gr->nodes[r];
    int act = activation_of(rn);
    const sc_value *in = act ? cg_tensor_input(rn, "self") : NULL;
    if (!in || in->def_node < 0 || in->meta.dtype != SC_DTYPE_F32 || cg_get(g, in)->uses != 1) continue;
    if (rn->n_outputs != 1 || !rn->outputs[0].n_items || !rn->outputs[0].items[0].value) continue;
    if (cg_get(g, rn->outputs[0].items[0].value)->inlined) continue; /* computed inside its consumer's loop */
    size_t conv = (size_t)in->def_node;
    if (g->folded[conv].into) conv = (size_t)g->folded[conv].into->v->def_node; /* through a folded batch norm */
    if (g->folded[conv].act) continue;
    if (is_fusable_linear(&gr->nodes[conv]) ? act != SC_ACT_RELU && act != SC_ACT_GELU
                                            : !cg_is_conv2d_like(&gr->nodes[conv]) || act == SC_ACT_GELU)
      continue;
    if ((act == SC_ACT_SILU || act == SC_ACT_HARDSWISH) && in->meta.rounds_to != SC_DTYPE_UNKNOWN) continue;
    g->folded[conv].act = act;
    g->folded[r].into = cg_get(g, gr->nodes[conv].outputs[0].items[0].value);
  }
}

/* Marks the input spec that holds v (a weight) as read by nothing once the node being
 * folded, which reads it, is: v has no other reader. */
static void drop_if_sole_reader(cg *g, const sc_value *v, bool *dropped) {
  if (!v || cg_get(g, v)->uses != 1) return;
  for (size_t i = 0; i < g->p->n_input_specs; i++)
    if (sc_input_spec_value(&g->p->input_specs[i]) == v) dropped[i] = true;
}

void cg_plan_folds_begin(cg *g) {
  size_t n = g->p->graph->n_nodes ? g->p->graph->n_nodes : 1;
  g->folded = sc_arena_alloc(&g->ctx->arena, n * sizeof *g->folded);
  memset(g->folded, 0, n * sizeof *g->folded);
}

void cg_plan_batch_norm_folding(cg *g) {
  const sc_graph *gr = g->p->graph;
  if (g->external_path || !g->w) return; /* no weights to fold at export */
  /* the folded tensors, added to the blob after the loop: a library with a device path
   * first takes the weights that only folded nodes read out of the blob */
  struct fold {
    size_t conv;
    float *weight, *bias;
    size_t weight_bytes, bias_bytes;
  } *folds = sc_xcalloc(gr->n_nodes ? gr->n_nodes : 1, sizeof *folds);
  size_t n_folds = 0;
  bool *dropped = sc_arena_alloc(&g->ctx->arena, (g->p->n_input_specs ? g->p->n_input_specs : 1) * sizeof *dropped);
  memset(dropped, 0, (g->p->n_input_specs ? g->p->n_input_specs : 1) * sizeof *dropped);
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *c = &gr->nodes[i];
    if (!cg_is_conv2d_like(c)) continue;
    const sc_value *wv = cg_tensor_input(c, "weight");
    if (!wv || wv->meta.rank < 3 || wv->meta.dtype != SC_DTYPE_F32) continue;
    int64_t o, per = 1, wn;
    if (!sc_expr_is_const(wv->shape[0], &o) || o <= 0) continue;
    bool known = true;
    for (int d = 1; d < wv->meta.rank; d++) {
      int64_t s;
      known &= sc_expr_is_const(wv->shape[d], &s);
      if (known) per *= s;
    }
    if (!known) continue;
    wn = o * per;
    int j = sole_batch_norm_reader(g, i);
    if (j < 0) continue;
    const sc_node *b = &gr->nodes[j];
    const float *w = cg_constant_floats(g, wv, wn), *cb = NULL;
    const sc_value *cbv = cg_tensor_input(c, "bias");
    if (cbv && !(cb = cg_constant_floats(g, cbv, o))) continue;
    const float *gamma = cg_constant_floats(g, cg_tensor_input(b, "weight"), o);
    const float *beta = cg_constant_floats(g, cg_tensor_input(b, "bias"), o);
    const float *mean = cg_constant_floats(g, cg_tensor_input(b, "running_mean"), o);
    const float *var = cg_constant_floats(g, cg_tensor_input(b, "running_var"), o);
    if (!w || !mean || !var || (cg_tensor_input(b, "weight") && !gamma) || (cg_tensor_input(b, "bias") && !beta)) continue;
    double eps = float_input(b, "eps", 1e-5);
    float *fw = malloc((size_t)wn * sizeof *fw), *fb = malloc((size_t)o * sizeof *fb);
    if (!fw || !fb) {
      free(fw);
      free(fb);
      continue;
    }
    for (int64_t k = 0; k < o; k++) {
      double scale = (gamma ? gamma[k] : 1.0) / sqrt((double)var[k] + eps);
      for (int64_t e = 0; e < per; e++) fw[k * per + e] = (float)(w[k * per + e] * scale);
      fb[k] = (float)(((cb ? cb[k] : 0.0) - mean[k]) * scale + (beta ? beta[k] : 0.0));
    }
    folds[n_folds++] = (struct fold){i, fw, fb, (size_t)wn * sizeof *fw, (size_t)o * sizeof *fb};
    g->folded[j].into = cg_get(g, c->outputs[0].items[0].value);
    const char *read[] = {"weight", "bias", "running_mean", "running_var"};
    drop_if_sole_reader(g, wv, dropped);
    drop_if_sole_reader(g, cbv, dropped);
    for (int k = 0; k < 4; k++) drop_if_sole_reader(g, cg_tensor_input(b, read[k]), dropped);
  }
  bool any = false;
  for (size_t i = 0; i < g->p->n_input_specs; i++) { /* and those nothing reads (a batch norm's count) */
    const sc_value *v = sc_input_spec_value(&g->p->input_specs[i]);
    if (g->weight_offsets[i] != (size_t)-1 && v && v->kind == SC_VALUE_TENSOR && !cg_get(g, v)->uses) dropped[i] = true;
    any |= dropped[i];
  }
  if (g->has_cuda && any) cg_weights_drop(g, dropped);
  for (size_t k = 0; k < n_folds; k++) {
    g->folded[folds[k].conv].weight = cg_weights_add(g, folds[k].weight, folds[k].weight_bytes, folds[k].weight);
    g->folded[folds[k].conv].bias = cg_weights_add(g, folds[k].bias, folds[k].bias_bytes, folds[k].bias);
  }
  free(folds);
}
