/* cu_target.c - the device half of a CUDA model library: an NVPTX module beside the host
 * module, into which the fused elementwise kernels are generated; at the end shapec's
 * device kernels (bitcode built from backends/cuda/device/) and libdevice are linked in,
 * the module is optimized and printed as PTX, and the PTX text becomes a constant of the
 * host module that the launcher hands to the driver. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "backends/cpu/cg_internal.h"
#include "lib/fileio.h"

/* backends/cuda/device/ compiled by clang-19 and linked into one bitcode file */
extern const unsigned char sc_cuda_device_bc[];
extern const size_t sc_cuda_device_bc_size;

static const char *const known_archs[] = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"};

bool sc_cuda_arch_is_known(const char *arch) {
  for (size_t i = 0; i < sizeof known_archs / sizeof known_archs[0]; i++)
    if (strcmp(arch, known_archs[i]) == 0) return true;
  return false;
}

const char *sc_cuda_known_archs(void) { return "sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a"; }

static void init_nvptx(void) {
  static bool done;
  if (done) return;
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  done = true;
}

bool cu_open(cg *g, const char *arch) {
  init_nvptx();
  const char *triple = "nvptx64-nvidia-cuda";
  char *err = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "this LLVM has no NVPTX target: %s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  g->cuda_arch = arch;
  g->dtm = LLVMCreateTargetMachine(target, triple, arch, "", LLVMCodeGenLevelAggressive, LLVMRelocDefault,
                                   LLVMCodeModelDefault);
  if (!g->dtm) return cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM cannot build for CUDA %s", arch);
  g->DM = LLVMModuleCreateWithNameInContext("model_device", g->C);
  LLVMSetTarget(g->DM, triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(g->dtm);
  LLVMSetModuleDataLayout(g->DM, dl);
  LLVMDisposeTargetData(dl);
  /* a placeholder for the PTX text, replaced once the device module is compiled */
  g->ptx = LLVMAddGlobal(g->M, LLVMArrayType2(g->i8, 1), "sc_cuda_ptx_placeholder");
  LLVMSetLinkage(g->ptx, LLVMInternalLinkage);
  LLVMSetInitializer(g->ptx, LLVMConstNull(LLVMArrayType2(g->i8, 1)));
  return true;
}

void cu_close(cg *g) {
  if (g->DM) LLVMDisposeModule(g->DM);
  if (g->dtm) LLVMDisposeTargetMachine(g->dtm);
  g->DM = NULL;
  g->dtm = NULL;
}

/* Makes a bitcode module fit the device module: same triple and layout, no pinned GPU. */
static void adopt(cg *g, LLVMModuleRef m) {
  LLVMSetTarget(m, LLVMGetTarget(g->DM));
  LLVMSetDataLayout(m, LLVMGetDataLayoutStr(g->DM));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-cpu", 10);
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-features", 15);
  }
}

static LLVMModuleRef parse_bitcode(cg *g, const void *data, size_t size, const char *what) {
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, size, what);
  LLVMModuleRef m = NULL;
  if (LLVMParseBitcodeInContext2(g->C, buf, &m)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "cannot read %s as LLVM 19 bitcode", what);
    m = NULL;
  }
  LLVMDisposeMemoryBuffer(buf);
  return m;
}

/* libdevice.10.bc: SHAPEC_LIBDEVICE, else under CUDA_HOME, else the usual install places. */
static const char *find_libdevice(cg *g) {
  const char *env = getenv("SHAPEC_LIBDEVICE");
  if (env && *env) return env;
  const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda", "/usr/lib/cuda",
                         "/usr/lib/nvidia-cuda-toolkit"};
  for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
    if (!homes[i] || !*homes[i]) continue;
    const char *p = sc_arena_printf(&g->ctx->arena, "%s/nvvm/libdevice/libdevice.10.bc", homes[i]);
    if (access(p, R_OK) == 0) return p;
    p = sc_arena_printf(&g->ctx->arena, "%s/libdevice/libdevice.10.bc", homes[i]);
    if (access(p, R_OK) == 0) return p;
  }
  return NULL;
}

/* Links a library module so that only what the model calls survives: its definitions
 * become linkonce_odr (dropped when unused) and internal once linked. */
static bool link_library(cg *g, LLVMModuleRef lib, const char *prefix) {
  adopt(g, lib);
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  if (LLVMLinkModules2(g->DM, lib)) return cg_error(g, SC_DIAG_CODEGEN, NULL, "linking %s into the device code failed", prefix);
  size_t n = strlen(prefix);
  for (LLVMValueRef f = LLVMGetFirstFunction(g->DM); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) && strncmp(name, prefix, n) == 0) LLVMSetLinkage(f, LLVMInternalLinkage);
  }
  return true;
}

/* Every call left must be an intrinsic: anything else would fail in ptxas. */
static bool check_resolved(cg *g) {
  for (LLVMValueRef f = LLVMGetFirstFunction(g->DM); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f) && LLVMGetFirstUse(f))
      return cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: the device code calls %s, which neither libdevice nor "
                      "shapec's device kernels define", name);
  }
  return true;
}

bool cu_finish(cg *g, const char *outdir, bool keep_ir) {
  /* shapec's kernels (all of them: the host launches them by name) */
  LLVMModuleRef kernels = parse_bitcode(g, sc_cuda_device_bc, sc_cuda_device_bc_size, "shapec's device kernels");
  if (!kernels) return false;
  adopt(g, kernels);
  if (LLVMLinkModules2(g->DM, kernels)) return cg_error(g, SC_DIAG_CODEGEN, NULL, "linking shapec's device kernels failed");
  /* libdevice for the transcendentals */
  const char *libdevice = find_libdevice(g);
  if (!libdevice)
    return cg_error(g, SC_DIAG_CODEGEN, NULL, "--target cuda needs libdevice.10.bc from the CUDA toolkit (its math "
                    "functions) and found none under $CUDA_HOME, /usr/local/cuda or /usr/lib/cuda; install the toolkit "
                    "or point SHAPEC_LIBDEVICE at the file");
  LLVMMemoryBufferRef buf;
  char *err = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(libdevice, &buf, &err)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "cannot read %s: %s", libdevice, err);
    LLVMDisposeMessage(err);
    return false;
  }
  LLVMModuleRef ld = NULL;
  bool bad = LLVMParseBitcodeInContext2(g->C, buf, &ld);
  LLVMDisposeMemoryBuffer(buf);
  if (bad) return cg_error(g, SC_DIAG_CODEGEN, NULL, "%s is not bitcode this LLVM reads", libdevice);
  if (!link_library(g, ld, "__nv_")) return false;
  /* exact math, as torch's CUDA kernels do by default: no flush of denormals to zero */
  LLVMAddModuleFlag(g->DM, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                    LLVMValueAsMetadata(LLVMConstInt(g->i32, 0, 0)));
  if (LLVMVerifyModule(g->DM, LLVMReturnStatusAction, &err)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: the device module does not verify: %.600s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  LLVMDisposeMessage(err);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(g->DM, "default<O3>", g->dtm, po);
  LLVMDisposePassBuilderOptions(po);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM optimization of the device code failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return false;
  }
  if (!check_resolved(g)) return false; /* after NVVMReflect, which resolves __nvvm_reflect */
  if (keep_ir) {
    char *ir = LLVMPrintModuleToString(g->DM);
    sc_file_write_atomic(g->ctx, sc_arena_printf(&g->ctx->arena, "%s/model_device.ll", outdir), ir, strlen(ir));
    LLVMDisposeMessage(ir);
  }
  LLVMMemoryBufferRef ptx;
  if (LLVMTargetMachineEmitToMemoryBuffer(g->dtm, g->DM, LLVMAssemblyFile, &err, &ptx)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "PTX generation failed: %s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  const char *text = LLVMGetBufferStart(ptx);
  size_t len = LLVMGetBufferSize(ptx);
  while (len && text[len - 1] == 0) len--;
  /* model.ptx beside the library, for ptxas and for people; the library embeds its own copy */
  bool ok = sc_file_write_atomic(g->ctx, sc_arena_printf(&g->ctx->arena, "%s/model.ptx", outdir), text, len);
  LLVMValueRef init = LLVMConstStringInContext2(g->C, text, len, 0); /* NUL-terminated, as the driver needs */
  LLVMDisposeMemoryBuffer(ptx);
  LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMTypeOf(init), "sc_cuda_ptx");
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMReplaceAllUsesWith(g->ptx, gv);
  LLVMDeleteGlobal(g->ptx);
  g->ptx = gv;
  return ok;
}
