/* pool3d.c - 3-D pooling over [nc, d, h, w] planes, float32: max (with the flat index of
 * each maximum in its input plane, NaN winning as in torch), average (torch's divisor: the
 * window within the padded input, or only its real elements, or an override) and adaptive
 * average (windows floor(o * in / out) to ceil((o + 1) * in / out)). */
#include <math.h>

#include "kernels.h"

/* What one output element of a pool computes from its input plane. */
typedef float (*pool_fn)(const float *plane, const int64_t *in, const int64_t *o, const void *how, int64_t *at);

/* Every output element of nc planes, in order, through fn (at: the max's flat index). */
static void each_output(const float *x, float *y, int64_t *indices, int64_t nc, const int64_t *in, const int64_t *out,
                        pool_fn fn, const void *how) {
  int64_t in_plane = in[0] * in[1] * in[2], k = 0;
  for (int64_t p = 0; p < nc; p++)
    for (int64_t a = 0; a < out[0]; a++)
      for (int64_t b = 0; b < out[1]; b++)
        for (int64_t c = 0; c < out[2]; c++, k++) {
          int64_t o[3] = {a, b, c}, at = -1;
          y[k] = fn(x + p * in_plane, in, o, how, &at);
          if (indices) indices[k] = at;
        }
}

static float window_sum(const float *xp, const int64_t *in, const int64_t *lo, const int64_t *hi) {
  float sum = 0;
  for (int64_t z = lo[0]; z < hi[0]; z++)
    for (int64_t yy = lo[1]; yy < hi[1]; yy++)
      for (int64_t xx = lo[2]; xx < hi[2]; xx++) sum += xp[(z * in[1] + yy) * in[2] + xx];
  return sum;
}

typedef struct window {
  const int64_t *k, *st, *pad, *dil;
  int32_t count_include_pad;
  int64_t divisor_override;
} window;

static float max_at(const float *xp, const int64_t *in, const int64_t *o, const void *how, int64_t *at) {
  const window *w = how;
  float best = -INFINITY;
  for (int64_t i = 0; i < w->k[0]; i++) {
    int64_t z = o[0] * w->st[0] - w->pad[0] + i * w->dil[0];
    if (z < 0 || z >= in[0]) continue;
    for (int64_t j = 0; j < w->k[1]; j++) {
      int64_t yy = o[1] * w->st[1] - w->pad[1] + j * w->dil[1];
      if (yy < 0 || yy >= in[1]) continue;
      for (int64_t l = 0; l < w->k[2]; l++) {
        int64_t xx = o[2] * w->st[2] - w->pad[2] + l * w->dil[2];
        if (xx < 0 || xx >= in[2]) continue;
        int64_t off = (z * in[1] + yy) * in[2] + xx;
        float v = xp[off];
        if (*at < 0 || v > best || (isnan(v) && !isnan(best))) {
          best = v;
          *at = off;
        }
      }
    }
  }
  return best;
}

static float avg_at(const float *xp, const int64_t *in, const int64_t *o, const void *how, int64_t *at) {
  const window *w = how;
  int64_t lo[3], hi[3], size = 1, real = 1;
  (void)at;
  for (int d = 0; d < 3; d++) {
    lo[d] = o[d] * w->st[d] - w->pad[d];
    hi[d] = lo[d] + w->k[d] < in[d] + w->pad[d] ? lo[d] + w->k[d] : in[d] + w->pad[d];
    size *= hi[d] - lo[d];
    if (lo[d] < 0) lo[d] = 0;
    if (hi[d] > in[d]) hi[d] = in[d];
    real *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
  }
  int64_t div = w->divisor_override ? w->divisor_override : w->count_include_pad ? size : real;
  return div ? window_sum(xp, in, lo, hi) / (float)div : NAN;
}

static float adaptive_at(const float *xp, const int64_t *in, const int64_t *o, const void *how, int64_t *at) {
  const int64_t *out = how;
  int64_t lo[3], hi[3];
  (void)at;
  for (int d = 0; d < 3; d++) {
    lo[d] = o[d] * in[d] / out[d];
    hi[d] = ((o[d] + 1) * in[d] + out[d] - 1) / out[d];
  }
  return window_sum(xp, in, lo, hi) / (float)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
}

void sc_k_max_pool3d_f32(const float *x, float *y, int64_t *indices, int64_t nc, const int64_t *in, const int64_t *out,
                         const int64_t *k, const int64_t *st, const int64_t *pad, const int64_t *dil) {
  window w = {k, st, pad, dil, 0, 0};
  each_output(x, y, indices, nc, in, out, max_at, &w);
}

void sc_k_avg_pool3d_f32(const float *x, float *y, int64_t nc, const int64_t *in, const int64_t *out, const int64_t *k,
                         const int64_t *st, const int64_t *pad, int32_t count_include_pad, int64_t divisor_override) {
  window w = {k, st, pad, NULL, count_include_pad, divisor_override};
  each_output(x, y, NULL, nc, in, out, avg_at, &w);
}

void sc_k_adaptive_avg_pool3d_f32(const float *x, float *y, int64_t nc, const int64_t *in, const int64_t *out) {
  each_output(x, y, NULL, nc, in, out, adaptive_at, out);
}
