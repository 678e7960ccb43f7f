/* vec_activation.h - the activations a product or convolution applies to its sums while
 * they are still in registers (conv_direct.c, gemm.c): ReLU and ReLU6, with ATen's NaN. */
#ifndef SHAPEC_RUNTIME_VEC_ACTIVATION_H
#define SHAPEC_RUNTIME_VEC_ACTIVATION_H

#include <immintrin.h>

#include "backends/llvm/runtime_abi.h"

/* Whether activated8 applies act (the others run as a pass of their own). */
static inline int act_in_registers(int act) {
  return act == SC_ACT_NONE || act == SC_ACT_RELU || act == SC_ACT_RELU6;
}

__attribute__((target("avx2,fma"), always_inline)) static inline __m256 activated8(__m256 v, int act) {
  if (act == SC_ACT_RELU || act == SC_ACT_RELU6) v = _mm256_max_ps(_mm256_setzero_ps(), v); /* b where either is NaN */
  if (act == SC_ACT_RELU6) v = _mm256_min_ps(_mm256_set1_ps(6.0f), v);
  return v;
}

#endif
