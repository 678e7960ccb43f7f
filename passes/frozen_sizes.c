/* frozen_sizes.c - see frozen_sizes.h. */
#include "frozen_sizes.h"

#include <string.h>

/* The ops whose arguments are sizes a program computes from its inputs' sizes, and those
 * arguments (int lists or ints). */
static const struct {
  const char *target;
  const char *args[3];
} size_ops[] = {
    {"torch.ops.aten.repeat.default", {"repeats"}},
    {"torch.ops.aten.view.default", {"size"}},
    {"torch.ops.aten.reshape.default", {"shape"}},
    {"torch.ops.aten._unsafe_view.default", {"size"}},
    {"torch.ops.aten.expand.default", {"size"}},
    {"torch.ops.aten.full.default", {"size"}},
    {"torch.ops.aten.zeros.default", {"size"}},
    {"torch.ops.aten.ones.default", {"size"}},
    {"torch.ops.aten.empty.memory_format", {"size"}},
    {"torch.ops.aten.rand.default", {"size"}},
    {"torch.ops.aten.randn.default", {"size"}},
    {"torch.ops.aten.new_zeros.default", {"size"}},
    {"torch.ops.aten.new_ones.default", {"size"}},
    {"torch.ops.aten.new_empty.default", {"size"}},
    {"torch.ops.aten.new_full.default", {"size"}},
    {"torch.ops.aten.arange.default", {"end"}},
    {"torch.ops.aten.arange.start", {"start", "end"}},
    {"torch.ops.aten.arange.start_step", {"start", "end"}},
};

/* Whether node n takes the tensor v itself as an operand. */
static bool takes(const sc_node *n, const sc_value *v) {
  for (size_t k = 0; k < n->n_inputs; k++)
    for (size_t i = 0; i < n->inputs[k].arg.n_items; i++)
      if (n->inputs[k].arg.items[i].value == v) return true;
  return false;
}

/* The first size argument of node n holding the number c as a constant, or NULL.  Not on
 * a node that takes the input v itself: `x.view(-1, 4)`, `x.repeat(2, 3)` or
 * `x.new_zeros(2, 3)` with a literal equal to one of x's own dims is as common a literal
 * as a frozen x.size(); a size frozen from another tensor (`x.repeat(y.shape[0], 1)`,
 * `torch.zeros(n, 4)`, `h.view(b, s, 4, 16)` after a product) cannot be told from one. */
static const char *frozen_argument(const sc_node *n, int64_t c, const sc_value *v) {
  if (takes(n, v)) return NULL;
  for (size_t o = 0; o < sizeof size_ops / sizeof size_ops[0]; o++) {
    if (!n->target || strcmp(n->target, size_ops[o].target) != 0) continue;
    for (int a = 0; a < 3 && size_ops[o].args[a]; a++)
      for (size_t k = 0; k < n->n_inputs; k++) {
        const sc_arg *arg = &n->inputs[k].arg;
        if (strcmp(n->inputs[k].name, size_ops[o].args[a]) != 0) continue;
        bool ints = arg->kind == SC_ARG_INT || arg->kind == SC_ARG_INTS || arg->kind == SC_ARG_SYM_INT ||
                    arg->kind == SC_ARG_SYM_INTS;
        for (size_t i = 0; ints && i < arg->n_items; i++)
          if (!arg->items[i].value && !arg->items[i].is_none && arg->items[i].i == c) return size_ops[o].args[a];
      }
  }
  return NULL;
}

void sc_flag_frozen_sizes(sc_ctx *ctx, sc_analysis *a) {
  const sc_program *p = a->program;
  const sc_graph *g = p->graph;
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    const sc_value *v = sc_input_spec_value(s);
    if (s->kind != SC_INPUT_USER || !v || v->kind != SC_VALUE_TENSOR || !v->shape) continue;
    for (int k = 0; k < v->meta.rank; k++) {
      int64_t c, now;
      /* a number in the program, a size the call gives now */
      if (!v->meta.sizes[k] || !sc_expr_is_const(v->meta.sizes[k], &c) || c < 2 || sc_expr_is_const(v->shape[k], &now))
        continue;
      const sc_node *first = NULL;
      const char *first_arg = NULL;
      size_t count = 0;
      for (size_t j = 0; j < g->n_nodes; j++) {
        const char *at = frozen_argument(&g->nodes[j], c, v);
        if (!at) continue;
        if (!count++) first = &g->nodes[j], first_arg = at;
      }
      if (!first) continue;
      const char *source = sc_analysis_dim_source(ctx, v, k);
      const char *others = count > 1 ? sc_arena_printf(&ctx->arena, " (and %zu more node%s)", count - 1,
                                                       count > 2 ? "s" : "")
                                     : "";
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_FROZEN_SIZE, SC_SEV_WARNING, p->file, first->path,
                                "the spec makes %s dynamic, but this program was exported with it static (%lld), "
                                "and node '%s' (%s) holds %lld in its %s%s, where torch may have written that size: "
                                "the program cannot follow it, so the library refuses a call whose %s is not %lld",
                                source, (long long)c, first->name, first->target, (long long)c, first_arg, others,
                                source, (long long)c);
      sc_diag_set_hint(&ctx->diags, d, "export the model in torch with this spec (torch.export.export(..., "
                                       "dynamic_shapes=...)) so the size flows through the program; a dynamic "
                                       "program keeps it symbolic");
      /* the library's check: the dim as the static program was traced */
      sc_program_check *grown = sc_arena_alloc(&ctx->arena, (a->n_checks + 1) * sizeof *grown);
      if (a->n_checks) memcpy(grown, a->checks, a->n_checks * sizeof *grown);
      const sc_expr *raw = sc_expr_rel(ctx, SC_EXPR_EQ, sc_expr_sym(ctx, source), sc_expr_int(ctx, c));
      const char *text = sc_arena_printf(&ctx->arena, "%s == %lld (the program was exported static and holds that size "
                                         "as a constant at node '%s', %s; export it with this spec in torch to call "
                                         "it with other sizes)", source, (long long)c, first->name, first->target);
      grown[a->n_checks++] = (sc_program_check){raw, text};
      a->checks = grown;
    }
  }
}
