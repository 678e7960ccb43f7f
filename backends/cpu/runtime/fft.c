/* fft.c - discrete Fourier transforms for torch.fft (fft_fftn, _fft_c2c, _fft_r2c,
 * _fft_c2r, rfft, irfft): complex64 tensors are float pairs (real, imaginary), the layout
 * view_as_real shows.
 *
 * Each transformed dim is done line by line in double: a radix-2 FFT where the length is a
 * power of two, a direct sum otherwise (twiddles from (k * j) mod n, so long lines keep
 * their accuracy).  torch's pocketfft computes in float32 with other rounding: results
 * agree to about 1e-6 relative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

typedef struct cplx {
  double re, im;
} cplx;

static void fft_pow2(cplx *a, int64_t n, bool inverse) {
  for (int64_t i = 1, j = 0; i < n; i++) { /* bit reversal */
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      cplx t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    double ang = 2 * M_PI / (double)len * (inverse ? 1 : -1);
    for (int64_t i = 0; i < n; i += len)
      for (int64_t k = 0; k < len / 2; k++) {
        double c = cos(ang * (double)k), s = sin(ang * (double)k);
        cplx u = a[i + k], v = a[i + k + len / 2];
        cplx w = {v.re * c - v.im * s, v.re * s + v.im * c};
        a[i + k] = (cplx){u.re + w.re, u.im + w.im};
        a[i + k + len / 2] = (cplx){u.re - w.re, u.im - w.im};
      }
  }
}

static void dft_direct(const cplx *a, cplx *out, int64_t n, bool inverse) {
  double sign = inverse ? 1 : -1;
  for (int64_t k = 0; k < n; k++) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < n; j++) {
      double ang = sign * 2 * M_PI * (double)((k * j) % n) / (double)n, c = cos(ang), s = sin(ang);
      re += a[j].re * c - a[j].im * s;
      im += a[j].re * s + a[j].im * c;
    }
    out[k] = (cplx){re, im};
  }
}

/* One complex transform of x ([outer, n, inner] as complex64 pairs) along its middle dim,
 * in place, each result times scale. */
static int transform_dim(float *x, int64_t outer, int64_t n, int64_t inner, bool inverse, double scale) {
  if (n == 0) return SHAPEC_OK;
  cplx *line = malloc((size_t)n * 2 * sizeof *line);
  if (!line) return SHAPEC_ERR_MEMORY;
  cplx *res = line + n;
  bool pow2 = (n & (n - 1)) == 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      for (int64_t j = 0; j < n; j++) {
        const float *p = x + 2 * ((o * n + j) * inner + i);
        line[j] = (cplx){p[0], p[1]};
      }
      const cplx *r = line;
      if (pow2) {
        fft_pow2(line, n, inverse);
      } else {
        dft_direct(line, res, n, inverse);
        r = res;
      }
      for (int64_t j = 0; j < n; j++) {
        float *p = x + 2 * ((o * n + j) * inner + i);
        p[0] = (float)(r[j].re * scale);
        p[1] = (float)(r[j].im * scale);
      }
    }
  free(line);
  return SHAPEC_OK;
}

static void split_at(const int64_t *shape, int32_t rank, int32_t d, int64_t *outer, int64_t *inner) {
  *outer = 1;
  *inner = 1;
  for (int32_t k = 0; k < d; k++) *outer *= shape[k];
  for (int32_t k = d + 1; k < rank; k++) *inner *= shape[k];
}

/* The scale of a transform over `count` points: normalization 0 none, 1 1/sqrt, 2 1/count. */
static double norm_scale(int32_t normalization, int64_t count) {
  if (count <= 0 || normalization == 0) return 1;
  return normalization == 1 ? 1 / sqrt((double)count) : 1 / (double)count;
}

int sc_k_fft_c2c(float *x, int32_t rank, const int64_t *shape, int32_t n_dims, const int32_t *dims, int32_t inverse,
                 int32_t normalization, int64_t count) {
  for (int32_t k = 0; k < n_dims; k++) {
    int64_t outer, inner;
    split_at(shape, rank, dims[k], &outer, &inner);
    int rc = transform_dim(x, outer, shape[dims[k]], inner, inverse, k == n_dims - 1 ? norm_scale(normalization, count) : 1);
    if (rc != SHAPEC_OK) return rc;
  }
  return SHAPEC_OK;
}

void sc_k_real_to_complex(const void *x, int32_t is_f64, float *out, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    out[2 * i] = is_f64 ? (float)((const double *)x)[i] : ((const float *)x)[i];
    out[2 * i + 1] = 0;
  }
}

void sc_k_complex_part(const float *x, float *out, int64_t n, int32_t part) {
  for (int64_t i = 0; i < n; i++)
    out[i] = part < 2 ? x[2 * i + part] : (float)hypot((double)x[2 * i], (double)x[2 * i + 1]);
}

/* The first `keep` of `full` positions along dim d of x (complex) into out: the one-sided
 * half of a real signal's spectrum. */
void sc_k_complex_narrow(const float *x, float *out, int32_t rank, const int64_t *shape, int32_t d, int64_t keep) {
  int64_t outer, inner;
  split_at(shape, rank, d, &outer, &inner);
  for (int64_t o = 0; o < outer; o++)
    memcpy(out + 2 * o * keep * inner, x + 2 * o * shape[d] * inner, (size_t)(2 * keep * inner) * sizeof *out);
}

/* The full Hermitian spectrum of length `full` along dim d from its first shape[d]
 * positions (x complex, shape[d] = full / 2 + 1 or fewer): X[full - k] = conj(X[k]). */
void sc_k_complex_hermitian(const float *x, float *out, int32_t rank, const int64_t *shape, int32_t d, int64_t full) {
  int64_t outer, inner, half = shape[d];
  split_at(shape, rank, d, &outer, &inner);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < full; k++)
      for (int64_t i = 0; i < inner; i++) {
        float *q = out + 2 * ((o * full + k) * inner + i);
        int64_t src = k < half ? k : full - k;
        bool conj = k >= half;
        if (src >= half || src < 0) {
          q[0] = q[1] = 0;
          continue;
        }
        const float *p = x + 2 * ((o * half + src) * inner + i);
        q[0] = p[0];
        q[1] = conj ? -p[1] : p[1];
      }
}
