/* shape_analysis.c - symbols from the spec, rules over the nodes, checks against the
 * program's own metas; see shape_analysis.h. */
#include "shape_analysis.h"
#include "derived_roots.h"
#include "frozen_sizes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program_guards.h"
#include "shape_rules.h"

const char *sc_analysis_dim_source(sc_ctx *ctx, const sc_value *v, int dim) {
  return sc_arena_printf(&ctx->arena, "%s.size()[%d]", v->display ? v->display : v->name, dim);
}

sc_range_iv sc_analysis_reported_range(const sc_symbol *s) {
  if (s->origin == SC_SYM_PROGRAM) return s->declared; /* the program's range_constraints, as torch lists them */
  sc_range_iv r = s->range;
  if (s->origin == SC_SYM_NAMED && !s->traced_floor && s->declared.lo < 2 && r.lo == 2) r.lo = s->declared.lo;
  if (s->is_int && r.lo < 0) r.lo = 0; /* range_constraints start every size at 0 */
  return r;
}

sc_range_iv sc_analysis_checked_range(const sc_symbol *s) {
  /* for the program's own symbols what the rules learned counts too (a split into a fixed
   * number of chunks bounds the size from above); a lower bound of 2 or less is tracing's
   * assumption, not a rule of the program: ep.module() accepts 0 and 1 even below a named
   * Dim's min of 1 (measured with 2.14 and 2.6), and so does the library */
  sc_range_iv r = s->origin == SC_SYM_PROGRAM ? s->range : sc_analysis_reported_range(s);
  if (r.lo <= 2) r.lo = SC_NEG_INT_OO;
  return r;
}

/* ---- the program's own dynamism (no spec) ---------------------------------------- */

/* The program's range_constraints entry for e (a symbol or a derived size), if any. */
static const sc_range *program_range(sc_ctx *ctx, const sc_program *p, const sc_expr *e) {
  for (size_t i = 0; i < p->n_file_ranges; i++) {
    const sc_expr *key = sc_expr_parse(ctx, p->file_ranges[i].symbol, NULL, NULL);
    if (key == e) return &p->file_ranges[i];
  }
  return NULL;
}

static sc_range_iv as_iv(const sc_range *r) {
  return sc_iv(r->has_min ? r->min : SC_NEG_INT_OO, r->has_max ? r->max : SC_INT_OO);
}

/* A symbol of the program's metas: its declared range is the program's, tracing
 * reasons from 2 up as torch did. */
static void add_program_symbol(sc_ctx *ctx, sc_analysis *a, const char *name, const char *source, bool has_hint,
                               int64_t hint) {
  const sc_range *pr = program_range(ctx, a->program, sc_expr_sym(ctx, name));
  sc_range_iv declared = pr ? as_iv(pr) : sc_iv(2, SC_INT_OO);
  sc_range_iv tracing = sc_iv(declared.lo > 2 ? declared.lo : 2, declared.hi);
  sc_symbol *s = sc_env_add_symbol(&a->env, name, SC_SYM_PROGRAM, tracing);
  s->declared = declared;
  s->has_hint = has_hint;
  s->hint = hint;
  s->source = source;
}

/* Symbols of the input metas: first those that are a dim on their own (the dim is their
 * source and sample), then roots seen only in derived sizes (a*s + b gives the sample). */
static void create_program_symbols(sc_ctx *ctx, sc_analysis *a) {
  const sc_dynspec *spec = a->spec;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < spec->n_inputs; i++) {
      const sc_input_dims *in = &spec->inputs[i];
      for (int k = 0; k < in->rank; k++) {
        const sc_dim_spec *d = &in->dims[k];
        if (d->kind != SC_DIM_PROGRAM || (pass == 0) != (d->expr->kind == SC_EXPR_SYM)) continue;
        const char *source = sc_analysis_dim_source(ctx, in->value, k);
        const char *names[16];
        int n = sc_expr_symbols(d->expr, names, 16);
        for (int j = 0; j < n; j++) {
          if (sc_env_find(&a->env, names[j])) continue;
          if (pass == 0) {
            add_program_symbol(ctx, a, names[j], source, d->sample >= 0, d->sample);
            continue;
          }
          const sc_expr *at0 = sc_expr_subst(ctx, d->expr, names[j], sc_expr_int(ctx, 0));
          const sc_expr *at1 = sc_expr_subst(ctx, d->expr, names[j], sc_expr_int(ctx, 1));
          int64_t b, a1;
          bool linear = n == 1 && sc_expr_is_const(at0, &b) && sc_expr_is_const(at1, &a1) && a1 != b;
          bool hinted = linear && d->sample >= 0 && (d->sample - b) % (a1 - b) == 0;
          const char *root_source = linear ? sc_linear_root_text(ctx, source, b, a1 - b) : NULL;
          add_program_symbol(ctx, a, names[j], root_source, hinted, hinted ? (d->sample - b) / (a1 - b) : 0);
        }
      }
    }
}

/* Guards and violations that come from the spec itself. */
static const sc_provenance spec_prov = {-1, "", "", "", "spec", NULL};

/* An int input the program keeps as a SymInt: its own symbol (the program's, or a new
 * one for AUTO and DYNAMIC), or its sample value where the spec makes it static.  torch
 * gives such a symbol no floor of 2 and no 0/1 specialization; range_constraints report
 * it from 0 (real torch 2.14: VR[0, int_oo], and ep.module() still takes -2). */
static bool create_int_input(sc_ctx *ctx, sc_analysis *a, const sc_input_dims *in) {
  sc_value *v = (sc_value *)in->int_value;
  const sc_dim_spec *d = &in->scalar;
  if (d->kind == SC_DIM_PROGRAM) {
    const char *names[2];
    if (sc_expr_symbols(d->expr, names, 2) == 1 && !sc_env_find(&a->env, names[0])) {
      const sc_range *pr = program_range(ctx, a->program, sc_expr_sym(ctx, names[0]));
      sc_range_iv declared = pr ? as_iv(pr) : sc_iv(0, SC_INT_OO);
      sc_symbol *s = sc_env_add_symbol(&a->env, names[0], SC_SYM_PROGRAM, declared);
      s->declared = declared;
      s->has_hint = v->has_hint;
      s->hint = v->hint;
      s->source = v->display ? v->display : v->name;
      s->is_int = true;
    }
    v->sym = d->expr;
    return true;
  }
  if (d->sample < 0) {
    sc_diag *dg = sc_diags_add(&ctx->diags, SC_DIAG_NO_SAMPLE, SC_SEV_ERROR, a->program->file, v->path,
                               "int input '%s' has no sample value in the program", v->name);
    sc_diag_set_hint(&ctx->diags, dg, "export the program again with torch, which records the sample as the hint");
    return false;
  }
  /* torch specialized it when it exported the program (its value is a constant there,
   * its uses in the graph are that constant): it stays so, as torch's own export with this
   * spec would make it, and a DYNAMIC int is a violation */
  int64_t traced;
  if (v->expr && sc_expr_is_const(v->expr, &traced) && d->kind != SC_DIM_STATIC) {
    v->sym = v->expr;
    if (d->kind == SC_DIM_AUTO) return true;
    /* torch suggests no fix line for an int marked DYNAMIC (test/diff p26103); --fix-spec
     * still writes the constant */
    sc_violation *vi = sc_env_violation(&a->env, &spec_prov, NULL, NULL, 0, SC_SPECIALIZED_SENTENCE,
                                        sc_env_torch_source(&a->env, v->name), (long long)traced);
    vi->label = v->name;
    vi->note = sc_arena_printf(&ctx->arena, "the program uses %s as the constant %lld", v->name, (long long)traced);
    vi->fix = (sc_fix){.kind = SC_FIX_STATIC_LEAF, .spec_path = d->path, .value = traced};
    return true;
  }
  if (d->kind == SC_DIM_STATIC) {
    v->sym = sc_expr_int(ctx, d->sample);
    return true;
  }
  char name[32];
  sc_env_fresh_s(&a->env, name);
  sc_range_iv r = sc_iv_full();
  if (d->has_min) r.lo = d->min;
  if (d->has_max) r.hi = d->max;
  sc_symbol *s = sc_env_add_symbol(&a->env, name, d->kind == SC_DIM_AUTO ? SC_SYM_AUTO : SC_SYM_DYNAMIC, r);
  s->declared = sc_iv(d->has_min ? d->min : 0, r.hi);
  s->has_hint = true;
  s->hint = d->sample;
  s->source = v->display ? v->display : v->name;
  s->spec_path = d->path;
  s->is_int = true;
  v->sym = sc_expr_sym(ctx, s->name);
  return true;
}

/* torch.export's range_constraints intersect, over every input dim that is a symbol, the
 * Dim's [min, max] for a named Dim and the traced range (from 2 up) for an AUTO or DYNAMIC
 * one: a Dim(min=0) equal to an AUTO dim is reported from 2 (real torch 2.14). */
static void mark_traced_floors(sc_analysis *a) {
  const sc_dynspec *spec = a->spec;
  for (size_t i = 0; i < spec->n_inputs; i++) {
    const sc_input_dims *in = &spec->inputs[i];
    for (int k = 0; k < in->rank; k++) {
      if ((in->dims[k].kind != SC_DIM_AUTO && in->dims[k].kind != SC_DIM_DYNAMIC) || !in->value->shape) continue;
      const sc_expr *e = in->value->shape[k];
      sc_symbol *s = e->kind == SC_EXPR_SYM ? sc_env_find(&a->env, e->name) : NULL;
      if (s && s->origin == SC_SYM_NAMED) s->traced_floor = true;
    }
  }
}

/* The least value each symbol may take on a call (sc_symbol.untraced_lo): a root that
 * only derived input sizes a*r + b hold may go down to where the least of them is 0
 * rows, since ep.module() solves r from the size and runs it (x: [r + 1] of 0 rows);
 * a symbol any input holds otherwise goes down to 0. */
static void set_untraced_floors(sc_ctx *ctx, sc_analysis *a) {
  bool *seen = sc_arena_alloc(&ctx->arena, (a->env.n_symbols + 1) * sizeof *seen);
  memset(seen, 0, (a->env.n_symbols + 1) * sizeof *seen);
  for (size_t i = 0; i < a->spec->n_inputs; i++) {
    const sc_value *v = a->spec->inputs[i].value;
    if (!v || !v->shape) continue;
    for (int k = 0; k < v->meta.rank; k++) {
      const sc_expr *e = v->shape[k];
      const char *names[16];
      int n = sc_expr_symbols(e, names, 16);
      for (int j = 0; j < n && j < 16; j++) {
        sc_symbol *s = sc_env_find(&a->env, names[j]);
        if (!s) continue;
        size_t at = (size_t)(s - a->env.symbols);
        int64_t lo = 0, b, a1;
        /* a*r + b with a > 0: r down to ceil(-b / a), never above 0 */
        const sc_expr *at0 = sc_expr_subst(ctx, e, names[j], sc_expr_int(ctx, 0));
        const sc_expr *at1 = sc_expr_subst(ctx, e, names[j], sc_expr_int(ctx, 1));
        if (n == 1 && e->kind != SC_EXPR_SYM && sc_expr_is_const(at0, &b) && sc_expr_is_const(at1, &a1) && a1 > b &&
            b > 0 && b < INT64_MAX / 2) {
          int64_t step = a1 - b;
          lo = -(b / step); /* ceil(-b / step) for b > 0 */
        }
        if (!seen[at] || lo > s->untraced_lo) s->untraced_lo = lo;
        seen[at] = true;
      }
    }
  }
}

/* Where guards_code[i] comes from, for guards and violations. */
static sc_provenance guards_code_prov(const sc_program *p, size_t i, const char *shown) {
  return (sc_provenance){SC_PROV_GUARDS_CODE, "", "", p->guards_code_paths[i], "guards_code", shown};
}

/* The program's guards_code, as conditions; NULL for one that cannot be read (reported
 * when `report` is set). */
static const sc_expr *program_guard(sc_ctx *ctx, const sc_program *p, size_t i, bool report, const char **text,
                                    const sc_expr **raw) {
  sc_program_guard g;
  const char *err;
  int col;
  if (sc_program_guard_parse(ctx, p, p->guards_code[i], &g, &err, &col)) {
    *text = g.text;
    if (raw) *raw = g.raw;
    return g.cond;
  }
  if (report) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_PROGRAM_GUARD, SC_SEV_WARNING, p->file, p->guards_code_paths[i],
                              "the program's guard \"%s\" is not understood (column %d: %s); the library does not "
                              "check it", p->guards_code[i], col + 1, err);
    sc_diag_set_hint(&ctx->diags, d, "calls that break this guard are refused by torch's ep.module() but not by "
                                     "the library; check those sizes before calling it");
  }
  return NULL;
}

/* When a guards_code entry goes to the environment: sizes pinned to numbers first (0), then
 * the rest in the file's order (1), as torch's replacements are made before it judges a
 * spec: with `x.size()[0] <= 64`, `x.size()[0] == y.size()[0]` and `x.size()[0] == 5`,
 * torch says only that the Dims on x and y were specialized to 5 (fix `d0 = 5`), not that
 * d0's range or its relation to y's Dim is wrong (test/diff p100603). */
static int guard_phase(const sc_expr *cond) {
  if (cond->kind != SC_EXPR_EQ) return 1;
  const sc_expr *l = cond->args[0], *r = cond->args[1];
  bool pin = (l->kind == SC_EXPR_SYM && sc_expr_is_const(r, NULL)) || (r->kind == SC_EXPR_SYM && sc_expr_is_const(l, NULL));
  return pin ? 0 : 1; /* a size == a number; not (x % 2) == 0 */
}

/* Whether the analysis made the guards_code entry at path a runtime assert (a re-applied
 * spec with --prefer-deferred-runtime-asserts): then torch's export with that spec has it
 * in the graph, not in its guards, and the library checks it as an assert. */
static bool deferred(const sc_analysis *a, const char *path) {
  if (!a->env.prefer_deferred_asserts) return false;
  for (size_t i = 0; i < a->env.n_guards; i++) {
    const sc_guard *g = &a->env.guards[i];
    if (g->outcome == SC_GUARD_RUNTIME_ASSERT && g->prov.node == SC_PROV_GUARDS_CODE && strcmp(g->prov.path, path) == 0)
      return true;
  }
  return false;
}

/* Every guard of guards_code holds on each call: checked on the input sizes, unless it
 * is true whatever the sizes (x.size()[0] == x.size()[0] once both dims are one symbol). */
static void record_program_guards(sc_ctx *ctx, sc_analysis *a) {
  const sc_program *p = a->program;
  a->checks = sc_arena_alloc(&ctx->arena, (p->n_guards_code + 1) * sizeof *a->checks);
  for (size_t i = 0; i < p->n_guards_code; i++) {
    const char *text;
    const sc_expr *raw = NULL;
    const sc_expr *cond = program_guard(ctx, p, i, true, &text, &raw);
    if (!cond || deferred(a, p->guards_code_paths[i])) continue;
    if (raw) a->checks[a->n_checks++] = (sc_program_check){raw, text};
    cond = sc_env_resolve(&a->env, cond);
    if (cond->kind == SC_EXPR_TRUE) continue;
    if (cond->kind == SC_EXPR_FALSE) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_PROGRAM_GUARD, SC_SEV_ERROR, p->file, p->guards_code_paths[i],
                                "the program's guard \"%s\" can never hold%s", p->guards_code[i],
                                a->spec->file ? " with the sizes this spec allows" : "");
      sc_diag_set_hint(&ctx->diags, d, a->spec->file ? "the program was exported for other shapes: make the spec "
                                                       "agree with the guard, or export the model again with this spec"
                                                     : "the program contradicts itself; export the model again");
      continue;
    }
    sc_provenance prov = guards_code_prov(p, i, text);
    sc_env_input_guard(&a->env, cond, text, &prov);
  }
}

/* Derived input sizes get their range from range_constraints (else from their symbols),
 * checked on a call where ep.module() checks it: a lower bound above 2, any upper bound. */
static void record_derived_ranges(sc_ctx *ctx, sc_analysis *a) {
  const sc_dynspec *spec = a->spec;
  size_t cap = 0;
  for (size_t i = 0; i < spec->n_inputs; i++) cap += (size_t)spec->inputs[i].rank;
  a->derived = sc_arena_alloc(&ctx->arena, (cap ? cap : 1) * sizeof *a->derived);
  for (size_t i = 0; i < spec->n_inputs; i++) {
    const sc_input_dims *in = &spec->inputs[i];
    for (int k = 0; k < in->rank; k++) {
      if (!in->value->shape) continue;
      const sc_expr *e = sc_env_resolve(&a->env, in->value->shape[k]);
      if (e->kind == SC_EXPR_SYM || sc_expr_is_const(e, NULL)) continue;
      bool seen = false;
      for (size_t j = 0; j < a->n_derived; j++) seen |= a->derived[j].expr == e;
      if (seen) continue;
      const sc_range *pr = program_range(ctx, a->program, e);
      sc_range_iv r = pr ? as_iv(pr) : sc_env_range(&a->env, e);
      a->derived[a->n_derived++] = (sc_derived_range){e, r};
      const char *source = sc_analysis_dim_source(ctx, in->value, k);
      const sc_provenance prov = {-1, "", "", "", "range_constraints", NULL};
      if (r.lo != SC_NEG_INT_OO && r.lo > 2)
        sc_env_input_guard(&a->env, sc_expr_rel(ctx, SC_EXPR_GE, e, sc_expr_int(ctx, r.lo)),
                           sc_arena_printf(&ctx->arena, "%s >= %lld", source, (long long)r.lo), &prov);
      if (r.hi != SC_INT_OO)
        sc_env_input_guard(&a->env, sc_expr_rel(ctx, SC_EXPR_LE, e, sc_expr_int(ctx, r.hi)),
                           sc_arena_printf(&ctx->arena, "%s <= %lld", source, (long long)r.hi), &prov);
    }
  }
}

/* The cross-check of a real file: each node's shape as shapec derives it against the
 * program's own meta.  A difference is a warning: the program's meta is what torch
 * computed, shapec's is what the library will compute. */
static void compare_with_metas(sc_ctx *ctx, sc_analysis *a) {
  enum { SHOWN = 8 };
  size_t n_differ = 0;
  const sc_graph *g = a->program->graph;
  for (size_t i = 0; i < g->n_nodes; i++) {
    const sc_node *n = &g->nodes[i];
    for (size_t o = 0; o < n->n_outputs; o++)
      for (size_t j = 0; j < n->outputs[o].n_items; j++) {
        const sc_value *v = n->outputs[o].items[j].value;
        if (!v || v->kind != SC_VALUE_TENSOR || !v->shape) continue;
        for (int k = 0; k < v->meta.rank; k++) {
          const sc_expr *want = v->meta.sizes[k], *got = v->shape[k];
          if (!want || got == want) continue;
          /* equal under the program's guards: (s//(s//2)) is 2 where Eq((s//(s//2)), 2) holds */
          if (sc_env_decide(&a->env, sc_expr_rel(ctx, SC_EXPR_EQ, want, got)) == SC_TRUE) continue;
          if (n_differ++ >= SHOWN) continue;
          const char *path = sc_arena_printf(&ctx->arena, "%s.sizes[%d]", v->path ? v->path : v->name, k);
          sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_META_DIFFERS, SC_SEV_WARNING, a->program->file, path,
                                    "%s.size()[%d] is %s in the program, shapec derives %s (node '%s', %s)", v->name, k,
                                    sc_expr_to_string(ctx, want), sc_expr_to_string(ctx, got), n->name, n->target);
          sc_diag_set_hint(&ctx->diags, d, "the library computes with shapec's size; please report this with the "
                                           "model if the two can differ");
        }
      }
  }
  if (n_differ > SHOWN)
    sc_diags_add(&ctx->diags, SC_DIAG_META_DIFFERS, SC_SEV_NOTE, a->program->file, NULL,
                 "%zu more sizes differ from the program's metas", n_differ - SHOWN);
}


static void no_sample(sc_ctx *ctx, const sc_program *p, const sc_value *v, int k) {
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_NO_SAMPLE, SC_SEV_ERROR, p->file, v->path,
                            "%s.size()[%d] has no sample size (a symbolic size without a hint)", v->name, k);
  sc_diag_set_hint(&ctx->diags, d, "export the model with concrete sample inputs so that every size has a hint");
}

/* A named Dim's root symbol, created on first use.  A phantom Dim (no input dim is the Dim
 * itself) is narrowed by the program's guards without a violation, as torch's phantom
 * symbols are, and reported from tracing's floor of 2. */
static sc_symbol *root_symbol(sc_shape_env *env, const sc_root_dim *root, const char *source, const char *path,
                              bool phantom) {
  sc_symbol *s = sc_env_find(env, root->name);
  if (s) return s->dim == root ? s : NULL; /* NULL: another symbol has its name */
  sc_range_iv declared = sc_iv(root->min, root->has_max ? root->max : SC_INT_OO);
  sc_range_iv tracing = sc_iv(root->min > 2 ? root->min : 2, declared.hi);
  s = sc_env_add_symbol(env, root->name, SC_SYM_NAMED, tracing);
  s->declared = declared;
  s->dim = root;
  s->has_hint = root->has_sample;
  s->hint = root->sample;
  s->source = source;
  s->spec_path = path;
  if (phantom) s->origin = SC_SYM_AUTO;
  return s;
}

static sc_root_orientation *orientation_of(sc_analysis *a, const sc_root_dim *root) {
  for (size_t i = 0; a->orient && i < a->spec->n_roots; i++)
    if (a->orient[i].root == root) return &a->orient[i];
  return NULL;
}

/* The symbol of the derived size torch writes Dim o->root in: that size's own, its range
 * the Dim's shifted (x: [r - 1] with r in [1, 16]: [0, 15]), named in messages as the
 * spec writes it. */
static sc_symbol *base_symbol(sc_ctx *ctx, sc_analysis *a, sc_root_orientation *o) {
  if (o->symbol) return sc_env_find(&a->env, o->symbol);
  const sc_dim_spec *bd = &o->base_input->dims[o->base_dim];
  const sc_root_dim *root = o->root;
  char name[32];
  sc_env_fresh_s(&a->env, name);
  sc_range_iv declared = sc_iv(root->min - o->delta, root->has_max ? root->max - o->delta : SC_INT_OO);
  sc_symbol *s = sc_env_add_symbol(&a->env, name, SC_SYM_NAMED, sc_iv(declared.lo > 2 ? declared.lo : 2, declared.hi));
  s->declared = declared;
  s->dim = root;
  s->has_hint = true;
  s->hint = bd->sample;
  s->source = sc_analysis_dim_source(ctx, o->base_input->value, o->base_dim);
  s->spec_path = bd->path;
  s->label = bd->text ? bd->text : root->name;
  s->dim_offset = o->delta;
  s->phantom = o->phantom;
  o->symbol = s->name;
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
    if (d->kind == SC_DIM_PROGRAM) { /* its symbols exist already */
      v->shape[k] = d->expr;
      continue;
    }
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
    sc_env_fresh_s(env, name);
    if (d->sample <= 1) {
      /* 0/1 specialization: silent for AUTO, an error for DYNAMIC and named Dims */
      v->shape[k] = sc_expr_int(ctx, d->sample);
      if (d->kind == SC_DIM_AUTO) continue;
      /* torch suggests pinning a named Dim by its name (dx = 1), and nothing for DYNAMIC,
       * nor for a derived size of a phantom Dim, which it names as the spec writes it */
      const sc_root_orientation *ro = d->kind == SC_DIM_NAMED ? orientation_of(a, d->root) : NULL;
      bool phantom_derived = ro && ro->phantom && d->text && (d->coeff != 1 || d->offset != 0);
      const char *label = phantom_derived ? d->text : d->kind == SC_DIM_NAMED ? d->root->name : source;
      const char *fix = sc_arena_printf(&ctx->arena, "%s = %lld", label, (long long)d->sample);
      sc_violation *vi = sc_env_violation(env, &spec_prov, NULL, &fix, d->kind == SC_DIM_NAMED && !phantom_derived,
                                          SC_SPECIALIZED_SENTENCE,
                                          d->kind == SC_DIM_NAMED ? label : sc_env_torch_source(env, source),
                                          (long long)d->sample);
      vi->label = label;
      vi->note = sc_arena_printf(&ctx->arena, "the sample size %lld of %s specializes it (0/1 specialization); use a "
                                 "sample of 2 or more to keep it dynamic, or make it static", (long long)d->sample,
                                 source);
      vi->fix = (sc_fix){.kind = SC_FIX_STATIC_LEAF, .spec_path = d->path, .value = d->sample};
      /* a DYNAMIC size: torch names it by its input's place, inputs[1]['y'].shape[0] */
      size_t name_len = strcspn(source, ".[");
      const char *size_at = strstr(source, ".size()[");
      if (d->kind == SC_DIM_DYNAMIC && size_at)
        vi->hint_conflict = sc_arena_printf(&ctx->arena, "inputs[%zu]%.*s.shape[%d]", (size_t)(in - a->spec->inputs),
                                            (int)(size_at - source - name_len), source + name_len, k);
      continue;
    }
    if (d->kind == SC_DIM_NAMED && d->root->has_sample && d->root->sample <= 1) {
      /* the root Dim's own sample is 0 or 1 (x: "dx + 3" with a sample of 4) */
      v->shape[k] = sc_expr_int(ctx, d->sample);
      const sc_root_orientation *ro = orientation_of(a, d->root);
      if (ro && ro->phantom && d->text) {
        /* torch's phantom symbol takes the 1 and this size its value: named as the spec
         * writes it (2*r0, specialized to 2), with no fix line (test/diff p100036) */
        sc_violation *vi = sc_env_violation(env, &spec_prov, NULL, NULL, 0, SC_SPECIALIZED_SENTENCE, d->text,
                                            (long long)d->sample);
        vi->label = d->text;
        vi->note = sc_arena_printf(&ctx->arena, "Dim %s is %lld for the sample inputs (from %s), which specializes it "
                                   "(0/1 specialization); use samples that give it 2 or more", d->root->name,
                                   (long long)d->root->sample, source);
        vi->fix = (sc_fix){.kind = SC_FIX_STATIC_LEAF, .spec_path = d->path, .value = d->sample};
        continue;
      }
      bool reported = false;
      for (size_t i = 0; i < env->n_violations; i++)
        reported |= env->violations[i].fix.kind == SC_FIX_DIM_VALUE && strcmp(env->violations[i].fix.dim, d->root->name) == 0;
      if (reported) continue;
      const char *fix = sc_arena_printf(&ctx->arena, "%s = %lld", d->root->name, (long long)d->root->sample);
      sc_violation *vi = sc_env_violation(env, &spec_prov, NULL, &fix, 1, SC_SPECIALIZED_SENTENCE, d->root->name,
                                          (long long)d->root->sample);
      vi->label = d->root->name;
      vi->note = sc_arena_printf(&ctx->arena, "Dim %s is %lld for the sample inputs (from %s), which specializes it "
                                 "(0/1 specialization); use samples that give it 2 or more", d->root->name,
                                 (long long)d->root->sample, source);
      vi->fix = (sc_fix){.kind = SC_FIX_DIM_VALUE, .dim = d->root->name, .value = d->root->sample, .spec_path = d->path};
      continue;
    }
    sc_root_orientation *o = d->kind == SC_DIM_NAMED ? orientation_of(a, d->root) : NULL;
    if (o && o->base_input) { /* written in a derived size's symbol, as torch writes it */
      sc_symbol *base = base_symbol(ctx, a, o);
      v->shape[k] = sc_expr_add(ctx, sc_expr_mul(ctx, sc_expr_int(ctx, d->coeff), sc_expr_sym(ctx, base->name)),
                                sc_expr_int(ctx, d->coeff * o->delta + d->offset));
      continue;
    }
    if (d->kind == SC_DIM_NAMED) { /* the root read from this size: x.size()[0] - 1 for dx + 1 */
      sc_symbol *root = root_symbol(env, d->root, sc_linear_root_text(ctx, source, d->offset, d->coeff), d->path,
                                    o && o->phantom);
      if (root && o && o->phantom && !root->phantom_text && d->text) {
        root->phantom_text = d->text;
        root->phantom_a = d->coeff;
        root->phantom_b = d->offset;
      }
      if (!root) {
        sc_diags_add(&ctx->diags, SC_DIAG_SPEC_BAD_LEAF, SC_SEV_ERROR, a->spec->file, d->path,
                     "Dim '%s' has the name of one of the program's own symbols; give the Dim another name",
                     d->root->name);
        ok = false;
        continue;
      }
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

/* Whether an earlier violation already says the same (torch words each once). */
static bool said_before(const sc_shape_env *env, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (strcmp(env->violations[j].message, env->violations[i].message) == 0) return true;
  return false;
}

/* The Dim a fix line is about ("dx" in "dx = 2*_dx"), and whether it pins it to an int
 * or to an expression rather than a range. */
static size_t fix_subject(const char *fix, bool *to_int, bool *to_expr) {
  size_t n = strcspn(fix, " ");
  const char *rhs = strstr(fix, " = ");
  rhs = rhs ? rhs + 3 : "";
  *to_int = rhs[0] && strspn(rhs, "-0123456789") == strlen(rhs);
  *to_expr = !*to_int && strncmp(rhs, "Dim(", 4) != 0;
  return n;
}

/* torch's prettify_results keeps one suggestion per Dim: a value, else a relation, else a
 * range; the new root of a Dim pinned to a value goes too ("d = 6", not "_d = Dim(...)"). */
static bool superseded(const sc_shape_env *env, const char *fix) {
  bool to_int, to_expr;
  size_t n = fix_subject(fix, &to_int, &to_expr);
  if (to_int) return false;
  for (size_t i = 0; i < env->n_violations; i++)
    for (size_t k = 0; k < env->violations[i].n_fixes; k++) {
      const char *other = env->violations[i].fixes[k];
      bool o_int, o_expr;
      size_t m = fix_subject(other, &o_int, &o_expr);
      bool same = m == n && strncmp(other, fix, n) == 0;
      bool root_of = fix[0] == '_' && m == n - 1 && strncmp(other, fix + 1, m) == 0; /* _dx and dx */
      if (same && (o_int || (o_expr && !to_expr))) return true;
      if (root_of && o_int) return true;
    }
  return false;
}

/* "dy = dx" where dx has its own fix line, a value or a new root: torch states dy the
 * same way ("dy = 6", "dy = 2*_dx"). */
static const char *through_other_fixes(sc_ctx *ctx, const sc_shape_env *env, const char *fix) {
  bool to_int, to_expr;
  size_t n = fix_subject(fix, &to_int, &to_expr);
  if (!to_expr || strlen(fix) < n + 3) return fix;
  const char *rhs = fix + n + 3;
  if (strpbrk(rhs, " *+-()")) return fix; /* only "dy = dx" */
  for (size_t i = 0; i < env->n_violations; i++)
    for (size_t k = 0; k < env->violations[i].n_fixes; k++) {
      const char *other = env->violations[i].fixes[k];
      bool o_int, o_expr;
      size_t m = fix_subject(other, &o_int, &o_expr);
      if (m != strlen(rhs) || strncmp(other, rhs, m) != 0 || !(o_int || o_expr)) continue;
      return sc_arena_printf(&ctx->arena, "%.*s = %s", (int)n, fix, other + m + 3);
    }
  return fix;
}

size_t sc_analysis_fix_lines(sc_ctx *ctx, const sc_analysis *a, const char ***out) {
  const sc_shape_env *env = &a->env;
  size_t cap = env->n_suggestions + 1, n = 0;
  for (size_t i = 0; i < env->n_violations; i++) cap += env->violations[i].n_fixes;
  const char **lines = sc_arena_alloc(&ctx->arena, cap * sizeof *lines);
  for (size_t i = 0; i < env->n_violations; i++)
    for (size_t k = 0; k < env->violations[i].n_fixes; k++) {
      const char *fix = env->violations[i].fixes[k];
      bool seen = false;
      for (size_t j = 0; j <= i && !seen; j++)
        for (size_t m = 0; m < env->violations[j].n_fixes && !seen; m++)
          seen = (j < i || m < k) && strcmp(env->violations[j].fixes[m], fix) == 0;
      if (!seen && !superseded(env, fix)) lines[n++] = through_other_fixes(ctx, env, fix);
    }
  for (size_t i = 0; i < env->n_suggestions; i++) {
    const char *line = through_other_fixes(ctx, env, env->suggestions[i]);
    bool to_int, to_expr, seen = false;
    fix_subject(line, &to_int, &to_expr);
    for (size_t j = 0; j < n && !seen; j++) seen = strcmp(lines[j], line) == 0;
    if (!to_int && !seen) lines[n++] = line; /* a Dim pinned to a value: torch names no size after it */
  }
  *out = lines;
  return n;
}

/* A label as torch's header names it: a size or an int input by its source in the
 * function's locals (L['x'].size()[0], L['d']['y'].size()[1], L['n']), a Dim by its name. */
static const char *torch_label(sc_ctx *ctx, const sc_analysis *a, const char *label) {
  size_t n = strcspn(label, ".[");
  bool input = strstr(label, ".size()[") != NULL;
  for (size_t i = 0; !input && i < a->spec->n_inputs; i++)
    input = a->spec->inputs[i].int_value && a->spec->inputs[i].int_value->name &&
            strcmp(a->spec->inputs[i].int_value->name, label) == 0;
  return input ? sc_arena_printf(&ctx->arena, "L['%.*s']%s", (int)n, label, label + n) : label;
}

/* torch's words when the only violations are DYNAMIC hints on sizes of 0 or 1 (its
 * "conflicts between user-specified ranges and inferred ranges"), else NULL. */
static const char *hint_conflicts_text(sc_ctx *ctx, const sc_analysis *a, bool explain) {
  const sc_shape_env *env = &a->env;
  for (size_t i = 0; i < env->n_violations; i++)
    if (!env->violations[i].hint_conflict) return NULL;
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, "Found the following conflicts between user-specified ranges and inferred ranges from model "
                        "tracing:");
  for (size_t i = 0; i < env->n_violations; i++)
    sc_strbuf_printf(&sb, "\n- Received user-specified dim hint Dim.DYNAMIC(min=None, max=None), but export 0/1 "
                          "specialized due to hint of %lld for dimension %s.",
                     (long long)env->violations[i].fix.value, env->violations[i].hint_conflict);
  for (size_t i = 0; explain && i < env->n_violations; i++) {
    const sc_violation *v = &env->violations[i];
    sc_strbuf_printf(&sb, "\n  (shapec: from %s%s%s)", sc_env_where((sc_shape_env *)env, &v->prov), v->note ? ": " : "",
                     v->note ? v->note : "");
  }
  const char *text = sc_arena_strdup(&ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return text;
}

const char *sc_analysis_violations_text(sc_ctx *ctx, const sc_analysis *a, bool explain) {
  const sc_shape_env *env = &a->env;
  if (env->n_violations && hint_conflicts_text(ctx, a, explain)) return hint_conflicts_text(ctx, a, explain);
  /* beside other violations torch does not report the hint conflicts at all */
  size_t n_other = 0;
  for (size_t i = 0; i < env->n_violations; i++) n_other += !env->violations[i].hint_conflict;
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, "Constraints violated (");
  /* the labels once each, sorted, as torch joins sorted(debug_names) */
  const char **labels = sc_arena_alloc(&ctx->arena, (env->n_violations + 1) * sizeof *labels);
  size_t n_labels = 0;
  for (size_t i = 0; i < env->n_violations; i++) {
    if (env->violations[i].hint_conflict && n_other) continue;
    const char *label = torch_label(ctx, a, env->violations[i].label ? env->violations[i].label : "?");
    bool seen = false;
    for (size_t j = 0; j < n_labels && !seen; j++) seen = strcmp(labels[j], label) == 0;
    if (seen) continue;
    size_t at = n_labels++;
    for (; at > 0 && strcmp(labels[at - 1], label) > 0; at--) labels[at] = labels[at - 1];
    labels[at] = label;
  }
  for (size_t i = 0; i < n_labels; i++) sc_strbuf_printf(&sb, "%s%s", i ? ", " : "", labels[i]);
  sc_strbuf_append(&sb, ")!");
  for (size_t i = 0; i < env->n_violations; i++) {
    if (said_before(env, i) || (env->violations[i].hint_conflict && n_other)) continue;
    const sc_violation *v = &env->violations[i];
    sc_strbuf_printf(&sb, "\n  - %s", v->message);
    if (explain)
      sc_strbuf_printf(&sb, "\n    (shapec: from %s%s%s)", sc_env_where((sc_shape_env *)env, &v->prov),
                       v->note ? ": " : "", v->note ? v->note : "");
  }
  const char **lines;
  size_t n_fixes = sc_analysis_fix_lines(ctx, a, &lines);
  if (n_fixes) sc_strbuf_append(&sb, "\nSuggested fixes:");
  for (size_t i = 0; i < n_fixes; i++) sc_strbuf_printf(&sb, "\n  %s", lines[i]);
  const char *text = sc_arena_strdup(&ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return text;
}

/* One error for all violations, in torch's structure (the header naming the Dims, one
 * bullet per violation, one Suggested fixes block), with where each guard came from; it
 * points at the first violation's spec entry or node. */
static void report_violations(sc_ctx *ctx, sc_analysis *a) {
  if (!a->env.n_violations) return;
  const sc_violation *v = &a->env.violations[0];
  bool from_spec = v->prov.node == SC_PROV_SPEC;
  const char *file = from_spec && a->spec->file ? a->spec->file : a->program->file;
  const char *path = from_spec ? v->fix.spec_path : v->prov.path;
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_CONSTRAINT_VIOLATION, SC_SEV_ERROR, file, path, "%s",
                            sc_analysis_violations_text(ctx, a, true));
  bool fixes = false; /* what --fix-spec can apply, shown as a line or not */
  for (size_t i = 0; i < a->env.n_violations; i++)
    fixes |= a->env.violations[i].n_fixes > 0 || a->env.violations[i].fix.kind != SC_FIX_NONE;
  const char **fix_lines;
  bool listed = sc_analysis_fix_lines(ctx, a, &fix_lines) > 0;
  if (fixes)
    sc_diag_set_hint(&ctx->diags, d, listed ? "shapec export --fix-spec writes the spec with these fixes applied"
                                            : "shapec export --fix-spec writes the spec with those entries made static");
  /* the spec entries to edit, whatever node the guard came from: the leaf, or the named
   * Dim's entry in "dims" (else where it is used) */
  for (size_t i = 0; i < a->env.n_violations && a->spec->file; i++) {
    const sc_fix *f = &a->env.violations[i].fix;
    const char *edit = f->spec_path;
    const char *dim = f->dim ? f->dim : a->env.violations[i].label;
    for (size_t k = 0; !edit && dim && k < a->spec->n_roots; k++)
      if (strcmp(a->spec->roots[k].name, dim) == 0) edit = a->spec->roots[k].path;
    for (size_t k = 0; !edit && dim && k < a->env.n_symbols; k++)
      if (strcmp(a->env.symbols[k].name, dim) == 0) edit = a->env.symbols[k].spec_path;
    sc_diag_add_edit(&ctx->diags, d, a->spec->file, edit);
  }
}

/* ---- programs that no input satisfies (SC0607) ----------------------------------------
 *
 * torch never writes such a program: tracing stops on the first contradiction ("Expected
 * cond to be True, but got False.", "Cannot create Dim with inconsistent min=10, max=5",
 * ZeroDivisionError).  An edited or hand-written file can still hold one, and its library
 * would refuse every call; the export refuses the file instead, naming what conflicts. */

#define TORCH_FALSE_CHECK "torch: Expected cond to be True, but got False."

static sc_diag *impossible(sc_ctx *ctx, const char *file, const char *path, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static sc_diag *impossible(sc_ctx *ctx, const char *file, const char *path, const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *msg = sc_arena_vprintf(&ctx->arena, fmt, ap);
  va_end(ap);
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_IMPOSSIBLE_PROGRAM, SC_SEV_ERROR, file, path, "%s", msg);
  sc_diag_set_hint(&ctx->diags, d, "%s", hint);
  return d;
}

/* range_constraints with min > max (torch's Dim refuses them: "Cannot create Dim with
 * inconsistent min=10, max=5"). */
static bool check_file_ranges(sc_ctx *ctx, const sc_program *p) {
  bool ok = true;
  for (size_t i = 0; i < p->n_file_ranges; i++) {
    const sc_range *r = &p->file_ranges[i];
    if (!r->has_min || !r->has_max || r->min <= r->max) continue;
    impossible(ctx, p->file, r->path, "the file was edited or written by another tool; export the model again",
               "range_constraints gives %s the range [%lld, %lld], which holds no value, so the program accepts no "
               "input (torch: Cannot create Dim with inconsistent min=%lld, max=%lld)",
               r->symbol, (long long)r->min, (long long)r->max, (long long)r->min, (long long)r->max);
    ok = false;
  }
  return ok;
}

/* Whether evaluating e always divides by zero (a // 0 or a % 0 on every path: not under
 * an `or`, which Python may decide before reaching it). */
static bool divides_by_zero(const sc_expr *e) {
  int64_t v;
  if ((e->kind == SC_EXPR_FLOORDIV || e->kind == SC_EXPR_MOD) && sc_expr_is_const(e->args[1], &v) && v == 0)
    return true;
  if (e->kind == SC_EXPR_OR) return false;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (divides_by_zero(e->args[i])) return true;
  return false;
}

#define ZERO_DIV_HINT "the file was edited or written by another tool; export the model again"

/* Expressions already reported as dividing by zero (each once, where it first occurs). */
typedef struct zero_seen {
  const sc_expr **items;
  size_t n, cap;
} zero_seen;

static bool zero_seen_add(sc_ctx *ctx, zero_seen *seen, const sc_expr *e) {
  for (size_t m = 0; m < seen->n; m++)
    if (seen->items[m] == e) return false;
  if (seen->n == seen->cap) {
    size_t cap = seen->cap ? 2 * seen->cap : 8;
    const sc_expr **more = sc_arena_alloc(&ctx->arena, cap * sizeof *more);
    if (seen->n) memcpy(more, seen->items, seen->n * sizeof *more);
    seen->items = more, seen->cap = cap;
  }
  seen->items[seen->n++] = e;
  return true;
}

/* The sizes of one value (or its SymInt) that divide by zero, reported at its meta. */
static void value_zero_divisors(sc_ctx *ctx, const sc_program *p, const sc_value *v, zero_seen *seen) {
  bool tensor = v->kind == SC_VALUE_TENSOR;
  for (int d = 0; d < (tensor ? v->meta.rank : 1); d++) {
    const sc_expr *e = tensor ? v->meta.sizes[d] : v->expr;
    if (!e || !divides_by_zero(e) || !zero_seen_add(ctx, seen, e)) continue;
    const char *what = tensor ? sc_arena_printf(&ctx->arena, "%s.size()[%d]", v->name, d) : v->name;
    const char *path = tensor && v->path ? sc_arena_printf(&ctx->arena, "%s.sizes[%d]", v->path, d) : v->path;
    impossible(ctx, p->file, path, ZERO_DIV_HINT,
               "%s is %s in the program: division by zero, so no input gives it a value (torch: ZeroDivisionError: "
               "division by zero)", what, sc_expr_to_string(ctx, e));
  }
}

/* Sizes of the file that divide by zero: the user inputs', then the nodes' outputs' in
 * order.  Returns false when there is one. */
static bool check_zero_divisors(sc_ctx *ctx, sc_analysis *a) {
  const sc_program *p = a->program;
  const sc_graph *g = p->graph;
  zero_seen seen = {0};
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_value *v = sc_input_spec_value(&p->input_specs[i]);
    if (v) value_zero_divisors(ctx, p, v, &seen);
  }
  for (size_t i = 0; i < g->n_nodes; i++)
    for (size_t k = 0; k < g->nodes[i].n_outputs; k++)
      for (size_t j = 0; j < g->nodes[i].outputs[k].n_items; j++)
        if (g->nodes[i].outputs[k].items[j].value) value_zero_divisors(ctx, p, g->nodes[i].outputs[k].items[j].value, &seen);
  return seen.n == 0;
}

/* A guards_code entry that divides by zero fails on every call (Python raises). */
static bool guard_divides_by_zero(sc_ctx *ctx, const sc_program *p, size_t i, const sc_expr *cond) {
  if (!divides_by_zero(cond)) return false;
  impossible(ctx, p->file, p->guards_code_paths[i], ZERO_DIV_HINT,
             "the program's guard \"%s\" divides by zero, so it fails on every call (torch: ZeroDivisionError: "
             "division by zero)", p->guards_code[i]);
  return true;
}

/* What sets one end of a symbol's range: a guard (its index), the declaration, or the
 * range the shape rules leave. */
enum { FROM_DECLARED = -1, FROM_RULES = -2 };

typedef struct sym_bounds {
  const sc_symbol *s;
  sc_range_iv r;
  long lo_from, hi_from;
} sym_bounds;

typedef struct bounds {
  sc_analysis *a;
  sym_bounds *syms;
  size_t n;
} bounds;

/* A source in words, with its place when known. */
typedef struct bound_src {
  const char *file, *path;
  const char *what; /* the guard "L['x'].size()[0] >= 10"; NULL: nothing worth naming */
} bound_src;

static const char *iv_text(sc_ctx *ctx, sc_range_iv r) {
  sc_strbuf sb = {0};
  sc_iv_print(&sb, r);
  const char *t = sc_arena_strdup(&ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return t;
}

/* A condition over the inputs' sizes (x.size()[0] <= 5); unbacked symbols keep their name. */
static const char *sizes_text(sc_ctx *ctx, sc_analysis *a, const sc_expr *e) {
  const char *names[16];
  int n = sc_expr_symbols(e, names, 16);
  for (int i = 0; i < n; i++) {
    const sc_symbol *s = sc_env_find(&a->env, names[i]);
    if (s && s->source && s->origin != SC_SYM_UNBACKED) e = sc_expr_subst(ctx, e, names[i], sc_expr_sym(ctx, s->source));
  }
  return sc_expr_to_python(ctx, e);
}

static const char *sym_text(const sc_symbol *s) {
  return s->origin == SC_SYM_NAMED ? s->name : s->source && s->origin != SC_SYM_UNBACKED ? s->source : s->name;
}

/* A symbol's range as the library checks it: a lower bound up to 2 is tracing's assumption
 * (sizes 0 and 1 pass, an int input anything). */
static sc_range_iv as_checked(const sc_symbol *s, sc_range_iv r) {
  if (s->origin != SC_SYM_UNBACKED && r.lo <= 2) r.lo = s->is_int ? SC_NEG_INT_OO : 0;
  return r;
}

/* The range the rules leave a symbol, as checked. */
static sc_range_iv rules_range(const sc_symbol *s) {
  return as_checked(s, s->origin == SC_SYM_PROGRAM || s->origin == SC_SYM_UNBACKED ? s->range
                                                                                   : sc_analysis_reported_range(s));
}

static bound_src guard_src(sc_ctx *ctx, sc_analysis *a, size_t i) {
  const sc_guard *g = &a->env.guards[i];
  const sc_program *p = a->program;
  bound_src b = {p->file, g->prov.path && *g->prov.path ? g->prov.path : NULL, NULL};
  if (g->prov.node == SC_PROV_GUARDS_CODE) {
    const char *text = g->prov.shown;
    for (size_t k = 0; k < p->n_guards_code; k++)
      if (strcmp(p->guards_code_paths[k], g->prov.path) == 0) text = p->guards_code[k];
    b.what = sc_arena_printf(&ctx->arena, "the guard \"%s\"", text);
  } else if (strcmp(g->prov.rule, "range_constraints") == 0) {
    b.what = sc_arena_printf(&ctx->arena, "range_constraints' %s", g->text ? g->text : sizes_text(ctx, a, g->expr));
  } else if (g->prov.node == SC_PROV_SPEC) {
    b.file = a->spec->file;
    b.what = sc_arena_printf(&ctx->arena, "the spec's %s", sizes_text(ctx, a, g->expr));
  } else {
    b.what = sc_arena_printf(&ctx->arena, "the guard %s from %s", sizes_text(ctx, a, g->expr),
                             sc_env_where(&a->env, &g->prov));
  }
  return b;
}

/* Where the range a symbol is declared with comes from. */
static bound_src declared_src(sc_ctx *ctx, sc_analysis *a, const sc_symbol *s) {
  if (s->origin == SC_SYM_PROGRAM) {
    const sc_range *pr = program_range(ctx, a->program, sc_expr_sym(ctx, s->name));
    if (!pr) return (bound_src){NULL, NULL, NULL};
    return (bound_src){a->program->file, pr->path,
                       sc_arena_printf(&ctx->arena, "range_constraints' range of %s (%s) %s", s->name, sym_text(s),
                                       iv_text(ctx, as_iv(pr)))};
  }
  if (s->origin == SC_SYM_UNBACKED)
    return (bound_src){NULL, NULL,
                       sc_arena_printf(&ctx->arena, "%s (%s) being a size, at least 0", s->name, s->source ? s->source : "")};
  if (!a->spec->file) return (bound_src){NULL, NULL, NULL};
  const char *path = s->spec_path;
  for (size_t k = 0; s->dim && k < a->spec->n_roots; k++)
    if (strcmp(a->spec->roots[k].name, s->dim->name) == 0 && a->spec->roots[k].path) path = a->spec->roots[k].path;
  return (bound_src){a->spec->file, path,
                     sc_arena_printf(&ctx->arena, "the spec's range of %s %s", sym_text(s), iv_text(ctx, s->declared))};
}

static bound_src describe(sc_ctx *ctx, sc_analysis *a, const sym_bounds *sb, long from) {
  if (from >= 0) return guard_src(ctx, a, (size_t)from);
  if (from == FROM_DECLARED) return declared_src(ctx, a, sb->s);
  return (bound_src){NULL, NULL,
                     sc_arena_printf(&ctx->arena, "the range %s that shapec's shape rules need for %s",
                                     iv_text(ctx, rules_range(sb->s)), sym_text(sb->s))};
}

static bool counts(const sc_guard *g) {
  return g->outcome == SC_GUARD_INPUT || g->outcome == SC_GUARD_RUNTIME_ASSERT || g->outcome == SC_GUARD_RANGE;
}

static sym_bounds *find_bounds(bounds *b, const char *name) {
  for (size_t i = 0; i < b->n; i++)
    if (b->syms[i].s->name == name || strcmp(b->syms[i].s->name, name) == 0) return &b->syms[i];
  return NULL;
}

static void narrow(sym_bounds *sb, sc_range_iv r, long from) {
  if (r.lo > sb->r.lo) sb->r.lo = r.lo, sb->lo_from = from;
  if (r.hi < sb->r.hi) sb->r.hi = r.hi, sb->hi_from = from;
}

/* Every free symbol's range from its declaration, each guard linear in it alone, and the
 * range the rules leave it (what the library checks), with what sets each end. */
static void collect_bounds(sc_ctx *ctx, sc_analysis *a, bounds *b) {
  sc_shape_env *env = &a->env;
  b->a = a;
  b->syms = sc_arena_alloc(&ctx->arena, (env->n_symbols + 1) * sizeof *b->syms);
  b->n = 0;
  for (size_t i = 0; i < env->n_symbols; i++) {
    const sc_symbol *s = &env->symbols[i];
    if (!s->replacement) b->syms[b->n++] = (sym_bounds){s, as_checked(s, s->declared), FROM_DECLARED, FROM_DECLARED};
  }
  for (size_t i = 0; i < env->n_guards; i++) {
    if (!counts(&env->guards[i])) continue;
    const sc_expr *e = sc_env_resolve(env, env->guards[i].expr);
    uint32_t n = e->kind == SC_EXPR_AND ? e->n_args : 1;
    for (uint32_t k = 0; k < n; k++) {
      sc_range_iv r;
      const char *name = sc_env_linear_bound(env, e->kind == SC_EXPR_AND ? e->args[k] : e, &r);
      sym_bounds *sb = name ? find_bounds(b, name) : NULL;
      if (sb) narrow(sb, r, (long)i);
    }
  }
  for (size_t i = 0; i < b->n; i++) narrow(&b->syms[i], rules_range(b->syms[i].s), FROM_RULES);
}

static bool lookup_bounds(void *p, const char *name, sc_range_iv *out) {
  sym_bounds *sb = find_bounds(p, name);
  if (!sb) return false;
  *out = sb->r;
  return true;
}

static bool lookup_point(void *p, const char *name, int64_t *out) {
  sym_bounds *sb = find_bounds(p, name);
  if (!sb || sb->r.lo != sb->r.hi || sb->r.lo == SC_INT_OO || sb->r.lo == SC_NEG_INT_OO) return false;
  *out = sb->r.lo;
  return true;
}

/* Whether cond fails for every value the bounds allow. */
static bool never_holds(sc_ctx *ctx, bounds *b, const sc_expr *cond) {
  int64_t v;
  if (sc_expr_eval(cond, lookup_point, b, &v)) return v == 0;
  if (cond->kind >= SC_EXPR_EQ && cond->kind <= SC_EXPR_GE)
    cond = sc_expr_rel(ctx, cond->kind, sc_expr_sub(ctx, cond->args[0], cond->args[1]), sc_expr_int(ctx, 0));
  return sc_expr_decide(cond, lookup_bounds, b) == SC_FALSE;
}

/* "the guard "..." (guards_code[1])", with the file where it is not the diagnostic's. */
static const char *src_text(sc_ctx *ctx, const bound_src *s, const char *diag_file) {
  if (!s->path) return s->what;
  if (s->file && diag_file && strcmp(s->file, diag_file) != 0)
    return sc_arena_printf(&ctx->arena, "%s (%s: %s)", s->what, s->file, s->path);
  return sc_arena_printf(&ctx->arena, "%s (%s)", s->what, s->path);
}

static const char *conflict_hint(const sc_analysis *a) {
  return a->spec->file ? "make the spec's ranges agree with the program's guards, or export the model again with "
                         "this spec"
                       : "the program contradicts itself; export the model again";
}

/* A symbol the guards leave no value.  The diagnostic points at the later of the two
 * sources, the one that left nothing, and names the other. */
static void report_empty(sc_ctx *ctx, sc_analysis *a, const sym_bounds *sb) {
  bool hi_later = sb->hi_from >= sb->lo_from;
  bound_src at = describe(ctx, a, sb, hi_later ? sb->hi_from : sb->lo_from);
  bound_src other = describe(ctx, a, sb, hi_later ? sb->lo_from : sb->hi_from);
  if (!at.what) {
    bound_src t = at;
    at = other, other = t;
  }
  if (!at.what) at.what = "its range";
  const char *file = at.file ? at.file : other.file;
  const char *path = at.file ? at.path : other.path;
  const char *size = sym_text(sb->s);
  sc_diag *d;
  if (sb->lo_from >= 0 && sb->lo_from == sb->hi_from)
    d = impossible(ctx, file, path, conflict_hint(a), "no value of %s satisfies %s, so the program accepts no input (%s)",
                   size, src_text(ctx, &at, file), TORCH_FALSE_CHECK);
  else
    d = impossible(ctx, file, path, conflict_hint(a),
                   "%s contradicts %s: %s >= %lld and %s <= %lld leave %s no value, so the program accepts no input "
                   "(%s)", src_text(ctx, &at, file), other.what ? src_text(ctx, &other, file) : "its range", size,
                   (long long)sb->r.lo, size, (long long)sb->r.hi, size, TORCH_FALSE_CHECK);
  if (other.file && file && strcmp(other.file, file) != 0 && other.path) sc_diag_add_edit(&ctx->diags, d, other.file, other.path);
}

/* A guard that fails for every value the others leave its symbols. */
static void report_false_guard(sc_ctx *ctx, bounds *b, size_t gi) {
  sc_analysis *a = b->a;
  const sc_expr *e = sc_env_resolve(&a->env, a->env.guards[gi].expr);
  bound_src at = guard_src(ctx, a, gi);
  sc_strbuf sb = {0};
  const char *names[16], *spec_edits[32];
  int n = sc_expr_symbols(e, names, 16), n_edits = 0;
  for (int i = 0; i < n; i++) {
    const sym_bounds *s = find_bounds(b, names[i]);
    if (!s) continue;
    sc_strbuf_printf(&sb, "%s%s in %s", sb.len ? "; " : "", sym_text(s->s), iv_text(ctx, s->r));
    bound_src lo = describe(ctx, a, s, s->lo_from), hi = describe(ctx, a, s, s->hi_from);
    bool has_lo = lo.what && s->r.lo != SC_NEG_INT_OO, has_hi = hi.what && s->r.hi != SC_INT_OO;
    if (has_lo) sc_strbuf_printf(&sb, " by %s", src_text(ctx, &lo, at.file));
    if (has_hi && (!has_lo || s->hi_from != s->lo_from))
      sc_strbuf_printf(&sb, "%s%s", has_lo ? " and " : " by ", src_text(ctx, &hi, at.file));
    if (has_lo && lo.path && lo.file && a->spec->file && strcmp(lo.file, a->spec->file) == 0) spec_edits[n_edits++] = lo.path;
    if (has_hi && hi.path && hi.file && a->spec->file && strcmp(hi.file, a->spec->file) == 0) spec_edits[n_edits++] = hi.path;
  }
  sc_diag *d = impossible(ctx, at.file, at.path, conflict_hint(a),
                          "%s can never hold, so the program accepts no input: %s (%s)", src_text(ctx, &at, at.file),
                          sc_strbuf_cstr(&sb), TORCH_FALSE_CHECK);
  for (int i = 0; i < n_edits; i++) sc_diag_add_edit(&ctx->diags, d, a->spec->file, spec_edits[i]);
  sc_strbuf_free(&sb);
}

/* Violations that are the program's own contradiction (a guard on its own symbols or on
 * data-dependent ones that the ranges and facts rule out) are no fault of a spec: they
 * leave the violation list and become again the guards they are, for the check below. */
static size_t take_back_contradictions(sc_analysis *a, const sc_expr **taken, size_t cap) {
  sc_shape_env *env = &a->env;
  size_t kept = 0, n = 0;
  for (size_t i = 0; i < env->n_violations; i++) {
    const sc_violation *v = &env->violations[i];
    bool own = v->never_holds && v->guard;
    const char *names[16];
    int k = own ? sc_expr_symbols(v->guard, names, 16) : 0;
    for (int j = 0; j < k && own; j++) {
      const sc_symbol *s = sc_env_find(env, names[j]);
      own = s && (s->origin == SC_SYM_PROGRAM || s->origin == SC_SYM_UNBACKED);
    }
    if (!own || n == cap) {
      env->violations[kept++] = *v;
      continue;
    }
    taken[n++] = v->guard;
    for (size_t g = 0; g < env->n_guards; g++)
      if (env->guards[g].outcome == SC_GUARD_VIOLATION && env->guards[g].expr == v->guard)
        env->guards[g].outcome = sc_env_is_unbacked(env, v->guard) ? SC_GUARD_RUNTIME_ASSERT : SC_GUARD_INPUT;
  }
  env->n_violations = kept;
  return n;
}

/* Reports the program's contradictions: a symbol its ranges and guards leave no value, else
 * a guard its symbols' ranges rule out.  `taken`: guards the decisions found false, each
 * reported alone if the bounds do not show why. */
static void check_inputs_exist(sc_ctx *ctx, sc_analysis *a, const sc_expr *const *taken, size_t n_taken) {
  bounds b;
  collect_bounds(ctx, a, &b);
  size_t errors = ctx->diags.n_errors;
  for (size_t i = 0; i < b.n; i++)
    if (sc_iv_is_empty(b.syms[i].r)) report_empty(ctx, a, &b.syms[i]);
  if (ctx->diags.n_errors > errors) return;
  for (size_t i = 0; i < a->env.n_guards && ctx->diags.n_errors == errors; i++) {
    const sc_guard *g = &a->env.guards[i];
    if (g->outcome != SC_GUARD_INPUT && g->outcome != SC_GUARD_RUNTIME_ASSERT) continue;
    if (never_holds(ctx, &b, sc_env_resolve(&a->env, g->expr))) report_false_guard(ctx, &b, i);
  }
  for (size_t i = 0; i < n_taken && ctx->diags.n_errors == errors; i++)
    for (size_t g = 0; g < a->env.n_guards; g++)
      if (a->env.guards[g].expr == taken[i] && counts(&a->env.guards[g])) {
        report_false_guard(ctx, &b, g);
        break;
      }
}

bool sc_analysis_run(sc_ctx *ctx, const sc_program *p, const sc_dynspec *spec, sc_analysis *out) {
  memset(out, 0, sizeof *out);
  sc_env_init(&out->env, ctx);
  out->env.prefer_deferred_asserts = spec->prefer_deferred_asserts;
  size_t names = spec->n_roots;
  for (size_t i = 0; i < spec->n_roots; i++) names += spec->roots[i].n_derived;
  out->env.reserved = sc_arena_alloc(&ctx->arena, (names + 1) * sizeof *out->env.reserved);
  for (size_t i = 0; i < spec->n_roots; i++) {
    out->env.reserved[out->env.n_reserved++] = spec->roots[i].name;
    for (size_t k = 0; k < spec->roots[i].n_derived; k++) out->env.reserved[out->env.n_reserved++] = spec->roots[i].derived[k];
  }
  out->program = p;
  out->spec = spec;
  out->orient = spec->from_program ? NULL : sc_orient_derived_roots(ctx, spec);
  size_t errors_before = ctx->diags.n_errors;
  bool ok = true;
  if (spec->from_program) {
    if (!check_file_ranges(ctx, p)) return false;
    create_program_symbols(ctx, out);
  }
  for (size_t i = 0; i < spec->n_inputs; i++) {
    const sc_input_dims *in = &spec->inputs[i];
    if (in->value) {
      ok &= create_input_dims(ctx, out, in);
    } else if (in->int_value) {
      ok &= create_int_input(ctx, out, in);
    }
  }
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    sc_value *v = sc_input_spec_value(s);
    if (s->kind != SC_INPUT_USER && v && v->kind == SC_VALUE_TENSOR) ok &= create_state_dims(ctx, out, v);
  }
  if (!ok || !check_zero_divisors(ctx, out)) return false;
  set_untraced_floors(ctx, out);
  /* What tracing established: without a spec, facts the rules need not establish again;
   * with one, guards decided as torch decides its tracing's guards under that spec (a
   * Python `if` on a size narrows an AUTO dim, and violates a named Dim's range). */
  bool zero = false;
  for (int phase = 0; phase < 2; phase++)
    for (size_t i = 0; i < p->n_guards_code; i++) {
      const char *text;
      const sc_expr *cond = program_guard(ctx, p, i, false, &text, NULL);
      if (!cond || guard_phase(cond) != phase || (zero |= guard_divides_by_zero(ctx, p, i, cond))) continue;
      sc_provenance prov = guards_code_prov(p, i, text);
      if (spec->from_program) sc_env_add_fact(&out->env, cond);
      else sc_env_guard(&out->env, cond, &prov);
    }
  if (zero) return false;
  const sc_graph *g = p->graph;
  for (size_t i = 0; i < g->n_nodes; i++) {
    const sc_node *n = &g->nodes[i];
    sc_rule_ctx rc = {&out->env, ctx, p, n, {(int)i, n->name, n->target, n->path, "", NULL}, false};
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
      for (int k = 0; k < v->meta.rank; k++) {
        v->shape[k] = sc_env_resolve(&out->env, v->shape[k]);
        const sc_expr *shown = sc_env_as_traced(&out->env, v->shape[k]);
        if (shown == v->shape[k]) continue;
        if (!v->shown) {
          v->shown = sc_arena_alloc(&ctx->arena, (size_t)v->meta.rank * sizeof *v->shown);
          memcpy(v->shown, v->shape, (size_t)v->meta.rank * sizeof *v->shown);
        }
        v->shown[k] = shown;
      }
    if (v->sym) v->sym = sc_env_resolve(&out->env, v->sym);
  }
  mark_traced_floors(out);
  record_program_guards(ctx, out);
  if (!spec->from_program && out->completed) sc_flag_frozen_sizes(ctx, out);
  if (spec->from_program) {
    record_derived_ranges(ctx, out);
    if (out->completed) compare_with_metas(ctx, out);
  }
  sc_env_finalize(&out->env);
  const sc_expr *taken[16];
  size_t n_taken = take_back_contradictions(out, taken, 16);
  /* the program's own contradictions are reported in any case; looked for otherwise only
   * in a program the analysis accepts */
  if (n_taken || (!out->env.n_violations && out->completed && ctx->diags.n_errors == errors_before))
    check_inputs_exist(ctx, out, taken, n_taken);
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
  for (size_t i = 0; i < a->n_derived; i++) {
    sc_strbuf_append(sb, i ? "" : "\nDerived input sizes:\n");
    sc_strbuf_append(sb, "    ");
    sc_expr_print(sb, a->derived[i].expr);
    sc_strbuf_append(sb, " in ");
    sc_iv_print(sb, a->derived[i].range);
    sc_strbuf_append(sb, "\n");
  }
  size_t n_asserts = 0, n_input = 0;
  for (size_t i = 0; i < env->n_guards; i++) {
    n_asserts += env->guards[i].outcome == SC_GUARD_RUNTIME_ASSERT;
    n_input += env->guards[i].outcome == SC_GUARD_INPUT;
  }
  if (n_input) {
    sc_strbuf_append(sb, "\nInput guards (checked on every call):\n");
    for (size_t i = 0; i < env->n_guards; i++)
      if (env->guards[i].outcome == SC_GUARD_INPUT)
        sc_strbuf_printf(sb, "    %s  [%s]\n", env->guards[i].text, env->guards[i].prov.rule);
  }
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
