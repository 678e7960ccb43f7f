/* cg_readers.c - which nodes read each value, indexed once.
 *
 * The plans ask "who reads v?" while they walk from one value to the next (the chains of
 * views a linear layer's permuted rows go through, the identities a view passes through to
 * the loops).  Scanning every node for each question made those walks quadratic in the graph:
 * 100 encoder layers took 0.13 s more to lower, 1,000 would have taken seconds.  So each
 * value's readers are listed once, in node order, the first time a plan asks. */
#include <stdlib.h>

#include "lower.h"

static bool build(cg *g) {
  const sc_graph *gr = g->p->graph;
  int total = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < gr->n_nodes; i++) {
      const sc_node *n = &gr->nodes[i];
      for (size_t k = 0; k < n->n_inputs; k++) {
        const sc_arg *a = &n->inputs[k].arg;
        for (size_t j = 0; j < a->n_items; j++) {
          const sc_value *v = a->items[j].value;
          if (!v) continue;
          cg_value *cv = cg_get(g, v);
          if (pass == 0) {
            cv->n_readers++;
            total++;
          } else {
            g->reads[cv->first_reader + cv->n_readers++] = (cg_read){(int)i, (int)k, (int)j};
          }
        }
      }
    }
    if (pass == 1) break;
    g->reads = calloc(total ? (size_t)total : 1, sizeof *g->reads);
    if (!g->reads) return false;
    /* each value's run of entries, in the order values are first read */
    int at = 0;
    for (size_t i = 0; i < gr->n_nodes; i++) {
      const sc_node *n = &gr->nodes[i];
      for (size_t k = 0; k < n->n_inputs; k++)
        for (size_t j = 0; j < n->inputs[k].arg.n_items; j++) {
          const sc_value *v = n->inputs[k].arg.items[j].value;
          cg_value *cv = v ? cg_get(g, v) : NULL;
          if (!cv || cv->readers_placed) continue;
          cv->readers_placed = true;
          cv->first_reader = at;
          at += cv->n_readers;
          cv->n_readers = 0; /* counted again as the second pass fills the run */
        }
    }
  }
  g->readers_indexed = true;
  return true;
}

const cg_read *cg_readers(cg *g, const sc_value *v, int *count) {
  if (!g->readers_indexed && !build(g)) {
    *count = -1; /* out of memory: the caller assumes the worst */
    return NULL;
  }
  const cg_value *cv = cg_get(g, v);
  *count = cv->n_readers;
  return g->reads + cv->first_reader;
}
