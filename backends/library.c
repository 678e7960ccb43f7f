/* library.c - builds a model library: the shared lowering (backends/llvm) emits the
 * module with the host target's hooks (backends/cpu) and, for CUDA tensors, the device
 * target's (backends/cuda); the CPU target then compiles and links it with the runtime. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cpu/cpu_target.h"
#include "backends/cuda/cuda_target.h"
#include "backends/library.h"
#include "lib/base/fileio.h"
#include "lib/base/phase.h"

/* The runtime archives, embedded at build time (CMakeLists.txt): backends/cpu/runtime and
 * backends/cuda/runtime; the same with the emulated CUDA driver for --cuda-emulate. */
extern const unsigned char sc_kernels_archive[];
extern const size_t sc_kernels_archive_size;
extern const unsigned char sc_kernels_emulated_archive[];
extern const size_t sc_kernels_emulated_archive_size;

static void init_types(cg *g) {
  g->i1 = LLVMInt1TypeInContext(g->C);
  g->i8 = LLVMInt8TypeInContext(g->C);
  g->i16 = LLVMInt16TypeInContext(g->C);
  g->i32 = LLVMInt32TypeInContext(g->C);
  g->i64 = LLVMInt64TypeInContext(g->C);
  g->f32 = LLVMFloatTypeInContext(g->C);
  g->f64 = LLVMDoubleTypeInContext(g->C);
  g->ptr = LLVMPointerTypeInContext(g->C, 0);
  g->voidt = LLVMVoidTypeInContext(g->C);
  /* shapec_tensor of include/shapec/runtime.h */
  LLVMTypeRef dev[2] = {g->i32, g->i32}, dt[3] = {g->i8, g->i8, g->i16};
  LLVMTypeRef fields[7] = {g->ptr, LLVMStructTypeInContext(g->C, dev, 2, 0), g->i32, LLVMStructTypeInContext(g->C, dt, 3, 0),
                           g->ptr, g->ptr, g->i64};
  g->tensor_t = LLVMStructTypeInContext(g->C, fields, 7, 0);
}

/* shapec_model_X -> shapec_NAME_X for every function the module defines (the runtime's own
 * entry points get their names at link time, cpu_target.c). */
static void rename_entry_points(cg *g, const char *name) {
  static const char prefix[] = "shapec_model_";
  for (LLVMValueRef fn = LLVMGetFirstFunction(g->M); fn; fn = LLVMGetNextFunction(fn)) {
    size_t len;
    const char *old = LLVMGetValueName2(fn, &len);
    if (LLVMIsDeclaration(fn) || len <= sizeof prefix - 1 || strncmp(old, prefix, sizeof prefix - 1) != 0) continue;
    const char *renamed = sc_arena_printf(&g->ctx->arena, "shapec_%s_%s", name, old + sizeof prefix - 1);
    LLVMSetValueName2(fn, renamed, strlen(renamed));
  }
}

/* The module's contents: weights, getters, entry points, and the device code. */
static bool emit_library(cg *g, const sc_library_options *opts) {
  if (opts->external_weights)
    g->external_path = sc_arena_printf(&g->ctx->arena, "%s/model.weights", opts->outdir);
  double t = sc_phase_start();
  cg_emit_weights(g);
  cg_emit_state(g);
  cg_emit_weights_manifest(g);
  sc_phase_end(g->ctx, "weights of the library", t);
  t = sc_phase_start();
  cg_emit_string_getter(g, "shapec_model_report", opts->report_json ? opts->report_json : "{}");
  cg_emit_string_getter(g, "shapec_model_cpu_features", g->cpu_features);
  cg_emit_metadata_getter(g, opts->metadata, opts->n_metadata);
  if (g->has_cuda) cg_emit_string_getter(g, "shapec_model_cuda_arch", g->emulate ? "host-emulation" : g->cuda_arch);
  bool ok = cg_emit_entry_points(g) && !g->failed;
  if (ok) cg_emit_state_api(g);
  if (ok) cg_emit_cache_api(g);
  sc_phase_end(g->ctx, "lowering to LLVM IR", t);
  if (g->ctx->verbose)
    fprintf(stderr, "shapec: products absorbed %d transposes or permutes (read through strides), %d permutes of "
            "their results, %d scales, %d residual adds; %d attentions run as one kernel; %d views read in place by "
            "fused loops; %d attention operands read through chains of views; %d out-projections over batch-first "
            "rows\n", g->absorbed.views, g->absorbed.permuted_results, g->absorbed.scales, g->absorbed.residuals,
            g->absorbed.attentions, g->absorbed.strided_views, g->absorbed.view_chains, g->absorbed.batch_first);
  if (g->ctx->verbose && g->absorbed.grouped_kv)
    fprintf(stderr, "shapec: %d attention operands read their shared key/value heads in place (grouped-query "
            "attention's repeat_kv)\n", g->absorbed.grouped_kv);
  if (g->ctx->verbose && g->n_appends)
    fprintf(stderr, "shapec: %d caches passed in and out may grow in the caller's buffer (a present over its past's "
            "memory and strides: docs/abi.md)\n", g->n_appends);
  if (g->ctx->verbose && g->absorbed.conv_sites)
    fprintf(stderr, "shapec: convolutions absorbed %d residual adds and %d global average pools; %d outputs of "
            "convolutions and max pools stay in the kernel's layout (read only by convolutions and max pools); "
            "%d roundings to half precision taken by convolutions\n",
            g->absorbed.conv_residuals, g->absorbed.conv_pools, g->absorbed.kernel_layout_outputs,
            g->absorbed.conv_roundings);
  if (g->ctx->verbose && g->has_cpu) {
    const cg_ws_plan *w = &g->ws.planned;
    if (w->bytes >= 0 && w->live_peak >= 0)
      fprintf(stderr, "shapec: workspace: %d buffers in %d regions, %.2f MiB at the example shapes (at most %.2f MiB "
              "live at once)\n", w->buffers, w->regions, (double)w->bytes / 1048576.0, (double)w->live_peak / 1048576.0);
    else
      fprintf(stderr, "shapec: workspace: %d buffers in %d regions (their sizes depend on the inputs)\n", w->buffers,
              w->regions);
  }
  if (ok && g->has_cuda) {
    t = sc_phase_start();
    ok = cuda_target_finish(g, opts->outdir, opts->keep_ir) && !g->failed;
    sc_phase_end(g->ctx, "CUDA device code (PTX)", t);
  }
  return ok;
}

bool sc_library_build(sc_ctx *ctx, const sc_program *p, const sc_analysis *a, const sc_weights *w,
                      const sc_library_options *opts) {
  cg g = {.ctx = ctx, .p = p, .a = a, .w = w, .host = &sc_cpu_target};
  sc_strmap_init(&g.values, &ctx->arena);
  g.C = LLVMContextCreate();
  /* local value names only serve a reader of --emit-llvm; a large model's entry function
   * holds hundreds of thousands, which every LLVM phase would copy and unique */
  if (!opts->keep_ir) LLVMContextSetDiscardValueNames(g.C, 1);
  g.M = LLVMModuleCreateWithNameInContext("model", g.C);
  g.B = LLVMCreateBuilderInContext(g.C);
  g.cstrs_module = g.M;
  sc_strmap_init(&g.cstrs, &ctx->arena);
  sc_strmap_init(&g.loop_bodies, &ctx->arena);
  init_types(&g);
  g.has_cpu = !opts->target_cuda || opts->target_cpu;
  g.has_cuda = opts->target_cuda;
  g.emulate = opts->target_cuda && opts->cuda_emulate;
  if (g.has_cuda) g.gpu = g.emulate ? &sc_cuda_emulated_target : &sc_cuda_target;
  bool ok = cpu_target_open(&g, opts->cpu);
  if (ok && g.has_cuda) ok = cuda_target_open(&g, opts->cuda_arch ? opts->cuda_arch : "sm_80");
  if (ok) ok = emit_library(&g, opts);
  if (ok) ok = cg_weights_layout(&g); /* before the IR is printed, so that it shows the real blob */
  if (ok && opts->keep_ir) {
    char *ir = LLVMPrintModuleToString(g.M);
    sc_file_write_atomic(ctx, sc_arena_printf(&ctx->arena, "%s/model.ll", opts->outdir), ir, strlen(ir));
    LLVMDisposeMessage(ir);
  }
  if (ok) {
    cg_finish_module(&g);
    if (opts->name) rename_entry_points(&g, opts->name);
    g.library_name = opts->name;
    const char *so_path = sc_arena_printf(&ctx->arena, "%s/model.so", opts->outdir);
    ok = g.emulate ? cpu_target_link(&g, so_path, sc_kernels_emulated_archive, sc_kernels_emulated_archive_size)
                   : cpu_target_link(&g, so_path, sc_kernels_archive, sc_kernels_archive_size);
  }
  if (ok) ok = sc_library_write_header(ctx, p, opts->name, sc_arena_printf(&ctx->arena, "%s/model.h", opts->outdir), true);
  /* a named library's header under its own name too, so that several go in one include path */
  if (ok && opts->name)
    ok = sc_library_write_header(ctx, p, opts->name, sc_arena_printf(&ctx->arena, "%s/%s.h", opts->outdir, opts->name),
                                 false);
  if (ok && opts->name) { /* the SONAME's file, which a program linked against the library loads: the same
                           * file as model.so (a hard link, or a copy), so that installing it installs the
                           * library, not a link to a model.so that another model's install overwrites */
    const char *so = sc_arena_printf(&ctx->arena, "%s/model.so", opts->outdir);
    const char *named = sc_arena_printf(&ctx->arena, "%s/%s.so", opts->outdir, opts->name);
    unlink(named);
    if (link(so, named) != 0) { /* a file system without hard links: a copy */
      size_t len;
      char *bytes = sc_file_read(ctx, so, &len);
      ok = bytes && sc_file_write_atomic(ctx, named, bytes, len);
      free(bytes);
    }
  }

  LLVMDisposeBuilder(g.B);
  cuda_target_close(&g);
  LLVMDisposeModule(g.M);
  if (g.tm) LLVMDisposeTargetMachine(g.tm);
  if (g.tm_cold) LLVMDisposeTargetMachine(g.tm_cold);
  LLVMContextDispose(g.C);
  free(g.emu_kernels);
  free(g.call_inputs);
  sc_strbuf_free(&g.texts);
  free(g.reads);
  free(g.appends);
  cg_weights_free(&g);
  cg_tiny_linear_free(&g);
  return ok;
}
