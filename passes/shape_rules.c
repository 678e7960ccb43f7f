/* shape_rules.c - the shape rule of every operator in ir/ops.def; see shape_rules.h.
 *
 * Each rule reads its arguments by schema name (the serializer writes names from the
 * operator schema and omits arguments left at their default), computes output sizes as
 * symbolic expressions and emits guards through the shape environment. */
#include "shape_rules.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/einsum_equation.h"

#include "lib/base/strbuf.h"

#define MAX_RANK 16

typedef struct shape {
  int rank;
  const sc_expr *d[MAX_RANK];
} shape;

/* ---- errors and arguments ----------------------------------------------------------- */

static bool rule_error(sc_rule_ctx *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool rule_error(sc_rule_ctx *rc, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sc_diag *d = sc_diags_add(&rc->ctx->diags, SC_DIAG_BAD_OP_ARGS, SC_SEV_ERROR, rc->program->file, rc->node->path,
                            "%s: %s", rc->node->target, msg);
  sc_diag_set_hint(&rc->ctx->diags, d, "the node's arguments must follow the operator's ATen schema");
  rc->failed = true;
  return false;
}

static const sc_arg *arg(sc_rule_ctx *rc, const char *name) {
  for (size_t i = 0; i < rc->node->n_inputs; i++)
    if (rc->node->inputs[i].name && strcmp(rc->node->inputs[i].name, name) == 0) return &rc->node->inputs[i].arg;
  return NULL;
}

static bool arg_is_none(const sc_arg *a) {
  return !a || a->kind == SC_ARG_NONE || (a->kind == SC_ARG_OPTIONAL_TENSOR && a->n_items && a->items[0].is_none);
}

static const sc_expr *item_expr(sc_rule_ctx *rc, const sc_arg_item *it) {
  if (it->value) return it->value->sym ? sc_env_resolve(rc->env, it->value->sym) : NULL;
  return sc_expr_int(rc->ctx, it->i);
}

static const sc_value *tensor_arg(sc_rule_ctx *rc, const char *name, bool required) {
  const sc_arg *a = arg(rc, name);
  if (arg_is_none(a)) {
    if (required) rule_error(rc, "missing tensor argument '%s'", name);
    return NULL;
  }
  if ((a->kind != SC_ARG_TENSOR && a->kind != SC_ARG_OPTIONAL_TENSOR) || !a->n_items || !a->items[0].value ||
      a->items[0].value->kind != SC_VALUE_TENSOR) {
    rule_error(rc, "argument '%s' must be a tensor", name);
    return NULL;
  }
  return a->items[0].value;
}

/* An int or SymInt argument as an expression; `def` when absent (NULL: required). */
static const sc_expr *int_arg(sc_rule_ctx *rc, const char *name, const sc_expr *def) {
  const sc_arg *a = arg(rc, name);
  if (arg_is_none(a)) {
    if (!def) rule_error(rc, "missing integer argument '%s'", name);
    return def;
  }
  if ((a->kind == SC_ARG_INT || a->kind == SC_ARG_SYM_INT) && a->n_items == 1) {
    const sc_expr *e = item_expr(rc, &a->items[0]);
    if (!e) rule_error(rc, "argument '%s' has no symbolic value", name);
    return e;
  }
  if (a->kind == SC_ARG_BOOL && a->n_items == 1) return sc_expr_int(rc->ctx, a->items[0].b);
  rule_error(rc, "argument '%s' must be an integer", name);
  return NULL;
}

static bool const_int_arg(sc_rule_ctx *rc, const char *name, int64_t def, bool required, int64_t *out) {
  const sc_expr *e = int_arg(rc, name, required ? NULL : sc_expr_int(rc->ctx, def));
  if (!e) return false;
  if (!sc_expr_is_const(e, out)) return rule_error(rc, "argument '%s' must be a constant integer", name);
  return true;
}

static bool bool_arg(sc_rule_ctx *rc, const char *name, bool def) {
  const sc_arg *a = arg(rc, name);
  if (arg_is_none(a)) return def;
  if (a->kind == SC_ARG_BOOL && a->n_items == 1) return a->items[0].b;
  if (a->kind == SC_ARG_INT && a->n_items == 1) return a->items[0].i != 0;
  return def;
}

/* An int[] / SymInt[] argument; returns the count or -1.  `absent` is returned when the
 * argument is missing or None. */
static int ints_arg(sc_rule_ctx *rc, const char *name, const sc_expr **out, int max, int absent) {
  const sc_arg *a = arg(rc, name);
  if (arg_is_none(a)) {
    if (absent < 0) rule_error(rc, "argument '%s' is missing", name);
    return absent;
  }
  if (a->kind == SC_ARG_INT || a->kind == SC_ARG_SYM_INT) {
    out[0] = item_expr(rc, &a->items[0]);
    return out[0] ? 1 : -1;
  }
  if (a->kind != SC_ARG_INTS && a->kind != SC_ARG_SYM_INTS) {
    rule_error(rc, "argument '%s' must be a list of integers", name);
    return -1;
  }
  if ((int)a->n_items > max) {
    rule_error(rc, "argument '%s' has too many entries", name);
    return -1;
  }
  for (size_t i = 0; i < a->n_items; i++) {
    out[i] = item_expr(rc, &a->items[i]);
    if (!out[i]) {
      rule_error(rc, "argument '%s' has an entry without a symbolic value", name);
      return -1;
    }
  }
  return (int)a->n_items;
}

static bool const_ints_arg(sc_rule_ctx *rc, const char *name, int64_t *out, int max, int *n, int absent) {
  const sc_expr *e[MAX_RANK];
  *n = ints_arg(rc, name, e, max < MAX_RANK ? max : MAX_RANK, absent);
  if (*n < 0) return false;
  for (int i = 0; i < *n; i++)
    if (!sc_expr_is_const(e[i], &out[i])) return rule_error(rc, "argument '%s' must hold constant integers", name);
  return true;
}

/* ---- shapes ---------------------------------------------------------------------------- */

static bool shape_of(sc_rule_ctx *rc, const sc_value *v, shape *s) {
  if (!v->shape) return rule_error(rc, "input '%s' has no shape", v->name);
  if (v->meta.rank > MAX_RANK) return rule_error(rc, "rank %d is above shapec's limit of %d", v->meta.rank, MAX_RANK);
  s->rank = v->meta.rank;
  for (int i = 0; i < s->rank; i++) s->d[i] = sc_env_resolve(rc->env, v->shape[i]);
  return true;
}

static bool norm_dim(sc_rule_ctx *rc, int64_t dim, int rank, int *out) {
  int r = rank > 0 ? rank : 1;
  if (dim < -r || dim >= r) return rule_error(rc, "dimension %lld is out of range for rank %d", (long long)dim, rank);
  *out = (int)(dim < 0 ? dim + r : dim);
  return true;
}

static const sc_expr *numel(sc_rule_ctx *rc, const shape *s, int from, int to) {
  const sc_expr *n = sc_expr_int(rc->ctx, 1);
  for (int i = from; i < to; i++) n = sc_expr_mul(rc->ctx, n, s->d[i]);
  return n;
}

static void guard(sc_rule_ctx *rc, const char *rule, const sc_expr *cond) {
  if (cond->kind == SC_EXPR_FALSE) {
    rule_error(rc, "the operator's shape check (%s rule) fails for these sizes", rule);
    return;
  }
  sc_provenance p = rc->prov;
  p.rule = rule;
  sc_env_guard(rc->env, cond, &p);
}

/* A decision the ranges made without a guard (sc_env_rely_on). */
static void rely_on(sc_rule_ctx *rc, const char *rule, const sc_expr *cond) {
  sc_provenance p = rc->prov;
  p.rule = rule;
  sc_env_rely_on(rc->env, cond, &p);
}

static const sc_expr *eq_guard(sc_rule_ctx *rc, const char *rule, const sc_expr *a, const sc_expr *b) {
  int64_t x, y;
  if (sc_expr_is_const(a, &x) && sc_expr_is_const(b, &y) && x != y) {
    rule_error(rc, "sizes %lld and %lld must match (%s rule)", (long long)x, (long long)y, rule);
    return a;
  }
  guard(rc, rule, sc_expr_rel(rc->ctx, SC_EXPR_EQ, a, b));
  return sc_env_resolve(rc->env, a);
}

/* Decides a <= b by ranges, else by hints (emitting the guard that decision implies). */
static bool le_by_hint(sc_rule_ctx *rc, const char *rule, const sc_expr *a, const sc_expr *b) {
  const sc_expr *le = sc_expr_rel(rc->ctx, SC_EXPR_LE, a, b);
  sc_truth t = sc_env_decide(rc->env, le);
  if (t != SC_UNKNOWN) {
    rely_on(rc, rule, t == SC_TRUE ? le : sc_expr_rel(rc->ctx, SC_EXPR_GT, a, b));
    return t == SC_TRUE;
  }
  int64_t ha = 0, hb = 0;
  bool known = sc_env_hint(rc->env, a, &ha) && sc_env_hint(rc->env, b, &hb);
  bool result = known ? ha <= hb : true;
  guard(rc, rule, result ? le : sc_expr_rel(rc->ctx, SC_EXPR_GT, a, b));
  return result;
}

static bool is_one(const sc_expr *e) {
  int64_t v = 0;
  return sc_expr_is_const(e, &v) && v == 1;
}

/* torch's infer_size: equal sizes, or one side is 1 (decided by constants and hints). */
static const sc_expr *broadcast_dim(sc_rule_ctx *rc, const sc_expr *a, const sc_expr *b) {
  if (a == b) return a;
  if (is_one(a)) return b;
  if (is_one(b)) return a;
  int64_t ha = 0, hb = 0;
  bool known_a = sc_env_hint(rc->env, a, &ha), known_b = sc_env_hint(rc->env, b, &hb);
  /* an expression whose sample is 1 broadcasts, and is pinned to 1 (x[3:] of a 4) */
  if (known_a && ha == 1 && !sc_env_is_unbacked(rc->env, a)) {
    eq_guard(rc, "broadcast", a, sc_expr_int(rc->ctx, 1));
    return b;
  }
  if (known_b && hb == 1 && !sc_env_is_unbacked(rc->env, b)) {
    eq_guard(rc, "broadcast", b, sc_expr_int(rc->ctx, 1));
    return a;
  }
  return eq_guard(rc, "broadcast", a, b);
}

static void broadcast(sc_rule_ctx *rc, shape *acc, const shape *s) {
  int rank = acc->rank > s->rank ? acc->rank : s->rank;
  shape out = {rank, {0}};
  for (int i = 0; i < rank; i++) {
    int ia = i - (rank - acc->rank), is = i - (rank - s->rank);
    const sc_expr *a = ia >= 0 ? acc->d[ia] : NULL, *b = is >= 0 ? s->d[is] : NULL;
    out.d[i] = !a ? b : !b ? a : broadcast_dim(rc, a, b);
  }
  *acc = out;
}

/* ---- outputs -------------------------------------------------------------------------- */

/* The k-th tensor output value of the node (None slots count), or NULL. */
static sc_value *output_tensor(sc_rule_ctx *rc, int k, bool *exists) {
  int seen = 0;
  *exists = false;
  for (size_t i = 0; i < rc->node->n_outputs; i++) {
    const sc_arg *o = &rc->node->outputs[i];
    if (o->kind != SC_ARG_TENSOR && o->kind != SC_ARG_TENSORS && o->kind != SC_ARG_OPTIONAL_TENSORS &&
        o->kind != SC_ARG_NONE)
      continue;
    size_t n = o->kind == SC_ARG_NONE ? 1 : o->n_items;
    for (size_t j = 0; j < n; j++, seen++) {
      if (seen == k) {
        *exists = true;
        return o->kind == SC_ARG_NONE ? NULL : o->items[j].value;
      }
    }
  }
  return NULL;
}

static int n_output_tensors(sc_rule_ctx *rc) {
  int n = 0;
  bool exists = true;
  while (exists) {
    output_tensor(rc, n, &exists);
    if (exists) n++;
  }
  return n;
}

static bool set_out(sc_rule_ctx *rc, int k, const shape *s) {
  bool exists;
  sc_value *v = output_tensor(rc, k, &exists);
  if (!v) return true; /* an unused optional output */
  if (v->meta.rank != s->rank)
    return rule_error(rc, "output '%s' has rank %d in the program but the operator gives rank %d", v->name,
                      v->meta.rank, s->rank);
  v->shape = sc_arena_alloc(&rc->ctx->arena, (size_t)(s->rank ? s->rank : 1) * sizeof *v->shape);
  for (int i = 0; i < s->rank; i++) v->shape[i] = sc_env_resolve(rc->env, s->d[i]);
  return true;
}

static sc_value *sym_output(sc_rule_ctx *rc) {
  for (size_t i = 0; i < rc->node->n_outputs; i++) {
    const sc_arg *o = &rc->node->outputs[i];
    if ((o->kind == SC_ARG_SYM_INT || o->kind == SC_ARG_SYM_BOOL || o->kind == SC_ARG_SYM_FLOAT) && o->n_items &&
        o->items[0].value)
      return o->items[0].value;
  }
  return NULL;
}

static bool set_sym(sc_rule_ctx *rc, const sc_expr *e) {
  sc_value *v = sym_output(rc);
  if (!v) return rule_error(rc, "the node has no SymInt or SymBool output");
  v->sym = e;
  return true;
}

/* ---- rule families ---------------------------------------------------------------------- */

static bool rule_elementwise(sc_rule_ctx *rc) {
  shape acc = {0, {0}};
  bool any = false;
  for (size_t i = 0; i < rc->node->n_inputs; i++) {
    const sc_arg *a = &rc->node->inputs[i].arg;
    if ((a->kind != SC_ARG_TENSOR && a->kind != SC_ARG_OPTIONAL_TENSOR) || !a->n_items || !a->items[0].value) continue;
    shape s = {0};
    if (!shape_of(rc, a->items[0].value, &s)) return false;
    if (!any) acc = s;
    else broadcast(rc, &acc, &s);
    any = true;
  }
  if (!any) return rule_error(rc, "no tensor argument");
  return set_out(rc, 0, &acc);
}

static bool rule_same_as(sc_rule_ctx *rc, const char *name) {
  const sc_value *x = tensor_arg(rc, name, true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  return set_out(rc, 0, &s);
}

/* view / reshape: -1 inferred from the element count, which must agree. */
/* sizes[0..n) of a view of `total` elements, one of which may be -1: that one becomes
 * total // (the others' product), with the divisibility as a guard; without one, the
 * product must equal total.  (unflatten is a view of one dim, and torch guards it alike.) */
static bool infer_view_sizes(sc_rule_ctx *rc, const char *op, const sc_expr *total, const sc_expr **sizes, int n) {
  const sc_expr *known = sc_expr_int(rc->ctx, 1);
  int infer = -1;
  for (int i = 0; i < n; i++) {
    int64_t v = 0;
    if (sc_expr_is_const(sizes[i], &v) && v == -1) {
      if (infer >= 0) return rule_error(rc, "only one dimension can be inferred");
      infer = i;
    } else {
      known = sc_expr_mul(rc->ctx, known, sizes[i]);
    }
  }
  if (infer >= 0) {
    const sc_expr *q = sc_expr_floordiv(rc->ctx, total, known);
    if (sc_expr_mul(rc->ctx, q, known) != total)
      guard(rc, op, sc_expr_rel(rc->ctx, SC_EXPR_EQ, sc_expr_mod(rc->ctx, total, known), sc_expr_int(rc->ctx, 0)));
    sizes[infer] = q;
  } else {
    guard(rc, op, sc_expr_rel(rc->ctx, SC_EXPR_EQ, total, known));
  }
  return true;
}

static bool rule_view(sc_rule_ctx *rc, const char *size_name) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  out.rank = ints_arg(rc, size_name, out.d, MAX_RANK, -1);
  if (out.rank < 0) return rule_error(rc, "missing '%s'", size_name);
  return infer_view_sizes(rc, "view", numel(rc, &in, 0, in.rank), out.d, out.rank) && set_out(rc, 0, &out);
}

/* view_as(self, other): self's elements in other's shape. */
static bool rule_view_as(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true), *o = tensor_arg(rc, "other", true);
  shape in = {0}, out = {0};
  if (!x || !o || !shape_of(rc, x, &in) || !shape_of(rc, o, &out)) return false;
  eq_guard(rc, "view", numel(rc, &in, 0, in.rank), numel(rc, &out, 0, out.rank));
  return set_out(rc, 0, &out);
}

static bool rule_flatten(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  int64_t start = 0, end = 0;
  if (!x || !shape_of(rc, x, &in) || !const_int_arg(rc, "start_dim", 0, false, &start) ||
      !const_int_arg(rc, "end_dim", -1, false, &end))
    return false;
  if (in.rank == 0) {
    out.rank = 1;
    out.d[0] = sc_expr_int(rc->ctx, 1);
    return set_out(rc, 0, &out);
  }
  int s = 0, e = 0;
  if (!norm_dim(rc, start, in.rank, &s) || !norm_dim(rc, end, in.rank, &e)) return false;
  if (s > e) return rule_error(rc, "start_dim comes after end_dim");
  for (int i = 0; i < s; i++) out.d[out.rank++] = in.d[i];
  out.d[out.rank++] = numel(rc, &in, s, e + 1);
  for (int i = e + 1; i < in.rank; i++) out.d[out.rank++] = in.d[i];
  return set_out(rc, 0, &out);
}

/* unflatten(self, dim, sizes): dim split into sizes, one of which may be -1 (inferred);
 * their product must be the dim. */
static bool rule_unflatten(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !shape_of(rc, x, &in) || !const_int_arg(rc, "dim", 0, true, &dim) || !norm_dim(rc, dim, in.rank, &d))
    return false;
  const sc_expr *sizes[MAX_RANK];
  int n = ints_arg(rc, "sizes", sizes, MAX_RANK, -1);
  if (n < 1) return rule_error(rc, "unflatten needs a non-empty 'sizes'");
  if (in.rank - 1 + n > MAX_RANK) return rule_error(rc, "unflatten gives more than %d dims", MAX_RANK);
  if (!infer_view_sizes(rc, "unflatten", in.d[d], sizes, n)) return false;
  for (int i = 0; i < d; i++) out.d[out.rank++] = in.d[i];
  for (int i = 0; i < n; i++) out.d[out.rank++] = sizes[i];
  for (int i = d + 1; i < in.rank; i++) out.d[out.rank++] = in.d[i];
  return set_out(rc, 0, &out);
}

static bool rule_permute(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  int64_t dims[MAX_RANK];
  int n = 0;
  if (!x || !shape_of(rc, x, &in) || !const_ints_arg(rc, "dims", dims, MAX_RANK, &n, -1)) return false;
  if (n != in.rank) return rule_error(rc, "permute needs %d dims, got %d", in.rank, n);
  out.rank = n;
  bool used[MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    int d = 0;
    if (!norm_dim(rc, dims[i], in.rank, &d)) return false;
    if (used[d]) return rule_error(rc, "dimension %d repeats", d);
    used[d] = true;
    out.d[i] = in.d[d];
  }
  return set_out(rc, 0, &out);
}

static bool rule_transpose(sc_rule_ctx *rc, bool is_t) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  int64_t d0 = 0, d1 = 1;
  if (!x || !shape_of(rc, x, &s)) return false;
  if (is_t) {
    if (s.rank > 2) return rule_error(rc, "t() expects a tensor of rank at most 2");
    if (s.rank < 2) return set_out(rc, 0, &s);
  } else if (!const_int_arg(rc, "dim0", 0, true, &d0) || !const_int_arg(rc, "dim1", 0, true, &d1)) {
    return false;
  }
  int a = 0, b = 0;
  if (s.rank == 0) return set_out(rc, 0, &s);
  if (!norm_dim(rc, d0, s.rank, &a) || !norm_dim(rc, d1, s.rank, &b)) return false;
  const sc_expr *t = s.d[a];
  s.d[a] = s.d[b];
  s.d[b] = t;
  return set_out(rc, 0, &s);
}

static bool rule_unsqueeze(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !shape_of(rc, x, &in) || !const_int_arg(rc, "dim", 0, true, &dim) || !norm_dim(rc, dim, in.rank + 1, &d))
    return false;
  if (in.rank + 1 > MAX_RANK) return rule_error(rc, "rank too large");
  out.rank = in.rank + 1;
  for (int i = 0, k = 0; i < out.rank; i++) out.d[i] = i == d ? sc_expr_int(rc->ctx, 1) : in.d[k++];
  return set_out(rc, 0, &out);
}

static bool rule_squeeze(sc_rule_ctx *rc, bool many) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  int64_t dims[MAX_RANK];
  int n = 0;
  if (many && arg_is_none(arg(rc, "dim"))) { /* squeeze.default: every dim of size 1 */
    for (int i = 0; i < in.rank; i++) dims[n++] = i;
  } else if (many) { /* squeeze.dims(Tensor self, int[] dim) */
    if (!const_ints_arg(rc, "dim", dims, MAX_RANK, &n, -1)) return false;
  } else {
    if (!const_int_arg(rc, "dim", 0, true, &dims[0])) return false;
    n = 1;
  }
  bool drop[MAX_RANK] = {0};
  for (int i = 0; i < n && in.rank; i++) {
    int d = 0;
    if (!norm_dim(rc, dims[i], in.rank, &d)) return false;
    /* a dim of size 1 goes; a symbolic one stays (its range excludes 1) */
    drop[d] = is_one(in.d[d]);
  }
  for (int i = 0; i < in.rank; i++)
    if (!drop[i]) out.d[out.rank++] = in.d[i];
  return set_out(rc, 0, &out);
}

/* n where e is Min(1, n), else NULL. */
static const sc_expr *min_one_of(const sc_expr *e) {
  int64_t v;
  if (e->kind != SC_EXPR_MIN || e->n_args != 2) return NULL;
  for (int i = 0; i < 2; i++)
    if (sc_expr_is_const(e->args[i], &v) && v == 1) return e->args[1 - i];
  return NULL;
}

/* Min(1, n) expanded to n (x[:1] of a batch of n, broadcast back over it): 1 for every
 * n >= 1 and n itself for n = 0, so valid for every n, with no guard (torch's program
 * carries none).  The library repeats it where it is 1 when it runs (cg_ops.c). */
static bool one_or_itself(const sc_expr *in, const sc_expr *out) { return min_one_of(in) == out; }

/* expand to `size`, or expand_as: to other's shape */
static bool rule_expand(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  if (rc->node->op->id == SC_OP_EXPAND_AS) {
    const sc_value *other = tensor_arg(rc, "other", true);
    if (!other || !shape_of(rc, other, &out)) return false;
  } else {
    out.rank = ints_arg(rc, "size", out.d, MAX_RANK, -1);
  }
  if (out.rank < in.rank) return rule_error(rc, "expand to fewer dimensions than the input has");
  for (int i = 0; i < out.rank; i++) {
    int k = i - (out.rank - in.rank);
    int64_t v = 0;
    bool keep = sc_expr_is_const(out.d[i], &v) && v == -1;
    if (k < 0) {
      if (keep) return rule_error(rc, "-1 is not allowed for a new leading dimension");
      continue;
    }
    const sc_expr *n = min_one_of(in.d[k]);
    if (keep) out.d[i] = in.d[k];
    else if (n && sc_expr_is_const(out.d[i], &v) && v >= 2)
      /* x[:1] (Min(1, n)) expanded to a number, as torch's program has it: 1 for every
       * n >= 1, which the call checks where tracing's floor decided it (n = 0 would expand
       * an empty tensor; torch's module fails there too) (test/diff p100075) */
      rely_on(rc, "expand", sc_expr_rel(rc->ctx, SC_EXPR_LE, sc_expr_int(rc->ctx, 1), n));
    else if (!is_one(in.d[k]) && in.d[k] != out.d[i] && !one_or_itself(in.d[k], out.d[i]))
      out.d[i] = eq_guard(rc, "expand", in.d[k], out.d[i]);
  }
  return set_out(rc, 0, &out);
}

/* Whether a slice bound v past the size n is clamped to it (n < v).  Decided by the
 * facts and ranges, else by the hints with a guard on the outcome.  A data-dependent
 * bound that nothing decides is taken as not past the end, as torch does
 * (guard_or_false), and the library checks that on the call. */
static bool bound_past_end(sc_rule_ctx *rc, const sc_expr *n, const sc_expr *v) {
  const sc_expr *past = sc_expr_rel(rc->ctx, SC_EXPR_LT, n, v), *within = sc_expr_rel(rc->ctx, SC_EXPR_LE, v, n);
  sc_truth t = sc_env_decide(rc->env, past);
  if (t != SC_UNKNOWN) {
    rely_on(rc, "slice", t == SC_TRUE ? past : within);
    return t == SC_TRUE;
  }
  int64_t hn = 0, hv = 0;
  bool known = sc_env_hint(rc->env, n, &hn) && sc_env_hint(rc->env, v, &hv);
  bool result = known && hn < hv;
  guard(rc, "slice", result ? past : within);
  return result;
}

/* Whether the ranges decide cond only thanks to tracing's floor of 2: then a slice keeps
 * its exact clamp (Min(2, s0) for x[:2]), so that sizes 0 and 1, which ep.module() runs,
 * give torch's result instead of reading past the input.  The program's own meta says 2;
 * both agree from 2 up. */
static bool floor_decides(sc_rule_ctx *rc, const sc_expr *cond) {
  return sc_env_decide(rc->env, cond) == SC_TRUE && sc_env_needs_tracing_floor(rc->env, cond);
}

/* Whether a <= b by their form: a is b, or a Min with b among its arguments. */
static bool clamped_below(const sc_expr *a, const sc_expr *b) {
  if (a == b) return true;
  if (a->kind != SC_EXPR_MIN) return false;
  for (uint32_t i = 0; i < a->n_args; i++)
    if (a->args[i] == b) return true;
  return false;
}

/* Clamps a slice bound to [0, n] the way torch does, guarding on the decision. */
static const sc_expr *clamp_bound(sc_rule_ctx *rc, const sc_expr *v, const sc_expr *n) {
  int64_t c = 0;
  sc_ctx *ctx = rc->ctx;
  const sc_expr *zero = sc_expr_int(ctx, 0);
  bool is_const = sc_expr_is_const(v, &c);
  if (is_const && c == INT64_MAX) return n;
  /* a negative bound counts from the end: a constant, or a symbolic one whose sign the
   * ranges or the sample decide (x[:, -n:] with n a size, XLM's and MiniMax's) */
  bool negative = is_const ? c < 0
                           : sc_env_decide(rc->env, sc_expr_rel(ctx, SC_EXPR_LE, zero, v)) != SC_TRUE &&
                                 !le_by_hint(rc, "slice", zero, v);
  if (negative) {
    v = sc_expr_add(ctx, n, v);
    if (floor_decides(rc, sc_expr_rel(ctx, SC_EXPR_LE, zero, v))) return sc_expr_max(ctx, zero, v);
    if (!le_by_hint(rc, "slice", zero, v)) return zero;
    return v;
  }
  if (floor_decides(rc, sc_expr_rel(ctx, SC_EXPR_LE, v, n)) || floor_decides(rc, sc_expr_rel(ctx, SC_EXPR_LT, n, v)))
    return sc_expr_min(ctx, n, v);
  return bound_past_end(rc, n, v) ? n : v;
}

static bool rule_slice(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  int64_t dim = 0, step = 0;
  int d = 0;
  if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "dim", 0, false, &dim) ||
      !const_int_arg(rc, "step", 1, false, &step) || !norm_dim(rc, dim, s.rank, &d))
    return false;
  if (step <= 0) return rule_error(rc, "slice step must be positive");
  const sc_expr *n = s.d[d];
  const sc_expr *start = int_arg(rc, "start", sc_expr_int(rc->ctx, 0));
  const sc_expr *end = int_arg(rc, "end", sc_expr_int(rc->ctx, INT64_MAX));
  if (!start || !end) return false;
  start = clamp_bound(rc, start, n);
  end = clamp_bound(rc, end, n);
  if (clamped_below(start, end)) { /* Min(2, n) <= n whatever n is */
  } else if (floor_decides(rc, sc_expr_rel(rc->ctx, SC_EXPR_LE, start, end))) end = sc_expr_max(rc->ctx, start, end);
  else if (!le_by_hint(rc, "slice", start, end)) end = start;
  const sc_expr *len = sc_expr_sub(rc->ctx, end, start);
  if (step != 1)
    len = sc_expr_floordiv(rc->ctx, sc_expr_add(rc->ctx, len, sc_expr_int(rc->ctx, step - 1)), sc_expr_int(rc->ctx, step));
  s.d[d] = len;
  return set_out(rc, 0, &s);
}

static bool rule_select(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !shape_of(rc, x, &in) || !const_int_arg(rc, "dim", 0, true, &dim) || !norm_dim(rc, dim, in.rank, &d))
    return false;
  const sc_expr *index = int_arg(rc, "index", NULL);
  if (!index) return false;
  int64_t c = 0;
  if (sc_expr_is_const(index, &c) && c < 0)
    guard(rc, "select", sc_expr_rel(rc->ctx, SC_EXPR_LE, sc_expr_int(rc->ctx, -c), in.d[d]));
  else
    guard(rc, "select", sc_expr_rel(rc->ctx, SC_EXPR_LT, index, in.d[d]));
  for (int i = 0; i < in.rank; i++)
    if (i != d) out.d[out.rank++] = in.d[i];
  return set_out(rc, 0, &out);
}

static bool rule_narrow(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "dim", 0, true, &dim) || !norm_dim(rc, dim, s.rank, &d))
    return false;
  const sc_expr *start = int_arg(rc, "start", NULL), *length = int_arg(rc, "length", NULL);
  if (!start || !length) return false;
  guard(rc, "narrow", sc_expr_rel(rc->ctx, SC_EXPR_LE, sc_expr_add(rc->ctx, start, length), s.d[d]));
  s.d[d] = length;
  return set_out(rc, 0, &s);
}

static const sc_arg *tensors_arg(sc_rule_ctx *rc, const char *name) {
  const sc_arg *a = arg(rc, name);
  if (!a || (a->kind != SC_ARG_TENSORS && a->kind != SC_ARG_OPTIONAL_TENSORS) || !a->n_items) {
    rule_error(rc, "argument '%s' must be a non-empty list of tensors", name);
    return NULL;
  }
  return a;
}

static bool rule_cat(sc_rule_ctx *rc, bool stack) {
  const sc_arg *ts = tensors_arg(rc, "tensors");
  int64_t dim = 0;
  if (!ts || !const_int_arg(rc, "dim", 0, false, &dim)) return false;
  shape acc = {-1, {0}};
  int d = 0;
  for (size_t i = 0; i < ts->n_items; i++) {
    const sc_value *v = ts->items[i].value;
    shape s = {0};
    if (!v) return rule_error(rc, "tensor list entry %zu is None", i);
    if (!shape_of(rc, v, &s)) return false;
    int64_t z = 0;
    if (!stack && s.rank == 1 && sc_expr_is_const(s.d[0], &z) && z == 0) continue; /* legacy empty tensor */
    if (acc.rank < 0) {
      acc = s;
      if (!norm_dim(rc, dim, stack ? s.rank + 1 : s.rank, &d)) return false;
      continue;
    }
    if (s.rank != acc.rank) return rule_error(rc, "tensors of ranks %d and %d", acc.rank, s.rank);
    for (int k = 0; k < s.rank; k++) {
      if (!stack && k == d) acc.d[k] = sc_expr_add(rc->ctx, acc.d[k], s.d[k]);
      else acc.d[k] = eq_guard(rc, stack ? "stack" : "cat", acc.d[k], s.d[k]);
    }
  }
  if (acc.rank < 0) {
    acc.rank = 1;
    acc.d[0] = sc_expr_int(rc->ctx, 0);
  }
  if (stack) {
    if (acc.rank + 1 > MAX_RANK) return rule_error(rc, "rank too large");
    for (int k = acc.rank; k > d; k--) acc.d[k] = acc.d[k - 1];
    acc.d[d] = sc_expr_int(rc->ctx, (int64_t)ts->n_items);
    acc.rank++;
  }
  return set_out(rc, 0, &acc);
}

/* vstack: cat along dim 0 of each tensor made at least 2-D ([n] -> [1, n]); hstack: cat
 * of each made at least 1-D, along dim 0 where they are vectors, else along dim 1. */
static bool rule_hv_stack(sc_rule_ctx *rc, bool vertical) {
  const sc_arg *ts = tensors_arg(rc, "tensors");
  if (!ts) return false;
  if (!ts->n_items) return rule_error(rc, "%s expects a non-empty TensorList", vertical ? "vstack" : "hstack");
  shape acc = {-1, {0}};
  int d = 0;
  for (size_t i = 0; i < ts->n_items; i++) {
    const sc_value *v = ts->items[i].value;
    shape s = {0};
    if (!v) return rule_error(rc, "tensor list entry %zu is None", i);
    if (!shape_of(rc, v, &s)) return false;
    int least = vertical ? 2 : 1;
    if (s.rank < least) { /* atleast_1d / atleast_2d: leading dims of size 1 */
      int lead = least - s.rank;
      for (int k = s.rank - 1; k >= 0; k--) s.d[k + lead] = s.d[k];
      for (int k = 0; k < lead; k++) s.d[k] = sc_expr_int(rc->ctx, 1);
      s.rank = least;
    }
    if (acc.rank < 0) {
      acc = s;
      d = vertical || s.rank == 1 ? 0 : 1;
      continue;
    }
    if (s.rank != acc.rank)
      return rule_error(rc, "Tensors must have same number of dimensions: got %d and %d", acc.rank, s.rank);
    for (int k = 0; k < s.rank; k++)
      acc.d[k] = k == d ? sc_expr_add(rc->ctx, acc.d[k], s.d[k]) : eq_guard(rc, vertical ? "vstack" : "hstack", acc.d[k], s.d[k]);
  }
  return set_out(rc, 0, &acc);
}

/* outer(self [n], vec2 [m]) -> [n, m]; kron(a, b): both padded with leading 1s to the
 * larger rank, each size the product of the two. */
static bool rule_kron(sc_rule_ctx *rc, bool outer) {
  const sc_value *a = tensor_arg(rc, "self", true), *b = tensor_arg(rc, outer ? "vec2" : "other", true);
  shape sa = {0}, sb = {0}, out = {0};
  if (!a || !b || !shape_of(rc, a, &sa) || !shape_of(rc, b, &sb)) return false;
  if (outer) {
    if (sa.rank != 1) return rule_error(rc, "outer: Expected 1-D argument self, but got %d-D", sa.rank);
    if (sb.rank != 1) return rule_error(rc, "outer: Expected 1-D argument vec2, but got %d-D", sb.rank);
    out.rank = 2;
    out.d[0] = sa.d[0];
    out.d[1] = sb.d[0];
    return set_out(rc, 0, &out);
  }
  out.rank = sa.rank > sb.rank ? sa.rank : sb.rank;
  for (int k = 0; k < out.rank; k++) {
    int ka = k - (out.rank - sa.rank), kb = k - (out.rank - sb.rank);
    const sc_expr *one = sc_expr_int(rc->ctx, 1);
    out.d[k] = sc_expr_mul(rc->ctx, ka < 0 ? one : sa.d[ka], kb < 0 ? one : sb.d[kb]);
  }
  return set_out(rc, 0, &out);
}

/* split / chunk: the program fixes the number of outputs; the sizes follow from it. */
static bool rule_split(sc_rule_ctx *rc, int kind) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "dim", 0, false, &dim) || !norm_dim(rc, dim, s.rank, &d))
    return false;
  int k = n_output_tensors(rc);
  const sc_expr *n = s.d[d];
  if (kind == 1) { /* split_with_sizes */
    const sc_expr *sizes[MAX_RANK * 8];
    int m = ints_arg(rc, "split_sizes", sizes, MAX_RANK * 8, -1);
    if (m < 0) return rule_error(rc, "missing split_sizes");
    if (m != k) return rule_error(rc, "%d split sizes for %d outputs", m, k);
    const sc_expr *sum = sc_expr_int(rc->ctx, 0);
    for (int i = 0; i < m; i++) sum = sc_expr_add(rc->ctx, sum, sizes[i]);
    eq_guard(rc, "split", sum, n);
    for (int i = 0; i < m; i++) {
      s.d[d] = sizes[i];
      if (!set_out(rc, i, &s)) return false;
    }
    return true;
  }
  if (kind == 3) { /* tensor_split(indices): piece i is [min(idx[i-1], n), min(idx[i], n)) */
    const sc_expr *idx[MAX_RANK * 8];
    int m = ints_arg(rc, "indices", idx, MAX_RANK * 8, -1);
    if (m < 0) return rule_error(rc, "missing indices");
    if (m + 1 != k) return rule_error(rc, "%d indices for %d outputs", m, k);
    const sc_expr *prev = sc_expr_int(rc->ctx, 0);
    for (int i = 0; i <= m; i++) {
      int64_t a, b;
      if (i < m && (!sc_expr_is_const(idx[i], &b) || b < 0 || (i && sc_expr_is_const(idx[i - 1], &a) && b < a)))
        return rule_error(rc, "tensor_split with indices that are not constant, non-negative and increasing has no "
                          "rule yet");
      const sc_expr *end = i < m ? sc_expr_min(rc->ctx, idx[i], n) : n;
      s.d[d] = sc_expr_sub(rc->ctx, end, prev);
      if (!set_out(rc, i, &s)) return false;
      prev = end;
    }
    return true;
  }
  const sc_expr *piece;
  if (kind == 0) {
    piece = int_arg(rc, "split_size", NULL);
  } else { /* chunk: ceil(n / chunks) */
    int64_t chunks = 0;
    if (!const_int_arg(rc, "chunks", 0, true, &chunks)) return false;
    if (chunks <= 0) return rule_error(rc, "chunks must be positive");
    piece = sc_expr_floordiv(rc->ctx, sc_expr_add(rc->ctx, n, sc_expr_int(rc->ctx, chunks - 1)), sc_expr_int(rc->ctx, chunks));
  }
  if (!piece) return false;
  if (k <= 0) return rule_error(rc, "no outputs");
  /* k pieces, guarded as torch's decomposition guards them: (n + piece - 1) // piece == k,
   * an equality on a floor division, which narrows no range in torch (its try_solve gives
   * no bound for it: split(h, 3) into 2 leaves an AUTO n in [3, oo], not [4, 6]; a named
   * Dim is pinned to its sample), and n - (k-1)*piece >= 0, the last piece's size */
  const sc_expr *before = sc_expr_mul(rc->ctx, sc_expr_int(rc->ctx, k - 1), piece);
  const sc_expr *count = sc_expr_floordiv(rc->ctx, sc_expr_sub(rc->ctx, sc_expr_add(rc->ctx, n, piece), sc_expr_int(rc->ctx, 1)),
                                          piece);
  guard(rc, "split", sc_expr_rel(rc->ctx, SC_EXPR_EQ, count, sc_expr_int(rc->ctx, k)));
  guard(rc, "split", sc_expr_rel(rc->ctx, SC_EXPR_GE, sc_expr_sub(rc->ctx, n, before), sc_expr_int(rc->ctx, 0)));
  for (int i = 0; i < k; i++) {
    s.d[d] = i < k - 1 ? piece : sc_expr_sub(rc->ctx, n, before);
    if (!set_out(rc, i, &s)) return false;
  }
  return true;
}

static bool rule_unbind(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !shape_of(rc, x, &in) || !const_int_arg(rc, "dim", 0, false, &dim) || !norm_dim(rc, dim, in.rank, &d))
    return false;
  int k = n_output_tensors(rc);
  eq_guard(rc, "unbind", in.d[d], sc_expr_int(rc->ctx, k));
  for (int i = 0; i < in.rank; i++)
    if (i != d) out.d[out.rank++] = in.d[i];
  for (int i = 0; i < k; i++)
    if (!set_out(rc, i, &out)) return false;
  return true;
}

static bool rule_index_select(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true), *index = tensor_arg(rc, "index", true);
  shape s = {0}, is = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !index || !shape_of(rc, x, &s) || !shape_of(rc, index, &is) || !const_int_arg(rc, "dim", 0, true, &dim) ||
      !norm_dim(rc, dim, s.rank, &d))
    return false;
  if (is.rank > 1) return rule_error(rc, "index_select(): Index is supposed to be a vector");
  if (s.rank) s.d[d] = is.rank ? is.d[0] : sc_expr_int(rc->ctx, 1);
  return set_out(rc, 0, &s);
}

/* index_copy(self, dim, index, source): self's shape; source has self's rank and sizes
 * except along dim, where it has one position per index entry (torch's checks, as
 * equalities). */
/* index_copy and index_add (what, its name in torch's messages): source's slices along dim
 * go to the positions index lists. */
static bool rule_index_copy(sc_rule_ctx *rc, const char *what) {
  const sc_value *x = tensor_arg(rc, "self", true), *index = tensor_arg(rc, "index", true),
                 *src = tensor_arg(rc, "source", true);
  shape s = {0}, is = {0}, ss = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !index || !src || !shape_of(rc, x, &s) || !shape_of(rc, index, &is) || !shape_of(rc, src, &ss) ||
      !const_int_arg(rc, "dim", 0, true, &dim) || !norm_dim(rc, dim, s.rank, &d))
    return false;
  if (is.rank > 1) return rule_error(rc, "%s(): Index should have dimension 1 or 0 (got %d)", what, is.rank);
  if (index->meta.dtype != SC_DTYPE_I64)
    return rule_error(rc, "%s(): Expected a long tensor for index, but got %s", what, sc_dtype_name(index->meta.dtype));
  if (ss.rank != s.rank && !(s.rank == 0 && ss.rank <= 1) && !(ss.rank == 0 && s.rank == 1))
    return rule_error(rc, "%s(): When source and destination are not scalars, their dimensionality must "
                      "match. Source dimensionality (%d), destination dimensionality (%d)", what, ss.rank, s.rank);
  const sc_expr *n_index = is.rank ? is.d[0] : sc_expr_int(rc->ctx, 1);
  if (ss.rank == s.rank && s.rank > 0) {
    for (int k = 0; k < s.rank; k++)
      if (k != d) eq_guard(rc, "index_copy", ss.d[k], s.d[k]);
    eq_guard(rc, "index_copy", ss.d[d], n_index);
  }
  return set_out(rc, 0, &s);
}

static bool rule_embedding(sc_rule_ctx *rc) {
  const sc_value *w = tensor_arg(rc, "weight", true), *idx = tensor_arg(rc, "indices", true);
  shape ws = {0}, out = {0};
  if (!w || !idx || !shape_of(rc, w, &ws) || !shape_of(rc, idx, &out)) return false;
  if (ws.rank != 2) return rule_error(rc, "weight must be 2-D");
  if (out.rank + 1 > MAX_RANK) return rule_error(rc, "rank too large");
  out.d[out.rank++] = ws.d[1];
  return set_out(rc, 0, &out);
}

/* _embedding_bag and its overloads: [bags, width] and the three results torch's CPU meta
 * gives for the backward (offset2bag, bag_size, max_indices), whose sizes depend on the
 * mode and on whether ATen's fast sum path applies. */
static bool rule_embedding_bag(sc_rule_ctx *rc) {
  const sc_value *w = tensor_arg(rc, "weight", true), *idx = tensor_arg(rc, "indices", true),
                 *off = tensor_arg(rc, "offsets", true);
  shape ws = {0}, is = {0}, os = {0};
  if (!w || !idx || !off || !shape_of(rc, w, &ws) || !shape_of(rc, idx, &is) || !shape_of(rc, off, &os)) return false;
  int64_t mode = 0, padding_idx = -1;
  if (!const_int_arg(rc, "mode", 0, false, &mode) || !const_int_arg(rc, "padding_idx", -1, false, &padding_idx))
    return false;
  if (ws.rank != 2) return rule_error(rc, "weight must be 2-D");
  if (is.rank != 1 || os.rank != 1)
    return rule_error(rc, "input has to be 1D or 2D Tensor, but got Tensor of dimension %d", is.rank);
  if (mode < 0 || mode > 2) return rule_error(rc, "mode has to be one of sum, mean or max");
  const sc_value *psw = tensor_arg(rc, "per_sample_weights", false);
  if (psw) {
    shape ps = {0};
    if (!shape_of(rc, psw, &ps)) return false;
    if (mode != 0) return rule_error(rc, "embedding_bag: per_sample_weights only supported with mode='sum'");
    if (ps.rank != 1) return rule_error(rc, "expected per_sample_weights to be 1D tensor, got %dD", ps.rank);
  }
  bool last = bool_arg(rc, "include_last_offset", false);
  const sc_expr *bags = last ? sc_expr_sub(rc->ctx, os.d[0], sc_expr_int(rc->ctx, 1)) : os.d[0];
  if (last) /* torch: "include_last_offset: number of offset should be at least 1" */
    guard(rc, "embedding_bag", sc_expr_rel(rc->ctx, SC_EXPR_GE, os.d[0], sc_expr_int(rc->ctx, 1)));
  shape out = {.rank = 2, .d = {bags, ws.d[1]}}, per_bag = {.rank = 1, .d = {bags}};
  sc_dtype wt = w->meta.dtype;
  bool fast_sum = (wt == SC_DTYPE_F32 || wt == SC_DTYPE_F16) && padding_idx < 0;
  shape offset2bag = {.rank = 1, .d = {mode != 0 || !fast_sum ? is.d[0] : sc_expr_int(rc->ctx, 0)}};
  bool forward_only = strstr(rc->node->target, "_forward_only") != NULL;
  return set_out(rc, 0, &out) && set_out(rc, 1, &offset2bag) && set_out(rc, 2, forward_only ? &os : &per_bag) &&
         set_out(rc, 3, mode == 2 ? &out : &per_bag);
}

/* Sizes as torch prints them: "[4, 7]" (a symbolic size as its expression). */
static const char *sizes_text(sc_rule_ctx *rc, const shape *s) {
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, "[");
  for (int i = 0; i < s->rank; i++) sc_strbuf_printf(&sb, "%s%s", i ? ", " : "", sc_expr_to_string(rc->ctx, s->d[i]));
  sc_strbuf_append(&sb, "]");
  const char *text = sc_arena_strdup(&rc->ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return text;
}

/* gather: the output has the index's shape.  torch checks (unless the index is empty) that
 * the ranks agree, a 0-d tensor counting as 1-d, and that the index is no larger than self
 * apart from dim: here where both sizes are known, in the library's kernel where not. */
static bool rule_gather(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true), *index = tensor_arg(rc, "index", true);
  shape s = {0}, is = {0};
  int64_t dim = 0, n = 1, a, b;
  int d = 0;
  if (!x || !index || !shape_of(rc, x, &s) || !shape_of(rc, index, &is) || !const_int_arg(rc, "dim", 0, true, &dim) ||
      !norm_dim(rc, dim, s.rank, &d))
    return false;
  bool empty = sc_expr_is_const(numel(rc, &is, 0, is.rank), &n) && n == 0;
  if (!empty && (s.rank ? s.rank : 1) != (is.rank ? is.rank : 1))
    return rule_error(rc, "Index tensor must have the same number of dimensions as input tensor");
  for (int i = 0; !empty && i < s.rank && i < is.rank; i++)
    if (i != d && sc_expr_is_const(is.d[i], &a) && sc_expr_is_const(s.d[i], &b) && a > b)
      return rule_error(rc, "Size does not match at dimension %d expected index %s to be no larger than self %s apart "
                        "from dimension %d", i, sizes_text(rc, &is), sizes_text(rc, &s), d);
  return set_out(rc, 0, &is);
}

/* as_strided(self, size, stride, storage_offset): `size`; negative strides refused as torch does. */
static bool rule_as_strided(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0}, out = {0}, st = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  out.rank = ints_arg(rc, "size", out.d, MAX_RANK, -1);
  st.rank = ints_arg(rc, "stride", st.d, MAX_RANK, -1);
  if (out.rank < 0 || st.rank < 0) return false;
  if (out.rank != st.rank)
    return rule_error(rc, "mismatch in length of strides and shape (%d strides for %d sizes)", st.rank, out.rank);
  for (int i = 0; i < st.rank; i++) {
    int64_t v;
    if (sc_expr_is_const(st.d[i], &v) && v < 0) return rule_error(rc, "as_strided: Negative strides are not supported at the moment, got strides: %lld at dim %d", (long long)v, i);
  }
  return set_out(rc, 0, &out);
}

/* as_strided_scatter(self, src, size, stride, storage_offset): self's shape; src is what
 * as_strided(self, size, stride) would read (fill_diagonal_ after run_decompositions()). */
static bool rule_as_strided_scatter(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true), *src = tensor_arg(rc, "src", true);
  shape s = {0}, sz = {0}, st = {0}, ss = {0};
  if (!x || !src || !shape_of(rc, x, &s) || !shape_of(rc, src, &ss)) return false;
  sz.rank = ints_arg(rc, "size", sz.d, MAX_RANK, -1);
  st.rank = ints_arg(rc, "stride", st.d, MAX_RANK, -1);
  if (sz.rank < 0 || st.rank < 0) return false;
  if (sz.rank != st.rank)
    return rule_error(rc, "mismatch in length of strides and shape (%d strides for %d sizes)", st.rank, sz.rank);
  if (ss.rank != sz.rank)
    return rule_error(rc, "expected src to have a size equal to the slice of self: src of rank %d, slice of rank %d",
                      ss.rank, sz.rank);
  for (int i = 0; i < sz.rank; i++) eq_guard(rc, "as_strided_scatter", ss.d[i], sz.d[i]);
  return set_out(rc, 0, &s);
}

/* grid_sampler_2d(input [n, c, h, w], grid [n, gh, gw, 2]) -> [n, c, gh, gw] */
static bool rule_grid_sampler(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "input", true), *gr = tensor_arg(rc, "grid", true);
  shape s = {0}, gs = {0};
  if (!x || !gr || !shape_of(rc, x, &s) || !shape_of(rc, gr, &gs)) return false;
  if (s.rank != 4 || gs.rank != 4)
    return rule_error(rc, "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input "
                      "with sizes of rank %d and grid of rank %d (2-D sampling only)", s.rank, gs.rank);
  eq_guard(rc, "grid_sampler", s.d[0], gs.d[0]);
  eq_guard(rc, "grid_sampler", gs.d[3], sc_expr_int(rc->ctx, 2));
  shape out = {4, {s.d[0], s.d[1], gs.d[1], gs.d[2]}};
  return set_out(rc, 0, &out);
}

/* diagonal(self, offset, dim1, dim2): the other dims, then the diagonal's length
 * max(0, min(s1, s2 - offset)) (offset >= 0) or max(0, min(s1 + offset, s2)). */
static bool rule_diagonal(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  int64_t off = 0, d1 = 0, d2 = 1;
  int a = 0, b = 0;
  if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "offset", 0, false, &off) || !const_int_arg(rc, "dim1", 0, false, &d1) ||
      !const_int_arg(rc, "dim2", 1, false, &d2))
    return false;
  if (s.rank < 2) return rule_error(rc, "diagonal dimensions requires ndim larger than 1, got %d", s.rank);
  if (!norm_dim(rc, d1, s.rank, &a) || !norm_dim(rc, d2, s.rank, &b)) return false;
  if (a == b) return rule_error(rc, "diagonal dimensions cannot be identical %lld, %lld", (long long)d1, (long long)d2);
  sc_ctx *c = rc->ctx;
  const sc_expr *len = off >= 0 ? sc_expr_min(c, s.d[a], sc_expr_add(c, s.d[b], sc_expr_int(c, -off)))
                                : sc_expr_min(c, sc_expr_add(c, s.d[a], sc_expr_int(c, off)), s.d[b]);
  shape out = {0};
  for (int i = 0; i < s.rank; i++)
    if (i != a && i != b) out.d[out.rank++] = s.d[i];
  /* sizes are never negative: with no offset the minimum of two is its own length */
  out.d[out.rank++] = off == 0 ? len : sc_expr_max(c, len, sc_expr_int(c, 0));
  return set_out(rc, 0, &out);
}

/* The Fourier transforms: the transformed dims, the last of which a real-to-complex one
 * halves (n / 2 + 1) and a complex-to-real one sets (last_dim_size, n, or 2 (m - 1)).  A
 * signal length `n` / `s` other than the input's own is not taken yet. */
static bool rule_fft(sc_rule_ctx *rc) {
  int id = rc->node->op->id;
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  int64_t dims[MAX_RANK];
  int nd = 0;
  bool underscore = id == SC_OP_FFT_C2C || id == SC_OP_FFT_R2C || id == SC_OP_FFT_C2R;
  bool many = id == SC_OP_FFT_FFTN || id == SC_OP_FFT_IFFTN;
  if (!arg_is_none(arg(rc, many ? "s" : "n")) && !underscore)
    return rule_error(rc, "a signal length other than the input's own is not supported yet");
  if (underscore || many) {
    if (arg_is_none(arg(rc, "dim"))) {
      if (underscore) return rule_error(rc, "missing dim");
      for (int i = 0; i < s.rank; i++) dims[nd++] = i;
    } else if (!const_ints_arg(rc, "dim", dims, MAX_RANK, &nd, -1)) {
      return false;
    }
  } else {
    if (!const_int_arg(rc, "dim", -1, false, &dims[0])) return false;
    nd = 1;
  }
  if (nd == 0) return rule_error(rc, "no dim to transform");
  int last = 0;
  for (int i = 0; i < nd; i++)
    if (!norm_dim(rc, dims[i], s.rank, &last)) return false;
  sc_ctx *c = rc->ctx;
  shape out = s;
  if ((id == SC_OP_FFT_R2C && bool_arg(rc, "onesided", true)) || id == SC_OP_FFT_RFFT)
    out.d[last] = sc_expr_add(c, sc_expr_floordiv(c, s.d[last], sc_expr_int(c, 2)), sc_expr_int(c, 1));
  if (id == SC_OP_FFT_C2R) {
    const sc_expr *n = int_arg(rc, "last_dim_size", NULL);
    if (!n) return false;
    out.d[last] = n;
  }
  if (id == SC_OP_FFT_IRFFT) out.d[last] = sc_expr_mul(c, sc_expr_sub(c, s.d[last], sc_expr_int(c, 1)), sc_expr_int(c, 2));
  /* torch: "Invalid number of data points (0) specified" for an empty signal */
  bool to_real = id == SC_OP_FFT_C2R || id == SC_OP_FFT_IRFFT;
  for (int i = 0; i < nd; i++) {
    int d = (int)(dims[i] < 0 ? dims[i] + s.rank : dims[i]);
    guard(rc, "fft", sc_expr_rel(c, SC_EXPR_GE, to_real && d == last ? out.d[d] : s.d[d], sc_expr_int(c, 1)));
  }
  return set_out(rc, 0, &out);
}

/* _cdist_forward(x1 [.., P, M], x2 [.., R, M]) -> [.., P, R]; _pdist_forward([N, M]) -> [N (N - 1) / 2] */
static bool rule_distance(sc_rule_ctx *rc, bool pairs) {
  sc_ctx *c = rc->ctx;
  if (pairs) {
    const sc_value *x = tensor_arg(rc, "self", false);
    if (!x) x = tensor_arg(rc, "input", true);
    shape s = {0};
    if (!x || !shape_of(rc, x, &s)) return false;
    if (s.rank != 2) return rule_error(rc, "pdist only supports 2D tensors, got: %dD", s.rank);
    shape out = {1, {sc_expr_floordiv(c, sc_expr_mul(c, s.d[0], sc_expr_add(c, s.d[0], sc_expr_int(c, -1))), sc_expr_int(c, 2))}};
    return set_out(rc, 0, &out);
  }
  const sc_value *a = tensor_arg(rc, "x1", true), *b = tensor_arg(rc, "x2", true);
  shape sa = {0}, sb = {0};
  if (!a || !b || !shape_of(rc, a, &sa) || !shape_of(rc, b, &sb)) return false;
  if (sa.rank < 2 || sa.rank != sb.rank)
    return rule_error(rc, "cdist takes x1 and x2 of one rank, at least 2 (got %d and %d)", sa.rank, sb.rank);
  eq_guard(rc, "cdist", sa.d[sa.rank - 1], sb.d[sb.rank - 1]);
  for (int i = 0; i < sa.rank - 2; i++) eq_guard(rc, "cdist", sa.d[i], sb.d[i]);
  shape out = sa;
  out.d[sa.rank - 1] = sb.d[sb.rank - 2];
  return set_out(rc, 0, &out);
}

/* einsum(equation, tensors): each output label's size, the operands' sizes for a label
 * broadcast as elementwise operands' do (equal, or one of them 1). */
static bool rule_einsum(sc_rule_ctx *rc) {
  const sc_arg *ts = tensors_arg(rc, "tensors"), *eq = arg(rc, "equation");
  if (!ts || arg_is_none(eq) || eq->kind != SC_ARG_STRING) return rule_error(rc, "einsum needs an equation and tensors");
  int n = (int)ts->n_items, ranks[SC_EINSUM_MAX_OPERANDS];
  if (n < 1 || n > SC_EINSUM_MAX_OPERANDS) return rule_error(rc, "einsum of %d operands", n);
  shape s[SC_EINSUM_MAX_OPERANDS];
  for (int i = 0; i < n; i++) {
    memset(&s[i], 0, sizeof s[i]);
    if (!ts->items[i].value || !shape_of(rc, ts->items[i].value, &s[i])) return false;
    ranks[i] = s[i].rank;
  }
  sc_einsum e;
  char err[200];
  if (!sc_einsum_parse(eq->items[0].s, ranks, n, &e, err, sizeof err)) return rule_error(rc, "%s", err);
  const sc_expr *size[SC_EINSUM_LABELS] = {0};
  for (int i = 0; i < n; i++)
    for (int d = 0; d < e.rank[i]; d++) {
      int l = e.labels[i][d];
      if (!size[l]) {
        size[l] = s[i].d[d];
        continue;
      }
      shape acc = {1, {size[l]}}, one = {1, {s[i].d[d]}}; /* sizes broadcast as elementwise operands' do */
      broadcast(rc, &acc, &one);
      size[l] = acc.d[0];
    }
  shape out = {e.out_rank, {0}};
  for (int d = 0; d < e.out_rank; d++) out.d[d] = size[e.out[d]] ? size[e.out[d]] : sc_expr_int(rc->ctx, 1);
  return set_out(rc, 0, &out);
}

/* repeat_interleave(self, repeats, dim): dim's size times repeats (no dim: the flattened
 * tensor's); a tensor of repeats is refused (its output size depends on the data). */
static bool rule_repeat_interleave(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  const sc_expr *rep = int_arg(rc, "repeats", NULL);
  if (!rep) return false;
  const sc_arg *da = arg(rc, "dim");
  if (arg_is_none(da)) {
    shape out = {1, {sc_expr_mul(rc->ctx, numel(rc, &s, 0, s.rank), rep)}};
    return set_out(rc, 0, &out);
  }
  int64_t dim = 0;
  int d = 0;
  if (!const_int_arg(rc, "dim", 0, true, &dim) || !norm_dim(rc, dim, s.rank, &d)) return false;
  if (s.rank) s.d[d] = sc_expr_mul(rc->ctx, s.d[d], rep);
  return set_out(rc, 0, &s);
}

/* meshgrid(tensors, indexing): every output [n0, n1, ...] ("xy": the first two swapped). */
static bool rule_meshgrid(sc_rule_ctx *rc) {
  const sc_arg *ts = tensors_arg(rc, "tensors");
  if (!ts) return false;
  shape out = {(int)ts->n_items, {0}};
  if (out.rank > MAX_RANK) return rule_error(rc, "meshgrid of %d tensors", out.rank);
  for (int i = 0; i < out.rank; i++) {
    shape s = {0};
    if (!ts->items[i].value || !shape_of(rc, ts->items[i].value, &s)) return false;
    if (s.rank > 1) return rule_error(rc, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a %dD one", s.rank);
    out.d[i] = s.rank ? s.d[0] : sc_expr_int(rc->ctx, 1);
  }
  const sc_arg *ia = arg(rc, "indexing");
  if (!arg_is_none(ia) && ia->kind == SC_ARG_STRING && strcmp(ia->items[0].s, "xy") == 0 && out.rank >= 2) {
    const sc_expr *t = out.d[0];
    out.d[0] = out.d[1];
    out.d[1] = t;
  }
  for (int i = 0; i < out.rank; i++)
    if (!set_out(rc, i, &out)) return false;
  return true;
}

/* grouped_mm_fallback(input [S, K], weight [E, K, N], offs [E]) -> [S, N]; aten._grouped_mm(self, mat2,
 * offs) the same in its 2-d by 3-d form (its other forms, and a bias, are refused) */
static bool rule_grouped_mm(sc_rule_ctx *rc) {
  bool aten = rc->node->op->id == SC_OP_GROUPED_MM;
  if (aten && !arg_is_none(arg(rc, "bias")))
    return rule_error(rc, "_grouped_mm with a bias has no lowering yet (add the bias after the product)");
  if (aten && arg_is_none(arg(rc, "offs")))
    return rule_error(rc, "_grouped_mm without offsets (a batched product) has no lowering yet: use torch.bmm");
  const sc_value *x = tensor_arg(rc, aten ? "self" : "input", true), *w = tensor_arg(rc, aten ? "mat2" : "weight", true);
  const sc_value *o = tensor_arg(rc, "offs", true);
  shape xs = {0}, ws = {0}, os = {0};
  if (!x || !w || !o || !shape_of(rc, x, &xs) || !shape_of(rc, w, &ws) || !shape_of(rc, o, &os)) return false;
  if (xs.rank != 2 || ws.rank != 3 || os.rank != 1)
    return rule_error(rc, "grouped_mm takes a 2-d input, 3-d weights and 1-d offsets (got ranks %d, %d, %d)", xs.rank,
                      ws.rank, os.rank);
  eq_guard(rc, "grouped_mm", xs.d[1], ws.d[1]);
  eq_guard(rc, "grouped_mm", os.d[0], ws.d[0]);
  shape out = {2, {xs.d[0], ws.d[2]}};
  return set_out(rc, 0, &out);
}

/* histc(self, bins): [bins] counts */
static bool rule_histc(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  int64_t bins = 100;
  if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "bins", 100, false, &bins)) return false;
  if (bins <= 0) return rule_error(rc, "torch.histogramdd(): bins must be > 0, but got %lld for dimension 0", (long long)bins);
  shape out = {1, {sc_expr_int(rc->ctx, bins)}};
  return set_out(rc, 0, &out);
}

/* scatter / scatter_add / scatter_reduce: self's shape; index (and src) of self's rank,
 * index no larger than src, nor than self apart from dim (guards, as torch's; the kernel
 * checks them again, and every index, with torch's words). */
static bool rule_scatter(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true), *index = tensor_arg(rc, "index", true);
  const sc_value *src = tensor_arg(rc, "src", false);
  shape s = {0}, is = {0}, ss = {0};
  int64_t dim = 0, n = 1;
  int d = 0;
  if (!x || !index || !shape_of(rc, x, &s) || !shape_of(rc, index, &is) || !const_int_arg(rc, "dim", 0, true, &dim) ||
      !norm_dim(rc, dim, s.rank, &d))
    return false;
  if (src && !shape_of(rc, src, &ss)) return false;
  bool empty = sc_expr_is_const(numel(rc, &is, 0, is.rank), &n) && n == 0;
  if (!empty && (s.rank ? s.rank : 1) != (is.rank ? is.rank : 1))
    return rule_error(rc, "Index tensor must have the same number of dimensions as self tensor");
  if (!empty && src && (ss.rank ? ss.rank : 1) != (is.rank ? is.rank : 1))
    return rule_error(rc, "Index tensor must have the same number of dimensions as src tensor");
  /* torch's meta function guards the sizes: index no larger than src, nor than self apart from dim */
  for (int i = 0; !empty && i < is.rank && i < s.rank; i++) {
    if (src && i < ss.rank) guard(rc, "scatter", sc_expr_rel(rc->ctx, SC_EXPR_LE, is.d[i], ss.d[i]));
    if (i != d) guard(rc, "scatter", sc_expr_rel(rc->ctx, SC_EXPR_LE, is.d[i], s.d[i]));
  }
  return set_out(rc, 0, &s);
}

/* sort: values and indices of self's shape (argsort: the indices); topk: dim's size becomes k, at most that size. */
static bool rule_sort(sc_rule_ctx *rc, bool topk) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  int64_t dim = -1;
  int d = 0;
  if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "dim", -1, false, &dim) || !norm_dim(rc, dim, s.rank, &d))
    return false;
  if (topk) {
    const sc_expr *k = int_arg(rc, "k", NULL);
    if (!k) return false;
    const sc_expr *size = s.rank ? s.d[d] : sc_expr_int(rc->ctx, 1);
    guard(rc, "topk", sc_expr_rel(rc->ctx, SC_EXPR_GE, k, sc_expr_int(rc->ctx, 0)));
    guard(rc, "topk", sc_expr_rel(rc->ctx, SC_EXPR_LE, k, size));
    if (s.rank) s.d[d] = k;
  }
  return set_out(rc, 0, &s) && (rc->node->op->id == SC_OP_ARGSORT || set_out(rc, 1, &s));
}

/* repeat(x, repeats) and tile(x, dims), which first pads dims with leading 1s to x's rank */
static bool rule_repeat(sc_rule_ctx *rc, bool tile) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  const sc_expr *rep[MAX_RANK];
  int n = ints_arg(rc, tile ? "dims" : "repeats", rep, MAX_RANK, -1);
  if (n < 0) return false;
  if (tile && n < in.rank) {
    int lead = in.rank - n;
    for (int i = n - 1; i >= 0; i--) rep[i + lead] = rep[i];
    for (int i = 0; i < lead; i++) rep[i] = sc_expr_int(rc->ctx, 1);
    n = in.rank;
  }
  if (n < in.rank) return rule_error(rc, "repeat needs at least %d repeats", in.rank);
  out.rank = n;
  for (int i = 0; i < n; i++) {
    int k = i - (n - in.rank);
    out.d[i] = k < 0 ? rep[i] : sc_expr_mul(rc->ctx, in.d[k], rep[i]);
  }
  return set_out(rc, 0, &out);
}

/* pad / constant_pad_nd: pad holds (before, after) pairs from the last dim backwards; a
 * negative entry crops, and no size may end below 0. */
static bool rule_pad(sc_rule_ctx *rc) {
  int id = rc->node->op->id;
  bool named = id == SC_OP_REFLECTION_PAD || id == SC_OP_REPLICATION_PAD;
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  const sc_expr *pad[2 * MAX_RANK];
  int n = ints_arg(rc, named ? "padding" : "pad", pad, 2 * MAX_RANK, -1);
  if (n < 0) return false;
  if (n % 2 || n / 2 > in.rank)
    return rule_error(rc, "padding length must be divisible by 2 and at most twice the rank %d (got %d)", in.rank, n);
  const sc_arg *ma = arg(rc, "mode");
  const char *mode = id == SC_OP_REFLECTION_PAD ? "reflect" : id == SC_OP_REPLICATION_PAD ? "replicate"
                     : !arg_is_none(ma) && ma->kind == SC_ARG_STRING ? ma->items[0].s : "constant";
  shape out = in;
  for (int i = 0; i < n / 2; i++) {
    int d = in.rank - 1 - i;
    out.d[d] = sc_expr_add(rc->ctx, sc_expr_add(rc->ctx, in.d[d], pad[2 * i]), pad[2 * i + 1]);
    guard(rc, "pad", sc_expr_rel(rc->ctx, SC_EXPR_GE, out.d[d], sc_expr_int(rc->ctx, 0)));
    /* torch's checks on the modes that read the input: a reflection stays inside it, a
     * wrap goes around at most once */
    for (int k = 0; k < 2; k++) {
      if (strcmp(mode, "reflect") == 0) guard(rc, "reflection_pad", sc_expr_rel(rc->ctx, SC_EXPR_LT, pad[2 * i + k], in.d[d]));
      if (strcmp(mode, "circular") == 0) guard(rc, "pad", sc_expr_rel(rc->ctx, SC_EXPR_LE, pad[2 * i + k], in.d[d]));
    }
  }
  return set_out(rc, 0, &out);
}

/* upsample_nearest2d.vec: [n, c, h, w] to output_size, or to floor(h * sh), floor(w * sw)
 * for scale_factors, which must be whole numbers here (a symbolic size times 1.5 has no
 * exact form in these expressions). */
/* upsample_nearest2d and upsample_bilinear2d (.vec): the output size given, or the input's
 * times whole scale factors (floor(size * factor) is exact only for those). */
static bool rule_upsample2d(sc_rule_ctx *rc) {
  int id = rc->node->op->id;
  const char *what = id == SC_OP_UPSAMPLE_BILINEAR2D ? "upsample_bilinear2d"
                     : id == SC_OP_UPSAMPLE_BICUBIC2D ? "upsample_bicubic2d" : "upsample_nearest2d";
  const sc_value *x = tensor_arg(rc, "input", true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  if (s.rank != 4) return rule_error(rc, "%s expects a 4-D input, got %d dims", what, s.rank);
  const sc_expr *o[MAX_RANK];
  int n = ints_arg(rc, "output_size", o, MAX_RANK, 0);
  if (n < 0) return false;
  if (n == 2) {
    s.d[2] = o[0], s.d[3] = o[1];
    return set_out(rc, 0, &s);
  }
  const sc_arg *f = arg(rc, "scale_factors");
  if (n != 0 || arg_is_none(f) || f->kind != SC_ARG_FLOATS || f->n_items != 2)
    return rule_error(rc, "%s needs output_size or two scale_factors", what);
  for (int k = 0; k < 2; k++) {
    double v = f->items[k].f;
    if (!(v >= 1 && v <= 1 << 20 && v == (double)(int64_t)v))
      return rule_error(rc, "%s by %g has no exact size rule here (whole scale factors only)", what, v);
    s.d[2 + k] = sc_expr_mul(rc->ctx, s.d[2 + k], sc_expr_int(rc->ctx, (int64_t)v));
  }
  return set_out(rc, 0, &s);
}

/* Reductions over `dims` (NULL or empty: all), keeping them as 1 when keepdim. */
static bool reduce_shape(sc_rule_ctx *rc, const shape *in, const int64_t *dims, int n, bool all, bool keepdim, shape *out) {
  bool red[MAX_RANK] = {0};
  if (all) {
    for (int i = 0; i < in->rank; i++) red[i] = true;
  }
  for (int i = 0; i < n; i++) {
    int d = 0;
    if (!norm_dim(rc, dims[i], in->rank, &d)) return false;
    red[d] = true;
  }
  out->rank = 0;
  for (int i = 0; i < in->rank; i++) {
    if (!red[i]) out->d[out->rank++] = in->d[i];
    else if (keepdim) out->d[out->rank++] = sc_expr_int(rc->ctx, 1);
  }
  return true;
}

static bool rule_reduce(sc_rule_ctx *rc, const char *dim_name, bool empty_means_all, int n_outputs) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape in = {0}, out = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  int64_t dims[MAX_RANK];
  int n = 0;
  if (dim_name && !const_ints_arg(rc, dim_name, dims, MAX_RANK, &n, 0)) return false;
  bool all = !dim_name || (n == 0 && empty_means_all);
  if (!reduce_shape(rc, &in, dims, n, all, bool_arg(rc, "keepdim", false), &out)) return false;
  for (int i = 0; i < n_outputs; i++)
    if (!set_out(rc, i, &out)) return false;
  return true;
}

static bool rule_softmax(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  int64_t dim = 0;
  int d = 0;
  if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "dim", 0, true, &dim)) return false;
  if (s.rank && !norm_dim(rc, dim, s.rank, &d)) return false;
  return set_out(rc, 0, &s);
}

/* The trailing dims of the input must equal normalized_shape, as must weight and bias. */
/* A normalization's optional weight and bias: each of the shape `want` (n dims). */
static bool affine_params(sc_rule_ctx *rc, const char *rule, const sc_expr *const *want, int n) {
  static const char *const params[] = {"weight", "bias"};
  for (int p = 0; p < 2; p++) {
    const sc_value *w = tensor_arg(rc, params[p], false);
    shape ws = {0};
    if (!w) continue;
    if (!shape_of(rc, w, &ws)) return false;
    if (ws.rank != n) return rule_error(rc, "%s must have %d dim%s (%s)", params[p], n, n == 1 ? "" : "s", rule);
    for (int i = 0; i < n; i++) eq_guard(rc, rule, ws.d[i], want[i]);
  }
  return true;
}

/* group_norm(input [n, c, ...], num_groups, weight [c], bias [c]) and native_group_norm
 * (which names the sizes and also gives the groups' mean and 1 / std, [n, groups]). */
static bool rule_group_norm(sc_rule_ctx *rc, bool native) {
  const sc_value *x = tensor_arg(rc, "input", true);
  shape in = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  if (in.rank < 2) return rule_error(rc, "group_norm expects an input of at least 2 dims, got %d", in.rank);
  const sc_expr *groups[1];
  if (ints_arg(rc, native ? "group" : "num_groups", groups, 1, -1) != 1) return false;
  int64_t g, c;
  if (!sc_expr_is_const(groups[0], &g) || g <= 0) return rule_error(rc, "group_norm needs a positive constant group count");
  if (sc_expr_is_const(in.d[1], &c) && c % g)
    return rule_error(rc, "Expected number of channels in input to be divisible by num_groups, but got input of shape "
                      "with %lld channels and num_groups=%lld", (long long)c, (long long)g);
  if (!affine_params(rc, "group_norm", &in.d[1], 1)) return false;
  if (!set_out(rc, 0, &in)) return false;
  if (!native) return true;
  shape stat = {2, {in.d[0], groups[0]}};
  return set_out(rc, 1, &stat) && set_out(rc, 2, &stat);
}

static bool rule_layer_norm(sc_rule_ctx *rc, bool native) {
  const sc_value *x = tensor_arg(rc, "input", true);
  shape in = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  const sc_expr *norm[MAX_RANK];
  int n = ints_arg(rc, "normalized_shape", norm, MAX_RANK, -1);
  if (n < 0) return rule_error(rc, "missing normalized_shape");
  if (n > in.rank) return rule_error(rc, "normalized_shape is longer than the input's shape");
  for (int i = 0; i < n; i++) in.d[in.rank - n + i] = eq_guard(rc, "layer_norm", in.d[in.rank - n + i], norm[i]);
  if (!affine_params(rc, "layer_norm", norm, n)) return false;
  if (!set_out(rc, 0, &in)) return false;
  if (!native) return true;
  shape stat = in;
  for (int i = in.rank - n; i < in.rank; i++) stat.d[i] = sc_expr_int(rc->ctx, 1);
  return set_out(rc, 1, &stat) && set_out(rc, 2, &stat);
}

static bool rule_batch_norm(sc_rule_ctx *rc, bool legit) {
  const sc_value *x = tensor_arg(rc, "input", true);
  shape in = {0};
  if (!x || !shape_of(rc, x, &in)) return false;
  if (in.rank < 2) return rule_error(rc, "batch norm expects a batch and a channel dimension");
  static const char *const params[] = {"weight", "bias", "running_mean", "running_var"};
  for (int p = 0; p < 4; p++) {
    const sc_value *w = tensor_arg(rc, params[p], false);
    shape ws = {0};
    if (!w) continue;
    if (!shape_of(rc, w, &ws)) return false;
    if (ws.rank != 1) return rule_error(rc, "%s must be 1-D", params[p]);
    in.d[1] = eq_guard(rc, "batch_norm", in.d[1], ws.d[0]);
  }
  if (!set_out(rc, 0, &in)) return false;
  if (!legit) return true;
  shape empty = {1, {sc_expr_int(rc->ctx, 0)}};
  return set_out(rc, 1, &empty) && set_out(rc, 2, &empty);
}

/* ---- matrix products -------------------------------------------------------------------- */

static bool rule_mm(sc_rule_ctx *rc, bool add, bool batched) {
  const sc_value *a = tensor_arg(rc, add ? (batched ? "batch1" : "mat1") : (batched ? "self" : "self"), true);
  const sc_value *b = tensor_arg(rc, add ? (batched ? "batch2" : "mat2") : "mat2", true);
  shape sa = {0}, sb = {0}, out = {0};
  if (!a || !b || !shape_of(rc, a, &sa) || !shape_of(rc, b, &sb)) return false;
  int r = batched ? 3 : 2;
  if (sa.rank != r || sb.rank != r) return rule_error(rc, "operands must be %d-D", r);
  out.rank = r;
  if (batched) out.d[0] = eq_guard(rc, "matmul", sa.d[0], sb.d[0]);
  eq_guard(rc, "matmul", sa.d[r - 1], sb.d[r - 2]);
  out.d[r - 2] = sc_env_resolve(rc->env, sa.d[r - 2]);
  out.d[r - 1] = sc_env_resolve(rc->env, sb.d[r - 1]);
  if (add) {
    const sc_value *bias = tensor_arg(rc, "self", true);
    shape sbias = {0};
    if (!bias || !shape_of(rc, bias, &sbias)) return false;
    shape acc = out;
    broadcast(rc, &acc, &sbias);
    if (acc.rank != out.rank) return rule_error(rc, "the added tensor does not broadcast to the product");
    out = acc;
  }
  return set_out(rc, 0, &out);
}

/* torch.matmul: 1-D and N-D operands with batch broadcasting. */
static bool matmul_shape(sc_rule_ctx *rc, const shape *a, const shape *b, shape *out) {
  if (a->rank == 0 || b->rank == 0) return rule_error(rc, "matmul operands must be at least 1-D");
  shape ba = {0, {0}}, bb = {0, {0}};
  const sc_expr *k1 = a->d[a->rank - 1];
  const sc_expr *k2 = b->rank == 1 ? b->d[0] : b->d[b->rank - 2];
  eq_guard(rc, "matmul", k1, k2);
  for (int i = 0; i < a->rank - 2; i++) ba.d[ba.rank++] = a->d[i];
  for (int i = 0; i < b->rank - 2; i++) bb.d[bb.rank++] = b->d[i];
  broadcast(rc, &ba, &bb);
  *out = ba;
  if (a->rank >= 2) out->d[out->rank++] = a->d[a->rank - 2];
  if (b->rank >= 2) out->d[out->rank++] = b->d[b->rank - 1];
  for (int i = 0; i < out->rank; i++) out->d[i] = sc_env_resolve(rc->env, out->d[i]);
  return true;
}

static bool rule_matmul(sc_rule_ctx *rc) {
  const sc_value *a = tensor_arg(rc, "self", true), *b = tensor_arg(rc, "other", true);
  shape sa = {0}, sb = {0}, out = {0};
  if (!a || !b || !shape_of(rc, a, &sa) || !shape_of(rc, b, &sb) || !matmul_shape(rc, &sa, &sb, &out)) return false;
  return set_out(rc, 0, &out);
}

static bool rule_linear(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "input", true), *w = tensor_arg(rc, "weight", true);
  shape sx = {0}, sw = {0}, out = {0};
  if (!x || !w || !shape_of(rc, x, &sx) || !shape_of(rc, w, &sw)) return false;
  if (sw.rank != 2 && sw.rank != 1) return rule_error(rc, "weight must be 1-D or 2-D");
  shape wt = sw;
  if (sw.rank == 2) {
    wt.d[0] = sw.d[1];
    wt.d[1] = sw.d[0];
  }
  if (!matmul_shape(rc, &sx, &wt, &out)) return false;
  const sc_value *bias = tensor_arg(rc, "bias", false);
  if (bias) {
    shape sb = {0};
    if (!shape_of(rc, bias, &sb)) return false;
    broadcast(rc, &out, &sb);
  }
  return set_out(rc, 0, &out);
}

static bool rule_sdpa(sc_rule_ctx *rc) {
  const sc_value *q = tensor_arg(rc, "query", true), *k = tensor_arg(rc, "key", true), *v = tensor_arg(rc, "value", true);
  shape sq = {0}, sk = {0}, sv = {0};
  if (!q || !k || !v || !shape_of(rc, q, &sq) || !shape_of(rc, k, &sk) || !shape_of(rc, v, &sv)) return false;
  if (sq.rank < 2 || sk.rank != sq.rank || sv.rank != sq.rank) return rule_error(rc, "query, key, value ranks differ");
  int r = sq.rank;
  eq_guard(rc, "attention", sq.d[r - 1], sk.d[r - 1]);
  eq_guard(rc, "attention", sk.d[r - 2], sv.d[r - 2]);
  shape out = sq;
  for (int i = 0; i < r - 2; i++) {
    out.d[i] = broadcast_dim(rc, out.d[i], sk.d[i]);
    out.d[i] = broadcast_dim(rc, out.d[i], sv.d[i]);
  }
  out.d[r - 1] = sv.d[r - 1];
  return set_out(rc, 0, &out);
}

/* ---- convolution and pooling ------------------------------------------------------------ */

static const sc_expr *conv_out(sc_rule_ctx *rc, const sc_expr *in, int64_t k, int64_t s, int64_t p, int64_t dl) {
  /* (in + 2p - dl*(k-1) - 1) // s + 1 */
  const sc_expr *num = sc_expr_add(rc->ctx, in, sc_expr_int(rc->ctx, 2 * p - dl * (k - 1) - 1));
  return sc_expr_add(rc->ctx, sc_expr_floordiv(rc->ctx, num, sc_expr_int(rc->ctx, s)), sc_expr_int(rc->ctx, 1));
}

/* Spatial parameter lists: a single value applies to every spatial dim. */
static bool spatial_arg(sc_rule_ctx *rc, const char *name, int n, int64_t def, int64_t *out) {
  int64_t v[MAX_RANK];
  int m = 0;
  if (!const_ints_arg(rc, name, v, MAX_RANK, &m, 0)) return false;
  for (int i = 0; i < n; i++) out[i] = m == 0 ? def : m == 1 ? v[0] : (i < m ? v[i] : def);
  if (m > 1 && m != n) return rule_error(rc, "'%s' has %d entries for %d spatial dims", name, m, n);
  return true;
}

static bool rule_conv(sc_rule_ctx *rc, int fixed_spatial) {
  const sc_value *x = tensor_arg(rc, "input", true), *w = tensor_arg(rc, "weight", true);
  shape sx = {0}, sw = {0};
  if (!x || !w || !shape_of(rc, x, &sx) || !shape_of(rc, w, &sw)) return false;
  int sp = sw.rank - 2;
  if (sp < 1 || (fixed_spatial && sp != fixed_spatial)) return rule_error(rc, "weight has rank %d", sw.rank);
  bool batched = sx.rank == sp + 2;
  if (!batched && sx.rank != sp + 1) return rule_error(rc, "input of rank %d for a %d-D convolution", sx.rank, sp);
  int64_t stride[MAX_RANK], pad[MAX_RANK], dil[MAX_RANK], outpad[MAX_RANK], groups;
  bool transposed = bool_arg(rc, "transposed", false) || rc->node->op->id == SC_OP_CONV_TRANSPOSE1D ||
                    rc->node->op->id == SC_OP_CONV_TRANSPOSE2D || rc->node->op->id == SC_OP_CONV_TRANSPOSE3D;
  if (!spatial_arg(rc, "stride", sp, 1, stride) || !spatial_arg(rc, "padding", sp, 0, pad) ||
      !spatial_arg(rc, "dilation", sp, 1, dil) || !spatial_arg(rc, "output_padding", sp, 0, outpad) ||
      !const_int_arg(rc, "groups", 1, false, &groups))
    return false;
  if (groups <= 0) return rule_error(rc, "groups must be positive");
  int c = batched ? 1 : 0;
  shape out = sx;
  const sc_expr *g = sc_expr_int(rc->ctx, groups);
  if (!transposed) {
    eq_guard(rc, "conv", sx.d[c], sc_expr_mul(rc->ctx, sw.d[1], g));
    out.d[c] = sw.d[0];
  } else {
    eq_guard(rc, "conv", sx.d[c], sw.d[0]);
    out.d[c] = sc_expr_mul(rc->ctx, sw.d[1], g);
  }
  for (int i = 0; i < sp; i++) {
    int64_t k = 0;
    if (!sc_expr_is_const(sw.d[2 + i], &k)) return rule_error(rc, "kernel sizes must be static");
    const sc_expr *in = sc_env_resolve(rc->env, sx.d[c + 1 + i]);
    const sc_expr *o;
    if (!transposed) {
      o = conv_out(rc, in, k, stride[i], pad[i], dil[i]);
    } else { /* (in-1)*s - 2p + dl*(k-1) + outpad + 1 */
      o = sc_expr_add(rc->ctx, sc_expr_mul(rc->ctx, sc_expr_sub(rc->ctx, in, sc_expr_int(rc->ctx, 1)), sc_expr_int(rc->ctx, stride[i])),
                      sc_expr_int(rc->ctx, -2 * pad[i] + dil[i] * (k - 1) + outpad[i] + 1));
    }
    /* a transposed convolution may give an empty output (torch 2.14: conv_transpose1d
     * of one element with kernel 4, stride 3, padding 2 is 0 long); a convolution may not */
    guard(rc, "conv", sc_expr_rel(rc->ctx, SC_EXPR_GE, o, sc_expr_int(rc->ctx, transposed ? 0 : 1)));
    out.d[c + 1 + i] = o;
  }
  const sc_value *bias = tensor_arg(rc, "bias", false);
  if (bias) {
    shape sb = {0};
    if (!shape_of(rc, bias, &sb)) return false;
    if (sb.rank != 1) return rule_error(rc, "bias must be 1-D");
    eq_guard(rc, "conv", sb.d[0], out.d[c]);
  }
  return set_out(rc, 0, &out);
}

/* max and average pooling over the last `sp` dims (1 or 2) of a batched or unbatched input */
static bool rule_pool(sc_rule_ctx *rc, int n_outputs, int sp) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  if (s.rank != sp + 1 && s.rank != sp + 2)
    return rule_error(rc, "%d-D pooling expects a %d-D or %d-D input", sp, sp + 1, sp + 2);
  int64_t k[3], st[3], pad[3], dil[3];
  if (!spatial_arg(rc, "kernel_size", sp, 1, k) || !spatial_arg(rc, "padding", sp, 0, pad) ||
      !spatial_arg(rc, "dilation", sp, 1, dil))
    return false;
  int64_t sv[MAX_RANK];
  int m = 0;
  if (!const_ints_arg(rc, "stride", sv, MAX_RANK, &m, 0)) return false;
  for (int i = 0; i < sp; i++) st[i] = m == 0 ? k[i] : m == 1 ? sv[0] : sv[i];
  bool ceil_mode = bool_arg(rc, "ceil_mode", false);
  for (int i = 0; i < sp; i++) {
    if (st[i] <= 0 || k[i] <= 0) return rule_error(rc, "kernel and stride must be positive");
    const sc_expr *in = s.d[s.rank - sp + i];
    const sc_expr *o;
    if (!ceil_mode) {
      o = conv_out(rc, in, k[i], st[i], pad[i], dil[i]);
    } else {
      /* ceil division, then drop a window that would start in the padding */
      const sc_expr *num = sc_expr_add(rc->ctx, in, sc_expr_int(rc->ctx, 2 * pad[i] - dil[i] * (k[i] - 1) - 1 + st[i] - 1));
      o = sc_expr_add(rc->ctx, sc_expr_floordiv(rc->ctx, num, sc_expr_int(rc->ctx, st[i])), sc_expr_int(rc->ctx, 1));
      const sc_expr *start = sc_expr_mul(rc->ctx, sc_expr_sub(rc->ctx, o, sc_expr_int(rc->ctx, 1)), sc_expr_int(rc->ctx, st[i]));
      if (le_by_hint(rc, "pool", sc_expr_add(rc->ctx, in, sc_expr_int(rc->ctx, pad[i])), start))
        o = sc_expr_sub(rc->ctx, o, sc_expr_int(rc->ctx, 1));
    }
    guard(rc, "pool", sc_expr_rel(rc->ctx, SC_EXPR_GE, o, sc_expr_int(rc->ctx, 1)));
    s.d[s.rank - sp + i] = o;
  }
  for (int i = 0; i < n_outputs; i++)
    if (!set_out(rc, i, &s)) return false;
  return true;
}

/* im2col's and col2im's kernel_size, padding, dilation and stride, each of 2 entries */
static bool block_params(sc_rule_ctx *rc, const char *what, int64_t k[2], int64_t pad[2], int64_t dil[2], int64_t st[2]) {
  if (!spatial_arg(rc, "kernel_size", 2, 1, k) || !spatial_arg(rc, "padding", 2, 0, pad) ||
      !spatial_arg(rc, "dilation", 2, 1, dil) || !spatial_arg(rc, "stride", 2, 1, st))
    return false;
  for (int i = 0; i < 2; i++)
    if (k[i] <= 0 || st[i] <= 0 || dil[i] <= 0 || pad[i] < 0)
      return rule_error(rc, "%s: kernel, stride and dilation must be positive and padding non-negative", what);
  return true;
}

/* col2im (F.fold): self [n, c * kh * kw, L] (or unbatched) of L = bh * bw blocks, summed
 * into [n, c, h, w], output_size (h, w); the block counts follow from the sizes as a
 * convolution's output would. */
static bool rule_col2im(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0}, out = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  if (s.rank != 2 && s.rank != 3)
    return rule_error(rc, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                          "dimensions for input, but got: %d-D", s.rank);
  int64_t k[2], pad[2], dil[2], st[2];
  if (!block_params(rc, "col2im", k, pad, dil, st)) return false;
  const sc_expr *o[MAX_RANK];
  if (ints_arg(rc, "output_size", o, MAX_RANK, -1) != 2) return rule_error(rc, "output_size must have 2 entries");
  int b = s.rank == 3;
  const sc_expr *kk = sc_expr_int(rc->ctx, k[0] * k[1]), *c = sc_expr_floordiv(rc->ctx, s.d[b], kk);
  eq_guard(rc, "col2im", s.d[b], sc_expr_mul(rc->ctx, c, kk)); /* the column size is c * kh * kw */
  const sc_expr *blocks = sc_expr_int(rc->ctx, 1);
  for (int i = 0; i < 2; i++) {
    const sc_expr *n = conv_out(rc, o[i], k[i], st[i], pad[i], dil[i]);
    guard(rc, "col2im", sc_expr_rel(rc->ctx, SC_EXPR_GE, n, sc_expr_int(rc->ctx, 1)));
    blocks = sc_expr_mul(rc->ctx, blocks, n);
  }
  eq_guard(rc, "col2im", s.d[b + 1], blocks);
  out.rank = s.rank + 1;
  if (b) out.d[0] = s.d[0];
  out.d[b] = c;
  out.d[b + 1] = o[0];
  out.d[b + 2] = o[1];
  return set_out(rc, 0, &out);
}

/* im2col (F.unfold): self [n, c, h, w] (or unbatched) to [n, c * kh * kw, bh * bw], the
 * block counts as a convolution's output sizes. */
static bool rule_im2col(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0}, out = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  if (s.rank != 3 && s.rank != 4)
    return rule_error(rc, "Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                          "dimensions for input, but got: %d-D", s.rank);
  int64_t k[2], pad[2], dil[2], st[2];
  if (!block_params(rc, "im2col", k, pad, dil, st)) return false;
  int b = s.rank == 4;
  const sc_expr *blocks = sc_expr_int(rc->ctx, 1);
  for (int i = 0; i < 2; i++) {
    const sc_expr *n = conv_out(rc, s.d[b + 1 + i], k[i], st[i], pad[i], dil[i]);
    guard(rc, "im2col", sc_expr_rel(rc->ctx, SC_EXPR_GE, n, sc_expr_int(rc->ctx, 1)));
    blocks = sc_expr_mul(rc->ctx, blocks, n);
  }
  out.rank = s.rank - 1;
  if (b) out.d[0] = s.d[0];
  out.d[b] = sc_expr_mul(rc->ctx, s.d[b], sc_expr_int(rc->ctx, k[0] * k[1]));
  out.d[b + 1] = blocks;
  return set_out(rc, 0, &out);
}

static bool rule_adaptive_pool(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  int sp = rc->node->op->id == SC_OP_ADAPTIVE_AVG_POOL1D ? 1 : rc->node->op->id == SC_OP_ADAPTIVE_AVG_POOL3D ? 3 : 2;
  if (s.rank != sp + 1 && s.rank != sp + 2)
    return rule_error(rc, "%d-D pooling expects a %d-D or %d-D input", sp, sp + 1, sp + 2);
  const sc_expr *o[MAX_RANK];
  int n = ints_arg(rc, "output_size", o, MAX_RANK, -1);
  if (n != sp) return rule_error(rc, "output_size must have %d entries", sp);
  for (int i = 0; i < sp; i++) s.d[s.rank - sp + i] = o[i];
  return set_out(rc, 0, &s);
}

/* diff(self, n=1, dim, prepend, append): along dim, prepend's + self's + append's sizes less
 * one; the other dims are self's, which prepend and append must have (torch's check). */
static bool rule_diff(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  if (s.rank == 0) return rule_error(rc, "diff expects input to be at least one-dimensional");
  int64_t n = 1, dim = -1;
  if (!const_int_arg(rc, "n", 1, false, &n) || !const_int_arg(rc, "dim", -1, false, &dim)) return false;
  if (n != 1) return rule_error(rc, "diff with n = %lld (only n = 1 is supported)", (long long)n);
  int d = (int)(dim < 0 ? dim + s.rank : dim);
  if (d < 0 || d >= s.rank) return rule_error(rc, "dim %lld out of range", (long long)dim);
  const sc_expr *len = s.d[d];
  const char *sides[2] = {"prepend", "append"};
  for (int k = 0; k < 2; k++) {
    const sc_value *p = tensor_arg(rc, sides[k], false);
    if (!p) continue;
    shape sp = {0};
    if (!shape_of(rc, p, &sp)) return false;
    if (sp.rank != s.rank) return rule_error(rc, "diff expects %s to have the same rank as input", sides[k]);
    for (int i = 0; i < s.rank; i++)
      if (i != d) eq_guard(rc, "diff", sp.d[i], s.d[i]);
    len = sc_expr_add(rc->ctx, len, sp.d[d]);
  }
  /* nothing to difference gives an empty result, as in torch */
  s.d[d] = sc_expr_max(rc->ctx, sc_expr_sub(rc->ctx, len, sc_expr_int(rc->ctx, 1)), sc_expr_int(rc->ctx, 0));
  return set_out(rc, 0, &s);
}

/* ---- creation ---------------------------------------------------------------------------- */

static bool rule_sized(sc_rule_ctx *rc) {
  shape s = {0};
  s.rank = ints_arg(rc, "size", s.d, MAX_RANK, -1);
  if (s.rank < 0) return rule_error(rc, "missing size");
  return set_out(rc, 0, &s);
}

/* A number argument's value when it is a float constant (arange(0, n, 1.0)). */
static bool float_const_arg(sc_rule_ctx *rc, const char *name, double *out) {
  const sc_arg *a = arg(rc, name);
  if (arg_is_none(a) || a->kind != SC_ARG_FLOAT || a->n_items != 1 || a->items[0].value) return false;
  *out = a->items[0].f;
  return true;
}

/* arange with a float start, end or step: a float that is a whole number reads as that
 * integer (XLNet's arange(0, klen, 1.0)); with every bound a number the length is torch's
 * ceil((end - start) / step) in double. */
static bool rule_arange_floats(sc_rule_ctx *rc, int form, bool *handled) {
  const char *names[3] = {"start", "end", "step"};
  double v[3] = {0, 0, 1};
  bool is_float[3] = {false, false, false}, any = false;
  for (int i = 0; i < 3; i++) {
    if ((i == 0 && form < 1) || (i == 2 && form < 2)) continue;
    is_float[i] = float_const_arg(rc, names[i], &v[i]);
    any |= is_float[i];
  }
  *handled = false;
  if (!any) return true;
  bool whole = true;
  for (int i = 0; i < 3; i++) whole &= !is_float[i] || (v[i] == floor(v[i]) && fabs(v[i]) < 9e15);
  if (whole) return true; /* read as integers by the caller */
  *handled = true;
  int64_t iv;
  for (int i = 0; i < 3; i++) {
    if (is_float[i] || (i == 0 && form < 1) || (i == 2 && form < 2)) continue;
    const sc_expr *e = int_arg(rc, names[i], sc_expr_int(rc->ctx, i == 2 ? 1 : 0));
    if (!e) return false;
    if (!sc_expr_is_const(e, &iv))
      return rule_error(rc, "arange with a fractional %s and a symbolic %s has no shape rule", is_float[0] ? "start"
                        : is_float[1] ? "end" : "step", names[i]);
    v[i] = (double)iv;
  }
  if (v[2] == 0) return rule_error(rc, "step must be nonzero");
  double n = ceil((v[1] - v[0]) / v[2]);
  if (!(n >= 0)) n = 0;
  if (n > 9e15) return rule_error(rc, "arange of %g elements", n);
  shape s = {1, {sc_expr_int(rc->ctx, (int64_t)n)}};
  return set_out(rc, 0, &s);
}

/* An int, SymInt or whole float argument as an expression. */
static const sc_expr *whole_arg(sc_rule_ctx *rc, const char *name, const sc_expr *def) {
  double f;
  if (float_const_arg(rc, name, &f)) return sc_expr_int(rc->ctx, (int64_t)f);
  return int_arg(rc, name, def);
}

static bool rule_arange(sc_rule_ctx *rc, int form) {
  bool handled;
  if (!rule_arange_floats(rc, form, &handled)) return false;
  if (handled) return true;
  const sc_expr *start = sc_expr_int(rc->ctx, 0), *end, *step = sc_expr_int(rc->ctx, 1);
  end = whole_arg(rc, "end", NULL);
  if (form >= 1) start = whole_arg(rc, "start", sc_expr_int(rc->ctx, 0));
  if (form == 2) step = whole_arg(rc, "step", sc_expr_int(rc->ctx, 1));
  if (!start || !end || !step) return false;
  int64_t st = 0;
  if (!sc_expr_is_const(step, &st) || st == 0) return rule_error(rc, "step must be a non-zero constant");
  /* ceil((end - start) / step), clamped at 0 */
  const sc_expr *span = sc_expr_sub(rc->ctx, end, start);
  const sc_expr *len = st > 0 ? sc_expr_floordiv(rc->ctx, sc_expr_add(rc->ctx, span, sc_expr_int(rc->ctx, st - 1)), step)
                              : sc_expr_floordiv(rc->ctx, sc_expr_add(rc->ctx, span, sc_expr_int(rc->ctx, st + 1)), step);
  if (!le_by_hint(rc, "arange", sc_expr_int(rc->ctx, 0), len)) len = sc_expr_int(rc->ctx, 0);
  shape s = {1, {len}};
  return set_out(rc, 0, &s);
}

/* ---- data-dependent ------------------------------------------------------------------------ */

static bool rule_item(sc_rule_ctx *rc) {
  char src[300];
  snprintf(src, sizeof src, "%s() at node '%s'", rc->node->op->id == SC_OP_ITEM ? "item" : "_local_scalar_dense",
           rc->node->name);
  return set_sym(rc, sc_env_new_unbacked(rc->env, src, false));
}

/* bucketize(self, boundaries) and searchsorted(sorted_sequence, self): each value's place
 * among sorted boundaries, in self's shape (a 0-d result for a Scalar self).  The
 * boundaries are 1-D, or for searchsorted N-D with self's leading dims (a row each). */
static bool rule_search_sorted(sc_rule_ctx *rc) {
  sc_op_id id = rc->node->op->id;
  bool bucketize = id == SC_OP_BUCKETIZE || id == SC_OP_BUCKETIZE_SCALAR;
  bool scalar = id == SC_OP_BUCKETIZE_SCALAR || id == SC_OP_SEARCHSORTED_SCALAR;
  const sc_value *b = tensor_arg(rc, bucketize ? "boundaries" : "sorted_sequence", true);
  const sc_value *x = scalar ? NULL : tensor_arg(rc, "self", true);
  shape sb = {0}, sx = {0};
  if (!b || (!scalar && !x) || !shape_of(rc, b, &sb) || (x && !shape_of(rc, x, &sx))) return false;
  const sc_arg *side = arg(rc, "side");
  if (bool_arg(rc, "right", false) && !arg_is_none(side) && side->kind == SC_ARG_STRING && strcmp(side->items[0].s, "left") == 0)
    return rule_error(rc, "torch.searchsorted(): side and right can't be set to opposites, got side of left while right "
                      "was True");
  if (bucketize && sb.rank != 1) return rule_error(rc, "boundaries tensor must be 1 dimension, but got dim(%d)", sb.rank);
  if (sb.rank == 0) return rule_error(rc, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  if (scalar && sb.rank != 1)
    return rule_error(rc, "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, "
                      "but we got boundaries tensor dim(%d) and input value's dim(0) numel(1)", sb.rank);
  if (sb.rank > 1) { /* a row of boundaries for each row of values */
    if (sx.rank != sb.rank)
      return rule_error(rc, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                        "boundaries tensor and input value tensor must match, but we got boundaries tensor of rank %d and "
                        "input value tensor of rank %d", sb.rank, sx.rank);
    for (int i = 0; i < sb.rank - 1; i++) eq_guard(rc, "searchsorted", sb.d[i], sx.d[i]);
  }
  const sc_value *sorter = tensor_arg(rc, "sorter", false);
  if (sorter) {
    shape ss = {0};
    if (!shape_of(rc, sorter, &ss)) return false;
    if (sorter->meta.dtype != SC_DTYPE_I64)
      return rule_error(rc, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s",
                        sc_dtype_name(sorter->meta.dtype));
    if (ss.rank != sb.rank) return rule_error(rc, "torch.searchsorted(): boundary and sorter must have the same size");
    for (int i = 0; i < sb.rank; i++) eq_guard(rc, "searchsorted", ss.d[i], sb.d[i]);
  }
  return set_out(rc, 0, &sx);
}

/* The count of a mask's true elements, nonzero()'s or x[mask]'s size: a fresh size that torch
 * bounds by the elements counted when their number is static (VR[0, 15] over a [3, 5] mask). */
static const sc_expr *true_count(sc_rule_ctx *rc, const char *source, const shape *counted) {
  const sc_expr *u = sc_env_new_unbacked(rc->env, source, true);
  int64_t n = 0;
  sc_symbol *sym = sc_env_find(rc->env, u->name);
  if (sym && sc_expr_is_const(sc_env_resolve(rc->env, numel(rc, counted, 0, counted->rank)), &n)) sym->range.hi = n;
  return u;
}

static bool rule_nonzero(sc_rule_ctx *rc, bool masked) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  if (masked) { /* self and mask broadcast against each other, as in an elementwise op */
    const sc_value *m = tensor_arg(rc, "mask", true);
    shape sm = {0};
    if (!m || !shape_of(rc, m, &sm)) return false;
    broadcast(rc, &s, &sm);
  }
  char src[300];
  snprintf(src, sizeof src, "%s() at node '%s'", masked ? "masked_select" : "nonzero", rc->node->name);
  const sc_expr *u = true_count(rc, src, &s);
  shape out = {masked ? 1 : 2, {u, sc_expr_int(rc->ctx, s.rank)}};
  return set_out(rc, 0, &out);
}

/* torch's advanced indexing, x[i0, i1, ...] (aten.index.Tensor, index_put): each index
 * tensor picks positions along one dim of x (None takes a dim whole); a boolean mask of
 * rank k picks along k dims, as the k columns of its nonzero() would, each of the mask's
 * true count u.  The indices broadcast to one shape B, which replaces the indexed dims
 * where they are adjacent, else comes first (backends/cpu/runtime/index_tensor.c). */
typedef struct index_entry {
  int dim;  /* of x */
  shape s;  /* of the index tensor, or [u] for a mask's column */
} index_entry;

typedef struct index_entries {
  int n, mask_at; /* mask_at: the first entry of the boolean mask, or -1 */
  index_entry e[MAX_RANK];
} index_entries;

/* The entries of ix over x's shape s.  mask_count is the mask's true count (NULL: a fresh
 * size that the caller never reads).  torch.export takes one mask among the indices, whose
 * count is the result's size: two masks fail in torch ("Pending unbacked symbols"). */
static bool index_entries_of(sc_rule_ctx *rc, const sc_arg *ix, const shape *s, const sc_expr *mask_count,
                             index_entries *out) {
  out->n = 0;
  out->mask_at = -1;
  int dim = 0;
  for (size_t k = 0; k < ix->n_items; k++) {
    const sc_value *v = ix->items[k].value;
    if (!v) {
      dim++;
      continue;
    }
    shape si = {0};
    if (!shape_of(rc, v, &si)) return false;
    if (v->meta.dtype == SC_DTYPE_BOOL || v->meta.dtype == SC_DTYPE_U8) {
      if (out->mask_at >= 0)
        return rule_error(rc, "two boolean masks among the indices: torch.export cannot export this either (the first "
                          "mask's count is left unbound); index with one mask and nonzero() of the other");
      if (dim + si.rank > s->rank)
        return rule_error(rc, "too many indices for tensor of dimension %d (a mask of rank %d at dim %d)", s->rank, si.rank,
                          dim);
      for (int i = 0; i < si.rank; i++) eq_guard(rc, "index", si.d[i], s->d[dim + i]);
      out->mask_at = out->n;
      for (int i = 0; i < si.rank; i++, dim++) {
        if (out->n >= MAX_RANK) return rule_error(rc, "more than %d indices", MAX_RANK);
        out->e[out->n++] = (index_entry){dim, {1, {mask_count}}};
      }
      continue;
    }
    if (v->meta.dtype != SC_DTYPE_I64 && v->meta.dtype != SC_DTYPE_I32)
      return rule_error(rc, "tensors used as indices must be long, int, byte or bool tensors (index %zu is %s)", k,
                        sc_dtype_name(v->meta.dtype));
    if (dim >= s->rank || out->n >= MAX_RANK)
      return rule_error(rc, "too many indices for tensor of dimension %d (got %zu)", s->rank, ix->n_items);
    out->e[out->n++] = (index_entry){dim++, si};
  }
  if (dim > (s->rank ? s->rank : 1))
    return rule_error(rc, "too many indices for tensor of dimension %d (got %zu)", s->rank, ix->n_items);
  /* the other indices broadcast against the mask's count only where they are 1 */
  for (int k = 0; out->mask_at >= 0 && k < out->n; k++) {
    const shape *o = &out->e[k].s;
    if (o->rank && o->d[o->rank - 1] != mask_count && !is_one(o->d[o->rank - 1]))
      return rule_error(rc, "an index tensor of size %s beside a boolean mask: the mask's true count would have to equal "
                        "it, which torch.export cannot export either; give the other indices size 1 there",
                        sc_expr_to_string(rc->ctx, o->d[o->rank - 1]));
  }
  return true;
}

/* The shape x[entries] has: B in place of the indexed dims where they are adjacent, else
 * first; x's own shape when nothing is indexed. */
static bool indexed_shape(sc_rule_ctx *rc, const index_entries *ie, const shape *s, shape *result) {
  if (!ie->n) {
    *result = *s;
    return true;
  }
  shape b = ie->e[0].s;
  bool adjacent = true;
  for (int k = 1; k < ie->n; k++) {
    broadcast(rc, &b, &ie->e[k].s);
    if (ie->e[k].dim != ie->e[k - 1].dim + 1) adjacent = false;
  }
  int at = adjacent ? ie->e[0].dim : 0;
  shape out = {0};
  for (int d = 0; d < s->rank; d++) {
    bool is_picked = false;
    for (int k = 0; k < ie->n; k++) is_picked |= ie->e[k].dim == d;
    if (d == at) {
      if (out.rank + b.rank > MAX_RANK) return rule_error(rc, "the result has more than %d dims", MAX_RANK);
      for (int j = 0; j < b.rank; j++) out.d[out.rank++] = b.d[j];
    }
    if (!is_picked) {
      if (out.rank >= MAX_RANK) return rule_error(rc, "the result has more than %d dims", MAX_RANK);
      out.d[out.rank++] = s->d[d];
    }
  }
  *result = out;
  return true;
}

static bool has_mask(const sc_arg *ix) {
  for (size_t k = 0; k < ix->n_items; k++)
    if (ix->items[k].value && (ix->items[k].value->meta.dtype == SC_DTYPE_BOOL || ix->items[k].value->meta.dtype == SC_DTYPE_U8))
      return true;
  return false;
}

/* index_put(self, indices, values, accumulate): self's shape; values broadcast to what
 * self[indices] reads (torch: "shape mismatch: value tensor of shape ... cannot be
 * broadcast to indexing result of shape ..."; against a mask's count, at run time). */
static bool rule_index_put(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true), *values = tensor_arg(rc, "values", true);
  const sc_arg *ix = tensors_arg(rc, "indices");
  shape s = {0}, vs = {0}, target = {0};
  if (!x || !values || !ix || !shape_of(rc, x, &s) || !shape_of(rc, values, &vs)) return false;
  if (values->meta.dtype != x->meta.dtype)
    return rule_error(rc, "Index put requires the source and destination dtypes match, got %s for the destination and "
                      "%s for the source.", sc_dtype_name(x->meta.dtype), sc_dtype_name(values->meta.dtype));
  /* the mask's count is known only when the call runs: a placeholder that no guard binds */
  const sc_expr *count = has_mask(ix) ? sc_expr_sym(rc->ctx, "index_put.mask_count") : NULL;
  index_entries ie;
  if (!index_entries_of(rc, ix, &s, count, &ie) || !indexed_shape(rc, &ie, &s, &target)) return false;
  if (vs.rank > target.rank)
    return rule_error(rc, "shape mismatch: value tensor of rank %d cannot be broadcast to indexing result of rank %d",
                      vs.rank, target.rank);
  for (int i = 0; i < vs.rank; i++) {
    const sc_expr *v = vs.d[i], *t = target.d[target.rank - vs.rank + i];
    if (!is_one(v) && t != count) eq_guard(rc, "index_put", v, t);
  }
  return set_out(rc, 0, &s);
}

static bool rule_index_tensor(sc_rule_ctx *rc) {
  const sc_value *x = tensor_arg(rc, "self", true);
  const sc_arg *ix = tensors_arg(rc, "indices");
  shape s = {0}, out = {0};
  if (!x || !ix || !shape_of(rc, x, &s)) return false;
  const sc_expr *count = NULL;
  for (size_t k = 0; k < ix->n_items && !count; k++) {
    const sc_value *m = ix->items[k].value;
    shape sm = {0};
    if (!m || (m->meta.dtype != SC_DTYPE_BOOL && m->meta.dtype != SC_DTYPE_U8)) continue;
    if (!shape_of(rc, m, &sm)) return false;
    char src[300];
    snprintf(src, sizeof src, "index() at node '%s'", rc->node->name);
    count = true_count(rc, src, &sm);
  }
  index_entries ie;
  return index_entries_of(rc, ix, &s, count, &ie) && indexed_shape(rc, &ie, &s, &out) && set_out(rc, 0, &out);
}

/* ---- SymInt arithmetic ------------------------------------------------------------------------ */

static const sc_expr *scalar_operand(sc_rule_ctx *rc, const char *name, int pos) {
  const sc_arg *a = arg(rc, name);
  if (!a && pos < (int)rc->node->n_inputs) a = &rc->node->inputs[pos].arg;
  if (!a || !a->n_items) return NULL;
  if (a->kind == SC_ARG_BOOL || a->kind == SC_ARG_SYM_BOOL) {
    if (a->items[0].value) return a->items[0].value->sym ? sc_env_resolve(rc->env, a->items[0].value->sym) : NULL;
    return sc_expr_bool(rc->ctx, a->items[0].b);
  }
  if (a->kind == SC_ARG_INT || a->kind == SC_ARG_SYM_INT) return item_expr(rc, &a->items[0]);
  return NULL;
}

static bool rule_sym_binary(sc_rule_ctx *rc) {
  sc_op_id id = rc->node->op->id;
  const sc_expr *a = scalar_operand(rc, "a", 0);
  const sc_expr *b = id == SC_OP_PY_NEG || id == SC_OP_PY_NOT || id == SC_OP_SYM_NOT || id == SC_OP_PY_POS
                         ? a
                         : scalar_operand(rc, "b", 1);
  if (!a || !b) {
    /* a float operand or an unknown value: the result is a fresh data-dependent value */
    sc_value *out = sym_output(rc);
    if (!out) return rule_error(rc, "operands must be integers or booleans");
    if (out->kind == SC_VALUE_SYM_INT) return set_sym(rc, sc_env_new_unbacked(rc->env, rc->node->name, false));
    return rule_error(rc, "operands must be integers or booleans");
  }
  sc_ctx *c = rc->ctx;
  const sc_expr *r = NULL;
  switch (id) {
    case SC_OP_PY_ADD: r = sc_expr_add(c, a, b); break;
    case SC_OP_PY_SUB: r = sc_expr_sub(c, a, b); break;
    case SC_OP_PY_MUL: r = sc_expr_mul(c, a, b); break;
    case SC_OP_PY_FLOORDIV: r = sc_expr_floordiv(c, a, b); break;
    case SC_OP_PY_MOD: r = sc_expr_mod(c, a, b); break;
    case SC_OP_PY_NEG: r = sc_expr_neg(c, a); break;
    case SC_OP_PY_POS: r = a; break;
    case SC_OP_PY_EQ: r = sc_expr_rel(c, SC_EXPR_EQ, a, b); break;
    case SC_OP_PY_NE: r = sc_expr_rel(c, SC_EXPR_NE, a, b); break;
    case SC_OP_PY_LT: r = sc_expr_rel(c, SC_EXPR_LT, a, b); break;
    case SC_OP_PY_LE: r = sc_expr_rel(c, SC_EXPR_LE, a, b); break;
    case SC_OP_PY_GT: r = sc_expr_rel(c, SC_EXPR_GT, a, b); break;
    case SC_OP_PY_GE: r = sc_expr_rel(c, SC_EXPR_GE, a, b); break;
    case SC_OP_PY_AND: r = sc_expr_and(c, a, b); break;
    case SC_OP_PY_OR: r = sc_expr_or(c, a, b); break;
    case SC_OP_PY_NOT:
    case SC_OP_SYM_NOT: r = sc_expr_not(c, a); break;
    case SC_OP_SYM_MAX: r = sc_expr_max(c, a, b); break;
    case SC_OP_SYM_MIN: r = sc_expr_min(c, a, b); break;
    case SC_OP_PY_POW: {
      int64_t n = 0;
      if (!sc_expr_is_const(b, &n) || n < 0 || n > 16) return rule_error(rc, "only small constant powers are supported");
      r = sc_expr_int(c, 1);
      for (int64_t i = 0; i < n; i++) r = sc_expr_mul(c, r, a);
      break;
    }
    default: return rule_error(rc, "unsupported SymInt operation");
  }
  return set_sym(rc, r);
}

static bool rule_sym_size(sc_rule_ctx *rc, bool numel_only) {
  const sc_value *x = tensor_arg(rc, "self", true);
  shape s = {0};
  if (!x || !shape_of(rc, x, &s)) return false;
  if (numel_only) return set_sym(rc, numel(rc, &s, 0, s.rank));
  int64_t dim = 0;
  int d = 0;
  if (!const_int_arg(rc, "dim", 0, true, &dim) || !norm_dim(rc, dim, s.rank, &d)) return false;
  if (rc->node->op->id == SC_OP_SYM_STRIDE) return set_sym(rc, numel(rc, &s, d + 1, s.rank));
  return set_sym(rc, s.d[d]);
}

static bool rule_assert_scalar(sc_rule_ctx *rc) {
  const sc_arg *a = arg(rc, "self");
  if (!a || !a->n_items) return rule_error(rc, "missing the condition");
  const sc_expr *cond = a->items[0].value ? a->items[0].value->sym : sc_expr_bool(rc->ctx, a->items[0].b);
  if (!cond) return rule_error(rc, "the condition has no symbolic value");
  guard(rc, "assert", cond);
  return true;
}

static bool rule_constrain_range(sc_rule_ctx *rc, bool for_size) {
  const sc_expr *x = int_arg(rc, "size", NULL);
  if (!x) return false;
  const sc_arg *mn = arg(rc, "min"), *mx = arg(rc, "max");
  sc_ctx *c = rc->ctx;
  int64_t lo = for_size ? 0 : INT64_MIN;
  if (!arg_is_none(mn) && mn->n_items && !mn->items[0].value) lo = mn->items[0].i > lo ? mn->items[0].i : lo;
  if (lo != INT64_MIN) guard(rc, "constrain_range", sc_expr_rel(c, SC_EXPR_GE, x, sc_expr_int(c, lo)));
  if (!arg_is_none(mx) && mx->n_items && !mx->items[0].value)
    guard(rc, "constrain_range", sc_expr_rel(c, SC_EXPR_LE, x, sc_expr_int(c, mx->items[0].i)));
  return true;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

bool sc_shape_rule_apply(sc_rule_ctx *rc) {
  switch (rc->node->op->id) {
    case SC_OP_ADD_TENSOR: case SC_OP_ADD_SCALAR: case SC_OP_SUB_TENSOR: case SC_OP_SUB_SCALAR:
    case SC_OP_RSUB_SCALAR: case SC_OP_MUL_TENSOR: case SC_OP_MUL_SCALAR: case SC_OP_DIV_TENSOR: case SC_OP_FMOD: case SC_OP_REMAINDER:
    case SC_OP_DIV_SCALAR: case SC_OP_DIV_TENSOR_MODE: case SC_OP_POW_TENSOR_SCALAR: case SC_OP_POW_TENSOR_TENSOR:
    case SC_OP_MAXIMUM: case SC_OP_MINIMUM: case SC_OP_NEG: case SC_OP_ABS: case SC_OP_EXP: case SC_OP_LOG:
    case SC_OP_SQRT: case SC_OP_RSQRT: case SC_OP_RECIPROCAL: case SC_OP_SIN: case SC_OP_COS: case SC_OP_TANH:
    case SC_OP_ERF: case SC_OP_SIGMOID: case SC_OP_RELU: case SC_OP_RELU_: case SC_OP_GELU: case SC_OP_SILU:
    case SC_OP_ADD_: case SC_OP_MUL_:
    case SC_OP_HARDTANH: case SC_OP_HARDTANH_: case SC_OP_RELU6: case SC_OP_HARDSWISH: case SC_OP_HARDSIGMOID: case SC_OP_LEAKY_RELU:
    case SC_OP_ELU: case SC_OP_CELU: case SC_OP_SOFTPLUS: case SC_OP_FLOOR: case SC_OP_CEIL: case SC_OP_ROUND: case SC_OP_ROUND_DECIMALS: case SC_OP_TRUNC:
    case SC_OP_SIGN: case SC_OP_LOG1P: case SC_OP_EXPM1: case SC_OP_LOG2: case SC_OP_LOG10: case SC_OP_TAN:
    case SC_OP_ASIN: case SC_OP_ACOS: case SC_OP_ATAN: case SC_OP_SINH: case SC_OP_COSH: case SC_OP_ASINH:
    case SC_OP_ACOSH: case SC_OP_ATANH: case SC_OP_ATAN2: case SC_OP_FLOOR_DIVIDE: case SC_OP_LOGICAL_XOR:
    case SC_OP_FRAC: case SC_OP_HARDSHRINK: case SC_OP_LOG_SIGMOID: case SC_OP_LOGIT: case SC_OP_MISH: case SC_OP_LGAMMA: case SC_OP_SQUARE: case SC_OP_ZERO: case SC_OP_ERFINV: case SC_OP_DIGAMMA:
    case SC_OP_FMAX: case SC_OP_FMIN: case SC_OP_COPYSIGN: case SC_OP_HYPOT: case SC_OP_LOGADDEXP: case SC_OP_XLOGY:
    case SC_OP_HEAVISIDE: case SC_OP_DEG2RAD: case SC_OP_RAD2DEG: case SC_OP_NEXTAFTER: case SC_OP_NAN_TO_NUM:
    case SC_OP_ADDCMUL: case SC_OP_ADDCDIV: case SC_OP_LERP:
    case SC_OP_CLAMP: case SC_OP_CLAMP_MIN: case SC_OP_CLAMP_MAX: case SC_OP_WHERE_SELF: case SC_OP_EQ_TENSOR:
    case SC_OP_EQ_SCALAR: case SC_OP_NE_TENSOR: case SC_OP_NE_SCALAR: case SC_OP_LT_TENSOR: case SC_OP_LT_SCALAR:
    case SC_OP_LE_TENSOR: case SC_OP_LE_SCALAR: case SC_OP_GT_TENSOR: case SC_OP_GT_SCALAR: case SC_OP_GE_TENSOR:
    case SC_OP_GE_SCALAR: case SC_OP_LOGICAL_NOT: case SC_OP_LOGICAL_AND: case SC_OP_LOGICAL_OR:
    case SC_OP_ISINF: case SC_OP_ISNAN: case SC_OP_ISFINITE:
    case SC_OP_BITWISE_NOT: case SC_OP_BITWISE_AND: case SC_OP_BITWISE_OR: case SC_OP_BITWISE_XOR:
    case SC_OP_MASKED_FILL_SCALAR:
      return rule_elementwise(rc);
    case SC_OP_COPY: case SC_OP_SLICE_SCATTER: case SC_OP_SELECT_SCATTER: case SC_OP_DIAGONAL_SCATTER:
    case SC_OP_FILL_TENSOR: case SC_OP_FILL_SCALAR:
    case SC_OP_TO_COPY: case SC_OP_TO_DTYPE: case SC_OP_CLONE: case SC_OP_DROPOUT: case SC_OP_DETACH:
    case SC_OP_DETACH_: case SC_OP_LIFT_FRESH_COPY:
    case SC_OP_CONTIGUOUS: case SC_OP_ALIAS: case SC_OP_ZEROS_LIKE: case SC_OP_ONES_LIKE: case SC_OP_FULL_LIKE:
      if (rc->node->op->id == SC_OP_DROPOUT) { /* an identity only where it does not train */
        const sc_arg *p = arg(rc, "p");
        bool none = p && !p->items[0].value && ((p->kind == SC_ARG_FLOAT && p->items[0].f == 0) ||
                                                (p->kind == SC_ARG_INT && p->items[0].i == 0));
        bool drops = !none;
        if (bool_arg(rc, "train", false) && drops) {
          sc_diag *d = sc_diags_add(&rc->ctx->diags, SC_DIAG_CODEGEN_UNSUPPORTED, SC_SEV_ERROR, rc->program->file,
                                    rc->node->path, "%s in training mode draws torch's random numbers, which shapec "
                                    "does not reproduce", rc->node->target);
          sc_diag_set_hint(&rc->ctx->diags, d, "export the model after model.eval() (or pass training=False)");
          rc->failed = true;
          return false;
        }
      }
      return rule_same_as(rc, rc->node->op->id == SC_OP_DROPOUT ? "input" : "self");
    case SC_OP_MM: return rule_mm(rc, false, false);
    case SC_OP_MV: {
      const sc_value *a = tensor_arg(rc, "self", true), *v = tensor_arg(rc, "vec", true);
      shape sa = {0}, sv = {0};
      if (!a || !v || !shape_of(rc, a, &sa) || !shape_of(rc, v, &sv)) return false;
      if (sa.rank != 2 || sv.rank != 1) return rule_error(rc, "mv takes a matrix and a vector");
      eq_guard(rc, "matmul", sa.d[1], sv.d[0]);
      shape out = {1, {sa.d[0]}};
      return set_out(rc, 0, &out);
    }
    case SC_OP_BMM: return rule_mm(rc, false, true);
    case SC_OP_ADDMM: return rule_mm(rc, true, false);
    case SC_OP_BADDBMM: return rule_mm(rc, true, true);
    case SC_OP_LINEAR: return rule_linear(rc);
    case SC_OP_MATMUL: return rule_matmul(rc);
    case SC_OP_SDPA: return rule_sdpa(rc);
    case SC_OP_CONVOLUTION: return rule_conv(rc, 0);
    case SC_OP_CONV1D: return rule_conv(rc, 1);
    case SC_OP_CONV2D: return rule_conv(rc, 2);
    case SC_OP_CONV_TRANSPOSE1D: return rule_conv(rc, 1);
    case SC_OP_CONV_TRANSPOSE2D: return rule_conv(rc, 2);
    case SC_OP_MAX_POOL2D: case SC_OP_AVG_POOL2D: return rule_pool(rc, 1, 2);
    case SC_OP_MAX_POOL2D_INDICES: return rule_pool(rc, 2, 2);
    case SC_OP_MAX_POOL1D: case SC_OP_AVG_POOL1D: return rule_pool(rc, 1, 1);
    case SC_OP_MAX_POOL3D: case SC_OP_AVG_POOL3D: return rule_pool(rc, 1, 3);
    case SC_OP_MAX_POOL3D_INDICES: return rule_pool(rc, 2, 3);
    case SC_OP_ADAPTIVE_AVG_POOL3D: return rule_adaptive_pool(rc);
    case SC_OP_CONV3D: case SC_OP_CONV_TRANSPOSE3D: return rule_conv(rc, 3);
    case SC_OP_ADAPTIVE_AVG_POOL2D: case SC_OP_ADAPTIVE_AVG_POOL2D_: case SC_OP_ADAPTIVE_AVG_POOL1D:
      return rule_adaptive_pool(rc);
    case SC_OP_BATCH_NORM_INFER: return rule_batch_norm(rc, true);
    case SC_OP_BATCH_NORM: return rule_batch_norm(rc, false);
    case SC_OP_NATIVE_LAYER_NORM: return rule_layer_norm(rc, true);
    case SC_OP_LAYER_NORM: case SC_OP_RMS_NORM: return rule_layer_norm(rc, false);
    case SC_OP_GROUP_NORM: return rule_group_norm(rc, false);
    case SC_OP_INSTANCE_NORM: return rule_same_as(rc, "input");
    case SC_OP_BATCH_NORM_STATS: { /* (out, per-channel mean, per-channel 1 / std) */
      const sc_value *x = tensor_arg(rc, "input", true);
      shape s = {0};
      if (!x || !shape_of(rc, x, &s)) return false;
      if (s.rank < 2) return rule_error(rc, "batch norm expects an input of at least 2 dims");
      shape c = {1, {s.d[1]}};
      return set_out(rc, 0, &s) && set_out(rc, 1, &c) && set_out(rc, 2, &c);
    }
    case SC_OP_REPEAT_INTERLEAVE: return rule_repeat_interleave(rc);
    case SC_OP_MESHGRID: return rule_meshgrid(rc);
    case SC_OP_LINSPACE: {
      const sc_expr *steps = int_arg(rc, "steps", NULL);
      if (!steps) return false;
      shape out = {1, {steps}};
      return set_out(rc, 0, &out);
    }
    case SC_OP_NATIVE_GROUP_NORM: return rule_group_norm(rc, true);
    case SC_OP_SOFTMAX: case SC_OP_SOFTMAX_INT: case SC_OP_LOG_SOFTMAX: case SC_OP_LOG_SOFTMAX_INT:
      return rule_softmax(rc);
    case SC_OP_SUM_DIM: case SC_OP_MEAN_DIM: return rule_reduce(rc, "dim", true, 1);
    case SC_OP_SUM: case SC_OP_MEAN: return rule_reduce(rc, NULL, true, 1);
    case SC_OP_AMAX: case SC_OP_AMIN: return rule_reduce(rc, "dim", true, 1);
    case SC_OP_VAR_CORRECTION: case SC_OP_VAR_DIM: case SC_OP_STD_CORRECTION: case SC_OP_STD_DIM:
      return rule_reduce(rc, "dim", true, 1);
    case SC_OP_VAR: case SC_OP_STD: return rule_reduce(rc, NULL, true, 1);
    case SC_OP_VAR_MEAN: case SC_OP_STD_MEAN: return rule_reduce(rc, "dim", true, 2);
    case SC_OP_LINALG_NORM: return rule_reduce(rc, "dim", true, 1);
    case SC_OP_MAX: case SC_OP_MIN: return rule_reduce(rc, NULL, true, 1);
    case SC_OP_ARGMAX: case SC_OP_ARGMIN: return rule_reduce(rc, "dim", true, 1);
    case SC_OP_ANY_DIM: case SC_OP_ALL_DIM: return rule_reduce(rc, "dim", false, 1);
    case SC_OP_ANY: case SC_OP_ALL: case SC_OP_PROD: return rule_reduce(rc, NULL, true, 1);
    case SC_OP_ANY_DIMS: case SC_OP_ALL_DIMS: return rule_reduce(rc, "dim", true, 1);
    case SC_OP_PROD_DIM: return rule_reduce(rc, "dim", false, 1);
    case SC_OP_LOGSUMEXP: return rule_reduce(rc, "dim", true, 1);
    case SC_OP_TRIU: case SC_OP_TRIL: return rule_same_as(rc, "self");
    case SC_OP_UNFOLD: { /* dim becomes (n - size) // step + 1 windows; a last dim of size */
      const sc_value *x = tensor_arg(rc, "self", true);
      shape s = {0};
      int64_t dim = 0, size = 0, step = 1;
      int d = 0;
      if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "dimension", 0, true, &dim) ||
          !const_int_arg(rc, "size", 0, true, &size) || !const_int_arg(rc, "step", 1, true, &step))
        return false;
      if (s.rank == 0 || s.rank >= MAX_RANK) return rule_error(rc, "unfold of a tensor of rank %d has no shape rule", s.rank);
      if (!norm_dim(rc, dim, s.rank, &d)) return false;
      if (step <= 0) return rule_error(rc, "step is %lld but must be > 0", (long long)step);
      if (size < 0) return rule_error(rc, "size is %lld but must be >= 0", (long long)size);
      sc_ctx *c = rc->ctx;
      guard(rc, "unfold", sc_expr_rel(c, SC_EXPR_LE, sc_expr_int(c, size), s.d[d]));
      s.d[d] = sc_expr_add(c, sc_expr_floordiv(c, sc_expr_sub(c, s.d[d], sc_expr_int(c, size)), sc_expr_int(c, step)),
                           sc_expr_int(c, 1));
      s.d[s.rank++] = sc_expr_int(c, size);
      return set_out(rc, 0, &s);
    }
    case SC_OP_PIXEL_SHUFFLE: case SC_OP_PIXEL_UNSHUFFLE: { /* [..., C, H, W] <-> [..., C / r^2, H r, W r] */
      bool up = rc->node->op->id == SC_OP_PIXEL_SHUFFLE;
      const sc_value *x = tensor_arg(rc, "self", true);
      shape s = {0};
      int64_t r = 1;
      if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, up ? "upscale_factor" : "downscale_factor", 1, true, &r))
        return false;
      if (s.rank < 3)
        return rule_error(rc, "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)",
                          up ? "pixel_shuffle" : "pixel_unshuffle", s.rank);
      if (r <= 0) return rule_error(rc, "%s_factor must be greater than 0, but got: %lld", up ? "upscale" : "downscale",
                                    (long long)r);
      sc_ctx *c = rc->ctx;
      const sc_expr *rr = sc_expr_int(c, r), *r2 = sc_expr_int(c, r * r), *zero = sc_expr_int(c, 0);
      int ci = s.rank - 3, hi = s.rank - 2, wi = s.rank - 1;
      if (up) {
        guard(rc, "pixel_shuffle", sc_expr_rel(c, SC_EXPR_EQ, sc_expr_mod(c, s.d[ci], r2), zero));
        s.d[ci] = sc_expr_floordiv(c, s.d[ci], r2);
        s.d[hi] = sc_expr_mul(c, s.d[hi], rr);
        s.d[wi] = sc_expr_mul(c, s.d[wi], rr);
      } else {
        guard(rc, "pixel_unshuffle", sc_expr_rel(c, SC_EXPR_EQ, sc_expr_mod(c, s.d[hi], rr), zero));
        guard(rc, "pixel_unshuffle", sc_expr_rel(c, SC_EXPR_EQ, sc_expr_mod(c, s.d[wi], rr), zero));
        s.d[ci] = sc_expr_mul(c, s.d[ci], r2);
        s.d[hi] = sc_expr_floordiv(c, s.d[hi], rr);
        s.d[wi] = sc_expr_floordiv(c, s.d[wi], rr);
      }
      return set_out(rc, 0, &s);
    }
    case SC_OP_ROT90: { /* torch's checks, then the two dims' sizes swapped for an odd k */
      const sc_value *x = tensor_arg(rc, "self", true);
      shape s = {0};
      int64_t k = 1, dims[MAX_RANK];
      if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "k", 1, false, &k)) return false;
      int nd = 0;
      if (!const_ints_arg(rc, "dims", dims, MAX_RANK, &nd, 0)) return false;
      if (nd == 0) dims[0] = 0, dims[1] = 1, nd = 2;
      if (nd != 2) return rule_error(rc, "expected total rotation dims == 2, but got dims = %d", nd);
      if (s.rank < 2) return rule_error(rc, "expected total dims >= 2, but got total dims = %d", s.rank);
      int d0 = 0, d1 = 0;
      if (!norm_dim(rc, dims[0], s.rank, &d0) || !norm_dim(rc, dims[1], s.rank, &d1)) return false;
      if (d0 == d1)
        return rule_error(rc, "expected rotation dims to be different, but got dim0 = %d and dim1 = %d", d0, d1);
      if (((k % 4) + 4) % 2 == 1) {
        const sc_expr *t = s.d[d0];
        s.d[d0] = s.d[d1];
        s.d[d1] = t;
      }
      return set_out(rc, 0, &s);
    }
    case SC_OP_FILL_DIAGONAL_: { /* torch: a matrix, or every dim of one length */
      const sc_value *x = tensor_arg(rc, "self", true);
      shape s = {0};
      if (!x || !shape_of(rc, x, &s)) return false;
      if (s.rank < 2) return rule_error(rc, "dimensions must larger than 1");
      for (int i = 1; s.rank > 2 && i < s.rank; i++) eq_guard(rc, "fill_diagonal_", s.d[i], s.d[0]);
      return set_out(rc, 0, &s);
    }
    case SC_OP_LINALG_VECTOR_NORM: return rule_reduce(rc, "dim", true, 1);
    case SC_OP_CUMMAX: case SC_OP_CUMMIN: case SC_OP_CUMSUM: case SC_OP_CUMPROD: {
      const sc_value *x = tensor_arg(rc, "self", true);
      shape s = {0};
      int64_t dim;
      if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "dim", 0, true, &dim)) return false;
      int d;
      if (!norm_dim(rc, dim, s.rank ? s.rank : 1, &d)) return false;
      if (rc->node->op->id == SC_OP_CUMMAX || rc->node->op->id == SC_OP_CUMMIN) /* values and indices */
        if (!set_out(rc, 1, &s)) return false;
      return set_out(rc, 0, &s);
    }
    case SC_OP_MAX_DIM: case SC_OP_MIN_DIM: return rule_reduce(rc, "dim", false, 2);
    case SC_OP_VIEW: case SC_OP_UNSAFE_VIEW: return rule_view(rc, "size");
    case SC_OP_RESHAPE: return rule_view(rc, "shape");
    case SC_OP_VIEW_AS: return rule_view_as(rc);
    case SC_OP_FLATTEN: return rule_flatten(rc);
    case SC_OP_UNFLATTEN: return rule_unflatten(rc);
    case SC_OP_PERMUTE: return rule_permute(rc);
    case SC_OP_T: return rule_transpose(rc, true);
    case SC_OP_TRANSPOSE: return rule_transpose(rc, false);
    case SC_OP_UNSQUEEZE: return rule_unsqueeze(rc);
    case SC_OP_SQUEEZE_DIM: return rule_squeeze(rc, false);
    case SC_OP_SQUEEZE_DIMS: return rule_squeeze(rc, true);
    case SC_OP_EXPAND: case SC_OP_EXPAND_AS: return rule_expand(rc);
    case SC_OP_SLICE: return rule_slice(rc);
    case SC_OP_SELECT: return rule_select(rc);
    case SC_OP_NARROW: return rule_narrow(rc);
    case SC_OP_SPLIT: return rule_split(rc, 0);
    case SC_OP_SPLIT_WITH_SIZES: return rule_split(rc, 1);
    case SC_OP_CHUNK: return rule_split(rc, 2);
    case SC_OP_TENSOR_SPLIT_INDICES: return rule_split(rc, 3);
    case SC_OP_UNBIND: return rule_unbind(rc);
    case SC_OP_CAT: return rule_cat(rc, false);
    case SC_OP_STACK: return rule_cat(rc, true);
    case SC_OP_REPEAT: return rule_repeat(rc, false);
    case SC_OP_TILE: return rule_repeat(rc, true);
    case SC_OP_VSTACK: case SC_OP_HSTACK: return rule_hv_stack(rc, rc->node->op->id == SC_OP_VSTACK);
    case SC_OP_OUTER: case SC_OP_KRON: return rule_kron(rc, rc->node->op->id == SC_OP_OUTER);
    case SC_OP_PAD: case SC_OP_CONSTANT_PAD_ND: case SC_OP_REFLECTION_PAD: case SC_OP_REPLICATION_PAD: return rule_pad(rc);
    case SC_OP_FLIP: case SC_OP_ROLL: return rule_same_as(rc, "self");
    case SC_OP_DIFF: return rule_diff(rc);
    case SC_OP_UPSAMPLE_NEAREST2D: case SC_OP_UPSAMPLE_BILINEAR2D: case SC_OP_UPSAMPLE_BICUBIC2D:
      return rule_upsample2d(rc);
    case SC_OP_COL2IM: return rule_col2im(rc);
    case SC_OP_IM2COL: return rule_im2col(rc);
    case SC_OP_EMBEDDING: return rule_embedding(rc);
    case SC_OP_EMBEDDING_BAG: return rule_embedding_bag(rc);
    case SC_OP_INDEX_SELECT: return rule_index_select(rc);
    case SC_OP_INDEX_COPY: return rule_index_copy(rc, "index_copy_");
    case SC_OP_INDEX_ADD: return rule_index_copy(rc, "index_add_");
    case SC_OP_INDEX_PUT: return rule_index_put(rc);
    case SC_OP_GATHER: return rule_gather(rc);
    case SC_OP_GROUPED_MM_FALLBACK: case SC_OP_GROUPED_MM: return rule_grouped_mm(rc);
    case SC_OP_EINSUM: return rule_einsum(rc);
    case SC_OP_HISTC: return rule_histc(rc);
    case SC_OP_DIAGONAL: return rule_diagonal(rc);
    case SC_OP_AS_STRIDED: return rule_as_strided(rc);
    case SC_OP_AS_STRIDED_SCATTER: return rule_as_strided_scatter(rc);
    case SC_OP_GRID_SAMPLER_2D: return rule_grid_sampler(rc);
    case SC_OP_CDIST: return rule_distance(rc, false);
    case SC_OP_PDIST: return rule_distance(rc, true);
    case SC_OP_NATIVE_DROPOUT: {
      const sc_value *x = tensor_arg(rc, "input", true);
      shape s = {0};
      return x && shape_of(rc, x, &s) && set_out(rc, 0, &s) && set_out(rc, 1, &s);
    }
    case SC_OP_MASKED_SCATTER: { /* self and mask broadcast; source any shape */
      const sc_value *x = tensor_arg(rc, "self", true), *m = tensor_arg(rc, "mask", true);
      shape s = {0}, ms = {0};
      if (!x || !m || !shape_of(rc, x, &s) || !shape_of(rc, m, &ms)) return false;
      broadcast(rc, &s, &ms);
      return set_out(rc, 0, &s);
    }
    case SC_OP_SCATTER_SRC: case SC_OP_SCATTER_VALUE: case SC_OP_SCATTER_ADD: case SC_OP_SCATTER_REDUCE:
      return rule_scatter(rc);
    case SC_OP_SORT: case SC_OP_ARGSORT: return rule_sort(rc, false);
    case SC_OP_BUCKETIZE: case SC_OP_BUCKETIZE_SCALAR: case SC_OP_SEARCHSORTED: case SC_OP_SEARCHSORTED_SCALAR:
      return rule_search_sorted(rc);
    case SC_OP_TOPK: return rule_sort(rc, true);
    case SC_OP_ARANGE: return rule_arange(rc, 0);
    case SC_OP_ARANGE_START: return rule_arange(rc, 1);
    case SC_OP_ARANGE_START_STEP: return rule_arange(rc, 2);
    case SC_OP_EYE: case SC_OP_EYE_M: { /* [n, n] or [n, m]; torch: "n must be greater or equal to 0, got -1" */
      const sc_expr *rows = int_arg(rc, "n", NULL);
      const sc_expr *cols = rc->node->op->id == SC_OP_EYE_M ? int_arg(rc, "m", NULL) : rows;
      if (!rows || !cols) return false;
      int64_t v;
      if (sc_expr_is_const(rows, &v) && v < 0) return rule_error(rc, "n must be greater or equal to 0, got %lld", (long long)v);
      if (sc_expr_is_const(cols, &v) && v < 0) return rule_error(rc, "m must be greater or equal to 0, got %lld", (long long)v);
      shape s = {2, {rows, cols}};
      return set_out(rc, 0, &s);
    }
    case SC_OP_ZEROS: case SC_OP_ONES: case SC_OP_FULL: case SC_OP_EMPTY: case SC_OP_NEW_ZEROS: case SC_OP_NEW_ONES:
    case SC_OP_RAND: case SC_OP_RANDN:
      return rule_sized(rc);
    case SC_OP_RANDPERM: {
      const sc_expr *n = int_arg(rc, "n", NULL);
      if (!n) return false;
      guard(rc, "randperm", sc_expr_rel(rc->ctx, SC_EXPR_GE, n, sc_expr_int(rc->ctx, 0)));
      shape s = {1, {n}};
      return set_out(rc, 0, &s);
    }
    case SC_OP_WEIGHT_NORM: return rule_same_as(rc, "v");
    case SC_OP_FFT_C2C: case SC_OP_FFT_R2C: case SC_OP_FFT_C2R: case SC_OP_FFT_FFT: case SC_OP_FFT_IFFT:
    case SC_OP_FFT_FFTN: case SC_OP_FFT_IFFTN: case SC_OP_FFT_RFFT: case SC_OP_FFT_IRFFT:
      return rule_fft(rc);
    case SC_OP_REAL: case SC_OP_IMAG: case SC_OP_ANGLE: case SC_OP_CONJ: return rule_same_as(rc, "self");
    case SC_OP_VIEW_AS_COMPLEX: { /* [..., 2] -> [...] */
      const sc_value *x = tensor_arg(rc, "self", true);
      shape s = {0};
      if (!x || !shape_of(rc, x, &s)) return false;
      int64_t two = 0;
      if (s.rank == 0 || !sc_expr_is_const(sc_env_resolve(rc->env, s.d[s.rank - 1]), &two) || two != 2)
        return rule_error(rc, "Tensor must have a last dimension of size 2");
      s.rank--;
      return set_out(rc, 0, &s);
    }
    case SC_OP_POLAR: { /* abs and angle broadcast */
      const sc_value *a = tensor_arg(rc, "abs", true), *b = tensor_arg(rc, "angle", true);
      shape s = {0}, t = {0};
      if (!a || !b || !shape_of(rc, a, &s) || !shape_of(rc, b, &t)) return false;
      broadcast(rc, &s, &t);
      return set_out(rc, 0, &s);
    }
    case SC_OP_VIEW_AS_REAL: {
      const sc_value *x = tensor_arg(rc, "self", true);
      shape s = {0};
      if (!x || !shape_of(rc, x, &s)) return false;
      if (s.rank + 1 > MAX_RANK) return rule_error(rc, "rank too large");
      s.d[s.rank++] = sc_expr_int(rc->ctx, 2);
      return set_out(rc, 0, &s);
    }
    case SC_OP_GLU: { /* dim halved; torch: "Halving dimension must be even" */
      const sc_value *x = tensor_arg(rc, "self", true);
      shape s = {0};
      int64_t dim = -1;
      int d = 0;
      if (!x || !shape_of(rc, x, &s) || !const_int_arg(rc, "dim", -1, false, &dim)) return false;
      if (s.rank == 0) return rule_error(rc, "glu does not support scalars because halving size must be even");
      if (!norm_dim(rc, dim, s.rank, &d)) return false;
      sc_ctx *c = rc->ctx;
      guard(rc, "glu", sc_expr_rel(c, SC_EXPR_EQ, sc_expr_mod(c, s.d[d], sc_expr_int(c, 2)), sc_expr_int(c, 0)));
      s.d[d] = sc_expr_floordiv(c, s.d[d], sc_expr_int(c, 2));
      return set_out(rc, 0, &s);
    }
    case SC_OP_SCALAR_TENSOR: {
      shape s = {0, {0}};
      return set_out(rc, 0, &s);
    }
    case SC_OP_LOCAL_SCALAR_DENSE: case SC_OP_ITEM: return rule_item(rc);
    case SC_OP_NONZERO: return rule_nonzero(rc, false);
    case SC_OP_MASKED_SELECT: return rule_nonzero(rc, true);
    case SC_OP_INDEX_TENSOR: return rule_index_tensor(rc);
    case SC_OP_SYM_SIZE: case SC_OP_SYM_STRIDE: return rule_sym_size(rc, false);
    case SC_OP_SYM_NUMEL: return rule_sym_size(rc, true);
    case SC_OP_SYM_STORAGE_OFFSET: return set_sym(rc, sc_expr_int(rc->ctx, 0));
    case SC_OP_PY_ADD: case SC_OP_PY_SUB: case SC_OP_PY_MUL: case SC_OP_PY_FLOORDIV: case SC_OP_PY_MOD:
    case SC_OP_PY_POW: case SC_OP_PY_NEG: case SC_OP_PY_POS: case SC_OP_PY_EQ: case SC_OP_PY_NE: case SC_OP_PY_LT:
    case SC_OP_PY_LE: case SC_OP_PY_GT: case SC_OP_PY_GE: case SC_OP_PY_AND: case SC_OP_PY_OR: case SC_OP_PY_NOT:
    case SC_OP_SYM_NOT: case SC_OP_SYM_MAX: case SC_OP_SYM_MIN:
      return rule_sym_binary(rc);
    case SC_OP_PY_TRUEDIV: case SC_OP_SYM_INT: case SC_OP_SYM_ITE: case SC_OP_MATH_TRUNC: {
      sc_value *out = sym_output(rc);
      if (out && out->kind == SC_VALUE_SYM_INT) return set_sym(rc, sc_env_new_unbacked(rc->env, rc->node->name, false));
      return true; /* float results carry no size information */
    }
    case SC_OP_PY_GETITEM: {
      const sc_arg *a = arg(rc, "a");
      if (!a) a = rc->node->n_inputs ? &rc->node->inputs[0].arg : NULL;
      int64_t i = 0;
      if (!a || a->kind != SC_ARG_TENSORS || !const_int_arg(rc, "b", 0, true, &i) || i < 0 || i >= (int64_t)a->n_items)
        return rule_error(rc, "getitem expects a tensor list and an index");
      shape s = {0};
      return shape_of(rc, a->items[i].value, &s) && set_out(rc, 0, &s);
    }
    case SC_OP_ASSERT_SCALAR: return rule_assert_scalar(rc);
    case SC_OP_SYM_CONSTRAIN_RANGE: return rule_constrain_range(rc, false);
    case SC_OP_SYM_CONSTRAIN_RANGE_FOR_SIZE: return rule_constrain_range(rc, true);
    case SC_OP_ASSERT_TENSOR_METADATA: case SC_OP_ASSERT_ASYNC: return true;
    case SC_OP_FUNCTIONAL_ASSERT_ASYNC: return true;
    case SC_OP_COUNT: break;
  }
  return rule_error(rc, "no shape rule");
}
