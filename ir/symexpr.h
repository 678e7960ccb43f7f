/* symexpr.h - symbolic integers and booleans over size symbols (s0, u0, ...).
 *
 * Expressions are hash-consed in the context: two structurally equal expressions are the
 * same pointer.  Constructors keep a canonical form: a sum of products with integer
 * coefficients (terms sorted, like terms merged, equal factors merged into powers, products
 * distributed while the expansion stays within SC_EXPR_MAX_TERMS terms; past that a sum stays
 * a factor, as sympy keeps `(s0 + s1)**14`, so nothing is refused or truncated), floor division
 * and modulo folded where the coefficients allow, constant relations folded to true or
 * false.  Printing follows sympy's str() spelling (`2*s0 + 1`, `s2*s3`, `(s0//2)`,
 * `Mod(s0, 4)`, `Eq(s0, 4)`), and sc_expr_parse reads that spelling back, as well as
 * the srepr() form newer torch serializers write (`Symbol('s0', integer=True)`). */
#ifndef SC_SYMEXPR_H
#define SC_SYMEXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/context.h"
#include "lib/base/strbuf.h"

typedef enum sc_expr_kind {
  SC_EXPR_INT,      /* value */
  SC_EXPR_SYM,      /* name */
  SC_EXPR_ADD,      /* args: >= 2 terms; a constant term, if any, comes last */
  SC_EXPR_MUL,      /* args: optional INT coefficient first, then >= 1 factors sorted by base */
  SC_EXPR_POW,      /* args: base, INT exponent >= 2 (a factor: s0**2, or a sum too large to expand) */
  SC_EXPR_FLOORDIV, /* args: a, b */
  SC_EXPR_MOD,      /* args: a, b (Python semantics: sign of b) */
  SC_EXPR_MIN,      /* args: >= 2, sorted */
  SC_EXPR_MAX,
  SC_EXPR_EQ,       /* relations: args lhs, rhs */
  SC_EXPR_NE,
  SC_EXPR_LT,
  SC_EXPR_LE,
  SC_EXPR_GT,
  SC_EXPR_GE,
  SC_EXPR_AND,      /* args: >= 2 */
  SC_EXPR_OR,
  SC_EXPR_NOT,      /* args: 1 */
  SC_EXPR_TRUE,
  SC_EXPR_FALSE,
} sc_expr_kind;

typedef struct sc_expr {
  sc_expr_kind kind;
  uint32_t n_args;
  int64_t value;     /* SC_EXPR_INT */
  const char *name;  /* SC_EXPR_SYM, interned */
  uint64_t hash;
  const struct sc_expr *args[];
} sc_expr;

const sc_expr *sc_expr_int(sc_ctx *ctx, int64_t v);
const sc_expr *sc_expr_sym(sc_ctx *ctx, const char *name);
const sc_expr *sc_expr_bool(sc_ctx *ctx, bool v);
const sc_expr *sc_expr_add(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
const sc_expr *sc_expr_sub(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
/* The sum of n expressions at once: O(total terms * log) where pairwise adds are quadratic. */
const sc_expr *sc_expr_add_all(sc_ctx *ctx, const sc_expr *const *terms, size_t n);
/* Terms gathered one by one and summed at once (the parsers' a + b - c ...). */
typedef struct sc_expr_terms {
  const sc_expr **items; /* heap */
  size_t n, cap;
} sc_expr_terms;
void sc_expr_terms_push(sc_expr_terms *t, const sc_expr *e);
/* The sum of the terms (0 for none); frees them. */
const sc_expr *sc_expr_terms_sum(sc_ctx *ctx, sc_expr_terms *t);
void sc_expr_terms_free(sc_expr_terms *t);
/* The number of terms of e's sum (1 when it is not a sum), and its highest count of
 * factors in one term (s0*s1**2 has 3): what a product of two expressions can grow to. */
size_t sc_expr_n_terms(const sc_expr *e);
size_t sc_expr_degree(const sc_expr *e);
/* Products and powers of sums are expanded only up to this many terms; larger ones keep
 * their sums as factors (exact, and linear in the size of the input). */
#define SC_EXPR_MAX_TERMS 1024
/* base**n (n >= 0); NULL when n < 0 or an integer result does not fit in 64 bits. */
const sc_expr *sc_expr_pow(sc_ctx *ctx, const sc_expr *base, int64_t n);
/* args[0] op args[1] op ... for kind ADD, MUL, MIN, MAX, AND or OR, in O(n log^2 n); n >= 1
 * for MIN and MAX. */
const sc_expr *sc_expr_nary(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *const *args, size_t n);
const sc_expr *sc_expr_neg(sc_ctx *ctx, const sc_expr *a);
const sc_expr *sc_expr_mul(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
const sc_expr *sc_expr_floordiv(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
const sc_expr *sc_expr_mod(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
const sc_expr *sc_expr_min(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
const sc_expr *sc_expr_max(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
/* kind is one of SC_EXPR_EQ .. SC_EXPR_GE. */
const sc_expr *sc_expr_rel(sc_ctx *ctx, sc_expr_kind kind, const sc_expr *a, const sc_expr *b);
const sc_expr *sc_expr_and(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
const sc_expr *sc_expr_or(sc_ctx *ctx, const sc_expr *a, const sc_expr *b);
const sc_expr *sc_expr_not(sc_ctx *ctx, const sc_expr *a);

bool sc_expr_is_bool(const sc_expr *e);
bool sc_expr_is_const(const sc_expr *e, int64_t *value);

/* Replaces every occurrence of symbol `sym` by `by`, re-canonicalizing. */
const sc_expr *sc_expr_subst(sc_ctx *ctx, const sc_expr *e, const char *sym, const sc_expr *by);

/* Values of symbols for evaluation.  lookup returns false for an unknown symbol. */
typedef bool (*sc_sym_lookup_fn)(void *env, const char *name, int64_t *value);
/* Evaluates e (booleans give 0 or 1).  Returns false, leaving *out untouched, on an unknown
 * symbol, a division by zero or an int64 overflow. */
bool sc_expr_eval(const sc_expr *e, sc_sym_lookup_fn lookup, void *env, int64_t *out);

/* Appends e in sympy's str() spelling. */
void sc_expr_print(sc_strbuf *sb, const sc_expr *e);
/* Returns e printed into the context arena. */
const char *sc_expr_to_string(sc_ctx *ctx, const sc_expr *e);
/* The root s of a size written coeff*s + offset, as read from that size's source:
 * "x.size()[0] - 1", "(x.size()[0] + 1) / 2" (arena string). */
const char *sc_linear_root_text(sc_ctx *ctx, const char *source, int64_t offset, int64_t coeff);
/* The same in Python's spelling, as torch's guards_code writes conditions:
 * `(x.size()[0] % 2) == 0`, `a <= 4 and b != 1`, `(n // 2)`. */
const char *sc_expr_to_python(sc_ctx *ctx, const sc_expr *e);

/* Parses sympy text (str or srepr form).  On failure returns NULL and, when err is given,
 * sets *err to an arena message and *err_pos to the 0-based offset of the problem. */
const sc_expr *sc_expr_parse(sc_ctx *ctx, const char *text, const char **err, int *err_pos);

/* Total order used to sort terms and arguments (deterministic, not pointer-based). */
int sc_expr_compare(const sc_expr *a, const sc_expr *b);
/* Collects the distinct symbol names of e (at most max) in first-seen order; returns count. */
int sc_expr_symbols(const sc_expr *e, const char **names, int max);

#endif
