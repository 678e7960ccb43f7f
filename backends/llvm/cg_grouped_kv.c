/* cg_grouped_kv.c - grouped-query attention reads its shared key/value heads in place.
 *
 * Llama, Qwen2, Mistral, Gemma (transformers' repeat_kv) give attention H = kvh * rep query
 * heads over kvh key/value heads as reshape(expand(unsqueeze(x, 2), [b, kvh, rep, S, d]),
 * [b, H, S, d]).  Lowered step by step that is a copy of the whole cache, rep times over,
 * for every layer and every decode step: as many bytes as the cache holds, written and
 * read again.  The attention kernel reads x in place instead: query head h reads key and
 * value head h / rep (its flags carry rep, runtime_abi.h), and the three steps emit
 * nothing.  CPU-only libraries; the device path copies as before. */
#include <string.h>

#include "lower.h"

static const sc_value *single_output(const sc_node *n) {
  return n->op && n->n_outputs == 1 && n->outputs[0].n_items == 1 ? n->outputs[0].items[0].value : NULL;
}

/* The node that defines v, when its op is `op` and v is its one output. */
static const sc_node *made_by(cg *g, const sc_value *v, sc_op_id op) {
  if (!v || v->def_node < 0) return NULL;
  const sc_node *n = &g->p->graph->nodes[v->def_node];
  return n->op && n->op->id == op && single_output(n) == v ? n : NULL;
}

/* Whether every read of v is by a node that `reader` accepts. */
static bool read_only_by(cg *g, const sc_value *v, bool (*reader)(cg *, const sc_node *, int, const char *)) {
  int count;
  const cg_read *reads = cg_readers(g, v, &count);
  if (count < 1 || count != cg_get(g, v)->uses) return false;
  for (int r = 0; r < count; r++) {
    const sc_node *n = &g->p->graph->nodes[reads[r].node];
    if (!reader(g, n, reads[r].node, n->inputs[reads[r].input].name)) return false;
  }
  return true;
}

static bool is_next_step(cg *g, const sc_node *n, int i, const char *as) {
  (void)g, (void)i;
  return n->op && (n->op->id == SC_OP_EXPAND || n->op->id == SC_OP_VIEW || n->op->id == SC_OP_UNSAFE_VIEW ||
                   n->op->id == SC_OP_RESHAPE) && strcmp(as, "self") == 0;
}

static bool is_attention_kv(cg *g, const sc_node *n, int i, const char *as) {
  const sc_value *y = single_output(n);
  return n->op && n->op->id == SC_OP_SDPA && !(g->folded && g->folded[i].into) && y && y->meta.rank == 4 &&
         (strcmp(as, "key") == 0 || strcmp(as, "value") == 0);
}

/* x when r is reshape(expand(unsqueeze(x, 2), [1, kvh, rep, S, d]), [1, kvh * rep, S, d])
 * whose steps nothing else reads; *rep its group; NULL otherwise. */
static const sc_value *grouped_source(cg *g, const sc_value *r, int64_t *rep) {
  const sc_node *rn = made_by(g, r, SC_OP_RESHAPE);
  if (!rn) rn = made_by(g, r, SC_OP_VIEW);
  if (!rn) rn = made_by(g, r, SC_OP_UNSAFE_VIEW);
  const sc_value *e = rn ? cg_tensor_input(rn, "self") : NULL;
  const sc_node *en = made_by(g, e, SC_OP_EXPAND);
  const sc_value *u = en ? cg_tensor_input(en, "self") : NULL;
  const sc_node *un = made_by(g, u, SC_OP_UNSQUEEZE);
  const sc_value *x = un ? cg_tensor_input(un, "self") : NULL;
  if (!x || x->meta.rank != 4 || r->meta.rank != 4 || e->meta.rank != 5 || cg_int_arg(un, "dim", -1) != 2) return NULL;
  if (!sc_expr_is_const(e->shape[2], rep) || *rep < 2 || *rep > 1 << 20 || r->shape[0] != x->shape[0] ||
      e->shape[0] != x->shape[0])
    return NULL;
  if (e->shape[1] != x->shape[1] || e->shape[3] != x->shape[2] || e->shape[4] != x->shape[3] ||
      r->shape[2] != x->shape[2] || r->shape[3] != x->shape[3] ||
      r->shape[1] != sc_expr_mul(g->ctx, x->shape[1], sc_expr_int(g->ctx, *rep)))
    return NULL;
  if (!read_only_by(g, u, is_next_step) || !read_only_by(g, e, is_next_step) || !read_only_by(g, r, is_attention_kv))
    return NULL;
  if (cg_get(g, u)->uses != 1 || cg_get(g, e)->uses != 1) return NULL;
  const cg_value *cx = cg_get(g, x);
  if (cx->held_swapped || cx->view_base || cx->transposed || cx->strided || cx->rows_permuted) return NULL;
  return x;
}

/* Marks r (the key or value of attention node `at`) to be read from x, its group rep. */
static void mark(cg *g, const sc_value *r, const sc_value *x, int64_t rep, int at) {
  const sc_graph *gr = g->p->graph;
  cg_value *cr = cg_get(g, r), *cx = cg_get(g, x);
  cr->grouped_from = cx;
  cr->group = rep;
  const sc_value *e = cg_tensor_input(&gr->nodes[r->def_node], "self"), *u = cg_tensor_input(&gr->nodes[e->def_node], "self");
  cg_get(g, e)->grouped_skip = cg_get(g, u)->grouped_skip = cr->grouped_skip = true;
  if (cx->last_use < at) cx->last_use = at; /* the attention reads x: it lives until then */
  g->absorbed.grouped_kv++;
}

void cg_plan_grouped_kv(cg *g) {
  if (g->has_cuda || !g->folded) return;
  const sc_graph *gr = g->p->graph;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    const sc_value *k = cg_tensor_input(n, "key"), *v = cg_tensor_input(n, "value"), *y = single_output(n);
    if (!n->op || n->op->id != SC_OP_SDPA || !k || !v || !y || !is_attention_kv(g, n, (int)i, "key")) continue;
    /* one group for the call: key and value both repeated alike (DiffLlama repeats its
     * values otherwise), each read by this attention alone */
    int64_t rep_k, rep_v;
    const sc_value *xk = grouped_source(g, k, &rep_k), *xv = xk && k != v ? grouped_source(g, v, &rep_v) : NULL;
    if (!xk || !xv || rep_k != rep_v || cg_get(g, k)->uses != 1 || cg_get(g, v)->uses != 1) continue;
    mark(g, k, xk, rep_k, (int)i);
    mark(g, v, xv, rep_v, (int)i);
  }
}

bool cg_lower_grouped_step(cg *g, const sc_node *n) {
  const sc_value *y = single_output(n), *x = y;
  while (x && cg_get(g, x)->grouped_skip) x = cg_tensor_input(&g->p->graph->nodes[x->def_node], "self");
  cg_value *cy = cg_get(g, y), *cx = x ? cg_get(g, x) : NULL;
  if (!cx || !cx->ready) return cg_error(g, SC_DIAG_CODEGEN, n->path, "internal error: grouped key/value source not ready");
  cg_set_dims(g, cy);
  cy->data = cx->data; /* never read: attention reads x (cg_ops.c, sdpa_host) */
  cg_note_alias(g, cy, cx);
  cy->ready = true;
  return true;
}
