/* fold.c - im2col (F.unfold), each sliding block's pixels as a column, and col2im (F.fold),
 * the columns summed back into images, where overlapping blocks add up. */
#include <string.h>

#include "backends/cpu/runtime/kernels.h"

void sc_k_col2im_f32(const float *x, float *y, int64_t planes, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t dh,
                     int64_t dw, int64_t ph, int64_t pw, int64_t sh, int64_t sw, int64_t bh, int64_t bw) {
  if (planes <= 0 || h <= 0 || w <= 0) return;
  memset(y, 0, (size_t)(planes * h * w) * sizeof *y);
  if (bh <= 0 || bw <= 0) return;
  for (int64_t p = 0; p < planes; p++) {
    float *img = y + p * h * w;
    for (int64_t i = 0; i < kh; i++)
      for (int64_t j = 0; j < kw; j++) {
        const float *col = x + ((p * kh + i) * kw + j) * bh * bw;
        for (int64_t by = 0; by < bh; by++) {
          int64_t iy = by * sh - ph + i * dh;
          if (iy < 0 || iy >= h) continue;
          for (int64_t bx = 0; bx < bw; bx++) {
            int64_t ix = bx * sw - pw + j * dw;
            if (ix >= 0 && ix < w) img[iy * w + ix] += col[by * bw + bx];
          }
        }
      }
  }
}

void sc_k_im2col_f32(const float *x, float *y, int64_t planes, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t dh,
                     int64_t dw, int64_t ph, int64_t pw, int64_t sh, int64_t sw, int64_t bh, int64_t bw) {
  for (int64_t p = 0; p < planes; p++) {
    const float *img = x + p * h * w;
    for (int64_t i = 0; i < kh; i++)
      for (int64_t j = 0; j < kw; j++) {
        float *col = y + ((p * kh + i) * kw + j) * bh * bw;
        for (int64_t by = 0; by < bh; by++) {
          int64_t iy = by * sh - ph + i * dh;
          for (int64_t bx = 0; bx < bw; bx++) {
            int64_t ix = bx * sw - pw + j * dw;
            col[by * bw + bx] = iy >= 0 && iy < h && ix >= 0 && ix < w ? img[iy * w + ix] : 0.0f;
          }
        }
      }
  }
}
