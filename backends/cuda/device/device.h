/* device.h - what every device kernel file includes: the kernel marker, the thread index
 * of a grid-stride loop, libdevice's math, and the small-array argument type.
 *
 * The files under backends/cuda/device/ are plain C.  The build compiles them with
 * clang-19 for nvptx64-nvidia-cuda into LLVM bitcode that shapec links into each model's
 * PTX (so a model carries only the kernels it launches).  test/cuda/ compiles the same
 * files for the host with SC_DEVICE_EMULATE, where a test runs a launch's threads one
 * after another: kernels that never synchronize within a block give the same results
 * that way, which is how their arithmetic is checked on a machine without a GPU.
 *
 * Conventions: every kernel is a grid-stride loop over independent work items (the host
 * launcher picks the grid), tensors are compact row-major, sizes are int64. */
#ifndef SC_DEVICE_H
#define SC_DEVICE_H

#include <stdint.h>

#include "backends/llvm/runtime_abi.h"

/* Small int64 arrays (a shape, strides) travel by value in the kernel's parameters. */
typedef struct sc_dims {
  int64_t v[16];
} sc_dims;

#ifdef SC_DEVICE_EMULATE
#include <math.h>
#define SC_KERNEL
extern _Thread_local int64_t sc_emu_thread, sc_emu_threads;
static inline int64_t sc_thread(void) { return sc_emu_thread; }
static inline int64_t sc_threads(void) { return sc_emu_threads; }
#define sc_expf expf
#define sc_exp exp
#define sc_log log
#define sc_logf logf
#define sc_sqrtf sqrtf
#define sc_sqrt sqrt
#define sc_powf powf
#define sc_fabsf fabsf
#define sc_floorf floorf
/* Emulated threads run one after another and cannot combine partial results, so the first
 * of a row's SC_ROW_THREADS threads computes the whole row and the others skip it. */
#define SC_ROW_LANES 1
static inline double sc_row_sum(double v) { return v; }
static inline float sc_row_max(float v) { return v; }
#else
#define SC_KERNEL __attribute__((nvptx_kernel))
/* libdevice, linked in by shapec when it builds the PTX */
float __nv_expf(float);
double __nv_exp(double);
double __nv_log(double);
float __nv_logf(float);
float __nv_sqrtf(float);
double __nv_sqrt(double);
float __nv_powf(float, float);
float __nv_fabsf(float);
float __nv_floorf(float);
#define sc_expf __nv_expf
#define sc_exp __nv_exp
#define sc_log __nv_log
#define sc_logf __nv_logf
#define sc_sqrtf __nv_sqrtf
#define sc_sqrt __nv_sqrt
#define sc_powf __nv_powf
#define sc_fabsf __nv_fabsf
#define sc_floorf __nv_floorf
static inline int64_t sc_thread(void) {
  return (int64_t)__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
}
static inline int64_t sc_threads(void) {
  return (int64_t)__nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_ntid_x();
}
/* A row's SC_ROW_THREADS threads are one warp: a grid-stride loop over rows x lanes keeps
 * its lanes together (the work and the stride are multiples of 32), so every lane reaches
 * each shuffle below. */
#define SC_ROW_LANES SC_ROW_THREADS
/* The sum of v over the warp's lanes, in every lane (butterfly shuffles). */
static inline double sc_row_sum(double v) {
  for (int d = SC_ROW_THREADS / 2; d > 0; d /= 2) {
    union {
      double d;
      int32_t half[2];
    } mine = {v}, other;
    other.half[0] = __nvvm_shfl_sync_bfly_i32(0xffffffffu, mine.half[0], d, 0x1f);
    other.half[1] = __nvvm_shfl_sync_bfly_i32(0xffffffffu, mine.half[1], d, 0x1f);
    v += other.d;
  }
  return v;
}
/* The largest v over the warp's lanes by `>`, as the row loops compare: NaN never wins. */
static inline float sc_row_max(float v) {
  for (int d = SC_ROW_THREADS / 2; d > 0; d /= 2) {
    float o = __nvvm_shfl_sync_bfly_f32(0xffffffffu, v, d, 0x1f);
    v = o > v ? o : v;
  }
  return v;
}
#endif

#define SC_GRID_LOOP(i, n) for (int64_t i = sc_thread(); i < (n); i += sc_threads())

/* Copies one element of esize bytes (1, 2, 4 or 8). */
static inline void sc_copy_elem(char *dst, const char *src, int64_t esize) {
  switch (esize) {
    case 8: *(int64_t *)dst = *(const int64_t *)src; break;
    case 4: *(int32_t *)dst = *(const int32_t *)src; break;
    case 2: *(int16_t *)dst = *(const int16_t *)src; break;
    default: *dst = *src; break;
  }
}

#endif
