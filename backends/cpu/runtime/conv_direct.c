/* conv_direct.c - convolutions too small for im2col and a matrix product.
 *
 * A tiny convolution ([2, 1, 5, 5] through a 3x3 kernel: 900 multiply-adds) spent 41% of its
 * call building im2col's column matrix, a branch per element, and more setting up the GEMM.
 * Here each image is copied once into zero-padded planes.  With stride 1 along the width, a
 * kernel tap is then one multiply-add of a shifted run of the padded plane into the output
 * laid out at the padded width ("wide" rows), with no bounds test; the columns past the
 * output's width, which read across a row's end, are dropped when the output is written.
 * The whole plane is one run per tap.  Strides become 1 by splitting each padded plane into
 * sh x sw planes of every sh-th row and sw-th column ("phases"): kernel row i reads row
 * phase (i dh) mod sh from its row (i dh) / sh on, kernel column j likewise. */
#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#include "kernels.h"

/* A convolution is taken here when an image's padded input and one wide output plane fit in
 * these buffers (on the stack) and an image costs at most this many multiply-adds, counted
 * over the wide rows.  Measured on one Zen 4 core against im2col + GEMM and oneDNN 2.6, both
 * through sc_k_conv2d_site_f32 (docs/benchmarks.md, "Small convolutions"): 2.7-5x faster
 * than im2col and 7-16x faster than oneDNN up to this size, from [8, 3, 16, 16] -> 8
 * channels to [2, 1, 5, 5] -> 2; beyond it, with 16 channels in and out, oneDNN's
 * blocking over channels wins. */
enum { DIRECT_MAX_FLOATS = 4096, DIRECT_MAX_MACS = 1 << 16 };
enum { SLACK = 16 }; /* floats after the buffers' contents that vector loads and stores may run into */
enum { DIRECT_MAX_K = 16 }; /* kernel rows and columns, each with its offset into the phases */

typedef struct direct_conv {
  const float *x, *w, *bias;
  float *y;
  int64_t c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow;
  int64_t hp, wp; /* the padded plane */
  int64_t hq, wq; /* its phases', ceil(hp / sh) x ceil(wp / sw); wq is the wide rows' width too */
  int act;
  /* where kernel row i and column j start in a channel's phases: row_off[i] + col_off[j] */
  int64_t row_off[DIRECT_MAX_K], col_off[DIRECT_MAX_K];
} direct_conv;

/* a tiny convolution's call is short enough that a 64-bit division (up to 40 cycles) shows:
 * none for the usual strides of 1 and groups of 1 */
static inline int64_t ceil_div(int64_t a, int64_t b) { return b == 1 ? a : (a + b - 1) / b; }
static inline int64_t div_by(int64_t a, int64_t b) { return b == 1 ? a : a / b; }

static int64_t padded_height(int64_t h, int64_t ph, int64_t oh, int64_t sh, int64_t kh, int64_t dh) {
  /* the rows the taps read: up to (oh - 1) sh + (kh - 1) dh, which may stop short of h + 2 ph */
  int64_t need = (oh - 1) * sh + (kh - 1) * dh + 1;
  return need > h + 2 * ph ? need : h + 2 * ph;
}

bool sc_conv_direct_fits(int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                         int64_t ph, int64_t pw, int64_t dh, int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  /* a 1x1 convolution without stride or padding reads its input as the GEMM's matrix: 3x faster */
  bool pointwise = kh == 1 && kw == 1 && sh == 1 && ph == 0 && pw == 0;
  /* every size bounded first, so that the products below cannot overflow */
  if (sw < 1 || sh < 1 || sw > DIRECT_MAX_FLOATS || sh > DIRECT_MAX_FLOATS || pointwise || act == SC_ACT_GELU ||
      groups <= 0 || oh <= 0 || ow <= 0 || oh > DIRECT_MAX_FLOATS || ow > DIRECT_MAX_FLOATS || c > DIRECT_MAX_FLOATS ||
      o > DIRECT_MAX_FLOATS || h > DIRECT_MAX_FLOATS || wd > DIRECT_MAX_FLOATS || kh < 1 || kw < 1 ||
      kh > DIRECT_MAX_K || kw > DIRECT_MAX_K || ph < 0 || pw < 0 || ph > DIRECT_MAX_FLOATS ||
      pw > DIRECT_MAX_FLOATS || dh < 1 || dh > DIRECT_MAX_FLOATS)
    return false;
  int64_t wp = wd + 2 * pw, hp = padded_height(h, ph, oh, sh, kh, dh), wq = ceil_div(wp, sw), hq = ceil_div(hp, sh);
  if (ow > wq || c * sh * sw * hq * wq > DIRECT_MAX_FLOATS || oh * wq > DIRECT_MAX_FLOATS) return false;
  return o * div_by(c, groups) * kh * kw * oh * wq <= DIRECT_MAX_MACS;
}

/* The taps of one or two output channels (`pair`) over one run of `len` wide outputs:
 * out_c[t] = bias_c + sum over (ci, i, j) of w_c[ci, i, j] in[ci * plane + row_off[i] +
 * col_off[j] + t], w_1 = w_0 + cg kh kw (the next output channel's weights).  The geometry
 * of the taps, shared by every output channel of a group. */
typedef struct taps {
  const float *w; /* [cg, kh, kw] */
  int64_t cg, kh, kw, plane;
  const int64_t *row_off; /* direct_conv's */
  const int64_t *col_off; /* direct_conv's */
} taps;

/* A block of 8 nv outputs of no (1 or 2) output channels held in nv x no registers across
 * all taps, so each output is stored once and each input load serves both channels.  Each
 * tap's multiply-adds wait on the last tap's (4 cycles): two channels give the core twice
 * the independent work in that time.  The last block may run up to 7 floats past the run:
 * `in` and `out` are the buffers below, which have that much zeroed slack, and the final
 * copy ignores what lands there.  (No masked stores: AMD's Zen microcodes them, and they
 * made this convolution 30% slower.)  nv and no are constants where this is inlined. */
__attribute__((target("avx2,fma"), always_inline)) static inline void block_taps(const taps *k, const float *in,
                                                                                 const float *bias, float *const *out,
                                                                                 int nv, int no) {
  __m256 acc[2][6];
  for (int c = 0; c < no; c++)
    for (int v = 0; v < nv; v++) acc[c][v] = _mm256_set1_ps(bias[c]);
  const float *w0 = k->w, *w1 = k->w + k->cg * k->kh * k->kw;
  for (int64_t ci = 0; ci < k->cg; ci++)
    for (int64_t i = 0; i < k->kh; i++) {
      const float *row = in + ci * k->plane + k->row_off[i];
      for (int64_t j = 0; j < k->kw; j++) {
        __m256 tap0 = _mm256_set1_ps(*w0++), tap1 = no == 2 ? _mm256_set1_ps(*w1++) : tap0;
        const float *src = row + k->col_off[j];
        for (int v = 0; v < nv; v++) {
          __m256 x = _mm256_loadu_ps(src + 8 * v);
          acc[0][v] = _mm256_fmadd_ps(tap0, x, acc[0][v]);
          if (no == 2) acc[1][v] = _mm256_fmadd_ps(tap1, x, acc[1][v]);
        }
      }
    }
  for (int c = 0; c < no; c++)
    for (int v = 0; v < nv; v++) _mm256_storeu_ps(out[c] + 8 * v, acc[c][v]);
}

#define BLOCKS(no)                                                                                                   \
  do {                                                                                                               \
    for (; len - t > 48; t += 32) block_taps(k, in + t, bias, (float *const[2]){out[0] + t, out[1] + t}, 4, no);      \
    float *const at[2] = {out[0] + t, out[1] + t};                                                                   \
    switch ((len - t + 7) / 8) {                                                                                     \
    case 1: block_taps(k, in + t, bias, at, 1, no); break;                                                           \
    case 2: block_taps(k, in + t, bias, at, 2, no); break;                                                           \
    case 3: block_taps(k, in + t, bias, at, 3, no); break;                                                           \
    case 4: block_taps(k, in + t, bias, at, 4, no); break;                                                           \
    case 5: block_taps(k, in + t, bias, at, 5, no); break;                                                           \
    case 6: block_taps(k, in + t, bias, at, 6, no); break;                                                           \
    default: break;                                                                                                  \
    }                                                                                                                \
  } while (0)

__attribute__((target("avx2,fma"))) static void run_taps_avx2(const taps *k, const float *in, const float *bias,
                                                               float *const *out, int64_t len, bool pair) {
  /* the rest is left at 17 to 48 outputs (or fewer, when that is all), one block of up to
   * six registers: a short block of its own after the full ones would wait on the same
   * chain of taps again */
  int64_t t = 0;
  if (pair) BLOCKS(2);
  else BLOCKS(1);
}
#undef BLOCKS

static void run_taps(const taps *k, const float *in, const float *bias, float *const *out, int64_t len, bool pair) {
  if (sc_rt_has_avx2()) {
    run_taps_avx2(k, in, bias, out, len, pair);
    return;
  }
  for (int c = 0; c <= pair; c++) {
    const float *wk = k->w + c * k->cg * k->kh * k->kw;
    for (int64_t t = 0; t < len; t++) out[c][t] = bias[c];
    for (int64_t ci = 0; ci < k->cg; ci++)
      for (int64_t i = 0; i < k->kh; i++)
        for (int64_t j = 0; j < k->kw; j++, wk++) {
          const float *src = in + ci * k->plane + k->row_off[i] + k->col_off[j];
          for (int64_t t = 0; t < len; t++) out[c][t] += *wk * src[t];
        }
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

/* The image's channels into zero-padded planes, and the slack after them zeroed, for
 * strides of 1.  Rows are a few floats long here, where a call to memset or memcpy per row
 * cost more than the convolution's arithmetic.  A row's last store runs up to 7 floats past
 * it, writing the masked load's zeros over padding or over rows copied after it. */
__attribute__((target("avx2,fma"))) static void pad_image_avx2(const direct_conv *p, const float *x, float *padded) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int64_t plane = p->hp * p->wp;
  for (int64_t i = 0; i < p->c * plane + SLACK; i += 8) _mm256_storeu_ps(padded + i, _mm256_setzero_ps());
  for (int64_t ci = 0; ci < p->c; ci++)
    for (int64_t iy = 0; iy < p->h; iy++) {
      const float *src = x + (ci * p->h + iy) * p->wd;
      float *dst = padded + ci * plane + (iy + p->ph) * p->wp + p->pw;
      for (int64_t i = 0; i < p->wd; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_maskload_ps(src + i, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(p->wd - i)), lane)));
    }
}

/* The same for any strides, element by element: padded row r sh + g, column q sw + f of a
 * channel goes to row r, column q of phase (g, f), at [ci, g, f, r, q]. */
static void pad_image_phases(const direct_conv *p, const float *x, float *padded) {
  int64_t phase = p->hq * p->wq, channel = p->sh * p->sw * phase;
  memset(padded, 0, (size_t)(p->c * channel + SLACK) * sizeof(float));
  for (int64_t ci = 0; ci < p->c; ci++)
    for (int64_t g = 0; g < p->sh; g++) /* no division per row or element */
      for (int64_t r = 0, row = g; r < p->hq; r++, row += p->sh) {
        int64_t iy = row - p->ph;
        if (iy < 0 || iy >= p->h) continue;
        const float *src = x + (ci * p->h + iy) * p->wd - p->pw; /* src[col]: padded column col, where it is inside */
        float *dst = padded + ci * channel + g * p->sw * phase + r * p->wq;
        for (int64_t f = 0; f < p->sw; f++, dst += phase)
          for (int64_t q = 0, col = f; q < p->wq; q++, col += p->sw)
            if (col >= p->pw && col < p->pw + p->wd) dst[q] = src[col];
      }
}

/* One image: its channels into `padded`, then each output channel through `wide`. */
static void direct_image(const direct_conv *p, const float *x, float *y, float *padded, float *wide) {
  int64_t wq = p->wq, channel = p->sh * p->sw * p->hq * wq, cg = div_by(p->c, p->groups), og = div_by(p->o, p->groups);
  if (p->sh == 1 && p->sw == 1 && sc_rt_has_avx2()) pad_image_avx2(p, x, padded);
  else pad_image_phases(p, x, padded);
  int64_t run_len = (p->oh - 1) * wq + p->ow; /* the whole wide plane, but the last row's dropped columns */
  taps k = {NULL, cg, p->kh, p->kw, channel, p->row_off, p->col_off};
  /* output channels two at a time within a group, when two wide planes fit */
  bool pairs = og >= 2 && 2 * (p->oh * wq + SLACK) <= DIRECT_MAX_FLOATS + 2 * SLACK;
  for (int64_t oc = 0; oc < p->o;) {
    bool pair = pairs && (p->groups == 1 ? oc + 1 < og : oc % og + 1 < og);
    k.w = p->w + oc * cg * p->kh * p->kw;
    float bias[2] = {p->bias ? p->bias[oc] : 0.0f, p->bias && pair ? p->bias[oc + 1] : 0.0f};
    float *const planes[2] = {wide, wide + p->oh * wq + SLACK};
    run_taps(&k, padded + (p->groups == 1 ? 0 : oc / og * cg * channel), bias, planes, run_len, pair);
    for (int c = 0; c <= pair; c++, oc++) {
      float *out = y + oc * p->oh * p->ow;
      if (sc_rt_has_avx2()) {
        finish_plane_avx2(planes[c], wq, out, p->oh, p->ow, p->act, (p->o - oc) * p->oh * p->ow);
      } else {
        for (int64_t oy = 0; oy < p->oh; oy++)
          for (int64_t ox = 0; ox < p->ow; ox++) out[oy * p->ow + ox] = activated(planes[c][oy * wq + ox], p->act);
      }
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
                   0, wp, 0, ceil_div(wp, sw), act, {0}, {0}};
  p.hp = padded_height(h, ph, oh, sh, kh, dh);
  p.hq = ceil_div(p.hp, sh);
  /* phase (g, f) of a channel starts at (g sw + f) hq wq; two divisions a tap cost 15% of a
   * tiny convolution: none for a stride of 1 */
  int64_t phase = p.hq * p.wq;
  for (int64_t i = 0; i < kh; i++) p.row_off[i] = sh == 1 ? i * dh * p.wq : i * dh % sh * sw * phase + i * dh / sh * p.wq;
  for (int64_t j = 0; j < kw; j++) p.col_off[j] = sw == 1 ? j * dw : j * dw % sw * phase + j * dw / sw;
  int64_t macs = o * div_by(c, groups) * kh * kw * oh * p.wq;
  sc_rt_parallel_for(direct_images, &p, n, macs > 0 ? 65536 / macs + 1 : n);
}
