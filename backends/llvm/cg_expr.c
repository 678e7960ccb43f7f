/* cg_expr.c - symbolic expressions as LLVM IR: int64 arithmetic with overflow checks
 * (an overflowing size is an error, never a wrap), Python floor division and modulo,
 * relations as i1. */
#include <string.h>

#include "lower.h"

int cg_symbol_index(cg *g, const char *name) {
  if (!g->symbol_index_built) { /* a walk per question was quadratic in a program with a symbol per input */
    sc_strmap_init(&g->symbol_index, &g->ctx->arena);
    for (size_t i = 0; i < g->a->env.n_symbols; i++) /* the first of equal names, as the walk found it */
      sc_strmap_put(&g->symbol_index, g->a->env.symbols[i].name, (void *)(intptr_t)(i + 1));
    g->symbol_index_built = true;
  }
  return (int)((intptr_t)sc_strmap_get(&g->symbol_index, name) - 1);
}

LLVMValueRef cg_load_sym(cg *g, int index) {
  LLVMValueRef idx[1] = {cg_i64(g, index)};
  LLVMValueRef p = LLVMBuildGEP2(g->B, g->i64, g->syms, idx, 1, "symp");
  return LLVMBuildLoad2(g->B, g->i64, p, "sym");
}

/* a op b with an overflow check through llvm.s{add,mul}.with.overflow; none where the
 * result is known here (an operand that changes nothing, two constants that fit). */
static LLVMValueRef checked(cg *g, const char *intrinsic, LLVMValueRef a, LLVMValueRef b) {
  bool mul = strstr(intrinsic, "mul") != NULL;
  int64_t unit = mul ? 1 : 0, ca, cb, folded;
  bool a_known = LLVMIsAConstantInt(a), b_known = LLVMIsAConstantInt(b);
  ca = a_known ? LLVMConstIntGetSExtValue(a) : 0;
  cb = b_known ? LLVMConstIntGetSExtValue(b) : 0;
  if (a_known && ca == unit) return b;
  if (b_known && cb == unit) return a;
  if (a_known && b_known && !(mul ? __builtin_mul_overflow(ca, cb, &folded) : __builtin_add_overflow(ca, cb, &folded)))
    return cg_i64(g, folded);
  unsigned id = LLVMLookupIntrinsicID(intrinsic, strlen(intrinsic));
  LLVMTypeRef over[1] = {g->i64};
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->M, id, over, 1);
  LLVMTypeRef ft = LLVMIntrinsicGetType(g->C, id, over, 1);
  LLVMValueRef args[2] = {a, b};
  LLVMValueRef r = LLVMBuildCall2(g->B, ft, f, args, 2, "ovf");
  LLVMValueRef value = LLVMBuildExtractValue(g->B, r, 0, "v"), bad = LLVMBuildExtractValue(g->B, r, 1, "o");
  cg_fail_msg_if(g, bad, "a size computation overflows int64 for these input sizes", NULL, 0);
  return value;
}

static LLVMValueRef as_i64(cg *g, LLVMValueRef v) {
  return LLVMTypeOf(v) == g->i1 ? LLVMBuildZExt(g->B, v, g->i64, "b") : v;
}

static LLVMValueRef as_i1(cg *g, LLVMValueRef v) {
  return LLVMTypeOf(v) == g->i1 ? v : LLVMBuildICmp(g->B, LLVMIntNE, v, cg_i64(g, 0), "nz");
}

LLVMValueRef cg_expr(cg *g, const sc_expr *e) {
  LLVMTypeRef two[2] = {g->i64, g->i64};
  switch (e->kind) {
    case SC_EXPR_INT: return cg_i64(g, e->value);
    case SC_EXPR_SYM: {
      int i = cg_symbol_index(g, e->name);
      LLVMValueRef raw = i < 0 ? cg_raw_size(g, e->name) : NULL; /* a size as the call gives it (guards_code) */
      if (raw) return raw;
      if (i < 0) {
        cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: unknown symbol %s", e->name);
        return cg_i64(g, 0);
      }
      return cg_load_sym(g, i);
    }
    case SC_EXPR_TRUE: return LLVMConstInt(g->i1, 1, 0);
    case SC_EXPR_FALSE: return LLVMConstInt(g->i1, 0, 0);
    case SC_EXPR_ADD:
    case SC_EXPR_MUL: {
      LLVMValueRef acc = as_i64(g, cg_expr(g, e->args[0]));
      for (uint32_t i = 1; i < e->n_args; i++)
        acc = checked(g, e->kind == SC_EXPR_ADD ? "llvm.sadd.with.overflow" : "llvm.smul.with.overflow", acc,
                      as_i64(g, cg_expr(g, e->args[i])));
      return acc;
    }
    case SC_EXPR_POW: { /* square and multiply, each step checked for overflow */
      LLVMValueRef sq = as_i64(g, cg_expr(g, e->args[0])), acc = cg_i64(g, 1);
      for (int64_t k = e->args[1]->value; k; k >>= 1) {
        if (k & 1) acc = checked(g, "llvm.smul.with.overflow", acc, sq);
        if (k > 1) sq = checked(g, "llvm.smul.with.overflow", sq, sq);
      }
      return acc;
    }
    case SC_EXPR_FLOORDIV:
    case SC_EXPR_MOD: {
      LLVMValueRef args[2] = {as_i64(g, cg_expr(g, e->args[0])), as_i64(g, cg_expr(g, e->args[1]))};
      return cg_call(g, e->kind == SC_EXPR_FLOORDIV ? "sc_rt_floordiv" : "sc_rt_mod", g->i64, two, 2, args, 2, false);
    }
    case SC_EXPR_MIN:
    case SC_EXPR_MAX: {
      LLVMValueRef acc = as_i64(g, cg_expr(g, e->args[0]));
      for (uint32_t i = 1; i < e->n_args; i++) {
        LLVMValueRef x = as_i64(g, cg_expr(g, e->args[i]));
        LLVMValueRef lt = LLVMBuildICmp(g->B, LLVMIntSLT, x, acc, "lt");
        acc = e->kind == SC_EXPR_MIN ? LLVMBuildSelect(g->B, lt, x, acc, "min") : LLVMBuildSelect(g->B, lt, acc, x, "max");
      }
      return acc;
    }
    case SC_EXPR_EQ:
    case SC_EXPR_NE:
    case SC_EXPR_LT:
    case SC_EXPR_LE:
    case SC_EXPR_GT:
    case SC_EXPR_GE: {
      static const LLVMIntPredicate preds[] = {[SC_EXPR_EQ] = LLVMIntEQ,  [SC_EXPR_NE] = LLVMIntNE,
                                               [SC_EXPR_LT] = LLVMIntSLT, [SC_EXPR_LE] = LLVMIntSLE,
                                               [SC_EXPR_GT] = LLVMIntSGT, [SC_EXPR_GE] = LLVMIntSGE};
      return LLVMBuildICmp(g->B, preds[e->kind], as_i64(g, cg_expr(g, e->args[0])), as_i64(g, cg_expr(g, e->args[1])),
                           "rel");
    }
    case SC_EXPR_AND:
    case SC_EXPR_OR: {
      LLVMValueRef acc = as_i1(g, cg_expr(g, e->args[0]));
      for (uint32_t i = 1; i < e->n_args; i++) {
        LLVMValueRef x = as_i1(g, cg_expr(g, e->args[i]));
        acc = e->kind == SC_EXPR_AND ? LLVMBuildAnd(g->B, acc, x, "and") : LLVMBuildOr(g->B, acc, x, "or");
      }
      return acc;
    }
    case SC_EXPR_NOT: return LLVMBuildNot(g->B, as_i1(g, cg_expr(g, e->args[0])), "not");
  }
  return cg_i64(g, 0);
}
