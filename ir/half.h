/* half.h - float16 and bfloat16 numbers to and from float32, as torch converts them
 * (round to nearest, ties to even; a NaN stays a NaN).  Header only: used by the
 * half-precision pass to widen weights, and by the readers and writers of .npy files. */
#ifndef SC_HALF_H
#define SC_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t sc_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float sc_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* bfloat16 is float32's upper half. */
static inline float sc_bf16_to_f32(uint16_t h) { return sc_f32_from_bits((uint32_t)h << 16); }

static inline uint16_t sc_f32_to_bf16(float f) {
  uint32_t u = sc_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN, sign kept */
  u += 0x7fffu + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

/* IEEE binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits. */
static inline float sc_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp == 0x1f) return sc_f32_from_bits(sign | 0x7f800000u | (frac << 13)); /* inf, NaN */
  if (exp == 0) { /* zero or subnormal: frac x 2^-24 */
    float v = (float)frac * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  return sc_f32_from_bits(sign | ((exp + 112) << 23) | (frac << 13));
}

static inline uint16_t sc_f32_to_f16(float f) {
  uint32_t u = sc_f32_bits(f), sign = (u >> 16) & 0x8000, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff)); /* NaN */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds past 65504: inf */
  if (a < 0x38800000u) { /* below 2^-14: a subnormal, rounded in float arithmetic (exact steps of 2^-24) */
    float v = sc_f32_from_bits(a) * 16777216.0f; /* in units of 2^-24 */
    float r = __builtin_rintf(v);                /* ties to even in the default rounding mode */
    return (uint16_t)(sign | (uint32_t)r);
  }
  uint32_t mant = a + 0xfffu + ((a >> 13) & 1) - 0x38000000u; /* rebias 127 -> 15, round */
  return (uint16_t)(sign | (mant >> 13));
}

#endif
