/* cg_view_chains.c - the views between a linear layer and attention, read in place.
 *
 * nn.MultiheadAttention splits its heads off the in-projection's [s, b, 3 * e] output with
 * unflatten, unsqueeze, transpose, squeeze, contiguous, three selects and, per head tensor,
 * view(s, b * h, d), transpose(0, 1) and view(b, h, s, d).  Each step lowered alone is a copy
 * (contiguous, the selects, the transposes: 9 MB per call at [8, 128, 256]), although the
 * tensor attention finally reads is a plain strided view of the projection's output:
 * q[b, h, i, c] is proj[i, b, c + h * d] (and k, v at + e, + 2 e).  An intermediate step need
 * not be one: view(s, b * h, d) of the selected [s, b, e] merges b and h, whose strides do
 * not line up, which is why torch copies first.
 *
 * So each dim is tracked here as a list of factors (size, stride), outermost first, all
 * symbolic: a view regroups the factors (splitting one where a size divides it), a permute
 * reorders dims, a select moves the offset.  When the chain ends at an operand of
 * scaled_dot_product_attention with one factor per dim, the kernel reads the chain's start
 * through those strides, and every step of the chain whose readers are all such chains
 * emits nothing.  A size that cannot be proven to divide another leaves the chain as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

enum { MAX_FACTORS = 4 };

typedef struct factor {
  const sc_expr *size, *stride;
} factor;

typedef struct layout {
  int rank;
  int n[CG_MAX_RANK]; /* factors of each dim; 0 for a dim of size 1 */
  factor f[CG_MAX_RANK][MAX_FACTORS];
  const sc_expr *offset;
} layout;

static bool is_chain_op(const sc_node *n) {
  if (!n->op || n->n_outputs != 1 || !n->outputs[0].n_items) return false;
  switch (n->op->id) {
    case SC_OP_VIEW: case SC_OP_UNSAFE_VIEW: case SC_OP_RESHAPE: case SC_OP_FLATTEN: case SC_OP_UNFLATTEN:
    case SC_OP_UNSQUEEZE: case SC_OP_SQUEEZE_DIM: case SC_OP_SQUEEZE_DIMS: case SC_OP_CONTIGUOUS: case SC_OP_ALIAS:
    case SC_OP_T: case SC_OP_TRANSPOSE: case SC_OP_PERMUTE: case SC_OP_SELECT:
      return true;
    default:
      return false;
  }
}

static bool is_one(const sc_expr *e) {
  int64_t v;
  return sc_expr_is_const(e, &v) && v == 1;
}

/* q with q * b == a, or NULL when that cannot be shown for every value of the symbols. */
static const sc_expr *exact_quotient(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) {
  const sc_expr *q = sc_expr_floordiv(ctx, a, b);
  return q && sc_expr_mul(ctx, q, b) == a ? q : NULL;
}

/* A compact tensor of shape v->shape, or, with perm, one whose buffer holds its dim d as
 * dim perm[d] (a linear layer's output in its input's row order); false for one with a
 * dim of constant size 0 (no elements to view, nor sizes to divide by). */
static bool compact_layout(sc_ctx *ctx, const sc_value *v, const int *perm, layout *l) {
  int r = v->meta.rank, of[CG_MAX_RANK]; /* of[j]: the dim the buffer holds as its dim j */
  for (int d = 0; d < r; d++) of[perm ? perm[d] : d] = d;
  const sc_expr *stride = sc_expr_int(ctx, 1);
  l->rank = r;
  l->offset = sc_expr_int(ctx, 0);
  for (int j = r - 1; j >= 0; j--) {
    int d = of[j];
    int64_t size;
    if (sc_expr_is_const(v->shape[d], &size) && size == 0) return false;
    l->n[d] = is_one(v->shape[d]) ? 0 : 1;
    l->f[d][0] = (factor){v->shape[d], stride};
    stride = sc_expr_mul(ctx, stride, v->shape[d]);
  }
  return true;
}

/* The same elements in row-major order regrouped into dims of the given sizes (view,
 * reshape, flatten, unflatten, squeeze, unsqueeze): innermost dims first, each takes
 * whole factors from the end while its size is a multiple of their product, and splits
 * the next one where the size left divides it. */
static bool regroup(sc_ctx *ctx, const layout *in, const sc_expr *const *sizes, int rank, layout *out) {
  factor all[CG_MAX_RANK * MAX_FACTORS];
  int n = 0;
  for (int d = 0; d < rank; d++) { /* a dim of constant size 0 has no elements to regroup (nor a quotient) */
    int64_t v;
    if (sc_expr_is_const(sizes[d], &v) && v == 0) return false;
  }
  for (int d = 0; d < in->rank; d++)
    for (int k = 0; k < in->n[d]; k++) all[n++] = in->f[d][k];
  out->rank = rank;
  out->offset = in->offset;
  for (int d = rank - 1; d >= 0; d--) {
    factor got[MAX_FACTORS];
    int taken = 0;
    const sc_expr *have = sc_expr_int(ctx, 1);
    while (have != sizes[d]) {
      const sc_expr *need = exact_quotient(ctx, sizes[d], have);
      if (!need || !n || taken == MAX_FACTORS) return false;
      factor last = all[n - 1];
      if (last.size == need || (exact_quotient(ctx, need, last.size) != NULL)) {
        got[taken++] = last; /* the whole factor */
        n--;
      } else {
        const sc_expr *outer = exact_quotient(ctx, last.size, need);
        if (!outer) return false;
        got[taken++] = (factor){need, last.stride};
        all[n - 1] = (factor){outer, sc_expr_mul(ctx, last.stride, need)};
      }
      have = sc_expr_mul(ctx, have, got[taken - 1].size);
    }
    out->n[d] = taken;
    for (int k = 0; k < taken; k++) out->f[d][k] = got[taken - 1 - k];
  }
  return n == 0;
}

/* Merges a dim's factors where the outer one's stride is the inner one's span; whether
 * every dim ends as one factor (a plain strided view). */
static bool single_factors(sc_ctx *ctx, layout *l) {
  for (int d = 0; d < l->rank; d++) {
    while (l->n[d] > 1) {
      factor *o = &l->f[d][l->n[d] - 2], *i = &l->f[d][l->n[d] - 1];
      if (o->stride != sc_expr_mul(ctx, i->stride, i->size)) return false;
      *o = (factor){sc_expr_mul(ctx, o->size, i->size), i->stride};
      l->n[d]--;
    }
  }
  return true;
}

/* The layout of node n's output from its input's, or false. */
static bool step(cg *g, const sc_node *n, const layout *in, layout *out) {
  sc_ctx *ctx = g->ctx;
  const sc_value *v = n->outputs[0].items[0].value;
  int r = v->meta.rank;
  switch (n->op->id) {
    case SC_OP_CONTIGUOUS: case SC_OP_ALIAS:
      *out = *in;
      return true;
    case SC_OP_T: case SC_OP_TRANSPOSE: case SC_OP_PERMUTE: {
      int perm[CG_MAX_RANK];
      if (r != in->rank) return false;
      cg_permutation_of(n, r, perm);
      out->rank = r;
      out->offset = in->offset;
      for (int d = 0; d < r; d++) {
        if (perm[d] < 0 || perm[d] >= r) return false;
        out->n[d] = in->n[perm[d]];
        memcpy(out->f[d], in->f[perm[d]], sizeof out->f[d]);
      }
      return true;
    }
    case SC_OP_SELECT: {
      const sc_arg *dim = cg_node_arg(n, "dim"), *index = cg_node_arg(n, "index");
      if (!dim || !index || !dim->n_items || !index->n_items || dim->items[0].value || index->items[0].value) return false;
      int64_t d = dim->items[0].i < 0 ? dim->items[0].i + in->rank : dim->items[0].i;
      if (d < 0 || d >= in->rank || r != in->rank - 1) return false;
      const sc_expr *stride;
      if (in->n[d] == 0) stride = sc_expr_int(ctx, 0); /* a dim of size 1: index 0 (or -1) */
      else if (in->n[d] == 1) stride = in->f[d][0].stride;
      else return false;
      const sc_expr *size = in->n[d] ? in->f[d][0].size : sc_expr_int(ctx, 1);
      const sc_expr *at = sc_expr_int(ctx, index->items[0].i);
      if (index->items[0].i < 0) at = sc_expr_add(ctx, at, size); /* the analysis checked the range */
      out->rank = r;
      out->offset = sc_expr_add(ctx, in->offset, sc_expr_mul(ctx, at, stride));
      for (int k = 0, o = 0; k < in->rank; k++) {
        if (k == d) continue;
        out->n[o] = in->n[k];
        memcpy(out->f[o], in->f[k], sizeof out->f[o]);
        o++;
      }
      return true;
    }
    default:
      return regroup(ctx, in, v->shape, r, out);
  }
}

/* Whether a value's memory is its own compact buffer, laid out by no other plan. */
static bool plain_compact(cg *g, const sc_value *v) {
  const cg_value *cv = cg_get(g, v);
  return !cv->inlined && !cv->view_base && !cv->strided && !cv->transposed && !cv->writes_into_base &&
         !cv->chain_base && v->meta.dtype == SC_DTYPE_F32;
}

typedef struct chain {
  int nodes[64]; /* the chain's nodes, first to last */
  int len;
  const sc_value *base;
  layout end;
} chain;

/* The chain of views ending in value v: its start (a compact tensor) and v's layout over
 * it; false when there is none or it is not a strided view. */
static bool trace(cg *g, const sc_value *v, chain *c) {
  const sc_graph *gr = g->p->graph;
  c->len = 0;
  const sc_value *at = v;
  while (at->def_node >= 0 && is_chain_op(&gr->nodes[at->def_node])) {
    if (c->len == (int)(sizeof c->nodes / sizeof *c->nodes)) return false;
    const sc_node *n = &gr->nodes[at->def_node];
    c->nodes[c->len++] = at->def_node;
    at = cg_tensor_input(n, "self");
    if (!at) return false;
  }
  if (!c->len || !plain_compact(g, at) || at->meta.rank > CG_MAX_RANK) return false;
  c->base = at;
  for (int i = 0, j = c->len - 1; i < j; i++, j--) {
    int t = c->nodes[i];
    c->nodes[i] = c->nodes[j];
    c->nodes[j] = t;
  }
  layout l;
  const cg_value *base = cg_get(g, at);
  if (!compact_layout(g->ctx, at, base->rows_permuted ? base->rows_perm : NULL, &l)) return false;
  for (int i = 0; i < c->len; i++) {
    const sc_node *n = &gr->nodes[c->nodes[i]];
    const sc_value *out = n->outputs[0].items[0].value;
    if (!out || out->kind != SC_VALUE_TENSOR || out->meta.rank > CG_MAX_RANK || out->meta.dtype != SC_DTYPE_F32)
      return false;
    const cg_value *cv = cg_get(g, out);
    if (cv->inlined || cv->view_base || cv->strided || cv->transposed || cv->written_by_producer) return false;
    layout next;
    if (!step(g, n, &l, &next)) return false;
    l = next;
  }
  c->end = l;
  return single_factors(g->ctx, &c->end);
}

static const char *const OPERANDS[3] = {"query", "key", "value"};

/* Which of query, key and value argument `name` of attention node n is, or -1. */
static int operand_index(const sc_node *n, const char *name) {
  if (n->op->id != SC_OP_SDPA) return -1;
  for (int k = 0; k < 3; k++)
    if (strcmp(name, OPERANDS[k]) == 0) return k;
  return -1;
}

/* For each node, how many of its result's readers are operands whose chain ends there and
 * stands (reads[node], one int per node); attention node u's chains are chains[3 * slot[u] ..]. */
static void count_operand_reads(const cg *g, const chain *chains, const int *slot, int *reads) {
  const sc_graph *gr = g->p->graph;
  memset(reads, 0, gr->n_nodes * sizeof *reads);
  for (size_t u = 0; u < gr->n_nodes; u++) {
    const sc_node *un = &gr->nodes[u];
    for (size_t k = 0; k < un->n_inputs; k++) {
      int which = operand_index(un, un->inputs[k].name);
      const sc_arg *a = &un->inputs[k].arg;
      if (which < 0 || !a->n_items || !a->items[0].value || a->items[0].value->def_node < 0) continue;
      if (chains[3 * (size_t)slot[u] + (size_t)which].len) reads[a->items[0].value->def_node]++;
    }
  }
}

static const sc_value *end_of(const cg *g, const chain *c) {
  return g->p->graph->nodes[c->nodes[c->len - 1]].outputs[0].items[0].value;
}

/* Whether node u reads value v as its "self" (a chain step's input). */
static bool reads_as_self(const sc_node *u, const sc_value *v) { return cg_tensor_input(u, "self") == v; }

bool cg_chains_take_permuted_rows(cg *g, const sc_value *v, const int *perm) {
  if (g->has_cuda || !g->folded || v->meta.rank > CG_MAX_RANK) return false;
  const sc_graph *gr = g->p->graph;
  cg_value *cv = cg_get(g, v);
  bool was = cv->rows_permuted;
  int kept[CG_MAX_RANK];
  memcpy(kept, cv->rows_perm, sizeof kept);
  cv->rows_permuted = true;
  memcpy(cv->rows_perm, perm, sizeof kept);
  /* from v through chain steps: every reader a step of the chain or an attention operand
   * whose chain from v stands, and read by nothing else (as cg_plan_view_chains asks) */
  const sc_value *pending[64]; /* values whose readers are still to be looked at */
  int n_pending = 0;
  bool ok = true;
  pending[n_pending++] = v;
  while (ok && n_pending) {
    const sc_value *w = pending[--n_pending];
    int readers = 0, operands = 0, steps = 0;
    const cg_read *reads = cg_readers(g, w, &readers);
    ok = readers > 0;
    for (int r = 0; ok && r < readers; r++) {
      const sc_node *un = &gr->nodes[reads[r].node];
      int which = operand_index(un, un->inputs[reads[r].input].name);
      if (which >= 0 && !g->folded[reads[r].node].into && un->outputs[0].items[0].value->meta.rank <= 4) {
        chain c;
        int rank = w->meta.rank;
        ok = w != v && trace(g, w, &c) && c.base == v &&
             !(which == 2 && c.end.n[rank - 1] && !is_one(c.end.f[rank - 1][0].stride));
        operands++;
      } else if (is_chain_op(un) && reads_as_self(un, w) && n_pending < 64) {
        pending[n_pending++] = un->outputs[0].items[0].value;
        steps++;
      } else {
        ok = false;
      }
    }
    /* a value the attention reads ends its chain: nothing else may read it */
    ok = ok && readers == cg_get(g, w)->uses && !(operands && steps);
  }
  cv->rows_permuted = was;
  memcpy(cv->rows_perm, kept, sizeof kept);
  return ok;
}

void cg_plan_view_chains(cg *g) {
  if (g->has_cuda || !g->folded) return;
  const sc_graph *gr = g->p->graph;
  size_t n = gr->n_nodes;
  /* a chain per attention node and operand (a chain is 1.4 KB: one per node of a graph of
   * 100,000 nodes was 420 MB); slot[i]: attention node i's place among them, node[s] the node */
  int *slot = malloc((n ? n : 1) * sizeof *slot), *node = malloc((n ? n : 1) * sizeof *node);
  size_t n_att = 0;
  for (size_t i = 0; slot && node && i < n; i++) {
    slot[i] = gr->nodes[i].op && gr->nodes[i].op->id == SC_OP_SDPA ? (int)n_att : -1;
    if (slot[i] >= 0) node[n_att++] = (int)i;
  }
  chain *chains = calloc(3 * (n_att ? n_att : 1), sizeof *chains);
  bool *elided = calloc(n ? n : 1, sizeof *elided);
  int *operand_reads = calloc(n ? n : 1, sizeof *operand_reads), *step_reads = calloc(n ? n : 1, sizeof *step_reads);
  if (!slot || !node || !chains || !elided || !operand_reads || !step_reads) goto done;
  for (size_t i = 0; i < n; i++) {
    const sc_node *nd = &gr->nodes[i];
    /* past two batch dims the host path copies the operands compact (cg_ops.c, sdpa_host) */
    if (nd->op->id != SC_OP_SDPA || g->folded[i].into || nd->outputs[0].items[0].value->meta.rank > 4) continue;
    for (int k = 0; k < 3; k++) {
      const sc_value *x = cg_tensor_input(nd, OPERANDS[k]);
      chain *c = &chains[3 * (size_t)slot[i] + (size_t)k];
      if (!x || !trace(g, x, c)) {
        c->len = 0;
        continue;
      }
      int r = c->end.rank;
      /* the kernel reads v's rows as contiguous vectors */
      if (k == 2 && c->end.n[r - 1] && !is_one(c->end.f[r - 1][0].stride)) c->len = 0;
    }
  }
  /* the chain's end is read in place, so only by such operands (not by a mask, another
   * node or as a graph output) */
  for (bool changed = true; changed;) {
    changed = false;
    count_operand_reads(g, chains, slot, operand_reads);
    for (size_t c = 0; c < 3 * n_att; c++) {
      if (!chains[c].len) continue;
      const sc_value *end = end_of(g, &chains[c]);
      if (operand_reads[end->def_node] != cg_get(g, end)->uses) {
        chains[c].len = 0;
        changed = true;
      }
    }
  }
  /* a step of a chain emits nothing when every reader of its result does not either, or is
   * an operand whose chain ends there; the other steps stay copies for their other readers */
  for (size_t c = 0; c < 3 * n_att; c++)
    for (int j = 0; j < chains[c].len; j++) elided[chains[c].nodes[j]] = true;
  count_operand_reads(g, chains, slot, operand_reads);
  for (bool changed = true; changed;) {
    changed = false;
    memset(step_reads, 0, n * sizeof *step_reads); /* readers that are elided steps */
    for (size_t u = 0; u < n; u++) {
      const sc_value *in = elided[u] ? cg_tensor_input(&gr->nodes[u], "self") : NULL;
      if (in && in->def_node >= 0) step_reads[in->def_node]++;
    }
    for (size_t i = 0; i < n; i++) {
      if (!elided[i]) continue;
      const sc_value *v = gr->nodes[i].outputs[0].items[0].value;
      if (operand_reads[i] + step_reads[i] != cg_get(g, v)->uses) {
        elided[i] = false;
        changed = true;
      }
    }
  }
  for (size_t i = 0; i < n; i++)
    if (elided[i]) cg_get(g, gr->nodes[i].outputs[0].items[0].value)->chain_elided = true;
  for (size_t c = 0; c < 3 * n_att; c++) {
    chain *ch = &chains[c];
    if (!ch->len) continue;
    cg_value *end = cg_get(g, end_of(g, ch)), *base = cg_get(g, ch->base);
    end->chain_base = base;
    end->chain_offset = ch->end.offset;
    for (int d = 0; d < ch->end.rank; d++)
      end->chain_strides[d] = ch->end.n[d] ? ch->end.f[d][0].stride : sc_expr_int(g->ctx, 0);
    /* the attention reads the base: it lives until then, whichever steps are copies */
    int at = node[c / 3];
    if (base->last_use < at) base->last_use = at;
    g->absorbed.view_chains++;
  }
  /* a linear layer's output in its input's row order is no compact tensor: every read of
   * it must be one of these chains (cg_chains_take_permuted_rows promised it) */
  for (size_t i = 0; i < n; i++) {
    const sc_node *nd = &gr->nodes[i];
    const sc_value *v = nd->n_outputs && nd->outputs[0].n_items ? nd->outputs[0].items[0].value : NULL;
    if (!v || v->kind != SC_VALUE_TENSOR || !cg_get(g, v)->rows_permuted) continue;
    int read_in_place = operand_reads[i];
    for (size_t u = 0; u < n; u++)
      if (elided[u] && cg_tensor_input(&gr->nodes[u], "self") == v) read_in_place++;
    if (read_in_place != cg_get(g, v)->uses) {
      cg_error(g, SC_DIAG_CODEGEN, nd->path, "internal error: %s's rows in its input's order reached a reader that "
               "reads them in order", nd->target);
      goto done;
    }
  }
  for (size_t i = 0; i < n; i++) { /* an elided step aliases its chain's base */
    if (!elided[i]) continue;
    cg_value *cv = cg_get(g, gr->nodes[i].outputs[0].items[0].value);
    if (cv->chain_base) continue;
    const sc_value *at = gr->nodes[i].outputs[0].items[0].value;
    while (at->def_node >= 0 && is_chain_op(&gr->nodes[at->def_node])) at = cg_tensor_input(&gr->nodes[at->def_node], "self");
    cv->chain_base = cg_get(g, at);
  }
done:
  free(slot);
  free(node);
  free(chains);
  free(elided);
  free(operand_reads);
  free(step_reads);
}
