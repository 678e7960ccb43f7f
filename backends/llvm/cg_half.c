/* cg_half.c - float16 and bfloat16 elements in memory, float32 in registers.
 *
 * A half-precision value is loaded and widened to float32, computed on in float32 and
 * rounded back (round to nearest, ties to even) where it is stored, or where the program
 * rounds it (meta.rounds_to, passes/half_precision.h).  bfloat16 is float32's upper half,
 * so it is converted with integer operations that vectorize everywhere; float16 through
 * LLVM's `half`, which x86's F16C and PTX convert natively. */
#include "lower.h"

static bool is_half(sc_dtype dt) { return dt == SC_DTYPE_F16 || dt == SC_DTYPE_BF16; }

LLVMTypeRef cg_mem_type(cg *g, sc_dtype dt) {
  if (dt == SC_DTYPE_BOOL) return g->i8;
  if (is_half(dt)) return g->i16;
  return cg_llvm_type(g, dt);
}

/* float32 -> its bfloat16 bits (i16), rounded; a NaN stays a quiet NaN */
static LLVMValueRef f32_to_bf16_bits(cg *g, LLVMValueRef x) {
  LLVMValueRef u = LLVMBuildBitCast(g->B, x, g->i32, "u");
  LLVMValueRef lsb = LLVMBuildAnd(g->B, LLVMBuildLShr(g->B, u, LLVMConstInt(g->i32, 16, 0), "hi"),
                                  LLVMConstInt(g->i32, 1, 0), "lsb");
  LLVMValueRef r = LLVMBuildAdd(g->B, u, LLVMBuildAdd(g->B, lsb, LLVMConstInt(g->i32, 0x7fff, 0), "bias"), "r");
  LLVMValueRef rounded = LLVMBuildTrunc(g->B, LLVMBuildLShr(g->B, r, LLVMConstInt(g->i32, 16, 0), "top"), g->i16, "bf");
  LLVMValueRef quiet = LLVMBuildTrunc(g->B, LLVMBuildOr(g->B, LLVMBuildLShr(g->B, u, LLVMConstInt(g->i32, 16, 0), "nh"),
                                                        LLVMConstInt(g->i32, 0x40, 0), "q"), g->i16, "qn");
  LLVMValueRef nan = LLVMBuildFCmp(g->B, LLVMRealUNO, x, x, "nan");
  return LLVMBuildSelect(g->B, nan, quiet, rounded, "bf16");
}

static LLVMValueRef bf16_bits_to_f32(cg *g, LLVMValueRef h) {
  LLVMValueRef u = LLVMBuildShl(g->B, LLVMBuildZExt(g->B, h, g->i32, "z"), LLVMConstInt(g->i32, 16, 0), "u");
  return LLVMBuildBitCast(g->B, u, g->f32, "f");
}

static LLVMValueRef f32_to_f16_bits(cg *g, LLVMValueRef x) {
  LLVMTypeRef half = LLVMHalfTypeInContext(g->C);
  return LLVMBuildBitCast(g->B, LLVMBuildFPTrunc(g->B, x, half, "h"), g->i16, "hb");
}

static LLVMValueRef f16_bits_to_f32(cg *g, LLVMValueRef h) {
  LLVMTypeRef half = LLVMHalfTypeInContext(g->C);
  return LLVMBuildFPExt(g->B, LLVMBuildBitCast(g->B, h, half, "h"), g->f32, "f");
}

LLVMValueRef cg_load_elem(cg *g, sc_dtype dt, LLVMValueRef ptr) {
  LLVMValueRef x = LLVMBuildLoad2(g->B, cg_mem_type(g, dt), ptr, "x");
  if (dt == SC_DTYPE_BOOL) return LLVMBuildICmp(g->B, LLVMIntNE, x, LLVMConstInt(g->i8, 0, 0), "b");
  if (dt == SC_DTYPE_BF16) return bf16_bits_to_f32(g, x);
  if (dt == SC_DTYPE_F16) return f16_bits_to_f32(g, x);
  return x;
}

LLVMValueRef cg_to_memory(cg *g, sc_dtype dt, LLVMValueRef v) {
  if (dt == SC_DTYPE_BOOL) return LLVMBuildZExt(g->B, v, g->i8, "b");
  if (dt == SC_DTYPE_BF16) return f32_to_bf16_bits(g, v);
  if (dt == SC_DTYPE_F16) return f32_to_f16_bits(g, v);
  return v;
}

LLVMValueRef cg_round_to(cg *g, sc_dtype dt, LLVMValueRef x) {
  if (dt == SC_DTYPE_BF16) return bf16_bits_to_f32(g, f32_to_bf16_bits(g, x));
  if (dt == SC_DTYPE_F16) return f16_bits_to_f32(g, f32_to_f16_bits(g, x));
  return x;
}
