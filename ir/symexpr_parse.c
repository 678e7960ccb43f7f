/* symexpr_parse.c - reads sympy's printed expressions back into hash-consed form.
 *
 * Two spellings reach shapec: str() (`2*s0 + 1`, `Eq(s0, 4)`, `(s0//2)`) from older torch
 * and from users, and srepr() (`Add(Mul(Integer(2), Symbol('s0', integer=True)),
 * Integer(1))`) from newer torch serializers.  One recursive-descent grammar takes both:
 * a call `Name(args, key=value)` is looked up in a table of known functions, keyword
 * arguments (sympy assumptions) are ignored. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symexpr.h"

#define SC_PARSE_MAX_DEPTH 200

typedef struct parser {
  sc_ctx *ctx;
  const char *text;
  const char *p;
  const char *err;
  int err_pos;
  int depth;
} parser;

static const sc_expr *parse_or(parser *ps);

static void skip_space(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n') ps->p++;
}

static const sc_expr *fail(parser *ps, const char *at, const char *msg) {
  if (!ps->err) {
    ps->err = sc_arena_strdup(&ps->ctx->arena, msg);
    ps->err_pos = (int)(at - ps->text);
  }
  return NULL;
}

static bool accept(parser *ps, const char *tok) {
  skip_space(ps);
  size_t n = strlen(tok);
  if (strncmp(ps->p, tok, n) != 0) return false;
  /* do not split `**`, `//`, `<=`, `==` */
  if ((strcmp(tok, "*") == 0 && ps->p[1] == '*') || (strcmp(tok, "/") == 0 && ps->p[1] == '/') ||
      ((strcmp(tok, "<") == 0 || strcmp(tok, ">") == 0 || strcmp(tok, "=") == 0) && ps->p[1] == '='))
    return false;
  ps->p += n;
  return true;
}

static bool expect(parser *ps, const char *tok) {
  if (accept(ps, tok)) return true;
  char msg[64];
  snprintf(msg, sizeof msg, "expected '%s'", tok);
  fail(ps, ps->p, msg);
  return false;
}

/* Arguments of a call, keyword arguments dropped.  Returns the count or -1. */
static int parse_args(parser *ps, sc_expr_terms *out, const char **string_arg) {
  int n = 0;
  skip_space(ps);
  if (accept(ps, ")")) return 0;
  for (;;) {
    skip_space(ps);
    const char *start = ps->p;
    if (*ps->p == '\'' || *ps->p == '"') {
      char q = *ps->p++;
      const char *s = ps->p;
      while (*ps->p && *ps->p != q) ps->p++;
      if (!*ps->p) return fail(ps, start, "unterminated string"), -1;
      if (string_arg && !*string_arg) *string_arg = sc_ctx_intern_n(ps->ctx, s, (size_t)(ps->p - s));
      ps->p++;
    } else {
      const char *q = ps->p;
      while (isalnum((unsigned char)*q) || *q == '_') q++;
      const char *r = q;
      while (*r == ' ') r++;
      if (q > ps->p && *r == '=' && r[1] != '=') {
        ps->p = r + 1; /* keyword argument such as integer=True: value parsed and ignored */
        if (!parse_or(ps)) return -1;
      } else {
        const sc_expr *e = parse_or(ps);
        if (!e) return -1;
        if (n == INT_MAX) return fail(ps, start, "too many arguments"), -1;
        sc_expr_terms_push(out, e);
        n++;
      }
    }
    if (accept(ps, ")")) return n;
    if (!expect(ps, ",")) return -1;
  }
}

typedef enum fn_kind {
  FN_SYMBOL, FN_INTEGER, FN_ADD, FN_MUL, FN_POW, FN_FLOORDIV, FN_MOD, FN_MIN, FN_MAX,
  FN_EQ, FN_NE, FN_LT, FN_LE, FN_GT, FN_GE, FN_AND, FN_OR, FN_NOT, FN_TO_FLOAT, FN_FLOAT,
} fn_kind;

static const struct {
  const char *name;
  fn_kind kind;
  int min_args, max_args;
} known_functions[] = {
    {"Symbol", FN_SYMBOL, 0, 0},        {"Integer", FN_INTEGER, 1, 1},     {"Add", FN_ADD, 1, INT_MAX},
    {"Mul", FN_MUL, 1, INT_MAX},             {"Pow", FN_POW, 2, 2},             {"FloorDiv", FN_FLOORDIV, 2, 2},
    {"CleanDiv", FN_FLOORDIV, 2, 2},    {"Mod", FN_MOD, 2, 2},             {"PythonMod", FN_MOD, 2, 2},
    {"Min", FN_MIN, 1, INT_MAX},             {"Max", FN_MAX, 1, INT_MAX},            {"Eq", FN_EQ, 2, 2},
    {"Equality", FN_EQ, 2, 2},          {"Ne", FN_NE, 2, 2},               {"Unequality", FN_NE, 2, 2},
    {"Lt", FN_LT, 2, 2},                {"StrictLessThan", FN_LT, 2, 2},   {"Le", FN_LE, 2, 2},
    {"LessThan", FN_LE, 2, 2},          {"Gt", FN_GT, 2, 2},               {"StrictGreaterThan", FN_GT, 2, 2},
    {"Ge", FN_GE, 2, 2},                {"GreaterThan", FN_GE, 2, 2},      {"And", FN_AND, 1, INT_MAX},
    {"Or", FN_OR, 1, INT_MAX},               {"Not", FN_NOT, 1, 1},
    /* the float sizes of arange(0, n, 1.0): ToFloat(s) is s, Float('2.0') a whole number */
    {"ToFloat", FN_TO_FLOAT, 1, 1},          {"Float", FN_FLOAT, 0, 0},
};

/* base**n for a constant n >= 0; a power of a large sum stays unexpanded, as in sympy. */
static const sc_expr *power(parser *ps, const sc_expr *base, const sc_expr *exp, const char *at) {
  int64_t n;
  if (!sc_expr_is_const(exp, &n) || n < 0) return fail(ps, at, "only non-negative integer powers are supported");
  const sc_expr *r = sc_expr_pow(ps->ctx, base, n);
  return r ? r : fail(ps, at, "the power does not fit in 64 bits");
}

static const sc_expr *fold(parser *ps, fn_kind kind, const sc_expr *const *a, int n) {
  static const sc_expr_kind kinds[] = {[FN_ADD] = SC_EXPR_ADD, [FN_MUL] = SC_EXPR_MUL, [FN_MIN] = SC_EXPR_MIN,
                                       [FN_MAX] = SC_EXPR_MAX, [FN_AND] = SC_EXPR_AND, [FN_OR] = SC_EXPR_OR};
  return sc_expr_nary(ps->ctx, kinds[kind], a, (size_t)n);
}

/* The call known_functions[k](a[0], ..., a[n-1]). */
static const sc_expr *call_known(parser *ps, size_t k, const sc_expr *const *a, int n, const char *str,
                                 const char *name, size_t len, const char *at) {
  fn_kind kind = known_functions[k].kind;
  if (kind == FN_SYMBOL) {
    if (!str || n != 0) return fail(ps, at, "Symbol() takes the symbol's name as a quoted string");
    return sc_expr_sym(ps->ctx, str);
  }
  if (kind == FN_FLOAT) { /* Float('2.0', precision=53): whole numbers only, sizes being integers */
    char *end = NULL;
    double v = str ? strtod(str, &end) : 0;
    if (!str || end == str || *end || v != floor(v) || fabs(v) > 9e15)
      return fail(ps, at, "only whole-number Float() constants are supported in size expressions");
    return sc_expr_int(ps->ctx, (int64_t)v);
  }
  if (n < known_functions[k].min_args || n > known_functions[k].max_args) {
    char msg[96];
    snprintf(msg, sizeof msg, "wrong number of arguments to %.*s()", (int)len, name);
    return fail(ps, at, msg);
  }
  sc_ctx *ctx = ps->ctx;
  switch (kind) {
    case FN_INTEGER:
      if (a[0]->kind != SC_EXPR_INT) return fail(ps, at, "Integer() takes an integer literal");
      return a[0];
    case FN_POW: return power(ps, a[0], a[1], at);
    case FN_FLOORDIV: return sc_expr_floordiv(ctx, a[0], a[1]);
    case FN_MOD: return sc_expr_mod(ctx, a[0], a[1]);
    case FN_EQ: return sc_expr_rel(ctx, SC_EXPR_EQ, a[0], a[1]);
    case FN_NE: return sc_expr_rel(ctx, SC_EXPR_NE, a[0], a[1]);
    case FN_LT: return sc_expr_rel(ctx, SC_EXPR_LT, a[0], a[1]);
    case FN_LE: return sc_expr_rel(ctx, SC_EXPR_LE, a[0], a[1]);
    case FN_GT: return sc_expr_rel(ctx, SC_EXPR_GT, a[0], a[1]);
    case FN_GE: return sc_expr_rel(ctx, SC_EXPR_GE, a[0], a[1]);
    case FN_NOT: return sc_expr_not(ctx, a[0]);
    case FN_TO_FLOAT: return a[0];
    default: return fold(ps, kind, a, n);
  }
}

/* CeilToInt(FloatTrueDiv(a, b)) and FloorToInt(...): the integer division torch's float
 * arange size is (CeilToInt(FloatTrueDiv(ToFloat(s77), Float('1.0')))); of a number that
 * is already whole, that number. */
static const sc_expr *parse_to_int(parser *ps, bool ceil_it, const char *at) {
  skip_space(ps);
  if (strncmp(ps->p, "FloatTrueDiv(", 13) != 0) {
    const sc_expr *e = parse_or(ps);
    return e && expect(ps, ")") ? e : NULL;
  }
  ps->p += 13;
  sc_expr_terms args = {0};
  int n = parse_args(ps, &args, NULL);
  const sc_expr *r = NULL;
  if (n == 2 && expect(ps, ")")) {
    sc_ctx *ctx = ps->ctx;
    const sc_expr *a = args.items[0], *b = args.items[1];
    int64_t d;
    if (sc_expr_is_const(b, &d) && d == 0) r = fail(ps, at, "a division by zero");
    else r = ceil_it ? sc_expr_neg(ctx, sc_expr_floordiv(ctx, sc_expr_neg(ctx, a), b)) : sc_expr_floordiv(ctx, a, b);
  } else if (n >= 0 && n != 2) {
    r = fail(ps, at, "FloatTrueDiv() takes two arguments");
  }
  sc_expr_terms_free(&args);
  return r;
}

static const sc_expr *parse_call(parser *ps, const char *name, size_t len, const char *at) {
  if ((len == 9 && strncmp(name, "CeilToInt", 9) == 0) || (len == 10 && strncmp(name, "FloorToInt", 10) == 0))
    return parse_to_int(ps, len == 9, at);
  for (size_t k = 0; k < sizeof known_functions / sizeof known_functions[0]; k++) {
    if (strlen(known_functions[k].name) != len || strncmp(known_functions[k].name, name, len) != 0) continue;
    sc_expr_terms args = {0};
    const char *str = NULL;
    int n = parse_args(ps, &args, &str);
    const sc_expr *r = n < 0 ? NULL : call_known(ps, k, args.items, n, str, name, len, at);
    sc_expr_terms_free(&args);
    return r;
  }
  char msg[128];
  snprintf(msg, sizeof msg, "unsupported function '%.*s'", (int)(len > 60 ? 60 : len), name);
  return fail(ps, at, msg);
}

static const sc_expr *parse_atom(parser *ps) {
  skip_space(ps);
  const char *at = ps->p;
  if (isdigit((unsigned char)*ps->p)) {
    errno = 0;
    char *end;
    long long v = strtoll(ps->p, &end, 10);
    if (errno == ERANGE) return fail(ps, at, "integer literal does not fit in 64 bits");
    if (*end == '.') return fail(ps, at, "floating-point literals are not supported in size expressions");
    ps->p = end;
    return sc_expr_int(ps->ctx, v);
  }
  if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_') ps->p++;
    size_t len = (size_t)(ps->p - at);
    if (accept(ps, "(")) return parse_call(ps, at, len, at);
    if ((len == 4 && strncmp(at, "True", 4) == 0) || (len == 4 && strncmp(at, "true", 4) == 0))
      return sc_expr_bool(ps->ctx, true);
    if ((len == 5 && strncmp(at, "False", 5) == 0) || (len == 5 && strncmp(at, "false", 5) == 0))
      return sc_expr_bool(ps->ctx, false);
    if ((len == 2 && strncmp(at, "oo", 2) == 0) || (len == 6 && strncmp(at, "int_oo", 6) == 0))
      return fail(ps, at, "infinity is not allowed inside a size expression");
    return sc_expr_sym(ps->ctx, sc_ctx_intern_n(ps->ctx, at, len));
  }
  if (accept(ps, "(")) {
    const sc_expr *e = parse_or(ps);
    if (!e || !expect(ps, ")")) return NULL;
    return e;
  }
  return fail(ps, at, *at ? "unexpected character" : "unexpected end of expression");
}

static const sc_expr *parse_unary(parser *ps);

static const sc_expr *parse_power(parser *ps) {
  const sc_expr *base = parse_atom(ps);
  if (!base) return NULL;
  skip_space(ps);
  const char *at = ps->p;
  if (accept(ps, "**")) {
    const sc_expr *exp = parse_unary(ps);
    if (!exp) return NULL;
    return power(ps, base, exp, at);
  }
  return base;
}

static const sc_expr *parse_unary(parser *ps) {
  if (++ps->depth > SC_PARSE_MAX_DEPTH) return fail(ps, ps->p, "expression nested too deeply");
  const sc_expr *r;
  if (accept(ps, "-")) {
    r = parse_unary(ps);
    if (r) r = sc_expr_neg(ps->ctx, r);
  } else if (accept(ps, "+")) {
    r = parse_unary(ps);
  } else if (accept(ps, "~")) {
    r = parse_unary(ps);
    if (r) r = sc_expr_not(ps->ctx, r);
  } else {
    r = parse_power(ps);
  }
  ps->depth--;
  return r;
}

/* The product of the factors gathered so far, leaving one factor: a*b*c is multiplied at
 * once (sc_expr_nary), so that a product of thousands of factors stays fast. */
static const sc_expr *product_of(parser *ps, sc_expr_terms *run) {
  const sc_expr *p = sc_expr_nary(ps->ctx, SC_EXPR_MUL, run->items, run->n);
  run->n = 0;
  sc_expr_terms_push(run, p);
  return p;
}

/* a * b // c % d ...: left to right, as Python and sympy read it. */
static const sc_expr *parse_term(parser *ps) {
  const sc_expr *first = parse_unary(ps);
  if (!first) return NULL;
  sc_expr_terms run = {0};
  sc_expr_terms_push(&run, first);
  const sc_expr *result = NULL;
  for (;;) {
    skip_space(ps);
    const char *at = ps->p;
    bool floordiv = false;
    if (accept(ps, "*")) {
      const sc_expr *r = parse_unary(ps);
      if (!r) break;
      sc_expr_terms_push(&run, r);
    } else if ((floordiv = accept(ps, "//")) || accept(ps, "%")) {
      const sc_expr *l = product_of(ps, &run), *r = parse_unary(ps);
      if (!r) break;
      run.items[0] = floordiv ? sc_expr_floordiv(ps->ctx, l, r) : sc_expr_mod(ps->ctx, l, r);
    } else if (accept(ps, "/")) {
      fail(ps, at, "true division '/' is not supported in size expressions; use '//'");
      break;
    } else {
      result = product_of(ps, &run);
      break;
    }
  }
  sc_expr_terms_free(&run);
  return result;
}

/* a + b - c ...: the terms are summed at once (sc_expr_add_all), so that a sum of
 * thousands of terms stays fast and builds no intermediate sums. */
static const sc_expr *parse_sum(parser *ps) {
  const sc_expr *first = parse_term(ps);
  if (!first) return NULL;
  sc_expr_terms terms = {0};
  sc_expr_terms_push(&terms, first);
  for (;;) {
    bool minus;
    if (accept(ps, "+")) minus = false;
    else if (accept(ps, "-")) minus = true;
    else break;
    const sc_expr *r = parse_term(ps);
    if (!r) {
      sc_expr_terms_free(&terms);
      return NULL;
    }
    sc_expr_terms_push(&terms, minus ? sc_expr_neg(ps->ctx, r) : r);
  }
  return sc_expr_terms_sum(ps->ctx, &terms);
}

static const sc_expr *parse_rel(parser *ps) {
  const sc_expr *l = parse_sum(ps);
  if (!l) return NULL;
  static const struct {
    const char *tok;
    sc_expr_kind kind;
  } ops[] = {{"<=", SC_EXPR_LE}, {">=", SC_EXPR_GE}, {"==", SC_EXPR_EQ}, {"!=", SC_EXPR_NE},
             {"<", SC_EXPR_LT},  {">", SC_EXPR_GT}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    if (accept(ps, ops[i].tok)) {
      const sc_expr *r = parse_sum(ps);
      return r ? sc_expr_rel(ps->ctx, ops[i].kind, l, r) : NULL;
    }
  }
  return l;
}

static const sc_expr *parse_and(parser *ps) {
  const sc_expr *l = parse_rel(ps);
  while (l && accept(ps, "&")) {
    const sc_expr *r = parse_rel(ps);
    l = r ? sc_expr_and(ps->ctx, l, r) : NULL;
  }
  return l;
}

static const sc_expr *parse_or(parser *ps) {
  if (++ps->depth > SC_PARSE_MAX_DEPTH) return fail(ps, ps->p, "expression nested too deeply");
  const sc_expr *l = parse_and(ps);
  while (l && accept(ps, "|")) {
    const sc_expr *r = parse_and(ps);
    l = r ? sc_expr_or(ps->ctx, l, r) : NULL;
  }
  ps->depth--;
  return l;
}

const sc_expr *sc_expr_parse(sc_ctx *ctx, const char *text, const char **err, int *err_pos) {
  parser ps = {ctx, text, text, NULL, 0, 0};
  const sc_expr *e = parse_or(&ps);
  if (e) {
    skip_space(&ps);
    if (*ps.p) e = fail(&ps, ps.p, "unexpected text after the expression");
  }
  if (!e) {
    if (err) *err = ps.err ? ps.err : "invalid expression";
    if (err_pos) *err_pos = ps.err_pos;
  }
  return e;
}
