/* erf_fit.h - the float32 erf that shapec computes without a library call, shared by the
 * generated loops (backends/llvm/cg_elementwise.c) and the runtime's GELU
 * (backends/cpu/runtime/nn.c), so a fused GELU and a layer's GELU give the same bits.
 * Libraries built for AVX-512 take their GELU's erf from gelu_table.h instead (no division);
 * torch.erf itself is this fit everywhere.
 *
 * erf(x) = x * P(x^2) / Q(x^2) for |x| < SC_ERF_CLAMP, the result clamped to [-1, 1];
 * from the clamp on it is exactly +-1, as float32's erf is there.  P and Q (degree 5 each) were fitted by weighted
 * least squares on [0, 4] (scripts/fit_erf.py): at most 3.8e-7 relative error, about 3
 * ulp.  Coefficients lowest degree first. */
#ifndef SC_ERF_FIT_H
#define SC_ERF_FIT_H

#define SC_ERF_DEGREE 5
#define SC_ERF_CLAMP 3.92

static const double sc_erf_p[SC_ERF_DEGREE + 1] = {1.1283791604544624,    0.18958481520972778,
                                                   0.052623299803227684,  0.003727328004771996,
                                                   0.0002834318497660406, 2.0472670402348345e-06};
static const double sc_erf_q[SC_ERF_DEGREE + 1] = {1.0,
                                                   0.5013481076101874,
                                                   0.11375455598870446,
                                                   0.01489108757358171,
                                                   0.0011522866720755532,
                                                   3.7990245853460874e-05};

/* The fit's coefficients for out * erf(in * a) as a function of a:
 *   out * erf(in a) = a * sum_i num(i) a^(2i) / sum_i den(i) a^(2i),
 * num(i) = out * p_i * in^(2i+1), den(i) = q_i * in^(2i).  GELU evaluates erf(|x| / sqrt 2)
 * this way, with the 1 / sqrt 2 folded in: one multiplication less per element.  Both
 * users round these same doubles to float. */
static inline double sc_erf_num(int i, double out, double in) {
  double c = out * sc_erf_p[i] * in;
  for (int k = 0; k < i; k++) c *= in * in;
  return c;
}
static inline double sc_erf_den(int i, double in) {
  double c = sc_erf_q[i];
  for (int k = 0; k < i; k++) c *= in * in;
  return c;
}

/* GELU's clamp on |x|, 5.54259443: the smallest float from which 0.5 erf(|x| / sqrt 2)
 * rounds to 1/2 in float32, and where the fit for 0.5 erf evaluated in float32 is exactly
 * 1/2, with fused multiply-adds or without (a few ulp higher, at 3.92 sqrt 2, the unfused
 * evaluation falls an ulp short).  So min(fit, 1/2) is exactly 1/2 for every |x| from the
 * clamp on without a compare of its own.  Checked over all 2^32 floats against the
 * compare-and-select at 3.92 sqrt 2: the same bits except for |x| in [5.5426, 5.5437],
 * where the result is now torch's (test_activation.c holds the clamp's side of it). */
#define SC_GELU_CLAMP 0x1.62b9dep+2

#endif
