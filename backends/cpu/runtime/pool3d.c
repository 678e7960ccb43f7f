/* pool3d.c - 3-D pooling over [nc, d, h, w] planes, float32: max (with the flat index of
 * each maximum in its input plane, NaN winning as in torch), average (torch's divisor: the
 * window within the padded input, or only its real elements, or an override) and adaptive
 * average (windows floor(o * in / out) to ceil((o + 1) * in / out)). */
#include <math.h>

#include "kernels.h"

void sc_k_max_pool3d_f32(const float *x, float *y, int64_t *indices, int64_t nc, const int64_t *in, const int64_t *out,
                         const int64_t *k, const int64_t *st, const int64_t *pad, const int64_t *dil) {
  int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  for (int64_t p = 0; p < nc; p++) {
    const float *xp = x + p * in_plane;
    for (int64_t a = 0; a < out[0]; a++)
      for (int64_t b = 0; b < out[1]; b++)
        for (int64_t c = 0; c < out[2]; c++) {
          float best = -INFINITY;
          int64_t at = -1;
          for (int64_t i = 0; i < k[0]; i++) {
            int64_t z = a * st[0] - pad[0] + i * dil[0];
            if (z < 0 || z >= in[0]) continue;
            for (int64_t j = 0; j < k[1]; j++) {
              int64_t yy = b * st[1] - pad[1] + j * dil[1];
              if (yy < 0 || yy >= in[1]) continue;
              for (int64_t l = 0; l < k[2]; l++) {
                int64_t xx = c * st[2] - pad[2] + l * dil[2];
                if (xx < 0 || xx >= in[2]) continue;
                int64_t off = (z * in[1] + yy) * in[2] + xx;
                float v = xp[off];
                if (at < 0 || v > best || (isnan(v) && !isnan(best))) {
                  best = v;
                  at = off;
                }
              }
            }
          }
          int64_t o = p * out_plane + (a * out[1] + b) * out[2] + c;
          y[o] = best;
          if (indices) indices[o] = at;
        }
  }
}

void sc_k_avg_pool3d_f32(const float *x, float *y, int64_t nc, const int64_t *in, const int64_t *out, const int64_t *k,
                         const int64_t *st, const int64_t *pad, int32_t count_include_pad, int64_t divisor_override) {
  int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  for (int64_t p = 0; p < nc; p++) {
    const float *xp = x + p * in_plane;
    for (int64_t a = 0; a < out[0]; a++)
      for (int64_t b = 0; b < out[1]; b++)
        for (int64_t c = 0; c < out[2]; c++) {
          int64_t lo[3], hi[3], o[3] = {a, b, c}, size = 1, real = 1;
          for (int d = 0; d < 3; d++) {
            lo[d] = o[d] * st[d] - pad[d];
            hi[d] = lo[d] + k[d] < in[d] + pad[d] ? lo[d] + k[d] : in[d] + pad[d];
            size *= hi[d] - lo[d];
            if (lo[d] < 0) lo[d] = 0;
            if (hi[d] > in[d]) hi[d] = in[d];
            real *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
          }
          float sum = 0;
          for (int64_t z = lo[0]; z < hi[0]; z++)
            for (int64_t yy = lo[1]; yy < hi[1]; yy++)
              for (int64_t xx = lo[2]; xx < hi[2]; xx++) sum += xp[(z * in[1] + yy) * in[2] + xx];
          int64_t div = divisor_override ? divisor_override : count_include_pad ? size : real;
          y[p * out_plane + (a * out[1] + b) * out[2] + c] = div ? sum / (float)div : NAN;
        }
  }
}

void sc_k_adaptive_avg_pool3d_f32(const float *x, float *y, int64_t nc, const int64_t *in, const int64_t *out) {
  int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  for (int64_t p = 0; p < nc; p++) {
    const float *xp = x + p * in_plane;
    for (int64_t a = 0; a < out[0]; a++)
      for (int64_t b = 0; b < out[1]; b++)
        for (int64_t c = 0; c < out[2]; c++) {
          int64_t lo[3], hi[3], o[3] = {a, b, c};
          for (int d = 0; d < 3; d++) {
            lo[d] = o[d] * in[d] / out[d];
            hi[d] = ((o[d] + 1) * in[d] + out[d] - 1) / out[d];
          }
          float sum = 0;
          for (int64_t z = lo[0]; z < hi[0]; z++)
            for (int64_t yy = lo[1]; yy < hi[1]; yy++)
              for (int64_t xx = lo[2]; xx < hi[2]; xx++) sum += xp[(z * in[1] + yy) * in[2] + xx];
          y[p * out_plane + (a * out[1] + b) * out[2] + c] = sum / (float)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
        }
  }
}
