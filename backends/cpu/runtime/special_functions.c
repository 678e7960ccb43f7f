/* special_functions.c - the one-argument functions torch has and glibc lacks, called by
 * the fused elementwise loops as a libm function would be (backends/cpu/cpu_lowering.c
 * names them sc_<name>[f]): erfinv and digamma.  Each is computed in double and rounded
 * once, so the float32 results are the correctly rounded values nearly everywhere (ATen's
 * own are within an ulp or two of them). */
#include <math.h>

#include "backends/cpu/runtime/kernels.h"

/* erf's inverse: a polynomial start in w = -log(1 - y^2) (the shape of M. Giles'
 * single-precision fit), then Newton steps on erfc, whose difference 1 - y stays exact
 * where erf(x) - y would cancel near +-1. */
double sc_erfinv(double y) {
  if (isnan(y)) return y;
  double a = fabs(y);
  if (a >= 1) return a == 1 ? copysign(INFINITY, y) : NAN;
  double w = -log((1 - a) * (1 + a)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * a;
  const double two_over_sqrt_pi = 1.1283791670955126;
  for (int step = 0; step < 3; step++) {
    double slope = two_over_sqrt_pi * exp(-x * x);
    if (slope == 0) break;
    double f = a > 0.5 ? (1 - a) - erfc(x) : erf(x) - a;
    x -= f / slope;
  }
  return copysign(x, y);
}

float sc_erfinvf(float y) { return (float)sc_erfinv(y); }

/* digamma: torch's conventions at the poles (+0 -> -inf, -0 -> +inf, negative integers
 * NaN), the reflection formula below 0 (pi / tan(pi r) of x's fractional part r, which
 * keeps the tangent's argument small), the recurrence up to 10, then the asymptotic
 * series in 1 / x^2. */
double sc_digamma(double x) {
  if (isnan(x)) return x;
  if (x == 0) return copysign(INFINITY, -x);
  const double pi = 3.14159265358979323846;
  if (x < 0) {
    if (x == trunc(x)) return NAN;
    double whole, r = modf(x, &whole);
    return sc_digamma(1 - x) - pi / tan(pi * r);
  }
  double acc = 0;
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  if (isinf(x)) return x;
  double z = 1 / (x * x);
  /* Bernoulli numbers B_2k / (2k): 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12 */
  double tail = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + log(x) - 0.5 / x - tail;
}

float sc_digammaf(float x) { return (float)sc_digamma(x); }
