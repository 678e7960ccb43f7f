/* dim_moves.c - the ops that only name a fixed reordering or flip of dims, rewritten as the
 * op that computes it; see dim_moves.h.
 *
 * torch.export keeps `movedim` / `moveaxis` (.int and .intlist) and `fliplr` / `flipud` in
 * the default IR.  With the input's rank (static in every program) they are exactly
 * `permute(self, dims)` and `flip(self, [1])` / `flip(self, [0])`: the source dims go to
 * the destinations in order, the other dims keep their order in the places left (torch's
 * rule), so one shape rule, lowering and kernel serve them. */
#include "dim_moves.h"

#include <string.h>

#include "ir/op_table.h"

enum { MAX_DIMS = 16 };

static bool is_move(const char *t);

static bool fail(sc_ctx *ctx, const char *file, const sc_node *n, const char *why) {
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_BAD_OP_ARGS, SC_SEV_ERROR, file, n->path, "%s: %s", n->target, why);
  sc_diag_set_hint(&ctx->diags, d, "the node's arguments must follow the operator's ATen schema");
  return false;
}

static sc_named_arg *named(sc_node *n, const char *name) {
  for (size_t i = 0; i < n->n_inputs; i++)
    if (n->inputs[i].name && strcmp(n->inputs[i].name, name) == 0) return &n->inputs[i];
  return NULL;
}

/* An int or int[] argument of constants, each normalized against rank; -1 when it is not. */
static int dims_of(const sc_named_arg *a, int rank, int64_t *out) {
  if (!a || (a->arg.kind != SC_ARG_INT && a->arg.kind != SC_ARG_INTS) || a->arg.n_items > MAX_DIMS) return -1;
  for (size_t i = 0; i < a->arg.n_items; i++) {
    int64_t d = a->arg.items[i].i;
    if (a->arg.items[i].value || d < -rank || d >= (rank ? rank : 1)) return -1;
    out[i] = d < 0 ? d + rank : d;
  }
  return (int)a->arg.n_items;
}

static sc_arg ints(sc_ctx *ctx, const int64_t *v, int n, const char *path) {
  sc_arg a = {.kind = SC_ARG_INTS, .n_items = (size_t)n, .path = path};
  a.items = sc_arena_alloc(&ctx->arena, (size_t)(n ? n : 1) * sizeof *a.items);
  for (int i = 0; i < n; i++) a.items[i].i = v[i];
  return a;
}

static void become(sc_ctx *ctx, sc_node *n, const char *target, sc_named_arg *self, sc_arg dims) {
  sc_named_arg *in = sc_arena_alloc(&ctx->arena, 2 * sizeof *in);
  in[0] = *self;
  in[1] = (sc_named_arg){"dims", dims, SC_ARG_PASS_POSITIONAL};
  n->inputs = in;
  n->n_inputs = 2;
  n->target = target;
  n->op = sc_op_lookup(target);
}

bool sc_is_dim_move(const char *t) {
  return is_move(t) || strcmp(t, "torch.ops.aten.fliplr.default") == 0 || strcmp(t, "torch.ops.aten.flipud.default") == 0;
}

static bool is_move(const char *t) {
  static const char *const moves[] = {"torch.ops.aten.movedim.int", "torch.ops.aten.movedim.intlist",
                                      "torch.ops.aten.moveaxis.int", "torch.ops.aten.moveaxis.intlist"};
  for (size_t i = 0; i < sizeof moves / sizeof *moves; i++)
    if (strcmp(t, moves[i]) == 0) return true;
  return false;
}

bool sc_rewrite_dim_moves(sc_ctx *ctx, const char *file, sc_graph *g) {
  for (size_t i = 0; i < g->n_nodes; i++) {
    sc_node *n = &g->nodes[i];
    if (!n->target) continue;
    bool move = is_move(n->target), lr = strcmp(n->target, "torch.ops.aten.fliplr.default") == 0,
         ud = strcmp(n->target, "torch.ops.aten.flipud.default") == 0;
    if (!move && !lr && !ud) continue;
    sc_named_arg *self = named(n, "self");
    const sc_value *x = self && self->arg.n_items == 1 ? self->arg.items[0].value : NULL;
    if (!x || x->kind != SC_VALUE_TENSOR) return fail(ctx, file, n, "expects a tensor 'self'");
    int rank = x->meta.rank;
    if (lr || ud) {
      if (rank < (lr ? 2 : 1))
        return fail(ctx, file, n, lr ? "Input must be >= 2-d." : "Input must be >= 1-d.");
      int64_t dim = lr ? 1 : 0;
      become(ctx, n, "torch.ops.aten.flip.default", self, ints(ctx, &dim, 1, n->path));
      continue;
    }
    int64_t src[MAX_DIMS], dst[MAX_DIMS], perm[MAX_DIMS];
    if (rank > MAX_DIMS) return fail(ctx, file, n, "more than 16 dims");
    int ns = dims_of(named(n, "source"), rank, src), nd = dims_of(named(n, "destination"), rank, dst);
    if (ns < 0 || nd < 0) return fail(ctx, file, n, "source and destination must be constant dims of the input");
    if (ns != nd) return fail(ctx, file, n, "Invalid source or destination dims: source and destination must have the "
                                            "same number of dims");
    bool src_used[MAX_DIMS] = {false}, dst_used[MAX_DIMS] = {false};
    for (int k = 0; k < ns; k++) {
      if (src_used[src[k]] || dst_used[dst[k]]) return fail(ctx, file, n, "repeated dim in source or destination");
      src_used[src[k]] = dst_used[dst[k]] = true;
      perm[dst[k]] = src[k];
    }
    for (int d = 0, s = 0; d < rank; d++) { /* the rest in order, in the places left */
      if (dst_used[d]) continue;
      while (src_used[s]) s++;
      perm[d] = s++;
    }
    become(ctx, n, "torch.ops.aten.permute.default", self, ints(ctx, perm, rank, n->path));
  }
  return true;
}
