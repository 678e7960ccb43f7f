/* fuzz_expr.c - the sympy expression parser (str and srepr spellings) and what the
 * analysis does with a parsed expression: print, compare, substitute, evaluate, and the
 * arithmetic that simplifies (products, floor division, relations). */
#include "fuzz_common.h"
#include "ir/symexpr.h"

static bool lookup(void *env, const char *name, int64_t *value) {
  (void)env;
  *value = (int64_t)(strlen(name) % 7) + 2;
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0; /* expressions in programs are short; the parser bounds depth and length itself */
  sc_ctx *ctx = sc_ctx_new();
  char *text = fuzz_text(data, size);
  const char *err = NULL;
  int pos = 0;
  const sc_expr *e = sc_expr_parse(ctx, text, &err, &pos);
  if (e) {
    sc_expr_to_string(ctx, e);
    int64_t v;
    sc_expr_eval(e, lookup, NULL, &v);
    const char *names[8];
    int n = sc_expr_symbols(e, names, 8);
    const sc_expr *s0 = sc_expr_sym(ctx, "s0");
    if (!sc_expr_is_bool(e)) {
      const sc_expr *m = sc_expr_mul(ctx, e, sc_expr_add(ctx, s0, sc_expr_int(ctx, 1)));
      sc_expr_to_string(ctx, sc_expr_floordiv(ctx, m, sc_expr_add(ctx, s0, sc_expr_int(ctx, 1))));
      sc_expr_to_string(ctx, sc_expr_rel(ctx, SC_EXPR_LE, e, s0));
      sc_expr_compare(e, m);
    }
    if (n > 0) sc_expr_to_string(ctx, sc_expr_subst(ctx, e, names[0], sc_expr_int(ctx, 3)));
  }
  free(text);
  sc_ctx_free(ctx);
  return 0;
}
