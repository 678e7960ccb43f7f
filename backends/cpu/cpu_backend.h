/* cpu_backend.h - the CPU code generator: turns an analysed program into model.so (a
 * native shared library with the C ABI of include/shapec/runtime.h) and model.h.
 *
 * requires: a program whose shape analysis completed without errors, its weights
 * provides: OUTDIR/model.so and OUTDIR/model.h, written under temporary names and renamed;
 *           errors SC0801 (an op without a CPU lowering), SC0802 (LLVM), SC0803 (link). */
#ifndef SC_CPU_BACKEND_H
#define SC_CPU_BACKEND_H

#include <stdbool.h>

#include "lib/safetensors.h"
#include "passes/shape_analysis.h"

typedef struct sc_cpu_options {
  const char *cpu;         /* NULL: the host CPU and its features */
  const char *outdir;
  const char *report_json; /* embedded in the library */
  bool keep_ir;            /* also write model.ll (for debugging) */
  bool external_weights;   /* weights in OUTDIR/model.weights instead of inside model.so */
  bool target_cpu;         /* code for CPU tensors (the default) */
  bool target_cuda;        /* code for CUDA tensors: PTX kernels and their launcher */
  const char *cuda_arch;   /* sm_80 when NULL */
  bool cuda_emulate;       /* the CUDA code built for the host, run by an emulated driver (tests) */
} sc_cpu_options;

/* Returns true when both files were written. */
/* --cpu names shapec accepts (it can check their instruction sets at run time). */
bool sc_cpu_is_known(const char *name);
const char *sc_cpu_known_names(void);

/* --cuda-arch names shapec accepts (LLVM 19's NVPTX processors from sm_75 on). */
bool sc_cuda_arch_is_known(const char *arch);
const char *sc_cuda_known_archs(void);

bool sc_cpu_compile(sc_ctx *ctx, const sc_program *p, const sc_analysis *a, const sc_weights *w,
                    const sc_cpu_options *opts);

#endif
