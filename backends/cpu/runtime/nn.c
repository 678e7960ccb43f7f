/* nn.c - convolution (im2col + GEMM), max pooling, normalization and softmax (average pooling: avg_pool.c). */
#include <float.h>
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "vec_exp.h"
#include "vec_transpose.h"
#include "backends/llvm/erf_fit.h"
#include "backends/llvm/gelu_table.h"

/* The output columns ox in [lo, hi) whose input column ox*s - p + j*d lies in [0, w). */
static void valid_columns(int64_t ow, int64_t w, int64_t s, int64_t p, int64_t off, int64_t *lo, int64_t *hi) {
  /* ix = ox*s + (off - p) >= 0  and  ix < w */
  int64_t base = off - p;
  int64_t a = base >= 0 ? 0 : (-base + s - 1) / s;
  int64_t b = w - base <= 0 ? 0 : (w - base + s - 1) / s;
  *lo = a < ow ? a : ow;
  *hi = b < ow ? b : ow;
  if (*hi < *lo) *hi = *lo;
}

typedef struct im2col_job {
  const float *xg;
  float *col;
  int64_t h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
  int64_t ld; /* distance between the column matrix's rows (oh*ow, or more when images sit side by side) */
} im2col_job;

enum { SHORT_IM2COL_ROW = 16 }; /* output rows up to this long are copied inline */

/* col[(ci, i, j), (oy, ox)] = x[ci, oy*sh - ph + i*dh, ox*sw - pw + j*dw], zero outside;
 * input channels [begin, end). */
static void im2col_channels(void *arg, int64_t begin, int64_t end) {
  const im2col_job *p = arg;
  int64_t oh = p->oh, ow = p->ow, h = p->h, wd = p->wd;
  for (int64_t ci = begin; ci < end; ci++)
    for (int64_t i = 0; i < p->kh; i++)
      for (int64_t j = 0; j < p->kw; j++) {
        float *row = p->col + ((ci * p->kh + i) * p->kw + j) * p->ld;
        int64_t lo, hi;
        valid_columns(ow, wd, p->sw, p->pw, j * p->dw, &lo, &hi);
        for (int64_t oy = 0; oy < oh; oy++) {
          int64_t iy = oy * p->sh - p->ph + i * p->dh;
          float *out = row + oy * ow;
          if (iy < 0 || iy >= h) {
            memset(out, 0, (size_t)ow * sizeof(float));
            continue;
          }
          const float *in = p->xg + (ci * h + iy) * wd + (j * p->dw - p->pw);
          if (ow <= SHORT_IM2COL_ROW) { /* three libc calls would cost more than the row */
            for (int64_t ox = 0; ox < ow; ox++) out[ox] = ox >= lo && ox < hi ? in[ox * p->sw] : 0.0f;
            continue;
          }
          memset(out, 0, (size_t)lo * sizeof(float));
          if (p->sw == 1) memcpy(out + lo, in + lo, (size_t)(hi - lo) * sizeof(float));
          else
            for (int64_t ox = lo; ox < hi; ox++) out[ox] = in[ox * p->sw];
          memset(out + hi, 0, (size_t)(ow - hi) * sizeof(float));
        }
      }
}

static void im2col(const float *xg, float *col, int64_t cg, int64_t h, int64_t wd, int64_t kh, int64_t kw, int64_t sh,
                   int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh, int64_t ow, int64_t ld) {
  im2col_job j = {xg, col, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, ld};
  int64_t per_channel = kh * kw * oh * ow;
  sc_rt_parallel_for(im2col_channels, &j, cg, per_channel > 0 ? 32768 / per_channel + 1 : cg);
}

/* Exact GELU as the generated loops of libraries for AVX2 CPUs compute it
 * (backends/llvm/erf_fit.h): 0.5 x +
 * |x| (0.5 erf(|x| / sqrt 2)), the fit taken at |x| with the 0.5 and the 1 / sqrt 2 folded
 * into its coefficients.  One division and ten multiply-adds for 8 lanes: 0.37 ns an
 * element on one core, against 0.63 for Abramowitz and Stegun's erf over libmvec's expf,
 * and about a third of what oneDNN 2.6's gelu_erf post-op adds to a linear layer on AVX2.
 * Where x is NaN, 0.5 x makes the result NaN; gelu(-inf) is -inf + inf, NaN, as in ATen. */
__attribute__((target("avx2,fma"))) static __m256 gelu8(__m256 x) {
  const double in = 0.7071067811865476;
  const __m256 half = _mm256_set1_ps(0.5f), clamp = _mm256_set1_ps((float)SC_GELU_CLAMP);
  __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  __m256 a = _mm256_min_ps(ax, clamp); /* the clamp where ax is NaN */
  __m256 a2 = _mm256_mul_ps(a, a);
  __m256 num = _mm256_set1_ps((float)sc_erf_num(SC_ERF_DEGREE, 0.5, in));
  __m256 den = _mm256_set1_ps((float)sc_erf_den(SC_ERF_DEGREE, in));
  for (int d = SC_ERF_DEGREE - 1; d >= 0; d--) {
    num = _mm256_fmadd_ps(num, a2, _mm256_set1_ps((float)sc_erf_num(d, 0.5, in)));
    den = _mm256_fmadd_ps(den, a2, _mm256_set1_ps((float)sc_erf_den(d, in)));
  }
  /* exactly 1/2 from the clamp on, where the fit passes it (SC_GELU_CLAMP) */
  __m256 half_erf = _mm256_min_ps(_mm256_div_ps(_mm256_mul_ps(a, num), den), half);
  return _mm256_fmadd_ps(ax, half_erf, _mm256_mul_ps(x, half));
}

/* y = gelu(y + bias) over n elements; bias may be NULL. */
__attribute__((target("avx2,fma"))) static void gelu_avx2(float *y, const float *bias, int64_t n) {
  int64_t i = 0;
  if (bias)
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, gelu8(_mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(bias + i))));
  else
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, gelu8(_mm256_loadu_ps(y + i)));
  if (i < n) { /* the last few through a padded copy, so they get the same function */
    float tail[8] = {0};
    for (int64_t t = 0; t < n - i; t++) tail[t] = y[i + t] + (bias ? bias[i + t] : 0.0f);
    _mm256_storeu_ps(tail, gelu8(_mm256_loadu_ps(tail)));
    memcpy(y + i, tail, (size_t)(n - i) * sizeof(float));
  }
}

/* The exact GELU of libraries built for AVX-512, as their generated loops compute it
 * (backends/llvm/cg_gelu_table.c): 0.5 x + |x| (0.5 erf(|x| / sqrt 2)) with 0.5 erf from
 * gelu_table.h's 32 pieces, each lane's coefficients picked by a permute of two registers;
 * no division.  The same operations in the same order (u by a subtraction where the loops
 * may take vreduceps: both exact), so a layer's GELU and a fused one give the same bits
 * (other bits than gelu8's, which libraries for AVX2 CPUs take with their loops). */
__attribute__((target("avx512f"))) static __m512 gelu16(__m512 x) {
  const __m512 rounder = _mm512_set1_ps(SC_GELU_ROUNDER);
  __m512 ax = _mm512_abs_ps(x);
  /* the clamp where ax is NaN: vminps returns its second operand then */
  __m512 t = _mm512_min_ps(_mm512_fmadd_ps(ax, _mm512_set1_ps(SC_GELU_T_SCALE), _mm512_set1_ps(-0.5f)),
                           _mm512_set1_ps(SC_GELU_T_CLAMP));
  __m512 m = _mm512_add_ps(t, rounder);
  __m512 u = _mm512_sub_ps(t, _mm512_sub_ps(m, rounder));
  __m512i piece = _mm512_castps_si512(m); /* vpermi2ps reads the low 5 bits */
#define SC_GELU_COEFFICIENT(d) \
  _mm512_permutex2var_ps(_mm512_loadu_ps(sc_gelu_table[d]), piece, _mm512_loadu_ps(sc_gelu_table[d] + 16))
  __m512 half_erf = SC_GELU_COEFFICIENT(SC_GELU_DEGREE);
  for (int d = SC_GELU_DEGREE - 1; d >= 0; d--) half_erf = _mm512_fmadd_ps(half_erf, u, SC_GELU_COEFFICIENT(d));
#undef SC_GELU_COEFFICIENT
  return _mm512_fmadd_ps(ax, half_erf, _mm512_mul_ps(x, _mm512_set1_ps(0.5f)));
}

/* y = gelu(y + bias) over n elements; bias may be NULL. */
__attribute__((target("avx512f"))) static void gelu_avx512(float *y, const float *bias, int64_t n) {
  int64_t i = 0;
  if (bias)
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, gelu16(_mm512_add_ps(_mm512_loadu_ps(y + i), _mm512_loadu_ps(bias + i))));
  else
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, gelu16(_mm512_loadu_ps(y + i)));
  if (i < n) { /* the last few through a padded copy, so they get the same function */
    float tail[16] = {0};
    for (int64_t t = 0; t < n - i; t++) tail[t] = y[i + t] + (bias ? bias[i + t] : 0.0f);
    _mm512_storeu_ps(tail, gelu16(_mm512_loadu_ps(tail)));
    memcpy(y + i, tail, (size_t)(n - i) * sizeof(float));
  }
}

/* gelu8's operations in 4 SSE lanes without fused multiply-adds: the GELU that the loops of
 * a library built for a CPU without AVX2 and FMA compute (the fit's multiply-adds are a
 * multiplication and an addition there), so that such a library's layers give its loops'
 * bits on any CPU.  Lane by lane these are single IEEE operations, as a scalar loop's. */
static __m128 gelu4(__m128 x) {
  const double in = 0.7071067811865476;
  __m128 ax = _mm_andnot_ps(_mm_set1_ps(-0.0f), x);
  __m128 a = _mm_min_ps(ax, _mm_set1_ps((float)SC_GELU_CLAMP)); /* the clamp where ax is NaN */
  __m128 a2 = _mm_mul_ps(a, a);
  __m128 num = _mm_set1_ps((float)sc_erf_num(SC_ERF_DEGREE, 0.5, in));
  __m128 den = _mm_set1_ps((float)sc_erf_den(SC_ERF_DEGREE, in));
  for (int d = SC_ERF_DEGREE - 1; d >= 0; d--) {
    num = _mm_add_ps(_mm_mul_ps(num, a2), _mm_set1_ps((float)sc_erf_num(d, 0.5, in)));
    den = _mm_add_ps(_mm_mul_ps(den, a2), _mm_set1_ps((float)sc_erf_den(d, in)));
  }
  __m128 half_erf = _mm_min_ps(_mm_div_ps(_mm_mul_ps(a, num), den), _mm_set1_ps(0.5f));
  return _mm_add_ps(_mm_mul_ps(ax, half_erf), _mm_mul_ps(x, _mm_set1_ps(0.5f)));
}

static void gelu_sse(float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, gelu4(_mm_loadu_ps(y + i)));
  if (i < n) { /* the last few through a padded copy, so they get the same function */
    float tail[4] = {0};
    memcpy(tail, y + i, (size_t)(n - i) * sizeof(float));
    _mm_storeu_ps(tail, gelu4(_mm_loadu_ps(tail)));
    memcpy(y + i, tail, (size_t)(n - i) * sizeof(float));
  }
}

/* The activation fused after a convolution or a linear layer (SC_ACT_*), over n outputs.
 * The GELU is the one the library's own loops compute: 16-lane pieces for AVX-512
 * libraries, the fused 8-lane rational for AVX2 ones, gelu4's unfused one for the others. */
static void activate(float *y, int64_t n, int act) {
  if (act == SC_ACT_GELU && sc_rt_has_avx512()) {
    gelu_avx512(y, NULL, n);
    return;
  }
  if (act == SC_ACT_GELU && sc_rt_library_has_avx2()) {
    gelu_avx2(y, NULL, n);
    return;
  }
  if (act == SC_ACT_RELU) /* NaN stays NaN, as in torch */
    for (int64_t i = 0; i < n; i++) y[i] = y[i] < 0.0f ? 0.0f : y[i];
  else if (act == SC_ACT_RELU6)
    for (int64_t i = 0; i < n; i++) y[i] = y[i] < 0.0f ? 0.0f : y[i] > 6.0f ? 6.0f : y[i];
  else if (act == SC_ACT_GELU)
    gelu_sse(y, n);
  else if (act == SC_ACT_SILU) /* torch's x / (1 + e^-x) */
    for (int64_t i = 0; i < n; i++) y[i] = y[i] / (1.0f + expf(-y[i]));
  else if (act == SC_ACT_HARDSWISH)
    for (int64_t i = 0; i < n; i++) y[i] = y[i] * fminf(fmaxf(y[i] + 3.0f, 0.0f), 6.0f) / 6.0f;
}

typedef struct activation_job {
  float *y;
  const float *bias;     /* [cols], added to each row before the activation; NULL: none */
  const float *residual; /* [rows, cols], added after it; NULL: none */
  int64_t cols;
  int act;
} activation_job;

static void activate_range(void *arg, int64_t begin, int64_t end) {
  const activation_job *j = arg;
  activate(j->y + begin, end - begin, j->act);
}

void sc_k_activation_f32(float *y, int64_t n, int32_t act) {
  if (n <= 16384) { /* one chunk: on this thread, without the pool's hand-off (a tiny layer's ReLU) */
    activate(y, n, act);
    return;
  }
  activation_job j = {y, NULL, NULL, 0, act};
  sc_rt_parallel_for(activate_range, &j, n, 16384);
}

/* y += bias + residual over n elements, either NULL */
__attribute__((target("avx2,fma"))) static void add_avx2(float *y, const float *bias, const float *residual, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(y + i);
    if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + i));
    if (residual) v = _mm256_add_ps(v, _mm256_loadu_ps(residual + i));
    _mm256_storeu_ps(y + i, v);
  }
  for (; i < n; i++) y[i] = y[i] + (bias ? bias[i] : 0.0f) + (residual ? residual[i] : 0.0f);
}

__attribute__((target("avx512f"))) static void add_avx512(float *y, const float *bias, const float *residual, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(y + i);
    if (bias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias + i));
    if (residual) v = _mm512_add_ps(v, _mm512_loadu_ps(residual + i));
    _mm512_storeu_ps(y + i, v);
  }
  for (; i < n; i++) y[i] = y[i] + (bias ? bias[i] : 0.0f) + (residual ? residual[i] : 0.0f);
}

static void add(float *y, const float *bias, const float *residual, int64_t n) {
  if (!bias && !residual) return;
  if (sc_rt_has_avx512()) {
    add_avx512(y, bias, residual, n);
    return;
  }
  if (sc_rt_has_avx2()) {
    add_avx2(y, bias, residual, n);
    return;
  }
  for (int64_t i = 0; i < n; i++) y[i] = y[i] + (bias ? bias[i] : 0.0f) + (residual ? residual[i] : 0.0f);
}

static void linear_epilogue_rows(void *arg, int64_t begin, int64_t end) {
  const activation_job *j = arg;
  for (int64_t r = begin; r < end; r++) {
    float *row = j->y + r * j->cols;
    const float *residual = j->residual ? j->residual + r * j->cols : NULL;
    bool after = j->act != SC_ACT_NONE; /* the residual comes after the activation */
    if (j->act == SC_ACT_GELU && sc_rt_has_avx512()) {
      gelu_avx512(row, j->bias, j->cols);
    } else if (j->act == SC_ACT_GELU && sc_rt_library_has_avx2()) {
      gelu_avx2(row, j->bias, j->cols);
    } else {
      add(row, j->bias, after ? NULL : residual, j->cols);
      activate(row, j->cols, j->act);
    }
    if (after) add(row, NULL, residual, j->cols);
  }
}

void sc_k_linear_epilogue_f32(float *y, const float *bias, const float *residual, int64_t rows, int64_t cols,
                              int32_t act) {
  activation_job j = {y, bias, residual, cols, act};
  sc_rt_parallel_for(linear_epilogue_rows, &j, rows, cols > 0 ? 16384 / cols + 1 : rows);
}

/* One channel of a depthwise convolution (one input and one output channel per group):
 * a direct loop, as a matrix product with one row would waste the GEMM.  Row by row: all
 * kernel taps add into one output row while it sits in L1, which is then activated and
 * left, so the plane is written once. */
enum { DW_MAX_KW = 16 };
static void depthwise_channel(const float *xc, const float *wc, float bias, float *yc, int64_t h, int64_t wd,
                              int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                              int64_t dw, int64_t oh, int64_t ow, int act) {
  int64_t lo[DW_MAX_KW], hi[DW_MAX_KW];
  for (int64_t j = 0; j < kw && j < DW_MAX_KW; j++) valid_columns(ow, wd, sw, pw, j * dw, &lo[j], &hi[j]);
  for (int64_t oy = 0; oy < oh; oy++) {
    float *out = yc + oy * ow;
    for (int64_t ox = 0; ox < ow; ox++) out[ox] = bias;
    for (int64_t i = 0; i < kh; i++) {
      int64_t iy = oy * sh - ph + i * dh;
      if (iy < 0 || iy >= h) continue;
      for (int64_t j = 0; j < kw; j++) {
        float wv = wc[i * kw + j];
        int64_t a, b;
        if (j < DW_MAX_KW) a = lo[j], b = hi[j];
        else valid_columns(ow, wd, sw, pw, j * dw, &a, &b);
        const float *in = xc + iy * wd + (j * dw - pw);
        if (sw == 1)
          for (int64_t ox = a; ox < b; ox++) out[ox] += wv * in[ox];
        else
          for (int64_t ox = a; ox < b; ox++) out[ox] += wv * in[ox * sw];
      }
    }
    activate(out, ow, act);
  }
}

typedef struct depthwise_job {
  const float *x, *w, *bias;
  float *y;
  int64_t c, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
  int act;
} depthwise_job;

/* Planes (image, channel) [begin, end) of a depthwise convolution. */
static void depthwise_planes(void *arg, int64_t begin, int64_t end) {
  const depthwise_job *j = arg;
  for (int64_t p = begin; p < end; p++) {
    int64_t ch = p % j->c;
    depthwise_channel(j->x + p * j->h * j->wd, j->w + ch * j->kh * j->kw, j->bias ? j->bias[ch] : 0.0f,
                      j->y + p * j->oh * j->ow, j->h, j->wd, j->kh, j->kw, j->sh, j->sw, j->ph, j->pw, j->dh, j->dw,
                      j->oh, j->ow, j->act);
  }
}

/* A batch whose weights outweigh one image's output (the deep layers: 512 x 4608 weights
 * against 49 output pixels): the images' column matrices side by side make one GEMM, so
 * OpenBLAS packs the weights once per call instead of once per image.  The product
 * [o, n*cols] is then scattered to [n, o, cols] with the bias and the activation. */
static int conv_images_side_by_side(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                                    int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                    int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh, int64_t ow, int act) {
  int64_t cols = oh * ow, rows = c * kh * kw, all = n * cols;
  float *col = sc_rt_alloc(rows * all * (int64_t)sizeof(float)), *prod = sc_rt_alloc(o * all * (int64_t)sizeof(float));
  if (!col || !prod) {
    sc_rt_free(col);
    sc_rt_free(prod);
    return SHAPEC_ERR_MEMORY;
  }
  for (int64_t b = 0; b < n; b++) im2col(x + b * c * h * wd, col + b * cols, c, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, all);
  int rc = sc_k_conv_gemm_f32(o, all, rows, w, 0, col, 0, prod, 1.0f, 0.0f);
  if (!rc)
    for (int64_t b = 0; b < n; b++)
      for (int64_t oc = 0; oc < o; oc++) {
        float *dst = y + (b * o + oc) * cols, add = bias ? bias[oc] : 0.0f;
        const float *src = prod + oc * all + b * cols;
        for (int64_t p = 0; p < cols; p++) dst[p] = src[p] + add;
        activate(dst, cols, act);
      }
  sc_rt_free(col);
  sc_rt_free(prod);
  return rc;
}

int sc_k_conv2d_act_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                        int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                        int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  if (n == 0 || o == 0 || oh == 0 || ow == 0) return SHAPEC_OK; /* an empty output: no work, no scratch */
  if (sc_conv_gather_fits(c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act)) { /* AVX-512 */
    sc_conv_gather_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act);
    return SHAPEC_OK;
  }
  if (sc_conv_pair_rows_fits(c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act)) { /* AVX-512 */
    sc_conv_pair_rows_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, ph, pw, dh, dw, groups, oh, ow, act);
    return SHAPEC_OK;
  }
  if (sc_conv_direct_fits(c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, groups, oh, ow, act)) {
    sc_conv_direct_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act);
    return SHAPEC_OK;
  }
  return sc_k_conv2d_im2col_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act);
}

int sc_k_conv2d_im2col_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                           int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                           int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  /* an empty batch asks for nothing: one image's column matrix could be gigabytes */
  if (n == 0 || o == 0 || oh == 0 || ow == 0) return SHAPEC_OK;
  int64_t cg = c / groups, og = o / groups, cols = oh * ow, rows = cg * kh * kw;
  if (cg == 1 && og == 1) {
    depthwise_job j = {x, w, bias, y, c, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, act};
    int64_t per_plane = cols * kh * kw;
    sc_rt_parallel_for(depthwise_planes, &j, n * c, per_plane > 0 ? 65536 / per_plane + 1 : n * c);
    return SHAPEC_OK;
  }
  /* a 1x1 convolution with stride 1 and no padding reads its input as the column matrix */
  bool pointwise = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  if (!pointwise && groups == 1 && n > 1 && rows > cols && rows * cols * n <= (16 << 20))
    return conv_images_side_by_side(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, act);
  int64_t col_n = pointwise ? 0 : rows * cols;
  float *col = col_n > 0 ? sc_rt_alloc(col_n * (int64_t)sizeof(float)) : NULL;
  if (col_n > 0 && !col) return SHAPEC_ERR_MEMORY;
  for (int64_t b = 0; b < n; b++) {
    for (int64_t g = 0; g < groups; g++) {
      const float *xg = x + (b * c + g * cg) * h * wd;
      if (!pointwise) im2col(xg, col, cg, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, cols);
      float *yg = y + (b * o + g * og) * cols;
      if (bias)
        for (int64_t oc = 0; oc < og; oc++)
          for (int64_t p = 0; p < cols; p++) yg[oc * cols + p] = bias[g * og + oc];
      int rc = sc_k_conv_gemm_f32(og, cols, rows, w + g * og * rows, 0, pointwise ? xg : col, 0, yg, 1.0f,
                                  bias ? 1.0f : 0.0f);
      if (rc) {
        sc_rt_free(col);
        return rc;
      }
      activate(yg, og * cols, act); /* while the group's output is the freshest in cache */
    }
  }
  sc_rt_free(col);
  return SHAPEC_OK;
}

int sc_k_conv2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                    int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                    int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow) {
  return sc_k_conv2d_act_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, SC_ACT_NONE);
}

typedef struct max_pool_job {
  const float *x;
  float *y;
  int64_t *indices;
  int64_t h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
} max_pool_job;

/* Output columns lo..hi (none when hi < lo) of a kernel column k read input column
 * ox * sw + *off inside the image: found once per row and tap, so the inner loops have no
 * bounds test. */
static void tap_columns(const max_pool_job *j, int64_t k, int64_t *off, int64_t *lo, int64_t *hi) {
  *off = k * j->dw - j->pw;
  *lo = *off >= 0 ? 0 : (-*off + j->sw - 1) / j->sw;
  *hi = j->w - 1 - *off < 0 ? -1 : (j->w - 1 - *off) / j->sw;
  if (*hi > j->ow - 1) *hi = j->ow - 1;
}

/* The maximum only, no indices: the inner loop has no branch (a select), and vectorizes.
 * NaN propagates as in ATen: once a NaN is the maximum, `v > best` is false for every
 * later v. */
enum { POOL_TAPS_KEPT = 16 }; /* kernel columns whose bounds are found once per call, not per row */

static void max_pool_values(const max_pool_job *j, int64_t begin, int64_t end) {
  int64_t h = j->h, w = j->w, oh = j->oh, ow = j->ow;
  /* tap_columns divides twice: per row and plane that was most of a tiny pool's time */
  int64_t offs[POOL_TAPS_KEPT], los[POOL_TAPS_KEPT], his[POOL_TAPS_KEPT];
  for (int64_t k = 0; k < j->kw && k < POOL_TAPS_KEPT; k++) tap_columns(j, k, &offs[k], &los[k], &his[k]);
  for (int64_t p = begin; p < end; p++) {
    const float *xp = j->x + p * h * w;
    for (int64_t oy = 0; oy < oh; oy++) {
      float *yr = j->y + (p * oh + oy) * ow;
      for (int64_t ox = 0; ox < ow; ox++) yr[ox] = -INFINITY;
      for (int64_t i = 0; i < j->kh; i++) {
        int64_t iy = oy * j->sh - j->ph + i * j->dh;
        if (iy < 0 || iy >= h) continue;
        const float *xr = xp + iy * w;
        for (int64_t k = 0; k < j->kw; k++) {
          int64_t off, lo, hi;
          if (k < POOL_TAPS_KEPT) off = offs[k], lo = los[k], hi = his[k];
          else tap_columns(j, k, &off, &lo, &hi);
          const float *src = xr + off;
          int64_t sw = j->sw;
          for (int64_t ox = lo; ox <= hi; ox++) {
            float v = src[ox * sw], b = yr[ox];
            yr[ox] = (v > b || v != v) && b == b ? v : b;
          }
        }
      }
    }
  }
}

/* The most common pool, 2x2 with stride 2 inside the image: each output one expression of
 * its four inputs, where the general loop's set-up per row and tap cost 37 ns a plane of a
 * tiny CNN's [4, 4] maps.  The taps in max_pool_values's order, with its NaN rule. */
static bool plain_2x2(const max_pool_job *j) {
  return j->kh == 2 && j->kw == 2 && j->sh == 2 && j->sw == 2 && j->ph == 0 && j->pw == 0 && j->dh == 1 && j->dw == 1 &&
         2 * j->oh <= j->h && 2 * j->ow <= j->w;
}

static inline float max_step(float b, float v) { return (v > b || v != v) && b == b ? v : b; }

/* max of a and b lane by lane, a NaN kept (vmaxps alone returns b where either is NaN). */
__attribute__((target("avx2"))) static inline __m256 max_keeping_nan(__m256 a, __m256 b) {
  return _mm256_blendv_ps(_mm256_max_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

/* max_pool_2x2 in vectors: the two input rows' maximum, then that of each pair of columns,
 * four outputs a step.  (One expression per output waited on four dependent selects: a
 * tiny CNN's pool of eight [4, 4] planes took 0.18 us.)  NaN as in max_step: any NaN
 * among the four taps gives a NaN (one of theirs, not always the first). */
__attribute__((target("avx2"))) static void max_pool_2x2_avx2(const max_pool_job *j, int64_t begin, int64_t end) {
  int64_t h = j->h, w = j->w, oh = j->oh, ow = j->ow;
  const __m256i pairs = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7), lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t p = begin; p < end; p++)
    for (int64_t oy = 0; oy < oh; oy++) {
      const float *r0 = j->x + (p * h + 2 * oy) * w, *r1 = r0 + w;
      float *yr = j->y + (p * oh + oy) * ow;
      for (int64_t ox = 0; ox < ow; ox += 4) {
        int64_t n = ow - ox < 4 ? ow - ox : 4; /* outputs this step, from 2 n input columns */
        __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(2 * n)), lane);
        __m256 a = _mm256_maskload_ps(r0 + 2 * ox, in), b = _mm256_maskload_ps(r1 + 2 * ox, in);
        /* even columns in the low half, odd ones in the high half: rows first, then pairs */
        __m256 m = max_keeping_nan(_mm256_permutevar8x32_ps(a, pairs), _mm256_permutevar8x32_ps(b, pairs));
        __m128 lo = _mm256_castps256_ps128(m), hi = _mm256_extractf128_ps(m, 1);
        __m128 y = _mm_blendv_ps(_mm_max_ps(lo, hi), lo, _mm_cmpunord_ps(lo, lo));
        if (n == 4) {
          _mm_storeu_ps(yr + ox, y);
        } else {
          float part[4];
          _mm_storeu_ps(part, y);
          for (int64_t k = 0; k < n; k++) yr[ox + k] = part[k];
        }
      }
    }
}

/* max_pool_2x2_avx2 for planes [begin, end) of rows of 4 that pool whole (h = 2 oh): the
 * planes' rows, consecutive in memory, are pairs of 8 floats each giving 2 outputs, also
 * consecutive.  Four pairs a step, 8 outputs, with no per-row set-up: where rows of 4
 * each took a partial step of the general loop, which was a seventh of a tiny CNN's call
 * (eight [4, 4] planes). */
__attribute__((target("avx2"))) static void max_pool_2x2_rows_of_4(const max_pool_job *j, int64_t begin, int64_t end) {
  const float *x = j->x + begin * j->h * 4;
  float *y = j->y + begin * j->oh * 2;
  int64_t pairs = (end - begin) * j->oh, i = 0;
  for (; i + 4 <= pairs; i += 4, x += 32, y += 8) {
    __m256 a0 = _mm256_loadu_ps(x), a1 = _mm256_loadu_ps(x + 8), a2 = _mm256_loadu_ps(x + 16), a3 = _mm256_loadu_ps(x + 24);
    /* each 128-bit lane one pair's two rows' maximum: pairs 0 and 1, then 2 and 3 */
    __m256 v01 = max_keeping_nan(_mm256_permute2f128_ps(a0, a1, 0x20), _mm256_permute2f128_ps(a0, a1, 0x31));
    __m256 v23 = max_keeping_nan(_mm256_permute2f128_ps(a2, a3, 0x20), _mm256_permute2f128_ps(a2, a3, 0x31));
    /* even and odd columns: [p0 p0 p2 p2 | p1 p1 p3 p3] after the maximum, pairs of floats then put in order */
    __m256 m = max_keeping_nan(_mm256_shuffle_ps(v01, v23, _MM_SHUFFLE(2, 0, 2, 0)),
                               _mm256_shuffle_ps(v01, v23, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm256_storeu_ps(y, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(m), _MM_SHUFFLE(3, 1, 2, 0))));
  }
  for (; i < pairs; i++, x += 8, y += 2)
    for (int k = 0; k < 2; k++)
      y[k] = max_step(max_step(max_step(max_step(-INFINITY, x[2 * k]), x[2 * k + 1]), x[4 + 2 * k]), x[5 + 2 * k]);
}

static void max_pool_2x2(const max_pool_job *j, int64_t begin, int64_t end) {
  if (sc_rt_has_avx2() && j->w == 4 && j->ow == 2 && j->h == 2 * j->oh) {
    max_pool_2x2_rows_of_4(j, begin, end);
    return;
  }
  if (sc_rt_has_avx2()) {
    max_pool_2x2_avx2(j, begin, end);
    return;
  }
  int64_t h = j->h, w = j->w, oh = j->oh, ow = j->ow;
  for (int64_t p = begin; p < end; p++)
    for (int64_t oy = 0; oy < oh; oy++) {
      const float *r0 = j->x + (p * h + 2 * oy) * w, *r1 = r0 + w;
      float *yr = j->y + (p * oh + oy) * ow;
      for (int64_t ox = 0; ox < ow; ox++)
        yr[ox] = max_step(max_step(max_step(max_step(-INFINITY, r0[2 * ox]), r0[2 * ox + 1]), r1[2 * ox]), r1[2 * ox + 1]);
    }
}

static void max_pool_planes(void *arg, int64_t begin, int64_t end) {
  const max_pool_job *j = arg;
  if (!j->indices && plain_2x2(j)) {
    max_pool_2x2(j, begin, end);
    return;
  }
  if (!j->indices) {
    max_pool_values(j, begin, end);
    return;
  }
  int64_t h = j->h, w = j->w, oh = j->oh, ow = j->ow;
  for (int64_t p = begin; p < end; p++) {
    const float *xp = j->x + p * h * w;
    for (int64_t oy = 0; oy < oh; oy++)
      for (int64_t ox = 0; ox < ow; ox++) {
        float best = -INFINITY;
        int64_t arg_best = -1;
        for (int64_t i = 0; i < j->kh; i++) {
          int64_t iy = oy * j->sh - j->ph + i * j->dh;
          if (iy < 0 || iy >= h) continue;
          for (int64_t k = 0; k < j->kw; k++) {
            int64_t ix = ox * j->sw - j->pw + k * j->dw;
            if (ix < 0 || ix >= w) continue;
            float v = xp[iy * w + ix];
            if (v > best || isnan(v) || arg_best < 0) {
              best = v;
              arg_best = iy * w + ix;
              if (isnan(v)) goto done; /* NaN propagates, as in ATen */
            }
          }
        }
      done:
        j->y[(p * oh + oy) * ow + ox] = best;
        if (j->indices) j->indices[(p * oh + oy) * ow + ox] = arg_best;
      }
  }
}

/* Folds `pixels` source pixels, `step` floats apart, into as many consecutive output
 * pixels, each a vector of B channels. */
typedef void (*pixel_merge)(float *dst, const float *src, int64_t pixels, int64_t step, int64_t B);

static void merge_pixels(float *dst, const float *src, int64_t pixels, int64_t step, int64_t B) {
  for (int64_t px = 0; px < pixels; px++, dst += B, src += step)
    for (int64_t l = 0; l < B; l++) {
      float v = src[l], b = dst[l];
      dst[l] = (v > b || v != v) && b == b ? v : b; /* NaN as in max_pool_values */
    }
}

/* The same with AVX2 (B a multiple of 8): max, then the running maximum kept where it is
 * NaN (vmaxps returns its second operand, the new value, when either is NaN). */
__attribute__((target("avx2"))) static void merge_pixels_avx2(float *dst, const float *src, int64_t pixels,
                                                               int64_t step, int64_t B) {
  for (int64_t px = 0; px < pixels; px++, dst += B, src += step)
    for (int64_t l = 0; l < B; l += 8) {
      __m256 b = _mm256_loadu_ps(dst + l), m = _mm256_max_ps(b, _mm256_loadu_ps(src + l));
      _mm256_storeu_ps(dst + l, _mm256_blendv_ps(m, b, _mm256_cmp_ps(b, b, _CMP_UNORD_Q)));
    }
}

/* max_pool_values over planes of pixels that are vectors of B channels (oneDNN's nChw8c
 * and nChw16c layouts, B 8 or 16; NHWC, B the channels), the lanes innermost: each tap is
 * one vector select per output pixel. */
static void max_pool_vector_planes(const max_pool_job *j, int64_t begin, int64_t end, int64_t B, pixel_merge merge) {
  int64_t h = j->h, w = j->w, oh = j->oh, ow = j->ow;
  for (int64_t p = begin; p < end; p++) {
    const float *xp = j->x + p * h * w * B;
    for (int64_t oy = 0; oy < oh; oy++) {
      float *yr = j->y + (p * oh + oy) * ow * B;
      for (int64_t e = 0; e < ow * B; e++) yr[e] = -INFINITY;
      for (int64_t i = 0; i < j->kh; i++) {
        int64_t iy = oy * j->sh - j->ph + i * j->dh;
        if (iy < 0 || iy >= h) continue;
        for (int64_t k = 0; k < j->kw; k++) {
          int64_t off, lo, hi;
          tap_columns(j, k, &off, &lo, &hi);
          if (hi >= lo) merge(yr + lo * B, xp + (iy * w + lo * j->sw + off) * B, hi - lo + 1, j->sw * B, B);
        }
      }
    }
  }
}

typedef struct vector_pool_job {
  max_pool_job pool;
  int64_t lanes;
} vector_pool_job;

static void max_pool_vectors(void *arg, int64_t begin, int64_t end) {
  const vector_pool_job *v = arg;
  bool avx2 = v->lanes % 8 == 0 && sc_rt_has_avx2();
  max_pool_vector_planes(&v->pool, begin, end, v->lanes, avx2 ? merge_pixels_avx2 : merge_pixels);
}

void sc_k_max_pool2d_blocked_f32(const float *x, float *y, int64_t planes, int64_t block, int64_t h, int64_t w,
                                 int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                                 int64_t dw, int64_t oh, int64_t ow) {
  vector_pool_job j = {{x, y, NULL, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow}, block};
  int64_t per_plane = oh * ow * kh * kw * block;
  sc_rt_parallel_for(max_pool_vectors, &j, planes, per_plane > 0 ? 65536 / per_plane + 1 : planes);
}

void sc_k_max_pool2d_f32(const float *x, float *y, int64_t *indices, int64_t nc, int64_t h, int64_t w, int64_t kh,
                         int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh,
                         int64_t ow) {
  max_pool_job j = {x, y, indices, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow};
  int64_t per_plane = oh * ow * kh * kw;
  sc_rt_parallel_for(max_pool_planes, &j, nc, per_plane > 0 ? 65536 / per_plane + 1 : nc);
}

typedef struct batch_norm_job {
  const float *x, *weight, *bias, *mean, *var;
  float *y;
  int64_t n, c, inner;
  double eps;
} batch_norm_job;

static void batch_norm_channels(void *arg, int64_t begin, int64_t end) {
  const batch_norm_job *j = arg;
  for (int64_t ch = begin; ch < end; ch++) {
    float invstd = (float)(1.0 / sqrt((double)(j->var ? j->var[ch] : 1.0f) + j->eps));
    float scale = (j->weight ? j->weight[ch] : 1.0f) * invstd;
    float shift = (j->bias ? j->bias[ch] : 0.0f) - (j->mean ? j->mean[ch] : 0.0f) * scale;
    for (int64_t b = 0; b < j->n; b++) {
      const float *xs = j->x + (b * j->c + ch) * j->inner;
      float *ys = j->y + (b * j->c + ch) * j->inner;
      for (int64_t i = 0; i < j->inner; i++) ys[i] = xs[i] * scale + shift;
    }
  }
}

void sc_k_batch_norm_f32(const float *x, float *y, const float *weight, const float *bias, const float *mean,
                         const float *var, int64_t n, int64_t c, int64_t inner, double eps) {
  batch_norm_job j = {x, weight, bias, mean, var, y, n, c, inner, eps};
  int64_t per_channel = n * inner;
  sc_rt_parallel_for(batch_norm_channels, &j, c, per_channel > 0 ? 32768 / per_channel + 1 : c);
}

typedef struct layer_norm_job {
  const float *x, *weight, *bias;
  float *y, *mean_out, *rstd_out;
  int64_t inner;
  double eps;
} layer_norm_job;

/* Horizontal sum of 8 lanes, in double. */
__attribute__((target("avx2,fma"))) static double hsum_avx2(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return (double)_mm_cvtss_f32(s);
}

/* Rows are short and sit in L1, so the three sweeps over a row cost what one does; the
 * sums are float lanes folded into a double every 1024 elements, which keeps long rows
 * accurate without a double per element. */
enum { FOLD = 1024 };

/* The sum of x[i] or, when squared, of (x[i] - mean)^2; inlined into the two callers
 * below with `squared` constant, so neither loop tests it. */
__attribute__((target("avx2,fma"), always_inline)) static inline double folded_sum_avx2(const float *x, int64_t n,
                                                                                     float mean, bool squared) {
  __m256 m = _mm256_set1_ps(mean);
  double sum = 0;
  int64_t i = 0;
  while (i + 8 <= n) {
    int64_t stop = i + FOLD < n ? i + FOLD : n;
    __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
    for (; i + 16 <= stop; i += 16) {
      __m256 d0 = _mm256_loadu_ps(x + i), d1 = _mm256_loadu_ps(x + i + 8);
      if (squared) {
        d0 = _mm256_sub_ps(d0, m);
        d1 = _mm256_sub_ps(d1, m);
        a = _mm256_fmadd_ps(d0, d0, a);
        b = _mm256_fmadd_ps(d1, d1, b);
      } else {
        a = _mm256_add_ps(a, d0);
        b = _mm256_add_ps(b, d1);
      }
    }
    for (; i + 8 <= stop; i += 8) {
      __m256 d = _mm256_loadu_ps(x + i);
      a = squared ? _mm256_fmadd_ps(_mm256_sub_ps(d, m), _mm256_sub_ps(d, m), a) : _mm256_add_ps(a, d);
    }
    sum += hsum_avx2(_mm256_add_ps(a, b));
  }
  for (; i < n; i++) sum += squared ? ((double)x[i] - mean) * ((double)x[i] - mean) : x[i];
  return sum;
}

/* folded_sum_avx2 in 16 lanes: lanes 0-7 of the accumulator are its a, lanes 8-15 its b,
 * so the sums round as there, bit for bit. */
/* lanes 8-15 (AVX-512F alone: no extractf32x8) */
__attribute__((target("avx512f"))) static inline __m256 upper_half(__m512 v) {
  return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}

__attribute__((target("avx2,fma,avx512f"), always_inline)) static inline double folded_sum_avx512(const float *x, int64_t n,
                                                                                       float mean, bool squared) {
  __m512 m = _mm512_set1_ps(mean);
  __m256 m8 = _mm256_set1_ps(mean);
  double sum = 0;
  int64_t i = 0;
  while (i + 8 <= n) {
    int64_t stop = i + FOLD < n ? i + FOLD : n;
    __m512 ab = _mm512_setzero_ps();
    for (; i + 16 <= stop; i += 16) {
      __m512 d = _mm512_loadu_ps(x + i);
      if (squared) {
        d = _mm512_sub_ps(d, m);
        ab = _mm512_fmadd_ps(d, d, ab);
      } else {
        ab = _mm512_add_ps(ab, d);
      }
    }
    __m256 a = _mm512_castps512_ps256(ab), b = upper_half(ab);
    for (; i + 8 <= stop; i += 8) {
      __m256 d = _mm256_loadu_ps(x + i);
      a = squared ? _mm256_fmadd_ps(_mm256_sub_ps(d, m8), _mm256_sub_ps(d, m8), a) : _mm256_add_ps(a, d);
    }
    sum += hsum_avx2(_mm256_add_ps(a, b));
  }
  for (; i < n; i++) sum += squared ? ((double)x[i] - mean) * ((double)x[i] - mean) : x[i];
  return sum;
}

__attribute__((target("avx2,fma"))) static double sum_avx2(const float *x, int64_t n) {
  return folded_sum_avx2(x, n, 0.0f, false);
}

/* sum of (x[i] - mean)^2 */
__attribute__((target("avx2,fma"))) static double squared_deviations_avx2(const float *x, int64_t n, float mean) {
  return folded_sum_avx2(x, n, mean, true);
}

/* y = (x - mean) * rstd * weight + bias, weight and bias optional */
__attribute__((target("avx2,fma"))) static void normalize_row_avx2(const float *x, float *y, const float *weight,
                                                                   const float *bias, int64_t n, float mean,
                                                                   float rstd) {
  __m256 m = _mm256_set1_ps(mean), r = _mm256_set1_ps(rstd), one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), r);
    __m256 w = weight ? _mm256_loadu_ps(weight + i) : one, b = bias ? _mm256_loadu_ps(bias + i) : zero;
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(t, w, b));
  }
  for (; i < n; i++) y[i] = fmaf((x[i] - mean) * rstd, weight ? weight[i] : 1.0f, bias ? bias[i] : 0.0f);
}

/* normalize_row_avx2's operations 16 lanes at a time, then 8, then one: the same bits */
__attribute__((target("avx512f"))) static void normalize_row_avx512(const float *x, float *y, const float *weight,
                                                                  const float *bias, int64_t n, float mean, float rstd) {
  __m512 m = _mm512_set1_ps(mean), r = _mm512_set1_ps(rstd), one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 t = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), m), r);
    __m512 w = weight ? _mm512_loadu_ps(weight + i) : one, b = bias ? _mm512_loadu_ps(bias + i) : zero;
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(t, w, b));
  }
  normalize_row_avx2(x + i, y + i, weight ? weight + i : NULL, bias ? bias + i : NULL, n - i, mean, rstd);
}

/* One row's mean, 1 / std and output (sc_rt_has_avx2 true); wide: in 16 lanes */
__attribute__((target("avx2,fma,avx512f"))) static void layer_norm_row_vector(const float *xr, float *yr,
                                                                             const layer_norm_job *j, bool wide,
                                                                             double *mean_out, double *rstd_out) {
  int64_t inner = j->inner;
  double mean = inner ? (wide ? folded_sum_avx512(xr, inner, 0.0f, false) : sum_avx2(xr, inner)) / (double)inner : 0;
  double sq = wide ? folded_sum_avx512(xr, inner, (float)mean, true) : squared_deviations_avx2(xr, inner, (float)mean);
  double rstd = 1.0 / sqrt((inner ? sq / (double)inner : 0) + j->eps);
  if (wide)
    normalize_row_avx512(xr, yr, j->weight, j->bias, inner, (float)mean, (float)rstd);
  else
    normalize_row_avx2(xr, yr, j->weight, j->bias, inner, (float)mean, (float)rstd);
  *mean_out = mean, *rstd_out = rstd;
}

/* folded_sum_avx2 for n <= 16 in straight-line code: the same operations in the same
 * order (one or two 8-float blocks from 0, then the tail in double), so the same bits */
__attribute__((target("avx2,fma"), always_inline)) static inline double short_sum_avx2(const float *x, int64_t n, float mean,
                                                                                    bool squared) {
  double sum = 0;
  int64_t i = 0;
  if (n >= 8) {
    __m256 m = _mm256_set1_ps(mean), d0 = _mm256_loadu_ps(x), a, b = _mm256_setzero_ps();
    if (squared) d0 = _mm256_sub_ps(d0, m);
    a = squared ? _mm256_fmadd_ps(d0, d0, _mm256_setzero_ps()) : _mm256_add_ps(_mm256_setzero_ps(), d0);
    if (n >= 16) {
      __m256 d1 = _mm256_loadu_ps(x + 8);
      if (squared) d1 = _mm256_sub_ps(d1, m);
      b = squared ? _mm256_fmadd_ps(d1, d1, b) : _mm256_add_ps(b, d1);
    }
    sum += hsum_avx2(_mm256_add_ps(a, b));
    i = n >= 16 ? 16 : 8;
  }
  for (; i < n; i++) sum += squared ? ((double)x[i] - mean) * ((double)x[i] - mean) : x[i];
  return sum;
}

/* hsum_avx2 of eight rows at once, from their blocks transposed (t[k]: element k of each
 * row): lane r is row r's sum, added in hsum_avx2's order, so with its bits. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 lane_sums8(const __m256 t[8]) {
  __m256 u0 = _mm256_add_ps(t[0], t[4]), u1 = _mm256_add_ps(t[1], t[5]);
  __m256 u2 = _mm256_add_ps(t[2], t[6]), u3 = _mm256_add_ps(t[3], t[7]);
  return _mm256_add_ps(_mm256_add_ps(u0, u2), _mm256_add_ps(u1, u3));
}

/* 0.0 + (double)lane, / n, for each lane: short_sum_avx2's total over n.  n is 8 or 16,
 * so the division is the exact multiplication by 1 / n. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256d lanes_over_n(__m128 lanes, int64_t n) {
  return _mm256_mul_pd(_mm256_add_pd(_mm256_setzero_pd(), _mm256_cvtps_pd(lanes)), _mm256_set1_pd(1.0 / (double)n));
}

/* Eight rows of exactly 8 or 16 with one row in each lane: layer_norm_short_rows_avx2's
 * operations in its order (each lane does what one row's scalar chain did), so the same
 * bits; the eight chains of sums, divisions and square roots run as one.  A row at a
 * time, nn.TransformerEncoderLayer(8, 2) spent 28% of its call in its two layer norms. */
/* 1 / sqrt(squares / n + eps) of each lane in double, then float: eight chains as one (the
 * same on 8 lanes of AVX-512 measured slower, 40 -> 50 ns for 8 rows of 8 on a Zen 4) */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 rstd8_avx2(__m256 squares, int64_t n, double eps) {
  __m256d e = _mm256_set1_pd(eps), unit = _mm256_set1_pd(1.0);
  __m256d var_lo = _mm256_add_pd(lanes_over_n(_mm256_castps256_ps128(squares), n), e);
  __m256d var_hi = _mm256_add_pd(lanes_over_n(_mm256_extractf128_ps(squares, 1), n), e);
  return _mm256_set_m128(_mm256_cvtpd_ps(_mm256_div_pd(unit, _mm256_sqrt_pd(var_hi))),
                         _mm256_cvtpd_ps(_mm256_div_pd(unit, _mm256_sqrt_pd(var_lo))));
}

__attribute__((target("avx2,fma"), always_inline)) static inline void eight_rows_avx2(const layer_norm_job *j, int64_t r0,
                                                                                     const int64_t blocks) {
  const int64_t n = 8 * blocks;
  const float *x = j->x + r0 * n;
  float *y = j->y + r0 * n;
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  __m256 t[2][8], v[8];
  for (int64_t b = 0; b < blocks; b++) {
    for (int r = 0; r < 8; r++) t[b][r] = _mm256_loadu_ps(x + r * n + 8 * b);
    transpose8(t[b]);
  }
  for (int k = 0; k < 8; k++) /* short_sum_avx2: a = 0 + d0, b = 0 (+ d1), a + b */
    v[k] = _mm256_add_ps(_mm256_add_ps(zero, t[0][k]), blocks == 2 ? _mm256_add_ps(zero, t[1][k]) : zero);
  __m256 sums = lane_sums8(v);
  /* (float)((double)sum / n) is sum * (1 / n) in float for n a power of two: both round
   * the same exact value once (the double quotient is exact); a shorter chain */
  __m256 mf = _mm256_mul_ps(sums, _mm256_set1_ps(1.0f / (float)n));
  for (int k = 0; k < 8; k++) { /* squared: a = fma(d0, d0, 0), b = 0 (or fma(d1, d1, 0)), a + b */
    __m256 d0 = _mm256_sub_ps(t[0][k], mf), d1 = blocks == 2 ? _mm256_sub_ps(t[1][k], mf) : zero;
    v[k] = _mm256_add_ps(_mm256_fmadd_ps(d0, d0, zero), blocks == 2 ? _mm256_fmadd_ps(d1, d1, zero) : zero);
  }
  __m256 squares = lane_sums8(v);
  __m256 rf = rstd8_avx2(squares, n, j->eps);
  for (int r = 0; r < 8; r++) {
    __m256i lane = _mm256_set1_epi32(r);
    __m256 m = _mm256_permutevar8x32_ps(mf, lane), rv = _mm256_permutevar8x32_ps(rf, lane);
    for (int64_t b = 0; b < blocks; b++) {
      __m256 o = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + r * n + 8 * b), m), rv);
      __m256 w = j->weight ? _mm256_loadu_ps(j->weight + 8 * b) : one, c = j->bias ? _mm256_loadu_ps(j->bias + 8 * b) : zero;
      _mm256_storeu_ps(y + r * n + 8 * b, _mm256_fmadd_ps(o, w, c));
    }
  }
  if (j->mean_out) _mm256_storeu_ps(j->mean_out + r0, mf);
  if (j->rstd_out) _mm256_storeu_ps(j->rstd_out + r0, rf);
}

/* with the rows' length a constant: a variable one kept t[][] on the stack */
__attribute__((target("avx2,fma"))) static void layer_norm_eight_rows_avx2(const layer_norm_job *j, int64_t r0) {
  if (j->inner == 8) eight_rows_avx2(j, r0, 1);
  else eight_rows_avx2(j, r0, 2);
}

/* Rows of at most 16: layer_norm_row_vector's arithmetic without its loops and calls, so
 * that one row's chain (two sums across lanes, a division, a square root) overlaps the
 * next one's: [8, 8] took 20 ns a row, 330 ns of nn.TransformerEncoderLayer(8, 2) on
 * [2, 4, 8]. */
__attribute__((target("avx2,fma"))) static void layer_norm_short_rows_avx2(const layer_norm_job *j, int64_t begin,
                                                                          int64_t end) {
  const int64_t n = j->inner;
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  if (n == 8 || n == 16)
    for (; begin + 8 <= end; begin += 8) layer_norm_eight_rows_avx2(j, begin);
  for (int64_t r = begin; r < end; r++) {
    const float *xr = j->x + r * n;
    float *yr = j->y + r * n;
    double mean = short_sum_avx2(xr, n, 0.0f, false) / (double)n;
    double rstd = 1.0 / sqrt(short_sum_avx2(xr, n, (float)mean, true) / (double)n + j->eps);
    float mf = (float)mean, rf = (float)rstd;
    __m256 m = _mm256_set1_ps(mf), rv = _mm256_set1_ps(rf);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) { /* normalize_row_avx2's steps */
      __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + i), m), rv);
      __m256 w = j->weight ? _mm256_loadu_ps(j->weight + i) : one, b = j->bias ? _mm256_loadu_ps(j->bias + i) : zero;
      _mm256_storeu_ps(yr + i, _mm256_fmadd_ps(t, w, b));
    }
    for (; i < n; i++) yr[i] = fmaf((xr[i] - mf) * rf, j->weight ? j->weight[i] : 1.0f, j->bias ? j->bias[i] : 0.0f);
    if (j->mean_out) j->mean_out[r] = mf;
    if (j->rstd_out) j->rstd_out[r] = rf;
  }
}

static void layer_norm_rows(void *arg, int64_t begin, int64_t end) {
  const layer_norm_job *j = arg;
  int64_t inner = j->inner;
  int avx2 = sc_rt_has_avx2(), wide = sc_rt_has_avx512();
  if (avx2 && inner > 0 && inner <= 16) {
    layer_norm_short_rows_avx2(j, begin, end);
    return;
  }
  for (int64_t r = begin; r < end; r++) {
    const float *xr = j->x + r * inner;
    float *yr = j->y + r * inner;
    double mean, rstd;
    if (avx2) {
      layer_norm_row_vector(xr, yr, j, wide, &mean, &rstd);
    } else {
      double sum = 0, sq = 0;
      for (int64_t i = 0; i < inner; i++) sum += xr[i];
      mean = inner ? sum / (double)inner : 0;
      for (int64_t i = 0; i < inner; i++) sq += ((double)xr[i] - mean) * ((double)xr[i] - mean);
      rstd = 1.0 / sqrt((inner ? sq / (double)inner : 0) + j->eps);
      for (int64_t i = 0; i < inner; i++) {
        float v = (float)(((double)xr[i] - mean) * rstd);
        yr[i] = v * (j->weight ? j->weight[i] : 1.0f) + (j->bias ? j->bias[i] : 0.0f);
      }
    }
    if (j->mean_out) j->mean_out[r] = (float)mean;
    if (j->rstd_out) j->rstd_out[r] = (float)rstd;
  }
}

/* As torch's composite: the mean of squares (summed in double here), plus eps and the
 * reciprocal square root in float32, then x times it, then the weight. */
void sc_k_rms_norm_f32(const float *x, float *y, const float *weight, int64_t rows, int64_t cols, double eps) {
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    double sq = 0;
    for (int64_t c = 0; c < cols; c++) sq += (double)xr[c] * xr[c];
    float scale = 1.0f / sqrtf((float)(sq / (double)(cols ? cols : 1)) + (float)eps);
    for (int64_t c = 0; c < cols; c++) yr[c] = weight ? xr[c] * scale * weight[c] : xr[c] * scale;
  }
}

void sc_k_layer_norm_f32(const float *x, float *y, const float *weight, const float *bias, float *mean_out,
                         float *rstd_out, int64_t outer, int64_t inner, double eps) {
  layer_norm_job j = {x, weight, bias, y, mean_out, rstd_out, inner, eps};
  sc_rt_parallel_for(layer_norm_rows, &j, outer, inner > 0 ? 16384 / inner + 1 : outer);
}

/* y[i] = exp(x[i] - shift); returns the sum of y (float lanes folded into a double every
 * FOLD elements). */
__attribute__((target("avx2,fma"))) static double exp_shift_avx2(const float *x, float *y, int64_t n, float shift) {
  __m256 s = _mm256_set1_ps(shift);
  double sum = 0;
  int64_t i = 0;
  while (i + 8 <= n) {
    int64_t stop = i + FOLD < n ? i + FOLD : n;
    __m256 acc = _mm256_setzero_ps();
    for (; i + 8 <= stop; i += 8) {
      __m256 e = exp_nonpositive8(_mm256_sub_ps(_mm256_loadu_ps(x + i), s));
      _mm256_storeu_ps(y + i, e);
      acc = _mm256_add_ps(acc, e);
    }
    sum += hsum_avx2(acc);
  }
  for (; i < n; i++) sum += (y[i] = expf(x[i] - shift));
  return sum;
}

/* exp_shift_avx2 16 lanes at a time: each half adds into its 8-lane sum in the order that
 * function adds them, so the exponentials and the sum have its bits. */
__attribute__((target("avx2,fma,avx512f"))) static double exp_shift_avx512(const float *x, float *y, int64_t n,
                                                                          float shift) {
  __m512 s = _mm512_set1_ps(shift);
  __m256 s8 = _mm256_set1_ps(shift);
  double sum = 0;
  int64_t i = 0;
  while (i + 8 <= n) {
    int64_t stop = i + FOLD < n ? i + FOLD : n;
    __m256 acc = _mm256_setzero_ps();
    for (; i + 16 <= stop; i += 16) {
      __m512 e = exp_nonpositive16(_mm512_sub_ps(_mm512_loadu_ps(x + i), s));
      _mm512_storeu_ps(y + i, e);
      acc = _mm256_add_ps(acc, _mm512_castps512_ps256(e));
      acc = _mm256_add_ps(acc, upper_half(e));
    }
    for (; i + 8 <= stop; i += 8) {
      __m256 e = exp_nonpositive8(_mm256_sub_ps(_mm256_loadu_ps(x + i), s8));
      _mm256_storeu_ps(y + i, e);
      acc = _mm256_add_ps(acc, e);
    }
    sum += hsum_avx2(acc);
  }
  for (; i < n; i++) sum += (y[i] = expf(x[i] - shift));
  return sum;
}

/* the largest of x; NaN is ignored (it makes the sum NaN later, as in ATen) */
__attribute__((target("avx2,fma"))) static float max_avx2(const float *x, int64_t n) {
  __m256 m = _mm256_set1_ps(-INFINITY);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) m = _mm256_max_ps(_mm256_loadu_ps(x + i), m); /* a NaN lane keeps m */
  float lanes[8], mx = -INFINITY;
  _mm256_storeu_ps(lanes, m);
  for (int k = 0; k < 8; k++) mx = lanes[k] > mx ? lanes[k] : mx;
  for (; i < n; i++) mx = x[i] > mx ? x[i] : mx;
  return mx;
}

__attribute__((target("avx2,fma"))) static void scale_avx2(float *y, int64_t n, float k) {
  __m256 kv = _mm256_set1_ps(k);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), kv));
  for (; i < n; i++) y[i] *= k;
}

__attribute__((target("avx512f"))) static void scale_avx512(float *y, int64_t n, float k) {
  __m512 kv = _mm512_set1_ps(k);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), kv));
  for (; i < n; i++) y[i] *= k;
}

static double exp_shift(const float *x, float *y, int64_t n, float shift) {
  if (sc_rt_has_avx512()) return exp_shift_avx512(x, y, n, shift);
  if (sc_rt_has_avx2()) return exp_shift_avx2(x, y, n, shift);
  double sum = 0;
  for (int64_t i = 0; i < n; i++) sum += (y[i] = expf(x[i] - shift));
  return sum;
}

typedef struct softmax_job {
  const float *x;
  float *y;
  int64_t n;
  int32_t log;
} softmax_job;

static double log_of(double v) { return log(v); } /* `log` is a flag in the softmax's functions */

/* The first n (1 to 4) floats of v to dst, and nothing after them */
__attribute__((target("avx2,fma"))) static inline void store_first_floats(float *dst, __m128 v, int64_t n) {
  if (n == 4) {
    _mm_storeu_ps(dst, v);
    return;
  }
  if (n & 2) _mm_storel_pi((__m64 *)dst, v), v = _mm_movehl_ps(v, v), dst += 2;
  if (n & 1) _mm_store_ss(dst, v);
}

/* A softmax (or log-softmax) row of at most 8 in one vector: the lanes past the row are
 * -inf (their exponentials 0), the maximum and the sum across lanes by shuffles, the
 * row written through a buffer (no masked stores: AMD's Zen microcodes them).  Rows of 4
 * went through the general functions' scalar tails, libm's expf an element: 25 ns a row,
 * half of a tiny attention's softmax(q k^T) v. */
__attribute__((target("avx2,fma"))) static void softmax_short_row_avx2(const float *xs, float *ys, int64_t n,
                                                                       int32_t log) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256 in = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lane));
  __m256 x = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), _mm256_maskload_ps(xs, _mm256_castps_si256(in)), in);
  /* the maximum, NaN ignored as in max_avx2: max(x, m) returns m where x is NaN */
  __m256 m = _mm256_max_ps(x, _mm256_set1_ps(-INFINITY));
  m = _mm256_max_ps(m, _mm256_permute2f128_ps(m, m, 1));
  m = _mm256_max_ps(m, _mm256_permute_ps(m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm256_max_ps(m, _mm256_permute_ps(m, _MM_SHUFFLE(2, 3, 0, 1)));
  float mx = _mm256_cvtss_f32(m);
  /* a NaN or an infinite maximum makes the sum NaN, and so every output, as in ATen */
  __m256 e = _mm256_and_ps(exp_nonpositive8(_mm256_sub_ps(x, m)), in);
  double sum = hsum_avx2(e);
  float out[8];
  if (log) {
    float lse = (float)(mx + log_of(sum));
    _mm256_storeu_ps(out, _mm256_sub_ps(x, _mm256_set1_ps(lse)));
  } else {
    _mm256_storeu_ps(out, _mm256_mul_ps(e, _mm256_set1_ps((float)(1.0 / sum))));
  }
  for (int64_t i = 0; i < n; i++) ys[i] = out[i];
}

/* Two rows of at most 4 (consecutive: the second n floats after the first), one per
 * 128-bit half: softmax_short_row_avx2's steps within each half, in the same order, so
 * each row gets the bits it gets alone (its upper half's lanes are -inf there, adding 0).
 * The tiny attention's softmax over 4 keys: 13 -> 7 ns a row. */
__attribute__((target("avx2,fma"))) static void softmax_row_pair_avx2(const float *xs, float *ys, int64_t n,
                                                                      int32_t log) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3);
  __m256 in = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lane));
  __m128i in4 = _mm_castps_si128(_mm256_castps256_ps128(in));
  __m256 x = _mm256_set_m128(_mm_maskload_ps(xs + n, in4), _mm_maskload_ps(xs, in4));
  x = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), x, in);
  __m256 m = _mm256_max_ps(x, _mm256_set1_ps(-INFINITY)); /* NaN ignored, as in max_avx2 */
  m = _mm256_max_ps(m, _mm256_permute_ps(m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm256_max_ps(m, _mm256_permute_ps(m, _MM_SHUFFLE(2, 3, 0, 1)));
  __m256 e = _mm256_and_ps(exp_nonpositive8(_mm256_sub_ps(x, m)), in);
  /* hsum_avx2's order within each half: (e0 + e2) + (e1 + e3) */
  __m256 sum = _mm256_add_ps(e, _mm256_permute_ps(e, _MM_SHUFFLE(1, 0, 3, 2)));
  sum = _mm256_add_ps(sum, _mm256_permute_ps(sum, _MM_SHUFFLE(2, 3, 0, 1)));
  double s0 = _mm256_cvtss_f32(sum), s1 = _mm_cvtss_f32(_mm256_extractf128_ps(sum, 1));
  __m256 out;
  if (log) {
    float m0 = _mm256_cvtss_f32(m), m1 = _mm_cvtss_f32(_mm256_extractf128_ps(m, 1));
    out = _mm256_sub_ps(x, _mm256_set_m128(_mm_set1_ps((float)(m1 + log_of(s1))), _mm_set1_ps((float)(m0 + log_of(s0)))));
  } else {
    out = _mm256_mul_ps(e, _mm256_set_m128(_mm_set1_ps((float)(1.0 / s1)), _mm_set1_ps((float)(1.0 / s0))));
  }
  store_first_floats(ys, _mm256_castps256_ps128(out), n);
  store_first_floats(ys + n, _mm256_extractf128_ps(out, 1), n);
}

/* Rows [begin, end) of a softmax over contiguous rows of n. */
static void softmax_rows(void *arg, int64_t begin, int64_t end) {
  const softmax_job *j = arg;
  int avx2 = sc_rt_has_avx2();
  for (int64_t r = begin; r < end; r++) {
    const float *xs = j->x + r * j->n;
    float *ys = j->y + r * j->n;
    if (avx2 && j->n > 0 && j->n <= 4 && r + 1 < end) {
      softmax_row_pair_avx2(xs, ys, j->n, j->log);
      r++;
      continue;
    }
    if (avx2 && j->n > 0 && j->n <= 8) {
      softmax_short_row_avx2(xs, ys, j->n, j->log);
      continue;
    }
    /* a NaN (ignored by the max) or an infinite max makes the sum NaN, and every output
     * NaN, as in ATen */
    float mx;
    if (avx2) {
      mx = max_avx2(xs, j->n);
    } else {
      mx = -INFINITY;
      for (int64_t i = 0; i < j->n; i++) mx = xs[i] > mx ? xs[i] : mx;
    }
    if (j->log) {
      double sum = 0;
      if (xs != ys) { /* the exponentials go to the output first, then are overwritten */
        sum = exp_shift(xs, ys, j->n, mx);
      } else {
        for (int64_t i = 0; i < j->n; i++) sum += exp((double)(xs[i] - mx));
      }
      float lse = (float)(mx + log(sum));
      for (int64_t i = 0; i < j->n; i++) ys[i] = xs[i] - lse;
      continue;
    }
    float inv = (float)(1.0 / exp_shift(xs, ys, j->n, mx));
    if (sc_rt_has_avx512()) {
      scale_avx512(ys, j->n, inv);
    } else if (avx2) {
      scale_avx2(ys, j->n, inv);
    } else {
      for (int64_t i = 0; i < j->n; i++) ys[i] *= inv;
    }
  }
}

/* Softmax along dim n of [outer, n, inner], one column alone: one element at a time */
static void softmax_column(const float *xs, float *ys, int64_t n, int64_t inner, int32_t log) {
  float mx = -INFINITY;
  for (int64_t i = 0; i < n; i++) mx = xs[i * inner] > mx ? xs[i * inner] : mx;
  double sum = 0;
  for (int64_t i = 0; i < n; i++) sum += exp((double)(xs[i * inner] - mx));
  if (log) {
    float lse = (float)(mx + logf((float)sum));
    for (int64_t i = 0; i < n; i++) ys[i * inner] = xs[i * inner] - lse;
  } else {
    for (int64_t i = 0; i < n; i++) ys[i * inner] = (float)(exp((double)(xs[i * inner] - mx)) / sum);
  }
}

enum { SOFTMAX_FOLD = 64 }; /* rows of float lanes added before they go into the double sums */

/* The same for eight adjacent columns at once, one lane each, as the rows do it: the max
 * (NaN ignored), exp(x - max) inline with its sum in float lanes folded into double every
 * SOFTMAX_FOLD rows, then the scaling by 1 / sum (or x - max - log sum). */
__attribute__((target("avx2,fma"))) static void softmax_columns8(const float *x, float *y, int64_t n, int64_t inner,
                                                                 int32_t log) {
  __m256 m = _mm256_set1_ps(-INFINITY);
  for (int64_t i = 0; i < n; i++) m = _mm256_max_ps(_mm256_loadu_ps(x + i * inner), m); /* a NaN lane keeps m */
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  for (int64_t i0 = 0; i0 < n; i0 += SOFTMAX_FOLD) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = i0; i < n && i < i0 + SOFTMAX_FOLD; i++) {
      __m256 e = exp_nonpositive8(_mm256_sub_ps(_mm256_loadu_ps(x + i * inner), m));
      if (!log) _mm256_storeu_ps(y + i * inner, e);
      acc = _mm256_add_ps(acc, e);
    }
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(acc)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(acc, 1)));
  }
  double sum[8];
  float mx[8], k[8];
  _mm256_storeu_pd(sum, lo);
  _mm256_storeu_pd(sum + 4, hi);
  _mm256_storeu_ps(mx, m);
  for (int l = 0; l < 8; l++) k[l] = log ? (float)(mx[l] + log_of(sum[l])) : (float)(1.0 / sum[l]);
  __m256 kv = _mm256_loadu_ps(k);
  for (int64_t i = 0; i < n; i++) {
    float *yi = y + i * inner;
    if (log) _mm256_storeu_ps(yi, _mm256_sub_ps(_mm256_loadu_ps(x + i * inner), kv));
    else _mm256_storeu_ps(yi, _mm256_mul_ps(_mm256_loadu_ps(yi), kv));
  }
}

typedef struct softmax_columns_job {
  const float *x;
  float *y;
  int64_t n, inner, blocks; /* blocks of 8 columns per slab */
  int32_t log;
} softmax_columns_job;

static void softmax_column_blocks(void *arg, int64_t begin, int64_t end) {
  const softmax_columns_job *j = arg;
  bool avx2 = sc_rt_has_avx2();
  for (int64_t t = begin; t < end; t++) {
    int64_t o = t / j->blocks, c0 = (t % j->blocks) * 8, c1 = c0 + 8 < j->inner ? c0 + 8 : j->inner;
    const float *x = j->x + o * j->n * j->inner;
    float *y = j->y + o * j->n * j->inner;
    if (avx2 && c1 - c0 == 8) {
      softmax_columns8(x + c0, y + c0, j->n, j->inner, j->log);
      continue;
    }
    for (int64_t c = c0; c < c1; c++) softmax_column(x + c, y + c, j->n, j->inner, j->log);
  }
}

void sc_k_softmax_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t log) {
  if (inner == 1) { /* the common case, softmax over the last dim: rows on the pool */
    softmax_job j = {x, y, n, log};
    sc_rt_parallel_for(softmax_rows, &j, outer, n > 0 ? 16384 / n + 1 : 1);
    return;
  }
  /* another dim: columns, eight at a time (a softmax over dim 1 of [64, 512, 64] took 2.7x
   * torch's time one column at a time with exp in double) */
  int64_t blocks = (inner + 7) / 8, per_task = n * 8;
  softmax_columns_job j = {x, y, n, inner, blocks, log};
  sc_rt_parallel_for(softmax_column_blocks, &j, outer * blocks, per_task > 0 ? 16384 / per_task + 1 : outer * blocks);
}


/* Batch norm with the batch's own statistics (_native_batch_norm_legit.no_stats, what
 * run_decompositions() makes of instance norm): per channel, the mean and biased variance
 * over the batch and the pixels, summed in double; then the channel's weight and bias. */
void sc_k_batch_stats_norm_f32(const float *x, float *y, const float *weight, const float *bias, float *mean_out,
                               float *rstd_out, int64_t n, int64_t c, int64_t inner, double eps) {
  for (int64_t ch = 0; ch < c; ch++) {
    double sum = 0, sq = 0;
    int64_t count = n * inner;
    for (int64_t b = 0; b < n; b++)
      for (int64_t i = 0; i < inner; i++) sum += x[(b * c + ch) * inner + i];
    double mean = count ? sum / (double)count : 0;
    for (int64_t b = 0; b < n; b++)
      for (int64_t i = 0; i < inner; i++) {
        double d = x[(b * c + ch) * inner + i] - mean;
        sq += d * d;
      }
    double rstd = 1.0 / sqrt((count ? sq / (double)count : 0) + eps);
    float w = weight ? weight[ch] : 1.0f, bb = bias ? bias[ch] : 0.0f;
    for (int64_t b = 0; b < n; b++)
      for (int64_t i = 0; i < inner; i++) {
        int64_t at = (b * c + ch) * inner + i;
        y[at] = (float)((x[at] - mean) * rstd) * w + bb;
      }
    if (mean_out) mean_out[ch] = (float)mean;
    if (rstd_out) rstd_out[ch] = (float)rstd;
  }
}

/* glu: a * sigmoid(b), the sigmoid as ATen's 1 / (1 + exp(-b)) in the tensor's dtype */
void sc_k_glu(const void *x, void *out, int32_t kind, int64_t outer, int64_t half, int64_t inner) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < half; j++)
      for (int64_t i = 0; i < inner; i++) {
        int64_t a = (o * 2 * half + j) * inner + i, b = a + half * inner, at = (o * half + j) * inner + i;
        if (kind == SC_KIND_F32) {
          float bv = ((const float *)x)[b];
          ((float *)out)[at] = ((const float *)x)[a] * (1.0f / (1.0f + expf(-bv)));
        } else {
          double bv = ((const double *)x)[b];
          ((double *)out)[at] = ((const double *)x)[a] * (1.0 / (1.0 + exp(-bv)));
        }
      }
}
