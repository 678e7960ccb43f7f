/* inline_wrappers.c - the higher-order ops that only wrap a subgraph, replaced by its nodes;
 * see inline_wrappers.h.
 *
 * torch.export leaves `wrap_with_set_grad_enabled(enabled, subgraph, *operands)` where a
 * model turns gradients on or off for a block (a Llama's rotary embedding runs under
 * @torch.no_grad()), and `wrap_with_autocast(device, dtype, enabled, cache, subgraph,
 * *operands)` for an autocast block.  Its nodes take the wrapper's place, reading the
 * operands where the subgraph read its inputs and writing the wrapper's outputs where the
 * subgraph wrote its own.
 *
 * Gradient mode changes nothing at inference.  Autocast does: inside its block torch runs
 * the products and convolutions (its "lower precision" ops) on operands cast to the
 * block's dtype, and the subgraph records those ops on their float32 operands, with the
 * result's dtype (bfloat16) in tensor_values.  So each such op gets `_to_copy` casts of
 * its floating operands to the dtype its result is declared in, as autocast would cast
 * them. */
#include "inline_wrappers.h"

#include <string.h>

static const char *const wrappers[] = {
    "torch.ops.higher_order.wrap_with_set_grad_enabled",
    "torch.ops.higher_order.wrap_with_autocast",
};

bool sc_is_inlined_wrapper(const char *target) {
  for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++)
    if (strcmp(target, wrappers[i]) == 0) return true;
  return false;
}

/* from -> to, for the subgraph's inputs and outputs */
typedef struct value_map {
  const sc_value **from;
  sc_value **to;
  size_t n;
} value_map;

static sc_value *mapped(const value_map *m, sc_value *v) {
  for (size_t i = 0; v && i < m->n; i++)
    if (m->from[i] == v) return m->to[i];
  return v;
}

static void map_arg(const value_map *m, sc_arg *a) {
  if (a->lists) {
    for (size_t i = 0; i < a->n_items; i++) map_arg(m, &a->lists[i]);
    return;
  }
  for (size_t i = 0; i < a->n_items; i++) a->items[i].value = mapped(m, a->items[i].value);
}

/* The single value of an argument (a tensor, a SymInt), or NULL. */
static sc_value *single_value(const sc_arg *a) { return a->n_items == 1 && !a->lists ? a->items[0].value : NULL; }

static bool fail(sc_ctx *ctx, const char *file, const sc_node *n, const char *what) {
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_WRONG_TYPE, SC_SEV_ERROR, file, n->path, "%s: %s", n->target, what);
  sc_diag_set_hint(&ctx->diags, d, "re-export the program with torch.export, which writes the subgraph's inputs and "
                                   "outputs as the wrapper's operands and results");
  return false;
}

/* Appends the nodes that replace wrapper node n (its subgraph's, themselves inlined) to out. */
static bool inline_node(sc_ctx *ctx, const char *file, sc_graph *top, const sc_node *n, sc_node **out, size_t *n_out,
                        size_t *cap, int depth);

static bool push(sc_ctx *ctx, sc_node **out, size_t *n_out, size_t *cap, const sc_node *n);

/* The ops autocast runs in its lower precision on the CPU (torch's autocast_mode.cpp). */
static bool autocast_lowers(const char *target) {
  static const char *const ops[] = {"linear.", "matmul.", "mm.", "bmm.", "addmm.", "baddbmm.", "addbmm.", "conv1d.",
                                    "conv2d.", "conv3d.", "convolution.", "conv_transpose1d.", "conv_transpose2d.",
                                    "conv_transpose3d.", "prelu.", "scaled_dot_product_attention.", "linalg_vecdot."};
  const char *prefix = "torch.ops.aten.";
  if (strncmp(target, prefix, strlen(prefix)) != 0) return false;
  target += strlen(prefix);
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strncmp(target, ops[i], strlen(ops[i])) == 0) return true;
  return false;
}

static bool is_float(sc_dtype dt) {
  return dt == SC_DTYPE_F32 || dt == SC_DTYPE_F64 || dt == SC_DTYPE_F16 || dt == SC_DTYPE_BF16;
}

/* Inside an autocast block: copy's floating operands cast to its result's declared dtype,
 * by `_to_copy` nodes appended before it. */
static void autocast_operands(sc_ctx *ctx, sc_graph *top, sc_node *copy, sc_node **out, size_t *n_out, size_t *cap) {
  if (!copy->target || !autocast_lowers(copy->target) || !copy->n_outputs || copy->outputs[0].n_items != 1) return;
  const sc_value *result = copy->outputs[0].items[0].value;
  if (!result || result->kind != SC_VALUE_TENSOR || !is_float(result->meta.dtype)) return;
  sc_dtype want = result->meta.dtype;
  for (size_t i = 0; i < copy->n_inputs; i++) {
    sc_arg *a = &copy->inputs[i].arg;
    if ((a->kind != SC_ARG_TENSOR && a->kind != SC_ARG_OPTIONAL_TENSOR) || a->lists) continue;
    for (size_t j = 0; j < a->n_items; j++) {
      sc_value *v = a->items[j].value;
      if (!v || v->kind != SC_VALUE_TENSOR || !is_float(v->meta.dtype) || v->meta.dtype == want) continue;
      const char *name = NULL;
      for (int k = 0; !name || sc_graph_find_value(top, name); k++)
        name = sc_arena_printf(&ctx->arena, "%s_autocast%.0d", v->name, k);
      sc_value *cast = sc_graph_add_value(ctx, top, name, SC_VALUE_TENSOR);
      const char *interned = cast->name;
      *cast = *v;
      cast->name = interned;
      cast->display = NULL;
      cast->meta.dtype = want;
      sc_node n = {.name = cast->name, .target = "torch.ops.aten._to_copy.default", .path = copy->path};
      n.op = sc_op_lookup(n.target);
      n.n_inputs = 2;
      n.inputs = sc_arena_alloc(&ctx->arena, 2 * sizeof *n.inputs);
      sc_arg self = sc_tensor_arg(ctx, v, copy->path);
      sc_arg dtype = {.kind = SC_ARG_SCALAR_TYPE, .n_items = 1, .path = copy->path};
      dtype.items = sc_arena_alloc(&ctx->arena, sizeof *dtype.items);
      dtype.items[0].i = want;
      n.inputs[0] = (sc_named_arg){"self", self, SC_ARG_PASS_POSITIONAL};
      n.inputs[1] = (sc_named_arg){"dtype", dtype, SC_ARG_PASS_KEYWORD};
      n.n_outputs = 1;
      n.outputs = sc_arena_alloc(&ctx->arena, sizeof *n.outputs);
      n.outputs[0] = sc_tensor_arg(ctx, cast, copy->path);
      push(ctx, out, n_out, cap, &n);
      a->items[j].value = cast;
    }
  }
}

static bool push(sc_ctx *ctx, sc_node **out, size_t *n_out, size_t *cap, const sc_node *n) {
  if (*n_out == *cap) {
    size_t grown = *cap ? 2 * *cap : 16;
    sc_node *bigger = sc_arena_alloc(&ctx->arena, grown * sizeof *bigger);
    if (*n_out) memcpy(bigger, *out, *n_out * sizeof *bigger);
    *out = bigger;
    *cap = grown;
  }
  (*out)[(*n_out)++] = *n;
  return true;
}

static bool inline_node(sc_ctx *ctx, const char *file, sc_graph *top, const sc_node *n, sc_node **out, size_t *n_out,
                        size_t *cap, int depth) {
  if (depth > 32) return fail(ctx, file, n, "wrappers nested more than 32 deep");
  size_t at = 0;
  while (at < n->n_inputs && n->inputs[at].arg.kind != SC_ARG_GRAPH) at++;
  if (at == n->n_inputs || !n->inputs[at].arg.graph) return fail(ctx, file, n, "no subgraph argument");
  const sc_graph *sub = n->inputs[at].arg.graph;
  size_t n_operands = n->n_inputs - at - 1;
  if (sub->n_inputs != n_operands)
    return fail(ctx, file, n, "its subgraph takes a different number of inputs than the operands given");
  if (sub->n_outputs != n->n_outputs)
    return fail(ctx, file, n, "its subgraph returns a different number of values than the wrapper's outputs");
  value_map m = {0};
  size_t most = n_operands + n->n_outputs;
  m.from = sc_arena_alloc(&ctx->arena, (most ? most : 1) * sizeof *m.from);
  m.to = sc_arena_alloc(&ctx->arena, (most ? most : 1) * sizeof *m.to);
  for (size_t i = 0; i < n_operands; i++) {
    sc_value *inner = single_value(&sub->inputs[i]), *outer = single_value(&n->inputs[at + 1 + i].arg);
    if (!inner) continue; /* a constant input: nothing reads it by name */
    if (!outer) return fail(ctx, file, n, "an operand of the wrapper is not a single value");
    m.from[m.n] = inner;
    m.to[m.n++] = outer;
  }
  for (size_t i = 0; i < n->n_outputs; i++) {
    sc_value *inner = single_value(&sub->outputs[i]), *outer = single_value(&n->outputs[i]);
    if (!inner || !outer) continue;
    m.from[m.n] = inner;
    m.to[m.n++] = outer;
  }
  for (size_t k = 0; k < sub->n_nodes; k++) {
    const sc_node *s = &sub->nodes[k];
    if (s->target && sc_is_inlined_wrapper(s->target)) {
      if (!inline_node(ctx, file, top, s, out, n_out, cap, depth + 1)) return false;
      continue;
    }
    sc_node copy = *s;
    copy.inputs = sc_arena_alloc(&ctx->arena, (s->n_inputs ? s->n_inputs : 1) * sizeof *copy.inputs);
    copy.outputs = sc_arena_alloc(&ctx->arena, (s->n_outputs ? s->n_outputs : 1) * sizeof *copy.outputs);
    for (size_t i = 0; i < s->n_inputs; i++) {
      copy.inputs[i] = s->inputs[i];
      map_arg(&m, &copy.inputs[i].arg);
    }
    for (size_t i = 0; i < s->n_outputs; i++) {
      copy.outputs[i] = s->outputs[i];
      map_arg(&m, &copy.outputs[i]);
    }
    if (strcmp(n->target, "torch.ops.higher_order.wrap_with_autocast") == 0)
      autocast_operands(ctx, top, &copy, out, n_out, cap);
    push(ctx, out, n_out, cap, &copy);
  }
  /* the subgraph's own values join the top graph's names (a name taken there gets the
   * wrapper's name as a prefix) */
  for (size_t k = 0; k < sub->n_nodes; k++)
    for (size_t i = 0; i < sub->nodes[k].n_outputs; i++) {
      const sc_arg *o = &sub->nodes[k].outputs[i];
      for (size_t j = 0; j < o->n_items && !o->lists; j++) {
        sc_value *v = o->items[j].value;
        if (!v || mapped(&m, v) != v) continue;
        if (sc_strmap_get(&top->values, v->name) != v && !sc_strmap_put(&top->values, v->name, v)) {
          v->name = sc_arena_printf(&ctx->arena, "%s.%s", n->name, v->name);
          sc_strmap_put(&top->values, v->name, v);
        }
      }
    }
  return true;
}

bool sc_inline_wrappers(sc_ctx *ctx, const char *file, sc_graph *g) {
  bool any = false;
  for (size_t i = 0; i < g->n_nodes && !any; i++) any = g->nodes[i].target && sc_is_inlined_wrapper(g->nodes[i].target);
  if (!any) return true;
  sc_node *out = NULL;
  size_t n_out = 0, cap = 0;
  for (size_t i = 0; i < g->n_nodes; i++) {
    const sc_node *n = &g->nodes[i];
    if (n->target && sc_is_inlined_wrapper(n->target)) {
      if (!inline_node(ctx, file, g, n, &out, &n_out, &cap, 0)) return false;
    } else {
      push(ctx, &out, &n_out, &cap, n);
    }
  }
  g->nodes = out;
  g->n_nodes = n_out;
  sc_graph_number_defs(g); /* every value's defining node by its new place */
  return true;
}
