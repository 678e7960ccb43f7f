/* cpu_target.c - the CPU as LLVM's target: the target machine for the host or a named
 * CPU (and the instruction sets the library checks at run time), optimization, object
 * emission, and the link into model.so (ld.lld-19 as a subprocess, with the runtime
 * archive and OpenBLAS).  Every library's host code goes through here, also that of a
 * library whose tensors live on a GPU. */
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/cpu/cold_split.h"
#include "backends/cpu/stream_stores.h"
#include "lib/base/phase.h"
#include "backends/cpu/cpu_target.h"
#include "backends/cpu/weights_object.h"
#include "backends/library.h"
#include "lib/base/fileio.h"

extern char **environ;

static void init_host_llvm(void) {
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

bool cpu_target_open(cg *g, const char *cpu_name) {
  init_host_llvm();
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
  g->tm_cold = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelNone, LLVMRelocPIC,
                                       LLVMCodeModelDefault);
  g->cpu_features = features_csv(g->ctx, features);
  g->cpu_name = sc_arena_strdup(&g->ctx->arena, cpu);
  LLVMSetTarget(g->M, triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(g->tm);
  LLVMSetModuleDataLayout(g->M, dl);
  LLVMDisposeTargetData(dl);
  LLVMDisposeMessage(host_cpu);
  LLVMDisposeMessage(host_features);
  LLVMDisposeMessage(triple);
  return g->tm != NULL && g->tm_cold != NULL;
}


/* ---- emission and link ---------------------------------------------------------------- */

/* A file of the build folder, read once by the linker and removed: no sync to disk. */
static bool write_temp(cg *g, const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(data, 1, len, f) == len;
  int saved = errno;
  if (f && fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok) return true;
  unlink(path);
  return cg_error(g, SC_DIAG_LINK, NULL, "cannot write %s: %s%s", path, strerror(saved),
                  saved == ENOSPC ? " (free some space and export again; the previous outputs are kept)" : "");
}

/* Runs a tool (the linker) with its output captured in DIR/tool-XXXXXX; on failure the error
 * says what it printed up to its crash trace, or plainly that the disk is full. */
static bool run_tool(cg *g, const char *dir, char *const argv[]) {
  char errpath[1200];
  snprintf(errpath, sizeof errpath, "%s/tool-XXXXXX", dir);
  int fd = mkstemp(errpath);
  if (fd < 0)
    return cg_error(g, SC_DIAG_LINK, NULL, "cannot create the temporary file %s: %s",
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
    char *trace = strstr(out, "PLEASE submit");
    if (!trace) trace = strstr(out, "Stack dump");
    if (trace) *trace = '\0';
    struct statvfs vfs;
    bool full = strstr(out, "No space left") || (statvfs(dir, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < (64u << 20));
    if (rc != 0) cg_error(g, SC_DIAG_LINK, NULL, "cannot run %s: %s (install lld-19)", argv[0], strerror(rc));
    else if (full) cg_error(g, SC_DIAG_LINK, NULL, "cannot write the library in %s: No space left on device (free some "
                                                   "space and export again; the previous outputs are kept)", dir);
    else cg_error(g, SC_DIAG_LINK, NULL, "%s failed: %s", argv[0], out);
  }
  close(fd);
  unlink(errpath);
  return ok;
}

bool cpu_target_link(cg *g, const char *so_path, const void *runtime, size_t runtime_size) {
  char *err = NULL;
  if (LLVMVerifyModule(g->M, LLVMReturnStatusAction, &err)) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: the generated module does not verify: %.600s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  LLVMDisposeMessage(err);
  /* the giant entry functions leave before O3: its module passes (interprocedural constant
   * propagation, loop analysis) would otherwise walk them, although they stay unoptimized */
  double t = sc_phase_start();
  LLVMModuleRef cold = sc_split_cold_functions(g->M);
  if (cold) sc_phase_end(g->ctx, "entry functions apart", t);
  t = sc_phase_start();
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(g->M, "default<O3>", g->tm, po);
  LLVMDisposePassBuilderOptions(po);
  sc_phase_end(g->ctx, "LLVM optimization (O3)", t);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM optimization failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    if (cold) LLVMDisposeModule(cold);
    return false;
  }
  if (!cg_gelu_table_inline(g, g->tm)) {
    if (cold) LLVMDisposeModule(cold);
    return false;
  }
  sc_mark_streaming_stores(g->M);
  LLVMMemoryBufferRef obj, cold_obj = NULL;
  t = sc_phase_start();
  bool emitted = !LLVMTargetMachineEmitToMemoryBuffer(g->tm, g->M, LLVMObjectFile, &err, &obj);
  sc_phase_end(g->ctx, "LLVM code generation", t);
  if (emitted && cold) {
    t = sc_phase_start();
    emitted = !LLVMTargetMachineEmitToMemoryBuffer(g->tm_cold, cold, LLVMObjectFile, &err, &cold_obj);
    if (!emitted) LLVMDisposeMemoryBuffer(obj);
    sc_phase_end(g->ctx, "LLVM code generation of the entry functions (level none)", t);
  }
  if (cold) LLVMDisposeModule(cold);
  if (!emitted) {
    cg_error(g, SC_DIAG_CODEGEN, NULL, "LLVM code generation failed: %s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  /* the object and the runtime go beside the library (the export's staging folder, which a
   * killed export leaves for the next one to remove), not to TMPDIR */
  char dir[1100];
  const char *slash = strrchr(so_path, '/');
  snprintf(dir, sizeof dir, "%.*s/.build-XXXXXX", slash ? (int)(slash - so_path) : 1, slash ? so_path : ".");
  if (!mkdtemp(dir)) {
    LLVMDisposeMemoryBuffer(obj);
    if (cold_obj) LLVMDisposeMemoryBuffer(cold_obj);
    return cg_error(g, SC_DIAG_LINK, NULL, "cannot create the build directory %s: %s", dir, strerror(errno));
  }
  char o_path[1200], weights_path[1200], cold_path[1200], a_path[1200], tmp_so[1200];
  snprintf(o_path, sizeof o_path, "%s/model.o", dir);
  snprintf(weights_path, sizeof weights_path, "%s/model_weights.o", dir);
  snprintf(cold_path, sizeof cold_path, "%s/model_entry.o", dir);
  snprintf(a_path, sizeof a_path, "%s/kernels.a", dir);
  snprintf(tmp_so, sizeof tmp_so, "%s.tmp.%ld", so_path, (long)getpid());
  t = sc_phase_start();
  bool ok = cpu_write_weights_object(g, weights_path, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj));
  sc_phase_end(g->ctx, "weights object", t);
  ok = ok && write_temp(g, o_path, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj)) &&
       write_temp(g, a_path, runtime, runtime_size) &&
       (!cold_obj || write_temp(g, cold_path, LLVMGetBufferStart(cold_obj), LLVMGetBufferSize(cold_obj)));
  LLVMDisposeMemoryBuffer(obj);
  if (cold_obj) LLVMDisposeMemoryBuffer(cold_obj);
  /* --name: SONAME NAME.so, and only shapec_NAME_* exported (a version script hides the rest,
   * the runtime's own symbols included, so two models never bind to each other's) */
  char soname[300] = "model.so", script_path[1200] = "", script_arg[1300] = "";
  enum { N_RUNTIME_API = 8 };
  char *defsyms[N_RUNTIME_API] = {NULL};
  static const char *const runtime_api[N_RUNTIME_API] = {"set_num_threads", "get_num_threads", "get_active_threads",
                                                         "set_weights_path", "release_workspace", "num_weights",
                                                         "weight", "load_weights"};
  if (ok && g->library_name) {
    snprintf(soname, sizeof soname, "%s.so", g->library_name);
    snprintf(script_path, sizeof script_path, "%s/exports.map", dir);
    char script[400];
    int n = snprintf(script, sizeof script, "{ global: shapec_%s_*; local: *; };\n", g->library_name);
    ok = write_temp(g, script_path, script, (size_t)n);
    snprintf(script_arg, sizeof script_arg, "--version-script=%s", script_path);
    for (int k = 0; k < N_RUNTIME_API; k++)
      defsyms[k] = sc_arena_printf(&g->ctx->arena, "--defsym=shapec_%s_%s=shapec_model_%s", g->library_name, runtime_api[k],
                                   runtime_api[k]);
  }
  if (ok) {
    char *argv[] = {"ld.lld-19", "-shared", "-soname", soname, "-z", "now", "-z", "noexecstack", "-z", "defs",
                    /* nodelete: the pool's workers live as long as the process */
                    "-z", "nodelete", "-u", "shapec_model_set_num_threads", "-u", "shapec_model_get_num_threads",
                    "-u", "shapec_model_get_active_threads",
                    "-u", "shapec_model_set_weights_path", "-u", "shapec_model_release_workspace",
                    "-u", "shapec_model_num_weights", "-u", "shapec_model_weight", "-u", "shapec_model_load_weights",
                    "--gc-sections", "-o", tmp_so, o_path, weights_path, a_path, "-L/usr/lib/x86_64-linux-gnu",
                    "-L/lib/x86_64-linux-gnu", "--as-needed", "-lmvec", "-lm", "-lc", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (g->library_name) { /* appended: the version script and the runtime entry points' names */
      size_t end = 0;
      while (argv[end]) end++;
      argv[end++] = script_arg;
      for (int k = 0; k < N_RUNTIME_API; k++) argv[end++] = defsyms[k];
    }
    if (cold_obj) { /* the entry functions' object goes right after the module's */
      size_t at = 0, end = 0;
      while (argv[at] != o_path) at++;
      while (argv[end]) end++;
      memmove(&argv[at + 2], &argv[at + 1], (end - at) * sizeof *argv);
      argv[at + 1] = cold_path;
    }
    t = sc_phase_start();
    ok = run_tool(g, dir, argv) && rename(tmp_so, so_path) == 0;
    sc_phase_end(g->ctx, "link (ld.lld)", t);
    if (!ok) unlink(tmp_so);
  }
  unlink(o_path);
  unlink(weights_path);
  unlink(cold_path);
  if (*script_path) unlink(script_path);
  unlink(a_path);
  rmdir(dir);
  return ok;
}

