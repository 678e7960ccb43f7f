/* weights.c - the weights bound to a program; see weights.h. */
#include "weights.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/strbuf.h"

void sc_weights_free(sc_weights *w) {
  if (!w) return;
  free(w->buffer);
  w->buffer = NULL;
}

void sc_weights_index(sc_weights *w, sc_arena *arena) {
  sc_strmap_init(&w->by_name, arena);
  for (size_t i = 0; i < w->n_items; i++) sc_strmap_put(&w->by_name, w->items[i].name, &w->items[i]);
}

const sc_weight *sc_weights_find(const sc_weights *w, const char *name) {
  if (w && w->by_name.n_items == w->n_items && w->n_items) return sc_strmap_get(&w->by_name, name);
  for (size_t i = 0; w && i < w->n_items; i++)
    if (strcmp(w->items[i].name, name) == 0) return &w->items[i];
  return NULL;
}

static bool same_shape(const sc_weight *w, const sc_tensor_meta *m) {
  if (w->dtype != m->dtype || w->rank != m->rank) return false;
  for (int i = 0; i < w->rank; i++) {
    int64_t c;
    if (!sc_expr_is_const(m->sizes[i], &c) || c != w->shape[i]) return false;
  }
  return true;
}

bool sc_weights_bind(sc_ctx *ctx, const sc_weights *w, const sc_program *p, bool required) {
  bool ok = true;
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    if (s->kind != SC_INPUT_PARAMETER && s->kind != SC_INPUT_BUFFER && s->kind != SC_INPUT_TENSOR_CONSTANT) continue;
    const sc_value *v = sc_input_spec_value(s);
    const sc_weight *wt = sc_weights_find(w, s->target);
    if (!wt) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_WEIGHTS_MISSING, required ? SC_SEV_ERROR : SC_SEV_WARNING,
                                p->file, s->path, "no weights for %s '%s'%s%s", sc_input_kind_name(s->kind),
                                s->target, w ? " in " : "", w ? w->file : "");
      if (w) sc_diag_set_hint(&ctx->diags, d, "the weights file has no tensor named '%s'", s->target);
      else if (required) sc_diag_set_hint(&ctx->diags, d, "pass --weights FILE (safetensors), or --no-codegen to analyse only");
      else sc_diag_set_hint(&ctx->diags, d, "code generation will need --weights FILE (safetensors)");
      ok &= !required;
      continue;
    }
    if (v && !same_shape(wt, &v->meta)) {
      sc_strbuf want = {0}, got = {0};
      sc_tensor_meta_print(&want, &v->meta);
      sc_strbuf_printf(&got, "%s[", sc_dtype_short(wt->dtype));
      for (int k = 0; k < wt->rank; k++) sc_strbuf_printf(&got, k ? ", %lld" : "%lld", (long long)wt->shape[k]);
      sc_strbuf_append(&got, "]");
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_WEIGHTS_MISMATCH, SC_SEV_ERROR, w->file, wt->name,
                                "weight '%s' is %s but the program expects %s", wt->name, sc_strbuf_cstr(&got),
                                sc_strbuf_cstr(&want));
      sc_diag_set_hint(&ctx->diags, d, "the weights file does not belong to this model");
      sc_strbuf_free(&want);
      sc_strbuf_free(&got);
      ok = false;
    }
  }
  return ok;
}
