/* complex_arith.c - arithmetic on complex64 tensors held as float pairs (the layout of
 * view_as_real): + - * / between complex and real operands that broadcast, polar(abs,
 * angle), and the unary negation, conjugate, reciprocal, exponential and angle: what
 * rotary embeddings written with complex numbers (Llama 4, Meta's reference Llama:
 * view_as_complex(x) * polar(1, freqs)) compute.  Products and quotients are formed in
 * double and rounded once to float, so a result is within rounding of torch's. */
#include <math.h>

#include "kernels.h"

enum { MAX_RANK = 16 };

typedef struct cx {
  double re, im;
} cx;

static cx read_at(const float *p, int64_t off, int32_t is_complex) {
  return is_complex ? (cx){p[2 * off], p[2 * off + 1]} : (cx){p[off], 0.0};
}

static cx divide(cx a, cx b) {
  /* scaled by the larger part of b, so that |b|^2 neither overflows nor underflows */
  if (fabs(b.re) >= fabs(b.im)) {
    if (b.re == 0.0 && b.im == 0.0) return (cx){a.re / 0.0, a.im / 0.0};
    double r = b.im / b.re, d = b.re + b.im * r;
    return (cx){(a.re + a.im * r) / d, (a.im - a.re * r) / d};
  }
  double r = b.re / b.im, d = b.im + b.re * r;
  return (cx){(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}

void sc_k_complex_binary(int32_t op, int32_t rank, const int64_t *shape, const float *a, const int64_t *a_st,
                         int32_t a_complex, const float *b, const int64_t *b_st, int32_t b_complex, float *out) {
  int64_t total = 1, c[MAX_RANK] = {0};
  for (int32_t d = 0; d < rank; d++) total *= shape[d];
  for (int64_t e = 0; e < total; e++) {
    int64_t oa = 0, ob = 0;
    for (int32_t d = 0; d < rank; d++) oa += c[d] * a_st[d], ob += c[d] * b_st[d];
    cx x = read_at(a, oa, a_complex), y = read_at(b, ob, b_complex), r;
    switch (op) {
      case SC_CX_ADD: r = (cx){x.re + y.re, x.im + y.im}; break;
      case SC_CX_SUB: r = (cx){x.re - y.re, x.im - y.im}; break;
      case SC_CX_MUL: r = (cx){x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re}; break;
      case SC_CX_DIV: r = divide(x, y); break;
      default: r = (cx){x.re * cos(y.re), x.re * sin(y.re)}; break; /* SC_CX_POLAR: abs, angle */
    }
    out[2 * e] = (float)r.re;
    out[2 * e + 1] = (float)r.im;
    for (int32_t d = rank - 1; d >= 0; d--) {
      if (++c[d] < shape[d]) break;
      c[d] = 0;
    }
  }
}

void sc_k_complex_unary(int32_t op, int64_t n, const float *x, int32_t x_complex, float *out) {
  for (int64_t i = 0; i < n; i++) {
    cx v = read_at(x, i, x_complex);
    switch (op) {
      case SC_CX_ANGLE: /* real out; a real number's angle is pi below 0, else 0 (NaN stays) */
        out[i] = (float)(x_complex ? atan2(v.im, v.re) : isnan(v.re) ? v.re : v.re < 0 ? M_PI : 0.0);
        continue;
      case SC_CX_NEG: v = (cx){-v.re, -v.im}; break;
      case SC_CX_CONJ: v.im = -v.im; break;
      case SC_CX_RECIPROCAL: v = divide((cx){1.0, 0.0}, v); break;
      default: { /* SC_CX_EXP */
        double m = exp(v.re);
        v = (cx){m * cos(v.im), m * sin(v.im)};
        break;
      }
    }
    out[2 * i] = (float)v.re;
    out[2 * i + 1] = (float)v.im;
  }
}
