/* gelu_table.h - the exact GELU's 0.5 erf(|x| / sqrt 2) for libraries built for AVX-512: a
 * polynomial in 16 pieces whose coefficients a 16-lane permute picks, with no division.  The
 * rational fit of erf_fit.h needs one, and on Intel's 512-bit units that division and its
 * ten multiply-adds bound the elementwise chain (docs/benchmarks.md).  Shared by the
 * generated loops (backends/llvm/cg_gelu_table.c) and the runtime's 16-lane GELU
 * (backends/cpu/runtime/nn.c), which evaluate it with the same operations, so a fused GELU
 * and a layer's GELU give the same bits; libraries for other CPUs keep erf_fit.h.
 *
 * With t = min(|x| SC_GELU_T_SCALE - 1/2, SC_GELU_T_CLAMP) (one fused multiply-add and a
 * min), piece k = round(t) (t + 1.5 2^23 leaves it in the low mantissa bits, which the
 * permute reads) and u = t - k in [-1/2, 1/2]:
 *   0.5 erf(|x| / sqrt 2) = min(sum_d sc_gelu_table[d][k] u^d, 1/2),
 * Horner's rule with fused multiply-adds, highest degree first.  Piece k covers |x| / sqrt 2
 * in [k / 4, (k + 1) / 4]; t stops at the clamp (SC_GELU_CLAMP), where the last piece passes
 * 1/2, so the result is exactly 1/2 from there on.  Fitted by scripts/fit_gelu_table.py:
 * at most 3.6e-8 from 0.5 erf (1.2 ulp of values just under 1/2; erf_fit.h's rational is
 * 3.8e-7 relative).  Beyond the piece's own error it reaches 1/2 from |x| = 5.4616, where
 * float32's erf rounds to 1/2 from 5.5426. */
#ifndef SC_GELU_TABLE_H
#define SC_GELU_TABLE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define SC_GELU_PIECES 16
#define SC_GELU_DEGREE 5
#define SC_GELU_ROUNDER 0x1.8p23f /* 1.5 2^23: t + it has round(t) in its low bits */
#define SC_GELU_T_SCALE 0x1.6a09e6p+1f
#define SC_GELU_T_CLAMP 0x1.e5a88cp+3f

static const float sc_gelu_table[SC_GELU_DEGREE + 1][SC_GELU_PIECES] = {
    {0x1.1f5e1ap-4f, 0x1.9dd0d2p-3f, 0x1.3f196ep-2f, 0x1.91724ap-2f, 0x1.c6dad2p-2f, 0x1.e5768cp-2f, 0x1.f4f694p-2f, 0x1.fbe61ep-2f, 0x1.fea422p-2f, 0x1.ff996p-2f, 0x1.ffe514p-2f, 0x1.fff9bap-2f, 0x1.fffeb4p-2f, 0x1.ffffc4p-2f, 0x1.fffff6p-2f, 0x1p-1f},
    {0x1.1c62fap-3f, 0x1.f5f0cep-4f, 0x1.86e96ap-4f, 0x1.0cab62p-4f, 0x1.45e99cp-5f, 0x1.5ce596p-6f, 0x1.499d46p-7f, 0x1.12ceb2p-8f, 0x1.94624cp-10f, 0x1.06918cp-11f, 0x1.2ce89ep-13f, 0x1.30539ep-15f, 0x1.0f9e3ap-17f, 0x1.abe0fep-20f, 0x1.296ae6p-22f, 0x1.2f507p-22f},
    {-0x1.1c615ap-8f, -0x1.7872cep-7f, -0x1.e8a248p-7f, -0x1.d62b8cp-7f, -0x1.6ea75ep-7f, -0x1.dfbd44p-8f, -0x1.0bd0d4p-8f, -0x1.01a262p-9f, -0x1.ada76cp-11f, -0x1.37c942p-12f, -0x1.8ae6ecp-14f, -0x1.b56306p-16f, -0x1.a84574p-18f, -0x1.68d9e8p-20f, -0x1.0d5934p-22f, -0x1.9feddep-23f},
    {-0x1.6f53d8p-9f, -0x1.e10628p-10f, -0x1.c81682p-12f, 0x1.7c995p-11f, 0x1.4cb2bcp-10f, 0x1.4375p-10f, 0x1.d6647ep-11f, 0x1.143e36p-11f, 0x1.0ea54ep-12f, 0x1.c1ebdcp-14f, 0x1.407d5p-15f, 0x1.89d9e8p-17f, 0x1.a36428p-19f, 0x1.843a98p-21f, 0x1.392dfp-23f, -0x1.74c666p-19f},
    {0x1.1741dap-13f, 0x1.52c422p-12f, 0x1.6768f4p-12f, 0x1.cb6094p-13f, 0x1.d03de8p-15f, -0x1.eb3cbap-15f, -0x1.9487a2p-14f, -0x1.59663ap-14f, -0x1.b096p-15f, -0x1.b0bbd6p-16f, -0x1.66488p-17f, -0x1.f450d4p-19f, -0x1.29ea56p-20f, -0x1.30cf6ep-22f, -0x1.0d4f36p-24f, 0x1.f2b3dcp-23f},
    {0x1.a80ca6p-15f, 0x1.734fbp-16f, -0x1.baf078p-17f, -0x1.113d66p-15f, -0x1.f43658p-16f, -0x1.f611f8p-17f, -0x1.2de6f8p-20f, 0x1.7331cep-18f, 0x1.97c56ap-18f, 0x1.11f5ap-18f, 0x1.15a362p-19f, 0x1.c4e8fp-21f, 0x1.3252c8p-22f, 0x1.5d588ap-24f, 0x1.53672cp-26f, 0x1.fd5a3p-18f},
};

/* The piecewise 0.5 erf(a / sqrt 2) of a = |x| in scalar float32, with the same operations
 * as the vector code (fmaf is exact where the CPU has no FMA): the reference for the tests
 * and for elements that no vector computes. */
static inline float sc_gelu_half_erf(float a) {
  float t = fminf(fmaf(a, SC_GELU_T_SCALE, -0.5f), SC_GELU_T_CLAMP); /* NaN becomes the clamp */
  float m = t + SC_GELU_ROUNDER, u = t - (m - SC_GELU_ROUNDER);
  uint32_t bits;
  memcpy(&bits, &m, sizeof bits);
  int k = (int)(bits & (SC_GELU_PIECES - 1));
  float p = sc_gelu_table[SC_GELU_DEGREE][k];
  for (int d = SC_GELU_DEGREE - 1; d >= 0; d--) p = fmaf(p, u, sc_gelu_table[d][k]);
  return fminf(p, 0.5f);
}

#endif
