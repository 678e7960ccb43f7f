/* cg_transpose.c - transposes and permutes that matrix products absorb.
 *
 * torch.export writes nn.Linear as addmm(bias, x, permute(weight, [1, 0])) and attention as
 * bmm(q, transpose(k, -2, -1)).  Copying the transposed matrix every call costs more than
 * the product for small batches; BLAS reads either layout at the same speed.  So a
 * transpose of the last two dims whose every reader is a matrix operand of a product is
 * never materialized: it aliases its input, and the product passes "transposed" to BLAS.
 *
 * On the CPU path the same holds for any permutation that keeps one of a matrix's two
 * dims contiguous, through chains of them: attention's heads,
 * reshape(b, t, h, d).transpose(1, 2), are read in place through the product's batch
 * strides and leading dimension (sc_k_bmm_strided_f32 takes two batch dims).  And a
 * product whose only reader is a permutation that keeps the last dim last writes its
 * result straight into the permuted layout: attention's transpose(1, 2) before the
 * reshape(b, t, h * d) costs no copy.  A linear layer reads a permutation of its input's
 * leading dims in place when only chains of views to attention read its output
 * (nn.MultiheadAttention's batch-first inputs).  (The device path keeps the last-two swaps
 * only.) */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* The rank of a matmul's two operands when it is the same and their batch dims are
 * identical (none broadcast), else 0. */
static int matmul_same_batch_rank(const sc_node *n) {
  const sc_value *sides[2] = {NULL, NULL};
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    if (!a->n_items || !a->items[0].value) continue;
    if (strcmp(n->inputs[k].name, "self") == 0) sides[0] = a->items[0].value;
    if (strcmp(n->inputs[k].name, "other") == 0) sides[1] = a->items[0].value;
  }
  if (!sides[0] || !sides[1] || sides[0]->meta.rank != sides[1]->meta.rank) return 0;
  for (int d = 0; d < sides[0]->meta.rank - 2; d++)
    if (sides[0]->shape[d] != sides[1]->shape[d]) return 0;
  return sides[0]->meta.rank;
}

/* Whether argument `name` of n is a matrix operand that lower_matmul can read transposed. */
static bool matrix_operand(const sc_node *n, const char *name) {
  switch (n->op->id) {
    case SC_OP_MM: case SC_OP_BMM: return strcmp(name, "self") == 0 || strcmp(name, "mat2") == 0;
    case SC_OP_ADDMM: return strcmp(name, "mat1") == 0 || strcmp(name, "mat2") == 0;
    case SC_OP_BADDBMM: return strcmp(name, "batch1") == 0 || strcmp(name, "batch2") == 0;
    case SC_OP_MATMUL:
      /* only equal ranks (a folded batch needs the rows compact) and identical batch dims
       * (a broadcast operand is copied first, in its own layout) */
      return (strcmp(name, "self") == 0 || strcmp(name, "other") == 0) && matmul_same_batch_rank(n) >= 2;
    default: return false;
  }
}

void cg_permutation_of(const sc_node *n, int rank, int *perm) {
  for (int d = 0; d < rank; d++) perm[d] = d;
  if (rank < 2) return;
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    if (n->op->id == SC_OP_PERMUTE && strcmp(n->inputs[k].name, "dims") == 0 && (int)a->n_items == rank)
      for (int d = 0; d < rank; d++) {
        int64_t v = a->items[d].i;
        perm[d] = (int)(v < 0 ? v + rank : v);
      }
  }
  if (n->op->id == SC_OP_TRANSPOSE) {
    int dims[2] = {0, 1};
    for (size_t k = 0; k < n->n_inputs; k++) {
      const sc_arg *a = &n->inputs[k].arg;
      int which = strcmp(n->inputs[k].name, "dim0") == 0 ? 0 : strcmp(n->inputs[k].name, "dim1") == 0 ? 1 : -1;
      if (which < 0 || !a->n_items || a->items[0].value) continue;
      int64_t v = a->items[0].i;
      dims[which] = (int)(v < 0 ? v + rank : v);
    }
    if (dims[0] < 0 || dims[0] >= rank || dims[1] < 0 || dims[1] >= rank) return;
    perm[dims[0]] = dims[1];
    perm[dims[1]] = dims[0];
  } else if (n->op->id == SC_OP_T) {
    perm[0] = 1;
    perm[1] = 0;
  }
}

static bool swaps_last_two(const int *perm, int rank) {
  if (rank < 2) return false;
  for (int d = 0; d < rank - 2; d++)
    if (perm[d] != d) return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

/* A product that sc_k_bmm_strided_f32 computes on the CPU path: bmm, or matmul of two
 * operands of rank 3 or 4 with the same batch dims. */
bool cg_is_strided_product(const sc_node *n) {
  if (n->op->id == SC_OP_BMM) return true;
  int rank = n->op->id == SC_OP_MATMUL ? matmul_same_batch_rank(n) : 0;
  return rank >= 3 && rank <= 4;
}

typedef struct view_read {
  int node, input, item; /* nodes[node].inputs[input].arg.items[item] */
} view_read;

typedef struct view_plan {
  const sc_graph *gr;
  int *first_read;     /* per node and one more: where its readers start in reads */
  view_read *reads;
  bool general;        /* any permutation (CPU path), or last-two swaps only */
  bool *candidate;     /* per node: a float32 t, transpose or permute */
  bool *view;          /* per node: its output is not materialized */
  int (*perm)[CG_MAX_RANK];      /* per node: its own permutation */
  int (*composed)[CG_MAX_RANK];  /* per node: the permutation of its base's dims */
  const sc_value **base;         /* per node: the compact tensor it views */
  /* per linear node: whether it takes its input's rows permuted by rows_asked[node] (1 yes,
   * -1 no, 0 not asked yet): the answer walks the graph, and the plan asks again each round */
  signed char *rows_taken;
  int (*rows_asked)[CG_MAX_RANK];
} view_plan;

static const sc_value *first_input(const sc_node *n, const char *name) {
  for (size_t k = 0; k < n->n_inputs; k++)
    if (strcmp(n->inputs[k].name, name) == 0 && n->inputs[k].arg.n_items) return n->inputs[k].arg.items[0].value;
  return NULL;
}

/* Each view's base and composed permutation, from the views before it. */
static void compose(view_plan *vp) {
  for (size_t i = 0; i < vp->gr->n_nodes; i++) {
    if (!vp->candidate[i]) continue;
    const sc_node *n = &vp->gr->nodes[i];
    const sc_value *in = first_input(n, "self");
    int rank = n->outputs[0].items[0].value->meta.rank;
    int j = in ? in->def_node : -1;
    bool chained = j >= 0 && vp->candidate[j] && vp->view[j];
    vp->base[i] = chained ? vp->base[j] : in;
    for (int d = 0; d < rank; d++) vp->composed[i][d] = chained ? vp->composed[j][vp->perm[i][d]] : vp->perm[i][d];
  }
}

/* Whether linear layer u can take its input as the rows of a permutation of the leading
 * dims in the base's order (a linear layer treats its rows alike): its output is then in
 * that order too, which only chains of views to attention may read (cg_view_chains.c).
 * nn.MultiheadAttention(batch_first=True) transposes its inputs to [seq, batch, embed]
 * before the in-projection: a copy of each input on every call. */
static bool linear_takes_rows(cg *g, const view_plan *vp, const sc_node *u, const char *name, const int *perm,
                              int rank) {
  if (u->op->id != SC_OP_LINEAR || strcmp(name, "input") != 0 || rank < 2 || perm[rank - 1] != rank - 1) return false;
  size_t ui = (size_t)(u - g->p->graph->nodes);
  if (vp->rows_taken[ui] && memcmp(vp->rows_asked[ui], perm, (size_t)rank * sizeof *perm) == 0)
    return vp->rows_taken[ui] > 0;
  const sc_value *w = cg_tensor_input(u, "weight"), *b = cg_tensor_input(u, "bias"), *out = u->outputs[0].items[0].value;
  /* the layer's own kernel path (cg_ops.c), with no residual in the logical order */
  bool takes = w && w->meta.rank == 2 && !cg_get(g, w)->transposed && (!b || b->meta.rank == 1) &&
               !g->folded[ui].residual && out && out->meta.rank == rank && out->meta.dtype == SC_DTYPE_F32 &&
               cg_chains_take_permuted_rows(g, out, perm);
  vp->rows_taken[ui] = takes ? 1 : -1;
  memcpy(vp->rows_asked[ui], perm, (size_t)rank * sizeof *perm);
  return takes;
}

/* Whether node u reads a view with permutation `perm` (of rank `rank`) in place as its
 * argument `name`. */
static bool reads_in_place(cg *g, const view_plan *vp, const sc_node *u, const char *name, const int *perm, int rank) {
  size_t ui = (size_t)(u - vp->gr->nodes);
  if (vp->candidate[ui]) return vp->general && vp->view[ui] && strcmp(name, "self") == 0;
  if (vp->general && linear_takes_rows(g, vp, u, name, perm, rank)) return true;
  if (!matrix_operand(u, name)) return false;
  if (swaps_last_two(perm, rank)) return true;
  bool contiguous = perm[rank - 1] == rank - 1 || perm[rank - 2] == rank - 1;
  return vp->general && contiguous && cg_is_strided_product(u);
}

/* Node i's output stays a view when every reader reads it in place. */
static bool all_reads_in_place(cg *g, const view_plan *vp, size_t i) {
  const sc_value *v = vp->gr->nodes[i].outputs[0].items[0].value;
  int in_place = 0;
  for (int r = vp->first_read[i]; r < vp->first_read[i + 1]; r++) {
    const sc_node *un = &vp->gr->nodes[vp->reads[r].node];
    if (vp->reads[r].item > 0 ||
        !reads_in_place(g, vp, un, un->inputs[vp->reads[r].input].name, vp->composed[i], v->meta.rank))
      return false;
    in_place++;
  }
  /* a graph output is a use that is not in place */
  return in_place > 0 && in_place == cg_get(g, v)->uses;
}

/* The candidates' readers, grouped by candidate (first_read[i] .. first_read[i + 1]). */
static bool list_reads(view_plan *vp) {
  const sc_graph *gr = vp->gr;
  int total = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (size_t i = 0, at = 0; i <= gr->n_nodes; i++) {
        int count = vp->first_read[i];
        vp->first_read[i] = (int)at;
        at += (size_t)count;
      }
      if (!(vp->reads = calloc(total ? (size_t)total : 1, sizeof *vp->reads))) return false;
    }
    int *fill = pass == 1 ? calloc(gr->n_nodes + 1, sizeof *fill) : NULL;
    if (pass == 1 && !fill) return false;
    for (size_t u = 0; u < gr->n_nodes; u++) {
      const sc_node *un = &gr->nodes[u];
      for (size_t k = 0; k < un->n_inputs; k++) {
        const sc_arg *a = &un->inputs[k].arg;
        for (size_t j = 0; j < a->n_items; j++) {
          const sc_value *v = a->items[j].value;
          if (!v || v->def_node < 0 || !vp->candidate[v->def_node]) continue;
          if (pass == 0) {
            vp->first_read[v->def_node]++;
            total++;
          } else {
            vp->reads[vp->first_read[v->def_node] + fill[v->def_node]++] = (view_read){(int)u, (int)k, (int)j};
          }
        }
      }
    }
    free(fill);
  }
  return true;
}

/* A strided product or scaled_dot_product_attention (rank 3 or 4) whose only reader is a
 * materialized permutation keeping the last dim last writes its result there, permuted
 * (attention's transpose(1, 2) after softmax @ V; nn.MultiheadAttention's permute(2, 0, 1, 3)
 * after its attention). */
static void plan_permuted_results(cg *g, const view_plan *vp) {
  const sc_graph *gr = vp->gr;
  for (size_t p = 0; p < gr->n_nodes; p++) {
    if (!vp->candidate[p] || vp->view[p]) continue;
    const sc_node *pn = &gr->nodes[p];
    const sc_value *in = first_input(pn, "self"), *out = pn->outputs[0].items[0].value;
    int rank = out->meta.rank;
    if (!in || in->def_node < 0 || rank < 3 || vp->perm[p][rank - 1] != rank - 1) continue;
    const sc_node *producer = &gr->nodes[in->def_node];
    bool attention = producer->op->id == SC_OP_SDPA && rank <= 4 && in->meta.dtype == SC_DTYPE_F32;
    if ((!cg_is_strided_product(producer) && !attention) || cg_get(g, in)->uses != 1 || in->meta.rank != rank) continue;
    cg_value *prod = cg_get(g, in), *target = cg_get(g, out);
    if (prod->view_base || prod->inlined) continue;
    prod->view_base = target;
    prod->writes_into_base = true;
    for (int d = 0; d < rank; d++) prod->view_perm[vp->perm[p][d]] = d; /* product dim j is out dim inv[j] */
    target->written_by_producer = true;
    g->absorbed.permuted_results++;
  }
}

void cg_plan_transposes(cg *g) {
  const sc_graph *gr = g->p->graph;
  size_t n = gr->n_nodes ? gr->n_nodes : 1;
  view_plan vp = {.gr = gr, .general = !g->has_cuda};
  vp.candidate = calloc(n, sizeof *vp.candidate);
  vp.view = calloc(n, sizeof *vp.view);
  vp.perm = calloc(n, sizeof *vp.perm);
  vp.composed = calloc(n, sizeof *vp.composed);
  vp.base = calloc(n, sizeof *vp.base);
  vp.first_read = calloc(n + 1, sizeof *vp.first_read);
  vp.rows_taken = calloc(n, sizeof *vp.rows_taken);
  vp.rows_asked = calloc(n, sizeof *vp.rows_asked);
  if (!vp.candidate || !vp.view || !vp.perm || !vp.composed || !vp.base || !vp.first_read || !vp.rows_taken ||
      !vp.rows_asked)
    goto done;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *nd = &gr->nodes[i];
    int id = nd->op->id;
    if ((id != SC_OP_T && id != SC_OP_TRANSPOSE && id != SC_OP_PERMUTE) || !nd->n_outputs || !nd->outputs[0].n_items) continue;
    const sc_value *v = nd->outputs[0].items[0].value, *in = first_input(nd, "self");
    if (!v || v->kind != SC_VALUE_TENSOR || v->meta.dtype != SC_DTYPE_F32 || !in || in->meta.rank != v->meta.rank ||
        v->meta.rank < 2)
      continue;
    vp.candidate[i] = vp.view[i] = true;
    cg_permutation_of(nd, v->meta.rank, vp.perm[i]);
  }
  if (!list_reads(&vp)) goto done;
  /* every candidate starts as a view; one whose reader cannot read it in place is
   * materialized, which changes the bases of the views after it: repeat until stable */
  for (bool changed = true; changed;) {
    changed = false;
    compose(&vp);
    for (size_t i = gr->n_nodes; i-- > 0;)
      if (vp.view[i] && !all_reads_in_place(g, &vp, i)) {
        vp.view[i] = false;
        changed = true;
      }
  }
  compose(&vp);
  for (size_t i = 0; i < gr->n_nodes; i++) {
    if (!vp.view[i]) continue;
    const sc_value *v = gr->nodes[i].outputs[0].items[0].value;
    cg_value *cv = cg_get(g, v);
    cv->view_base = cg_get(g, vp.base[i]);
    memcpy(cv->view_perm, vp.composed[i], sizeof cv->view_perm);
    cv->transposed = swaps_last_two(vp.composed[i], v->meta.rank);
    g->absorbed.views++;
    /* a linear layer reading it leaves its output in the base's row order */
    for (int r = vp.first_read[i]; r < vp.first_read[i + 1]; r++) {
      const sc_node *un = &gr->nodes[vp.reads[r].node];
      if (un->op->id != SC_OP_LINEAR) continue;
      cg_value *out = cg_get(g, un->outputs[0].items[0].value);
      out->rows_permuted = true;
      memcpy(out->rows_perm, vp.composed[i], sizeof out->rows_perm);
    }
  }
  if (vp.general) plan_permuted_results(g, &vp);
done:
  free(vp.candidate);
  free(vp.view);
  free(vp.perm);
  free(vp.composed);
  free(vp.base);
  free(vp.first_read);
  free(vp.reads);
  free(vp.rows_taken);
  free(vp.rows_asked);
}
