/* upsample.c - bilinear, bicubic and nearest upsampling of NCHW planes
 * (aten.upsample_bilinear2d.vec, upsample_bicubic2d.vec, aten.upsample_nearest2d.vec by
 * factors that are not powers of two).
 *
 * Each output row and column has a source position computed in float as torch 2.14's CPU
 * kernel does: with align_corners the corners map to the corners, scale (in - 1) / (out - 1),
 * position scale dst; without, pixel centers map to pixel centers, scale 1 / scale_factor
 * where the program gives one and in / out otherwise, position (dst + 0.5) scale - 0.5 in one
 * fused multiply-add, never below 0.  The position's whole part is the first of two
 * neighbours (the second the same at the last row or column), its fraction the second's
 * weight.  An output is x00 w00 + x01 w01 + x10 w10 + x11 w11 (w01 = h0 w1, ...) as torch's
 * compiled sum runs it: x01 w01 first, then the others fused in, in that order.  Checked
 * bit for bit against torch 2.14 (test/cpu/tiny_ops/upsample_bilinear). */
#include <math.h>
#include <string.h>

#include "kernels.h"

/* The two neighbours and their weights of each output position along one dim. */
typedef struct axis {
  int64_t *first, *step; /* step: 0 or 1, the second neighbour's distance */
  float *w0, *w1;
} axis;

static float axis_scale(int64_t in, int64_t out, int32_t align_corners, double scale_factor) {
  if (align_corners) return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
  return scale_factor > 0 ? (float)(1.0 / scale_factor) : (float)in / (float)out;
}

static void fill_axis(const axis *a, int64_t in, int64_t out, int32_t align_corners, double scale_factor) {
  float scale = axis_scale(in, out, align_corners, scale_factor);
  for (int64_t o = 0; o < out; o++) {
    float src = align_corners ? scale * (float)o : fmaf(scale, (float)o + 0.5f, -0.5f);
    if (src < 0.0f) src = 0.0f;
    int64_t i = (int64_t)src;
    if (i > in - 1) i = in - 1;
    float frac = src - (float)i;
    frac = frac < 0.0f ? 0.0f : frac > 1.0f ? 1.0f : frac;
    a->first[o] = i;
    a->step[o] = i < in - 1 ? 1 : 0;
    a->w1[o] = frac;
    a->w0[o] = 1.0f - frac;
  }
}

typedef struct bilinear_job {
  const float *x;
  float *y;
  int64_t h, w, oh, ow;
  axis rows, cols;
} bilinear_job;

/* The planes [begin, end); inline so that each caller's target compiles its fmaf. */
static inline __attribute__((always_inline)) void planes(const bilinear_job *j, int64_t begin, int64_t end) {
  for (int64_t p = begin; p < end; p++) {
    const float *xp = j->x + p * j->h * j->w;
    float *yp = j->y + p * j->oh * j->ow;
    for (int64_t oy = 0; oy < j->oh; oy++) {
      const float *r0 = xp + j->rows.first[oy] * j->w, *r1 = r0 + j->rows.step[oy] * j->w;
      float h0 = j->rows.w0[oy], h1 = j->rows.w1[oy];
      float *yr = yp + oy * j->ow;
      for (int64_t ox = 0; ox < j->ow; ox++) {
        int64_t c0 = j->cols.first[ox], c1 = c0 + j->cols.step[ox];
        float w0 = j->cols.w0[ox], w1 = j->cols.w1[ox];
        float acc = r0[c1] * (h0 * w1);
        acc = fmaf(r0[c0], h0 * w0, acc);
        acc = fmaf(r1[c0], h1 * w0, acc);
        yr[ox] = fmaf(r1[c1], h1 * w1, acc);
      }
    }
  }
}

__attribute__((target("avx2,fma"))) static void planes_fma(void *arg, int64_t begin, int64_t end) {
  planes(arg, begin, end);
}

/* Without FMA instructions fmaf is libm's, as exact and slower. */
static void planes_plain(void *arg, int64_t begin, int64_t end) { planes(arg, begin, end); }

int sc_k_upsample_bilinear2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                 int32_t align_corners, double scale_h, double scale_w) {
  if (nc <= 0 || oh <= 0 || ow <= 0 || h <= 0 || w <= 0) return SHAPEC_OK; /* the shape analysis refused empty inputs */
  int64_t n = oh + ow; /* each position's two neighbours' first index and step, and two weights */
  char *tables = sc_rt_alloc(n * 2 * (int64_t)(sizeof(int64_t) + sizeof(float)));
  if (!tables) return SHAPEC_ERR_MEMORY;
  int64_t *idx = (int64_t *)tables;
  float *wt = (float *)(idx + 2 * n);
  bilinear_job j = {x, y, h, w, oh, ow, {idx, idx + oh, wt, wt + oh}, {idx + 2 * oh, idx + 2 * oh + ow, wt + 2 * oh, wt + 2 * oh + ow}};
  fill_axis(&j.rows, h, oh, align_corners, scale_h);
  fill_axis(&j.cols, w, ow, align_corners, scale_w);
  int64_t per_plane = oh * ow;
  sc_rt_parallel_for(sc_rt_has_avx2() ? planes_fma : planes_plain, &j, nc, per_plane >= 16384 ? 1 : 16384 / per_plane + 1);
  sc_rt_free(tables);
  return SHAPEC_OK;
}

/* ---- bicubic ---- */

/* The 4 taps' first source index (before clamping) and weights of each output position
 * along one dim: ATen's cubic convolution with A = -0.75, in float. */
static void cubic_axis(int64_t *first, float *wt, int64_t in, int64_t out, int32_t align_corners, double scale_factor) {
  const float A = -0.75f;
  float scale = axis_scale(in, out, align_corners, scale_factor);
  for (int64_t o = 0; o < out; o++) {
    float src = align_corners ? scale * (float)o : scale * ((float)o + 0.5f) - 0.5f; /* not clamped: cubic */
    float lo = floorf(src), t = src - lo;
    first[o] = (int64_t)lo - 1;
    float x1 = t + 1.0f, x2 = 1.0f - t, x3 = x2 + 1.0f;
    wt[4 * o + 0] = ((A * x1 - 5.0f * A) * x1 + 8.0f * A) * x1 - 4.0f * A;
    wt[4 * o + 1] = ((A + 2.0f) * t - (A + 3.0f)) * t * t + 1.0f;
    wt[4 * o + 2] = ((A + 2.0f) * x2 - (A + 3.0f)) * x2 * x2 + 1.0f;
    wt[4 * o + 3] = ((A * x3 - 5.0f * A) * x3 + 8.0f * A) * x3 - 4.0f * A;
  }
}

static int64_t clamp_index(int64_t i, int64_t n) { return i < 0 ? 0 : i > n - 1 ? n - 1 : i; }

int sc_k_upsample_bicubic2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                int32_t align_corners, double scale_h, double scale_w) {
  if (nc <= 0 || oh <= 0 || ow <= 0 || h <= 0 || w <= 0) return SHAPEC_OK;
  int64_t n = oh + ow;
  char *tables = sc_rt_alloc(n * (int64_t)(sizeof(int64_t) + 4 * sizeof(float)));
  if (!tables) return SHAPEC_ERR_MEMORY;
  int64_t *row0 = (int64_t *)tables, *col0 = row0 + oh;
  float *row_w = (float *)(col0 + ow), *col_w = row_w + 4 * oh;
  cubic_axis(row0, row_w, h, oh, align_corners, scale_h);
  cubic_axis(col0, col_w, w, ow, align_corners, scale_w);
  for (int64_t p = 0; p < nc; p++) {
    const float *xp = x + p * h * w;
    float *yp = y + p * oh * ow;
    for (int64_t oy = 0; oy < oh; oy++)
      for (int64_t ox = 0; ox < ow; ox++) {
        float acc = 0.0f;
        for (int i = 0; i < 4; i++) {
          const float *r = xp + clamp_index(row0[oy] + i, h) * w;
          float line = 0.0f;
          for (int j = 0; j < 4; j++) line += r[clamp_index(col0[ox] + j, w)] * col_w[4 * ox + j];
          acc += line * row_w[4 * oy + i];
        }
        yp[oy * ow + ox] = acc;
      }
  }
  sc_rt_free(tables);
  return SHAPEC_OK;
}

/* Nearest upsampling as torch's CPU kernel picks the source: output index o reads
 * min(floor(o * scale), in - 1), scale in float32: 1 / scale_factor where the program gives
 * one (scale_h, scale_w > 0), in / out otherwise.  Any dtype (esize bytes). */
void sc_k_upsample_nearest2d(const void *x, void *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                             double scale_h, double scale_w, int64_t esize) {
  float sh = scale_h > 0 ? (float)(1.0 / scale_h) : (float)h / (float)oh;
  float sw = scale_w > 0 ? (float)(1.0 / scale_w) : (float)w / (float)ow;
  const char *src = x;
  char *dst = y;
  for (int64_t p = 0; p < nc; p++)
    for (int64_t i = 0; i < oh; i++) {
      int64_t si = (int64_t)floorf((float)i * sh);
      if (si > h - 1) si = h - 1;
      for (int64_t j = 0; j < ow; j++, dst += esize) {
        int64_t sj = (int64_t)floorf((float)j * sw);
        if (sj > w - 1) sj = w - 1;
        memcpy(dst, src + ((p * h + si) * w + sj) * esize, (size_t)esize);
      }
    }
}
