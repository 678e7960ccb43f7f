/* half_precision.c - half-precision programs computed in float32; see half_precision.h. */
#include "half_precision.h"

#include <string.h>

#include "ir/half.h"
#include "lib/base/arena.h"
#include "lib/base/strmap.h"

static bool is_half(sc_dtype dt) { return dt == SC_DTYPE_F16 || dt == SC_DTYPE_BF16; }

static bool half_tensor(const sc_value *v) { return v && v->kind == SC_VALUE_TENSOR && is_half(v->meta.dtype); }

bool sc_program_has_half(const sc_program *p) {
  const sc_graph *g = p->graph;
  for (size_t i = 0; i < g->n_inputs; i++)
    for (size_t k = 0; k < g->inputs[i].n_items; k++)
      if (half_tensor(g->inputs[i].items[k].value)) return true;
  for (size_t n = 0; n < g->n_nodes; n++)
    for (size_t o = 0; o < g->nodes[n].n_outputs; o++)
      for (size_t k = 0; k < g->nodes[n].outputs[o].n_items; k++)
        if (half_tensor(g->nodes[n].outputs[o].items[k].value)) return true;
  return false;
}

/* Whether an op's half-precision result needs no rounding: it only moves, selects or
 * repeats elements of its inputs, which are already half-precision numbers. */
static bool moves_elements(const sc_node *n) {
  if (!n->op) return false;
  switch (n->op->id) {
    case SC_OP_DIFF: case SC_OP_UPSAMPLE_BILINEAR2D: case SC_OP_PAD: case SC_OP_CONSTANT_PAD_ND:
    case SC_OP_SCATTER_ADD: case SC_OP_SCATTER_REDUCE: case SC_OP_CDIST: case SC_OP_PDIST: case SC_OP_GRID_SAMPLER_2D:
    case SC_OP_UPSAMPLE_BICUBIC2D: case SC_OP_OUTER: case SC_OP_KRON: case SC_OP_COL2IM: case SC_OP_INDEX_ADD:
    case SC_OP_EMBEDDING_BAG: case SC_OP_FILL_DIAGONAL_:
      return false; /* they compute (a difference, an interpolation, a fill value, sums) */
    case SC_OP_MAX_POOL2D: case SC_OP_MAX_POOL2D_INDICES: case SC_OP_MAX_POOL1D: case SC_OP_MAX_POOL3D:
    case SC_OP_MAX_POOL3D_INDICES:
    case SC_OP_INDEX_TENSOR: case SC_OP_MASKED_SELECT:
      return true;
    default: break;
  }
  return n->op->op_class == SC_OPC_VIEW || n->op->op_class == SC_OPC_INDEXING;
}

typedef struct rewrite {
  sc_ctx *ctx;
  sc_program *p;
  sc_strmap twin;   /* value name -> the float32 value its readers read instead */
  sc_node *nodes;   /* the new node list */
  size_t n_nodes, cap;
} rewrite;

static sc_node *append(rewrite *r) {
  if (r->n_nodes == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    sc_node *nodes = sc_arena_alloc(&r->ctx->arena, cap * sizeof *nodes);
    if (r->n_nodes) memcpy(nodes, r->nodes, r->n_nodes * sizeof *nodes);
    r->nodes = nodes;
    r->cap = cap;
  }
  return &r->nodes[r->n_nodes++];
}

/* A new tensor value like v, of dtype dt, under a name made from v's. */
static sc_value *value_like(rewrite *r, const sc_value *v, const char *suffix, sc_dtype dt) {
  sc_graph *g = r->p->graph;
  const char *name = NULL;
  for (int i = 0; !name || sc_graph_find_value(g, name); i++)
    name = sc_arena_printf(&r->ctx->arena, "%s__%s%.0d", v->name, suffix, i);
  sc_value *nv = sc_graph_add_value(r->ctx, g, name, SC_VALUE_TENSOR);
  const char *interned = nv->name;
  *nv = *v;
  nv->name = interned;
  nv->display = NULL;
  nv->meta.dtype = dt;
  nv->meta.rounds_to = SC_DTYPE_UNKNOWN;
  return nv;
}

static sc_arg tensor_arg(rewrite *r, sc_value *v, const char *path) {
  sc_arg a = {.kind = SC_ARG_TENSOR, .n_items = 1, .path = path};
  a.items = sc_arena_alloc(&r->ctx->arena, sizeof *a.items);
  a.items[0].value = v;
  return a;
}

/* to = _to_copy(from, dtype=to's dtype), appended; `to` rounds as its meta says. */
static void append_copy(rewrite *r, sc_value *from, sc_value *to, const char *path) {
  sc_node *n = append(r);
  memset(n, 0, sizeof *n);
  n->target = "torch.ops.aten._to_copy.default";
  n->op = sc_op_lookup(n->target);
  n->name = to->name;
  n->path = path;
  n->n_inputs = 2;
  n->inputs = sc_arena_alloc(&r->ctx->arena, 2 * sizeof *n->inputs);
  n->inputs[0] = (sc_named_arg){"self", tensor_arg(r, from, path), SC_ARG_PASS_POSITIONAL};
  sc_arg dtype = {.kind = SC_ARG_SCALAR_TYPE, .n_items = 1, .path = path};
  dtype.items = sc_arena_alloc(&r->ctx->arena, sizeof *dtype.items);
  dtype.items[0].i = to->meta.dtype;
  n->inputs[1] = (sc_named_arg){"dtype", dtype, SC_ARG_PASS_KEYWORD};
  n->n_outputs = 1;
  n->outputs = sc_arena_alloc(&r->ctx->arena, sizeof *n->outputs);
  n->outputs[0] = tensor_arg(r, to, path);
}

/* Reads of a value with a float32 twin read the twin; a dtype argument naming a half
 * dtype names float32 (the op's result is float32 now). */
static void rewrite_arg(rewrite *r, sc_arg *a) {
  if (a->lists) {
    for (size_t i = 0; i < a->n_items; i++) rewrite_arg(r, &a->lists[i]);
    return;
  }
  for (size_t i = 0; i < a->n_items; i++) {
    sc_arg_item *it = &a->items[i];
    if (it->value) {
      sc_value *t = sc_strmap_get(&r->twin, it->value->name);
      if (t) it->value = t;
    } else if (a->kind == SC_ARG_SCALAR_TYPE && is_half((sc_dtype)it->i)) {
      it->i = SC_DTYPE_F32;
    }
  }
}

/* A weight's half-precision bytes widened to float32, once, at export. */
static void widen_weight(rewrite *r, sc_weights *w, const char *name) {
  sc_weight *wt = (sc_weight *)sc_weights_find(w, name);
  if (!wt || !is_half(wt->dtype)) return;
  size_t n = wt->nbytes / 2;
  float *f = sc_arena_alloc(&r->ctx->arena, n ? n * sizeof *f : 1);
  for (size_t i = 0; i < n; i++) {
    uint16_t h;
    memcpy(&h, wt->data + 2 * i, 2);
    f[i] = wt->dtype == SC_DTYPE_BF16 ? sc_bf16_to_f32(h) : sc_f16_to_f32(h);
  }
  wt->dtype = SC_DTYPE_F32;
  wt->data = (const unsigned char *)f;
  wt->nbytes = n * sizeof *f;
}

static bool is_user_output(const sc_program *p, const sc_value *v) {
  for (size_t i = 0; i < p->n_output_specs; i++)
    for (size_t k = 0; k < p->output_specs[i].arg.n_items; k++)
      if (p->output_specs[i].arg.items[k].value == v) return true;
  return false;
}

/* One result of node n (already appended at *slot): made float32 and rounded. */
static void widen_result(rewrite *r, size_t slot, sc_arg_item *it, sc_value **outputs, size_t *n_outputs) {
  sc_value *v = it->value;
  sc_dtype half = v->meta.dtype;
  const sc_node *n = &r->nodes[slot];
  bool user_output = is_user_output(r->p, v);
  /* the value readers inside the program read: v itself, or its float32 twin when v
   * must stay half precision for the caller */
  sc_value *inside = user_output ? value_like(r, v, "f32", SC_DTYPE_F32) : v;
  if (user_output) {
    sc_strmap_put(&r->twin, v->name, inside);
    outputs[(*n_outputs)++] = v;
  } else {
    v->meta.dtype = SC_DTYPE_F32;
  }
  if (moves_elements(n)) { /* its numbers are its inputs': of that precision already */
    inside->meta.rounds_to = half;
    it->value = inside;
    return;
  }
  if (n->op && n->op->op_class == SC_OPC_ELEMENTWISE) { /* rounded in its loop */
    inside->meta.rounds_to = half;
    it->value = inside;
    return;
  }
  sc_value *raw = value_like(r, v, "unrounded", SC_DTYPE_F32);
  it->value = raw;
  inside->meta.rounds_to = half;
  append_copy(r, raw, inside, n->path);
}

void sc_compute_half_in_float32(sc_ctx *ctx, sc_program *p, sc_weights *w) {
  sc_graph *g = p->graph;
  rewrite r = {.ctx = ctx, .p = p};
  sc_strmap_init(&r.twin, &ctx->arena);
  /* inputs: the caller's half tensors widened first, the weights at export */
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    sc_value *v = sc_input_spec_value(s);
    if (!half_tensor(v)) continue;
    if (s->kind == SC_INPUT_USER) {
      sc_value *wide = value_like(&r, v, "f32", SC_DTYPE_F32);
      wide->meta.rounds_to = v->meta.dtype; /* exact: rounding it again changes nothing */
      append_copy(&r, v, wide, s->path);
      sc_strmap_put(&r.twin, v->name, wide);
    } else {
      widen_weight(&r, w, s->target);
      v->meta.rounds_to = v->meta.dtype;
      v->meta.dtype = SC_DTYPE_F32;
    }
  }
  size_t n_outputs = 0, n_results = 1;
  for (size_t k = 0; k < g->n_nodes; k++)
    for (size_t o = 0; o < g->nodes[k].n_outputs; o++) n_results += g->nodes[k].outputs[o].n_items;
  sc_value **outputs = sc_arena_alloc(&ctx->arena, n_results * sizeof *outputs);
  for (size_t k = 0; k < g->n_nodes; k++) {
    size_t slot = r.n_nodes;
    sc_node *n = append(&r);
    *n = g->nodes[k];
    for (size_t i = 0; i < n->n_inputs; i++) rewrite_arg(&r, &n->inputs[i].arg);
    for (size_t o = 0; o < n->n_outputs; o++)
      for (size_t i = 0; i < r.nodes[slot].outputs[o].n_items; i++) {
        sc_arg_item *it = &r.nodes[slot].outputs[o].items[i];
        if (half_tensor(it->value)) widen_result(&r, slot, it, outputs, &n_outputs);
      }
  }
  /* the caller's half outputs, narrowed under their own names */
  for (size_t i = 0; i < n_outputs; i++)
    append_copy(&r, sc_strmap_get(&r.twin, outputs[i]->name), outputs[i], outputs[i]->path);
  /* write-backs read the float32 values too; one into the caller's half-precision input
   * is narrowed to its dtype first */
  for (size_t i = 0; i < p->n_mutations; i++) {
    sc_mutation *m = &p->mutations[i];
    rewrite_arg(&r, &m->arg);
    sc_value *target = m->kind == SC_MUTATE_USER_INPUT ? sc_graph_find_value(g, m->target) : NULL;
    sc_value *wide = m->arg.n_items == 1 && !m->arg.lists ? m->arg.items[0].value : NULL;
    if (!half_tensor(target) || !wide || wide->kind != SC_VALUE_TENSOR || wide->meta.dtype != SC_DTYPE_F32) continue;
    sc_value *narrow = value_like(&r, wide, "narrowed", target->meta.dtype);
    append_copy(&r, wide, narrow, m->path);
    m->arg.items[0].value = narrow;
  }
  g->nodes = r.nodes;
  g->n_nodes = r.n_nodes;
  for (size_t k = 0; k < g->n_nodes; k++)
    for (size_t o = 0; o < g->nodes[k].n_outputs; o++)
      for (size_t i = 0; i < g->nodes[k].outputs[o].n_items; i++)
        if (g->nodes[k].outputs[o].items[i].value) g->nodes[k].outputs[o].items[i].value->def_node = (int)k;
}
