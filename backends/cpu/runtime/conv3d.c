/* conv3d.c - 3-D convolution (video models: r3d, mc3, r(2+1)d, s3d, mvit, swin3d) as
 * vol2col and the library's GEMM, one output depth plane at a time so that the column
 * buffer stays [C/g * kd*kh*kw, oh*ow] whatever the clip's length; any stride, padding,
 * dilation and groups; float32, NCDHW.  Products accumulate as the GEMM does (its order
 * differs from oneDNN's, within float32 rounding).  The transposed convolution is at the end. */
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* dims: n, c, d, h, w, oc, kd, kh, kw, od, oh, ow; geom: stride, padding, dilation (3 each). */
int sc_k_conv3d_f32(const float *x, const float *wt, const float *bias, float *y, const int64_t *dims, const int64_t *geom,
                    int64_t groups) {
  int64_t n = dims[0], c = dims[1], id = dims[2], ih = dims[3], iw = dims[4], oc = dims[5];
  int64_t kd = dims[6], kh = dims[7], kw = dims[8], od = dims[9], oh = dims[10], ow = dims[11];
  const int64_t *st = geom, *pad = geom + 3, *dil = geom + 6;
  int64_t cg = c / groups, ocg = oc / groups, kk = cg * kd * kh * kw, plane = oh * ow;
  if (n * oc * od * plane == 0) return SHAPEC_OK;
  float *col = malloc((size_t)(kk * plane + ocg * plane) * sizeof *col);
  if (!col) return SHAPEC_ERR_MEMORY;
  float *tmp = col + kk * plane;
  for (int64_t b = 0; b < n; b++)
    for (int64_t g = 0; g < groups; g++)
      for (int64_t z = 0; z < od; z++) {
        /* the column matrix of this output plane: row (ci, a, p, q), column (i, j) */
        float *row = col;
        for (int64_t ci = 0; ci < cg; ci++)
          for (int64_t a = 0; a < kd; a++) {
            int64_t zz = z * st[0] - pad[0] + a * dil[0];
            const float *xc = x + ((b * c + g * cg + ci) * id + zz) * ih * iw;
            for (int64_t p = 0; p < kh; p++)
              for (int64_t q = 0; q < kw; q++, row += plane) {
                if (zz < 0 || zz >= id) {
                  memset(row, 0, (size_t)plane * sizeof *row);
                  continue;
                }
                for (int64_t i = 0; i < oh; i++) {
                  int64_t yy = i * st[1] - pad[1] + p * dil[1];
                  for (int64_t j = 0; j < ow; j++) {
                    int64_t xx = j * st[2] - pad[2] + q * dil[2];
                    row[i * ow + j] = yy >= 0 && yy < ih && xx >= 0 && xx < iw ? xc[yy * iw + xx] : 0.0f;
                  }
                }
              }
          }
        int rc = sc_k_bmm_f32(1, ocg, plane, kk, wt + g * ocg * kk, 0, 0, col, 0, 0, tmp, 1.0f, 0.0f);
        if (rc) {
          free(col);
          return rc;
        }
        for (int64_t o = 0; o < ocg; o++) {
          int64_t ch = g * ocg + o;
          float *dst = y + ((b * oc + ch) * od + z) * plane, add = bias ? bias[ch] : 0.0f;
          for (int64_t k = 0; k < plane; k++) dst[k] = tmp[o * plane + k] + add;
        }
      }
  free(col);
  return SHAPEC_OK;
}

/* The transposed 3-D convolution (ConvTranspose3d: video and volume decoders), weight
 * [c, oc/groups, kd, kh, kw].  One input depth plane at a time: its channels copied
 * together, col = W^T X ([oc/g * kd*kh*kw, ih*iw]) by the GEMM, then every column entry
 * added to the output voxel it lands on (col2vol), after the bias.
 * dims: n, c, d, h, w, oc, kd, kh, kw, od, oh, ow; geom: stride, padding, dilation (3 each). */
int sc_k_conv_transpose3d_f32(const float *x, const float *wt, const float *bias, float *y, const int64_t *dims,
                              const int64_t *geom, int64_t groups) {
  int64_t n = dims[0], c = dims[1], id = dims[2], ih = dims[3], iw = dims[4], oc = dims[5];
  int64_t kd = dims[6], kh = dims[7], kw = dims[8], od = dims[9], oh = dims[10], ow = dims[11];
  const int64_t *st = geom, *pad = geom + 3, *dil = geom + 6;
  int64_t cg = c / groups, ocg = oc / groups, taps = kd * kh * kw, rows = ocg * taps, plane = ih * iw;
  int64_t volume = od * oh * ow;
  if (n * oc * volume == 0) return SHAPEC_OK;
  for (int64_t b = 0; b < n; b++)
    for (int64_t ch = 0; ch < oc; ch++) {
      float *dst = y + (b * oc + ch) * volume, v = bias ? bias[ch] : 0.0f;
      for (int64_t k = 0; k < volume; k++) dst[k] = v;
    }
  if (id * plane * cg == 0) return SHAPEC_OK;
  float *col = malloc((size_t)(rows * plane + cg * plane) * sizeof *col);
  if (!col) return SHAPEC_ERR_MEMORY;
  float *xs = col + rows * plane;
  for (int64_t b = 0; b < n; b++)
    for (int64_t g = 0; g < groups; g++)
      for (int64_t z = 0; z < id; z++) {
        for (int64_t ci = 0; ci < cg; ci++)
          memcpy(xs + ci * plane, x + ((b * c + g * cg + ci) * id + z) * plane, (size_t)plane * sizeof *xs);
        int rc = sc_k_bmm_f32(1, rows, plane, cg, wt + g * cg * rows, 0, 1, xs, 0, 0, col, 1.0f, 0.0f);
        if (rc) {
          free(col);
          return rc;
        }
        for (int64_t o = 0; o < ocg; o++) {
          float *yc = y + (b * oc + g * ocg + o) * volume;
          for (int64_t a = 0; a < kd; a++) {
            int64_t zz = z * st[0] - pad[0] + a * dil[0];
            if (zz < 0 || zz >= od) continue;
            for (int64_t p = 0; p < kh; p++)
              for (int64_t q = 0; q < kw; q++) {
                const float *row = col + ((o * kd + a) * kh * kw + p * kw + q) * plane;
                for (int64_t i = 0; i < ih; i++) {
                  int64_t yy = i * st[1] - pad[1] + p * dil[1];
                  if (yy < 0 || yy >= oh) continue;
                  float *yr = yc + (zz * oh + yy) * ow;
                  for (int64_t j = 0; j < iw; j++) {
                    int64_t xx = j * st[2] - pad[2] + q * dil[2];
                    if (xx >= 0 && xx < ow) yr[xx] += row[i * iw + j];
                  }
                }
              }
          }
        }
      }
  free(col);
  return SHAPEC_OK;
}
