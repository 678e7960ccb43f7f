/* cuda_target.h - the CUDA target: the device module a library's kernels go into, and
 * its PTX (or, with --cuda-emulate, host code run by an emulated driver).  Used by
 * backends/library.c; built on the shared lowering (backends/llvm/lower.h). */
#ifndef SC_CUDA_TARGET_H
#define SC_CUDA_TARGET_H

#include <stdbool.h>

#include "backends/llvm/lower.h"

/* The lowering's hooks for code that runs on a GPU, and on the emulated one
 * (cuda_lowering.c). */
extern const cg_target sc_cuda_target;
extern const cg_target sc_cuda_emulated_target;

/* Creates the device module g->DM for `arch` (sm_80, ...), or for the host when
 * g->emulate, and the host globals that will hold its code.  False with SC0802. */
bool cuda_target_open(cg *g, const char *arch);
/* Whether the device runtime (backends/cuda/runtime, as embedded in shapec) defines the
 * function `name` (runtime_symbols.c). */
bool cuda_runtime_defines(const char *name);
/* Links shapec's device kernels and libdevice into the device module, writes
 * OUTDIR/model.ptx and OUTDIR/model_kernels.ptx and puts the PTX text into the host
 * module (emulated: links the device module into the host module).  False with SC0802. */
bool cuda_target_finish(cg *g, const char *outdir, bool keep_ir);
void cuda_target_close(cg *g);

#endif
