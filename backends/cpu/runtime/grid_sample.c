/* grid_sample.c - grid_sampler_2d: out[n, c, i, j] samples input[n, c] at the point
 * grid[n, i, j] = (x, y) in [-1, 1] (beyond it: padding), bilinearly or at the nearest
 * pixel, as torch's CPU kernel computes it: the point unnormalized to pixels (corners or
 * edges at +-1, align_corners), moved by the padding mode (zeros: outside pixels are 0;
 * border: clamped; reflection: mirrored, then clamped), then interpolated.  Float32 NCHW. */
#include <math.h>

#include "kernels.h"

static float unnormalize(float coord, int64_t size, int32_t align_corners) {
  return align_corners ? ((coord + 1) / 2) * (float)(size - 1) : ((coord + 1) * (float)size - 1) / 2;
}

static float clip(float coord, int64_t size) { return fminf((float)(size - 1), fmaxf(coord, 0.0f)); }

/* coord mirrored into [twice_low / 2, twice_high / 2] */
static float reflect(float coord, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  float min = (float)twice_low / 2, span = (float)(twice_high - twice_low) / 2;
  coord = fabsf(coord - min);
  float extra = fmodf(coord, span);
  int64_t flips = (int64_t)floorf(coord / span);
  return flips % 2 == 0 ? extra + min : span - extra + min;
}

static float source_coord(float coord, int64_t size, int32_t padding, int32_t align_corners) {
  coord = unnormalize(coord, size, align_corners);
  if (padding == SC_GRID_BORDER) return clip(coord, size);
  if (padding == SC_GRID_REFLECTION) {
    coord = align_corners ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    return clip(coord, size);
  }
  return coord;
}

static float pixel(const float *plane, int64_t h, int64_t w, int64_t y, int64_t x) {
  return y >= 0 && y < h && x >= 0 && x < w ? plane[y * w + x] : 0.0f;
}

void sc_k_grid_sample2d_f32(const float *input, const float *grid, float *out, int64_t n, int64_t c, int64_t h, int64_t w,
                            int64_t gh, int64_t gw, int32_t mode, int32_t padding, int32_t align_corners) {
  for (int64_t b = 0; b < n; b++)
    for (int64_t i = 0; i < gh; i++)
      for (int64_t j = 0; j < gw; j++) {
        const float *pt = grid + ((b * gh + i) * gw + j) * 2;
        float ix = source_coord(pt[0], w, padding, align_corners), iy = source_coord(pt[1], h, padding, align_corners);
        for (int64_t ch = 0; ch < c; ch++) {
          const float *plane = input + (b * c + ch) * h * w;
          float v;
          if (mode == SC_GRID_NEAREST) {
            v = pixel(plane, h, w, (int64_t)nearbyintf(iy), (int64_t)nearbyintf(ix));
          } else {
            float x0 = floorf(ix), y0 = floorf(iy), tx = ix - x0, ty = iy - y0;
            int64_t xw = (int64_t)x0, yn = (int64_t)y0;
            v = pixel(plane, h, w, yn, xw) * (1 - tx) * (1 - ty) + pixel(plane, h, w, yn, xw + 1) * tx * (1 - ty) +
                pixel(plane, h, w, yn + 1, xw) * (1 - tx) * ty + pixel(plane, h, w, yn + 1, xw + 1) * tx * ty;
          }
          out[((b * c + ch) * gh + i) * gw + j] = isnan(ix) || isnan(iy) ? NAN : v;
        }
      }
}
