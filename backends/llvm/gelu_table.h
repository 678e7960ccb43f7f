/* gelu_table.h - the exact GELU's 0.5 erf(|x| / sqrt 2) for libraries built for AVX-512: a
 * polynomial in 32 pieces whose coefficients a permute of two registers (vpermi2ps) picks
 * for 16 lanes, with no division.  The rational fit of erf_fit.h needs one, and on Intel's
 * 512-bit units that division and its ten multiply-adds bound the elementwise chain
 * (docs/benchmarks.md).  Shared by the generated loops (backends/llvm/cg_gelu_table.c) and
 * the runtime's 16-lane GELU (backends/cpu/runtime/nn.c), which evaluate it with the same
 * operations, so a fused GELU and a layer's GELU give the same bits; libraries for other
 * CPUs keep erf_fit.h.
 *
 * With t = min(|x| SC_GELU_T_SCALE - 1/2, SC_GELU_T_CLAMP) (one fused multiply-add and a
 * min), piece k = round(t) (t + 1.5 2^23 leaves it in the low mantissa bits, which the
 * permute reads) and u = t - k in [-1/2, 1/2] (exact: vreduceps computes it in one step
 * where the CPU has AVX-512DQ, with the same bits):
 *   0.5 erf(|x| / sqrt 2) = sum_d sc_gelu_table[d][k] u^d,
 * Horner's rule with fused multiply-adds, highest degree first.  Piece k covers |x| / sqrt 2
 * in [k / 8, (k + 1) / 8]; the last is the constant 1/2 (float32's 0.5 erf rounds to 1/2
 * all through it) and t stops in its middle, so the result is exactly 1/2 from |x| = 5.48
 * on, NaN included, and no piece passes 1/2 (test_activation checks every float there), so
 * no final min is needed.  Fitted by scripts/fit_gelu_table.py: at most 3.9e-8 from 0.5 erf
 * (1.3 ulp of values just under 1/2; erf_fit.h's rational is 3.8e-7 relative). */
#ifndef SC_GELU_TABLE_H
#define SC_GELU_TABLE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define SC_GELU_PIECES 32
#define SC_GELU_DEGREE 4
#define SC_GELU_ROUNDER 0x1.8p23f /* 1.5 2^23: t + it has round(t) in its low bits */
#define SC_GELU_T_SCALE 0x1.6a09e6p+2f
#define SC_GELU_T_CLAMP 0x1.fp+4f

static const float sc_gelu_table[SC_GELU_DEGREE + 1][SC_GELU_PIECES] = {
    {0x1.207d48p-5f, 0x1.ac45e4p-4f, 0x1.5da9f4p-3f, 0x1.db081cp-3f, 0x1.25b8a8p-2f, 0x1.569244p-2f, 0x1.7fb9cp-2f, 0x1.a1551ap-2f, 0x1.bbef1p-2f, 0x1.d0580cp-2f, 0x1.df85eap-2f, 0x1.ea773p-2f, 0x1.f21cap-2f, 0x1.f74a6ep-2f, 0x1.fab0dep-2f, 0x1.fcdaccp-2f, 0x1.fe308p-2f, 0x1.fefccep-2f, 0x1.ff7338p-2f, 0x1.ffb5bep-2f, 0x1.ffd9f8p-2f, 0x1.ffed16p-2f, 0x1.fff6dep-2f, 0x1.fffbb8p-2f, 0x1.fffe0ep-2f, 0x1.ffff24p-2f, 0x1.ffffa2p-2f, 0x1.ffffd8p-2f, 0x1.fffffp-2f, 0x1.fffffap-2f, 0x1.fffffep-2f, 0x1p-1f},
    {0x1.1fbd1ep-4f, 0x1.16e2dp-4f, 0x1.05fd3ap-4f, 0x1.dd1678p-5f, 0x1.a5075p-5f, 0x1.681ff8p-5f, 0x1.2a8dd8p-5f, 0x1.dfca3ep-6f, 0x1.75a93p-6f, 0x1.1a0dd6p-6f, 0x1.9cb5d6p-7f, 0x1.24a7c6p-7f, 0x1.924714p-8f, 0x1.0bf97cp-8f, 0x1.5a08dp-9f, 0x1.b115cap-10f, 0x1.06add2p-10f, 0x1.34d764p-11f, 0x1.5ff1b2p-12f, 0x1.84b908p-13f, 0x1.a02292p-14f, 0x1.afc62ap-15f, 0x1.b2378cp-16f, 0x1.a73dp-17f, 0x1.8fd826p-18f, 0x1.6e1f02p-19f, 0x1.44ed6ep-20f, 0x1.177f02p-21f, 0x1.d20a28p-23f, 0x1.7896cap-24f, 0x1.26f1bcp-25f, 0x0p+0f},
    {-0x1.1fbd0cp-11f, -0x1.a2541ep-10f, -0x1.477c74p-9f, -0x1.a1739p-9f, -0x1.d9a81ep-9f, -0x1.ef2bdap-9f, -0x1.e52666p-9f, -0x1.c1cd84p-9f, -0x1.8d03b2p-9f, -0x1.4ef066p-9f, -0x1.0ed752p-9f, -0x1.a4b132p-10f, -0x1.3a4794p-10f, -0x1.c4352p-11f, -0x1.399822p-11f, -0x1.a38d64p-12f, -0x1.0ee38p-12f, -0x1.51cc02p-13f, -0x1.96f01ep-14f, -0x1.d9c27cp-15f, -0x1.0a96d6p-15f, -0x1.221a1p-16f, -0x1.31503ap-17f, -0x1.36d23cp-18f, -0x1.32232ep-19f, -0x1.23c29cp-20f, -0x1.0d16aep-21f, -0x1.e06694p-23f, -0x1.9f1554p-24f, -0x1.5b2f2p-25f, -0x1.19223cp-26f, 0x0p+0f},
    {-0x1.7c1a04p-12f, -0x1.593bd6p-12f, -0x1.18c63cp-12f, -0x1.8856e8p-13f, -0x1.9c7946p-14f, -0x1.aacf08p-17f, 0x1.fb8f68p-15f, 0x1.e3656p-14f, 0x1.38aad6p-13f, 0x1.55bc72p-13f, 0x1.5002fep-13f, 0x1.3162e6p-13f, 0x1.043f54p-13f, 0x1.a3767cp-14f, 0x1.41717cp-14f, 0x1.d63eaap-15f, 0x1.49364ap-15f, 0x1.ba14d6p-16f, 0x1.1d1d92p-16f, 0x1.61b0fp-17f, 0x1.a662c4p-18f, 0x1.e5fc9ap-19f, 0x1.0d8aecp-19f, 0x1.206a9ep-20f, 0x1.29d5dep-21f, 0x1.28f112p-22f, 0x1.1ded54p-23f, 0x1.09fc8cp-24f, 0x1.de38a2p-26f, 0x1.9f880ep-27f, 0x1.5d1034p-28f, 0x0p+0f},
    {0x1.1e6e5p-18f, 0x1.97befep-17f, 0x1.319bb4p-16f, 0x1.6b9182p-16f, 0x1.752f8ep-16f, 0x1.52b9ccp-16f, 0x1.0f68eap-16f, 0x1.746ebep-17f, 0x1.896402p-18f, 0x1.44a45ap-20f, -0x1.3f7c4cp-19f, -0x1.3cb274p-18f, -0x1.89ab2ep-18f, -0x1.95b81ep-18f, -0x1.74e6ccp-18f, -0x1.3b1bdp-18f, -0x1.f16a5cp-19f, -0x1.722504p-19f, -0x1.0541d2p-19f, -0x1.5f454ep-20f, -0x1.c33182p-21f, -0x1.157152p-21f, -0x1.4740bap-22f, -0x1.72ba68p-23f, -0x1.93ccf6p-24f, -0x1.a742fcp-25f, -0x1.ab463cp-26f, -0x1.9fa814p-27f, -0x1.85e01ap-28f, -0x1.60c2d4p-29f, -0x1.340408p-30f, 0x0p+0f},
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
  return p;
}

#endif
