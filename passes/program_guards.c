/* program_guards.c - guards_code back into conditions; see program_guards.h.
 *
 * A recursive-descent parser over Python's precedence levels, from `or` down to an atom.
 * An input path L['d'][0]['x'] names the placeholder torch made of it, the keys joined by
 * '_' (d_0_x), which is how torch.export names flattened inputs.
 *
 * Beside the condition it renders the guard as ep.module() prints it when the guard fails:
 * Python's ast.unparse of the text with L['x'] written x (`(-1) + L['x'].size()[0]`
 * becomes `-1 + x.size()[0]`), so each parse step also leaves its text and precedence. */
#include "program_guards.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/strbuf.h"

typedef struct parser {
  sc_ctx *ctx;
  const sc_program *p;
  const char *text, *at;
  const char *err;
  int err_col;
  int depth;          /* nesting, bounded: a crafted guard must not exhaust the stack */
  bool raw;           /* input sizes as symbols named by their source (x.size()[1], n) */
  const char *shown;  /* what the last parse step read, as ast.unparse writes it */
  int prec;           /* ... and its precedence */
} parser;

/* Python's precedence levels as ast.unparse numbers them (_Precedence); "next" is +1. */
enum { P_TEST = 3, P_OR, P_AND, P_NOT, P_CMP, P_EXPR, P_BOR, P_BXOR, P_BAND, P_SHIFT, P_ARITH, P_TERM, P_FACTOR, P_POWER,
       P_AWAIT, P_ATOM };

static void show(parser *ps, const char *text, int prec) {
  ps->shown = text;
  ps->prec = prec;
}

/* An operand's text where its context needs at least precedence `need`. */
static const char *shown_at(parser *ps, const char *text, int prec, int need) {
  return prec < need ? sc_arena_printf(&ps->ctx->arena, "(%s)", text) : text;
}

/* left OP right for a binary operator of precedence prec (left-associative unless ** ). */
static void show_binary(parser *ps, const char *l, int lp, const char *op, const char *r, int rp, int prec) {
  bool rassoc = strcmp(op, "**") == 0;
  show(ps, sc_arena_printf(&ps->ctx->arena, "%s %s %s", shown_at(ps, l, lp, rassoc ? prec + 1 : prec), op,
                           shown_at(ps, r, rp, rassoc ? prec : prec + 1)), prec);
}

static const sc_expr *parse_or(parser *ps);

static void skip_space(parser *ps) {
  while (*ps->at == ' ' || *ps->at == '\t') ps->at++;
}

static const sc_expr *fail(parser *ps, const char *at, const char *msg) {
  if (!ps->err) {
    ps->err = msg;
    ps->err_col = (int)(at - ps->text);
  }
  return NULL;
}

/* Consumes `tok` (an operator, or a keyword not followed by a name character). */
static bool accept(parser *ps, const char *tok) {
  skip_space(ps);
  size_t n = strlen(tok);
  if (strncmp(ps->at, tok, n) != 0) return false;
  if (isalpha((unsigned char)tok[0]) && (isalnum((unsigned char)ps->at[n]) || ps->at[n] == '_')) return false;
  ps->at += n;
  return true;
}

static bool expect(parser *ps, const char *tok) {
  if (accept(ps, tok)) return true;
  fail(ps, ps->at, sc_arena_printf(&ps->ctx->arena, "expected '%s'", tok));
  return false;
}

static bool read_int(parser *ps, int64_t *out) {
  skip_space(ps);
  if (!isdigit((unsigned char)*ps->at)) return false;
  int64_t v = 0;
  for (; isdigit((unsigned char)*ps->at); ps->at++) {
    if (v > (INT64_MAX - (*ps->at - '0')) / 10) {
      fail(ps, ps->at, "integer too large");
      return false;
    }
    v = v * 10 + (*ps->at - '0');
  }
  *out = v;
  return true;
}

static const sc_value *user_input(const sc_program *p, const char *name) {
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    const sc_value *v = sc_input_spec_value(s);
    if (s->kind == SC_INPUT_USER && v && strcmp(v->name, name) == 0) return v;
  }
  return NULL;
}

/* The input's name, then what followed its path (.size()[0]) without spaces. */
static void show_input(parser *ps, const char *input, const char *tail) {
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, input);
  for (const char *c = tail; c < ps->at; c++)
    if (*c != ' ' && *c != '\t') sc_strbuf_append_n(&sb, c, 1);
  show(ps, sc_arena_strdup(&ps->ctx->arena, sc_strbuf_cstr(&sb)), P_ATOM);
  sc_strbuf_free(&sb);
}

/* An attribute step of a path (.self_attention_cache: a registered pytree class's
 * field), not the .size() that ends it: consumed and appended to name. */
static bool accept_attribute(parser *ps, sc_strbuf *name) {
  skip_space(ps);
  const char *at = ps->at;
  if (*at != '.' || !(isalpha((unsigned char)at[1]) || at[1] == '_')) return false;
  const char *id = at + 1, *end = id;
  while (isalnum((unsigned char)*end) || *end == '_') end++;
  const char *after = end;
  while (*after == ' ' || *after == '\t') after++;
  if (end - id == 4 && strncmp(id, "size", 4) == 0 && *after == '(') return false;
  sc_strbuf_append(name, "_");
  sc_strbuf_append_n(name, id, (size_t)(end - id));
  ps->at = end;
  return true;
}

/* L['x'][0]['y'] (or .field between them) then .size()[k], .size(k) or nothing. */
static const sc_expr *parse_input_path(parser *ps) {
  const char *start = ps->at - 1; /* the L */
  sc_strbuf name = {0};
  while (accept(ps, "[") || (name.len && accept_attribute(ps, &name) && accept(ps, "["))) {
    skip_space(ps);
    if (name.len) sc_strbuf_append(&name, "_");
    int64_t index;
    if (*ps->at == '\'' || *ps->at == '"') {
      char q = *ps->at++;
      const char *key = ps->at;
      while (*ps->at && *ps->at != q) ps->at++;
      if (!*ps->at) {
        sc_strbuf_free(&name);
        return fail(ps, key - 1, "unterminated string");
      }
      sc_strbuf_append_n(&name, key, (size_t)(ps->at - key));
      ps->at++;
    } else if (read_int(ps, &index)) {
      sc_strbuf_printf(&name, "%lld", (long long)index);
    } else {
      sc_strbuf_free(&name);
      return fail(ps, ps->at, "expected a key or an index after L[");
    }
    if (!expect(ps, "]")) {
      sc_strbuf_free(&name);
      return NULL;
    }
  }
  const sc_value *v = name.len ? user_input(ps->p, sc_strbuf_cstr(&name)) : NULL;
  const char *input = v ? v->name : NULL;
  if (!v) {
    const char *msg = sc_arena_printf(&ps->ctx->arena, "%.*s names no user input of the program (looked for '%s')",
                                      (int)(ps->at - start), start, sc_strbuf_cstr(&name));
    sc_strbuf_free(&name);
    return fail(ps, start, msg);
  }
  sc_strbuf_free(&name);
  const char *tail = ps->at;
  if (accept(ps, ".")) {
    const char *method = ps->at;
    if (!accept(ps, "size")) return fail(ps, method, "only .size() of an input is supported in a guard");
    int64_t k;
    bool ok = expect(ps, "(");
    if (ok && accept(ps, ")")) {
      ok = expect(ps, "[") && read_int(ps, &k) && expect(ps, "]");
    } else if (ok) {
      ok = read_int(ps, &k) && expect(ps, ")");
    }
    if (!ok) return fail(ps, method, "expected .size()[k] or .size(k)");
    if (v->kind != SC_VALUE_TENSOR) return fail(ps, start, sc_arena_printf(&ps->ctx->arena, "'%s' is not a tensor", input));
    if (k >= v->meta.rank) return fail(ps, method, sc_arena_printf(&ps->ctx->arena, "'%s' has rank %d, no dim %lld", input,
                                                                   v->meta.rank, (long long)k));
    if (!v->shape) return fail(ps, start, sc_arena_printf(&ps->ctx->arena, "'%s' has no analysed shape", input));
    const char *shown = v->display ? v->display : input; /* d['y'], as torch names it */
    show_input(ps, shown, tail);
    return ps->raw ? sc_expr_sym(ps->ctx, sc_arena_printf(&ps->ctx->arena, "%s.size()[%lld]", shown, (long long)k))
                   : v->shape[k];
  }
  if (v->kind == SC_VALUE_SYM_INT && v->sym) {
    const char *shown = v->display ? v->display : input;
    show_input(ps, shown, tail);
    return ps->raw ? sc_expr_sym(ps->ctx, shown) : v->sym;
  }
  return fail(ps, start, sc_arena_printf(&ps->ctx->arena, "'%s' is not an integer input; a guard may use its .size()", input));
}

enum { MAX_DEPTH = 200 };

static const sc_expr *parse_atom(parser *ps) {
  skip_space(ps);
  if (ps->depth > MAX_DEPTH) return fail(ps, ps->at, "the guard nests too deeply");
  int64_t v;
  const char *at = ps->at;
  if (read_int(ps, &v)) {
    show(ps, sc_arena_printf(&ps->ctx->arena, "%.*s", (int)(ps->at - at), at), P_ATOM);
    return sc_expr_int(ps->ctx, v);
  }
  if (ps->err) return NULL;
  if (accept(ps, "(")) { /* the parentheses go: ast.unparse puts back those the context needs */
    ps->depth++;
    const sc_expr *e = parse_or(ps);
    ps->depth--;
    return e && expect(ps, ")") ? e : NULL;
  }
  if (accept(ps, "True")) {
    show(ps, "True", P_ATOM);
    return sc_expr_bool(ps->ctx, true);
  }
  if (accept(ps, "False")) {
    show(ps, "False", P_ATOM);
    return sc_expr_bool(ps->ctx, false);
  }
  if (accept(ps, "L")) return parse_input_path(ps);
  /* sympy's Max and Min, Python's max and min, and torch.sym_max / torch.sym_min, which
   * torch 2.14 writes for a size that is at least 1 (MultiheadAttention's head split) */
  bool is_max = accept(ps, "torch.sym_max") || accept(ps, "Max") || accept(ps, "max");
  if (is_max || accept(ps, "torch.sym_min") || accept(ps, "Min") || accept(ps, "min")) {
    const char *fn = sc_arena_printf(&ps->ctx->arena, "%.*s", (int)(ps->at - at - 0), at);
    while (*fn == ' ') fn++;
    if (!expect(ps, "(")) return NULL;
    const sc_expr *acc = parse_or(ps);
    sc_strbuf call = {0};
    if (acc) sc_strbuf_printf(&call, "%s(%s", fn, ps->shown);
    while (acc && accept(ps, ",")) {
      const sc_expr *next = parse_or(ps);
      if (!next) break;
      sc_strbuf_printf(&call, ", %s", ps->shown);
      acc = is_max ? sc_expr_max(ps->ctx, acc, next) : sc_expr_min(ps->ctx, acc, next);
    }
    sc_strbuf_append(&call, ")");
    show(ps, sc_arena_strdup(&ps->ctx->arena, sc_strbuf_cstr(&call)), P_ATOM);
    sc_strbuf_free(&call);
    return acc && !ps->err && expect(ps, ")") ? acc : NULL;
  }
  return fail(ps, ps->at, *ps->at ? "unexpected text" : "unexpected end of the guard");
}

static const sc_expr *parse_unary(parser *ps);

static const sc_expr *parse_power(parser *ps) {
  const char *at = ps->at;
  const sc_expr *base = parse_atom(ps);
  if (!base || !accept(ps, "**")) return base;
  const char *b = ps->shown;
  int bp = ps->prec;
  ps->depth++;
  const sc_expr *exp = parse_unary(ps);
  ps->depth--;
  int64_t n;
  if (!exp) return NULL;
  show_binary(ps, b, bp, "**", ps->shown, ps->prec, P_POWER);
  if (!sc_expr_is_const(exp, &n) || n < 0) return fail(ps, at, "only a constant non-negative power is supported");
  const sc_expr *r = sc_expr_pow(ps->ctx, base, n);
  return r ? r : fail(ps, at, "the power does not fit in 64 bits");
}

static const sc_expr *parse_unary(parser *ps) {
  if (ps->depth > MAX_DEPTH) return fail(ps, ps->at, "the guard nests too deeply");
  bool minus = accept(ps, "-");
  if (minus || accept(ps, "+")) {
    ps->depth++;
    const sc_expr *e = parse_unary(ps);
    ps->depth--;
    if (!e) return NULL;
    show(ps, sc_arena_printf(&ps->ctx->arena, "%s%s", minus ? "-" : "+", shown_at(ps, ps->shown, ps->prec, P_FACTOR)),
         P_FACTOR);
    return minus ? sc_expr_neg(ps->ctx, e) : e;
  }
  return parse_power(ps);
}

/* a * b // c % d ...: left to right, the factors of each run of `*` multiplied at once and
 * the text built in one buffer, so that a chain of n operators takes O(n log^2 n) where a
 * product rebuilt and a text reprinted at each operator took O(n^2).  A `//` or `%` that
 * stays in the expression nests it one level deeper, bounded as parentheses are. */
static const sc_expr *parse_term(parser *ps) {
  const sc_expr *first = parse_unary(ps);
  if (!first) return NULL;
  sc_expr_terms run = {0}; /* the factors of the current run of `*` */
  sc_expr_terms_push(&run, first);
  sc_strbuf shown = {0};
  sc_strbuf_append(&shown, shown_at(ps, ps->shown, ps->prec, P_TERM));
  bool several = false, ok = true;
  int nested = 0;
  for (;;) {
    const char *op;
    if (accept(ps, "//")) op = "//";
    else if (accept(ps, "*")) op = "*";
    else if (accept(ps, "%")) op = "%";
    else if (skip_space(ps), *ps->at == '/') {
      fail(ps, ps->at, "true division (/) is not supported in a size guard");
      ok = false;
      break;
    } else break;
    const char *at = ps->at;
    const sc_expr *r = parse_unary(ps);
    if (!r) {
      ok = false;
      break;
    }
    sc_strbuf_printf(&shown, " %s %s", op, shown_at(ps, ps->shown, ps->prec, P_TERM + 1));
    several = true;
    if (*op == '*') {
      sc_expr_terms_push(&run, r);
      continue;
    }
    const sc_expr *acc = sc_expr_nary(ps->ctx, SC_EXPR_MUL, run.items, run.n);
    acc = *op == '/' ? sc_expr_floordiv(ps->ctx, acc, r) : sc_expr_mod(ps->ctx, acc, r);
    if ((acc->kind == SC_EXPR_FLOORDIV || acc->kind == SC_EXPR_MOD) && ps->depth + ++nested > MAX_DEPTH) {
      fail(ps, at, "the guard nests too deeply");
      ok = false;
      break;
    }
    run.n = 0;
    sc_expr_terms_push(&run, acc);
  }
  const sc_expr *acc = ok ? sc_expr_nary(ps->ctx, SC_EXPR_MUL, run.items, run.n) : NULL;
  if (acc && several) show(ps, sc_arena_strdup(&ps->ctx->arena, sc_strbuf_cstr(&shown)), P_TERM);
  sc_expr_terms_free(&run);
  sc_strbuf_free(&shown);
  return acc;
}

/* a + b - c ...: summed at once, so that thousands of terms stay linear. */
static const sc_expr *parse_arith(parser *ps) {
  const sc_expr *first = parse_term(ps);
  if (!first) return NULL;
  sc_expr_terms terms = {0};
  sc_expr_terms_push(&terms, first);
  sc_strbuf shown = {0}; /* left-associative: only the first operand can stand bare at ARITH */
  sc_strbuf_append(&shown, shown_at(ps, ps->shown, ps->prec, P_ARITH));
  bool several = false;
  for (;;) {
    bool minus;
    if (accept(ps, "+")) minus = false;
    else if (accept(ps, "-")) minus = true;
    else break;
    const sc_expr *r = parse_term(ps);
    if (!r) {
      sc_expr_terms_free(&terms);
      sc_strbuf_free(&shown);
      return NULL;
    }
    sc_strbuf_printf(&shown, " %s %s", minus ? "-" : "+", shown_at(ps, ps->shown, ps->prec, P_ARITH + 1));
    several = true;
    sc_expr_terms_push(&terms, minus ? sc_expr_neg(ps->ctx, r) : r);
  }
  if (several) show(ps, sc_arena_strdup(&ps->ctx->arena, sc_strbuf_cstr(&shown)), P_ARITH);
  sc_strbuf_free(&shown);
  return sc_expr_terms_sum(ps->ctx, &terms);
}

static bool accept_relation(parser *ps, sc_expr_kind *kind, const char **tok) {
  static const struct {
    const char *tok;
    sc_expr_kind kind;
  } rels[] = {{"==", SC_EXPR_EQ}, {"!=", SC_EXPR_NE}, {"<=", SC_EXPR_LE},
              {">=", SC_EXPR_GE}, {"<", SC_EXPR_LT},  {">", SC_EXPR_GT}};
  for (size_t i = 0; i < sizeof rels / sizeof rels[0]; i++)
    if (accept(ps, rels[i].tok)) {
      *kind = rels[i].kind;
      *tok = rels[i].tok;
      return true;
    }
  return false;
}

/* a < b <= c is a < b and b <= c, as in Python. */
static const sc_expr *parse_comparison(parser *ps) {
  const sc_expr *lhs = parse_arith(ps);
  const sc_expr *acc = NULL;
  sc_expr_kind kind;
  const char *tok;
  sc_strbuf shown = {0};
  if (lhs) sc_strbuf_append(&shown, shown_at(ps, ps->shown, ps->prec, P_CMP + 1));
  while (lhs && accept_relation(ps, &kind, &tok)) {
    const sc_expr *rhs = parse_arith(ps);
    if (!rhs) {
      sc_strbuf_free(&shown);
      return NULL;
    }
    sc_strbuf_printf(&shown, " %s %s", tok, shown_at(ps, ps->shown, ps->prec, P_CMP + 1));
    const sc_expr *rel = sc_expr_rel(ps->ctx, kind, lhs, rhs);
    acc = acc ? sc_expr_and(ps->ctx, acc, rel) : rel;
    lhs = rhs;
  }
  if (acc) show(ps, sc_arena_strdup(&ps->ctx->arena, sc_strbuf_cstr(&shown)), P_CMP);
  sc_strbuf_free(&shown);
  return acc ? acc : lhs;
}

static const sc_expr *parse_not(parser *ps) {
  if (ps->depth > MAX_DEPTH) return fail(ps, ps->at, "the guard nests too deeply");
  if (accept(ps, "not")) {
    ps->depth++;
    const sc_expr *e = parse_not(ps);
    ps->depth--;
    if (!e) return NULL;
    show(ps, sc_arena_printf(&ps->ctx->arena, "not %s", shown_at(ps, ps->shown, ps->prec, P_NOT)), P_NOT);
    return sc_expr_not(ps->ctx, e);
  }
  return parse_comparison(ps);
}

/* a and b and c: ast.unparse asks each further operand for one more precedence level, so
 * that it writes `a < 1 and b < 2 and (c < 3)`; torch's messages show that. */
static const sc_expr *parse_bool(parser *ps, bool is_or) {
  const sc_expr *acc = is_or ? parse_bool(ps, false) : parse_not(ps);
  if (!acc) return NULL;
  int prec = is_or ? P_OR : P_AND;
  const char *word = is_or ? "or" : "and";
  sc_strbuf shown = {0};
  sc_strbuf_append(&shown, shown_at(ps, ps->shown, ps->prec, prec + 1));
  int level = prec + 1;
  bool several = false;
  while (acc && accept(ps, word)) {
    const sc_expr *r = is_or ? parse_bool(ps, false) : parse_not(ps);
    if (!r) {
      acc = NULL;
      break;
    }
    sc_strbuf_printf(&shown, " %s %s", word, shown_at(ps, ps->shown, ps->prec, ++level));
    several = true;
    acc = is_or ? sc_expr_or(ps->ctx, acc, r) : sc_expr_and(ps->ctx, acc, r);
  }
  if (acc && several) show(ps, sc_arena_strdup(&ps->ctx->arena, sc_strbuf_cstr(&shown)), prec);
  sc_strbuf_free(&shown);
  return acc;
}

static const sc_expr *parse_or(parser *ps) { return parse_bool(ps, true); }

bool sc_program_guard_parse(sc_ctx *ctx, const sc_program *p, const char *text, sc_program_guard *out, const char **err,
                            int *col) {
  parser ps = {.ctx = ctx, .p = p, .text = text, .at = text};
  const sc_expr *e = parse_or(&ps);
  skip_space(&ps);
  if (e && *ps.at) e = fail(&ps, ps.at, "unexpected text after the guard");
  if (e && !sc_expr_is_bool(e)) e = fail(&ps, text, "the guard is a number, not a condition");
  if (!e) {
    *err = ps.err ? ps.err : "cannot read the guard";
    *col = ps.err_col;
    return false;
  }
  out->cond = e;
  out->text = ps.shown;
  parser raw = {.ctx = ctx, .p = p, .text = text, .at = text, .raw = true};
  out->raw = parse_or(&raw); /* the same text parses the same way */
  return true;
}
