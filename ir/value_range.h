/* value_range.h - integer intervals [lo, hi] with unbounded ends (torch's -int_oo and
 * int_oo), sound interval arithmetic for every symbolic-expression operator, and a
 * three-valued decision for relations. */
#ifndef SC_VALUE_RANGE_H
#define SC_VALUE_RANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "symexpr.h"

/* INT64_MIN and INT64_MAX stand for -int_oo and int_oo; arithmetic saturates there. */
#define SC_INT_OO INT64_MAX
#define SC_NEG_INT_OO INT64_MIN

typedef struct sc_range_iv {
  int64_t lo, hi;
} sc_range_iv;

sc_range_iv sc_iv(int64_t lo, int64_t hi);
sc_range_iv sc_iv_point(int64_t v);
sc_range_iv sc_iv_full(void);
bool sc_iv_is_empty(sc_range_iv r);
sc_range_iv sc_iv_intersect(sc_range_iv a, sc_range_iv b);
sc_range_iv sc_iv_add(sc_range_iv a, sc_range_iv b);
sc_range_iv sc_iv_mul(sc_range_iv a, sc_range_iv b);
sc_range_iv sc_iv_floordiv(sc_range_iv a, sc_range_iv b);
sc_range_iv sc_iv_mod(sc_range_iv a, sc_range_iv b);
sc_range_iv sc_iv_min(sc_range_iv a, sc_range_iv b);
sc_range_iv sc_iv_max(sc_range_iv a, sc_range_iv b);

typedef enum sc_truth { SC_FALSE = 0, SC_TRUE = 1, SC_UNKNOWN = 2 } sc_truth;

/* Symbol ranges for evaluation: returns false for an unknown symbol (then full range). */
typedef bool (*sc_range_lookup_fn)(void *env, const char *name, sc_range_iv *out);
/* The range of an integer expression; booleans give [0, 1] or a point when decided. */
sc_range_iv sc_expr_range(const sc_expr *e, sc_range_lookup_fn lookup, void *env);
/* Whether the ranges decide a boolean expression. */
sc_truth sc_expr_decide(const sc_expr *e, sc_range_lookup_fn lookup, void *env);
/* Appends "[2, int_oo]". */
void sc_iv_print(sc_strbuf *sb, sc_range_iv r);

#endif
