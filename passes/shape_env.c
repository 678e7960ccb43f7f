/* shape_env.c - symbols, guards and torch.export's decisions on them; see shape_env.h. */
#include "shape_env.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- symbols ---------------------------------------------------------------------- */

void sc_env_init(sc_shape_env *env, sc_ctx *ctx) {
  memset(env, 0, sizeof *env);
  env->ctx = ctx;
}

void sc_env_release(sc_shape_env *env) {
  free(env->symbols);
  free(env->guards);
  free(env->guarded);
  free(env->violations);
  free(env->facts);
  memset(env, 0, sizeof *env);
}

const char *sc_sym_origin_name(sc_sym_origin origin) {
  switch (origin) {
    case SC_SYM_AUTO: return "AUTO";
    case SC_SYM_DYNAMIC: return "DYNAMIC";
    case SC_SYM_NAMED: return "Dim";
    case SC_SYM_UNBACKED: return "unbacked";
    case SC_SYM_PROGRAM: return "program";
  }
  return "?";
}

sc_symbol *sc_env_find(sc_shape_env *env, const char *name) {
  for (size_t i = 0; i < env->n_symbols; i++)
    if (env->symbols[i].name == name || strcmp(env->symbols[i].name, name) == 0) return &env->symbols[i];
  return NULL;
}

sc_symbol *sc_env_add_symbol(sc_shape_env *env, const char *name, sc_sym_origin origin, sc_range_iv range) {
  if (env->n_symbols == env->cap_symbols) {
    env->cap_symbols = env->cap_symbols ? env->cap_symbols * 2 : 16;
    env->symbols = sc_xrealloc(env->symbols, env->cap_symbols * sizeof *env->symbols);
  }
  sc_symbol *s = &env->symbols[env->n_symbols++];
  memset(s, 0, sizeof *s);
  s->name = sc_ctx_intern(env->ctx, name);
  s->origin = origin;
  s->range = range;
  s->declared = range;
  return s;
}

static bool name_taken(sc_shape_env *env, const char *name);

const sc_expr *sc_env_new_unbacked(sc_shape_env *env, const char *source, bool size_like) {
  char name[32];
  do snprintf(name, sizeof name, "u%d", env->next_u++);
  while (name_taken(env, name));
  sc_symbol *s = sc_env_add_symbol(env, name, SC_SYM_UNBACKED, size_like ? sc_iv(0, SC_INT_OO) : sc_iv_full());
  s->source = sc_arena_strdup(&env->ctx->arena, source);
  return sc_expr_sym(env->ctx, s->name);
}

/* ---- evaluation ------------------------------------------------------------------- */

static bool lookup_range(void *p, const char *name, sc_range_iv *out) {
  sc_symbol *s = sc_env_find(p, name);
  if (!s) return false;
  *out = s->range;
  return true;
}

static bool lookup_hint(void *p, const char *name, int64_t *out) {
  sc_symbol *s = sc_env_find(p, name);
  if (!s || !s->has_hint) return false;
  *out = s->hint;
  return true;
}

const sc_expr *sc_env_resolve(sc_shape_env *env, const sc_expr *e) {
  const char *names[64];
  int n = sc_expr_symbols(e, names, 64);
  for (int i = 0; i < n; i++) {
    sc_symbol *s = sc_env_find(env, names[i]);
    if (s && s->replacement) e = sc_expr_subst(env->ctx, e, s->name, s->replacement);
  }
  return e;
}

sc_range_iv sc_env_range(sc_shape_env *env, const sc_expr *e) {
  return sc_expr_range(sc_env_resolve(env, e), lookup_range, env);
}

bool sc_env_hint(sc_shape_env *env, const sc_expr *e, int64_t *out) {
  return sc_expr_eval(sc_env_resolve(env, e), lookup_hint, env, out);
}

bool sc_env_is_unbacked(sc_shape_env *env, const sc_expr *e) {
  const char *names[64];
  int n = sc_expr_symbols(e, names, 64);
  for (int i = 0; i < n; i++) {
    sc_symbol *s = sc_env_find(env, names[i]);
    if (s && s->origin == SC_SYM_UNBACKED) return true;
  }
  return false;
}

/* A name a new symbol may not take: a symbol's, or a Dim's of the spec. */
static bool name_taken(sc_shape_env *env, const char *name) {
  for (size_t i = 0; i < env->n_reserved; i++)
    if (strcmp(env->reserved[i], name) == 0) return true;
  return sc_env_find(env, name) != NULL;
}

void sc_env_fresh_s(sc_shape_env *env, char name[32]) {
  do snprintf(name, 32, "s%d", env->next_s++);
  while (name_taken(env, name));
}

void sc_env_add_fact(sc_shape_env *env, const sc_expr *cond) {
  cond = sc_env_resolve(env, cond);
  if (cond->kind == SC_EXPR_AND) {
    for (uint32_t i = 0; i < cond->n_args; i++) sc_env_add_fact(env, cond->args[i]);
    return;
  }
  if (env->n_facts == env->cap_facts) {
    env->cap_facts = env->cap_facts ? env->cap_facts * 2 : 16;
    env->facts = sc_xrealloc(env->facts, env->cap_facts * sizeof *env->facts);
  }
  env->facts[env->n_facts++] = cond;
}

static const sc_expr *as_nonneg(sc_ctx *ctx, const sc_expr *cond);

/* A relation as `d >= 0`, `d == 0` or `d != 0`, with the sign of d fixed for the last
 * two, so that one fact matches every spelling of it (u0 <= s77 and s77 >= u0). */
static const sc_expr *normal_form(sc_ctx *ctx, const sc_expr *c) {
  switch (c->kind) {
    case SC_EXPR_GE:
    case SC_EXPR_GT:
    case SC_EXPR_LE:
    case SC_EXPR_LT: return sc_expr_rel(ctx, SC_EXPR_GE, as_nonneg(ctx, c), sc_expr_int(ctx, 0));
    case SC_EXPR_EQ:
    case SC_EXPR_NE: {
      const sc_expr *d = sc_expr_sub(ctx, c->args[0], c->args[1]), *nd = sc_expr_neg(ctx, d);
      return sc_expr_rel(ctx, c->kind, sc_expr_compare(d, nd) <= 0 ? d : nd, sc_expr_int(ctx, 0));
    }
    default: return c;
  }
}

/* Decides cond from the facts: one of them, its negation, or (for d >= 0) a fact
 * e >= 0 with d - e a constant. */
static sc_truth known_fact(sc_shape_env *env, const sc_expr *cond) {
  if (!env->n_facts) return SC_UNKNOWN;
  sc_ctx *ctx = env->ctx;
  const sc_expr *q = normal_form(ctx, cond);
  for (size_t i = 0; i < env->n_facts; i++) {
    const sc_expr *f = sc_env_resolve(env, env->facts[i]);
    if (f->kind == SC_EXPR_NOT) {
      if (normal_form(ctx, f->args[0]) == q) return SC_FALSE;
      continue;
    }
    f = normal_form(ctx, f);
    if (f == q) return SC_TRUE;
    if (f->n_args != 2 || q->n_args != 2) continue;
    if ((f->kind == SC_EXPR_EQ && q->kind == SC_EXPR_NE) || (f->kind == SC_EXPR_NE && q->kind == SC_EXPR_EQ)) {
      if (f->args[0] == q->args[0] && f->args[1] == q->args[1]) return SC_FALSE;
      continue;
    }
    if (f->kind != SC_EXPR_GE || q->kind != SC_EXPR_GE) continue;
    /* the relation builder may move constants to the right (u0 - 2 >= 0 is u0 >= 2):
     * compare the differences, not the left sides */
    const sc_expr *dq = sc_expr_sub(ctx, q->args[0], q->args[1]), *df = sc_expr_sub(ctx, f->args[0], f->args[1]);
    int64_t c;
    if (sc_expr_is_const(sc_expr_sub(ctx, dq, df), &c) && c >= 0) return SC_TRUE;
    /* q: d >= 0 and f: -d - c >= 0 with c > 0 cannot both hold */
    if (sc_expr_is_const(sc_expr_add(ctx, dq, df), &c) && c < 0) return SC_FALSE;
  }
  return SC_UNKNOWN;
}

/* Decides a relation from the facts, then from the range of lhs - rhs (canonical, so
 * s0 - s0 is 0). */
sc_truth sc_env_decide(sc_shape_env *env, const sc_expr *cond) {
  cond = sc_env_resolve(env, cond);
  sc_truth known = known_fact(env, cond);
  if (known != SC_UNKNOWN) return known;
  switch (cond->kind) {
    case SC_EXPR_TRUE: return SC_TRUE;
    case SC_EXPR_FALSE: return SC_FALSE;
    case SC_EXPR_EQ:
    case SC_EXPR_NE:
    case SC_EXPR_LT:
    case SC_EXPR_LE:
    case SC_EXPR_GT:
    case SC_EXPR_GE: {
      const sc_expr *d = sc_expr_sub(env->ctx, cond->args[0], cond->args[1]);
      const sc_expr *rel = sc_expr_rel(env->ctx, cond->kind, d, sc_expr_int(env->ctx, 0));
      return sc_expr_decide(rel, lookup_range, env);
    }
    default: return sc_expr_decide(cond, lookup_range, env);
  }
}

/* ---- recording -------------------------------------------------------------------- */

static size_t guarded_slot(const sc_shape_env *env, const sc_expr *e) {
  size_t mask = env->cap_guarded - 1, at = (size_t)(((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15ull) & mask;
  while (env->guarded[at] && env->guarded[at] != e) at = (at + 1) & mask;
  return at;
}

/* Notes that a guard holds condition e (the set of every condition a guard has held). */
static void note_guarded(sc_shape_env *env, const sc_expr *e) {
  if (2 * (env->n_guarded + 1) > env->cap_guarded) {
    const sc_expr **old = env->guarded;
    size_t old_cap = env->cap_guarded;
    env->cap_guarded = old_cap ? 2 * old_cap : 64;
    env->guarded = sc_xcalloc(env->cap_guarded, sizeof *env->guarded);
    env->n_guarded = 0;
    for (size_t i = 0; i < old_cap; i++)
      if (old[i]) env->guarded[guarded_slot(env, old[i])] = old[i], env->n_guarded++;
    free(old);
  }
  size_t at = guarded_slot(env, e);
  if (!env->guarded[at]) env->guarded[at] = e, env->n_guarded++;
}

/* Whether a guard with outcome holds condition e: the set answers "no" at once (a program
 * of 100,000 guards compared each with every earlier one), a scan the rest. */
static bool has_guard(const sc_shape_env *env, const sc_expr *e, sc_guard_outcome outcome) {
  if (!env->cap_guarded || !env->guarded[guarded_slot(env, e)]) return false;
  for (size_t i = 0; i < env->n_guards; i++)
    if (env->guards[i].outcome == outcome && env->guards[i].expr == e) return true;
  return false;
}

static void record(sc_shape_env *env, const sc_expr *e, sc_guard_outcome outcome, const sc_provenance *prov,
                   const char *symbol) {
  /* one runtime assert per condition, attributed to its first node */
  if (outcome == SC_GUARD_RUNTIME_ASSERT && has_guard(env, e, SC_GUARD_RUNTIME_ASSERT)) return;
  if (env->n_guards == env->cap_guards) {
    env->cap_guards = env->cap_guards ? env->cap_guards * 2 : 32;
    env->guards = sc_xrealloc(env->guards, env->cap_guards * sizeof *env->guards);
  }
  env->guards[env->n_guards++] = (sc_guard){e, outcome, *prov, symbol, NULL};
  note_guarded(env, e);
  /* a deferred runtime assert holds in the rest of the program, as in torch's ShapeEnv */
  if (outcome == SC_GUARD_RUNTIME_ASSERT) sc_env_add_fact(env, e);
}

void sc_env_input_guard(sc_shape_env *env, const sc_expr *cond, const char *text, const sc_provenance *prov) {
  if (has_guard(env, cond, SC_GUARD_INPUT)) return;
  record(env, cond, SC_GUARD_INPUT, prov, NULL);
  /* a guards_code entry fails with its own text, as in torch's module, even where the
   * analysis resolved it into other terms */
  env->guards[env->n_guards - 1].text = prov->shown ? prov->shown : text;
}

/* A condition over the inputs' sizes in Python's spelling: "(x.size()[0] % 2) == 0". */
static const char *input_text(sc_shape_env *env, const sc_expr *e);

sc_violation *sc_env_violation(sc_shape_env *env, const sc_provenance *prov, const sc_expr *guard, const char **fixes,
                               size_t n_fixes, const char *fmt, ...) {
  if (env->n_violations == env->cap_violations) {
    env->cap_violations = env->cap_violations ? env->cap_violations * 2 : 8;
    env->violations = sc_xrealloc(env->violations, env->cap_violations * sizeof *env->violations);
  }
  sc_violation *v = &env->violations[env->n_violations++];
  va_list ap;
  va_start(ap, fmt);
  v->message = sc_arena_vprintf(&env->ctx->arena, fmt, ap);
  va_end(ap);
  v->fixes = sc_arena_alloc(&env->ctx->arena, (n_fixes ? n_fixes : 1) * sizeof *v->fixes);
  for (size_t i = 0; i < n_fixes; i++) v->fixes[i] = sc_arena_strdup(&env->ctx->arena, fixes[i]);
  v->n_fixes = n_fixes;
  v->prov = *prov;
  v->guard = guard;
  v->fix = (sc_fix){.kind = SC_FIX_NONE};
  /* by default the guard's first size names it; callers that know the Dim say so */
  v->label = NULL;
  v->note = NULL;
  v->never_holds = false;
  v->hint_conflict = NULL;
  const char *names[1];
  if (guard && sc_expr_symbols(guard, names, 1)) {
    sc_symbol *s = sc_env_find(env, names[0]);
    v->label = s && s->origin != SC_SYM_NAMED && s->source ? s->source : names[0];
  }
  if (guard) record(env, guard, SC_GUARD_VIOLATION, prov, NULL);
  return v;
}

/* ---- helpers over canonical sums ------------------------------------------------- */

static const char *expr_str(sc_shape_env *env, const sc_expr *e) { return sc_expr_to_string(env->ctx, e); }

const char *sc_env_where(sc_shape_env *env, const sc_provenance *prov) {
  if (prov->node == SC_PROV_SPEC) return "the dynamic_shapes spec";
  if (prov->node == SC_PROV_GUARDS_CODE) return "the program's guards_code";
  return sc_arena_printf(&env->ctx->arena, "node '%s' (%s, %s rule)", prov->node_name, prov->op, prov->rule);
}

/* Splits a term into coefficient and monomial (NULL for a constant). */
static const sc_expr *term_split(sc_ctx *ctx, const sc_expr *t, int64_t *coeff) {
  if (t->kind == SC_EXPR_INT) {
    *coeff = t->value;
    return NULL;
  }
  if (t->kind == SC_EXPR_MUL && t->args[0]->kind == SC_EXPR_INT) {
    *coeff = t->args[0]->value;
    const sc_expr *m = t->args[1];
    for (uint32_t i = 2; i < t->n_args; i++) m = sc_expr_mul(ctx, m, t->args[i]);
    return m;
  }
  *coeff = 1;
  return t;
}

/* If e is a*s + b for one symbol s, returns s and sets a, b. */
static const sc_expr *as_linear(sc_ctx *ctx, const sc_expr *e, int64_t *a, int64_t *b) {
  const sc_expr *sym = NULL;
  *a = 0;
  *b = 0;
  uint32_t n = e->kind == SC_EXPR_ADD ? e->n_args : 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t c;
    const sc_expr *m = term_split(ctx, e->kind == SC_EXPR_ADD ? e->args[i] : e, &c);
    if (!m) {
      *b += c;
    } else if (m->kind == SC_EXPR_SYM && (!sym || sym == m)) {
      sym = m;
      *a += c;
    } else {
      return NULL;
    }
  }
  return *a ? sym : NULL;
}

static int64_t ceil_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) q++;
  return q;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static const char *range_str(sc_shape_env *env, sc_range_iv r) {
  sc_strbuf sb = {0};
  sc_iv_print(&sb, r);
  const char *s = sc_arena_strdup(&env->ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return s;
}

/* The spec's range as torch words it after "in the specified range": "4 <= dx <= 16",
 * "dx <= 1024", "3 <= dx", or nothing for the default [2, int_oo] (a lower bound up to 2 is
 * the default). */
static const char *spec_range_text(sc_shape_env *env, const char *name, sc_range_iv r) {
  bool lo = r.lo > 2, hi = r.hi != SC_INT_OO;
  if (!lo && !hi) return "";
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, " ");
  if (lo) sc_strbuf_printf(&sb, "%lld <= ", (long long)r.lo);
  sc_strbuf_append(&sb, name);
  if (hi) sc_strbuf_printf(&sb, " <= %lld", (long long)r.hi);
  const char *s = sc_arena_strdup(&env->ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return s;
}

/* "dx = Dim('dx', min=4, max=256)" as torch's prettify_results writes it: no min of 2
 * (tracing's floor), no unbounded max, except that the new root of a divisibility fix
 * always states its max ("_dx = Dim('_dx', max=oo)"). */
static const char *dim_fix(sc_shape_env *env, const char *name, sc_range_iv r) {
  if (r.lo == r.hi) return sc_arena_printf(&env->ctx->arena, "%s = %lld", name, (long long)r.lo); /* one value left */
  sc_strbuf sb = {0};
  sc_strbuf_printf(&sb, "%s = Dim('%s'", name, name);
  if (r.lo != 2) sc_strbuf_printf(&sb, ", min=%lld", (long long)r.lo);
  if (r.hi != SC_INT_OO) sc_strbuf_printf(&sb, ", max=%lld", (long long)r.hi);
  else if (name[0] == '_') sc_strbuf_append(&sb, ", max=oo");
  sc_strbuf_append(&sb, ")");
  const char *s = sc_arena_strdup(&env->ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return s;
}

/* The name a user writes for a symbol: its Dim name, else its source. */
static const char *user_name(const sc_symbol *s) { return s->source ? s->source : s->name; }

/* ---- replacements ----------------------------------------------------------------- */

/* A size as torch's suggestions write it: L['y'].size()[1], L['d']['y'].size()[0]. */
const char *sc_env_torch_source(sc_shape_env *env, const char *source) {
  size_t n = strcspn(source, ".[");
  return sc_arena_printf(&env->ctx->arena, "L['%.*s']%s", (int)n, source, source + n);
}

/* An AUTO or DYNAMIC size of a later input that turns out to be an earlier named Dim: torch
 * suggests naming it so in the spec (L['y'].size()[1] = dx), a line of its "Suggested
 * fixes:" when there is a violation.  (Where the DYNAMIC size comes first, torch keeps its
 * symbol and the Dim's name is lost; shapec keeps the Dim and suggests nothing.) */
static void suggest_naming(sc_shape_env *env, const sc_symbol *s, const sc_expr *r) {
  int64_t a, b;
  const sc_expr *t = as_linear(env->ctx, r, &a, &b);
  sc_symbol *dim = t ? sc_env_find(env, t->name) : NULL;
  if ((s->origin == SC_SYM_DYNAMIC || s->origin == SC_SYM_AUTO) && dim && dim->origin == SC_SYM_NAMED && s < dim &&
      a == 1 && b == 0) {
    dim->unnamed_in_torch = true; /* torch keeps the earlier size's symbol: the Dim's name is gone */
    dim->unnamed_as = s->source; /* shapec's form, x.size()[1]: messages write it as torch does */
  }
  if ((s->origin != SC_SYM_DYNAMIC && s->origin != SC_SYM_AUTO) || !s->source || !dim || dim->origin != SC_SYM_NAMED ||
      dim > s ||
      env->n_suggestions == SC_MAX_SUGGESTIONS)
    return;
  env->suggestions[env->n_suggestions++] =
      sc_arena_printf(&env->ctx->arena, "%s = %s", sc_env_torch_source(env, s->source), expr_str(env, r));
}

static void set_replacement(sc_shape_env *env, sc_symbol *s, const sc_expr *r, const sc_expr *guard,
                            const sc_provenance *prov) {
  suggest_naming(env, s, r);
  s->replacement = r;
  s->replaced_at = *prov;
  s->replaced_guard = guard;
  for (size_t i = 0; i < env->n_symbols; i++) {
    sc_symbol *o = &env->symbols[i];
    if (o != s && o->replacement) o->replacement = sc_expr_subst(env->ctx, o->replacement, s->name, r);
  }
}

/* A guard narrowed a named Dim's range.  The fix, one Dim(...) with the final range, is
 * filled in by sc_env_finalize once every guard is known. */
static void named_range_violation(sc_shape_env *env, sc_symbol *s, const sc_expr *e, const sc_provenance *prov) {
  /* the sentence names the final range, which sc_env_finalize knows */
  sc_violation *vi = sc_env_violation(env, prov, e, NULL, 0, "%s", "");
  vi->label = s->name;
  vi->fix = (sc_fix){.kind = SC_FIX_DIM_RANGE, .dim = s->name};
}

/* torch states the range of a Dim made equal to another (dy = dx) as both Dims' ranges
 * together, and the new root of a divisibility (_dx) from the Dim's final range: so
 * these lines are written once every guard is known. */
static void finalize_relations(sc_shape_env *env) {
  for (size_t i = 0; i < env->n_violations; i++) {
    sc_violation *v = &env->violations[i];
    if (v->fix.kind == SC_FIX_DIM_DIVISIBLE) {
      sc_symbol *s = sc_env_find(env, v->fix.dim);
      int64_t m = v->fix.a;
      if (!s || m <= 1 || !v->n_fixes) continue;
      /* a Dim made equal to another has both ranges (torch: _s0 in [4, 5] for s0 in [0, 1024]
       * equal to d1 in [7, 10], test/diff p102189) */
      sc_range_iv sr = s->range;
      for (size_t j = 0; j < env->n_symbols; j++) {
        const sc_symbol *t = &env->symbols[j];
        if (t->replacement && t->replacement->kind == SC_EXPR_SYM && strcmp(t->replacement->name, s->name) == 0)
          sr = sc_iv_intersect(sr, t->range);
      }
      if (sc_iv_is_empty(sr)) sr = s->range;
      sc_range_iv r = {sr.lo == SC_NEG_INT_OO ? SC_NEG_INT_OO : ceil_div(sr.lo, m),
                       sr.hi == SC_INT_OO ? SC_INT_OO : floor_div(sr.hi, m)};
      v->fixes[0] = dim_fix(env, v->fix.other, r);
    } else if (v->fix.kind == SC_FIX_DIM_RELATE && v->fix.a == 1 && v->fix.b == 0 && v->n_fixes == 1) {
      sc_symbol *s = sc_env_find(env, v->fix.dim), *t = sc_env_find(env, v->fix.other);
      if (!s || !t || t->origin != SC_SYM_NAMED) continue;
      sc_range_iv both = sc_iv_intersect(s->range, t->range);
      if (sc_iv_is_empty(both) || (s->range.lo == t->range.lo && s->range.hi == t->range.hi)) continue;
      bool ranged = false; /* a range violation of t states its final range already */
      for (size_t j = 0; j < env->n_violations; j++)
        ranged |= env->violations[j].fix.kind == SC_FIX_DIM_RANGE && strcmp(env->violations[j].fix.dim, t->name) == 0;
      if (ranged) continue;
      if (both.lo != t->range.lo || both.hi != t->range.hi) {
        const char **fixes = sc_arena_alloc(&env->ctx->arena, 2 * sizeof *fixes);
        fixes[0] = dim_fix(env, t->name, both);
        fixes[1] = v->fixes[0];
        v->fixes = fixes;
        v->n_fixes = 2;
      }
      /* and, as torch, a bullet (and a name in the header) for t wherever the two Dims'
       * ranges differ, with the range they share; its fix is the line above, if any (test/diff
       * p244, p83) */
      sc_provenance prov = v->prov;
      const sc_expr *guard = v->guard;
      const char *src = user_name(t);
      const char *hi = both.hi == SC_INT_OO ? "IntInfinity()" : sc_arena_printf(&env->ctx->arena, "%lld", (long long)both.hi);
      sc_violation *r = sc_env_violation(env, &prov, guard, NULL, 0,
                                         "Not all values of %s = %s in the specified range%s satisfy the generated "
                                         "guard %lld <= %s and %s <= %s", t->name, src,
                                         spec_range_text(env, t->name, t->declared), (long long)both.lo, src, src, hi);
      r->label = t->name;
    }
  }
}

/* Guards that left a named Dim a single value c: torch reports it as specialized to c (its
 * sentence for a Dim marked dynamic, as in test/diff p60053: `% 2 == 0` and `<= 2` on a Dim
 * of min 2) with the fix "dx = c", and a divisibility c satisfies is then no violation, nor
 * its new root (no "_dx = 1"). */
/* A derived size torch writes its Dim in (derived_roots.h) is named as the spec writes it
 * ("r - 1"); the fixes are the Dim's, its values shifted (the Dim = the size + dim_offset),
 * and none for a phantom Dim, as torch suggests none. */
static const char *dim_label(const sc_symbol *s) { return s->label ? s->label : s->unnamed_as ? s->unnamed_as : s->name; }
static const char *fix_dim_name(const sc_symbol *s) { return s->label ? s->dim->name : s->name; }
static bool fixable(const sc_symbol *s) { return !s->unnamed_in_torch && !(s->label && s->phantom); }

static int64_t shift(int64_t v, int64_t by) { return v == SC_INT_OO || v == SC_NEG_INT_OO ? v : v + by; }

/* A DYNAMIC size that an equality made named Dim s is a constant too when s becomes c, and
 * torch says so of it as well (k.size()[0] == x.size()[1] = s0, then s0 == 2: "You marked
 * L['k'].size()[0] as dynamic but ...", test/diff p103293). */
static void specialize_followers(sc_shape_env *env, const sc_symbol *s, int64_t c, const sc_provenance *prov,
                                 const sc_expr *guard) {
  const sc_expr *self = sc_expr_sym(env->ctx, s->name);
  for (size_t i = 0; i < env->n_symbols; i++) {
    sc_symbol *d = &env->symbols[i];
    if (d->origin != SC_SYM_DYNAMIC || d->replacement != self) continue;
    sc_violation *dv = sc_env_violation(env, prov, guard, NULL, 0, SC_SPECIALIZED_SENTENCE,
                                        d->source ? sc_env_torch_source(env, d->source) : d->name, (long long)c);
    dv->label = user_name(d);
    dv->fix = (sc_fix){.kind = SC_FIX_STATIC_LEAF, .spec_path = d->spec_path, .value = c};
  }
}

static void pin(sc_shape_env *env, sc_violation *v, sc_symbol *s, int64_t c) {
  v->message = sc_arena_printf(&env->ctx->arena, SC_SPECIALIZED_SENTENCE, dim_label(s), (long long)c);
  v->fixes = sc_arena_alloc(&env->ctx->arena, sizeof *v->fixes);
  v->fixes[0] = sc_arena_printf(&env->ctx->arena, "%s = %lld", fix_dim_name(s), (long long)(c + s->dim_offset));
  v->n_fixes = fixable(s);
  v->label = dim_label(s);
  v->fix = (sc_fix){.kind = SC_FIX_DIM_VALUE, .dim = fix_dim_name(s), .value = c + s->dim_offset};
  sc_provenance prov = v->prov; /* v moves when the violations grow */
  specialize_followers(env, s, c, &prov, v->guard);
}

/* Violations over a derived size's symbol that another path wrote in its own name: named
 * as torch names them, with no fix (the lines above know the Dim's shift; others do not). */
static void relabel_derived_bases(sc_shape_env *env) {
  for (size_t i = 0; i < env->n_symbols; i++) {
    const sc_symbol *s = &env->symbols[i];
    if (!s->label) continue;
    for (size_t j = 0; j < env->n_violations; j++) {
      sc_violation *v = &env->violations[j];
      if (v->label && strcmp(v->label, s->name) == 0) v->label = s->label;
      if (v->fix.dim && strcmp(v->fix.dim, s->name) == 0) {
        v->fix = (sc_fix){.kind = SC_FIX_NONE};
        v->n_fixes = 0;
      }
    }
  }
}

/* Violations over a Dim that torch folded into an earlier AUTO or DYNAMIC size name that
 * size, whenever the folding came (Constraints violated (L['x'].size()[2])!). */
static void relabel_unnamed(sc_shape_env *env) {
  for (size_t j = 0; j < env->n_violations; j++) {
    sc_violation *v = &env->violations[j];
    const sc_symbol *s = v->label ? sc_env_find(env, v->label) : NULL;
    if (s && s->origin == SC_SYM_NAMED && s->unnamed_in_torch && s->unnamed_as && !s->label) v->label = s->unnamed_as;
  }
}

/* Divisibilities of a Dim left one value that is a multiple: no violation (see pin). */
static void drop_met_divisibilities(sc_shape_env *env) {
  size_t kept = 0;
  for (size_t j = 0; j < env->n_violations; j++) {
    const sc_violation *d = &env->violations[j];
    const sc_symbol *s = d->fix.kind == SC_FIX_DIM_DIVISIBLE ? sc_env_find(env, d->fix.dim) : NULL;
    bool met = s && s->range.lo == s->range.hi && s->range.lo != SC_NEG_INT_OO && s->range.lo != SC_INT_OO &&
               d->fix.a > 0 && s->range.lo % d->fix.a == 0;
    if (!met) env->violations[kept++] = *d;
  }
  env->n_violations = kept;
}

static void solver_specializations(sc_shape_env *env);

/* Beside other violations, torch's solver names every Dim whose range tracing left one
 * value (Dim('d1', min=1, max=2), from 2 up: `d1 = 2`, test/diff p103258) and every Dim it
 * unified with another's derived size (`s1 = 2*r2`, p103247), lines of the first
 * violation's fixes. */
static void add_solver_side_fixes(sc_shape_env *env) {
  if (!env->n_violations) return;
  sc_violation *first = &env->violations[0];
  for (size_t i = 0; i < env->n_symbols; i++) {
    const sc_symbol *s = &env->symbols[i];
    if (s->origin != SC_SYM_NAMED || s->phantom || s->unnamed_in_torch || s->label) continue;
    /* a Dim made another's derived size (s1 = 2*r2: torch unifies it without a violation) */
    int64_t a = 1, b = 0;
    const sc_expr *t = s->replacement ? as_linear(env->ctx, s->replacement, &a, &b) : NULL;
    const sc_symbol *ts = t ? sc_env_find(env, t->name) : NULL;
    bool related = ts && (ts->origin == SC_SYM_NAMED || ts->dim) && (a != 1 || b != 0);
    bool single = !s->replacement && s->range.lo == s->range.hi && s->range.lo != SC_NEG_INT_OO &&
                  s->declared.lo < s->declared.hi;
    if (!related && !single) continue;
    size_t len = strlen(s->name);
    bool named = false;
    for (size_t v = 0; v < env->n_violations && !named; v++)
      for (size_t k = 0; k < env->violations[v].n_fixes && !named; k++)
        named = strncmp(env->violations[v].fixes[k], s->name, len) == 0 && env->violations[v].fixes[k][len] == ' ';
    if (named) continue;
    const char **grown = sc_arena_alloc(&env->ctx->arena, (first->n_fixes + 1) * sizeof *grown);
    if (first->n_fixes) memcpy(grown, first->fixes, first->n_fixes * sizeof *grown);
    grown[first->n_fixes++] = related ? sc_arena_printf(&env->ctx->arena, "%s = %s", s->name, expr_str(env, s->replacement))
                                      : sc_arena_printf(&env->ctx->arena, "%s = %lld", s->name, (long long)s->range.lo);
    first->fixes = grown;
  }
}

void sc_env_finalize(sc_shape_env *env) {
  finalize_relations(env);
  /* guards on the inputs in the final symbols: one recorded before a replacement of its
   * symbol (s0 % 2 != 0, then s0 == 3) is over what the inputs give */
  for (size_t i = 0; i < env->n_guards; i++) {
    sc_guard *g = &env->guards[i];
    if (g->outcome == SC_GUARD_RUNTIME_ASSERT) {
      /* likewise a run-time check of sizes a later equality replaced: T5's guards_code with
       * AUTO dims, x.size(1) <= mask.size(1) before mask.size(1) == x.size(1), whose symbol
       * the library no longer computes */
      const sc_expr *e = sc_env_resolve(env, g->expr);
      if (e->kind == SC_EXPR_TRUE) g->outcome = SC_GUARD_TRUE;
      if (e->kind == SC_EXPR_TRUE || !sc_env_is_unbacked(env, g->expr)) g->expr = e;
      continue;
    }
    if (g->outcome != SC_GUARD_INPUT) continue;
    g->expr = sc_env_resolve(env, g->expr);
    note_guarded(env, g->expr);
    if (g->expr->kind == SC_EXPR_TRUE) g->outcome = SC_GUARD_TRUE;
  }
  for (size_t i = 0; i < env->n_violations; i++) {
    sc_violation *v = &env->violations[i];
    if (v->fix.kind != SC_FIX_DIM_RANGE) continue;
    sc_symbol *s = sc_env_find(env, v->fix.dim);
    sc_range_iv r = s->range;
    if (r.lo == r.hi && r.lo != SC_NEG_INT_OO && r.lo != SC_INT_OO) { /* the guards left it one value */
      pin(env, v, s, r.lo);
      continue;
    }
    /* torch's line leaves out the min of 2 that tracing assumed; the spec --fix-spec
     * writes keeps the declared min instead, which that assumption is not a fact about.
     * A Dim that torch lost to an earlier AUTO or DYNAMIC size gets no line there. */
    v->fixes = sc_arena_alloc(&env->ctx->arena, sizeof *v->fixes);
    v->fixes[0] = dim_fix(env, fix_dim_name(s), (sc_range_iv){shift(r.lo, s->dim_offset), shift(r.hi, s->dim_offset)});
    v->n_fixes = fixable(s);
    v->label = dim_label(s);
    if (r.lo == 2 && s->declared.lo < 2) r.lo = s->declared.lo;
    v->fix.dim = fix_dim_name(s);
    v->fix.min = shift(r.lo, s->dim_offset);
    v->fix.max = shift(r.hi, s->dim_offset);
    v->fix.has_max = r.hi != SC_INT_OO;
    /* torch states the range its guards allow, over the input: "2 <= x.size()[0] and
     * x.size()[0] <= 9", an unbounded end written IntInfinity() */
    const char *src = user_name(s);
    const char *hi = r.hi == SC_INT_OO ? "IntInfinity()" : sc_arena_printf(&env->ctx->arena, "%lld", (long long)r.hi);
    v->message = sc_arena_printf(&env->ctx->arena,
                                 "Not all values of %s = %s in the specified range%s satisfy the generated guard "
                                 "%lld <= %s and %s <= %s",
                                 dim_label(s), src, spec_range_text(env, dim_label(s), s->declared),
                                 (long long)s->range.lo, src, src, hi);
  }
  relabel_derived_bases(env);
  relabel_unnamed(env);
  drop_met_divisibilities(env);
  solver_specializations(env);
  add_solver_side_fixes(env);
}

/* s is about to become r: refine the range of r's one symbol from s's range. */
static void carry_range(sc_shape_env *env, sc_symbol *s, const sc_expr *r, const sc_expr *guard,
                        const sc_provenance *prov) {
  int64_t a, b;
  const sc_expr *t = as_linear(env->ctx, r, &a, &b);
  if (!t) return;
  sc_symbol *ts = sc_env_find(env, t->name);
  if (!ts) return;
  sc_range_iv want = s->range, got = ts->range;
  /* a*t + b in [lo, hi] */
  int64_t lo = want.lo, hi = want.hi;
  sc_range_iv bound = sc_iv_full();
  if (a > 0) {
    if (lo != SC_NEG_INT_OO) bound.lo = ceil_div(lo - b, a);
    if (hi != SC_INT_OO) bound.hi = floor_div(hi - b, a);
  } else {
    if (hi != SC_INT_OO) bound.lo = ceil_div(hi - b, a);
    if (lo != SC_NEG_INT_OO) bound.hi = floor_div(lo - b, a);
  }
  ts->range = sc_iv_intersect(got, bound);
  if (ts->origin == SC_SYM_NAMED && (ts->range.lo > got.lo || ts->range.hi < got.hi))
    named_range_violation(env, ts, guard, prov);
}

/* s = r with r a sum of several sizes (k = m + dy: torch.cat([x, y]) + z with Dims on
 * all three): torch replaces s by the sum, so s's range bounds the sum and the sum's
 * bounds s.  Each size of the sum gets the range the others leave it (m <= 1024 - 2, a
 * size being 2 at least as torch takes it), s the range the sum can reach (k >= 4); a
 * named Dim narrowed so is a violation whose fix is its new range, as in torch. */
static void carry_range_sum(sc_shape_env *env, sc_symbol *s, const sc_expr *r, const sc_expr *guard,
                            const sc_provenance *prov) {
  enum { MAX_TERMS = 16 };
  sc_symbol *ts[MAX_TERMS];
  int64_t cs[MAX_TERMS], b = 0;
  int n = 0;
  uint32_t nt = r->kind == SC_EXPR_ADD ? r->n_args : 1;
  for (uint32_t i = 0; i < nt; i++) {
    const sc_expr *t = r->kind == SC_EXPR_ADD ? r->args[i] : r;
    int64_t c;
    const sc_expr *m = term_split(env->ctx, t, &c);
    if (!m) { /* the constant */
      b = c;
      continue;
    }
    if (m->kind != SC_EXPR_SYM || n == MAX_TERMS || c == 0 || c == INT64_MIN) return;
    sc_symbol *ms = sc_env_find(env, m->name);
    if (!ms || ms->origin == SC_SYM_UNBACKED || ms->origin == SC_SYM_PROGRAM) return;
    ts[n] = ms;
    cs[n++] = c;
  }
  if (n < 2) return;
  /* each term's interval (sizes from 2, as torch takes them), in saturating arithmetic */
  sc_range_iv term[MAX_TERMS];
  for (int i = 0; i < n; i++) {
    sc_range_iv size = {ts[i]->range.lo < 2 ? 2 : ts[i]->range.lo, ts[i]->range.hi};
    term[i] = sc_iv_mul(sc_iv_point(cs[i]), size);
  }
  sc_range_iv want = s->range, sum = sc_iv_point(b);
  for (int i = 0; i < n; i++) sum = sc_iv_add(sum, term[i]);
  sc_symbol *narrowed[MAX_TERMS + 1];
  int n_narrowed = 0;
  sc_range_iv before = s->range;
  s->range = sc_iv_intersect(s->range, sum); /* s: what the sum reaches */
  if (s->origin == SC_SYM_NAMED && (s->range.lo > before.lo || s->range.hi < before.hi)) narrowed[n_narrowed++] = s;
  for (int i = 0; i < n; i++) { /* each size: s's range less what the others can add */
    sc_range_iv others = sc_iv_point(b);
    for (int j = 0; j < n; j++)
      if (j != i) others = sc_iv_add(others, term[j]);
    sc_range_iv neg = {others.hi == SC_INT_OO ? SC_NEG_INT_OO : -others.hi,
                       others.lo == SC_NEG_INT_OO ? SC_INT_OO : -others.lo};
    sc_range_iv ct = sc_iv_add(want, neg); /* c*t */
    sc_range_iv bound = sc_iv_full();
    bool lo_inf = ct.lo == SC_NEG_INT_OO, hi_inf = ct.hi == SC_INT_OO;
    if (cs[i] > 0) {
      if (!lo_inf) bound.lo = ceil_div(ct.lo, cs[i]);
      if (!hi_inf) bound.hi = floor_div(ct.hi, cs[i]);
    } else {
      if (!hi_inf) bound.lo = ceil_div(ct.hi, cs[i]);
      if (!lo_inf) bound.hi = floor_div(ct.lo, cs[i]);
    }
    sc_range_iv got = ts[i]->range;
    ts[i]->range = sc_iv_intersect(got, bound);
    if (ts[i]->origin == SC_SYM_NAMED && (ts[i]->range.lo > got.lo || ts[i]->range.hi < got.hi))
      narrowed[n_narrowed++] = ts[i];
  }
  /* torch states them in the order the sizes were made: the inputs' order */
  for (int i = 1; i < n_narrowed; i++)
    for (int j = i; j > 0 && narrowed[j] < narrowed[j - 1]; j--) {
      sc_symbol *t = narrowed[j];
      narrowed[j] = narrowed[j - 1];
      narrowed[j - 1] = t;
    }
  for (int i = 0; i < n_narrowed; i++) named_range_violation(env, narrowed[i], guard, prov);
}

/* Decides what replacing symbol s by r means under s's marking; returns false when it is
 * a violation (recorded). */
static bool check_replacement(sc_shape_env *env, sc_symbol *s, const sc_expr *r, const sc_expr *guard,
                              const sc_provenance *prov) {
  int64_t v;
  if (sc_expr_is_const(r, &v)) {
    if (v < s->range.lo || v > s->range.hi) {
      const char *fix = s->dim ? sc_arena_printf(&env->ctx->arena, "%s = %lld", s->dim->name, (long long)v) : NULL;
      sc_violation *vi = sc_env_violation(env, prov, guard, fix ? &fix : NULL, fix ? 1 : 0,
                       "Not all values of %s = %s in the specified range%s satisfy the generated guard %s: it must "
                       "be %lld, outside its range %s", s->dim ? s->dim->name : user_name(s), user_name(s),
                       spec_range_text(env, s->dim ? s->dim->name : user_name(s), s->declared),
                       input_text(env, guard), (long long)v, range_str(env, s->range));
      vi->label = s->dim ? s->dim->name : user_name(s);
      if (s->dim) vi->fix = (sc_fix){.kind = SC_FIX_DIM_VALUE, .dim = s->dim->name, .value = v};
      else if (s->spec_path) vi->fix = (sc_fix){.kind = SC_FIX_STATIC_LEAF, .spec_path = s->spec_path, .value = v};
      return false;
    }
    if (s->origin == SC_SYM_DYNAMIC) {
      /* torch suggests nothing here (a DYNAMIC hint has no name to pin); --fix-spec still
       * writes the value */
      sc_violation *vi = sc_env_violation(env, prov, guard, NULL, 0, SC_SPECIALIZED_SENTENCE,
                                          s->source ? sc_env_torch_source(env, s->source) : s->name,
                                          (long long)v);
      vi->label = user_name(s);
      vi->fix = (sc_fix){.kind = SC_FIX_STATIC_LEAF, .spec_path = s->spec_path, .value = v};
      return false;
    }
    if (s->origin == SC_SYM_NAMED) {
      const char *fix = sc_arena_printf(&env->ctx->arena, "%s = %lld", fix_dim_name(s), (long long)(v + s->dim_offset));
      sc_violation *vi = sc_env_violation(env, prov, guard, &fix, fixable(s), SC_SPECIALIZED_SENTENCE, dim_label(s),
                                          (long long)v);
      vi->label = dim_label(s);
      vi->fix = (sc_fix){.kind = SC_FIX_DIM_VALUE, .dim = fix_dim_name(s), .value = v + s->dim_offset};
      specialize_followers(env, s, v, prov, guard);
      return false;
    }
    if (s->phantom_text) {
      /* a phantom Dim made a constant: torch names its derived size, with no fix (test/diff
       * p100394: unbind over r0 + 1) */
      sc_violation *vi = sc_env_violation(env, prov, guard, NULL, 0, SC_SPECIALIZED_SENTENCE, s->phantom_text,
                                          (long long)(s->phantom_a * v + s->phantom_b));
      vi->label = s->phantom_text;
      vi->fix = (sc_fix){.kind = SC_FIX_STATIC_LEAF, .spec_path = s->spec_path, .value = s->phantom_a * v + s->phantom_b};
      return false;
    }
    return true;
  }
  if (s->origin != SC_SYM_NAMED) return true;
  /* a named Dim may only become an expression of another root Dim the spec declares */
  int64_t a, b;
  const sc_expr *t = as_linear(env->ctx, r, &a, &b);
  sc_symbol *ts = t ? sc_env_find(env, t->name) : NULL;
  /* a Dim may follow an AUTO or DYNAMIC dim without complaint: torch 2.14 (and 2.6) write
   * y = 2*s for torch.cat([x, x]) + y with y's Dim dy, and x = 2*s for
   * torch._check(x.shape[0] == 2 * xs[1].shape[0]) (test/diff p90012) */
  if (ts && (ts->origin == SC_SYM_AUTO || ts->origin == SC_SYM_DYNAMIC)) return true;
  if (ts && ts->origin == SC_SYM_NAMED && a == 1 && b == 0 && (ts->unnamed_in_torch || s->unnamed_in_torch)) {
    /* one of the two Dims is already an earlier AUTO or DYNAMIC size in torch, which keeps
     * that size's symbol: the other folds into it too, with no complaint about the two
     * Dims; their ranges meet, and a narrowed one is named by that size (test/diff p102311) */
    const char *as = ts->unnamed_in_torch ? ts->unnamed_as : s->unnamed_as;
    s->unnamed_in_torch = ts->unnamed_in_torch = true;
    s->unnamed_as = ts->unnamed_as = as;
    return true;
  }
  if (ts && ts->origin == SC_SYM_NAMED) {
    const char *rhs = expr_str(env, r);
    const char *fix = sc_arena_printf(&env->ctx->arena, "%s = %s", s->name, rhs);
    sc_violation *vi =
        a == 1 && b == 0
            ? sc_env_violation(env, prov, guard, &fix, 1, "The values of %s = %s and %s = %s must always be equal.",
                               s->name, user_name(s), ts->name, user_name(ts))
            : sc_env_violation(env, prov, guard, &fix, 1,
                               "The values of %s = %s must always be related to the values of %s = %s by %s = %s.",
                               s->name, user_name(s), ts->name, user_name(ts), s->name, rhs);
    vi->label = s->name;
    vi->fix = (sc_fix){.kind = SC_FIX_DIM_RELATE, .dim = s->name, .other = ts->name, .a = a, .b = b};
    return false;
  }
  return true;
}

static int origin_rank(sc_sym_origin o) {
  switch (o) {
    case SC_SYM_AUTO:
    case SC_SYM_PROGRAM: return 0;
    case SC_SYM_DYNAMIC: return 1;
    case SC_SYM_UNBACKED: return 3;
    case SC_SYM_NAMED: return 4;
  }
  return 5;
}

/* torch solves for the symbol with the largest hint first (ties: the larger name); shapec
 * also keeps user-named Dims as long as another symbol can go. */
static bool eliminate_before(const sc_symbol *a, const sc_symbol *b) {
  int ra = origin_rank(a->origin), rb = origin_rank(b->origin);
  if (ra != rb) return ra < rb;
  /* of two named Dims torch keeps the one the inputs name first (the fix reads dy = dx) */
  if (a->origin == SC_SYM_NAMED && b->origin == SC_SYM_NAMED) return a > b; /* created later */
  int64_t ha = a->has_hint ? a->hint : INT64_MAX, hb = b->has_hint ? b->hint : INT64_MAX;
  if (ha != hb) return ha > hb;
  return strcmp(a->name, b->name) > 0;
}

static int64_t gcd64(int64_t a, int64_t b) {
  a = a < 0 ? -a : a, b = b < 0 ? -b : b;
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* Eq(Mod(c*s, m), 0) on a named Dim: s must be a multiple of m / gcd(c, m), a violation
 * whose fix makes it that multiple of a new root (torch 2.14 on x [5, d]: the guard
 * `((5*L['x'].size()[1]) % 2) == 0` and the fix d = 2*_d); a guard every value passes
 * (c a multiple of m) is no guard.  On any other backed size torch keeps the symbol and
 * checks the guard on every call (real torch 2.14: `(L['x'].size()[0] % 2) == 0` in
 * guards_code, x still [s77]). */
static void divisibility_violation(sc_shape_env *env, sc_symbol *s, int64_t m, const sc_expr *guard,
                                   const sc_provenance *prov);

static bool solve_divisibility(sc_shape_env *env, const sc_expr *d, const sc_expr *guard, const sc_provenance *prov) {
  int64_t m, c;
  if (d->kind != SC_EXPR_MOD || !sc_expr_is_const(d->args[1], &m) || m <= 1) return false;
  const sc_expr *sym = term_split(env->ctx, d->args[0], &c);
  if (!sym || sym->kind != SC_EXPR_SYM || c == 0 || c == INT64_MIN) return false;
  m /= gcd64(c, m);
  if (m == 1) return true; /* c*s % m is 0 for every s */
  sc_symbol *s = sc_env_find(env, sym->name);
  if (!s || s->origin == SC_SYM_UNBACKED || s->origin == SC_SYM_PROGRAM) return false;
  if (s->origin != SC_SYM_NAMED) {
    sc_env_input_guard(env, guard, input_text(env, guard), prov);
    return true;
  }
  if (env->prefer_deferred_asserts) { /* checked on each call, as torch's flag makes it */
    record(env, guard, SC_GUARD_RUNTIME_ASSERT, prov, NULL);
    return true;
  }
  divisibility_violation(env, s, m, guard, prov);
  return true;
}

/* The violation of a named Dim s that must be a multiple of m, with torch's fix: a new root
 * _s and s = m*_s. */
static void divisibility_violation(sc_shape_env *env, sc_symbol *s, int64_t m, const sc_expr *guard,
                                   const sc_provenance *prov) {
  sc_range_iv r = {s->range.lo == SC_NEG_INT_OO ? SC_NEG_INT_OO : ceil_div(s->range.lo, m),
                   s->range.hi == SC_INT_OO ? SC_INT_OO : floor_div(s->range.hi, m)};
  const char *root = sc_arena_printf(&env->ctx->arena, "_%s", s->name);
  const char *fixes[2] = {dim_fix(env, root, r), sc_arena_printf(&env->ctx->arena, "%s = %lld*%s", s->name, (long long)m, root)};
  sc_violation *vi = sc_env_violation(env, prov, guard, fixes, 2,
                   "Not all values of %s = %s in the specified range%s satisfy the generated guard %s.", s->name,
                   user_name(s), spec_range_text(env, s->name, s->declared), input_text(env, guard));
  vi->label = s->name;
  vi->fix = (sc_fix){.kind = SC_FIX_DIM_DIVISIBLE, .dim = s->name, .other = root, .a = m, .min = r.lo,
                     .max = r.hi, .has_max = r.hi != SC_INT_OO};
}

/* A guard on backed sizes that is neither a replacement nor a range (s != 2, s % 2 != 0,
 * (a*b) % 2 == 0): torch checks it on every call (guards_code), unless it is on one named
 * Dim alone, whose every value in its range must pass: a violation with no fix in the spec
 * language.  Guards over several sizes are not held against a Dim (real torch 2.14 exports
 * test/diff/programs/p48, `(x.size()[1]*x.size()[2]*x.size()[0]) % 2 == 0` with a Dim on
 * dim 1, and refuses p8, `x.size()[0] != 2` on a Dim). */
typedef struct one_value {
  const char *name;
  int64_t value;
} one_value;

static bool lookup_one(void *env, const char *name, int64_t *value) {
  const one_value *o = env;
  if (strcmp(name, o->name) != 0) return false;
  *value = o->value;
  return true;
}

/* Whether guard e, on symbol s alone, holds at every value of s's range when that range
 * is finite and at most 65,536 wide: sympy proves such guards (Whisper's decoder slices
 * give -min(1, s + min(1, s)) + max(...) == s, true for every s >= 0) where shapec's
 * rewriting does not, so each value is tried. */
static bool holds_on_whole_range(sc_shape_env *env, const sc_expr *e, const sc_symbol *s) {
  if (s->range.lo == SC_NEG_INT_OO || s->range.hi == SC_INT_OO || s->range.hi - s->range.lo > 65536) return false;
  /* a program of many such guards gets 2^24 trials in all, then its violations as before */
  uint64_t width = (uint64_t)(s->range.hi - s->range.lo) + 1;
  if (env->range_trials + width > ((uint64_t)1 << 24)) return false;
  env->range_trials += width;
  for (int64_t v = s->range.lo; v <= s->range.hi; v++) {
    one_value o = {s->name, v};
    int64_t out;
    if (!sc_expr_eval(e, lookup_one, &o, &out) || !out) return false;
  }
  return true;
}

/* m when guard e on s alone holds exactly at the multiples of m (2 <= m <= 64) over the
 * first 512 values of s's range from 2: a divisibility written another way, as a view's
 * decomposition writes it (3*s == 6*(s // 2), s == (s // (s // 2))*(s // 2)), which torch's
 * solver reduces to Mod(s, m) == 0; 0 when it is not one. */
static int64_t divisor_by_trial(const sc_expr *e, const sc_symbol *s) {
  int64_t lo = s->range.lo < 2 ? 2 : s->range.lo, hi = s->range.hi == SC_INT_OO ? lo + 511 : s->range.hi;
  if (hi > lo + 511) hi = lo + 511;
  bool holds[512];
  int64_t first = 0;
  for (int64_t v = lo; v <= hi; v++) {
    one_value o = {s->name, v};
    int64_t out;
    if (!sc_expr_eval(e, lookup_one, &o, &out)) return 0;
    holds[v - lo] = out != 0;
    if (out && !first) first = v;
  }
  for (int64_t m = 2; m <= 64 && first; m++) {
    bool same = true, some_false = false;
    for (int64_t v = lo; v <= hi && same; v++) {
      same = holds[v - lo] == (v % m == 0);
      some_false |= !holds[v - lo];
    }
    if (same && some_false) return m;
  }
  return 0;
}

static bool needs_tracing_floor(sc_shape_env *env, const sc_expr *e);
static bool has_division(const sc_expr *e);

static void guard_beyond_the_spec(sc_shape_env *env, const sc_expr *e, const sc_provenance *prov) {
  const char *names[2];
  sc_symbol *s = sc_expr_symbols(e, names, 2) == 1 ? sc_env_find(env, names[0]) : NULL;
  if (s && s->origin == SC_SYM_NAMED && holds_on_whole_range(env, e, s)) {
    /* every allowed size passes, from tracing's 2 up: sizes 0 and 1, which the library
     * lets through, are checked (x[:, -1:] @ w with x of 0 columns: test/diff p103036) */
    if (needs_tracing_floor(env, e)) sc_env_input_guard(env, e, input_text(env, e), prov);
    return;
  }
  if (s && s->origin == SC_SYM_NAMED && env->prefer_deferred_asserts) {
    record(env, e, SC_GUARD_RUNTIME_ASSERT, prov, NULL);
    return;
  }
  /* a divisibility only where the guard divides (torch's solver reads one from a Mod; a
   * != over a short range is no divisibility: x != 2 in [2, 3], test/diff p103359) */
  int64_t m = s && s->origin == SC_SYM_NAMED && has_division(e) ? divisor_by_trial(e, s) : 0;
  if (m) { /* torch's fix: s = m*_s */
    divisibility_violation(env, s, m, e, prov);
    return;
  }
  if (s && s->origin == SC_SYM_NAMED) {
    sc_violation *vi = sc_env_violation(env, prov, e, NULL, 0,
                                        "Not all values of %s = %s in the specified range%s satisfy the generated guard "
                                        "%s.", s->name, user_name(s), spec_range_text(env, s->name, s->declared),
                                        input_text(env, e));
    vi->label = s->name;
    return;
  }
  sc_env_input_guard(env, e, input_text(env, e), prov);
}

/* Term t without one factor f (a symbol), or NULL when f is not a factor of it. */
static const sc_expr *without_factor(sc_ctx *ctx, const sc_expr *t, const sc_expr *f) {
  if (t == f) return sc_expr_int(ctx, 1);
  if (t->kind != SC_EXPR_MUL) return NULL;
  const sc_expr *rest = sc_expr_int(ctx, 1);
  bool found = false;
  for (uint32_t i = 0; i < t->n_args; i++) {
    if (!found && t->args[i] == f) found = true;
    else rest = sc_expr_mul(ctx, rest, t->args[i]);
  }
  return found ? rest : NULL;
}

/* d = 0 with a size symbol f a factor of every term (x*y == 8*x: x*(y - 8) = 0), divided
 * by f, as torch's solver divides by a positive symbol (it gives y = 8); d itself when no
 * backed size divides it. */
static const sc_expr *divide_common_size(sc_shape_env *env, const sc_expr *d) {
  sc_ctx *ctx = env->ctx;
  if (d->kind != SC_EXPR_ADD) return d;
  const sc_expr *first = d->args[0];
  uint32_t nf = first->kind == SC_EXPR_MUL ? first->n_args : 1;
  for (uint32_t k = 0; k < nf; k++) {
    const sc_expr *f = first->kind == SC_EXPR_MUL ? first->args[k] : first;
    if (f->kind != SC_EXPR_SYM) continue;
    sc_symbol *s = sc_env_find(env, f->name);
    if (!s || s->origin == SC_SYM_UNBACKED) continue; /* a size torch treats as positive */
    const sc_expr *sum = sc_expr_int(ctx, 0);
    bool every = true;
    for (uint32_t i = 0; i < d->n_args && every; i++) {
      const sc_expr *q = without_factor(ctx, d->args[i], f);
      if (q) sum = sc_expr_add(ctx, sum, q);
      else every = false;
    }
    if (every) return divide_common_size(env, sum);
  }
  return d;
}

static void solve_eq(sc_shape_env *env, const sc_expr *e, const sc_provenance *prov) {
  sc_ctx *ctx = env->ctx;
  const sc_expr *d = sc_expr_sub(ctx, e->args[0], e->args[1]);
  if (solve_divisibility(env, d, e, prov)) return;
  d = divide_common_size(env, d);
  /* candidates: symbols that occur in d only as c*s */
  sc_symbol *cand[64];
  int64_t coeff[64];
  int n = 0;
  uint32_t nt = d->kind == SC_EXPR_ADD ? d->n_args : 1;
  for (uint32_t i = 0; i < nt && n < 64; i++) {
    int64_t c;
    const sc_expr *m = term_split(ctx, d->kind == SC_EXPR_ADD ? d->args[i] : d, &c);
    if (!m || m->kind != SC_EXPR_SYM) continue;
    const sc_expr *rest = sc_expr_sub(ctx, d, sc_expr_mul(ctx, sc_expr_int(ctx, c), m));
    const char *names[64];
    int k = sc_expr_symbols(rest, names, 64);
    bool again = false;
    for (int j = 0; j < k; j++) again |= names[j] == m->name;
    sc_symbol *s = sc_env_find(env, m->name);
    /* the program's own symbols stay as its metas have them: a new equality on them is
     * checked on the call instead (torch traced without it) */
    if (again || !s || s->replacement || s->origin == SC_SYM_PROGRAM) continue;
    cand[n] = s;
    coeff[n++] = c;
  }
  /* order by elimination preference */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && eliminate_before(cand[j], cand[j - 1]); j--) {
      sc_symbol *ts = cand[j];
      cand[j] = cand[j - 1];
      cand[j - 1] = ts;
      int64_t tc = coeff[j];
      coeff[j] = coeff[j - 1];
      coeff[j - 1] = tc;
    }
  for (int i = 0; i < n; i++) {
    sc_symbol *s = cand[i];
    const sc_expr *sym = sc_expr_sym(ctx, s->name);
    /* c*s + rest = 0  ->  s = -rest / c, when that is exact */
    const sc_expr *neg_rest = sc_expr_neg(ctx, sc_expr_sub(ctx, d, sc_expr_mul(ctx, sc_expr_int(ctx, coeff[i]), sym)));
    const sc_expr *r = sc_expr_floordiv(ctx, neg_rest, sc_expr_int(ctx, coeff[i]));
    if (sc_expr_mul(ctx, r, sc_expr_int(ctx, coeff[i])) != neg_rest) continue;
    if (s->origin == SC_SYM_NAMED) {
      /* a named Dim replaced by something outside the linear language is a runtime fact */
      int64_t a, b;
      if (!sc_expr_is_const(r, NULL) && !as_linear(ctx, r, &a, &b)) {
        carry_range_sum(env, s, r, e, prov);
        record(env, e, SC_GUARD_RUNTIME_ASSERT, prov, NULL);
        return;
      }
    }
    if (!check_replacement(env, s, r, e, prov)) {
      /* keep analysing as if the guard held */
      set_replacement(env, s, r, e, prov);
      return;
    }
    carry_range(env, s, r, e, prov);
    set_replacement(env, s, r, e, prov);
    record(env, e, sc_expr_is_const(r, NULL) ? SC_GUARD_SPECIALIZATION : SC_GUARD_REPLACEMENT, prov, s->name);
    return;
  }
  guard_beyond_the_spec(env, e, prov);
}

/* ---- inequalities ------------------------------------------------------------------ */

/* Rewrites `a*(X//m) + b >= 0` into a condition linear in X; returns NULL if d is not of
 * that form. */
static const sc_expr *unwrap_floordiv(sc_ctx *ctx, const sc_expr *d) {
  const sc_expr *fd = NULL;
  int64_t a = 0, b = 0;
  uint32_t nt = d->kind == SC_EXPR_ADD ? d->n_args : 1;
  for (uint32_t i = 0; i < nt; i++) {
    int64_t c;
    const sc_expr *m = term_split(ctx, d->kind == SC_EXPR_ADD ? d->args[i] : d, &c);
    if (!m) b += c;
    else if (m->kind == SC_EXPR_FLOORDIV && !fd) fd = m, a = c;
    else return NULL;
  }
  int64_t k;
  if (!fd || !sc_expr_is_const(fd->args[1], &k) || k <= 0) return NULL;
  const sc_expr *x = fd->args[0];
  /* a bound past int64 (a divisor that saturated, X // int_oo) is no usable bound */
  int64_t qk, top;
  if (a == INT64_MIN || b == INT64_MIN) return NULL;
  if (a > 0) { /* F >= ceil(-b/a)  ->  X >= q*k */
    int64_t q = ceil_div(-b, a);
    if (__builtin_mul_overflow(q, k, &qk)) return NULL;
    return sc_expr_sub(ctx, x, sc_expr_int(ctx, qk));
  }
  int64_t q = floor_div(b, -a); /* F <= q  ->  X <= q*k + k - 1 */
  if (__builtin_mul_overflow(q, k, &qk) || __builtin_add_overflow(qk, k - 1, &top)) return NULL;
  return sc_expr_sub(ctx, sc_expr_int(ctx, top), x);
}

/* cond is lhs REL rhs; returns d with the condition equivalent to d >= 0. */
static const sc_expr *as_nonneg(sc_ctx *ctx, const sc_expr *cond) {
  const sc_expr *d = sc_expr_sub(ctx, cond->args[0], cond->args[1]);
  const sc_expr *one = sc_expr_int(ctx, 1);
  switch (cond->kind) {
    case SC_EXPR_GE: return d;
    case SC_EXPR_GT: return sc_expr_sub(ctx, d, one);
    case SC_EXPR_LE: return sc_expr_neg(ctx, d);
    case SC_EXPR_LT: return sc_expr_sub(ctx, sc_expr_neg(ctx, d), one);
    default: return NULL;
  }
}

/* Whether torch narrows a symbol's range by the inequality a*s + b REL 0: its
 * _refine_ranges solves for s and narrows only when the bound -b/a is an integer, so
 * 2*s >= 9 leaves s in [2, oo] (real torch 2.14: range_constraints keep it, guards_code
 * checks it) where 2*s >= 8 makes it [4, oo]. */
static bool torch_refines(sc_ctx *ctx, const sc_expr *e) {
  int64_t a, b;
  const sc_expr *sym = as_linear(ctx, sc_expr_sub(ctx, e->args[0], e->args[1]), &a, &b);
  return !sym || a == 0 || b % a == 0;
}

/* torch's _refine_ranges on a guard over two sizes, d = a*u + c*t + b >= 0: where a is 1 or
 * -1, u is bounded by what t's range allows (u <= d0 with d0 in [0, 29] gives u <= 29: real
 * torch 2.14 narrows the size and holds it against u's Dim, test/diff p102385). */
static void refine_pair(sc_shape_env *env, const sc_expr *d, const sc_expr *e, const sc_provenance *prov) {
  sc_ctx *ctx = env->ctx;
  const sc_expr *sym[2];
  int64_t coeff[2], b = 0;
  int n = 0;
  uint32_t nt = d->kind == SC_EXPR_ADD ? d->n_args : 1;
  for (uint32_t i = 0; i < nt; i++) {
    int64_t c;
    const sc_expr *m = term_split(ctx, d->kind == SC_EXPR_ADD ? d->args[i] : d, &c);
    if (!m) b += c;
    else if (m->kind != SC_EXPR_SYM || n == 2 || c == INT64_MIN) return;
    else sym[n] = m, coeff[n++] = c;
  }
  if (n != 2 || sym[0] == sym[1]) return;
  for (int k = 0; k < 2; k++) {
    sc_symbol *u = sc_env_find(env, sym[k]->name), *t = sc_env_find(env, sym[1 - k]->name);
    int64_t a = coeff[k], c = coeff[1 - k];
    if (!u || !t || (a != 1 && a != -1) || u->origin == SC_SYM_UNBACKED || t->origin == SC_SYM_UNBACKED) continue;
    /* a = 1: u >= -c*t - b, at least its least value; a = -1: u <= c*t + b, at most its most */
    int64_t at = a == 1 ? (c > 0 ? t->range.hi : t->range.lo) : (c > 0 ? t->range.hi : t->range.lo);
    int64_t v;
    if (at == SC_INT_OO || at == SC_NEG_INT_OO || __builtin_mul_overflow(c, at, &v) || __builtin_add_overflow(v, b, &v))
      continue;
    sc_range_iv bound = sc_iv_full();
    if (a == 1) bound.lo = -v;
    else bound.hi = v;
    sc_range_iv before = u->range, after = sc_iv_intersect(before, bound);
    if (sc_iv_is_empty(after) || (after.lo == before.lo && after.hi == before.hi)) continue;
    u->range = after;
    if (u->origin == SC_SYM_NAMED) named_range_violation(env, u, e, prov);
  }
}

static void refine_ineq(sc_shape_env *env, const sc_expr *e, const sc_provenance *prov) {
  sc_ctx *ctx = env->ctx;
  const sc_expr *d = as_nonneg(ctx, e);
  int64_t a, b;
  const sc_expr *sym = as_linear(ctx, d, &a, &b);
  /* peel floor divisions, innermost last: (((s - 1)//2 - 1)//2 >= 0  ->  s >= 3 */
  for (const sc_expr *u = d; !sym && (u = unwrap_floordiv(ctx, u));) sym = as_linear(ctx, u, &a, &b);
  sc_symbol *s = sym && a != INT64_MIN && b != INT64_MIN ? sc_env_find(env, sym->name) : NULL;
  if (!s) {
    refine_pair(env, d, e, prov);
    record(env, e, SC_GUARD_RUNTIME_ASSERT, prov, NULL);
    return;
  }
  if (s->origin != SC_SYM_NAMED && !torch_refines(ctx, e)) {
    /* the guard holds on every call but leaves the range as it was */
    sc_env_add_fact(env, e);
    if (s->origin == SC_SYM_UNBACKED) record(env, e, SC_GUARD_RUNTIME_ASSERT, prov, NULL);
    else sc_env_input_guard(env, e, input_text(env, e), prov);
    return;
  }
  /* a*s + b >= 0 */
  sc_range_iv bound = sc_iv_full();
  if (a > 0) bound.lo = ceil_div(-b, a);
  else bound.hi = floor_div(b, -a);
  sc_range_iv before = s->range, after = sc_iv_intersect(before, bound);
  if (sc_iv_is_empty(after)) {
    sc_env_violation(env, prov, e, NULL, 0, "The generated guard %s can never hold: %s has the range %s.",
                     input_text(env, e), user_name(s), range_str(env, before))->never_holds = true;
    return;
  }
  if (s->origin == SC_SYM_NAMED && (after.lo > before.lo || after.hi < before.hi)) {
    s->range = after;
    named_range_violation(env, s, e, prov);
    return;
  }
  s->range = after;
  record(env, e, SC_GUARD_RANGE, prov, s->name);
  if (s->origin == SC_SYM_UNBACKED) {
    record(env, e, SC_GUARD_RUNTIME_ASSERT, prov, NULL);
    return;
  }
  /* ranges that leave one value pin the symbol, as an equality would */
  if (after.lo == after.hi && s->origin != SC_SYM_PROGRAM) {
    const sc_expr *v = sc_expr_int(ctx, after.lo);
    if (check_replacement(env, s, v, e, prov)) record(env, e, SC_GUARD_SPECIALIZATION, prov, s->name);
    set_replacement(env, s, v, e, prov);
  }
}

const char *sc_env_linear_bound(sc_shape_env *env, const sc_expr *cond, sc_range_iv *out) {
  sc_ctx *ctx = env->ctx;
  cond = sc_env_resolve(env, cond);
  bool eq = cond->kind == SC_EXPR_EQ;
  if (!eq && cond->kind != SC_EXPR_GE && cond->kind != SC_EXPR_GT && cond->kind != SC_EXPR_LE &&
      cond->kind != SC_EXPR_LT)
    return NULL;
  const sc_expr *d = eq ? sc_expr_sub(ctx, cond->args[0], cond->args[1]) : as_nonneg(ctx, cond);
  int64_t a, b;
  const sc_expr *sym = as_linear(ctx, d, &a, &b);
  /* saturated coefficients stand for int_oo: no exact bound */
  if (!sym || a == INT64_MIN || a == INT64_MAX || b == INT64_MIN || b == INT64_MAX) return NULL;
  *out = sc_iv_full();
  if (eq) *out = b % a ? sc_iv(1, 0) : sc_iv_point(-b / a); /* a*s + b == 0 */
  else if (a > 0) out->lo = ceil_div(-b, a);                 /* a*s + b >= 0 */
  else out->hi = floor_div(b, -a);
  return sym->name;
}

/* ---- the decision -------------------------------------------------------------------- */

/* A symbol's range with tracing's floor taken away: a lower bound of 2 or less only says
 * that sizes 0 and 1 were not traced (ep.module() still accepts them, and a root of
 * derived sizes alone below 0: untraced_lo). */
static bool lookup_untraced_range(void *p, const char *name, sc_range_iv *out) {
  sc_symbol *s = sc_env_find(p, name);
  if (!s) return false;
  *out = s->range;
  if (s->origin != SC_SYM_UNBACKED && out->lo <= 2) out->lo = s->untraced_lo;
  return true;
}

/* Whether a guard decided true holds only thanks to the >= 2 floor of tracing (4*s0 >= 7
 * from narrow(x, 0, 0, 7) holds for s0 >= 2, not for s0 = 1).  Such a guard is checked on
 * the inputs, since the library lets sizes 0 and 1 through as torch's module does; without
 * it a size of 1 would make the compiled code read past a buffer.  Guards on unbacked
 * values are not affected. */
static bool needs_tracing_floor(sc_shape_env *env, const sc_expr *e) {
  if (e->kind < SC_EXPR_EQ || e->kind > SC_EXPR_GE || sc_env_is_unbacked(env, e)) return false;
  if (known_fact(env, e) == SC_TRUE) return false;
  const sc_expr *d = sc_expr_sub(env->ctx, e->args[0], e->args[1]);
  const sc_expr *rel = sc_expr_rel(env->ctx, e->kind, d, sc_expr_int(env->ctx, 0));
  return sc_expr_decide(rel, lookup_untraced_range, env) != SC_TRUE;
}

/* The guard in the inputs' terms: 4*x.size()[0] >= 7. */
static const char *input_text(sc_shape_env *env, const sc_expr *e) {
  const char *names[16];
  int n = sc_expr_symbols(e, names, 16);
  for (int i = 0; i < n && i < 16; i++) {
    sc_symbol *s = sc_env_find(env, names[i]);
    if (s && s->source) e = sc_expr_subst(env->ctx, e, names[i], sc_expr_sym(env->ctx, s->source));
  }
  return sc_expr_to_python(env->ctx, e);
}

static bool has_min_or_max(const sc_expr *e) {
  if (e->kind == SC_EXPR_MIN || e->kind == SC_EXPR_MAX) return true;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (has_min_or_max(e->args[i])) return true;
  return false;
}

static const sc_expr *as_traced(sc_shape_env *env, const sc_expr *e);

const sc_expr *sc_env_as_traced(sc_shape_env *env, const sc_expr *e) {
  return has_min_or_max(e) ? as_traced(env, e) : e;
}

static const sc_expr *as_traced(sc_shape_env *env, const sc_expr *e) {
  sc_ctx *ctx = env->ctx;
  if (e->n_args == 0) return e;
  const sc_expr *acc = as_traced(env, e->args[0]);
  switch (e->kind) {
    case SC_EXPR_ADD:
    case SC_EXPR_MUL:
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
      for (uint32_t i = 1; i < e->n_args; i++) {
        const sc_expr *b = as_traced(env, e->args[i]);
        if (e->kind == SC_EXPR_ADD) acc = sc_expr_add(ctx, acc, b);
        else if (e->kind == SC_EXPR_MUL) acc = sc_expr_mul(ctx, acc, b);
        else if (sc_env_decide(env, sc_expr_rel(ctx, SC_EXPR_LE, acc, b)) == SC_TRUE) acc = e->kind == SC_EXPR_MIN ? acc : b;
        else if (sc_env_decide(env, sc_expr_rel(ctx, SC_EXPR_LE, b, acc)) == SC_TRUE) acc = e->kind == SC_EXPR_MIN ? b : acc;
        else acc = e->kind == SC_EXPR_MIN ? sc_expr_min(ctx, acc, b) : sc_expr_max(ctx, acc, b);
      }
      return acc;
    case SC_EXPR_FLOORDIV: return sc_expr_floordiv(ctx, acc, as_traced(env, e->args[1]));
    case SC_EXPR_MOD: return sc_expr_mod(ctx, acc, as_traced(env, e->args[1]));
    case SC_EXPR_POW: {
      const sc_expr *p = sc_expr_pow(ctx, acc, e->args[1]->value);
      return p ? p : e;
    }
    default: return e;
  }
}

bool sc_env_needs_tracing_floor(sc_shape_env *env, const sc_expr *cond) {
  return needs_tracing_floor(env, sc_env_resolve(env, cond));
}

void sc_env_rely_on(sc_shape_env *env, const sc_expr *cond, const sc_provenance *prov) {
  const sc_expr *e = sc_env_resolve(env, cond);
  if (needs_tracing_floor(env, e)) sc_env_input_guard(env, e, input_text(env, e), prov);
}

void sc_env_guard(sc_shape_env *env, const sc_expr *cond, const sc_provenance *prov) {
  const sc_expr *e = sc_env_resolve(env, cond);
  if (e->kind == SC_EXPR_AND) {
    for (uint32_t i = 0; i < e->n_args; i++) sc_env_guard(env, e->args[i], prov);
    return;
  }
  sc_truth t = sc_env_decide(env, e);
  if (t == SC_TRUE) {
    record(env, e, SC_GUARD_TRUE, prov, NULL);
    if (needs_tracing_floor(env, e)) /* true only because sizes are >= 2 while tracing: checked on the inputs */
      sc_env_input_guard(env, e, input_text(env, e), prov);
    return;
  }
  if (sc_env_is_unbacked(env, e)) {
    if (e->kind == SC_EXPR_LT || e->kind == SC_EXPR_LE || e->kind == SC_EXPR_GT || e->kind == SC_EXPR_GE) {
      refine_ineq(env, e, prov);
    } else {
      record(env, e, SC_GUARD_RUNTIME_ASSERT, prov, NULL);
    }
    return;
  }
  int64_t h;
  if (sc_env_hint(env, e, &h) && !h) {
    sc_env_violation(env, prov, e, NULL, 0, "The generated guard %s is false for the sample inputs.",
                     input_text(env, e));
    return;
  }
  if (t == SC_FALSE) {
    sc_env_violation(env, prov, e, NULL, 0, "The generated guard %s can never hold for the allowed input sizes.",
                     input_text(env, e))->never_holds = true;
    return;
  }
  switch (e->kind) {
    case SC_EXPR_EQ: solve_eq(env, e, prov); return;
    case SC_EXPR_LT:
    case SC_EXPR_LE:
    case SC_EXPR_GT:
    case SC_EXPR_GE: refine_ineq(env, e, prov); return;
    default: guard_beyond_the_spec(env, e, prov); return;
  }
}

/* ---- what torch's solver pins (DimConstraints.rewrite_with_congruences, solve) ----
 * torch rewrites each b // d in a guard on one Dim as (b - k) / d and each b % d as k, k
 * being b % d at the Dim's sample; an equality left that is not identically true makes the
 * Dim a "symbol with equalities", solved to one value, its sample: "solving the guards
 * generated for s0 ... resulted in a specialized value of 3", fix `s0 = 3`, and no range or
 * divisibility line for it (`(x.size()[0] // 2) == 1` with a sample of 3: test/diff
 * p101057; chunk's nested `(s0 + (s0 + 2) // 3 - 1) // ((s0 + 2) // 3) == 3`: p101122).
 * Whether the rewritten equality is an identity is seen by evaluating it, in rationals as
 * sympy does, at a few other values of the Dim. */

/* e at s = v after torch's rewrite; false where the rewrite does not apply (a min or max:
 * torch's solver drops such guards) or a divisor is 0. */
static bool rewritten_value(sc_shape_env *env, const sc_expr *e, const sc_symbol *s, double v, double *out) {
  double a, b;
  switch (e->kind) {
    case SC_EXPR_INT: *out = (double)e->value; return true;
    case SC_EXPR_SYM: *out = v; return strcmp(e->name, s->name) == 0;
    case SC_EXPR_ADD:
    case SC_EXPR_MUL:
      *out = e->kind == SC_EXPR_ADD ? 0.0 : 1.0;
      for (uint32_t i = 0; i < e->n_args; i++) {
        if (!rewritten_value(env, e->args[i], s, v, &a)) return false;
        *out = e->kind == SC_EXPR_ADD ? *out + a : *out * a;
      }
      return true;
    case SC_EXPR_POW:
      if (!rewritten_value(env, e->args[0], s, v, &a) || !rewritten_value(env, e->args[1], s, v, &b)) return false;
      *out = 1.0;
      for (int64_t i = 0; i < (int64_t)b && i < 64; i++) *out *= a;
      return true;
    case SC_EXPR_FLOORDIV:
    case SC_EXPR_MOD: {
      int64_t nb, nd;
      if (!sc_env_hint(env, e->args[0], &nb) || !sc_env_hint(env, e->args[1], &nd) || nd == 0) return false;
      int64_t k = nb % nd;
      if (k != 0 && ((k < 0) != (nd < 0))) k += nd; /* Python's remainder */
      if (e->kind == SC_EXPR_MOD) {
        *out = (double)k;
        return true;
      }
      if (!rewritten_value(env, e->args[0], s, v, &a) || !rewritten_value(env, e->args[1], s, v, &b) || b == 0.0)
        return false;
      *out = (a - (double)k) / b;
      return true;
    }
    default: return false;
  }
}

static bool has_division(const sc_expr *e) {
  if (e->kind == SC_EXPR_FLOORDIV || e->kind == SC_EXPR_MOD) return true;
  if (e->kind == SC_EXPR_INT || e->kind == SC_EXPR_SYM) return false;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (has_division(e->args[i])) return true;
  return false;
}

/* Whether guard e, an equality on named Dim s alone with a // or %, pins s to its sample. */
static bool solver_pins(sc_shape_env *env, const sc_expr *e, const sc_symbol *s) {
  if (e->kind != SC_EXPR_EQ || s->origin != SC_SYM_NAMED || !s->has_hint || !has_division(e)) return false;
  const char *names[2];
  if (sc_expr_symbols(e, names, 2) != 1 || strcmp(names[0], s->name) != 0) return false;
  static const double away[] = {1, 2, 3, 7, 13};
  for (size_t i = 0; i < sizeof away / sizeof *away; i++) {
    double v = (double)s->hint + away[i], l, r;
    if (!rewritten_value(env, e->args[0], s, v, &l) || !rewritten_value(env, e->args[1], s, v, &r)) return false;
    if (fabs(l - r) > 1e-9 * (1.0 + fabs(l) + fabs(r))) return true;
  }
  return false;
}

static void solver_specializations(sc_shape_env *env) {
  for (size_t i = 0; i < env->n_violations; i++) {
    const sc_violation *v = &env->violations[i];
    const char *names[2];
    if (!v->guard || sc_expr_symbols(v->guard, names, 2) != 1) continue;
    sc_symbol *s = sc_env_find(env, names[0]);
    if (!s || !solver_pins(env, v->guard, s)) continue;
    /* the one fix for s: its sample; every other line about s goes */
    bool first = true;
    for (size_t j = 0; j < env->n_violations; j++) {
      sc_violation *w = &env->violations[j];
      const char *wn[2];
      bool about_s = (w->fix.dim && strcmp(w->fix.dim, s->name) == 0) ||
                     (w->guard && sc_expr_symbols(w->guard, wn, 2) == 1 && strcmp(wn[0], s->name) == 0);
      if (!about_s) continue;
      if (first) {
        w->fixes = sc_arena_alloc(&env->ctx->arena, sizeof *w->fixes);
        w->fixes[0] = sc_arena_printf(&env->ctx->arena, "%s = %lld", fix_dim_name(s), (long long)(s->hint + s->dim_offset));
        w->n_fixes = fixable(s);
        w->fix = (sc_fix){.kind = SC_FIX_DIM_VALUE, .dim = fix_dim_name(s), .value = s->hint + s->dim_offset};
        first = false;
      } else {
        w->n_fixes = 0;
        w->fix = (sc_fix){.kind = SC_FIX_NONE};
      }
    }
  }
}

