/* cuda_target.c - the device half of a CUDA model library: an NVPTX module beside the host
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

#include "backends/cuda/cuda_target.h"
#include "backends/cuda/kernel_cache.h"
#include "backends/library.h"
#include "lib/base/fileio.h"

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

/* The host's references to the two PTX texts, filled in by cuda_target_finish. */
static void add_placeholders(cg *g) {
  LLVMValueRef *slots[2] = {&g->ptx, &g->ptx_kernels};
  for (int i = 0; i < 2; i++) {
    *slots[i] = LLVMAddGlobal(g->M, LLVMArrayType2(g->i8, 1), "sc_cuda_ptx_placeholder");
    LLVMSetLinkage(*slots[i], LLVMInternalLinkage);
    LLVMSetInitializer(*slots[i], LLVMConstNull(LLVMArrayType2(g->i8, 1)));
  }
}

bool cuda_target_open(cg *g, const char *arch) {
  g->cuda_arch = arch;
  if (g->emulate) { /* --cuda-emulate: the device code is host code, linked into the host module */
    g->DM = LLVMModuleCreateWithNameInContext("model_device", g->C);
    LLVMSetTarget(g->DM, LLVMGetTarget(g->M));
    LLVMSetDataLayout(g->DM, LLVMGetDataLayoutStr(g->M));
    add_placeholders(g);
    return true;
  }
  init_nvptx();
  const char *triple = "nvptx64-nvidia-cuda";
  char *err = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "this LLVM has no NVPTX target: %s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  g->dtm = LLVMCreateTargetMachine(target, triple, arch, "", LLVMCodeGenLevelAggressive, LLVMRelocDefault,
                                   LLVMCodeModelDefault);
  if (!g->dtm) return cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM cannot build for CUDA %s", arch);
  g->DM = LLVMModuleCreateWithNameInContext("model_device", g->C);
  LLVMSetTarget(g->DM, triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(g->dtm);
  LLVMSetModuleDataLayout(g->DM, dl);
  LLVMDisposeTargetData(dl);
  add_placeholders(g);
  return true;
}

void cuda_target_close(cg *g) {
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

/* Links a library module into m so that only what m calls survives: its definitions
 * become linkonce_odr (dropped when unused) and internal once linked. */
static bool link_library(cg *g, LLVMModuleRef m, LLVMModuleRef lib, const char *prefix) {
  adopt(g, lib);
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  if (LLVMLinkModules2(m, lib)) return cg_error(g, SC_DIAG_CODEGEN, NULL, "linking %s into the device code failed", prefix);
  size_t n = strlen(prefix);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) && strncmp(name, prefix, n) == 0) LLVMSetLinkage(f, LLVMInternalLinkage);
  }
  return true;
}

/* Every call left must be an intrinsic: anything else would fail in ptxas. */
static bool check_resolved(cg *g, LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f) && LLVMGetFirstUse(f))
      return cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: the device code calls %s, which neither libdevice nor "
                      "shapec's device kernels define", name);
  }
  return true;
}

/* --cuda-emulate: the fused kernels join the host module, listed in the table the
 * emulated launcher (backends/cuda/emulate/emulate.c) looks names up in. */
static bool finish_emulated(cg *g) {
  const char *names[1024];
  int n = g->n_emu_kernels < 1024 ? g->n_emu_kernels : 1024;
  for (int i = 0; i < n; i++) {
    size_t len;
    names[i] = sc_arena_strdup(&g->ctx->arena, LLVMGetValueName2(g->emu_kernels[i], &len));
  }
  free(g->emu_kernels);
  g->emu_kernels = NULL;
  if (LLVMLinkModules2(g->M, g->DM)) return cg_error(g, SC_DIAG_CODEGEN, NULL, "linking the emulated device code failed");
  g->DM = NULL; /* consumed by the link */
  LLVMTypeRef entry_fields[2] = {g->ptr, g->ptr};
  LLVMTypeRef entry_t = LLVMStructTypeInContext(g->C, entry_fields, 2, 0);
  LLVMValueRef *entries = sc_xcalloc((size_t)n + 1, sizeof *entries);
  for (int i = 0; i < n; i++) {
    LLVMValueRef fn = LLVMGetNamedFunction(g->M, names[i]);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMValueRef s = LLVMConstStringInContext2(g->C, names[i], strlen(names[i]), 0);
    LLVMValueRef gs = LLVMAddGlobal(g->M, LLVMTypeOf(s), "emu_name");
    LLVMSetInitializer(gs, s);
    LLVMSetGlobalConstant(gs, 1);
    LLVMSetLinkage(gs, LLVMPrivateLinkage);
    LLVMValueRef fields[2] = {gs, fn};
    entries[i] = LLVMConstNamedStruct(entry_t, fields, 2);
  }
  LLVMValueRef table = LLVMAddGlobal(g->M, LLVMArrayType2(entry_t, (uint64_t)(n ? n : 1)), "sc_emu_generated");
  LLVMValueRef empty[2] = {LLVMConstNull(g->ptr), LLVMConstNull(g->ptr)};
  LLVMValueRef none = LLVMConstNamedStruct(entry_t, empty, 2);
  LLVMSetInitializer(table, LLVMConstArray2(entry_t, n ? entries : &none, (uint64_t)(n ? n : 1)));
  LLVMSetGlobalConstant(table, 1);
  LLVMSetVisibility(table, LLVMHiddenVisibility);
  free(entries);
  LLVMValueRef count = LLVMAddGlobal(g->M, g->i64, "sc_emu_generated_count");
  LLVMSetInitializer(count, cg_i64(g, n));
  LLVMSetGlobalConstant(count, 1);
  LLVMSetVisibility(count, LLVMHiddenVisibility);
  if (g->n_emu_kernels > 1024) return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, NULL, "--cuda-emulate: more than 1024 fused kernels");
  LLVMValueRef init = LLVMConstStringInContext2(g->C, "host-emulation", 14, 0);
  LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMTypeOf(init), "sc_cuda_ptx");
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMValueRef *slots[2] = {&g->ptx, &g->ptx_kernels};
  for (int i = 0; i < 2; i++) {
    LLVMReplaceAllUsesWith(*slots[i], gv);
    LLVMDeleteGlobal(*slots[i]);
    *slots[i] = gv;
  }
  return true;
}

/* Links libdevice into m, optimizes it and prints its PTX into *ptx (NULL on failure);
 * with keep_ir also writes OUTDIR/<name>.ll. */
static LLVMMemoryBufferRef compile_ptx(cg *g, LLVMModuleRef m, const char *outdir, const char *name, bool keep_ir) {
  const char *libdevice = find_libdevice(g);
  if (!libdevice) {
    cg_error(g, SC_DIAG_FILE_READ, NULL, "--target cuda needs libdevice.10.bc from the CUDA toolkit (its math "
             "functions) and found none under $CUDA_HOME, /usr/local/cuda or /usr/lib/cuda; install the toolkit or point "
             "SHAPEC_LIBDEVICE at the file");
    return NULL;
  }
  LLVMMemoryBufferRef buf;
  char *err = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(libdevice, &buf, &err)) {
    /* the machine's setup, not shapec's failure: exit 3 with where to look */
    cg_error(g, SC_DIAG_FILE_READ, NULL, "cannot read %s: %s; --target cuda needs libdevice.10.bc from the CUDA toolkit "
             "(%s): point SHAPEC_LIBDEVICE or CUDA_HOME at it, or install the toolkit", libdevice, err,
             getenv("SHAPEC_LIBDEVICE") && *getenv("SHAPEC_LIBDEVICE") ? "SHAPEC_LIBDEVICE names this file" : "found here");
    LLVMDisposeMessage(err);
    return NULL;
  }
  LLVMModuleRef ld = NULL;
  bool bad = LLVMParseBitcodeInContext2(g->C, buf, &ld);
  LLVMDisposeMemoryBuffer(buf);
  if (bad) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "%s is not bitcode this LLVM reads", libdevice);
    return NULL;
  }
  if (!link_library(g, m, ld, "__nv_")) return NULL;
  /* exact math, as torch's CUDA kernels do by default: no flush of denormals to zero */
  LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16, LLVMValueAsMetadata(LLVMConstInt(g->i32, 0, 0)));
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &err)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: the device module does not verify: %.600s", err);
    LLVMDisposeMessage(err);
    return NULL;
  }
  LLVMDisposeMessage(err);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, "default<O3>", g->dtm, po);
  LLVMDisposePassBuilderOptions(po);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM optimization of the device code failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return NULL;
  }
  if (!check_resolved(g, m)) return NULL; /* after NVVMReflect, which resolves __nvvm_reflect */
  if (keep_ir) {
    char *ir = LLVMPrintModuleToString(m);
    sc_file_write_atomic(g->ctx, sc_arena_printf(&g->ctx->arena, "%s/%s.ll", outdir, name), ir, strlen(ir));
    LLVMDisposeMessage(ir);
  }
  LLVMMemoryBufferRef ptx;
  if (LLVMTargetMachineEmitToMemoryBuffer(g->dtm, m, LLVMAssemblyFile, &err, &ptx)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "PTX generation failed: %s", err);
    LLVMDisposeMessage(err);
    return NULL;
  }
  return ptx;
}

/* Writes OUTDIR/<file> (for ptxas and for people) and replaces the host's placeholder
 * with the PTX text, NUL-terminated as the driver needs. */
static bool install_ptx_text(cg *g, const char *text, size_t len, const char *outdir, const char *file,
                             LLVMValueRef *slot) {
  while (len && text[len - 1] == 0) len--;
  bool ok = sc_file_write_atomic(g->ctx, sc_arena_printf(&g->ctx->arena, "%s/%s", outdir, file), text, len);
  LLVMValueRef init = LLVMConstStringInContext2(g->C, text, len, 0);
  LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMTypeOf(init), "sc_cuda_ptx");
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMReplaceAllUsesWith(*slot, gv);
  LLVMDeleteGlobal(*slot);
  *slot = gv;
  return ok;
}

static bool install_ptx(cg *g, LLVMMemoryBufferRef ptx, const char *outdir, const char *file, LLVMValueRef *slot) {
  bool ok = install_ptx_text(g, LLVMGetBufferStart(ptx), LLVMGetBufferSize(ptx), outdir, file, slot);
  LLVMDisposeMemoryBuffer(ptx);
  return ok;
}

/* shapec's device kernels, all of them (the launchers pick them by name): the same PTX for
 * every model of one --cuda-arch, kept apart so that it is assembled on its own, and
 * taken from the kernel cache where an earlier export left it (kernel_cache.h); with
 * --emit-llvm always compiled, for its model_kernels.ll. */
static bool finish_kernels(cg *g, const char *outdir, bool keep_ir) {
  const char *libdevice = find_libdevice(g);
  sc_kernel_cache cache = {NULL};
  if (libdevice && !keep_ir)
    cache = sc_kernel_cache_open(g->ctx, g->cuda_arch, sc_cuda_device_bc, sc_cuda_device_bc_size, libdevice);
  size_t len;
  char *cached = sc_kernel_cache_read(&cache, &len);
  if (cached) {
    if (g->ctx->verbose) fprintf(stderr, "shapec: CUDA device kernels from the cache: %s\n", cache.path);
    bool ok = install_ptx_text(g, cached, len, outdir, "model_kernels.ptx", &g->ptx_kernels);
    free(cached);
    return ok;
  }
  LLVMModuleRef kernels = parse_bitcode(g, sc_cuda_device_bc, sc_cuda_device_bc_size, "shapec's device kernels");
  if (!kernels) return false;
  adopt(g, kernels);
  LLVMMemoryBufferRef ptx = compile_ptx(g, kernels, outdir, "model_kernels", keep_ir);
  LLVMDisposeModule(kernels);
  if (!ptx) return false;
  size_t size = LLVMGetBufferSize(ptx);
  while (size && LLVMGetBufferStart(ptx)[size - 1] == 0) size--;
  sc_kernel_cache_write(g->ctx, &cache, LLVMGetBufferStart(ptx), size);
  if (g->ctx->verbose && cache.path) fprintf(stderr, "shapec: CUDA device kernels compiled, cached as %s\n", cache.path);
  return install_ptx(g, ptx, outdir, "model_kernels.ptx", &g->ptx_kernels);
}

bool cuda_target_finish(cg *g, const char *outdir, bool keep_ir) {
  if (g->emulate) return finish_emulated(g);
  /* the model's fused kernels: model.ptx */
  LLVMMemoryBufferRef ptx = compile_ptx(g, g->DM, outdir, "model_device", keep_ir);
  if (!ptx || !install_ptx(g, ptx, outdir, "model.ptx", &g->ptx)) return false;
  return finish_kernels(g, outdir, keep_ir);
}
