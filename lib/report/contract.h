/* contract.h - what a CI baseline pins about an export, and how two reports differ.
 *
 * The contract of a report (constraints.json) is what users rely on, stated in their own
 * terms, with every symbol written as the input dim it comes from, so that renumbered
 * symbols (s3 becoming s5 in another torch version) are not a change:
 *   - the export's status;
 *   - each user input's dtype and rank, and each of its dims: static N, a range
 *     [min, max], or an equation with other input dims (= x.size()[0]*y.size()[0]);
 *   - each output's dtype and symbolic shape;
 *   - each runtime assert.
 * Node paths, hints, symbol names and the order of guards are not part of it. */
#ifndef SC_CONTRACT_H
#define SC_CONTRACT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* One subject of the contract, as a test case of the comparison. */
typedef struct sc_contract_item {
  char *name;   /* "x.size()[0]", "x", "outputs", "status", "runtime assert Eq(...)" */
  char *before; /* the baseline's fact; NULL when the baseline lacks the subject */
  char *after;  /* the current fact; NULL when it is gone */
  char *cause;  /* for a change: the guard or specialization behind it, or NULL */
  bool changed;
} sc_contract_item;

typedef struct sc_contract_diff {
  sc_contract_item *items;
  size_t n_items;
  size_t n_changed;
} sc_contract_diff;

/* Compares two reports.  Never fails: a report without some member just has no such
 * subjects. */
void sc_contract_compare(const cJSON *baseline, const cJSON *current, sc_contract_diff *out);
/* One line per change, e.g.
 *   x.size()[0]: range [2, int_oo] -> [2, 512] (new guard Le(s0, 512) from node view_3 (graph.nodes[17])) */
char *sc_contract_describe(const sc_contract_item *item);
void sc_contract_diff_free(sc_contract_diff *d);
/* Whether an expression's text names symbol sym as a whole word ("s1" in "s12" does not). */
bool sc_text_mentions_symbol(const char *expr, const char *sym);

#endif
