/* half_bits.h - float16 and bfloat16 bits as the float32 they hold (exactly), for the code
 * inside a model library that reads half-precision numbers without the compiler's ir/
 * (the runtime's weights from safetensors, the emulated cuBLAS).  Header only, plain C. */
#ifndef SC_HALF_BITS_H
#define SC_HALF_BITS_H

#include <stdint.h>
#include <string.h>

static inline float sc_half_bits_to_f32(uint16_t h, int bf16) {
  uint32_t u;
  if (bf16) {
    u = (uint32_t)h << 16; /* bfloat16 is float32's upper half */
  } else {            /* IEEE binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits */
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    if (exp == 0x1f) {
      u = sign | 0x7f800000u | (frac << 13); /* inf, NaN */
    } else if (exp == 0) { /* zero or subnormal: frac x 2^-24 */
      float v = (float)frac * (1.0f / 16777216.0f);
      return sign ? -v : v;
    } else {
      u = sign | ((exp + 112) << 23) | (frac << 13);
    }
  }
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

#endif
