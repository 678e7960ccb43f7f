/* symexpr_print.c - prints expressions in sympy's str() spelling (range constraints and
 * symbols, as torch prints them) or in Python's (guards, as torch's guards_code writes them:
 * `(x.size()[0] % 2) == 0`, `a and b`). */
#include <inttypes.h>
#include <stdlib.h>

#include "symexpr.h"

static bool needs_parens_as_factor(const sc_expr *e) { return e->kind == SC_EXPR_ADD || sc_expr_is_bool(e); }

static void print_expr(sc_strbuf *sb, const sc_expr *e, bool py);

static void print_factor(sc_strbuf *sb, const sc_expr *e, bool py) {
  if (needs_parens_as_factor(e) || (e->kind == SC_EXPR_INT && e->value < 0)) {
    sc_strbuf_append(sb, "(");
    print_expr(sb, e, py);
    sc_strbuf_append(sb, ")");
  } else {
    print_expr(sb, e, py);
  }
}

/* Prints a product without its sign; `coeff` is the absolute coefficient. */
static void print_product(sc_strbuf *sb, int64_t coeff, const sc_expr *const *f, uint32_t n, bool py) {
  bool first = true;
  if (coeff != 1 || n == 0) {
    sc_strbuf_printf(sb, "%" PRId64, coeff);
    first = false;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!first) sc_strbuf_append(sb, "*");
    print_factor(sb, f[i], py);
    first = false;
  }
}

/* Splits a term into sign, absolute coefficient and factors. */
static void print_term(sc_strbuf *sb, const sc_expr *t, bool leading, bool py) {
  int64_t coeff = 1;
  const sc_expr *const *f = &t;
  uint32_t n = 1;
  if (t->kind == SC_EXPR_INT) {
    coeff = t->value;
    n = 0;
  } else if (t->kind == SC_EXPR_MUL) {
    f = t->args;
    n = t->n_args;
    if (t->args[0]->kind == SC_EXPR_INT) {
      coeff = t->args[0]->value;
      f++;
      n--;
    }
  }
  bool negative = coeff < 0;
  uint64_t mag = negative ? (uint64_t)0 - (uint64_t)coeff : (uint64_t)coeff;
  if (leading) {
    if (negative) sc_strbuf_append(sb, "-");
  } else {
    sc_strbuf_append(sb, negative ? " - " : " + ");
  }
  if (mag > (uint64_t)INT64_MAX) {
    sc_strbuf_printf(sb, "%" PRIu64, mag);
    if (n) sc_strbuf_append(sb, "*");
    print_product(sb, 1, f, n, py);
    return;
  }
  print_product(sb, (int64_t)mag, f, n, py);
}

static void print_call(sc_strbuf *sb, const char *fn, const sc_expr *e, bool py) {
  sc_strbuf_printf(sb, "%s(", fn);
  for (uint32_t i = 0; i < e->n_args; i++) {
    if (i) sc_strbuf_append(sb, ", ");
    print_expr(sb, e->args[i], py);
  }
  sc_strbuf_append(sb, ")");
}

static void print_operand(sc_strbuf *sb, const sc_expr *e, bool py) {
  bool atom = e->kind == SC_EXPR_INT ? e->value >= 0 : (e->kind == SC_EXPR_SYM || e->kind == SC_EXPR_FLOORDIV ||
                                                        e->kind == SC_EXPR_MOD || e->kind == SC_EXPR_MIN ||
                                                        e->kind == SC_EXPR_MAX);
  if (!atom) sc_strbuf_append(sb, "(");
  print_expr(sb, e, py);
  if (!atom) sc_strbuf_append(sb, ")");
}

static void print_infix(sc_strbuf *sb, const char *op, const sc_expr *e, bool py) {
  print_expr(sb, e->args[0], py);
  sc_strbuf_printf(sb, " %s ", op);
  print_expr(sb, e->args[1], py);
}

static void print_junction(sc_strbuf *sb, const char *op, const sc_expr *e, bool py) {
  for (uint32_t i = 0; i < e->n_args; i++) {
    if (i) sc_strbuf_printf(sb, " %s ", op);
    const sc_expr *a = e->args[i];
    /* Python's `and` binds looser than comparisons: only nested junctions need parentheses */
    bool bare = py ? a->kind != SC_EXPR_AND && a->kind != SC_EXPR_OR
                   : a->kind == SC_EXPR_EQ || a->kind == SC_EXPR_NE || a->kind == SC_EXPR_SYM;
    if (!bare) sc_strbuf_append(sb, "(");
    print_expr(sb, a, py);
    if (!bare) sc_strbuf_append(sb, ")");
  }
}

/* Python spelling of a % or // operation: parenthesized, as torch writes them. */
static void print_python_binary(sc_strbuf *sb, const char *op, const sc_expr *e) {
  sc_strbuf_append(sb, "(");
  print_operand(sb, e->args[0], true);
  sc_strbuf_printf(sb, " %s ", op);
  print_operand(sb, e->args[1], true);
  sc_strbuf_append(sb, ")");
}

static void print_expr(sc_strbuf *sb, const sc_expr *e, bool py) {
  switch (e->kind) {
    case SC_EXPR_INT: sc_strbuf_printf(sb, "%" PRId64, e->value); return;
    case SC_EXPR_SYM: sc_strbuf_append(sb, e->name); return;
    case SC_EXPR_TRUE: sc_strbuf_append(sb, "True"); return;
    case SC_EXPR_FALSE: sc_strbuf_append(sb, "False"); return;
    case SC_EXPR_ADD:
      for (uint32_t i = 0; i < e->n_args; i++) print_term(sb, e->args[i], i == 0, py);
      return;
    case SC_EXPR_MUL: print_term(sb, e, true, py); return;
    case SC_EXPR_POW: {
      const sc_expr *base = e->args[0];
      bool bare = base->kind == SC_EXPR_SYM || base->kind == SC_EXPR_FLOORDIV || base->kind == SC_EXPR_MIN ||
                  base->kind == SC_EXPR_MAX || (!py && base->kind == SC_EXPR_MOD) || (base->kind == SC_EXPR_INT && base->value >= 0);
      if (!bare) sc_strbuf_append(sb, "(");
      print_expr(sb, base, py);
      if (!bare) sc_strbuf_append(sb, ")");
      sc_strbuf_printf(sb, "**%" PRId64, e->args[1]->value);
      return;
    }
    case SC_EXPR_FLOORDIV:
      if (py) {
        print_python_binary(sb, "//", e);
        return;
      }
      sc_strbuf_append(sb, "(");
      print_operand(sb, e->args[0], py);
      sc_strbuf_append(sb, "//");
      print_operand(sb, e->args[1], py);
      sc_strbuf_append(sb, ")");
      return;
    case SC_EXPR_MOD:
      if (py) print_python_binary(sb, "%", e);
      else print_call(sb, "Mod", e, py);
      return;
    case SC_EXPR_MIN: print_call(sb, py ? "min" : "Min", e, py); return;
    case SC_EXPR_MAX: print_call(sb, py ? "max" : "Max", e, py); return;
    case SC_EXPR_EQ:
      if (py) print_infix(sb, "==", e, py);
      else print_call(sb, "Eq", e, py);
      return;
    case SC_EXPR_NE:
      if (py) print_infix(sb, "!=", e, py);
      else print_call(sb, "Ne", e, py);
      return;
    case SC_EXPR_LT: print_infix(sb, "<", e, py); return;
    case SC_EXPR_LE: print_infix(sb, "<=", e, py); return;
    case SC_EXPR_GT: print_infix(sb, ">", e, py); return;
    case SC_EXPR_GE: print_infix(sb, ">=", e, py); return;
    case SC_EXPR_AND: print_junction(sb, py ? "and" : "&", e, py); return;
    case SC_EXPR_OR: print_junction(sb, py ? "or" : "|", e, py); return;
    case SC_EXPR_NOT:
      sc_strbuf_append(sb, py ? "not " : "~");
      print_operand(sb, e->args[0], py);
      return;
  }
}

void sc_expr_print(sc_strbuf *sb, const sc_expr *e) { print_expr(sb, e, false); }

const char *sc_expr_to_python(sc_ctx *ctx, const sc_expr *e) {
  sc_strbuf sb = {0};
  print_expr(&sb, e, true);
  const char *s = sc_arena_strdup(&ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return s;
}

const char *sc_expr_to_string(sc_ctx *ctx, const sc_expr *e) {
  sc_strbuf sb = {0};
  sc_expr_print(&sb, e);
  const char *s = sc_arena_strdup(&ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return s;
}

const char *sc_linear_root_text(sc_ctx *ctx, const char *source, int64_t offset, int64_t coeff) {
  const char *shifted = offset == 0 ? source
                        : offset > 0 ? sc_arena_printf(&ctx->arena, "%s - %lld", source, (long long)offset)
                                     : sc_arena_printf(&ctx->arena, "%s + %lld", source, -(long long)offset);
  if (coeff == 1) return shifted;
  return offset == 0 ? sc_arena_printf(&ctx->arena, "%s / %lld", source, (long long)coeff)
                     : sc_arena_printf(&ctx->arena, "(%s) / %lld", shifted, (long long)coeff);
}
