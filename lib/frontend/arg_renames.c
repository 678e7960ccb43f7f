/* arg_renames.c - see arg_renames.h.  ir/op_aliases.def maps each target to its op; this
 * table gives the argument names that differ, so the op's shape rule and lowering find
 * them under their own names. */
#include "arg_renames.h"

#include <string.h>

static const struct {
  const char *target, *from[2], *to[2];
} renames[] = {
    {"torch.ops.aten.swapaxes.default", {"axis0", "axis1"}, {"dim0", "dim1"}},
};

void sc_rename_alias_args(sc_graph *g) {
  for (size_t i = 0; i < g->n_nodes; i++) {
    sc_node *n = &g->nodes[i];
    for (size_t r = 0; r < sizeof renames / sizeof *renames; r++) {
      if (!n->target || strcmp(n->target, renames[r].target) != 0) continue;
      for (size_t k = 0; k < n->n_inputs; k++)
        for (int j = 0; j < 2; j++)
          if (n->inputs[k].name && renames[r].from[j] && strcmp(n->inputs[k].name, renames[r].from[j]) == 0)
            n->inputs[k].name = renames[r].to[j];
    }
  }
}
