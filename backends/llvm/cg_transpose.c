/* cg_transpose.c - transposes that matrix products absorb.
 *
 * torch.export writes nn.Linear as addmm(bias, x, permute(weight, [1, 0])) and attention as
 * bmm(q, transpose(k, -2, -1)).  Copying the transposed matrix every call costs more than
 * the product for small batches; BLAS reads either layout at the same speed.  So a
 * transpose of the last two dims whose every reader is a matrix operand of a product is
 * never materialized: it aliases its input, and the product passes "transposed" to BLAS. */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* Whether argument `name` of n is a matrix operand that lower_matmul can read transposed. */
static bool matrix_operand(const sc_node *n, const char *name) {
  switch (n->op->id) {
    case SC_OP_MM: case SC_OP_BMM: return strcmp(name, "self") == 0 || strcmp(name, "mat2") == 0;
    case SC_OP_ADDMM: return strcmp(name, "mat1") == 0 || strcmp(name, "mat2") == 0;
    case SC_OP_BADDBMM: return strcmp(name, "batch1") == 0 || strcmp(name, "batch2") == 0;
    case SC_OP_MATMUL: {
      /* only equal ranks: a folded or broadcast batch needs the rows compact */
      int ranks[2] = {0, 0};
      for (size_t k = 0; k < n->n_inputs; k++) {
        const sc_arg *a = &n->inputs[k].arg;
        if (!a->n_items || !a->items[0].value) continue;
        if (strcmp(n->inputs[k].name, "self") == 0) ranks[0] = a->items[0].value->meta.rank;
        if (strcmp(n->inputs[k].name, "other") == 0) ranks[1] = a->items[0].value->meta.rank;
      }
      if (ranks[0] != ranks[1] || ranks[0] < 2 || (strcmp(name, "self") != 0 && strcmp(name, "other") != 0)) return false;
      /* and identical batch dims: a broadcast operand is copied first, in its own layout */
      const sc_value *sides[2] = {NULL, NULL};
      for (size_t k = 0; k < n->n_inputs; k++) {
        const sc_arg *a = &n->inputs[k].arg;
        if (!a->n_items || !a->items[0].value) continue;
        if (strcmp(n->inputs[k].name, "self") == 0) sides[0] = a->items[0].value;
        if (strcmp(n->inputs[k].name, "other") == 0) sides[1] = a->items[0].value;
      }
      for (int d = 0; d < ranks[0] - 2; d++)
        if (sides[0]->shape[d] != sides[1]->shape[d]) return false;
      return true;
    }
    default: return false;
  }
}

/* Whether n (t, transpose or permute) swaps exactly the last two dims. */
static bool swaps_last_two(const sc_node *n, int rank) {
  if (rank < 2) return false;
  int perm[CG_MAX_RANK];
  for (int d = 0; d < rank; d++) perm[d] = d;
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    const char *name = n->inputs[k].name;
    if (n->op->id == SC_OP_PERMUTE && strcmp(name, "dims") == 0) {
      if ((int)a->n_items != rank) return false;
      for (int d = 0; d < rank; d++) {
        int64_t v = a->items[d].i;
        perm[d] = (int)(v < 0 ? v + rank : v);
      }
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
    perm[dims[0]] = dims[1];
    perm[dims[1]] = dims[0];
  } else if (n->op->id == SC_OP_T) {
    perm[0] = 1;
    perm[1] = 0;
  }
  for (int d = 0; d < rank - 2; d++)
    if (perm[d] != d) return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

void cg_plan_transposes(cg *g) {
  const sc_graph *gr = g->p->graph;
  /* how many of each value's uses are matrix operands (uses were counted by the fusion plan) */
  int *matrix_uses = calloc(gr->n_nodes + 1, sizeof *matrix_uses);
  if (!matrix_uses) return;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    for (size_t k = 0; k < n->n_inputs; k++) {
      const sc_arg *a = &n->inputs[k].arg;
      if (!a->n_items || !a->items[0].value || a->items[0].value->def_node < 0) continue;
      if (matrix_operand(n, n->inputs[k].name)) matrix_uses[a->items[0].value->def_node]++;
    }
  }
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    int id = n->op->id;
    if ((id != SC_OP_T && id != SC_OP_TRANSPOSE && id != SC_OP_PERMUTE) || !n->n_outputs || !n->outputs[0].n_items) continue;
    const sc_value *v = n->outputs[0].items[0].value;
    if (!v || v->kind != SC_VALUE_TENSOR || v->meta.dtype != SC_DTYPE_F32) continue;
    cg_value *cv = cg_get(g, v);
    /* every use is a matrix operand (a graph output counts as a use that is not) */
    if (cv->uses > 0 && cv->uses == matrix_uses[i] && swaps_last_two(n, v->meta.rank)) cv->transposed = true;
  }
  free(matrix_uses);
}
