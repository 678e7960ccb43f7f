/* conv_direct.c - convolutions too small for im2col and a matrix product.
 *
 * A tiny convolution ([2, 1, 5, 5] through a 3x3 kernel: 900 multiply-adds) spent 41% of its
 * call building im2col's column matrix, a branch per element, and more setting up the GEMM.
 * Here each image is copied once into zero-padded planes.  With stride 1 along the width, a
 * kernel tap is then one multiply-add of a shifted run of the padded plane into the output
 * laid out at the padded width ("wide" rows), with no bounds test; the columns past the
 * output's width, which read across a row's end, are dropped when the output is written.
 * With stride 1 along the height too, the whole plane is one run per tap.  A stride s along
 * the width becomes stride 1 by splitting each padded plane into s planes of every s-th
 * column ("phases"): tap j reads phase (j d) mod s from column (j d) / s on. */
#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#include "kernels.h"

/* A convolution is taken here when an image's padded input and one wide output plane fit in
 * these buffers (on the stack) and an image costs at most this many multiply-adds, counted
 * over the wide rows.  Measured on one Zen 4 core against im2col + GEMM and oneDNN 2.6, both
 * through sc_k_conv2d_site_f32 (docs/benchmarks.md, "Small convolutions"): 2.5-5x faster
 * than either up to this size, from [8, 3, 16, 16] -> 8 channels to [2, 1, 5, 5] -> 2;
 * beyond it, with 16 channels in and out, oneDNN's blocking over channels wins. */
enum { DIRECT_MAX_FLOATS = 4096, DIRECT_MAX_MACS = 1 << 16 };
enum { SLACK = 16 }; /* floats after the buffers' contents that vector loads and stores may run into */
enum { DIRECT_MAX_KW = 16 }; /* kernel columns, each with its offset into the phases */

typedef struct direct_conv {
  const float *x, *w, *bias;
  float *y;
  int64_t c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow;
  int64_t hp, wp; /* the padded plane */
  int64_t wq;     /* its phases' width, ceil(wp / sw): the wide rows' too */
  int act;
  int64_t col_off[DIRECT_MAX_KW]; /* where kernel column j starts: its phase's plane and column */
} direct_conv;

static int64_t padded_height(int64_t h, int64_t ph, int64_t oh, int64_t sh, int64_t kh, int64_t dh) {
  /* the rows the taps read: up to (oh - 1) sh + (kh - 1) dh, which may stop short of h + 2 ph */
  int64_t need = (oh - 1) * sh + (kh - 1) * dh + 1;
  return need > h + 2 * ph ? need : h + 2 * ph;
}

bool sc_conv_direct_fits(int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                         int64_t ph, int64_t pw, int64_t dh, int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  /* a 1x1 convolution without stride or padding reads its input as the GEMM's matrix: 3x faster */
  bool pointwise = kh == 1 && kw == 1 && sh == 1 && ph == 0 && pw == 0;
  if (sw < 1 || sw > DIRECT_MAX_FLOATS || pointwise || act == SC_ACT_GELU || groups <= 0 || oh <= 0 || ow <= 0 ||
      c > DIRECT_MAX_FLOATS || o > DIRECT_MAX_FLOATS || h > DIRECT_MAX_FLOATS || wd > DIRECT_MAX_FLOATS ||
      kh > DIRECT_MAX_FLOATS || kw > DIRECT_MAX_KW)
    return false;
  int64_t wp = wd + 2 * pw, hp = padded_height(h, ph, oh, sh, kh, dh), wq = (wp + sw - 1) / sw;
  if (ow > wq || c * sw * hp * wq > DIRECT_MAX_FLOATS || oh * wq > DIRECT_MAX_FLOATS) return false;
  return o * (c / groups) * kh * kw * oh * wq <= DIRECT_MAX_MACS;
}

/* The taps of one output channel over one run of `len` wide outputs: out[t] = bias +
 * sum over (ci, i, j) of w[ci, i, j] in[ci * plane + i * row_step + col_off[j] + t].
 * The geometry of the taps, shared by every run of a plane. */
typedef struct taps {
  const float *w; /* [cg, kh, kw] */
  int64_t cg, kh, kw, plane, row_step;
  const int64_t *col_off; /* direct_conv's */
} taps;

/* A block of 8 nv outputs held in nv registers across all taps, so each output is stored
 * once.  The last block may run up to 7 floats past the run: `in` and `out` are the
 * buffers below, which have that much zeroed slack, and a later run or the final copy
 * overwrites or ignores what lands there.  (No masked stores: AMD's Zen microcodes them,
 * and they made this convolution 30% slower.)  nv is a constant where this is inlined. */
__attribute__((target("avx2,fma"), always_inline)) static inline void block_taps(const taps *k, const float *in, float bias,
                                                                                 float *out, int nv) {
  __m256 acc[6];
  for (int v = 0; v < nv; v++) acc[v] = _mm256_set1_ps(bias);
  const float *wk = k->w;
  for (int64_t ci = 0; ci < k->cg; ci++)
    for (int64_t i = 0; i < k->kh; i++) {
      const float *row = in + ci * k->plane + i * k->row_step;
      for (int64_t j = 0; j < k->kw; j++) {
        __m256 tap = _mm256_set1_ps(*wk++);
        const float *src = row + k->col_off[j];
        for (int v = 0; v < nv; v++) acc[v] = _mm256_fmadd_ps(tap, _mm256_loadu_ps(src + 8 * v), acc[v]);
      }
    }
  for (int v = 0; v < nv; v++) _mm256_storeu_ps(out + 8 * v, acc[v]);
}

__attribute__((target("avx2,fma"))) static void run_taps_avx2(const taps *k, const float *in, float bias, float *out,
                                                               int64_t len) {
  /* the rest is left at 17 to 48 outputs (or fewer, when that is all), one block of up to
   * six registers: each tap's multiply-adds wait on the last tap's (4 cycles), so a short
   * block of its own after the full ones would cost as much again */
  int64_t t = 0;
  for (; len - t > 48; t += 32) block_taps(k, in + t, bias, out + t, 4);
  switch ((len - t + 7) / 8) {
  case 1: block_taps(k, in + t, bias, out + t, 1); break;
  case 2: block_taps(k, in + t, bias, out + t, 2); break;
  case 3: block_taps(k, in + t, bias, out + t, 3); break;
  case 4: block_taps(k, in + t, bias, out + t, 4); break;
  case 5: block_taps(k, in + t, bias, out + t, 5); break;
  case 6: block_taps(k, in + t, bias, out + t, 6); break;
  default: break;
  }
}

static void run_taps(const taps *k, const float *in, float bias, float *out, int64_t len) {
  if (sc_rt_has_avx2()) {
    run_taps_avx2(k, in, bias, out, len);
    return;
  }
  for (int64_t t = 0; t < len; t++) out[t] = bias;
  const float *wk = k->w;
  for (int64_t ci = 0; ci < k->cg; ci++)
    for (int64_t i = 0; i < k->kh; i++)
      for (int64_t j = 0; j < k->kw; j++, wk++) {
        const float *src = in + ci * k->plane + i * k->row_step + k->col_off[j];
        for (int64_t t = 0; t < len; t++) out[t] += *wk * src[t];
      }
}

/* ReLU and ReLU6 keep NaN, as torch's do */
static float activated(float v, int act) {
  if (act == SC_ACT_RELU) return v < 0.0f ? 0.0f : v;
  if (act == SC_ACT_RELU6) return v < 0.0f ? 0.0f : v > 6.0f ? 6.0f : v;
  return v;
}

/* out[oy, 0..ow) = act(wide[oy, 0..ow)) for one output plane.  A row's last store may run
 * up to 7 floats into the rows or planes after it, which are written later; never past
 * `room` floats from `out`, the end of the image's output, as what follows belongs to the
 * next image, which another thread may be writing: the floats there go one by one. */
__attribute__((target("avx2,fma"))) static void finish_plane_avx2(const float *wide, int64_t wp, float *out, int64_t oh,
                                                                  int64_t ow, int act, int64_t room) {
  const __m256 zero = _mm256_setzero_ps(), six = _mm256_set1_ps(6.0f);
  for (int64_t oy = 0; oy < oh; oy++)
    for (int64_t ox = 0; ox < ow; ox += 8) {
      const float *src = wide + oy * wp + ox;
      float *dst = out + oy * ow + ox;
      if (oy * ow + ox + 8 > room) {
        for (int64_t k = 0; k < 8 && ox + k < ow; k++) dst[k] = activated(src[k], act);
        continue;
      }
      __m256 v = _mm256_loadu_ps(src);
      if (act == SC_ACT_RELU || act == SC_ACT_RELU6) v = _mm256_max_ps(zero, v); /* max(a, b) is b where either is NaN */
      if (act == SC_ACT_RELU6) v = _mm256_min_ps(six, v);
      _mm256_storeu_ps(dst, v);
    }
}

/* The image's channels into zero-padded planes, and the slack after them zeroed.  Rows
 * are a few floats long here, where a call to memset or memcpy per row cost more than the
 * convolution's arithmetic.  A row's last store runs up to 7 floats past it, writing the
 * masked load's zeros over padding or over rows copied after it. */
__attribute__((target("avx2,fma"))) static void pad_image_avx2(const direct_conv *p, const float *x, float *padded) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int64_t plane = p->hp * p->wp;
  for (int64_t i = 0; i < p->c * plane + SLACK; i += 8) _mm256_storeu_ps(padded + i, _mm256_setzero_ps());
  for (int64_t ci = 0; ci < p->c; ci++) /* sw = 1: wq = wp, one phase */
    for (int64_t iy = 0; iy < p->h; iy++) {
      const float *src = x + (ci * p->h + iy) * p->wd;
      float *dst = padded + ci * plane + (iy + p->ph) * p->wp + p->pw;
      for (int64_t i = 0; i < p->wd; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_maskload_ps(src + i, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(p->wd - i)), lane)));
    }
}

/* The same for any stride along the width, element by element: padded column q s + f of
 * a channel goes to column q of its phase f, at [ci, f, row, q]; the slack after them zeroed. */
static void pad_image_phases(const direct_conv *p, const float *x, float *padded) {
  int64_t phase = p->hp * p->wq, channel = p->sw * phase;
  memset(padded, 0, (size_t)(p->c * channel + SLACK) * sizeof(float));
  for (int64_t ci = 0; ci < p->c; ci++)
    for (int64_t iy = 0; iy < p->h; iy++) {
      const float *src = x + (ci * p->h + iy) * p->wd - p->pw; /* src[col]: padded column col, where it is inside */
      float *dst = padded + ci * channel + (iy + p->ph) * p->wq;
      for (int64_t f = 0; f < p->sw; f++, dst += phase) /* no division per element */
        for (int64_t q = 0, col = f; q < p->wq; q++, col += p->sw)
          if (col >= p->pw && col < p->pw + p->wd) dst[q] = src[col];
    }
}

/* One image: its channels into `padded`, then each output channel through `wide`. */
static void direct_image(const direct_conv *p, const float *x, float *y, float *padded, float *wide) {
  int64_t wq = p->wq, channel = p->sw * p->hp * wq, cg = p->c / p->groups, og = p->o / p->groups;
  if (p->sw == 1 && sc_rt_has_avx2()) pad_image_avx2(p, x, padded);
  else pad_image_phases(p, x, padded);
  /* runs of wide output: one over the whole plane with stride 1 down the rows, else a row each */
  int64_t runs = p->sh == 1 ? 1 : p->oh, run_len = p->sh == 1 ? (p->oh - 1) * wq + p->ow : p->ow;
  taps k = {NULL, cg, p->kh, p->kw, channel, p->dh * wq, p->col_off};
  for (int64_t oc = 0; oc < p->o; oc++) {
    k.w = p->w + oc * cg * p->kh * p->kw;
    const float *xg = padded + (oc / og) * cg * channel;
    float b = p->bias ? p->bias[oc] : 0.0f;
    for (int64_t r = 0; r < runs; r++) run_taps(&k, xg + r * p->sh * wq, b, wide + r * wq, run_len);
    float *out = y + oc * p->oh * p->ow;
    if (sc_rt_has_avx2()) {
      finish_plane_avx2(wide, wq, out, p->oh, p->ow, p->act, (p->o - oc) * p->oh * p->ow);
    } else {
      for (int64_t oy = 0; oy < p->oh; oy++)
        for (int64_t ox = 0; ox < p->ow; ox++) out[oy * p->ow + ox] = activated(wide[oy * wq + ox], p->act);
    }
  }
}

static void direct_images(void *arg, int64_t begin, int64_t end) {
  const direct_conv *p = arg;
  float padded[DIRECT_MAX_FLOATS + 2 * SLACK], wide[DIRECT_MAX_FLOATS + 2 * SLACK];
  for (int64_t b = begin; b < end; b++)
    direct_image(p, p->x + b * p->c * p->h * p->wd, p->y + b * p->o * p->oh * p->ow, padded, wide);
}

void sc_conv_direct_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                        int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                        int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  int64_t wp = wd + 2 * pw;
  direct_conv p = {x, w, bias, y, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow,
                   padded_height(h, ph, oh, sh, kh, dh), wp, (wp + sw - 1) / sw, act, {0}};
  for (int64_t j = 0; j < kw; j++) /* two divisions a column cost 15% of a tiny convolution: not for sw = 1 */
    p.col_off[j] = sw == 1 ? j * dw : j * dw % sw * p.hp * p.wq + j * dw / sw;
  int64_t macs = o * (c / groups) * kh * kw * oh * p.wq;
  sc_rt_parallel_for(direct_images, &p, n, macs > 0 ? 65536 / macs + 1 : n);
}
