/* cuda_lowering.c - what the shared lowering asks of a CUDA device (cg_target): kernels
 * in the NVPTX calling convention that read their tensors in the global address space and
 * find their thread from the PTX special registers, libdevice for the math NVPTX cannot
 * lower, and the device runtime's sc_cu_* functions for the host's runtime calls.
 *
 * --cuda-emulate builds the same kernels for the host: each takes its arguments as one
 * array (void **params) and asks the emulator (backends/cuda/emulate) for its thread. */
#include <stdio.h>
#include <string.h>

#include "backends/cuda/cuda_target.h"

/* The device path calls the runtime's launch wrappers (backends/cuda/runtime/ops.c), which
 * take the CPU kernels' arguments with device pointers, and allocates device memory. */
static const char *runtime_name(cg *g, const char *name) {
  if (strncmp(name, "sc_k_", 5) == 0) {
    const char *device = sc_arena_printf(&g->ctx->arena, "sc_cu_%s", name + 5);
    /* a CPU kernel without a device counterpart: refused at its node, not at the link */
    if (!cuda_runtime_defines(device) && !g->failed) {
      const sc_node *n = g->node >= 0 && (size_t)g->node < g->p->graph->n_nodes ? &g->p->graph->nodes[g->node] : NULL;
      cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n ? n->path : NULL, "%s has no CUDA lowering yet (the device runtime "
               "has no %s; export for the CPU)", n && n->target ? n->target : name, device);
    }
    return device;
  }
  if (strcmp(name, "sc_rt_alloc") == 0) return "sc_cu_alloc";
  if (strcmp(name, "sc_rt_free") == 0) return "sc_cu_free";
  return name;
}

/* libm's `name` as a call of `prefix``name`[f]. */
static LLVMValueRef named_math_call(cg *g, const char *prefix, const char *name, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x), params[1] = {t};
  char fname[32];
  snprintf(fname, sizeof fname, "%s%s%s", prefix, name, t == g->f32 ? "f" : "");
  LLVMValueRef args[1] = {x};
  return cg_call(g, fname, t, params, 1, args, 1, false);
}

/* libm's two-argument `name` as a call of `prefix``name`[f]. */
static LLVMValueRef named_math_call2(cg *g, const char *prefix, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x), params[2] = {t, t};
  char fname[32];
  snprintf(fname, sizeof fname, "%s%s%s", prefix, name, t == g->f32 ? "f" : "");
  LLVMValueRef args[2] = {x, y};
  return cg_call(g, fname, t, params, 2, args, 2, false);
}

/* ---- a GPU ---------------------------------------------------------------------------- */

static LLVMValueRef libdevice_call(cg *g, const char *name, LLVMValueRef x) {
  return named_math_call(g, "__nv_", name, x);
}

static LLVMValueRef libdevice_call2(cg *g, const char *name, LLVMValueRef x, LLVMValueRef y) {
  return named_math_call2(g, "__nv_", name, x, y);
}

/* The libdevice function for an intrinsic NVPTX cannot lower (exp, log, sin, cos, pow). */
static LLVMValueRef libdevice_intrinsic(cg *g, const char *name, LLVMValueRef *args, unsigned n) {
  static const char *const map[][2] = {{"llvm.exp", "exp"}, {"llvm.log", "log"}, {"llvm.sin", "sin"},
                                       {"llvm.cos", "cos"}, {"llvm.pow", "pow"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    if (strcmp(name, map[i][0]) != 0) continue;
    LLVMTypeRef t = LLVMTypeOf(args[0]), params[2] = {t, t};
    char fname[32];
    snprintf(fname, sizeof fname, "__nv_%s%s", map[i][1], t == g->f32 ? "f" : "");
    return cg_call(g, fname, t, params, n, args, n, false);
  }
  return NULL;
}

static LLVMValueRef ptx_kernel_declare(cg *g, const char *name, int n) {
  LLVMTypeRef params[4096 / 8]; /* the lowering keeps a kernel's arguments within PTX's 4 KB */
  for (int i = 0; i < n && i < 4096 / 8; i++) params[i] = g->i64;
  LLVMValueRef fn = LLVMAddFunction(g->DM, name, LLVMFunctionType(g->voidt, params, (unsigned)n, 0));
  LLVMSetFunctionCallConv(fn, 71 /* PTX kernel */);
  return fn;
}

/* An i64 argument as `type`: pointers in global memory (so NVPTX emits ld.global and
 * st.global), narrower integers truncated. */
static LLVMValueRef as_type(cg *g, LLVMValueRef v, LLVMTypeRef type, bool global) {
  if (LLVMGetTypeKind(type) == LLVMPointerTypeKind) {
    if (!global) return LLVMBuildIntToPtr(g->B, v, g->ptr, "ip");
    v = LLVMBuildIntToPtr(g->B, v, LLVMPointerTypeInContext(g->C, 1), "gp");
    return LLVMBuildAddrSpaceCast(g->B, v, g->ptr, "ip");
  }
  return type == g->i64 ? v : LLVMBuildTrunc(g->B, v, type, "tr");
}

static LLVMValueRef ptx_kernel_arg(cg *g, LLVMValueRef kernel, int i, LLVMTypeRef type) {
  return as_type(g, LLVMGetParam(kernel, (unsigned)i), type, true);
}

static LLVMValueRef sreg(cg *g, const char *name) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef r = LLVMBuildCall2(g->B, LLVMIntrinsicGetType(g->C, id, NULL, 0), LLVMGetIntrinsicDeclaration(g->M, id, NULL, 0),
                                  NULL, 0, "sreg");
  return LLVMBuildZExt(g->B, r, g->i64, "sreg64");
}

static void ptx_kernel_threads(cg *g, LLVMValueRef *first, LLVMValueRef *step) {
  *first = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, sreg(g, "llvm.nvvm.read.ptx.sreg.ctaid.x"),
                                           sreg(g, "llvm.nvvm.read.ptx.sreg.ntid.x"), "base"),
                        sreg(g, "llvm.nvvm.read.ptx.sreg.tid.x"), "gid");
  *step = LLVMBuildMul(g->B, sreg(g, "llvm.nvvm.read.ptx.sreg.nctaid.x"), sreg(g, "llvm.nvvm.read.ptx.sreg.ntid.x"),
                       "stride");
}

const cg_target sc_cuda_target = {
    .name = "cuda",
    .math_call = libdevice_call,
    .math_call2 = libdevice_call2,
    .intrinsic_call = libdevice_intrinsic,
    .runtime_name = runtime_name,
    .kernel_declare = ptx_kernel_declare,
    .kernel_arg = ptx_kernel_arg,
    .kernel_threads = ptx_kernel_threads,
};

/* ---- the emulated GPU (--cuda-emulate) -------------------------------------------------- */

static LLVMValueRef libm_call(cg *g, const char *name, LLVMValueRef x) { return named_math_call(g, "", name, x); }

static LLVMValueRef libm_call2(cg *g, const char *name, LLVMValueRef x, LLVMValueRef y) {
  return named_math_call2(g, "", name, x, y);
}

/* void kernel(void **params), as the emulator calls every kernel; listed for its table. */
static LLVMValueRef emulated_kernel_declare(cg *g, const char *name, int n) {
  LLVMTypeRef one[1] = {g->ptr};
  LLVMValueRef fn = LLVMAddFunction(g->DM, name, LLVMFunctionType(g->voidt, one, 1, 0));
  g->emu_kernels = sc_xrealloc(g->emu_kernels, (size_t)(g->n_emu_kernels + 1) * sizeof *g->emu_kernels);
  g->emu_kernels[g->n_emu_kernels++] = fn;
  return fn;
}

static LLVMValueRef emulated_kernel_arg(cg *g, LLVMValueRef kernel, int i, LLVMTypeRef type) {
  LLVMValueRef idx[1] = {cg_i64(g, i)};
  LLVMValueRef at = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildInBoundsGEP2(g->B, g->ptr, LLVMGetParam(kernel, 0), idx, 1, "pp"), "p");
  return as_type(g, LLVMBuildLoad2(g->B, g->i64, at, "arg"), type, false);
}

static void emulated_kernel_threads(cg *g, LLVMValueRef *first, LLVMValueRef *step) {
  *first = cg_call(g, "sc_emu_thread_index", g->i64, NULL, 0, NULL, 0, false);
  *step = cg_call(g, "sc_emu_thread_count", g->i64, NULL, 0, NULL, 0, false);
}

const cg_target sc_cuda_emulated_target = {
    .name = "cuda-emulated",
    .math_call = libm_call,
    .math_call2 = libm_call2,
    .runtime_name = runtime_name,
    .kernel_declare = emulated_kernel_declare,
    .kernel_arg = emulated_kernel_arg,
    .kernel_threads = emulated_kernel_threads,
};
