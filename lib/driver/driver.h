/* driver.h - runs the export pipeline in order, stopping between phases on errors:
 *   read model -> verify graph -> read spec -> shape analysis -> bind weights
 *   -> corrected spec (on violations) -> report.
 * The pipeline on one screen: see sc_driver_export. */
#ifndef SC_DRIVER_H
#define SC_DRIVER_H

#include <stdbool.h>

#include "ir/dynspec.h"
#include "lib/base/context.h"
#include "lib/frontend/safetensors.h"
#include "passes/shape_analysis.h"

typedef struct sc_export_options {
  const char *model;
  const char *spec;      /* NULL: fully static */
  const char *weights;   /* NULL: MODEL with .safetensors, if it exists */
  const char *outdir;    /* default "shapec-out" */
  const char *report;    /* default OUTDIR/constraints.json */
  const char *fix_spec;  /* write the corrected spec here */
  bool no_codegen;
  bool prefer_deferred_asserts; /* --prefer-deferred-runtime-asserts */
  const char *cpu;       /* --cpu NAME; NULL: the host */
  bool emit_llvm;        /* also write OUTDIR/model.ll */
  bool external_weights; /* weights in OUTDIR/model.weights, not inside model.so */
  bool target_cpu;       /* --target: code for CPU tensors (both false: CPU only) */
  bool target_cuda;      /* --target: PTX kernels and a launcher for CUDA tensors */
  const char *cuda_arch; /* --cuda-arch; NULL: sm_80 */
  bool cuda_emulate;     /* --cuda-emulate */
  const char *name;      /* --name: the library's symbols are shapec_NAME_*, its SONAME NAME.so */
  /* --metadata KEY=VALUE: the user's own facts, in the report and the library */
  const char *const *metadata;
  size_t n_metadata;
  /* --observed: the spec is inferred from these observations (files or rank folders)
   * instead of read from `spec`, and written to OUTDIR/spec.json (lib/observe) */
  const char *const *observed;
  size_t n_observed;
  bool observed_ranges;  /* --ranges: named Dims with the observed ranges */
  int observed_wait_s;   /* --wait */
  int observed_world_size; /* --world-size; <= 0: from the files or the environment */
} sc_export_options;

typedef struct sc_export_result {
  sc_program *program;
  sc_dynspec *spec;
  sc_weights *weights;
  sc_analysis analysis;
  bool analysed;
  const char *report_path;     /* set when the report was written */
  const char *fixed_spec_path; /* set when a corrected spec was written */
  const char *library_path;    /* set when model.so was written */
  char *inferred_spec;         /* --observed: the spec's text (heap) */
  char *inferred_summary;      /* --observed: what was decided for each dim (heap) */
} sc_export_result;

/* Returns true on success.  Diagnostics are in ctx; release the result with
 * sc_export_result_free. */
bool sc_driver_export(sc_ctx *ctx, const sc_export_options *opts, sc_export_result *out);
void sc_export_result_free(sc_export_result *r);
/* MODEL's default weights path (extension replaced by .safetensors), in the arena. */
const char *sc_driver_default_weights(sc_ctx *ctx, const char *model);

#endif
