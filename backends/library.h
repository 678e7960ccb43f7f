/* library.h - the backends' one entry point: turns an analysed program into a model
 * library, OUTDIR/model.so (a native shared library with the C ABI of
 * include/shapec/runtime.h) and OUTDIR/model.h, with code for CPU tensors, CUDA tensors,
 * or both.
 *
 * requires: a program whose shape analysis completed without errors, its weights
 * provides: OUTDIR/model.so and OUTDIR/model.h, written under temporary names and renamed;
 *           with CUDA also OUTDIR/model.ptx and OUTDIR/model_kernels.ptx;
 *           errors SC0801 (an op without a lowering), SC0802 (LLVM), SC0803 (link). */
#ifndef SC_LIBRARY_H
#define SC_LIBRARY_H

#include <stdbool.h>

#include "ir/weights.h"
#include "passes/shape_analysis.h"

typedef struct sc_library_options {
  const char *cpu;         /* NULL: the host CPU and its features */
  const char *outdir;
  const char *report_json; /* embedded in the library */
  bool keep_ir;            /* also write model.ll (for debugging) */
  bool external_weights;   /* weights in OUTDIR/model.weights instead of inside model.so */
  bool target_cpu;         /* code for CPU tensors (the default) */
  bool target_cuda;        /* code for CUDA tensors: PTX kernels and their launcher */
  const char *cuda_arch;   /* sm_80 when NULL */
  bool cuda_emulate;       /* the CUDA code built for the host, run by an emulated driver (tests) */
  const char *name;        /* NULL: the symbols are shapec_model_* and the SONAME model.so; else
                              shapec_NAME_* and NAME.so (the same file as OUTDIR/model.so), so
                              that several models live in one process or executable */
  const char *const *metadata; /* export --metadata "KEY=VALUE"s: shapec_model_metadata(KEY) */
  size_t n_metadata;
} sc_library_options;

/* Returns true when every file was written; on failure records the error and leaves any
 * earlier library in OUTDIR as it was. */
bool sc_library_build(sc_ctx *ctx, const sc_program *p, const sc_analysis *a, const sc_weights *w,
                      const sc_library_options *opts);

/* Writes model.h, the library's inputs and outputs as C declarations (model_header.c); with
 * a name, the declarations of its shapec_NAME_* functions. */
bool sc_library_write_header(sc_ctx *ctx, const sc_program *p, const char *name, const char *path, bool model_aliases);

/* --cpu names shapec accepts (it can check their instruction sets at run time);
 * backends/cpu/cpu_target.c. */
bool sc_cpu_is_known(const char *name);
const char *sc_cpu_known_names(void);

/* --cuda-arch names shapec accepts (LLVM 19's NVPTX processors from sm_75 on);
 * backends/cuda/cuda_target.c. */
bool sc_cuda_arch_is_known(const char *arch);
const char *sc_cuda_known_archs(void);

#endif
