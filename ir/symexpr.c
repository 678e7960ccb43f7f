/* symexpr.c - construction, canonical form, evaluation and substitution of symbolic
 * expressions.  Printing and parsing live in symexpr_print.c and symexpr_parse.c. */
#include "symexpr.h"

#include <stdlib.h>
#include <string.h>

/* ---- hash-consing --------------------------------------------------------------- */

typedef struct sc_expr_table {
  const sc_expr **slots;
  size_t n_slots, n_items;
} sc_expr_table;

static uint64_t expr_hash(sc_expr_kind kind, int64_t value, const char *name, uint32_t n,
                          const sc_expr *const *args) {
  uint64_t h = sc_hash_bytes(&kind, sizeof kind, 0x5c);
  h = sc_hash_bytes(&value, sizeof value, h);
  h = sc_hash_bytes(&name, sizeof name, h);
  for (uint32_t i = 0; i < n; i++) h = sc_hash_bytes(&args[i]->hash, sizeof args[i]->hash, h);
  return h;
}

static bool expr_same(const sc_expr *e, sc_expr_kind kind, int64_t value, const char *name,
                      uint32_t n, const sc_expr *const *args) {
  if (e->kind != kind || e->value != value || e->name != name || e->n_args != n) return false;
  for (uint32_t i = 0; i < n; i++)
    if (e->args[i] != args[i]) return false;
  return true;
}

static void table_grow(sc_ctx *ctx, sc_expr_table *t) {
  size_t n_old = t->n_slots;
  const sc_expr **old = t->slots;
  t->n_slots = n_old ? n_old * 2 : 256;
  t->slots = sc_arena_alloc(&ctx->arena, t->n_slots * sizeof *t->slots);
  for (size_t i = 0; i < n_old; i++) {
    if (!old[i]) continue;
    size_t j = old[i]->hash & (t->n_slots - 1);
    while (t->slots[j]) j = (j + 1) & (t->n_slots - 1);
    t->slots[j] = old[i];
  }
}

static const sc_expr *expr_intern(sc_ctx *ctx, sc_expr_kind kind, int64_t value, const char *name,
                                  uint32_t n, const sc_expr *const *args) {
  if (!ctx->exprs) ctx->exprs = sc_arena_alloc(&ctx->arena, sizeof *ctx->exprs);
  sc_expr_table *t = ctx->exprs;
  if ((t->n_items + 1) * 2 > t->n_slots) table_grow(ctx, t);
  uint64_t h = expr_hash(kind, value, name, n, args);
  size_t j = h & (t->n_slots - 1);
  for (; t->slots[j]; j = (j + 1) & (t->n_slots - 1))
    if (t->slots[j]->hash == h && expr_same(t->slots[j], kind, value, name, n, args)) return t->slots[j];
  sc_expr *e = sc_arena_alloc(&ctx->arena, sizeof *e + n * sizeof e->args[0]);
  e->kind = kind;
  e->value = value;
  e->name = name;
  e->n_args = n;
  e->hash = h;
  for (uint32_t i = 0; i < n; i++) e->args[i] = args[i];
  t->slots[j] = e;
  t->n_items++;
  return e;
}

/* ---- ordering ------------------------------------------------------------------- */

int sc_expr_compare(const sc_expr *a, const sc_expr *b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  switch (a->kind) {
    case SC_EXPR_INT: return a->value < b->value ? -1 : a->value > b->value;
    case SC_EXPR_SYM: return strcmp(a->name, b->name);
    default: break;
  }
  uint32_t n = a->n_args < b->n_args ? a->n_args : b->n_args;
  for (uint32_t i = 0; i < n; i++) {
    int c = sc_expr_compare(a->args[i], b->args[i]);
    if (c) return c;
  }
  return a->n_args < b->n_args ? -1 : a->n_args > b->n_args;
}

/* A stable merge sort: sums of thousands of terms arrive in any order. */
static void merge_sort(const sc_expr **v, const sc_expr **tmp, size_t n,
                       int (*cmp)(const sc_expr *, const sc_expr *)) {
  if (n < 2) return;
  size_t h = n / 2;
  merge_sort(v, tmp, h, cmp);
  merge_sort(v + h, tmp, n - h, cmp);
  if (cmp(v[h - 1], v[h]) <= 0) return; /* already in order */
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = cmp(v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

static void sort_exprs(const sc_expr **v, size_t n, int (*cmp)(const sc_expr *, const sc_expr *)) {
  if (n < 2) return;
  const sc_expr *stackv[64], **tmp = n <= 64 ? stackv : sc_xmalloc(n * sizeof *tmp);
  merge_sort(v, tmp, n, cmp);
  if (tmp != stackv) free(tmp);
}

/* Sorts v and drops repeats (equal expressions are one pointer); returns the new count. */
static size_t sort_unique(const sc_expr **v, size_t n) {
  sort_exprs(v, n, sc_expr_compare);
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (!w || v[w - 1] != v[i]) v[w++] = v[i];
  return w;
}

/* ---- saturating int64 arithmetic (sizes never get near the limits) --------------- */

static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return ((a < 0) != (b < 0)) ? INT64_MIN : INT64_MAX;
  return r;
}

static int64_t py_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t py_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/* ---- leaves --------------------------------------------------------------------- */

const sc_expr *sc_expr_int(sc_ctx *ctx, int64_t v) { return expr_intern(ctx, SC_EXPR_INT, v, NULL, 0, NULL); }

const sc_expr *sc_expr_sym(sc_ctx *ctx, const char *name) {
  return expr_intern(ctx, SC_EXPR_SYM, 0, sc_ctx_intern(ctx, name), 0, NULL);
}

const sc_expr *sc_expr_bool(sc_ctx *ctx, bool v) {
  return expr_intern(ctx, v ? SC_EXPR_TRUE : SC_EXPR_FALSE, 0, NULL, 0, NULL);
}

bool sc_expr_is_const(const sc_expr *e, int64_t *value) {
  if (e->kind != SC_EXPR_INT) return false;
  if (value) *value = e->value;
  return true;
}

bool sc_expr_is_bool(const sc_expr *e) { return e->kind >= SC_EXPR_EQ; }

/* ---- sums of products ----------------------------------------------------------- */

/* A term is coeff * mono, where mono is NULL (the constant) or a product of factors. */
typedef struct term {
  int64_t coeff;
  const sc_expr *mono;
} term;

static const sc_expr *mono_of(sc_ctx *ctx, const sc_expr *e, int64_t *coeff) {
  if (e->kind == SC_EXPR_INT) {
    *coeff = e->value;
    return NULL;
  }
  if (e->kind == SC_EXPR_MUL && e->args[0]->kind == SC_EXPR_INT) {
    *coeff = e->args[0]->value;
    if (e->n_args == 2) return e->args[1];
    return expr_intern(ctx, SC_EXPR_MUL, 0, NULL, e->n_args - 1, e->args + 1);
  }
  *coeff = 1;
  return e;
}

/* The factors of a monomial: its MUL args (no coefficient), or itself. */
static const sc_expr *const *mono_factors(const sc_expr *const *self, const sc_expr *mono, size_t *n) {
  if (mono->kind == SC_EXPR_MUL) {
    *n = mono->n_args;
    return mono->args;
  }
  *n = 1;
  return self;
}

static const sc_expr *make_term(sc_ctx *ctx, int64_t coeff, const sc_expr *mono) {
  if (coeff == 0) return sc_expr_int(ctx, 0);
  if (!mono) return sc_expr_int(ctx, coeff);
  if (coeff == 1) return mono;
  size_t n;
  const sc_expr *const *fs = mono_factors(&mono, mono, &n);
  const sc_expr *stackv[64], **buf = n + 1 <= 64 ? stackv : sc_xmalloc((n + 1) * sizeof *buf);
  buf[0] = sc_expr_int(ctx, coeff);
  memcpy(buf + 1, fs, n * sizeof *buf);
  const sc_expr *r = expr_intern(ctx, SC_EXPR_MUL, 0, NULL, (uint32_t)(n + 1), buf);
  if (buf != stackv) free(buf);
  return r;
}

/* A term's factors, its coefficient skipped. */
static const sc_expr *const *term_factors(const sc_expr *const *self, const sc_expr *t, size_t *n) {
  if (t->kind != SC_EXPR_MUL) {
    *n = 1;
    return self;
  }
  bool coeff = t->args[0]->kind == SC_EXPR_INT;
  *n = t->n_args - coeff;
  return t->args + coeff;
}

/* A factor is base**exponent: a POW node, or its own base with exponent 1. */
static const sc_expr *factor_base(const sc_expr *f) { return f->kind == SC_EXPR_POW ? f->args[0] : f; }
static int64_t factor_exponent(const sc_expr *f) { return f->kind == SC_EXPR_POW ? f->args[1]->value : 1; }

static const sc_expr *make_factor(sc_ctx *ctx, const sc_expr *base, int64_t exponent) {
  if (exponent == 1) return base;
  const sc_expr *args[2] = {base, sc_expr_int(ctx, exponent)};
  return expr_intern(ctx, SC_EXPR_POW, 0, NULL, 2, args);
}

static int compare_factor_bases(const sc_expr *a, const sc_expr *b) {
  return sc_expr_compare(factor_base(a), factor_base(b));
}

/* The total degree of a term: its exponents summed (s0*s1**2 has 3). */
static size_t term_degree(const sc_expr *t) {
  if (t->kind == SC_EXPR_INT) return 0;
  const sc_expr *self[1] = {t};
  size_t n, degree = 0;
  const sc_expr *const *f = term_factors(self, t, &n);
  for (size_t i = 0; i < n; i++) {
    int64_t k = factor_exponent(f[i]);
    degree = (uint64_t)k > SIZE_MAX - degree ? SIZE_MAX : degree + (size_t)k;
  }
  return degree;
}

/* Terms sort by falling degree, then structurally, with the constant last. */
static int compare_terms(const sc_expr *a, const sc_expr *b) {
  const sc_expr *ma = a->kind == SC_EXPR_INT ? NULL : a, *mb = b->kind == SC_EXPR_INT ? NULL : b;
  if (!ma || !mb) return (ma ? -1 : 0) + (mb ? 1 : 0);
  size_t da = term_degree(a), db = term_degree(b);
  if (da != db) return da > db ? -1 : 1;
  size_t na, nb;
  const sc_expr *const *fa = term_factors(&a, a, &na), *const *fb = term_factors(&b, b, &nb);
  if (na != nb) return na > nb ? 1 : -1;
  /* compare the monomials, ignoring coefficients */
  for (size_t i = 0; i < na; i++) {
    int c = sc_expr_compare(fa[i], fb[i]);
    if (c) return c;
  }
  return 0;
}

typedef struct term_list {
  term *items;
  size_t n, cap;
} term_list;

/* Appends a term; like terms are merged when the list is built (terms_build). */
static void terms_add(term_list *tl, int64_t coeff, const sc_expr *mono) {
  if (tl->n == tl->cap) {
    tl->cap = tl->cap ? tl->cap * 2 : 8;
    tl->items = sc_xrealloc(tl->items, tl->cap * sizeof *tl->items);
  }
  tl->items[tl->n++] = (term){coeff, mono};
}

static int compare_by_mono(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const term *)a)->mono, y = (uintptr_t)((const term *)b)->mono;
  return x < y ? -1 : x > y;
}

/* Merges like terms (hash-consing makes equal monomials equal pointers): sorting by
 * pointer first keeps a sum of n terms O(n log n). */
static void terms_merge(term_list *tl) {
  if (tl->n < 2) return;
  qsort(tl->items, tl->n, sizeof *tl->items, compare_by_mono);
  size_t w = 0;
  for (size_t i = 0; i < tl->n; i++) {
    if (w && tl->items[w - 1].mono == tl->items[i].mono) tl->items[w - 1].coeff = sat_add(tl->items[w - 1].coeff, tl->items[i].coeff);
    else tl->items[w++] = tl->items[i];
  }
  tl->n = w;
}

static void terms_collect(sc_ctx *ctx, term_list *tl, const sc_expr *e, int64_t scale) {
  if (e->kind == SC_EXPR_ADD) {
    for (uint32_t i = 0; i < e->n_args; i++) terms_collect(ctx, tl, e->args[i], scale);
    return;
  }
  int64_t coeff;
  const sc_expr *mono = mono_of(ctx, e, &coeff);
  terms_add(tl, sat_mul(coeff, scale), mono);
}

static const sc_expr *terms_build(sc_ctx *ctx, term_list *tl) {
  terms_merge(tl);
  const sc_expr *stackv[32];
  const sc_expr **v = tl->n <= 32 ? stackv : sc_xmalloc(tl->n * sizeof *v);
  size_t n = 0;
  for (size_t i = 0; i < tl->n; i++)
    if (tl->items[i].coeff != 0) v[n++] = make_term(ctx, tl->items[i].coeff, tl->items[i].mono);
  free(tl->items);
  tl->items = NULL;
  const sc_expr *r;
  if (n == 0) {
    r = sc_expr_int(ctx, 0);
  } else if (n == 1) {
    r = v[0];
  } else {
    sort_exprs(v, n, compare_terms);
    r = expr_intern(ctx, SC_EXPR_ADD, 0, NULL, (uint32_t)n, v);
  }
  if (v != stackv) free(v);
  return r;
}

const sc_expr *sc_expr_add(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) {
  if (a->kind == SC_EXPR_INT && b->kind == SC_EXPR_INT) return sc_expr_int(ctx, sat_add(a->value, b->value));
  if (a->kind == SC_EXPR_INT && a->value == 0) return b;
  if (b->kind == SC_EXPR_INT && b->value == 0) return a;
  term_list tl = {0};
  terms_collect(ctx, &tl, a, 1);
  terms_collect(ctx, &tl, b, 1);
  return terms_build(ctx, &tl);
}

const sc_expr *sc_expr_add_all(sc_ctx *ctx, const sc_expr *const *terms, size_t n) {
  if (n == 0) return sc_expr_int(ctx, 0);
  if (n == 1) return terms[0];
  term_list tl = {0};
  for (size_t i = 0; i < n; i++) terms_collect(ctx, &tl, terms[i], 1);
  return terms_build(ctx, &tl);
}

/* Whether base**n expands to at most SC_EXPR_MAX_TERMS terms: C(n + k - 1, k - 1) for a
 * sum of k terms, counted before expanding anything. */
static bool power_expands_small(const sc_expr *base, int64_t n) {
  uint64_t k = sc_expr_n_terms(base), count = 1;
  for (uint64_t i = 1; i < k; i++) { /* stops once past the limit */
    count = count * ((uint64_t)n + i) / i;
    if (count > SC_EXPR_MAX_TERMS) return false;
  }
  return true;
}

void sc_expr_terms_push(sc_expr_terms *t, const sc_expr *e) {
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 16;
    t->items = sc_xrealloc(t->items, t->cap * sizeof *t->items);
  }
  t->items[t->n++] = e;
}

const sc_expr *sc_expr_terms_sum(sc_ctx *ctx, sc_expr_terms *t) {
  const sc_expr *sum = sc_expr_add_all(ctx, t->items, t->n);
  sc_expr_terms_free(t);
  return sum;
}

void sc_expr_terms_free(sc_expr_terms *t) {
  free(t->items);
  memset(t, 0, sizeof *t);
}

size_t sc_expr_n_terms(const sc_expr *e) { return e->kind == SC_EXPR_ADD ? e->n_args : 1; }

size_t sc_expr_degree(const sc_expr *e) {
  size_t best = 0;
  for (size_t i = 0; i < sc_expr_n_terms(e); i++) {
    size_t d = term_degree(e->kind == SC_EXPR_ADD ? e->args[i] : e);
    if (d > best) best = d;
  }
  return best;
}

const sc_expr *sc_expr_neg(sc_ctx *ctx, const sc_expr *a) { return sc_expr_mul(ctx, sc_expr_int(ctx, -1), a); }

const sc_expr *sc_expr_sub(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) {
  return sc_expr_add(ctx, a, sc_expr_neg(ctx, b));
}

/* Merges the factors of two monomials: equal bases add their exponents (s0 * s0**2 is
 * s0**3), the rest keep the order of their bases. */
static const sc_expr *mul_terms(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) {
  int64_t ca, cb;
  const sc_expr *ma = mono_of(ctx, a, &ca), *mb = mono_of(ctx, b, &cb);
  int64_t coeff = sat_mul(ca, cb);
  if (coeff == 0) return sc_expr_int(ctx, 0);
  if (!ma) return make_term(ctx, coeff, mb);
  if (!mb) return make_term(ctx, coeff, ma);
  size_t na, nb;
  const sc_expr *const *fa = mono_factors(&ma, ma, &na), *const *fb = mono_factors(&mb, mb, &nb);
  const sc_expr *stackv[128], **f = na + nb <= 128 ? stackv : sc_xmalloc((na + nb) * sizeof *f);
  size_t n = 0, i = 0, j = 0;
  while (i < na || j < nb) { /* both lists are sorted by base: merge them */
    int c = i == na ? 1 : j == nb ? -1 : compare_factor_bases(fa[i], fb[j]);
    if (c < 0) f[n++] = fa[i++];
    else if (c > 0) f[n++] = fb[j++];
    else {
      f[n++] = make_factor(ctx, factor_base(fa[i]), sat_add(factor_exponent(fa[i]), factor_exponent(fb[j])));
      i++, j++;
    }
  }
  const sc_expr *mono = n == 1 ? f[0] : expr_intern(ctx, SC_EXPR_MUL, 0, NULL, (uint32_t)n, f);
  if (f != stackv) free(f);
  return make_term(ctx, coeff, mono);
}

const sc_expr *sc_expr_mul(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) {
  if (a->kind == SC_EXPR_INT && b->kind == SC_EXPR_INT) return sc_expr_int(ctx, sat_mul(a->value, b->value));
  if (a->kind != SC_EXPR_ADD && b->kind != SC_EXPR_ADD) return mul_terms(ctx, a, b);
  /* a constant scales every term, as sympy's 2*(s0 + 1) is 2*s0 + 2 */
  if (a->kind == SC_EXPR_INT || b->kind == SC_EXPR_INT) {
    const sc_expr *k = a->kind == SC_EXPR_INT ? a : b, *sum = a->kind == SC_EXPR_INT ? b : a;
    term_list tl = {0};
    terms_collect(ctx, &tl, sum, k->value);
    return terms_build(ctx, &tl);
  }
  uint64_t na = sc_expr_n_terms(a), nb = sc_expr_n_terms(b);
  /* past the limit the sums stay factors: exact, and no exponential expansion */
  if (na * nb > SC_EXPR_MAX_TERMS) return mul_terms(ctx, a, b);
  /* distribute: the canonical form is a sum of products */
  const sc_expr *one_a[1] = {a}, *one_b[1] = {b};
  const sc_expr *const *ta = a->kind == SC_EXPR_ADD ? a->args : one_a;
  const sc_expr *const *tb = b->kind == SC_EXPR_ADD ? b->args : one_b;
  term_list tl = {0};
  for (uint32_t i = 0; i < na; i++)
    for (uint32_t j = 0; j < nb; j++) terms_collect(ctx, &tl, mul_terms(ctx, ta[i], tb[j]), 1);
  return terms_build(ctx, &tl);
}

const sc_expr *sc_expr_pow(sc_ctx *ctx, const sc_expr *base, int64_t n) {
  if (n < 0) return NULL;
  if (n == 0) return sc_expr_int(ctx, 1);
  if (n == 1) return base;
  if (base->kind == SC_EXPR_INT) {
    int64_t r = 1;
    for (int64_t i = 0; i < n; i++) {
      if (__builtin_mul_overflow(r, base->value, &r)) return NULL;
      if (r == 0 || r == 1) break;
      if (r == -1) return sc_expr_int(ctx, n % 2 ? -1 : 1);
    }
    return sc_expr_int(ctx, r);
  }
  if (base->kind == SC_EXPR_ADD) {
    if (!power_expands_small(base, n)) return make_factor(ctx, base, n);
    const sc_expr *r = sc_expr_int(ctx, 1), *sq = base; /* square and multiply */
    for (int64_t k = n; k; k >>= 1) {
      if (k & 1) r = sc_expr_mul(ctx, r, sq);
      if (k > 1) sq = sc_expr_mul(ctx, sq, sq);
    }
    return r;
  }
  /* a monomial: the coefficient to the n-th, every exponent times n */
  int64_t coeff;
  const sc_expr *mono = mono_of(ctx, base, &coeff);
  const sc_expr *scaled = sc_expr_pow(ctx, sc_expr_int(ctx, coeff), n);
  if (!scaled) return NULL;
  size_t nf;
  const sc_expr *const *f = mono_factors(&mono, mono, &nf);
  const sc_expr **out = sc_xmalloc(nf * sizeof *out);
  for (size_t i = 0; i < nf; i++) {
    int64_t k;
    if (__builtin_mul_overflow(factor_exponent(f[i]), n, &k)) {
      free(out);
      return NULL;
    }
    out[i] = make_factor(ctx, factor_base(f[i]), k);
  }
  const sc_expr *m = nf == 1 ? out[0] : expr_intern(ctx, SC_EXPR_MUL, 0, NULL, (uint32_t)nf, out);
  free(out);
  return make_term(ctx, scaled->value, m);
}

/* True when every coefficient of a (the constant included) is divisible by d. */
static bool all_coeffs_divisible(sc_ctx *ctx, const sc_expr *a, int64_t d) {
  uint32_t n = a->kind == SC_EXPR_ADD ? a->n_args : 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t c;
    mono_of(ctx, a->kind == SC_EXPR_ADD ? a->args[i] : a, &c);
    if (c % d != 0) return false;
  }
  return true;
}

static const sc_expr *divide_coeffs(sc_ctx *ctx, const sc_expr *a, int64_t d) {
  term_list tl = {0};
  uint32_t n = a->kind == SC_EXPR_ADD ? a->n_args : 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t c;
    const sc_expr *m = mono_of(ctx, a->kind == SC_EXPR_ADD ? a->args[i] : a, &c);
    terms_add(&tl, c / d, m);
  }
  return terms_build(ctx, &tl);
}

static const sc_expr *binary_node(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *a, const sc_expr *b) {
  const sc_expr *args[2] = {a, b};
  return expr_intern(ctx, kind, 0, NULL, 2, args);
}

/* m / d for monomials when each of d's factors divides one of m's (s0**3 / s0 is s0**2),
 * else NULL. */
static const sc_expr *mono_divide(sc_ctx *ctx, const sc_expr *m, const sc_expr *d) {
  const sc_expr *self_m[1] = {m}, *self_d[1] = {d};
  size_t nm, nd;
  const sc_expr *const *fm = mono_factors(self_m, m, &nm), *const *fd = mono_factors(self_d, d, &nd);
  int64_t *left = sc_xmalloc(nm * sizeof *left);
  for (size_t j = 0; j < nm; j++) left[j] = factor_exponent(fm[j]);
  for (size_t i = 0; i < nd; i++) {
    size_t j = 0;
    while (j < nm && factor_base(fm[j]) != factor_base(fd[i])) j++;
    if (j == nm || left[j] < factor_exponent(fd[i])) {
      free(left);
      return NULL;
    }
    left[j] -= factor_exponent(fd[i]);
  }
  const sc_expr *q = sc_expr_int(ctx, 1);
  for (size_t j = 0; j < nm; j++)
    if (left[j]) q = sc_expr_mul(ctx, q, make_factor(ctx, factor_base(fm[j]), left[j]));
  free(left);
  return q;
}

/* a / M for b = c*M, a monomial M of positive sizes that divides every term of a, with c
 * > 0 (*mono: M, *coeff: c); NULL when b is not such a monomial or M does not divide a. */
static const sc_expr *divide_by_monomial(sc_ctx *ctx, const sc_expr *a, const sc_expr *b, const sc_expr **mono,
                                         int64_t *coeff) {
  const sc_expr *mb = mono_of(ctx, b, coeff);
  if (!mb || *coeff <= 0) return NULL;
  term_list tl = {0};
  uint32_t n = a->kind == SC_EXPR_ADD ? a->n_args : 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t c;
    const sc_expr *m = mono_of(ctx, a->kind == SC_EXPR_ADD ? a->args[i] : a, &c);
    const sc_expr *q = m ? mono_divide(ctx, m, mb) : NULL;
    if (!q) {
      free(tl.items);
      return NULL;
    }
    terms_add(&tl, c, q->kind == SC_EXPR_INT ? NULL : q);
  }
  *mono = mb;
  return terms_build(ctx, &tl);
}

/* a // b with b = c*M as above: (M*A) // (c*M) is A // c.  NULL when it does not apply. */
static const sc_expr *cancel_monomial(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) {
  const sc_expr *mono;
  int64_t c;
  const sc_expr *q = divide_by_monomial(ctx, a, b, &mono, &c);
  return q ? sc_expr_floordiv(ctx, q, sc_expr_int(ctx, c)) : NULL;
}

/* (k*d*X + Y) // d is k*X + Y // d: terms that are whole multiples of d leave the
 * division, as in sympy's FloorDiv, so that ((s - 2)//2) + 1 is (s//2). */
static const sc_expr *pull_multiples(sc_ctx *ctx, const sc_expr *a, int64_t d) {
  if (a->kind != SC_EXPR_ADD || d <= 0) return NULL;
  term_list out = {0}, rest = {0};
  for (uint32_t i = 0; i < a->n_args; i++) {
    int64_t c;
    const sc_expr *m = mono_of(ctx, a->args[i], &c);
    if (c % d == 0) terms_add(&out, c / d, m);
    else terms_add(&rest, c, m);
  }
  if (!out.n) {
    free(rest.items);
    return NULL;
  }
  const sc_expr *whole = terms_build(ctx, &out), *left = terms_build(ctx, &rest);
  return sc_expr_add(ctx, whole, sc_expr_floordiv(ctx, left, sc_expr_int(ctx, d)));
}

const sc_expr *sc_expr_floordiv(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) {
  int64_t bv = 1; /* set when b is a constant */
  if (!sc_expr_is_const(b, &bv) || bv == 0) {
    if (a == b) return sc_expr_int(ctx, 1);
    const sc_expr *c = bv == 0 && sc_expr_is_const(b, NULL) ? NULL : cancel_monomial(ctx, a, b);
    return c ? c : binary_node(ctx, SC_EXPR_FLOORDIV, a, b);
  }
  if (a->kind == SC_EXPR_INT) {
    if (a->value == INT64_MIN && bv == -1) return sc_expr_int(ctx, INT64_MAX);
    return sc_expr_int(ctx, py_floordiv(a->value, bv));
  }
  if (bv == 1) return a;
  if (all_coeffs_divisible(ctx, a, bv)) return divide_coeffs(ctx, a, bv);
  const sc_expr *pulled = pull_multiples(ctx, a, bv);
  if (pulled) return pulled;
  int64_t inner;
  if (a->kind == SC_EXPR_FLOORDIV && bv > 0 && sc_expr_is_const(a->args[1], &inner) && inner > 0)
    return sc_expr_floordiv(ctx, a->args[0], sc_expr_int(ctx, sat_mul(inner, bv)));
  return binary_node(ctx, SC_EXPR_FLOORDIV, a, b);
}

const sc_expr *sc_expr_mod(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) {
  int64_t bv = 1; /* set when b is a constant */
  if (a == b) return sc_expr_int(ctx, 0);
  if (!sc_expr_is_const(b, &bv) || bv == 0) {
    /* Mod(M*A, c*M) is M*Mod(A, c) for positive sizes M, as sympy folds Mod(s, 2*s) to s
     * (torch 2.14's guards on nn.MultiheadAttention's head split hold such terms) */
    const sc_expr *mono;
    int64_t c;
    const sc_expr *q = bv == 0 && sc_expr_is_const(b, NULL) ? NULL : divide_by_monomial(ctx, a, b, &mono, &c);
    return q ? sc_expr_mul(ctx, mono, sc_expr_mod(ctx, q, sc_expr_int(ctx, c))) : binary_node(ctx, SC_EXPR_MOD, a, b);
  }
  if (bv == 1 || bv == -1) return sc_expr_int(ctx, 0);
  if (a->kind == SC_EXPR_INT) return sc_expr_int(ctx, py_mod(a->value, bv));
  /* terms whose coefficient is a multiple of b do not change the remainder */
  term_list tl = {0};
  uint32_t n = a->kind == SC_EXPR_ADD ? a->n_args : 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t c;
    const sc_expr *m = mono_of(ctx, a->kind == SC_EXPR_ADD ? a->args[i] : a, &c);
    int64_t r = py_mod(c, bv);
    if (r != 0) terms_add(&tl, m ? c : r, m);
  }
  const sc_expr *rest = terms_build(ctx, &tl);
  if (rest->kind == SC_EXPR_INT) return sc_expr_int(ctx, py_mod(rest->value, bv));
  if (rest->kind == SC_EXPR_MOD && rest->args[1] == b) return rest;
  return binary_node(ctx, SC_EXPR_MOD, rest, b);
}

static const sc_expr *minmax(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *a, const sc_expr *b) {
  if (a == b) return a;
  if (a->kind == SC_EXPR_INT && b->kind == SC_EXPR_INT) {
    bool a_first = kind == SC_EXPR_MIN ? a->value <= b->value : a->value >= b->value;
    return a_first ? a : b;
  }
  const sc_expr *in[2] = {a, b};
  size_t cap = (a->kind == kind ? a->n_args : 1) + (b->kind == kind ? b->n_args : 1), n = 0;
  const sc_expr *stackv[64], **v = cap <= 64 ? stackv : sc_xmalloc(cap * sizeof *v);
  bool have_const = false;
  int64_t konst = 0;
  for (int k = 0; k < 2; k++) {
    const sc_expr *x = in[k];
    uint32_t m = x->kind == kind ? x->n_args : 1;
    for (uint32_t i = 0; i < m; i++) {
      const sc_expr *y = x->kind == kind ? x->args[i] : x;
      if (y->kind == SC_EXPR_INT) {
        if (!have_const) konst = y->value;
        else konst = (kind == SC_EXPR_MIN) ? (y->value < konst ? y->value : konst) : (y->value > konst ? y->value : konst);
        have_const = true;
        continue;
      }
      v[n++] = y;
    }
  }
  if (have_const) v[n++] = sc_expr_int(ctx, konst);
  n = sort_unique(v, n);
  const sc_expr *r = v[0];
  if (n > 1) r = expr_intern(ctx, kind, 0, NULL, (uint32_t)n, v);
  if (v != stackv) free(v);
  return r;
}

const sc_expr *sc_expr_min(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) { return minmax(ctx, SC_EXPR_MIN, a, b); }
const sc_expr *sc_expr_max(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) { return minmax(ctx, SC_EXPR_MAX, a, b); }

/* ---- booleans ------------------------------------------------------------------- */

const sc_expr *sc_expr_rel(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *a, const sc_expr *b) {
  const sc_expr *d = sc_expr_sub(ctx, a, b);
  int64_t v;
  if (sc_expr_is_const(d, &v)) {
    switch (kind) {
      case SC_EXPR_EQ: return sc_expr_bool(ctx, v == 0);
      case SC_EXPR_NE: return sc_expr_bool(ctx, v != 0);
      case SC_EXPR_LT: return sc_expr_bool(ctx, v < 0);
      case SC_EXPR_LE: return sc_expr_bool(ctx, v <= 0);
      case SC_EXPR_GT: return sc_expr_bool(ctx, v > 0);
      case SC_EXPR_GE: return sc_expr_bool(ctx, v >= 0);
      default: break;
    }
  }
  /* constants go right, as torch prints guards: 4 <= s0 - 2 reads s0 >= 6, Eq(4, s3) reads Eq(s3, 4) */
  if (a->kind == SC_EXPR_INT && b->kind != SC_EXPR_INT) {
    static const sc_expr_kind mirror[] = {[SC_EXPR_EQ] = SC_EXPR_EQ, [SC_EXPR_NE] = SC_EXPR_NE, [SC_EXPR_LT] = SC_EXPR_GT,
                                          [SC_EXPR_LE] = SC_EXPR_GE, [SC_EXPR_GT] = SC_EXPR_LT, [SC_EXPR_GE] = SC_EXPR_LE};
    return sc_expr_rel(ctx, mirror[kind], b, a);
  }
  if (b->kind == SC_EXPR_INT && a->kind == SC_EXPR_ADD && a->args[a->n_args - 1]->kind == SC_EXPR_INT) {
    const sc_expr *k = a->args[a->n_args - 1];
    return sc_expr_rel(ctx, kind, sc_expr_sub(ctx, a, k), sc_expr_sub(ctx, b, k));
  }
  return binary_node(ctx, kind, a, b);
}

static const sc_expr *junction(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *a, const sc_expr *b) {
  sc_expr_kind absorbing = kind == SC_EXPR_AND ? SC_EXPR_FALSE : SC_EXPR_TRUE;
  sc_expr_kind neutral = kind == SC_EXPR_AND ? SC_EXPR_TRUE : SC_EXPR_FALSE;
  if (a->kind == absorbing || b->kind == absorbing) return sc_expr_bool(ctx, absorbing == SC_EXPR_TRUE);
  if (a->kind == neutral) return b;
  if (b->kind == neutral) return a;
  const sc_expr *in[2] = {a, b};
  size_t cap = (a->kind == kind ? a->n_args : 1) + (b->kind == kind ? b->n_args : 1), n = 0;
  const sc_expr *stackv[64], **v = cap <= 64 ? stackv : sc_xmalloc(cap * sizeof *v);
  for (int k = 0; k < 2; k++) {
    uint32_t m = in[k]->kind == kind ? in[k]->n_args : 1;
    for (uint32_t i = 0; i < m; i++) {
      v[n++] = in[k]->kind == kind ? in[k]->args[i] : in[k];
    }
  }
  n = sort_unique(v, n);
  const sc_expr *r = v[0];
  if (n > 1) r = expr_intern(ctx, kind, 0, NULL, (uint32_t)n, v);
  if (v != stackv) free(v);
  return r;
}

const sc_expr *sc_expr_and(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) { return junction(ctx, SC_EXPR_AND, a, b); }
const sc_expr *sc_expr_or(sc_ctx *ctx, const sc_expr *a, const sc_expr *b) { return junction(ctx, SC_EXPR_OR, a, b); }

const sc_expr *sc_expr_not(sc_ctx *ctx, const sc_expr *a) {
  switch (a->kind) {
    case SC_EXPR_TRUE: return sc_expr_bool(ctx, false);
    case SC_EXPR_FALSE: return sc_expr_bool(ctx, true);
    case SC_EXPR_NOT: return a->args[0];
    case SC_EXPR_EQ: return sc_expr_rel(ctx, SC_EXPR_NE, a->args[0], a->args[1]);
    case SC_EXPR_NE: return sc_expr_rel(ctx, SC_EXPR_EQ, a->args[0], a->args[1]);
    case SC_EXPR_LT: return sc_expr_rel(ctx, SC_EXPR_GE, a->args[0], a->args[1]);
    case SC_EXPR_LE: return sc_expr_rel(ctx, SC_EXPR_GT, a->args[0], a->args[1]);
    case SC_EXPR_GT: return sc_expr_rel(ctx, SC_EXPR_LE, a->args[0], a->args[1]);
    case SC_EXPR_GE: return sc_expr_rel(ctx, SC_EXPR_LT, a->args[0], a->args[1]);
    default: return expr_intern(ctx, SC_EXPR_NOT, 0, NULL, 1, &a);
  }
}

/* ---- rebuilding ----------------------------------------------------------------- */

static const sc_expr *combine(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *a, const sc_expr *b) {
  switch (kind) {
    case SC_EXPR_MUL: return sc_expr_mul(ctx, a, b);
    case SC_EXPR_MIN:
    case SC_EXPR_MAX: return minmax(ctx, kind, a, b);
    default: return junction(ctx, kind, a, b);
  }
}

/* Combined as a balanced tree: each level merges sorted halves, so n arguments cost
 * O(n log^2 n) where a left fold re-sorts and re-interns a growing node n times. */
static const sc_expr *fold_balanced(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *const *args, size_t n) {
  if (n == 1) return args[0];
  size_t h = n / 2;
  return combine(ctx, kind, fold_balanced(ctx, kind, args, h), fold_balanced(ctx, kind, args + h, n - h));
}

const sc_expr *sc_expr_nary(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *const *args, size_t n) {
  if (kind == SC_EXPR_ADD) return sc_expr_add_all(ctx, args, n);
  if (n == 0) return kind == SC_EXPR_MUL ? sc_expr_int(ctx, 1) : sc_expr_bool(ctx, kind == SC_EXPR_AND);
  return fold_balanced(ctx, kind, args, n);
}

static const sc_expr *rebuild(sc_ctx *ctx, const sc_expr *e, const sc_expr **args) {
  const sc_expr *r;
  switch (e->kind) {
    case SC_EXPR_INT:
    case SC_EXPR_SYM:
    case SC_EXPR_TRUE:
    case SC_EXPR_FALSE: return e;
    case SC_EXPR_ADD:
    case SC_EXPR_MUL:
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
    case SC_EXPR_AND:
    case SC_EXPR_OR: return sc_expr_nary(ctx, e->kind, args, e->n_args);
    case SC_EXPR_POW:
      r = sc_expr_pow(ctx, args[0], args[1]->value);
      return r ? r : make_factor(ctx, args[0], args[1]->value); /* an overflowing constant stays unevaluated */
    case SC_EXPR_FLOORDIV: return sc_expr_floordiv(ctx, args[0], args[1]);
    case SC_EXPR_MOD: return sc_expr_mod(ctx, args[0], args[1]);
    case SC_EXPR_NOT: return sc_expr_not(ctx, args[0]);
    default: return sc_expr_rel(ctx, e->kind, args[0], args[1]);
  }
}

const sc_expr *sc_expr_subst(sc_ctx *ctx, const sc_expr *e, const char *sym, const sc_expr *by) {
  if (e->kind == SC_EXPR_SYM) return strcmp(e->name, sym) == 0 ? by : e;
  if (e->n_args == 0) return e;
  const sc_expr *stackv[16];
  const sc_expr **args = e->n_args <= 16 ? stackv : sc_xmalloc(e->n_args * sizeof *args);
  bool changed = false;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = sc_expr_subst(ctx, e->args[i], sym, by);
    changed |= args[i] != e->args[i];
  }
  const sc_expr *r = changed ? rebuild(ctx, e, args) : e;
  if (args != stackv) free(args);
  return r;
}

/* ---- evaluation ----------------------------------------------------------------- */

bool sc_expr_eval(const sc_expr *e, sc_sym_lookup_fn lookup, void *env, int64_t *out) {
  int64_t a = 0, b = 0, r = 0;
  switch (e->kind) {
    case SC_EXPR_INT: *out = e->value; return true;
    case SC_EXPR_SYM: return lookup && lookup(env, e->name, out);
    case SC_EXPR_TRUE: *out = 1; return true;
    case SC_EXPR_FALSE: *out = 0; return true;
    case SC_EXPR_ADD:
    case SC_EXPR_MUL:
      r = e->kind == SC_EXPR_ADD ? 0 : 1;
      for (uint32_t i = 0; i < e->n_args; i++) {
        if (!sc_expr_eval(e->args[i], lookup, env, &a)) return false;
        bool ovf = e->kind == SC_EXPR_ADD ? __builtin_add_overflow(r, a, &r) : __builtin_mul_overflow(r, a, &r);
        if (ovf) return false;
      }
      *out = r;
      return true;
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
      for (uint32_t i = 0; i < e->n_args; i++) {
        if (!sc_expr_eval(e->args[i], lookup, env, &a)) return false;
        if (i == 0 || (e->kind == SC_EXPR_MIN ? a < r : a > r)) r = a;
      }
      *out = r;
      return true;
    case SC_EXPR_AND:
    case SC_EXPR_OR:
      r = e->kind == SC_EXPR_AND;
      for (uint32_t i = 0; i < e->n_args; i++) {
        if (!sc_expr_eval(e->args[i], lookup, env, &a)) return false;
        r = e->kind == SC_EXPR_AND ? (r && a) : (r || a);
      }
      *out = r;
      return true;
    case SC_EXPR_NOT:
      if (!sc_expr_eval(e->args[0], lookup, env, &a)) return false;
      *out = !a;
      return true;
    case SC_EXPR_POW:
      if (!sc_expr_eval(e->args[0], lookup, env, &a)) return false;
      r = 1;
      for (int64_t k = e->args[1]->value; k; k >>= 1) { /* square and multiply */
        if ((k & 1) && __builtin_mul_overflow(r, a, &r)) return false;
        if (k > 1 && __builtin_mul_overflow(a, a, &a)) return false;
      }
      *out = r;
      return true;
    default: break;
  }
  if (!sc_expr_eval(e->args[0], lookup, env, &a) || !sc_expr_eval(e->args[1], lookup, env, &b)) return false;
  switch (e->kind) {
    case SC_EXPR_FLOORDIV:
      if (b == 0 || (a == INT64_MIN && b == -1)) return false;
      *out = py_floordiv(a, b);
      return true;
    case SC_EXPR_MOD:
      if (b == 0) return false;
      *out = b == -1 ? 0 : py_mod(a, b);
      return true;
    case SC_EXPR_EQ: *out = a == b; return true;
    case SC_EXPR_NE: *out = a != b; return true;
    case SC_EXPR_LT: *out = a < b; return true;
    case SC_EXPR_LE: *out = a <= b; return true;
    case SC_EXPR_GT: *out = a > b; return true;
    case SC_EXPR_GE: *out = a >= b; return true;
    default: return false;
  }
}

static void collect_symbols(const sc_expr *e, const char **names, int max, int *n) {
  if (e->kind == SC_EXPR_SYM) {
    for (int i = 0; i < *n; i++)
      if (names[i] == e->name) return;
    if (*n < max) names[(*n)++] = e->name;
    return;
  }
  for (uint32_t i = 0; i < e->n_args; i++) collect_symbols(e->args[i], names, max, n);
}

int sc_expr_symbols(const sc_expr *e, const char **names, int max) {
  int n = 0;
  collect_symbols(e, names, max, &n);
  return n;
}
