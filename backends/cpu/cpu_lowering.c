/* cpu_lowering.c - what the shared lowering asks of the CPU (cg_target): math calls.
 * The LLVM intrinsics lower natively; libm functions are declared readnone (torch ignores
 * errno) and, where LLVM's own table lacks them, given glibc's libmvec vector variants
 * so that the loop vectorizer can call those. */
#include <stdio.h>
#include <string.h>

#include "backends/cpu/cpu_target.h"

/* libmvec functions that LLVM 19's LIBMVEC-X86 table lacks: the vectorizer learns of
 * them from a per-call "vector-function-abi-variant" attribute instead. */
static bool mvec_extra(const char *name) {
  static const char *const names[] = {"tanh", "erf",  "erfc",  "expm1", "log1p", "exp2", "log2", "log10", "sinh",
                                      "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan", "cbrt", "tan"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0) return true;
  return false;
}

/* The widest libmvec variant this library's CPU features allow: ISA letter and lanes. */
static void mvec_isa(cg *g, bool f32, char *isa, int *lanes) {
  const char *f = g->cpu_features ? g->cpu_features : "";
  bool avx512 = strstr(f, "avx512f") != NULL, avx2 = strstr(f, "avx2") != NULL;
  bool avx = strncmp(f, "avx", 3) == 0 || strstr(f, ",avx") != NULL;
  /* LLVM prefers 256-bit vectors even where AVX-512 exists: offer the AVX2 variant there */
  *isa = avx2 || avx512 ? 'd' : avx ? 'c' : 'b';
  *lanes = (*isa == 'b' ? 4 : 8) / (f32 ? 1 : 2);
}

static void attach_vector_variant(cg *g, LLVMValueRef call, const char *fname, LLVMTypeRef t) {
  char isa;
  int lanes;
  mvec_isa(g, t == g->f32, &isa, &lanes);
  char vname[64], attr[160];
  snprintf(vname, sizeof vname, "_ZGV%cN%dv_%s", isa, lanes, fname);
  snprintf(attr, sizeof attr, "_ZGV_LLVM_N%dv_%s(%s)", lanes, fname, vname);
  LLVMTypeRef vt = LLVMVectorType(t, (unsigned)lanes);
  LLVMTypeRef vparams[1] = {vt};
  LLVMValueRef vf = LLVMGetNamedFunction(g->M, vname);
  if (!vf) {
    vf = LLVMAddFunction(g->M, vname, LLVMFunctionType(vt, vparams, 1, 0));
    if (g->n_used < (int)(sizeof g->used / sizeof g->used[0])) g->used[g->n_used++] = vf;
  }
  LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                           LLVMCreateStringAttribute(g->C, "vector-function-abi-variant", 27, attr,
                                                     (unsigned)strlen(attr)));
}

/* Functions glibc lacks, which the runtime defines (backends/cpu/runtime/special_functions.c). */
static bool runtime_math(const char *name) { return strcmp(name, "erfinv") == 0 || strcmp(name, "digamma") == 0; }

static LLVMValueRef libm_call(cg *g, const char *name, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  char fname[32];
  snprintf(fname, sizeof fname, "%s%s%s", runtime_math(name) ? "sc_" : "", name, t == g->f32 ? "f" : "");
  LLVMTypeRef params[1] = {t};
  LLVMValueRef f = cg_function(g, fname, t, params, 1, false);
  static const char *const attrs[] = {"nounwind", "willreturn"};
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(g->C, LLVMGetEnumAttributeKindForName("memory", 6), 0));
  for (int i = 0; i < 2; i++)
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(g->C, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
  LLVMValueRef args[1] = {x};
  LLVMValueRef call = LLVMBuildCall2(g->B, LLVMFunctionType(t, params, 1, 0), f, args, 1, "r");
  if (mvec_extra(name)) attach_vector_variant(g, call, fname, t);
  return call;
}

/* Two-argument libm functions (atan2): no vector variant is offered (libmvec's take two
 * vectors, and no model's hot loop calls them). */
static LLVMValueRef libm_call2(cg *g, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x);
  char fname[32];
  snprintf(fname, sizeof fname, "%s%s", name, t == g->f32 ? "f" : "");
  LLVMTypeRef params[2] = {t, t};
  LLVMValueRef f = cg_function(g, fname, t, params, 2, false);
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(g->C, LLVMGetEnumAttributeKindForName("memory", 6), 0));
  LLVMValueRef args[2] = {x, y};
  return LLVMBuildCall2(g->B, LLVMFunctionType(t, params, 2, 0), f, args, 2, "r");
}

const cg_target sc_cpu_target = {.name = "cpu", .math_call = libm_call, .math_call2 = libm_call2};
