/* conv_padding.c - conv1d/conv2d with a padding mode ("valid", "same") as the int-padding
 * overloads; see conv_padding.h.
 *
 * torch writes `conv2d.padding(input, weight, bias, stride, padding="same", dilation,
 * groups)` when a module was built with a string padding (SigLIP's patch embedding).  The
 * padding follows from the kernel's static sizes: "valid" is 0; "same" pads
 * dilation * (kernel - 1) in all, half on each side, which torch allows only with stride 1.
 * When that total is odd (an even kernel) torch pads one more on the right, which has no
 * int-padding form: the input gets that one column from a `constant_pad_nd` node put before
 * the convolution, as torch's own decomposition does, and the convolution pads the rest
 * evenly. */
#include "conv_padding.h"

#include <string.h>

#include "ir/op_table.h"

static const char *const overloads[][2] = {
    {"torch.ops.aten.conv1d.padding", "torch.ops.aten.conv1d.default"},
    {"torch.ops.aten.conv2d.padding", "torch.ops.aten.conv2d.default"},
};

const char *sc_conv_padding_overload(const char *target) {
  for (size_t i = 0; i < sizeof overloads / sizeof *overloads; i++)
    if (strcmp(target, overloads[i][0]) == 0) return overloads[i][1];
  return NULL;
}

static sc_named_arg *named(sc_node *n, const char *name) {
  for (size_t i = 0; i < n->n_inputs; i++)
    if (n->inputs[i].name && strcmp(n->inputs[i].name, name) == 0) return &n->inputs[i];
  return NULL;
}

static int64_t int_or(const sc_named_arg *a, int k, int64_t def) {
  if (!a || a->arg.kind != SC_ARG_INTS || !a->arg.n_items) return def;
  return a->arg.items[a->arg.n_items == 1 ? 0 : k].i;
}

static bool refuse(sc_ctx *ctx, const char *file, const sc_node *n, const char *why) {
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_CODEGEN_UNSUPPORTED, SC_SEV_ERROR, file, n->path, "%s: %s", n->target, why);
  sc_diag_set_hint(&ctx->diags, d, "give the layer an int padding (nn.Conv2d(..., padding=k // 2) for an odd kernel) "
                                   "and export again");
  return false;
}

/* Nodes put before a convolution (their convolution's index), appended to the graph's nodes
 * in order once every node is rewritten. */
typedef struct pending_pads {
  sc_node *nodes;
  size_t *before;
  size_t n, cap;
} pending_pads;

/* The input of convolution n padded by extra[k] on the right of spatial dim k, through a
 * new constant_pad_nd node (queued in pads) and a new value the convolution reads. */
static bool pad_right(sc_ctx *ctx, sc_graph *g, pending_pads *pads, sc_node *n, const int *extra, int sp) {
  sc_named_arg *in = named(n, "input");
  sc_value *x = in && in->arg.n_items == 1 ? in->arg.items[0].value : NULL;
  if (!x || x->kind != SC_VALUE_TENSOR || x->meta.rank != sp + 2) return false;
  const char *name = NULL;
  for (int k = 0; !name || sc_graph_find_value(g, name); k++)
    name = sc_arena_printf(&ctx->arena, "%s_same_pad%.0d", x->name, k);
  sc_value *padded = sc_graph_add_value(ctx, g, name, SC_VALUE_TENSOR);
  name = padded->name;
  *padded = *x;
  padded->name = name;
  padded->display = NULL;
  padded->def_node = -2;
  padded->meta.strides = NULL; /* a fresh contiguous tensor */
  padded->meta.storage_offset = NULL;
  padded->meta.sizes = sc_arena_alloc(&ctx->arena, (size_t)x->meta.rank * sizeof *padded->meta.sizes);
  padded->meta.size_hints = sc_arena_alloc(&ctx->arena, (size_t)x->meta.rank * sizeof *padded->meta.size_hints);
  for (int d = 0; d < x->meta.rank; d++) {
    int e = d >= 2 ? extra[d - 2] : 0;
    padded->meta.sizes[d] = e ? sc_expr_add(ctx, x->meta.sizes[d], sc_expr_int(ctx, e)) : x->meta.sizes[d];
    int64_t hint = x->meta.size_hints ? x->meta.size_hints[d] : -1;
    padded->meta.size_hints[d] = hint < 0 ? -1 : hint + e;
  }
  /* constant_pad_nd's list runs from the last dim: (left, right) per dim */
  sc_arg list = {.kind = SC_ARG_INTS, .n_items = (size_t)(2 * sp), .path = n->path};
  list.items = sc_arena_alloc(&ctx->arena, list.n_items * sizeof *list.items);
  for (int k = 0; k < sp; k++) list.items[2 * k + 1].i = extra[sp - 1 - k];
  sc_arg self = sc_tensor_arg(ctx, x, n->path);
  sc_node p = {.name = name, .target = "torch.ops.aten.constant_pad_nd.default", .path = n->path,
               .stack_trace = n->stack_trace};
  p.op = sc_op_lookup(p.target);
  p.n_inputs = 2;
  p.inputs = sc_arena_alloc(&ctx->arena, 2 * sizeof *p.inputs);
  p.inputs[0] = (sc_named_arg){"self", self, SC_ARG_PASS_POSITIONAL};
  p.inputs[1] = (sc_named_arg){"pad", list, SC_ARG_PASS_POSITIONAL};
  p.n_outputs = 1;
  p.outputs = sc_arena_alloc(&ctx->arena, sizeof *p.outputs);
  p.outputs[0] = sc_tensor_arg(ctx, padded, n->path);
  in->arg.items = sc_arena_alloc(&ctx->arena, sizeof *in->arg.items);
  in->arg.items[0].value = padded;
  if (pads->n == pads->cap) {
    size_t grown = pads->cap ? 2 * pads->cap : 8;
    sc_node *nodes = sc_arena_alloc(&ctx->arena, grown * sizeof *nodes);
    size_t *before = sc_arena_alloc(&ctx->arena, grown * sizeof *before);
    if (pads->n) {
      memcpy(nodes, pads->nodes, pads->n * sizeof *nodes);
      memcpy(before, pads->before, pads->n * sizeof *before);
    }
    pads->nodes = nodes;
    pads->before = before;
    pads->cap = grown;
  }
  pads->nodes[pads->n] = p;
  pads->before[pads->n++] = (size_t)(n - g->nodes);
  return true;
}

/* The queued pad nodes merged into g's nodes before their convolutions. */
static void insert_pads(sc_ctx *ctx, sc_graph *g, const pending_pads *pads) {
  size_t total = g->n_nodes + pads->n, at = 0, next = 0;
  sc_node *out = sc_arena_alloc(&ctx->arena, total * sizeof *out);
  for (size_t i = 0; i < g->n_nodes; i++) {
    while (next < pads->n && pads->before[next] == i) out[at++] = pads->nodes[next++];
    out[at++] = g->nodes[i];
  }
  g->nodes = out;
  g->n_nodes = total;
  sc_graph_number_defs(g);
}

bool sc_normalize_conv_padding(sc_ctx *ctx, const char *file, sc_graph *g) {
  pending_pads pads = {0};
  for (size_t i = 0; i < g->n_nodes; i++) {
    sc_node *n = &g->nodes[i];
    const char *plain = n->target ? sc_conv_padding_overload(n->target) : NULL;
    if (!plain) continue;
    sc_named_arg *pad = named(n, "padding"), *w = named(n, "weight");
    const sc_value *wv = w && w->arg.n_items ? w->arg.items[0].value : NULL;
    if ((pad && (pad->arg.kind != SC_ARG_STRING || !pad->arg.n_items)) || !wv || wv->meta.rank < 3)
      return refuse(ctx, file, n, "expects a string padding and a weight of rank 3 or more");
    if (!pad) { /* left out: the schema's default, "valid" */
      sc_named_arg *more = sc_arena_alloc(&ctx->arena, (n->n_inputs + 1) * sizeof *more);
      memcpy(more, n->inputs, n->n_inputs * sizeof *more);
      pad = &more[n->n_inputs];
      memset(pad, 0, sizeof *pad);
      pad->name = "padding";
      pad->pass = SC_ARG_PASS_KEYWORD;
      pad->arg.path = n->path;
      n->inputs = more;
      n->n_inputs++;
    }
    const char *mode = pad->arg.kind == SC_ARG_STRING ? pad->arg.items[0].s : "valid";
    bool same = strcmp(mode, "same") == 0;
    if (!same && strcmp(mode, "valid") != 0) return refuse(ctx, file, n, "the padding mode is neither 'valid' nor 'same'");
    int sp = wv->meta.rank - 2;
    bool any_extra = false;
    int extra[8] = {0};
    if (sp > 8) return refuse(ctx, file, n, "more than 8 spatial dimensions");
    sc_arg_item *items = sc_arena_alloc(&ctx->arena, (size_t)sp * sizeof *items);
    for (int k = 0; k < sp; k++) {
      int64_t ks = 0;
      if (!sc_expr_is_const(wv->meta.sizes[2 + k], &ks)) return refuse(ctx, file, n, "the kernel's sizes are not static");
      int64_t total = same ? int_or(named(n, "dilation"), k, 1) * (ks - 1) : 0;
      if (same && int_or(named(n, "stride"), k, 1) != 1)
        return refuse(ctx, file, n, "padding='same' with a stride other than 1 (torch refuses it too)");
      extra[k] = total % 2;
      any_extra = any_extra || extra[k];
      items[k].i = total / 2;
    }
    if (any_extra && !pad_right(ctx, g, &pads, n, extra, sp)) return refuse(ctx, file, n, "its input is not one tensor");
    pad->arg.kind = SC_ARG_INTS;
    pad->arg.items = items;
    pad->arg.n_items = (size_t)sp;
    n->target = plain;
    n->op = sc_op_lookup(plain);
  }
  if (pads.n) insert_pads(ctx, g, &pads);
  return true;
}
