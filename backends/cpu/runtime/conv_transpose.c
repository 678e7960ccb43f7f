/* conv_transpose.c - transposed convolution over NCHW images (the gradient of a convolution
 * with respect to its input).  The weight is [c, o/groups, kh, kw].
 *
 * Two ways, by shape:
 * - Taps that never overlap (stride = kernel, no padding, no dilation: the 2x2/2 upsampling
 *   of U-Nets and decoders) with few input channels: each output pixel is one short dot
 *   product, computed in place, row by row.  No column matrix, no product call: a tiny
 *   layer's time had been mostly their set-up.
 * - Any other: per image and group, col = W^T X as a GEMM ([og*kh*kw, cg] x [cg, h*w]),
 *   then each column entry goes to the output pixel it lands on (col2im).  With as many
 *   images and groups as threads, each thread takes whole ones, col2im included: split
 *   products with a serial col2im between them had left the second core idle (ConvTranspose2d
 *   64 -> 32, 3x3/2 on [8, 64, 32, 32]: 5.8 ms on two threads, 2.9 ms now). */
#include <immintrin.h>
#include <stdbool.h>

#include "kernels.h"

typedef struct conv_transpose_job {
  const float *x, *w, *bias;
  float *y;
  int64_t n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow;
} conv_transpose_job;

/* The in-place way's limit: past it the product's blocking pays for its set-up. */
enum { DISJOINT_MAX_CHANNELS = 16 };

static bool taps_disjoint(const conv_transpose_job *j) {
  return j->sh == j->kh && j->sw == j->kw && j->ph == 0 && j->pw == 0 && j->dh == 1 && j->dw == 1 &&
         j->oh >= j->h * j->kh && j->ow >= j->wd * j->kw;
}

/* Where output plane `index` (image b, channel oc: b * o + oc) of disjoint taps reads its
 * input and weights.  Output row iy * kh + i, column ix * kw + t is bias + the sum over the
 * group's channels of x[ch, iy, ix] * w[ch, oc, i, t]; the sum runs in channel order and
 * the bias comes last, as a product followed by a bias add.  Rows and columns past
 * h * kh, w * kw (the output padding) hold the bias alone. */
typedef struct disjoint_plane {
  const float *x, *w; /* the group's first channel; channel ch's taps at w + ch * stride */
  int64_t channels, w_stride;
  float bias, *y;
} disjoint_plane;

/* Output plane `index` = b * o + oc; g = oc / og.  The caller steps through the planes, so
 * nothing here divides (three divisions a plane were a sixth of a tiny layer's time). */
static disjoint_plane plane_at(const conv_transpose_job *j, int64_t index, int64_t b, int64_t oc, int64_t g) {
  int64_t og = j->o / j->groups, cg = j->c / j->groups;
  return (disjoint_plane){j->x + (b * j->c + g * cg) * j->h * j->wd, j->w + (g * cg * og + oc - g * og) * j->kh * j->kw,
                          cg, og * j->kh * j->kw, j->bias ? j->bias[oc] : 0.0f, j->y + index * j->oh * j->ow};
}

static void bias_margins(const conv_transpose_job *j, const disjoint_plane *d) {
  for (int64_t r = 0; r < j->h * j->kh; r++)
    for (int64_t ox = j->wd * j->kw; ox < j->ow; ox++) d->y[r * j->ow + ox] = d->bias;
  for (int64_t p = j->h * j->kh * j->ow; p < j->oh * j->ow; p++) d->y[p] = d->bias;
}

/* Any kw: one output at a time, its sum in a register. */
static void disjoint_plane_scalar(const conv_transpose_job *j, const disjoint_plane *d) {
  int64_t h = j->h, wd = j->wd, kh = j->kh, kw = j->kw;
  for (int64_t iy = 0; iy < h; iy++)
    for (int64_t i = 0; i < kh; i++) {
      float *yr = d->y + (iy * kh + i) * j->ow;
      for (int64_t ix = 0; ix < wd; ix++)
        for (int64_t t = 0; t < kw; t++) {
          float sum = 0.0f;
          for (int64_t ch = 0; ch < d->channels; ch++) sum += d->x[(ch * h + iy) * wd + ix] * d->w[ch * d->w_stride + i * kw + t];
          yr[ix * kw + t] = sum + d->bias;
        }
    }
  bias_margins(j, d);
}

/* kw = 2 (the common 2x2/2): 8 input columns a step, both taps' sums in registers, then
 * interleaved into 16 output columns. */
__attribute__((target("avx2,fma"))) static void disjoint_plane_kw2_avx2(const conv_transpose_job *j,
                                                                        const disjoint_plane *d) {
  int64_t h = j->h, wd = j->wd, kh = j->kh;
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256 bias = _mm256_set1_ps(d->bias);
  for (int64_t iy = 0; iy < h; iy++)
    for (int64_t i = 0; i < kh; i++) {
      float *yr = d->y + (iy * kh + i) * j->ow;
      for (int64_t ix = 0; ix < wd; ix += 8) {
        int64_t left = wd - ix < 8 ? wd - ix : 8;
        __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)left), lanes);
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
        for (int64_t ch = 0; ch < d->channels; ch++) {
          __m256 xv = _mm256_maskload_ps(d->x + (ch * h + iy) * wd + ix, in);
          const float *taps = d->w + ch * d->w_stride + i * 2;
          s0 = _mm256_fmadd_ps(xv, _mm256_broadcast_ss(taps), s0);
          s1 = _mm256_fmadd_ps(xv, _mm256_broadcast_ss(taps + 1), s1);
        }
        s0 = _mm256_add_ps(s0, bias);
        s1 = _mm256_add_ps(s1, bias);
        __m256 lo = _mm256_unpacklo_ps(s0, s1), hi = _mm256_unpackhi_ps(s0, s1);
        __m256 first = _mm256_permute2f128_ps(lo, hi, 0x20), second = _mm256_permute2f128_ps(lo, hi, 0x31);
        float *out = yr + 2 * ix;
        /* no masked store for the tail: AMD's take microcode, 40% of a tiny layer's time */
        if (left >= 4) _mm256_storeu_ps(out, first);
        if (left == 8) _mm256_storeu_ps(out + 8, second);
        else if (left != 4) {
          float rest[8];
          _mm256_storeu_ps(rest, left > 4 ? second : first);
          for (int64_t k = left > 4 ? 8 : 0; k < 2 * left; k++) out[k] = rest[k & 7];
        }
      }
    }
  bias_margins(j, d);
}

static void disjoint_planes(void *arg, int64_t begin, int64_t end) {
  const conv_transpose_job *j = arg;
  bool kw2 = j->kw == 2 && sc_rt_has_avx2();
  int64_t og = j->o / j->groups, b = begin / j->o, oc = begin % j->o, g = oc / og;
  for (int64_t p = begin; p < end; p++) {
    disjoint_plane d = plane_at(j, p, b, oc, g);
    if (kw2) disjoint_plane_kw2_avx2(j, &d);
    else disjoint_plane_scalar(j, &d);
    if (++oc == j->o) oc = 0, g = 0, b++;
    else if (oc == (g + 1) * og) g++;
  }
}

/* col2im: each column entry (rows: tap (i, t), columns: input pixel) is added to the
 * output pixel it lands on. */
static void add_taps(const conv_transpose_job *j, const float *col, float *plane) {
  int64_t pixels = j->h * j->wd;
  for (int64_t i = 0; i < j->kh; i++)
    for (int64_t t = 0; t < j->kw; t++) {
      const float *row = col + (i * j->kw + t) * pixels;
      for (int64_t iy = 0; iy < j->h; iy++) {
        int64_t oy = iy * j->sh - j->ph + i * j->dh;
        if (oy < 0 || oy >= j->oh) continue;
        for (int64_t ix = 0; ix < j->wd; ix++) {
          int64_t ox = ix * j->sw - j->pw + t * j->dw;
          if (ox >= 0 && ox < j->ow) plane[oy * j->ow + ox] += row[iy * j->wd + ix];
        }
      }
    }
}

/* col2im for disjoint taps: each output pixel takes exactly one column entry, so it is
 * written once, bias included, instead of filled with the bias and then added to. */
static void place_taps(const conv_transpose_job *j, const float *col, float *plane, float bias) {
  int64_t pixels = j->h * j->wd, kh = j->kh, kw = j->kw, wd = j->wd, ow = j->ow;
  for (int64_t iy = 0; iy < j->h; iy++)
    for (int64_t i = 0; i < kh; i++) {
      float *yr = plane + (iy * kh + i) * ow;
      const float *tap = col + i * kw * pixels + iy * wd;
      if (kw == 2) { /* an interleave of two rows, which vectorizes */
        for (int64_t ix = 0; ix < wd; ix++) {
          yr[2 * ix] = bias + tap[ix];
          yr[2 * ix + 1] = bias + tap[pixels + ix];
        }
      } else {
        for (int64_t ix = 0; ix < wd; ix++)
          for (int64_t t = 0; t < kw; t++) yr[ix * kw + t] = bias + tap[t * pixels + ix];
      }
      for (int64_t ox = wd * kw; ox < ow; ox++) yr[ox] = bias;
    }
  for (int64_t p = j->h * kh * ow; p < j->oh * ow; p++) plane[p] = bias;
}

/* The product way for item b * groups + g (image b, group g), with col [og * kh * kw, h * w]
 * as scratch. */
static int product_item(const conv_transpose_job *j, int64_t item, float *col) {
  int64_t b = item / j->groups, g = item % j->groups;
  int64_t cg = j->c / j->groups, og = j->o / j->groups, pixels = j->h * j->wd, rows = og * j->kh * j->kw;
  int64_t plane_size = j->oh * j->ow;
  float *yg = j->y + (b * j->o + g * og) * plane_size;
  bool product = rows * pixels > 0 && cg > 0, disjoint = taps_disjoint(j);
  if (product) {
    int rc = sc_k_conv_gemm_f32(rows, pixels, cg, j->w + g * cg * rows, 1, j->x + (b * j->c + g * cg) * pixels, 0, col,
                                1.0f, 0.0f);
    if (rc) return rc;
  }
  for (int64_t oc = 0; oc < og; oc++) {
    float *plane = yg + oc * plane_size, bias = j->bias ? j->bias[g * og + oc] : 0.0f;
    const float *taps = col + oc * j->kh * j->kw * pixels;
    if (product && disjoint) {
      place_taps(j, taps, plane, bias);
      continue;
    }
    for (int64_t p = 0; p < plane_size; p++) plane[p] = bias;
    if (product) add_taps(j, taps, plane);
  }
  return SHAPEC_OK;
}

typedef struct product_items_job {
  const conv_transpose_job *j;
  int rc; /* the first failure, if any */
} product_items_job;

/* Items [begin, end) on one thread with its own column matrix; their products run on this
 * thread (the pool is busy). */
static void product_items(void *arg, int64_t begin, int64_t end) {
  product_items_job *pj = arg;
  const conv_transpose_job *j = pj->j;
  int64_t bytes = j->o / j->groups * j->kh * j->kw * j->h * j->wd * (int64_t)sizeof(float);
  float *col = bytes > 0 ? sc_rt_alloc(bytes) : NULL;
  int rc = bytes > 0 && !col ? SHAPEC_ERR_MEMORY : SHAPEC_OK;
  for (int64_t it = begin; it < end && !rc; it++) rc = product_item(j, it, col);
  sc_rt_free(col);
  if (rc) __atomic_store_n(&pj->rc, rc, __ATOMIC_RELAXED);
}

int sc_k_conv_transpose2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                              int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                              int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow) {
  /* an empty output has nothing to compute, nor a column matrix to allocate per image */
  if (n == 0 || o == 0 || oh == 0 || ow == 0) return SHAPEC_OK;
  conv_transpose_job j = {x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow};
  if (taps_disjoint(&j) && c / groups <= DISJOINT_MAX_CHANNELS) {
    int64_t per_plane = oh * ow * (c / groups + 1);
    sc_rt_parallel_for(disjoint_planes, &j, n * o, per_plane > 0 ? 32768 / per_plane + 1 : n * o);
    return SHAPEC_OK;
  }
  /* enough images and groups to go round: one per thread, each product on its thread
   * (col2im then runs in parallel too); else one at a time, each product split */
  product_items_job pj = {&j, SHAPEC_OK};
  int64_t items = n * groups;
  if (sc_rt_num_threads() > 1 && items >= sc_rt_num_threads()) sc_rt_parallel_for(product_items, &pj, items, 1);
  else product_items(&pj, 0, items);
  return pj.rc;
}
