/* shape_analysis.c - symbols from the spec, rules over the nodes, checks against the
 * program's own metas; see shape_analysis.h. */
#include "shape_analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_rules.h"

const char *sc_analysis_dim_source(sc_ctx *ctx, const sc_value *v, int dim) {
  return sc_arena_printf(&ctx->arena, "%s.size()[%d]", v->name, dim);
}

sc_range_iv sc_analysis_reported_range(const sc_symbol *s) {
  sc_range_iv r = s->range;
  if (s->origin == SC_SYM_NAMED && s->declared.lo < 2 && r.lo == 2) r.lo = s->declared.lo;
  return r;
}

static const sc_provenance spec_prov = {-1, "", "", "", "spec"};

static void no_sample(sc_ctx *ctx, const sc_program *p, const sc_value *v, int k) {
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_NO_SAMPLE, SC_SEV_ERROR, p->file, v->path,
                            "%s.size()[%d] has no sample size (a symbolic size without a hint)", v->name, k);
  sc_diag_set_hint(&ctx->diags, d, "export the model with concrete sample inputs so that every size has a hint");
}

/* A named Dim's root symbol, created on first use. */
static sc_symbol *root_symbol(sc_shape_env *env, const sc_root_dim *root, const char *source, const char *path) {
  sc_symbol *s = sc_env_find(env, root->name);
  if (s) return s;
  sc_range_iv declared = sc_iv(root->min, root->has_max ? root->max : SC_INT_OO);
  sc_range_iv tracing = sc_iv(root->min > 2 ? root->min : 2, declared.hi);
  s = sc_env_add_symbol(env, root->name, SC_SYM_NAMED, tracing);
  s->declared = declared;
  s->dim = root;
  s->has_hint = root->has_sample;
  s->hint = root->sample;
  s->source = source;
  s->spec_path = path;
  return s;
}

/* Gives each dim of a user input its size: a constant or an expression of a symbol. */
static bool create_input_dims(sc_ctx *ctx, sc_analysis *a, const sc_input_dims *in) {
  sc_shape_env *env = &a->env;
  sc_value *v = (sc_value *)in->value;
  v->shape = sc_arena_alloc(&ctx->arena, (size_t)(in->rank ? in->rank : 1) * sizeof *v->shape);
  bool ok = true;
  /* on failure the input keeps no shape: placeholders must not reach the report */
  for (int k = 0; k < in->rank; k++) {
    const sc_dim_spec *d = &in->dims[k];
    const char *source = sc_analysis_dim_source(ctx, v, k);
    if (d->kind == SC_DIM_STATIC) {
      int64_t size = d->static_size >= 0 ? d->static_size : d->sample;
      if (size < 0) {
        no_sample(ctx, a->program, v, k);
        ok = false;
        size = 0;
      }
      v->shape[k] = sc_expr_int(ctx, size);
      continue;
    }
    if (d->sample < 0) {
      no_sample(ctx, a->program, v, k);
      ok = false;
      v->shape[k] = sc_expr_int(ctx, 0);
      continue;
    }
    char name[32];
    snprintf(name, sizeof name, "s%d", env->next_s++);
    if (d->sample <= 1) {
      /* 0/1 specialization: silent for AUTO, an error for DYNAMIC and named Dims */
      v->shape[k] = sc_expr_int(ctx, d->sample);
      if (d->kind == SC_DIM_AUTO) continue;
      const char *fix = sc_arena_printf(&ctx->arena, "dynamic_shapes['%s'][%d] = %lld", v->name, k, (long long)d->sample);
      sc_violation *vi = sc_env_violation(
          env, &spec_prov, NULL, &fix, 1,
          "%s is marked %s but its sample size is %lld, which specializes it (0/1 specialization); use a sample of "
          "2 or more to keep it dynamic, or make it static",
          source, d->kind == SC_DIM_DYNAMIC ? "Dim.DYNAMIC" : "with a named Dim", (long long)d->sample);
      vi->fix = (sc_fix){.kind = SC_FIX_STATIC_LEAF, .spec_path = d->path, .value = d->sample};
      continue;
    }
    if (d->kind == SC_DIM_NAMED && d->root->has_sample && d->root->sample <= 1) {
      /* the root Dim's own sample is 0 or 1 (x: "dx + 3" with a sample of 4) */
      v->shape[k] = sc_expr_int(ctx, d->sample);
      bool reported = false;
      for (size_t i = 0; i < env->n_violations; i++)
        reported |= env->violations[i].fix.kind == SC_FIX_DIM_VALUE && strcmp(env->violations[i].fix.dim, d->root->name) == 0;
      if (reported) continue;
      const char *fix = sc_arena_printf(&ctx->arena, "%s = %lld", d->root->name, (long long)d->root->sample);
      sc_violation *vi = sc_env_violation(env, &spec_prov, NULL, &fix, 1,
                                          "Dim %s is %lld for the sample inputs (from %s), which specializes it "
                                          "(0/1 specialization); use samples that give it 2 or more",
                                          d->root->name, (long long)d->root->sample, source);
      vi->fix = (sc_fix){.kind = SC_FIX_DIM_VALUE, .dim = d->root->name, .value = d->root->sample, .spec_path = d->path};
      continue;
    }
    if (d->kind == SC_DIM_NAMED) {
      sc_symbol *root = root_symbol(env, d->root, source, d->path);
      const sc_expr *sym = sc_expr_sym(ctx, root->name);
      v->shape[k] = sc_expr_add(ctx, sc_expr_mul(ctx, sc_expr_int(ctx, d->coeff), sym), sc_expr_int(ctx, d->offset));
      continue;
    }
    sc_range_iv r = sc_iv(2, SC_INT_OO);
    if (d->has_min && d->min > r.lo) r.lo = d->min;
    if (d->has_max) r.hi = d->max;
    sc_symbol *s = sc_env_add_symbol(env, name, d->kind == SC_DIM_AUTO ? SC_SYM_AUTO : SC_SYM_DYNAMIC, r);
    s->declared = sc_iv(d->has_min ? d->min : 2, r.hi);
    s->has_hint = true;
    s->hint = d->sample;
    s->source = source;
    s->spec_path = d->path;
    v->shape[k] = sc_expr_sym(ctx, s->name);
  }
  if (!ok) v->shape = NULL;
  return ok;
}

/* Parameters, buffers and constants are static: their metas give their sizes. */
static bool create_state_dims(sc_ctx *ctx, sc_analysis *a, sc_value *v) {
  v->shape = sc_arena_alloc(&ctx->arena, (size_t)(v->meta.rank ? v->meta.rank : 1) * sizeof *v->shape);
  bool ok = true;
  for (int k = 0; k < v->meta.rank; k++) {
    int64_t c = v->meta.size_hints ? v->meta.size_hints[k] : -1;
    if (!sc_expr_is_const(v->meta.sizes[k], &c) && c < 0) {
      no_sample(ctx, a->program, v, k);
      ok = false;
      c = 0;
    }
    v->shape[k] = sc_expr_int(ctx, c);
  }
  return ok;
}

/* The computed shape must agree with the sizes the program was traced with. */
static bool check_meta(sc_ctx *ctx, sc_analysis *a, const sc_value *v) {
  if (v->kind != SC_VALUE_TENSOR || !v->shape) return true;
  for (int k = 0; k < v->meta.rank; k++) {
    int64_t want, got;
    bool has_want = sc_expr_is_const(v->meta.sizes[k], &want) ||
                    (v->meta.size_hints && (want = v->meta.size_hints[k]) >= 0);
    if (!has_want || !sc_env_hint(&a->env, v->shape[k], &got) || got == want) continue;
    const char *path = sc_arena_printf(&ctx->arena, "%s.sizes[%d]", v->path ? v->path : v->name, k);
    const sc_expr *e = sc_env_resolve(&a->env, v->shape[k]);
    const char *how = sc_expr_is_const(e, NULL) ? "" : sc_arena_printf(&ctx->arena, "%s = ", sc_expr_to_string(ctx, e));
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_META_MISMATCH, SC_SEV_ERROR, a->program->file, path,
                              "%s.size()[%d] is %lld in the program, but its operator gives %s%lld for the sample "
                              "inputs",
                              v->name, k, (long long)want, how, (long long)got);
    sc_diag_set_hint(&ctx->diags, d, "the program's tensor metas disagree with ATen's shape semantics; re-export it");
    return false;
  }
  return true;
}

static void report_violations(sc_ctx *ctx, sc_analysis *a) {
  for (size_t i = 0; i < a->env.n_violations; i++) {
    const sc_violation *v = &a->env.violations[i];
    const char *file = v->prov.node < 0 && a->spec->file ? a->spec->file : a->program->file;
    const char *path = v->prov.node < 0 ? v->fix.spec_path : v->prov.path;
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_CONSTRAINT_VIOLATION, SC_SEV_ERROR, file, path,
                              "Constraints violated: %s", v->message);
    if (v->n_fixes) {
      sc_strbuf sb = {0};
      sc_strbuf_append(&sb, "suggested fixes: ");
      for (size_t k = 0; k < v->n_fixes; k++) sc_strbuf_printf(&sb, "%s%s", k ? "; " : "", v->fixes[k]);
      sc_diag_set_hint(&ctx->diags, d, "%s", sc_strbuf_cstr(&sb));
      sc_strbuf_free(&sb);
    }
  }
}

bool sc_analysis_run(sc_ctx *ctx, const sc_program *p, const sc_dynspec *spec, sc_analysis *out) {
  memset(out, 0, sizeof *out);
  sc_env_init(&out->env, ctx);
  out->program = p;
  out->spec = spec;
  size_t errors_before = ctx->diags.n_errors;
  bool ok = true;
  for (size_t i = 0; i < spec->n_inputs; i++) {
    const sc_input_dims *in = &spec->inputs[i];
    if (in->value) {
      ok &= create_input_dims(ctx, out, in);
    } else {
      sc_value *v = sc_input_spec_value(in->input);
      if (v && v->kind == SC_VALUE_SYM_INT)
        v->sym = v->has_hint ? sc_expr_int(ctx, v->hint) : sc_env_new_unbacked(&out->env, v->name, false);
    }
  }
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    sc_value *v = sc_input_spec_value(s);
    if (s->kind != SC_INPUT_USER && v && v->kind == SC_VALUE_TENSOR) ok &= create_state_dims(ctx, out, v);
  }
  if (!ok) return false;
  const sc_graph *g = p->graph;
  for (size_t i = 0; i < g->n_nodes; i++) {
    const sc_node *n = &g->nodes[i];
    sc_rule_ctx rc = {&out->env, ctx, p, n, {(int)i, n->name, n->target, n->path, ""}, false};
    if (!sc_shape_rule_apply(&rc)) {
      sc_env_finalize(&out->env);
      report_violations(ctx, out);
      return false;
    }
    for (size_t k = 0; k < n->n_outputs; k++)
      for (size_t j = 0; j < n->outputs[k].n_items; j++)
        if (n->outputs[k].items[j].value) ok &= check_meta(ctx, out, n->outputs[k].items[j].value);
    if (!ok) break;
  }
  out->completed = ok;
  /* the final shapes use the final replacements */
  sc_strmap_entry *slots = g->values.slots;
  for (size_t i = 0; i < g->values.n_slots; i++) {
    sc_value *v = slots[i].value;
    if (!slots[i].key || !v) continue;
    if (v->shape)
      for (int k = 0; k < v->meta.rank; k++) v->shape[k] = sc_env_resolve(&out->env, v->shape[k]);
    if (v->sym) v->sym = sc_env_resolve(&out->env, v->sym);
  }
  sc_env_finalize(&out->env);
  report_violations(ctx, out);
  return ctx->diags.n_errors == errors_before;
}

void sc_analysis_release(sc_analysis *a) { sc_env_release(&a->env); }

void sc_analysis_print(sc_strbuf *sb, const sc_analysis *a) {
  const sc_shape_env *env = &a->env;
  sc_strbuf_append(sb, "\nSymbols:\n");
  for (size_t i = 0; i < env->n_symbols; i++) {
    const sc_symbol *s = &env->symbols[i];
    sc_strbuf_printf(sb, "    %s: %s (%s", s->name, s->source ? s->source : "", sc_sym_origin_name(s->origin));
    if (s->has_hint) sc_strbuf_printf(sb, ", hint %lld", (long long)s->hint);
    sc_strbuf_append(sb, ")");
    if (s->replacement) {
      sc_strbuf_append(sb, " = ");
      sc_expr_print(sb, s->replacement);
      sc_strbuf_printf(sb, "  [%s at node '%s']", s->replaced_at.rule, s->replaced_at.node_name);
    } else {
      sc_strbuf_append(sb, " in ");
      sc_iv_print(sb, sc_analysis_reported_range(s));
    }
    sc_strbuf_append(sb, "\n");
  }
  size_t n_asserts = 0;
  for (size_t i = 0; i < env->n_guards; i++) n_asserts += env->guards[i].outcome == SC_GUARD_RUNTIME_ASSERT;
  if (!n_asserts) return;
  sc_strbuf_append(sb, "\nRuntime asserts:\n");
  for (size_t i = 0; i < env->n_guards; i++) {
    const sc_guard *g = &env->guards[i];
    if (g->outcome != SC_GUARD_RUNTIME_ASSERT) continue;
    sc_strbuf_append(sb, "    ");
    sc_expr_print(sb, g->expr);
    sc_strbuf_printf(sb, "  [%s at node '%s']\n", g->prov.rule, g->prov.node_name);
  }
}
