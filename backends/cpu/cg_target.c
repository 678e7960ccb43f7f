/* cg_target.c - the LLVM side of the CPU backend: target machine, module, IR helpers,
 * optimization, object emission and the link into model.so (ld.lld-19 as a subprocess,
 * with the embedded kernel library and OpenBLAS). */
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg_internal.h"
#include "lib/fileio.h"
#include "lib/report.h"

extern const unsigned char sc_kernels_archive[];
extern const size_t sc_kernels_archive_size;
/* the same with the emulated CUDA driver (--cuda-emulate) */
extern const unsigned char sc_kernels_emulated_archive[];
extern const size_t sc_kernels_emulated_archive_size;
extern char **environ;

bool cg_error(cg *g, sc_diag_code code, const char *path, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sc_diags_add(&g->ctx->diags, code, SC_SEV_ERROR, g->p->file, path, "%s", msg);
  g->failed = true;
  return false;
}

LLVMValueRef cg_function(cg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, bool vararg) {
  LLVMValueRef f = LLVMGetNamedFunction(g->M, name);
  if (f) return f;
  return LLVMAddFunction(g->M, name, LLVMFunctionType(ret, params, n, vararg));
}

/* The CUDA path calls the runtime's launch wrappers (backends/cuda/runtime/ops.c), which
 * take the CPU kernels' arguments with device pointers, and allocates device memory. */
static const char *cuda_name(cg *g, const char *name) {
  if (strncmp(name, "sc_k_", 5) == 0) return sc_arena_printf(&g->ctx->arena, "sc_cu_%s", name + 5);
  if (strcmp(name, "sc_rt_alloc") == 0) return "sc_cu_alloc";
  if (strcmp(name, "sc_rt_free") == 0) return "sc_cu_free";
  return name;
}

LLVMValueRef cg_call(cg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, LLVMValueRef *args,
                     unsigned nargs, bool vararg) {
  if (g->cuda && !g->device) name = cuda_name(g, name);
  LLVMValueRef f = cg_function(g, name, ret, params, n, vararg);
  return LLVMBuildCall2(g->B, LLVMFunctionType(ret, params, n, vararg), f, args, nargs, "");
}

LLVMValueRef cg_i64(cg *g, int64_t v) { return LLVMConstInt(g->i64, (unsigned long long)v, 1); }

LLVMValueRef cg_cstr(cg *g, const char *s) { return LLVMBuildGlobalStringPtr(g->B, s, "str"); }

LLVMBasicBlockRef cg_block(cg *g, const char *name) { return LLVMAppendBasicBlockInContext(g->C, g->fn, name); }

void cg_fail_if(cg *g, LLVMValueRef cond, LLVMValueRef rc_value) {
  LLVMBasicBlockRef fail = cg_block(g, "fail"), ok = cg_block(g, "ok");
  LLVMBuildCondBr(g->B, cond, fail, ok);
  LLVMPositionBuilderAtEnd(g->B, fail);
  LLVMBuildStore(g->B, rc_value, g->rc_slot);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

void cg_fail_msg_if(cg *g, LLVMValueRef cond, const char *fmt, LLVMValueRef *args, unsigned n) {
  LLVMBasicBlockRef fail = cg_block(g, "fail"), ok = cg_block(g, "ok");
  LLVMBuildCondBr(g->B, cond, fail, ok);
  LLVMPositionBuilderAtEnd(g->B, fail);
  LLVMValueRef call_args[24] = {g->err, g->errlen, cg_cstr(g, fmt)};
  for (unsigned i = 0; i < n && i < 21; i++) call_args[3 + i] = args[i];
  LLVMTypeRef params[3] = {g->ptr, g->i64, g->ptr};
  LLVMValueRef rc = cg_call(g, "sc_rt_fail", g->i32, params, 3, call_args, 3 + n, true);
  LLVMBuildStore(g->B, rc, g->rc_slot);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

/* ---- target ------------------------------------------------------------------------- */

static void init_llvm(void) {
  static bool done;
  if (done) return;
  done = true;
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  /* process-global: vectorized exp/log/sin/cos/pow go to glibc's libmvec */
  const char *argv[] = {"shapec", "-vector-library=LIBMVEC-X86"};
  LLVMParseCommandLineOptions(2, argv, NULL);
}

/* Whether a comma-separated LLVM feature string enables `name` ("+avx512f" exactly, not
 * "+avx512fp16"). */
static bool feature_on(const char *features, const char *name) {
  size_t n = strlen(name);
  for (const char *p = features; p && *p;) {
    size_t len = strcspn(p, ",");
    if (len == n + 1 && p[0] == '+' && strncmp(p + 1, name, n) == 0) return true;
    p += len + (p[len] == ',');
  }
  return false;
}

static const char *const checked_features[] = {"sse4.2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512bw",
                                               "avx512dq", "avx512vl", "avx512cd"};

/* The instruction sets the library will use, among those the runtime can check. */
static const char *features_csv(sc_ctx *ctx, const char *features) {
  sc_strbuf sb = {0};
  for (size_t i = 0; i < sizeof checked_features / sizeof checked_features[0]; i++)
    if (feature_on(features, checked_features[i])) {
      if (sb.len) sc_strbuf_append(&sb, ",");
      sc_strbuf_append(&sb, checked_features[i]);
    }
  const char *s = sc_arena_strdup(&ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return s;
}

/* --cpu NAME: the instruction sets each accepted name implies, as LLVM feature strings.
 * The C API cannot ask LLVM what a CPU name implies, and a name LLVM does not know makes
 * it abort, so shapec accepts the names it can check at run time. */
static const struct {
  const char *name;
  const char *features;
} named_cpus[] = {
    {"x86-64", ""},
    {"x86-64-v2", "+sse4.2"},
    {"x86-64-v3", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2"},
    {"x86-64-v4", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2,+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx512cd"},
    {"haswell", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2"},
    {"skylake", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2"},
    {"znver2", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2"},
    {"znver3", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2"},
    {"skylake-avx512", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2,+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx512cd"},
    {"icelake-server", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2,+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx512cd"},
    {"sapphirerapids", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2,+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx512cd"},
    {"znver4", "+sse4.2,+avx,+avx2,+fma,+f16c,+bmi2,+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx512cd"},
};

const char *sc_cpu_known_names(void) {
  static char list[512];
  if (!list[0])
    for (size_t i = 0; i < sizeof named_cpus / sizeof named_cpus[0]; i++) {
      if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
      strncat(list, named_cpus[i].name, sizeof list - strlen(list) - 1);
    }
  return list;
}

bool sc_cpu_is_known(const char *name) {
  for (size_t i = 0; i < sizeof named_cpus / sizeof named_cpus[0]; i++)
    if (strcmp(name, named_cpus[i].name) == 0) return true;
  return false;
}

/* The LLVM CPU and feature string for --cpu NAME (NULL: the host); false for an unknown name. */
static bool named_cpu(const char *name, const char **cpu, const char **features) {
  for (size_t i = 0; i < sizeof named_cpus / sizeof named_cpus[0]; i++)
    if (strcmp(name, named_cpus[i].name) == 0) {
      /* the x86-64-vN levels are feature sets on the generic CPU model */
      *cpu = strncmp(name, "x86-64", 6) == 0 ? "x86-64" : name;
      *features = named_cpus[i].features;
      return true;
    }
  return false;
}

static bool create_target(cg *g, const char *cpu_name) {
  char *triple = LLVMGetDefaultTargetTriple();
  char *err = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM has no target for %s: %s", triple, err);
    LLVMDisposeMessage(err);
    LLVMDisposeMessage(triple);
    return false;
  }
  char *host_cpu = LLVMGetHostCPUName(), *host_features = LLVMGetHostCPUFeatures();
  const char *cpu = host_cpu, *features = host_features;
  if (cpu_name && !named_cpu(cpu_name, &cpu, &features)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "--cpu %s: not a CPU shapec knows; use one of: %s (or leave --cpu out for this "
                                       "machine's CPU)", cpu_name, sc_cpu_known_names());
    LLVMDisposeMessage(host_cpu);
    LLVMDisposeMessage(host_features);
    LLVMDisposeMessage(triple);
    return false;
  }
  g->tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                  LLVMCodeModelDefault);
  g->cpu_features = features_csv(g->ctx, features);
  LLVMSetTarget(g->M, triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(g->tm);
  LLVMSetModuleDataLayout(g->M, dl);
  LLVMDisposeTargetData(dl);
  LLVMDisposeMessage(host_cpu);
  LLVMDisposeMessage(host_features);
  LLVMDisposeMessage(triple);
  return g->tm != NULL;
}

/* ---- weights and strings ---------------------------------------------------------- */

enum { WEIGHTS_HEADER = 64 }; /* runtime/weights.c reads this layout */

/* The weights as one 64-byte aligned blob: a read-only global in the library, or with
 * --external-weights the side file OUTDIR/model.weights. */
static void emit_weights(cg *g) {
  size_t total = 0;
  g->weight_offsets = sc_arena_alloc(&g->ctx->arena, (g->p->n_input_specs ? g->p->n_input_specs : 1) * sizeof(size_t));
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    const sc_input_spec *s = &g->p->input_specs[i];
    const sc_weight *w = (s->kind == SC_INPUT_PARAMETER || s->kind == SC_INPUT_BUFFER ||
                          s->kind == SC_INPUT_TENSOR_CONSTANT) ? sc_weights_find(g->w, s->target) : NULL;
    g->weight_offsets[i] = (size_t)-1;
    if (!w) continue;
    g->weight_offsets[i] = total;
    total += (w->nbytes + 63) / 64 * 64;
  }
  g->weights_total = total;
  size_t at = g->external_path ? WEIGHTS_HEADER : 0;
  unsigned char *buf = sc_xcalloc(1, at + (total ? total : 1)), *blob = buf + at;
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    if (g->weight_offsets[i] == (size_t)-1) continue;
    const sc_weight *w = sc_weights_find(g->w, g->p->input_specs[i].target);
    memcpy(blob + g->weight_offsets[i], w->data, w->nbytes);
  }
  if (g->external_path) {
    /* the side file: header (magic, id = a hash of the blob, size), then the blob */
    uint64_t id = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < total; i++) id = (id ^ blob[i]) * 0x100000001b3ull;
    g->weights_id = id;
    g->weights_size = total;
    memcpy(buf, "SHAPECW1", 8);
    for (int k = 0; k < 8; k++) {
      buf[8 + k] = (unsigned char)(id >> (8 * k));
      buf[16 + k] = (unsigned char)((uint64_t)total >> (8 * k));
    }
    bool ok = sc_file_write_atomic(g->ctx, g->external_path, buf, at + total);
    free(buf);
    if (!ok) g->failed = true;
    return;
  }
  LLVMValueRef init = LLVMConstStringInContext2(g->C, (const char *)blob, total ? total : 1, 1);
  free(buf);
  g->weights = LLVMAddGlobal(g->M, LLVMTypeOf(init), "shapec_weights");
  LLVMSetInitializer(g->weights, init);
  LLVMSetGlobalConstant(g->weights, 1);
  LLVMSetAlignment(g->weights, 64);
  LLVMSetLinkage(g->weights, LLVMInternalLinkage);
}

/* const char *name(void) { return "..."; } */
static void emit_string_getter(cg *g, const char *name, const char *text) {
  LLVMValueRef init = LLVMConstStringInContext2(g->C, text, strlen(text), 0);
  LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMTypeOf(init), "shapec_str");
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  LLVMValueRef f = LLVMAddFunction(g->M, name, LLVMFunctionType(g->ptr, NULL, 0, 0));
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, f, "entry"));
  LLVMBuildRet(g->B, gv);
}

/* ---- emission and link ---------------------------------------------------------------- */

static bool write_temp(cg *g, const char *path, const void *data, size_t len) {
  return sc_file_write_atomic(g->ctx, path, data, len);
}


/* Runs argv; on failure records the tool's stderr. */
static bool run_tool(cg *g, char *const argv[]) {
  char errpath[1100];
  sc_temp_template(errpath, sizeof errpath, "shapec-link");
  int fd = mkstemp(errpath);
  if (fd < 0)
    return cg_error(g, SC_DIAG_LINK, NULL, "cannot create the temporary file %s: %s (set TMPDIR to a writable directory)",
                    errpath, strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd, 2);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  bool ok = rc == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    char out[1500] = "";
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, out, sizeof out - 1);
    out[n > 0 ? n : 0] = '\0';
    if (rc != 0) cg_error(g, SC_DIAG_LINK, NULL, "cannot run %s: %s (install lld-19)", argv[0], strerror(rc));
    else cg_error(g, SC_DIAG_LINK, NULL, "%s failed: %s", argv[0], out);
  }
  close(fd);
  unlink(errpath);
  return ok;
}

/* Declared vector variants are only referenced from call-site attributes: list them in
 * llvm.compiler.used so that the optimizer keeps them until the vectorizer calls them. */
static void emit_compiler_used(cg *g) {
  if (!g->n_used) return;
  LLVMTypeRef at = LLVMArrayType2(g->ptr, (uint64_t)g->n_used);
  LLVMValueRef used = LLVMAddGlobal(g->M, at, "llvm.compiler.used");
  LLVMSetLinkage(used, LLVMAppendingLinkage);
  LLVMSetSection(used, "llvm.metadata");
  LLVMSetInitializer(used, LLVMConstArray2(g->ptr, g->used, (uint64_t)g->n_used));
}

/* The run function of a large model is one long straight line of kernel calls and size
 * arithmetic (its hot loops live in outlined functions).  LLVM's register allocator is
 * superlinear on it: 38 s for mobilenet_v2 at O3.  Past a size where optimizing it buys
 * nothing measurable, it is compiled without optimization instead. */
enum { RUN_OPT_LIMIT = 6000 };

static void bound_compile_time(cg *g) {
  /* the entry points of both paths (sc_cpu_run, sc_cuda_run, ...) and any other giant */
  for (LLVMValueRef fn = LLVMGetFirstFunction(g->M); fn; fn = LLVMGetNextFunction(fn)) {
    long count = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b && count <= RUN_OPT_LIMIT; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) count++;
    if (count <= RUN_OPT_LIMIT) continue;
    static const char *const attrs[] = {"optnone", "noinline"};
    for (int i = 0; i < 2; i++)
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateEnumAttribute(g->C, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
  }
}

static bool emit_and_link(cg *g, const char *so_path) {
  char *err = NULL;
  emit_compiler_used(g);
  bound_compile_time(g);
  if (LLVMVerifyModule(g->M, LLVMReturnStatusAction, &err)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: the generated module does not verify: %.600s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  LLVMDisposeMessage(err);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(g->M, "default<O3>", g->tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM optimization failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return false;
  }
  LLVMMemoryBufferRef obj;
  if (LLVMTargetMachineEmitToMemoryBuffer(g->tm, g->M, LLVMObjectFile, &err, &obj)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM code generation failed: %s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  char dir[1100];
  sc_temp_template(dir, sizeof dir, "shapec-build");
  if (!mkdtemp(dir)) {
    LLVMDisposeMemoryBuffer(obj);
    return cg_error(g, SC_DIAG_LINK, NULL, "cannot create the temporary directory %s: %s (set TMPDIR to a writable "
                                           "directory)", dir, strerror(errno));
  }
  char o_path[1200], a_path[1200], tmp_so[1200];
  snprintf(o_path, sizeof o_path, "%s/model.o", dir);
  snprintf(a_path, sizeof a_path, "%s/kernels.a", dir);
  snprintf(tmp_so, sizeof tmp_so, "%s.tmp.%ld", so_path, (long)getpid());
  bool ok = write_temp(g, o_path, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj)) &&
            (g->emulate ? write_temp(g, a_path, sc_kernels_emulated_archive, sc_kernels_emulated_archive_size)
                        : write_temp(g, a_path, sc_kernels_archive, sc_kernels_archive_size));
  LLVMDisposeMemoryBuffer(obj);
  if (ok) {
    char *argv[] = {"ld.lld-19", "-shared", "-soname", "model.so", "-z", "now", "-z", "noexecstack", "-z", "defs",
                    /* nodelete: the pool's workers live as long as the process */
                    "-z", "nodelete", "-u", "shapec_model_set_num_threads", "-u", "shapec_model_get_num_threads",
                    "-u", "shapec_model_set_weights_path", "-u", "shapec_model_release_workspace",
                    "--gc-sections", "-o", tmp_so, o_path, a_path, "-L/usr/lib/x86_64-linux-gnu",
                    "-L/lib/x86_64-linux-gnu", "--as-needed", "-lmvec", "-lm", "-lc", NULL};
    ok = run_tool(g, argv) && rename(tmp_so, so_path) == 0;
    if (!ok) unlink(tmp_so);
  }
  unlink(o_path);
  unlink(a_path);
  rmdir(dir);
  return ok;
}

bool sc_cpu_compile(sc_ctx *ctx, const sc_program *p, const sc_analysis *a, const sc_weights *w,
                    const sc_cpu_options *opts) {
  init_llvm();
  cg g = {.ctx = ctx, .p = p, .a = a, .w = w};
  sc_strmap_init(&g.values, &ctx->arena);
  g.C = LLVMContextCreate();
  g.M = LLVMModuleCreateWithNameInContext("model", g.C);
  g.B = LLVMCreateBuilderInContext(g.C);
  g.i1 = LLVMInt1TypeInContext(g.C);
  g.i8 = LLVMInt8TypeInContext(g.C);
  g.i16 = LLVMInt16TypeInContext(g.C);
  g.i32 = LLVMInt32TypeInContext(g.C);
  g.i64 = LLVMInt64TypeInContext(g.C);
  g.f32 = LLVMFloatTypeInContext(g.C);
  g.f64 = LLVMDoubleTypeInContext(g.C);
  g.ptr = LLVMPointerTypeInContext(g.C, 0);
  g.voidt = LLVMVoidTypeInContext(g.C);
  LLVMTypeRef dev[2] = {g.i32, g.i32}, dt[3] = {g.i8, g.i8, g.i16};
  LLVMTypeRef fields[7] = {g.ptr, LLVMStructTypeInContext(g.C, dev, 2, 0), g.i32, LLVMStructTypeInContext(g.C, dt, 3, 0),
                           g.ptr, g.ptr, g.i64};
  g.tensor_t = LLVMStructTypeInContext(g.C, fields, 7, 0);
  bool ok = create_target(&g, opts->cpu);
  g.emulate = opts->target_cuda && opts->cuda_emulate;
  if (ok && opts->target_cuda) ok = cu_open(&g, opts->cuda_arch ? opts->cuda_arch : "sm_80");
  g.has_cpu = !opts->target_cuda || opts->target_cpu;
  g.has_cuda = opts->target_cuda;
  if (ok) {
    if (opts->external_weights)
      g.external_path = sc_arena_printf(&ctx->arena, "%s/model.weights", opts->outdir);
    emit_weights(&g);
    emit_string_getter(&g, "shapec_model_report", opts->report_json ? opts->report_json : "{}");
    emit_string_getter(&g, "shapec_model_cpu_features", g.cpu_features);
    if (g.has_cuda) emit_string_getter(&g, "shapec_model_cuda_arch", g.emulate ? "host-emulation" : g.cuda_arch);
    ok = cg_emit_entry_points(&g) && !g.failed;
    if (ok && g.has_cuda) ok = cu_finish(&g, opts->outdir, opts->keep_ir) && !g.failed;
  }
  const char *so_path = sc_arena_printf(&ctx->arena, "%s/model.so", opts->outdir);
  if (ok && opts->keep_ir) {
    char *ir = LLVMPrintModuleToString(g.M);
    sc_file_write_atomic(ctx, sc_arena_printf(&ctx->arena, "%s/model.ll", opts->outdir), ir, strlen(ir));
    LLVMDisposeMessage(ir);
  }
  if (ok) ok = emit_and_link(&g, so_path);
  if (ok) ok = cg_write_header(ctx, p, sc_arena_printf(&ctx->arena, "%s/model.h", opts->outdir));
  LLVMDisposeBuilder(g.B);
  cu_close(&g);
  LLVMDisposeModule(g.M);
  if (g.tm) LLVMDisposeTargetMachine(g.tm);
  LLVMContextDispose(g.C);
  return ok;
}
