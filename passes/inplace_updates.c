/* inplace_updates.c - in-place ops become functional updates; see inplace_updates.h. */
#include "inplace_updates.h"

#include <string.h>

#include "lib/base/arena.h"

static bool is_inplace(const sc_node *n) {
  if (!n->op) return false;
  if (n->inplace) return true;
  switch (n->op->id) {
    case SC_OP_ADD_: case SC_OP_MUL_: case SC_OP_RELU_: case SC_OP_HARDTANH_: return true;
    default: return false;
  }
}

/* The tensor an in-place op updates: its first tensor argument (self). */
static sc_value *self_of(const sc_node *n) {
  for (size_t i = 0; i < n->n_inputs; i++)
    if (n->inputs[i].arg.kind == SC_ARG_TENSOR && n->inputs[i].arg.n_items) return n->inputs[i].arg.items[0].value;
  return NULL;
}

static sc_value *result_of(const sc_node *n) {
  return n->n_outputs && n->outputs[0].kind == SC_ARG_TENSOR && n->outputs[0].n_items ? n->outputs[0].items[0].value
                                                                                     : NULL;
}

static bool arg_reads(const sc_arg *a, const sc_value *v) {
  if (a->lists) {
    for (size_t i = 0; i < a->n_items; i++)
      if (arg_reads(&a->lists[i], v)) return true;
    return false;
  }
  for (size_t i = 0; i < a->n_items; i++)
    if (a->items[i].value == v) return true;
  return false;
}

static void arg_replace(sc_arg *a, const sc_value *from, sc_value *to) {
  if (a->lists) {
    for (size_t i = 0; i < a->n_items; i++) arg_replace(&a->lists[i], from, to);
    return;
  }
  for (size_t i = 0; i < a->n_items; i++)
    if (a->items[i].value == from) a->items[i].value = to;
}

/* Whether anything after node `after` reads v: a node, a graph output or a write-back. */
static bool read_later(const sc_program *p, size_t after, const sc_value *v) {
  const sc_graph *g = p->graph;
  for (size_t k = after + 1; k < g->n_nodes; k++)
    for (size_t i = 0; i < g->nodes[k].n_inputs; i++)
      if (arg_reads(&g->nodes[k].inputs[i].arg, v)) return true;
  for (size_t i = 0; i < g->n_outputs; i++)
    if (arg_reads(&g->outputs[i], v)) return true;
  return false;
}

/* Every reader after node `after` reads `to` instead of `from`. */
static void replace_later(sc_program *p, size_t after, const sc_value *from, sc_value *to) {
  sc_graph *g = p->graph;
  for (size_t k = after + 1; k < g->n_nodes; k++)
    for (size_t i = 0; i < g->nodes[k].n_inputs; i++) arg_replace(&g->nodes[k].inputs[i].arg, from, to);
  for (size_t i = 0; i < g->n_outputs; i++) arg_replace(&g->outputs[i], from, to);
  for (size_t i = 0; i < p->n_output_specs; i++) arg_replace(&p->output_specs[i].arg, from, to);
  for (size_t i = 0; i < p->n_mutations; i++) arg_replace(&p->mutations[i].arg, from, to);
}

/* The input spec of a graph input value, or NULL. */
static const sc_input_spec *input_spec_of(const sc_program *p, const sc_value *v) {
  for (size_t i = 0; i < p->n_input_specs; i++)
    if (sc_input_spec_value(&p->input_specs[i]) == v) return &p->input_specs[i];
  return NULL;
}

/* Records (or moves on) the write-back of the buffer or user input that `root` is. */
static bool record_write_back(sc_ctx *ctx, sc_program *p, const sc_node *n, const sc_value *root, sc_value *value,
                              size_t *cap) {
  const sc_input_spec *s = input_spec_of(p, root);
  /* a lifted constant tensor that the program updates (a non-strict export's cache tensor
   * captured as a constant) keeps its value from call to call in ep.module(): state, as a
   * buffer's */
  if (!s || (s->kind != SC_INPUT_BUFFER && s->kind != SC_INPUT_USER && s->kind != SC_INPUT_TENSOR_CONSTANT)) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_INPLACE_THROUGH_VIEW, SC_SEV_ERROR, p->file, n->path,
                              "node '%s' updates %s '%s' in place", n->name,
                              s ? sc_input_kind_name(s->kind) : "graph input", root->name);
    sc_diag_set_hint(&ctx->diags, d, "parameters are read-only in a shapec library: register the tensor as a "
                                     "buffer (module.register_buffer) to keep it as state, or export the module "
                                     "without updating it");
    return false;
  }
  sc_mutation_kind kind = s->kind == SC_INPUT_USER ? SC_MUTATE_USER_INPUT : SC_MUTATE_BUFFER;
  const char *target = kind == SC_MUTATE_BUFFER ? s->target : root->name;
  for (size_t i = 0; i < p->n_mutations; i++)
    if (p->mutations[i].kind == kind && strcmp(p->mutations[i].target, target) == 0) {
      p->mutations[i].arg.items[0].value = value;
      return true;
    }
  if (p->n_mutations == *cap) {
    size_t grown = *cap * 2 + 4;
    sc_mutation *m = sc_arena_alloc(&ctx->arena, grown * sizeof *m);
    if (p->n_mutations) memcpy(m, p->mutations, p->n_mutations * sizeof *m);
    p->mutations = m;
    *cap = grown;
  }
  /* the new value is a graph output too, as in a functionalized program: kept to the end */
  sc_arg *outs = sc_arena_alloc(&ctx->arena, (p->graph->n_outputs + 1) * sizeof *outs);
  if (p->graph->n_outputs) memcpy(outs, p->graph->outputs, p->graph->n_outputs * sizeof *outs);
  memset(&outs[p->graph->n_outputs], 0, sizeof *outs);
  outs[p->graph->n_outputs].kind = SC_ARG_TENSOR;
  outs[p->graph->n_outputs].n_items = 1;
  outs[p->graph->n_outputs].items = sc_arena_alloc(&ctx->arena, sizeof(sc_arg_item));
  outs[p->graph->n_outputs].items[0].value = value;
  outs[p->graph->n_outputs].path = n->path;
  p->graph->outputs = outs;
  p->graph->n_outputs++;
  sc_mutation *m = &p->mutations[p->n_mutations++];
  memset(m, 0, sizeof *m);
  m->kind = kind;
  m->target = target;
  m->path = n->path;
  m->arg.kind = SC_ARG_TENSOR;
  m->arg.n_items = 1;
  m->arg.items = sc_arena_alloc(&ctx->arena, sizeof *m->arg.items);
  m->arg.items[0].value = value;
  m->arg.path = n->path;
  return true;
}

/* Whether node n's result shares its operand's memory in torch (its views, and the ops
 * shapec computes as copies that torch returns as views: diagonal, as_strided, detach), so
 * that an in-place update of the result reaches the operand. */
static bool torch_view(const sc_node *n) {
  if (!n->op) return false;
  switch (n->op->id) {
    case SC_OP_DIAGONAL: case SC_OP_AS_STRIDED: case SC_OP_DETACH: return true;
    default: return n->op->op_class == SC_OPC_VIEW;
  }
}

/* Views that keep every element in order (shapec computes them as renames). */
static bool is_rename(const sc_node *view) {
  switch (view->op->id) {
    case SC_OP_VIEW: case SC_OP_UNSAFE_VIEW: case SC_OP_RESHAPE: case SC_OP_FLATTEN: case SC_OP_UNFLATTEN:
    case SC_OP_UNSQUEEZE: case SC_OP_SQUEEZE_DIM: case SC_OP_SQUEEZE_DIMS: case SC_OP_ALIAS: case SC_OP_VIEW_AS:
    case SC_OP_DETACH:
      return true;
    default: return false;
  }
}

/* contiguous() of a tensor torch holds in another order (a permute's result) is a copy, which
 * an in-place update of it does not reach: the strides the file records for the two differ
 * (BEiT's relative position bias adds in place to `permute(...).contiguous()`). */
static bool copies(const sc_node *view, const sc_value *base, const sc_value *result) {
  if (view->op->id != SC_OP_CONTIGUOUS || !base->meta.strides || !result->meta.strides) return false;
  for (int i = 0; i < base->meta.rank && i < result->meta.rank; i++)
    if (base->meta.strides[i] != result->meta.strides[i]) return true; /* hash-consed: equal is identical */
  return false;
}

/* Puts node n into the graph after node k; the later nodes' results know their new places. */
static void splice_after(sc_ctx *ctx, sc_graph *g, size_t k, const sc_node *n) {
  sc_node *nodes = sc_arena_alloc(&ctx->arena, (g->n_nodes + 1) * sizeof *nodes);
  memcpy(nodes, g->nodes, (k + 1) * sizeof *nodes);
  memcpy(nodes + k + 2, g->nodes + k + 1, (g->n_nodes - k - 1) * sizeof *nodes);
  nodes[k + 1] = *n;
  g->nodes = nodes;
  g->n_nodes++;
  for (size_t j = k + 1; j < g->n_nodes; j++)
    for (size_t o = 0; o < g->nodes[j].n_outputs; o++)
      for (size_t i = 0; i < g->nodes[j].outputs[o].n_items; i++)
        if (g->nodes[j].outputs[o].items[i].value) g->nodes[j].outputs[o].items[i].value->def_node = (int)j;
}

/* A value to be made by a node put after node k in base's place: a fresh NAME_<suffix> with
 * base's meta, which every reader of base after node k reads instead. */
static sc_value *fresh_for(sc_ctx *ctx, sc_program *p, size_t k, const sc_value *base, const char *suffix) {
  sc_graph *g = p->graph;
  char *name = NULL;
  for (int i = 0; !name || sc_graph_find_value(g, name); i++)
    name = sc_arena_printf(&ctx->arena, "%s_%s%s%.0d", base->name, suffix, i ? "_" : "", i);
  sc_value *v = sc_graph_add_value(ctx, g, name, SC_VALUE_TENSOR);
  v->meta = base->meta;
  v->path = g->nodes[k].path;
  v->def_node = (int)k + 1;
  replace_later(p, k, base, v);
  return v;
}

/* Inserts after node k: NAME = target(value as arg_names[1], base as arg_names[0] or the
 * other way, extra arguments), NAME a fresh name with base's meta; every reader of base
 * after node k reads NAME.  Returns NAME's value. */
static sc_value *insert_after(sc_ctx *ctx, sc_program *p, size_t k, const char *target, const char *const names[2],
                              sc_value *const values[2], const sc_named_arg *extra, size_t n_extra, sc_value *base) {
  sc_graph *g = p->graph;
  const sc_node *at = &g->nodes[k];
  sc_value *v = fresh_for(ctx, p, k, base, "updated");
  sc_node node = {0}, *n = &node;
  n->target = target;
  n->op = sc_op_lookup(n->target);
  n->name = v->name;
  n->path = at->path;
  n->n_inputs = 2 + n_extra;
  n->inputs = sc_arena_alloc(&ctx->arena, (2 + n_extra) * sizeof *n->inputs);
  for (int i = 0; i < 2; i++)
    n->inputs[i] = (sc_named_arg){names[i], sc_tensor_arg(ctx, values[i], at->path), SC_ARG_PASS_POSITIONAL};
  for (size_t i = 0; i < n_extra; i++) n->inputs[2 + i] = extra[i];
  n->n_outputs = 1;
  n->outputs = sc_arena_alloc(&ctx->arena, sizeof *n->outputs);
  n->outputs[0] = sc_tensor_arg(ctx, v, at->path);
  splice_after(ctx, g, k, n);
  return v;
}

/* base's new value after its view was updated in place: view_as(value, base) for a view of
 * all of it in another shape */
static sc_value *insert_view_as(sc_ctx *ctx, sc_program *p, size_t k, sc_value *value, sc_value *base) {
  static const char *const names[2] = {"self", "other"};
  sc_value *const values[2] = {value, base};
  return insert_after(ctx, p, k, "torch.ops.aten.view_as.default", names, values, NULL, 0, base);
}

/* ... and for a slice, select or diagonal of it, as functionalization writes it:
 * slice_scatter(base, value, dim, start, end, step), select_scatter(base, value, dim, index)
 * or diagonal_scatter(base, value, offset, dim1, dim2), the view's own arguments after the
 * first. */
static sc_value *insert_scatter(sc_ctx *ctx, sc_program *p, size_t k, sc_value *value, sc_value *base,
                                const sc_node *view) {
  static const char *const names[2] = {"self", "src"};
  sc_value *const values[2] = {base, value};
  const char *target = view->op->id == SC_OP_SLICE    ? "torch.ops.aten.slice_scatter.default"
                       : view->op->id == SC_OP_DIAGONAL ? "torch.ops.aten.diagonal_scatter.default"
                                                        : "torch.ops.aten.select_scatter.default";
  return insert_after(ctx, p, k, target, names, values, view->inputs + 1, view->n_inputs - 1, base);
}

/* An int argument named `name` of node n (`def` when absent or not a constant). */
static int64_t const_int(const sc_node *n, const char *name, int64_t def) {
  for (size_t i = 0; i < n->n_inputs; i++)
    if (strcmp(n->inputs[i].name, name) == 0) {
      const sc_arg *a = &n->inputs[i].arg;
      return a->kind == SC_ARG_INT && a->n_items == 1 && !a->items[0].value ? a->items[0].i : def;
    }
  return def;
}

static sc_named_arg int_named(sc_ctx *ctx, const char *name, int64_t v, const char *path) {
  sc_arg a = {.kind = SC_ARG_INT, .n_items = 1, .path = path};
  a.items = sc_arena_alloc(&ctx->arena, sizeof *a.items);
  a.items[0].i = v;
  return (sc_named_arg){name, a, SC_ARG_PASS_POSITIONAL};
}

/* ... and for a piece of split (a constant size) or split_with_sizes (constant sizes), the
 * slice it is: slice_scatter(base, value, dim, start, end); for a piece of unbind, the
 * select: select_scatter(base, value, dim, i).  NULL for another multi-result view (chunk,
 * tensor_split) or symbolic sizes. */
static sc_value *insert_piece_scatter(sc_ctx *ctx, sc_program *p, size_t k, sc_value *value, sc_value *base,
                                      const sc_node *view, const sc_value *piece) {
  int64_t index = -1, seen = 0;
  for (size_t o = 0; o < view->n_outputs; o++)
    for (size_t j = 0; j < view->outputs[o].n_items; j++, seen++)
      if (view->outputs[o].items[j].value == piece) index = seen;
  int64_t dim = const_int(view, "dim", 0), start = 0, size = 0;
  if (dim < 0) dim += base->meta.rank;
  if (index < 0 || dim < 0) return NULL;
  static const char *const names[2] = {"self", "src"};
  sc_value *const values[2] = {base, value};
  const char *path = p->graph->nodes[k].path;
  if (view->op->id == SC_OP_UNBIND) {
    sc_named_arg extra[2] = {int_named(ctx, "dim", dim, path), int_named(ctx, "index", index, path)};
    return insert_after(ctx, p, k, "torch.ops.aten.select_scatter.default", names, values, extra, 2, base);
  }
  if (view->op->id == SC_OP_SPLIT) {
    size = const_int(view, "split_size", -1);
    start = index * size;
  } else if (view->op->id == SC_OP_SPLIT_WITH_SIZES) {
    const sc_arg *sizes = NULL;
    for (size_t i = 0; i < view->n_inputs; i++)
      if (strcmp(view->inputs[i].name, "split_sizes") == 0) sizes = &view->inputs[i].arg;
    if (!sizes || sizes->kind != SC_ARG_INTS || index >= (int64_t)sizes->n_items) return NULL;
    for (int64_t i = 0; i <= index; i++) {
      if (sizes->items[i].value) return NULL;
      if (i < index) start += sizes->items[i].i;
    }
    size = sizes->items[index].i;
  } else {
    return NULL;
  }
  if (size < 0) return NULL;
  /* the last piece runs to the end of the dim, however long (slice clamps the end) */
  int64_t end = index == seen - 1 ? INT64_MAX : start + size;
  sc_named_arg extra[4] = {int_named(ctx, "dim", dim, path), int_named(ctx, "start", start, path),
                           int_named(ctx, "end", end, path), int_named(ctx, "step", 1, path)};
  return insert_after(ctx, p, k, "torch.ops.aten.slice_scatter.default", names, values, extra, 4, base);
}

/* Inserts after node k a copy of view node o that views new_base where o viewed its base;
 * every reader of o's result after node k reads the copy's.  Returns the copy's result. */
static sc_value *insert_view_copy(sc_ctx *ctx, sc_program *p, size_t k, const sc_node *o, const sc_value *base,
                                  sc_value *new_base) {
  sc_graph *g = p->graph;
  sc_value *v = fresh_for(ctx, p, k, result_of(o), "after_update");
  sc_node copy = *o;
  copy.name = v->name;
  copy.inputs = sc_arena_alloc(&ctx->arena, (o->n_inputs ? o->n_inputs : 1) * sizeof *copy.inputs);
  for (size_t i = 0; i < o->n_inputs; i++) {
    copy.inputs[i] = o->inputs[i];
    if (arg_reads(&o->inputs[i].arg, base) && !o->inputs[i].arg.lists) {
      sc_arg *a = &copy.inputs[i].arg;
      a->items = sc_arena_alloc(&ctx->arena, a->n_items * sizeof *a->items);
      memcpy(a->items, o->inputs[i].arg.items, a->n_items * sizeof *a->items);
      arg_replace(a, base, new_base);
    }
  }
  copy.n_outputs = 1;
  copy.outputs = sc_arena_alloc(&ctx->arena, sizeof *copy.outputs);
  copy.outputs[0] = sc_tensor_arg(ctx, v, o->path);
  splice_after(ctx, g, k, &copy);
  return v;
}

/* Views that only reorder dims (t, transpose, permute): an update through one is written
 * back by the reverse reordering. */
static bool is_reorder(const sc_node *view) {
  return view->op->id == SC_OP_T || view->op->id == SC_OP_TRANSPOSE || view->op->id == SC_OP_PERMUTE;
}

/* ... and for a reordering view: value with its dims put back in base's order (t and
 * transpose are their own inverses; permute takes the inverse permutation).  NULL where
 * the permutation is not a list of constants. */
static sc_value *insert_unreorder(sc_ctx *ctx, sc_program *p, size_t k, sc_value *value, sc_value *base,
                                  const sc_node *view) {
  sc_graph *g = p->graph;
  const sc_node *at = &g->nodes[k];
  sc_node node = {.path = at->path};
  node.target = view->op->id == SC_OP_T ? "torch.ops.aten.t.default"
                : view->op->id == SC_OP_TRANSPOSE ? "torch.ops.aten.transpose.int" : "torch.ops.aten.permute.default";
  node.op = sc_op_lookup(node.target);
  node.n_inputs = view->op->id == SC_OP_PERMUTE ? 2 : view->n_inputs;
  node.inputs = sc_arena_alloc(&ctx->arena, (node.n_inputs ? node.n_inputs : 1) * sizeof *node.inputs);
  node.inputs[0] = (sc_named_arg){"self", sc_tensor_arg(ctx, value, at->path), SC_ARG_PASS_POSITIONAL};
  if (view->op->id == SC_OP_PERMUTE) {
    const sc_arg *dims = NULL;
    for (size_t i = 0; i < view->n_inputs; i++)
      if (strcmp(view->inputs[i].name, "dims") == 0) dims = &view->inputs[i].arg;
    int rank = base->meta.rank;
    if (!dims || dims->kind != SC_ARG_INTS || (int)dims->n_items != rank) return NULL;
    sc_arg inverse = {.kind = SC_ARG_INTS, .n_items = (size_t)rank, .path = at->path};
    inverse.items = sc_arena_alloc(&ctx->arena, (size_t)(rank ? rank : 1) * sizeof *inverse.items);
    for (int i = 0; i < rank; i++) {
      int64_t d = dims->items[i].i < 0 ? dims->items[i].i + rank : dims->items[i].i;
      if (dims->items[i].value || d < 0 || d >= rank) return NULL;
      inverse.items[d].i = i;
    }
    node.inputs[1] = (sc_named_arg){"dims", inverse, SC_ARG_PASS_POSITIONAL};
  } else {
    for (size_t i = 1; i < view->n_inputs; i++) node.inputs[i] = view->inputs[i];
  }
  sc_value *v = fresh_for(ctx, p, k, base, "updated");
  node.name = v->name;
  node.n_outputs = 1;
  node.outputs = sc_arena_alloc(&ctx->arena, sizeof *node.outputs);
  node.outputs[0] = sc_tensor_arg(ctx, v, at->path);
  splice_after(ctx, g, k, &node);
  return v;
}

/* Whether a view of base other than `view`, made before node k, is read after it: it would
 * see the update too, which the functional rewrite does not give it. */
static bool view_read_later(const sc_program *p, size_t k, const sc_value *v);

/* Whether a view of base made before node k (other than `view`), or a view of that view, is
 * read after node k */
static bool other_view_read_later(const sc_program *p, size_t k, const sc_node *view, const sc_value *base) {
  const sc_graph *g = p->graph;
  for (size_t j = 0; j < k; j++) {
    const sc_node *o = &g->nodes[j];
    if (o == view || !torch_view(o) || self_of(o) != base) continue;
    for (size_t i = 0; i < o->n_outputs; i++)
      for (size_t t = 0; t < o->outputs[i].n_items; t++)
        if (o->outputs[i].items[t].value && view_read_later(p, k, o->outputs[i].items[t].value)) return true;
  }
  return false;
}

/* v, or a view of v made before node k (views of views too: each is made after the one it
 * views, so the walk ends), is read after node k */
static bool view_read_later(const sc_program *p, size_t k, const sc_value *v) {
  return read_later(p, k, v) || other_view_read_later(p, k, NULL, v);
}

/* The views of base made before node `first` (other than `skip`) that are read after node
 * *at, and the views of those, taken again of updated_base after *at, as torch's
 * functionalization regenerates a view of a mutated base: each later reader sees the update
 * (`col = y[:, 0]; y[0].add_(1); col * 2`).  Single-output views only; *at moves past the
 * inserted nodes and *root grows with them.  False where a view has several outputs. */
static bool rederive_views(sc_ctx *ctx, sc_program *p, size_t first, size_t *at, const sc_node *skip,
                           const sc_value *base, sc_value *updated_base, const sc_value ***root, int depth) {
  if (depth > 16) return false;
  for (size_t j = 0; j < first; j++) {
    const sc_node *o = &p->graph->nodes[j];
    if (o == skip || !torch_view(o) || self_of(o) != base) continue;
    sc_value *ov = result_of(o);
    if (!ov || !view_read_later(p, *at, ov)) continue;
    if (o->n_outputs != 1 || o->outputs[0].n_items != 1) return false;
    sc_value *again = insert_view_copy(ctx, p, *at, o, base, updated_base);
    (*at)++;
    const sc_value **grown = sc_arena_alloc(&ctx->arena, p->graph->n_nodes * sizeof *grown);
    memcpy(grown, *root, *at * sizeof *grown);
    grown[*at] = NULL;
    *root = grown;
    if (!rederive_views(ctx, p, first, at, NULL, ov, again, root, depth + 1)) return false;
  }
  return true;
}

bool sc_resolve_inplace_updates(sc_ctx *ctx, sc_program *p) {
  sc_graph *g = p->graph;
  size_t cap = p->n_mutations;
  /* alias[k]: the graph input that value k's node updated in place (through earlier
   * in-place ops), so that a chain x.mul_(a).add_(b) writes back once, its last value */
  const sc_value **root = sc_arena_alloc(&ctx->arena, (g->n_nodes ? g->n_nodes : 1) * sizeof *root);
  for (size_t k = 0; k < g->n_nodes; k++) {
    sc_node *n = &g->nodes[k];
    if (k > 0 && n->op && n->op->id == SC_OP_VIEW_AS && n->inputs[0].arg.items[0].value == result_of(&g->nodes[k - 1]))
      continue; /* inserted below: its root is set */
    if (k > 0 && n->op &&
        (n->op->id == SC_OP_SLICE_SCATTER || n->op->id == SC_OP_SELECT_SCATTER || n->op->id == SC_OP_DIAGONAL_SCATTER) &&
        n->n_inputs > 1 &&
        n->inputs[1].arg.items[0].value == result_of(&g->nodes[k - 1]))
      continue;
    root[k] = NULL;
    if (!is_inplace(n)) continue;
    sc_value *self = self_of(n), *out = result_of(n);
    if (!self || !out || self == out) continue;
    /* through views: each base up the chain changes too (y[:, 1::2].mul_(3) updates a slice
     * of a slice of y) */
    size_t at = k; /* the last node inserted after k, or k */
    sc_value *cur = self, *value = out;
    while (cur->def_node >= 0 && torch_view(&g->nodes[cur->def_node])) {
      const sc_node *view = &g->nodes[cur->def_node];
      sc_value *base = self_of(view);
      if (!base || copies(view, base, cur)) break;
      bool others = other_view_read_later(p, at, view, base);
      bool base_is_view = base->def_node >= 0 && torch_view(&g->nodes[base->def_node]);
      if (!(base->def_node < 0 || read_later(p, at, base) || others || base_is_view)) break;
      bool scatter = view->op->id == SC_OP_SLICE || view->op->id == SC_OP_SELECT || view->op->id == SC_OP_DIAGONAL;
      bool reorder = is_reorder(view);
      bool piece = view->op->id == SC_OP_SPLIT || view->op->id == SC_OP_SPLIT_WITH_SIZES || view->op->id == SC_OP_UNBIND;
      if (!is_rename(view) && !scatter && !reorder && !piece) {
        sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_INPLACE_THROUGH_VIEW, SC_SEV_ERROR, p->file, n->path,
                                  others ? "node '%s' updates '%s' in place, a view ('%s') of '%s', another view of "
                                           "which is read afterwards"
                                         : "node '%s' updates '%s' in place, a view ('%s') of '%s', which is read again "
                                           "afterwards",
                                  n->name, cur->name, view->target, base->name);
        sc_diag_set_hint(&ctx->diags, d, "export with ep = ep.run_decompositions(), which rewrites in-place "
                                         "updates of views functionally, or avoid the in-place op");
        return false;
      }
      /* base's new value: the result in base's shape (view_as) for a view of all of it, or
       * written over the slice or select (slice_scatter, select_scatter); a node inserted
       * after the last one, which every later reader of base reads */
      const sc_value *base_root = base->def_node == -1 ? base : base->def_node >= 0 ? root[base->def_node] : NULL;
      sc_value *updated_base = scatter && !is_rename(view) ? insert_scatter(ctx, p, at, value, base, view)
                               : reorder ? insert_unreorder(ctx, p, at, value, base, view)
                               : piece   ? insert_piece_scatter(ctx, p, at, value, base, view, cur)
                                         : insert_view_as(ctx, p, at, value, base);
      if (!updated_base) {
        sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_INPLACE_THROUGH_VIEW, SC_SEV_ERROR, p->file, n->path,
                                  "node '%s' updates '%s' in place, a view ('%s') of '%s' whose dims or sizes are "
                                  "not constants", n->name, cur->name, view->target, base->name);
        sc_diag_set_hint(&ctx->diags, d, "export with ep = ep.run_decompositions(), which rewrites in-place "
                                         "updates of views functionally, or avoid the in-place op");
        return false;
      }
      at++;
      const sc_value **grown = sc_arena_alloc(&ctx->arena, g->n_nodes * sizeof *grown);
      memcpy(grown, root, at * sizeof *grown);
      root = grown; /* root[at], the new node's, is set here: the loop skips inserted nodes */
      root[at] = base_root;
      if (base_root && !record_write_back(ctx, p, &g->nodes[at], base_root, updated_base, &cap)) return false;
      if (others && !rederive_views(ctx, p, k, &at, view, base, updated_base, &root, 0)) {
        sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_INPLACE_THROUGH_VIEW, SC_SEV_ERROR, p->file, n->path,
                                  "node '%s' updates '%s' in place, a view ('%s') of '%s', another view of which "
                                  "(with several results, or nested more than 16 deep) is read afterwards",
                                  g->nodes[k].name, cur->name, view->target, base->name);
        sc_diag_set_hint(&ctx->diags, d, "export with ep = ep.run_decompositions(), which rewrites in-place "
                                         "updates of views functionally, or avoid the in-place op");
        return false;
      }
      n = &g->nodes[k]; /* the array moved */
      cur = base;
      value = updated_base;
    }
    const sc_value *updated = self->def_node == -1 ? self : self->def_node >= 0 ? root[self->def_node] : NULL;
    if (updated && !record_write_back(ctx, p, n, updated, out, &cap)) return false;
    root[k] = updated;
    replace_later(p, k, self, out);
  }
  return true;
}
