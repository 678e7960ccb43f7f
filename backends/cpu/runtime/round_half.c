/* round_half.c - float32 elements rounded, in place, to the half-precision numbers torch
 * would store: a convolution of a bfloat16 or float16 program whose kernel wrote float32
 * (cg_conv_round.c).  Round to nearest, ties to even, NaN kept, as torch converts (and as
 * ir/half.h, which the runtime may not include, converts at export).  float16 goes through
 * the CPU's F16C conversions where it has them: the portable conversion took 8 ms of an
 * 11 ms float16 network (bench/half_precision.py, convnet). */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "kernels.h"

/* bfloat16 is float32's upper half: add half of the dropped part (ties to the even upper). */
static float round_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) u |= 0x00400000u; /* a NaN stays a (quiet) NaN */
  else u += 0x7fffu + ((u >> 16) & 1u);
  u &= 0xffff0000u;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* float16 keeps 11 significant bits down to 2^-14, then a fixed step of 2^-24; from 65520 up
 * it is infinite.  Scaling by a power of two is exact, so nearbyint (ties to even, the
 * default mode) rounds at the right bit. */
static float round_f16(float f) {
  if (isnan(f) || isinf(f)) return f;
  float a = fabsf(f), r;
  if (a >= 65520.0f) r = INFINITY;
  else if (a < 0x1p-14f) r = nearbyintf(a * 0x1p24f) * 0x1p-24f;
  else {
    int e;
    frexpf(a, &e); /* a = m 2^e, m in [0.5, 1): the last kept bit is 2^(e - 11) */
    r = ldexpf(nearbyintf(ldexpf(a, 11 - e)), e - 11);
  }
  return copysignf(r, f);
}

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
    for (; i < count; i++) y[i] = round_bf16(y[i]);
    return;
  }
  static int f16c = -1;
  if (f16c < 0) f16c = sc_rt_cpu_has("f16c", 4) == 1 && sc_rt_cpu_has("avx", 3) == 1;
  if (f16c) i = round_f16_vector(y, count);
  for (; i < count; i++) y[i] = round_f16(y[i]);
}
