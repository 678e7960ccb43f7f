/* round_half.c - float32 elements rounded, in place, to the half-precision numbers torch
 * would store: a convolution of a bfloat16 or float16 program whose kernel wrote float32
 * (cg_conv_round.c).  Round to nearest, ties to even, NaN kept (ir/half.h).  float16 goes
 * through the CPU's F16C conversions where it has them: the portable conversion took 8 ms
 * of a 11 ms float16 network (bench/half_precision.py, convnet). */
#include <immintrin.h>

#include "ir/half.h"
#include "kernels.h"

__attribute__((target("avx,f16c"))) static int64_t round_f16_vector(float *y, int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(y + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
  }
  return i;
}

void sc_k_round_to_half_f32(float *y, int64_t count, int32_t bf16) {
  int64_t i = 0;
  if (bf16) {
    for (; i < count; i++) y[i] = sc_bf16_to_f32(sc_f32_to_bf16(y[i]));
    return;
  }
  static int f16c = -1;
  if (f16c < 0) f16c = sc_rt_cpu_has("f16c", 4) == 1 && sc_rt_cpu_has("avx", 3) == 1;
  if (f16c) i = round_f16_vector(y, count);
  for (; i < count; i++) y[i] = sc_f16_to_f32(sc_f32_to_f16(y[i]));
}
