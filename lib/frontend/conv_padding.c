/* conv_padding.c - conv1d/conv2d with a padding mode ("valid", "same") as the int-padding
 * overloads; see conv_padding.h.
 *
 * torch writes `conv2d.padding(input, weight, bias, stride, padding="same", dilation,
 * groups)` when a module was built with a string padding (SigLIP's patch embedding).  The
 * padding follows from the kernel's static sizes: "valid" is 0; "same" pads
 * dilation * (kernel - 1) in all, half on each side, which torch allows only with stride 1.
 * When that total is odd torch pads one more on the right: that has no int-padding form,
 * so it is refused with the reason. */
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

bool sc_normalize_conv_padding(sc_ctx *ctx, const char *file, sc_graph *g) {
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
    sc_arg_item *items = sc_arena_alloc(&ctx->arena, (size_t)sp * sizeof *items);
    for (int k = 0; k < sp; k++) {
      int64_t ks = 0;
      if (!sc_expr_is_const(wv->meta.sizes[2 + k], &ks)) return refuse(ctx, file, n, "the kernel's sizes are not static");
      int64_t total = same ? int_or(named(n, "dilation"), k, 1) * (ks - 1) : 0;
      if (same && int_or(named(n, "stride"), k, 1) != 1)
        return refuse(ctx, file, n, "padding='same' with a stride other than 1 (torch refuses it too)");
      if (total % 2)
        return refuse(ctx, file, n, "padding='same' with an even (dilated) kernel pads one more on the right, "
                                    "which shapec's convolutions do not take yet");
      items[k].i = total / 2;
    }
    pad->arg.kind = SC_ARG_INTS;
    pad->arg.items = items;
    pad->arg.n_items = (size_t)sp;
    n->target = plain;
    n->op = sc_op_lookup(plain);
  }
  return true;
}
