/* cg_gelu_table.c - the exact GELU's 0.5 erf(|x| / sqrt 2) for libraries built for AVX-512:
 * the 32-piece polynomial of gelu_table.h, whose coefficients a permute picks per lane.
 *
 * The loop vectorizer cannot widen a lookup into a 32-entry table except as a gather, so each
 * element calls sc_gelu_half_erf, a scalar function that the vectorizer replaces by its
 * vector variants (a "vector-function-abi-variant" call attribute): 16 lanes and 8
 * (AVX-512VL, computed in the low half of 16), each also masked for the loops' masked row
 * ends; every coefficient is one vpermi2ps over the table row's two halves.  The variants
 * are always-inline; the optimizer's inliner has run before the vectorizer, so
 * cg_gelu_table_inline runs it again after O3.  Elements that no vector computes (a loop the
 * vectorizer leaves scalar) call the scalar function, which does the same operations. */
#include <stdio.h>
#include <string.h>

#include <llvm-c/Transforms/PassBuilder.h>

#include "gelu_table.h"
#include "lower.h"

#define HALF_ERF "sc_gelu_half_erf"

static LLVMValueRef splat(cg *g, LLVMTypeRef t, float v) {
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return LLVMConstReal(t, v);
  unsigned n = LLVMGetVectorSize(t);
  LLVMValueRef lanes[16];
  for (unsigned i = 0; i < n; i++) lanes[i] = LLVMConstReal(g->f32, v);
  return LLVMConstVector(lanes, n);
}

static LLVMValueRef call_intrinsic(cg *g, const char *name, LLVMTypeRef overload, LLVMValueRef *args, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef over[1] = {overload};
  unsigned n_over = overload ? 1 : 0;
  return LLVMBuildCall2(g->B, LLVMIntrinsicGetType(g->C, id, over, n_over),
                        LLVMGetIntrinsicDeclaration(g->M, id, over, n_over), args, n, "");
}

static LLVMValueRef fma3(cg *g, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
  LLVMValueRef args[3] = {a, b, c};
  return call_intrinsic(g, "llvm.fma", LLVMTypeOf(a), args, 3);
}

static LLVMValueRef min2(cg *g, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b}; /* minnum: where a is NaN, b (x86's vminps order) */
  return call_intrinsic(g, "llvm.minnum", LLVMTypeOf(a), args, 2);
}

static LLVMValueRef shuffle(cg *g, LLVMValueRef v, unsigned lanes) {
  LLVMValueRef mask[16];
  unsigned from = LLVMGetVectorSize(LLVMTypeOf(v));
  for (unsigned i = 0; i < lanes; i++) mask[i] = i < from ? LLVMConstInt(g->i32, i, 0) : LLVMGetUndef(g->i32);
  return LLVMBuildShuffleVector(g->B, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(mask, lanes), "");
}

/* Coefficient `degree` of piece k, k in the low 5 bits of each lane of `index`: one
 * vpermi2ps over the table row's two halves where index is a vector (8 lanes widened to 16:
 * vpermi2ps of 8 lanes reaches 16 entries only), an element of the row where index is a
 * scalar. */
static LLVMValueRef coefficient(cg *g, int degree, LLVMValueRef index) {
  LLVMValueRef row[SC_GELU_PIECES];
  for (int k = 0; k < SC_GELU_PIECES; k++) row[k] = LLVMConstReal(g->f32, sc_gelu_table[degree][k]);
  LLVMTypeRef t = LLVMTypeOf(index);
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
    return LLVMBuildExtractElement(g->B, LLVMConstVector(row, SC_GELU_PIECES), index, "c");
  unsigned lanes = LLVMGetVectorSize(t);
  LLVMValueRef args[3] = {LLVMConstVector(row, 16), lanes == 16 ? index : shuffle(g, index, 16), LLVMConstVector(row + 16, 16)};
  LLVMValueRef c = call_intrinsic(g, "llvm.x86.avx512.vpermi2var.ps.512", NULL, args, 3);
  return lanes == 16 ? c : shuffle(g, c, lanes);
}

/* u = t - round(t), exactly: one vreduceps where the CPU has AVX-512DQ (rounding as the
 * MXCSR says, as the rounder's addition does), else a subtraction of the rounded value. */
static LLVMValueRef fraction(cg *g, LLVMValueRef t, LLVMValueRef m, LLVMValueRef rounder) {
  LLVMTypeRef ft = LLVMTypeOf(t);
  if (LLVMGetTypeKind(ft) == LLVMVectorTypeKind && strstr(g->cpu_features, "avx512dq")) {
    enum { MXCSR_ROUNDING = 4, NO_PRECISION_EXCEPTION = 8 };
    LLVMValueRef imm = LLVMConstInt(g->i32, MXCSR_ROUNDING | NO_PRECISION_EXCEPTION, 0);
    if (LLVMGetVectorSize(ft) == 16) {
      LLVMValueRef args[5] = {t, imm, LLVMConstNull(ft), LLVMConstAllOnes(g->i16),
                              LLVMConstInt(g->i32, 4, 0) /* the current rounding, no SAE */};
      return call_intrinsic(g, "llvm.x86.avx512.mask.reduce.ps.512", NULL, args, 5);
    }
    LLVMValueRef args[4] = {t, imm, LLVMConstNull(ft), LLVMConstAllOnes(g->i8)};
    return call_intrinsic(g, "llvm.x86.avx512.mask.reduce.ps.256", NULL, args, 4);
  }
  return LLVMBuildFSub(g->B, t, LLVMBuildFSub(g->B, m, rounder, "k_f"), "u");
}

/* The body: 0.5 erf(a / sqrt 2) of a = |x| (float or vector of floats), gelu_table.h's steps. */
static LLVMValueRef half_erf_body(cg *g, LLVMValueRef a) {
  LLVMTypeRef ft = LLVMTypeOf(a);
  bool vector = LLVMGetTypeKind(ft) == LLVMVectorTypeKind;
  LLVMTypeRef it = vector ? LLVMVectorType(g->i32, LLVMGetVectorSize(ft)) : g->i32;
  LLVMValueRef rounder = splat(g, ft, SC_GELU_ROUNDER);
  LLVMValueRef t = min2(g, fma3(g, a, splat(g, ft, SC_GELU_T_SCALE), splat(g, ft, -0.5f)), splat(g, ft, SC_GELU_T_CLAMP));
  LLVMValueRef m = LLVMBuildFAdd(g->B, t, rounder, "m");
  LLVMValueRef u = fraction(g, t, m, rounder);
  LLVMValueRef index = LLVMBuildBitCast(g->B, m, it, "k_bits");
  if (!vector) index = LLVMBuildAnd(g->B, index, LLVMConstInt(g->i32, SC_GELU_PIECES - 1, 0), "k");
  LLVMValueRef p = coefficient(g, SC_GELU_DEGREE, index);
  for (int d = SC_GELU_DEGREE - 1; d >= 0; d--) p = fma3(g, p, u, coefficient(g, d, index));
  return p;
}

static LLVMValueRef define(cg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, bool inline_it) {
  LLVMValueRef fn = LLVMAddFunction(g->M, name, LLVMFunctionType(ret, params, n, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  const char *attrs[] = {"nounwind", "willreturn", inline_it ? "alwaysinline" : "noinline"};
  for (int i = 0; i < 3; i++)
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(g->C, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(g->C, LLVMGetEnumAttributeKindForName("memory", 6), 0));
  return fn;
}

/* The vector variant of `lanes` lanes, and its masked twin (the mask is ignored: every lane's
 * arithmetic is harmless), kept alive for the vectorizer through llvm.compiler.used. */
static void define_variants(cg *g, unsigned lanes) {
  LLVMTypeRef vt = LLVMVectorType(g->f32, lanes);
  char name[64];
  snprintf(name, sizeof name, HALF_ERF "_v%u", lanes);
  LLVMValueRef fn = define(g, name, vt, &vt, 1, true);
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMBuildRet(g->B, half_erf_body(g, LLVMGetParam(fn, 0)));
  LLVMTypeRef masked_params[2] = {vt, LLVMVectorType(g->i1, lanes)};
  snprintf(name, sizeof name, HALF_ERF "_m%u", lanes);
  LLVMValueRef masked = define(g, name, vt, masked_params, 2, true);
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, masked, "entry"));
  LLVMValueRef x = LLVMGetParam(masked, 0);
  LLVMBuildRet(g->B, LLVMBuildCall2(g->B, LLVMFunctionType(vt, &vt, 1, 0), fn, &x, 1, ""));
  /* without room there the variants go before the vectorizer sees them: scalar calls, same bits */
  if (g->n_used + 2 <= (int)(sizeof g->used / sizeof g->used[0])) {
    g->used[g->n_used++] = fn;
    g->used[g->n_used++] = masked;
  }
}

/* The scalar function and its variants, defined on the first use. */
static LLVMValueRef half_erf_function(cg *g) {
  LLVMValueRef fn = LLVMGetNamedFunction(g->M, HALF_ERF);
  if (fn) return fn;
  LLVMBuilderRef caller = g->B; /* the caller's insert point stays where it is */
  g->B = LLVMCreateBuilderInContext(g->C);
  fn = define(g, HALF_ERF, g->f32, &g->f32, 1, false);
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMBuildRet(g->B, half_erf_body(g, LLVMGetParam(fn, 0)));
  define_variants(g, 16);
  if (strstr(g->cpu_features, "avx512vl")) define_variants(g, 8);
  LLVMDisposeBuilder(g->B);
  g->B = caller;
  return fn;
}

bool cg_gelu_table_wanted(const cg *g) { return !g->device && cg_has_avx512(g); }

LLVMValueRef cg_gelu_half_erf_table(cg *g, LLVMValueRef a) {
  LLVMValueRef fn = half_erf_function(g);
  LLVMValueRef call = LLVMBuildCall2(g->B, LLVMFunctionType(g->f32, &g->f32, 1, 0), fn, &a, 1, "half_erf");
  g->gelu_table_calls++;
  const char *variants = strstr(g->cpu_features, "avx512vl")
                             ? "_ZGV_LLVM_N16v_" HALF_ERF "(" HALF_ERF "_v16),_ZGV_LLVM_M16v_" HALF_ERF "(" HALF_ERF
                               "_m16),_ZGV_LLVM_N8v_" HALF_ERF "(" HALF_ERF "_v8),_ZGV_LLVM_M8v_" HALF_ERF "(" HALF_ERF "_m8)"
                             : "_ZGV_LLVM_N16v_" HALF_ERF "(" HALF_ERF "_v16),_ZGV_LLVM_M16v_" HALF_ERF "(" HALF_ERF "_m16)";
  LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                           LLVMCreateStringAttribute(g->C, "vector-function-abi-variant", 27, variants,
                                                     (unsigned)strlen(variants)));
  return call;
}

bool cg_gelu_table_inline(cg *g, LLVMTargetMachineRef tm) {
  if (!LLVMGetNamedFunction(g->M, HALF_ERF)) return true;
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(g->M, "always-inline", tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (!e) return true;
  char *msg = LLVMGetErrorMessage(e);
  cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM inlining of the GELU's vector variants failed: %s", msg);
  LLVMDisposeErrorMessage(msg);
  return false;
}
