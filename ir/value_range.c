/* value_range.c - interval arithmetic; see value_range.h. */
#include "value_range.h"

#include <inttypes.h>

sc_range_iv sc_iv(int64_t lo, int64_t hi) { return (sc_range_iv){lo, hi}; }
sc_range_iv sc_iv_point(int64_t v) { return (sc_range_iv){v, v}; }
sc_range_iv sc_iv_full(void) { return (sc_range_iv){SC_NEG_INT_OO, SC_INT_OO}; }
bool sc_iv_is_empty(sc_range_iv r) { return r.lo > r.hi; }

sc_range_iv sc_iv_intersect(sc_range_iv a, sc_range_iv b) {
  return (sc_range_iv){a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
}

static bool is_inf(int64_t v) { return v == SC_INT_OO || v == SC_NEG_INT_OO; }

/* Saturating add where either infinity absorbs; -oo + oo cannot occur for lo+lo / hi+hi. */
static int64_t add_sat(int64_t a, int64_t b) {
  if (a == SC_INT_OO || b == SC_INT_OO) return SC_INT_OO;
  if (a == SC_NEG_INT_OO || b == SC_NEG_INT_OO) return SC_NEG_INT_OO;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? SC_INT_OO : SC_NEG_INT_OO;
  return r;
}

static int64_t mul_sat(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (is_inf(a) || is_inf(b)) return neg ? SC_NEG_INT_OO : SC_INT_OO;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return neg ? SC_NEG_INT_OO : SC_INT_OO;
  return r;
}

sc_range_iv sc_iv_add(sc_range_iv a, sc_range_iv b) { return (sc_range_iv){add_sat(a.lo, b.lo), add_sat(a.hi, b.hi)}; }

/* The smallest interval holding the four corner values of a monotone operator. */
static sc_range_iv hull4(const int64_t c[4]) {
  sc_range_iv r = {c[0], c[0]};
  for (int i = 1; i < 4; i++) {
    if (c[i] < r.lo) r.lo = c[i];
    if (c[i] > r.hi) r.hi = c[i];
  }
  return r;
}

sc_range_iv sc_iv_mul(sc_range_iv a, sc_range_iv b) {
  int64_t c[4] = {mul_sat(a.lo, b.lo), mul_sat(a.lo, b.hi), mul_sat(a.hi, b.lo), mul_sat(a.hi, b.hi)};
  return hull4(c);
}

/* a // b at the corners of two ranges, with sympy's limits where a bound is infinite:
 * x // +-oo is 0 or -1 for a finite x, and +-oo // +-oo is an infinity of the sign of the
 * quotient (torch's ValueRanges turns sympy's nan there into that infinity).  b != 0. */
static int64_t floordiv_pt(int64_t a, int64_t b) {
  bool neg = (a < 0) != (b < 0);
  if (is_inf(a)) return neg ? SC_NEG_INT_OO : SC_INT_OO;
  if (is_inf(b)) return a == 0 || !neg ? 0 : -1;
  if (a == INT64_MIN && b == -1) return SC_INT_OO;
  int64_t q = a / b;
  if ((a % b != 0) && neg) q--;
  return q;
}

/* For a divisor range of one sign the quotient is monotone in each operand, so its
 * extremes are at the four corners, infinite ones included ([int_oo, int_oo], the range of
 * a constant that saturated, gives 0 for a finite dividend). */
sc_range_iv sc_iv_floordiv(sc_range_iv a, sc_range_iv b) {
  if (b.lo <= 0 && b.hi >= 0) return sc_iv_full();
  int64_t c[4] = {floordiv_pt(a.lo, b.lo), floordiv_pt(a.lo, b.hi), floordiv_pt(a.hi, b.lo), floordiv_pt(a.hi, b.hi)};
  return hull4(c);
}

sc_range_iv sc_iv_mod(sc_range_iv a, sc_range_iv b) {
  /* Python modulo: the result has the divisor's sign and |r| < |b| */
  if (b.lo > 0) {
    sc_range_iv r = {0, b.hi == SC_INT_OO ? SC_INT_OO : b.hi - 1};
    if (a.lo >= 0 && a.hi < b.lo) r = a; /* a already below every divisor */
    else if (a.lo >= 0 && a.hi < r.hi) r.hi = a.hi;
    return r;
  }
  if (b.hi < 0) return (sc_range_iv){b.lo == SC_NEG_INT_OO ? SC_NEG_INT_OO : b.lo + 1, 0};
  return sc_iv_full();
}

sc_range_iv sc_iv_min(sc_range_iv a, sc_range_iv b) {
  return (sc_range_iv){a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
}

sc_range_iv sc_iv_max(sc_range_iv a, sc_range_iv b) {
  return (sc_range_iv){a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

static sc_range_iv truth_iv(sc_truth t) {
  return t == SC_TRUE ? sc_iv_point(1) : t == SC_FALSE ? sc_iv_point(0) : sc_iv(0, 1);
}

/* Decides a <op> b from the range of a - b. */
static sc_truth decide_rel(sc_expr_kind kind, sc_range_iv d) {
  switch (kind) {
    case SC_EXPR_EQ:
      if (d.lo == 0 && d.hi == 0) return SC_TRUE;
      return (d.lo > 0 || d.hi < 0) ? SC_FALSE : SC_UNKNOWN;
    case SC_EXPR_NE:
      if (d.lo == 0 && d.hi == 0) return SC_FALSE;
      return (d.lo > 0 || d.hi < 0) ? SC_TRUE : SC_UNKNOWN;
    case SC_EXPR_LT: return d.hi < 0 ? SC_TRUE : d.lo >= 0 ? SC_FALSE : SC_UNKNOWN;
    case SC_EXPR_LE: return d.hi <= 0 ? SC_TRUE : d.lo > 0 ? SC_FALSE : SC_UNKNOWN;
    case SC_EXPR_GT: return d.lo > 0 ? SC_TRUE : d.hi <= 0 ? SC_FALSE : SC_UNKNOWN;
    case SC_EXPR_GE: return d.lo >= 0 ? SC_TRUE : d.hi < 0 ? SC_FALSE : SC_UNKNOWN;
    default: return SC_UNKNOWN;
  }
}

sc_range_iv sc_expr_range(const sc_expr *e, sc_range_lookup_fn lookup, void *env) {
  sc_range_iv r;
  switch (e->kind) {
    case SC_EXPR_INT: return sc_iv_point(e->value);
    case SC_EXPR_SYM: return (lookup && lookup(env, e->name, &r)) ? r : sc_iv_full();
    case SC_EXPR_ADD:
    case SC_EXPR_MUL:
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
      r = sc_expr_range(e->args[0], lookup, env);
      for (uint32_t i = 1; i < e->n_args; i++) {
        sc_range_iv x = sc_expr_range(e->args[i], lookup, env);
        r = e->kind == SC_EXPR_ADD ? sc_iv_add(r, x)
            : e->kind == SC_EXPR_MUL ? sc_iv_mul(r, x)
            : e->kind == SC_EXPR_MIN ? sc_iv_min(r, x)
                                     : sc_iv_max(r, x);
      }
      return r;
    case SC_EXPR_POW: {
      sc_range_iv sq = sc_expr_range(e->args[0], lookup, env);
      int64_t n = e->args[1]->value;
      r = sc_iv_point(1);
      for (int64_t k = n; k; k >>= 1) { /* square and multiply */
        if (k & 1) r = sc_iv_mul(r, sq);
        if (k > 1) sq = sc_iv_mul(sq, sq);
      }
      if (n % 2 == 0 && r.lo < 0) r.lo = 0; /* an even power is never negative */
      return r;
    }
    case SC_EXPR_FLOORDIV:
      return sc_iv_floordiv(sc_expr_range(e->args[0], lookup, env), sc_expr_range(e->args[1], lookup, env));
    case SC_EXPR_MOD: return sc_iv_mod(sc_expr_range(e->args[0], lookup, env), sc_expr_range(e->args[1], lookup, env));
    default: return truth_iv(sc_expr_decide(e, lookup, env));
  }
}

sc_truth sc_expr_decide(const sc_expr *e, sc_range_lookup_fn lookup, void *env) {
  switch (e->kind) {
    case SC_EXPR_TRUE: return SC_TRUE;
    case SC_EXPR_FALSE: return SC_FALSE;
    case SC_EXPR_NOT: {
      sc_truth t = sc_expr_decide(e->args[0], lookup, env);
      return t == SC_UNKNOWN ? SC_UNKNOWN : t == SC_TRUE ? SC_FALSE : SC_TRUE;
    }
    case SC_EXPR_AND:
    case SC_EXPR_OR: {
      bool any_unknown = false;
      for (uint32_t i = 0; i < e->n_args; i++) {
        sc_truth t = sc_expr_decide(e->args[i], lookup, env);
        if (e->kind == SC_EXPR_AND && t == SC_FALSE) return SC_FALSE;
        if (e->kind == SC_EXPR_OR && t == SC_TRUE) return SC_TRUE;
        any_unknown |= t == SC_UNKNOWN;
      }
      return any_unknown ? SC_UNKNOWN : (e->kind == SC_EXPR_AND ? SC_TRUE : SC_FALSE);
    }
    case SC_EXPR_EQ:
    case SC_EXPR_NE:
    case SC_EXPR_LT:
    case SC_EXPR_LE:
    case SC_EXPR_GT:
    case SC_EXPR_GE: {
      sc_range_iv a = sc_expr_range(e->args[0], lookup, env), b = sc_expr_range(e->args[1], lookup, env);
      /* range of a - b, with b negated */
      sc_range_iv nb = {b.hi == SC_INT_OO ? SC_NEG_INT_OO : (b.hi == SC_NEG_INT_OO ? SC_INT_OO : -b.hi),
                        b.lo == SC_NEG_INT_OO ? SC_INT_OO : (b.lo == SC_INT_OO ? SC_NEG_INT_OO : -b.lo)};
      sc_range_iv d = sc_iv_add(a, nb);
      if ((is_inf(a.lo) && is_inf(nb.lo) && a.lo != nb.lo) || (is_inf(a.hi) && is_inf(nb.hi) && a.hi != nb.hi))
        d = sc_iv_full();
      return decide_rel(e->kind, d);
    }
    default: return SC_UNKNOWN;
  }
}

void sc_iv_print(sc_strbuf *sb, sc_range_iv r) {
  if (r.lo == SC_NEG_INT_OO) sc_strbuf_append(sb, "[-int_oo, ");
  else sc_strbuf_printf(sb, "[%" PRId64 ", ", r.lo);
  if (r.hi == SC_INT_OO) sc_strbuf_append(sb, "int_oo]");
  else sc_strbuf_printf(sb, "%" PRId64 "]", r.hi);
}
