/* shape_rules.h - one shape rule per operator of the op table: from the symbolic shapes
 * of a node's inputs, compute the shapes (or symbolic values) of its outputs and emit the
 * guards torch's meta functions emit, with the rule's name as provenance. */
#ifndef SC_SHAPE_RULES_H
#define SC_SHAPE_RULES_H

#include <stdbool.h>

#include "shape_env.h"

typedef struct sc_rule_ctx {
  sc_shape_env *env;
  sc_ctx *ctx;
  const sc_program *program;
  const sc_node *node;
  sc_provenance prov;
  bool failed;               /* an error was recorded for this node */
} sc_rule_ctx;

/* Applies the node's rule: sets `shape` on its tensor outputs and `sym` on its SymInt and
 * SymBool outputs.  Returns false with an error (SC0602) when the node's arguments do not
 * fit its operator. */
bool sc_shape_rule_apply(sc_rule_ctx *rc);

#endif
