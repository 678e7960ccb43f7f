/* avg_pool.c - average pooling over NCHW planes: avg_pool2d's windows, and adaptive ones.
 *
 * Each output is the sum of its window's in-bounds inputs taken in float, row by row and
 * left to right from 0, divided in float by the window's divisor: the order and precision
 * of torch 2.14's CPU kernel, so the bits are torch's (a double sum rounded once had
 * differed from torch in a third to a half of the outputs by an ulp). */
#include <immintrin.h>
#include <stdbool.h>

#include "kernels.h"

typedef struct avg_pool_job {
  const float *x;
  float *y;
  int64_t h, w, kh, kw, sh, sw, ph, pw, oh, ow;
  int32_t count_include_pad;
  int64_t divisor_override;
} avg_pool_job;

/* Any window: bounds clipped to the image, the divisor as torch counts it. */
static void avg_pool_planes(const avg_pool_job *j, int64_t begin, int64_t end) {
  int64_t h = j->h, w = j->w;
  for (int64_t p = begin; p < end; p++) {
    const float *xp = j->x + p * h * w;
    float *yp = j->y + p * j->oh * j->ow;
    for (int64_t oy = 0; oy < j->oh; oy++) {
      int64_t y0 = oy * j->sh - j->ph, y1 = y0 + j->kh < h + j->ph ? y0 + j->kh : h + j->ph;
      int64_t ys = y0 < 0 ? 0 : y0, ye = y1 < h ? y1 : h;
      for (int64_t ox = 0; ox < j->ow; ox++) {
        int64_t x0 = ox * j->sw - j->pw, x1 = x0 + j->kw < w + j->pw ? x0 + j->kw : w + j->pw;
        int64_t xs = x0 < 0 ? 0 : x0, xe = x1 < w ? x1 : w;
        float sum = 0.0f;
        for (int64_t iy = ys; iy < ye; iy++)
          for (int64_t ix = xs; ix < xe; ix++) sum += xp[iy * w + ix];
        int64_t div = j->divisor_override  ? j->divisor_override
                      : j->count_include_pad ? (y1 - y0) * (x1 - x0)
                                             : (ye - ys) * (xe - xs);
        yp[oy * j->ow + ox] = div ? sum / (float)div : 0.0f;
      }
    }
  }
}

/* The most common pool, 2x2 with stride 2 and no padding, whose windows lie inside the
 * image: four outputs a step from 8 columns of two rows, each (((0 + a) + b) + c) + d as
 * the general loop adds them, times 1/4, which is exactly the division by 4 (or
 * by divisor_override when that is 4).  The general loop took 4 ns an output, its
 * window's bounds recomputed for each. */
static bool plain_2x2(const avg_pool_job *j) {
  return j->kh == 2 && j->kw == 2 && j->sh == 2 && j->sw == 2 && j->ph == 0 && j->pw == 0 &&
         (j->divisor_override == 0 || j->divisor_override == 4) && 2 * j->oh <= j->h && 2 * j->ow <= j->w;
}

__attribute__((target("avx2"))) static void avg_pool_2x2_avx2(const avg_pool_job *j, int64_t begin, int64_t end) {
  const __m256i pairs = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7), lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m128 quarter = _mm_set1_ps(0.25f);
  for (int64_t p = begin; p < end; p++)
    for (int64_t oy = 0; oy < j->oh; oy++) {
      const float *r0 = j->x + (p * j->h + 2 * oy) * j->w, *r1 = r0 + j->w;
      float *yr = j->y + (p * j->oh + oy) * j->ow;
      for (int64_t ox = 0; ox < j->ow; ox += 4) {
        int64_t n = j->ow - ox < 4 ? j->ow - ox : 4; /* outputs this step, from 2 n input columns */
        __m256 a, b;
        if (n == 4) {
          a = _mm256_loadu_ps(r0 + 2 * ox), b = _mm256_loadu_ps(r1 + 2 * ox);
        } else {
          __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(2 * n)), lane);
          a = _mm256_maskload_ps(r0 + 2 * ox, in), b = _mm256_maskload_ps(r1 + 2 * ox, in);
        }
        /* even columns in the low half, odd ones in the high half */
        a = _mm256_permutevar8x32_ps(a, pairs), b = _mm256_permutevar8x32_ps(b, pairs);
        __m128 sum = _mm_add_ps(_mm_setzero_ps(), _mm256_castps256_ps128(a)); /* a -0 becomes 0, as from 0 on */
        sum = _mm_add_ps(sum, _mm256_extractf128_ps(a, 1));
        sum = _mm_add_ps(sum, _mm256_castps256_ps128(b));
        sum = _mm_mul_ps(_mm_add_ps(sum, _mm256_extractf128_ps(b, 1)), quarter);
        if (n == 4) {
          _mm_storeu_ps(yr + ox, sum);
        } else {
          float part[4];
          _mm_storeu_ps(part, sum);
          for (int64_t k = 0; k < n; k++) yr[ox + k] = part[k];
        }
      }
    }
}

static void avg_pool_range(void *arg, int64_t begin, int64_t end) {
  const avg_pool_job *j = arg;
  if (plain_2x2(j) && sc_rt_has_avx2()) avg_pool_2x2_avx2(j, begin, end);
  else avg_pool_planes(j, begin, end);
}

void sc_k_avg_pool2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh,
                         int64_t sw, int64_t ph, int64_t pw, int64_t oh, int64_t ow, int32_t count_include_pad,
                         int64_t divisor_override) {
  avg_pool_job j = {x, y, h, w, kh, kw, sh, sw, ph, pw, oh, ow, count_include_pad, divisor_override};
  int64_t per_plane = oh * ow * kh * kw;
  sc_rt_parallel_for(avg_pool_range, &j, nc, per_plane > 0 ? 65536 / per_plane + 1 : nc);
}

typedef struct adaptive_pool_job {
  const float *x;
  float *y;
  int64_t h, w, oh, ow;
} adaptive_pool_job;

static void adaptive_avg_planes(void *arg, int64_t begin, int64_t end) {
  const adaptive_pool_job *j = arg;
  int64_t h = j->h, w = j->w, oh = j->oh, ow = j->ow;
  float *y = j->y;
  for (int64_t p = begin; p < end; p++) {
    const float *xp = j->x + p * h * w;
    for (int64_t oy = 0; oy < oh; oy++) {
      int64_t ys = oy * h / oh, ye = ((oy + 1) * h + oh - 1) / oh;
      for (int64_t ox = 0; ox < ow; ox++) {
        int64_t xs = ox * w / ow, xe = ((ox + 1) * w + ow - 1) / ow;
        float sum = 0;
        for (int64_t iy = ys; iy < ye; iy++)
          for (int64_t ix = xs; ix < xe; ix++) sum += xp[iy * w + ix];
        y[(p * oh + oy) * ow + ox] = sum / (float)((ye - ys) * (xe - xs));
      }
    }
  }
}

/* Each output averages the window torch gives it (rows [oy h / oh, ceil((oy + 1) h / oh)),
 * columns alike), the planes spread over the pool.  The global pool (a 1x1 output,
 * resnet's and mobilenet's last) is each plane's mean, which the reductions' vectorized
 * rows compute, in double ([8, 512, 14, 14] took 9.5x torch's time one window sum at a
 * time on one thread). */
void sc_k_adaptive_avg_pool2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  if (oh == 1 && ow == 1) {
    int64_t shape[2] = {nc, h * w};
    int32_t reduce[2] = {0, 1};
    sc_k_reduce_f32(x, y, 2, shape, reduce, SC_REDUCE_MEAN, 0.0);
    return;
  }
  adaptive_pool_job j = {x, y, h, w, oh, ow};
  int64_t per_plane = h * w;
  sc_rt_parallel_for(adaptive_avg_planes, &j, nc, per_plane > 0 ? 16384 / per_plane + 1 : nc);
}
