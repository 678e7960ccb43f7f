/* conv_direct.c - convolutions too small for im2col and a matrix product.
 *
 * A tiny convolution ([2, 1, 5, 5] through a 3x3 kernel: 900 multiply-adds) spent 41% of its
 * call building im2col's column matrix, a branch per element, and more setting up the GEMM.
 * Here each image is copied once into zero-padded planes, and a kernel tap is one
 * multiply-add of a shifted run of a plane into the output, with no bounds test.  The whole
 * output plane is one run per tap.  Two layouts:
 * - With stride 1 along the width ("wide" rows): the padded plane itself, and the output
 *   laid out at the padded width; the columns past the output's width, which read across a
 *   row's end, are dropped when the output is written.  A stride down the rows becomes 1 by
 *   splitting the plane into sh planes of every sh-th row ("row phases"): kernel row i reads
 *   row phase (i dh) mod sh from its row (i dh) / sh on.
 * - With a stride along the width ("columns"): a plane per kernel column j, in row phases,
 *   whose column ox holds input column ox sw + j dw - pw, ow wide.  The runs then are the
 *   output plane itself: no dropped columns, and the taps store the output directly.  (The
 *   wide rows' layout in column phases, which this replaced, copied a strided [4, 4] output
 *   out of rows of 5: a fifth of tiny_cnn's convolution.) */
#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#include "kernels.h"
#include "vec_activation.h"

/* A convolution is taken here when an image's padded input and one wide output plane fit in
 * these buffers (on the stack) and an image costs at most this many multiply-adds, counted
 * over its runs (the wide rows, or the output planes).  Measured on one Zen 4 core against im2col + GEMM and oneDNN 2.6, both
 * through sc_k_conv2d_site_f32 (docs/benchmarks.md, "Small convolutions"): 2.7-5x faster
 * than im2col and 7-16x faster than oneDNN up to this size, from [8, 3, 16, 16] -> 8
 * channels to [2, 1, 5, 5] -> 2; beyond it, with 16 channels in and out, oneDNN's
 * blocking over channels wins. */
enum { DIRECT_MAX_FLOATS = 4096, DIRECT_MAX_MACS = 1 << 16 };
/* The column planes hold each input column kw / sw times (1.5 times for a 3x3 kernel with
 * stride 2), where the phases they replaced held it once: their buffer is twice the size, so
 * that a convolution the phases took ([8, 3, 32, 32] -> 8 with stride 2) still fits. */
enum { DIRECT_MAX_PLANES = 2 * DIRECT_MAX_FLOATS };
enum { SLACK = 16 }; /* floats after the buffers' contents that vector loads and stores may run into */
enum { DIRECT_MAX_K = 16 }; /* kernel rows and columns, each with its offset into the planes */

/* The planes of one input channel: sh row phases, each of `columns` planes of hq rows of rw
 * floats; plane f's column q holds input column col_first[f] + sw q (zero outside). */
typedef struct plane_layout {
  bool by_column;  /* a plane per kernel column (rw = ow), or the padded plane (rw = wd + 2 pw, sw = 1) */
  int64_t columns; /* kw, or 1 */
  int64_t rw, hq;  /* a row's floats; rows per row phase, ceil(hp / sh) */
  int64_t plane;   /* hq rw */
  int64_t channel; /* sh columns plane */
  int64_t col_first[DIRECT_MAX_K];
} plane_layout;

typedef struct direct_conv {
  const float *x, *w, *bias;
  float *y;
  int64_t c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow;
  int act;
  plane_layout in;
  /* where kernel row i and column j start in a channel's planes: row_off[i] + col_off[j] */
  int64_t row_off[DIRECT_MAX_K], col_off[DIRECT_MAX_K];
} direct_conv;

/* a tiny convolution's call is short enough that a 64-bit division (up to 40 cycles) shows:
 * none for the usual strides of 1 and groups of 1 */
static inline int64_t div_by(int64_t a, int64_t b) { return b == 1 ? a : b == 2 ? a >> 1 : a / b; } /* a >= 0 */
static inline int64_t ceil_div(int64_t a, int64_t b) { return div_by(a + b - 1, b); }
static inline int64_t mod_by(int64_t a, int64_t b) { return b == 1 ? 0 : b == 2 ? a & 1 : a % b; }
/* images per share of a call's work among the threads: ~65,536 multiply-adds; a call smaller
 * than that (a tiny model's) is one share, without the division */
static inline int64_t images_per_share(int64_t n, int64_t macs) {
  int64_t work;
  if (macs <= 0 || (!__builtin_mul_overflow(n, macs, &work) && work <= 65536)) return n > 0 ? n : 1;
  return 65536 / macs + 1;
}

static int64_t padded_height(int64_t h, int64_t ph, int64_t oh, int64_t sh, int64_t kh, int64_t dh) {
  /* the rows the taps read: up to (oh - 1) sh + (kh - 1) dh, which may stop short of h + 2 ph */
  int64_t need = (oh - 1) * sh + (kh - 1) * dh + 1;
  return need > h + 2 * ph ? need : h + 2 * ph;
}

/* The layout of a convolution's input planes; sizes bounded by the caller.  Filled field by
 * field: zeroing col_first first took a `rep stos`, 5% of a tiny convolution. */
static void layout_for(plane_layout *l, int64_t h, int64_t wd, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                       int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh, int64_t ow) {
  l->by_column = sw > 1;
  l->columns = sw > 1 ? kw : 1;
  l->rw = sw > 1 ? ow : wd + 2 * pw;
  l->hq = ceil_div(padded_height(h, ph, oh, sh, kh, dh), sh);
  l->plane = l->hq * l->rw;
  l->channel = sh * l->columns * l->plane;
  for (int64_t j = 0; j < l->columns; j++) l->col_first[j] = j * dw - pw;
}

/* the floats of one run: the output plane, or its wide rows */
static int64_t run_length(const plane_layout *l, int64_t oh, int64_t ow) { return l->by_column ? oh * ow : oh * l->rw; }

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
  /* the dilation along the width only moves col_first, and is not bounded otherwise */
  plane_layout l;
  layout_for(&l, h, wd, kh, kw, sh, sw, ph, pw, dh, 1, oh, ow);
  int64_t run = run_length(&l, oh, ow);
  if (ow > l.rw || c * l.channel > (l.by_column ? DIRECT_MAX_PLANES : DIRECT_MAX_FLOATS) || run > DIRECT_MAX_FLOATS)
    return false;
  return o * div_by(c, groups) * kh * kw * run <= DIRECT_MAX_MACS;
}

/* The taps of one, two or four output channels (`no`) over one run of `len` outputs:
 * out_c[t] = bias_c + sum over (ci, i, j) of w_c[ci, i, j] in[ci * channel + row_off[i] +
 * col_off[j] + t], w_c = w_0 + c cg kh kw (the next output channels' weights), then `act`.
 * The geometry of the taps, shared by every output channel of a group. */
typedef struct taps {
  const float *w; /* [cg, kh, kw] */
  int64_t cg, kh, kw, channel;
  const int64_t *row_off; /* direct_conv's */
  const int64_t *col_off; /* direct_conv's */
  int act;
} taps;

/* ReLU and ReLU6 keep NaN, as torch's do */
static float activated(float v, int act) {
  if (act == SC_ACT_RELU) return v < 0.0f ? 0.0f : v;
  if (act == SC_ACT_RELU6) return v < 0.0f ? 0.0f : v > 6.0f ? 6.0f : v;
  return v;
}

/* A block of 8 nv outputs of no (1, 2, or 4 with nv <= 2) output channels held in nv x no
 * registers across all taps, so each output is stored once and each input load serves
 * every channel.  Each tap's multiply-adds wait on the last tap's (4 cycles): more channels
 * give the core more independent work in that time (a run of 16, tiny_cnn's [4, 4] output
 * planes, has 4 chains with two channels, 8 with four).  The block's loads may run up to 7 floats past the
 * run, into the buffers' slack.  Its last vector stores `last` floats (1 to 8): all 8 into
 * a wide plane, whose slack takes the rest; only the run's own into an output plane, through
 * a copy, as the floats after it may be another channel's, already written.  (No masked
 * stores: AMD's Zen microcodes them, and they made this convolution 30% slower.)  nv and no
 * are constants where this is inlined. */
__attribute__((target("avx2,fma"), always_inline)) static inline void block_taps(const taps *k, const float *in,
                                                                                 const float *bias, float *const *out,
                                                                                 int nv, int no, int last) {
  __m256 acc[4][6];
  for (int c = 0; c < no; c++)
    for (int v = 0; v < nv; v++) acc[c][v] = _mm256_set1_ps(bias[c]);
  const int64_t per_channel = k->cg * k->kh * k->kw;
  if (no == 4) { /* nv <= 2: the four taps, then one input vector at a time (13 registers) */
    const float *w0 = k->w, *w1 = w0 + per_channel, *w2 = w1 + per_channel, *w3 = w2 + per_channel;
    for (int64_t ci = 0; ci < k->cg; ci++)
      for (int64_t i = 0; i < k->kh; i++) {
        const float *row = in + ci * k->channel + k->row_off[i];
        for (int64_t j = 0; j < k->kw; j++) {
          const float *src = row + k->col_off[j];
          __m256 tap[4] = {_mm256_broadcast_ss(w0++), _mm256_broadcast_ss(w1++), _mm256_broadcast_ss(w2++),
                           _mm256_broadcast_ss(w3++)};
          for (int v = 0; v < nv; v++) {
            __m256 x = _mm256_loadu_ps(src + 8 * v);
            for (int c = 0; c < 4; c++) acc[c][v] = _mm256_fmadd_ps(tap[c], x, acc[c][v]);
          }
        }
      }
  } else {
    const float *w0 = k->w, *w1 = k->w + per_channel;
    for (int64_t ci = 0; ci < k->cg; ci++)
      for (int64_t i = 0; i < k->kh; i++) {
        const float *row = in + ci * k->channel + k->row_off[i];
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
  }
  for (int c = 0; c < no; c++) {
    for (int v = 0; v < nv - 1; v++) _mm256_storeu_ps(out[c] + 8 * v, activated8(acc[c][v], k->act));
    __m256 tail = activated8(acc[c][nv - 1], k->act);
    if (last == 8) {
      _mm256_storeu_ps(out[c] + 8 * (nv - 1), tail);
    } else {
      float part[8];
      _mm256_storeu_ps(part, tail);
      for (int f = 0; f < last; f++) out[c][8 * (nv - 1) + f] = part[f];
    }
  }
}

#define BLOCKS(no)                                                                                                   \
  do {                                                                                                               \
    for (; len - t > 48; t += 32) block_taps(k, in + t, bias, (float *const[2]){out[0] + t, out[1] + t}, 4, no, 8);   \
    float *const at[2] = {out[0] + t, out[1] + t};                                                                   \
    int last = exact ? (int)(len - t - 1) % 8 + 1 : 8;                                                               \
    switch ((len - t + 7) / 8) {                                                                                     \
    case 1: block_taps(k, in + t, bias, at, 1, no, last); break;                                                     \
    case 2: block_taps(k, in + t, bias, at, 2, no, last); break;                                                     \
    case 3: block_taps(k, in + t, bias, at, 3, no, last); break;                                                     \
    case 4: block_taps(k, in + t, bias, at, 4, no, last); break;                                                     \
    case 5: block_taps(k, in + t, bias, at, 5, no, last); break;                                                     \
    case 6: block_taps(k, in + t, bias, at, 6, no, last); break;                                                     \
    default: break;                                                                                                  \
    }                                                                                                                \
  } while (0)

/* no: 1 or 2 output channels, or 4 over a run of at most QUAD_RUN outputs */
enum { QUAD_RUN = 16 };

__attribute__((target("avx2,fma"))) static void run_taps_avx2(const taps *k, const float *in, const float *bias,
                                                               float *const *out, int64_t len, int no, bool exact) {
  if (no == 4) { /* one block of one or two vectors */
    int last = exact ? (int)(len - 1) % 8 + 1 : 8;
    if (len > 8) block_taps(k, in, bias, out, 2, 4, last);
    else block_taps(k, in, bias, out, 1, 4, last);
    return;
  }
  /* the rest is left at 17 to 48 outputs (or fewer, when that is all), one block of up to
   * six registers: a short block of its own after the full ones would wait on the same
   * chain of taps again */
  int64_t t = 0;
  if (no == 2) BLOCKS(2);
  else BLOCKS(1);
}
#undef BLOCKS

/* `exact`: out holds len floats (an output plane), else len rounded up to 8 (a wide plane) */
static void run_taps(const taps *k, const float *in, const float *bias, float *const *out, int64_t len, int no,
                     bool exact) {
  if (sc_rt_has_avx2()) {
    run_taps_avx2(k, in, bias, out, len, no, exact);
    return;
  }
  for (int c = 0; c < no; c++) {
    const float *wk = k->w + c * k->cg * k->kh * k->kw;
    for (int64_t t = 0; t < len; t++) out[c][t] = bias[c];
    for (int64_t ci = 0; ci < k->cg; ci++)
      for (int64_t i = 0; i < k->kh; i++)
        for (int64_t j = 0; j < k->kw; j++, wk++) {
          const float *src = in + ci * k->channel + k->row_off[i] + k->col_off[j];
          for (int64_t t = 0; t < len; t++) out[c][t] += *wk * src[t];
        }
    for (int64_t t = 0; t < len; t++) out[c][t] = activated(out[c][t], k->act);
  }
}

/* out[oy, 0..ow) = act(wide[oy, 0..ow)) for one output plane.  A row's last store may run
 * up to 7 floats into the rows or planes after it, which are written later; never past
 * `room` floats from `out`, the end of the image's output, as what follows belongs to the
 * next image, which another thread may be writing: the floats there go one by one. */
__attribute__((target("avx2,fma"))) static void finish_plane_avx2(const float *wide, int64_t rw, float *out, int64_t oh,
                                                                  int64_t ow, int act, int64_t room) {
  for (int64_t oy = 0; oy < oh; oy++)
    for (int64_t ox = 0; ox < ow; ox += 8) {
      const float *src = wide + oy * rw + ox;
      float *dst = out + oy * ow + ox;
      if (oy * ow + ox + 8 > room) {
        for (int64_t k = 0; k < 8 && ox + k < ow; k++) dst[k] = activated(src[k], act);
        continue;
      }
      _mm256_storeu_ps(dst, activated8(_mm256_loadu_ps(src), act));
    }
}

/* The image's channels into zero-padded planes, and the slack after them zeroed, for
 * strides of 1.  Rows are a few floats long here, where a call to memset or memcpy per row
 * cost more than the convolution's arithmetic.  A row's last store runs up to 7 floats past
 * it, writing the masked load's zeros over padding or over rows copied after it. */
__attribute__((target("avx2,fma"))) static void pad_image_avx2(const direct_conv *p, const float *x, float *padded) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int64_t plane = p->in.plane;
  for (int64_t i = 0; i < p->c * plane + SLACK; i += 8) _mm256_storeu_ps(padded + i, _mm256_setzero_ps());
  for (int64_t ci = 0; ci < p->c; ci++)
    for (int64_t iy = 0; iy < p->h; iy++) {
      const float *src = x + (ci * p->h + iy) * p->wd;
      float *dst = padded + ci * plane + (iy + p->ph) * p->in.rw + p->pw;
      for (int64_t i = 0; i < p->wd; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_maskload_ps(src + i, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(p->wd - i)), lane)));
    }
}

/* The same for any layout, element by element: input row r sh + g - ph of a channel goes to
 * row r of its row phase g, at [ci, g, f, r, q], and column col_first[f] + sw q to column q
 * of plane f.  Every row is written whole, zeros included. */
static void pad_image_planes(const direct_conv *p, const float *x, float *padded) {
  const plane_layout *l = &p->in;
  float *dst = padded;
  for (int64_t ci = 0; ci < p->c; ci++)
    for (int64_t g = 0; g < p->sh; g++)
      for (int64_t f = 0; f < l->columns; f++)
        for (int64_t r = 0; r < l->hq; r++, dst += l->rw) {
          int64_t iy = r * p->sh + g - p->ph;
          const float *src = x + (ci * p->h + iy) * p->wd;
          for (int64_t q = 0, col = l->col_first[f]; q < l->rw; q++, col += p->sw)
            dst[q] = iy >= 0 && iy < p->h && col >= 0 && col < p->wd ? src[col] : 0.0f;
        }
  memset(dst, 0, SLACK * sizeof(float));
}

/* The lanes of 8 input columns from `col` on that are inside a row of `width`: a
 * maskload's mask */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256i columns_inside(int64_t col, __m256i width) {
  __m256i at = _mm256_add_epi32(_mm256_set1_epi32((int)col), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return _mm256_and_si256(_mm256_cmpgt_epi32(at, _mm256_set1_epi32(-1)), _mm256_cmpgt_epi32(width, at));
}

/* Eight columns of a plane from `src`, its input row, from column `col` on, sw 1 or 2: for
 * sw = 2, the even lanes of the 16 input columns from there, read with a mask (in0, in1)
 * that zeroes the columns outside the image (the padding), which it does not read. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 plane_columns(const float *src, int64_t col,
                                                                                    int64_t sw, __m256i in0,
                                                                                    __m256i in1) {
  __m256 v0 = _mm256_maskload_ps(src + col, in0);
  if (sw == 1) return v0;
  __m256 v1 = _mm256_maskload_ps(src + col + 8, in1);
  /* lanes 0, 2 of each 128-bit half of v0 and v1, then the halves in order */
  __m256 even = _mm256_shuffle_ps(v0, v1, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
}

/* The same as pad_image_planes for strides along the width of 1 or 2 (SW, a constant where
 * this is inlined), eight columns a step.  Every row is stored whole, padding rows as
 * zeros, in the order of memory, so that a row's last store, which runs up to 7 floats past
 * it, lands where a later store writes (or in the slack).  The element loop took a quarter
 * of a tiny strided model's call.  The sizes are locals: read through `p` they were loaded
 * again after every store, which might have changed them for all the compiler knew. */
__attribute__((target("avx2,fma"), always_inline)) static inline void pad_planes_avx2(int SW, const direct_conv *p,
                                                                                     const float *x, float *padded) {
  const plane_layout *l = &p->in;
  const int64_t rw = l->rw, hq = l->hq, columns = l->columns, c = p->c, h = p->h, wd = p->wd, sh = p->sh, ph = p->ph;
  const __m256i width = _mm256_set1_epi32((int)wd);
  float *dst = padded;
  for (int64_t ci = 0; ci < c; ci++)
    for (int64_t g = 0; g < sh; g++)
      for (int64_t f = 0; f < columns; f++) {
        /* the first 8 columns' masks, the same on every row: a mask computed in the row,
         * just before its load, made each row wait for it */
        int64_t first = l->col_first[f];
        __m256i first0 = columns_inside(first, width), first1 = columns_inside(first + 8, width);
        int64_t r = 0, iy = g - ph; /* row r reads input row iy = r sh + g - ph */
        for (; r < hq && iy < 0; r++, iy += sh, dst += rw)
          for (int64_t q = 0; q < rw; q += 8) _mm256_storeu_ps(dst + q, _mm256_setzero_ps());
        const float *src = x + (ci * h + iy) * wd;
        if (rw <= 8) /* a row is one step: tiny planes, no loop */
          for (; r < hq && iy < h; r++, iy += sh, dst += rw, src += sh * wd)
            _mm256_storeu_ps(dst, plane_columns(src, first, SW, first0, first1));
        else
          for (; r < hq && iy < h; r++, iy += sh, dst += rw, src += sh * wd)
            for (int64_t q = 0; q < rw; q += 8) {
              int64_t col = first + SW * q; /* the input column of lane 0 */
              __m256i in0 = q == 0 ? first0 : columns_inside(col, width);
              __m256i in1 = q == 0 ? first1 : columns_inside(col + 8, width);
              _mm256_storeu_ps(dst + q, plane_columns(src, col, SW, in0, in1));
            }
        for (; r < hq; r++, dst += rw)
          for (int64_t q = 0; q < rw; q += 8) _mm256_storeu_ps(dst + q, _mm256_setzero_ps());
      }
  for (int64_t i = 0; i < SLACK; i += 8) _mm256_storeu_ps(dst + i, _mm256_setzero_ps());
}

/* The first n floats of v to dst: exactly, as the float after them may be another plane's,
 * already written. */
__attribute__((target("avx2,fma"), always_inline)) static inline void store_first(float *dst, __m128 v, int64_t n) {
  if (n == 4) {
    _mm_storeu_ps(dst, v);
    return;
  }
  if (n & 2) _mm_storel_pi((__m64 *)dst, v), v = _mm_movehl_ps(v, v), dst += 2;
  if (n & 1) _mm_store_ss(dst, v);
}

/* The column planes of images at most 8 wide, rows of at most 4 (tiny_cnn's [1, 8, 8]
 * through a 3x3 kernel with stride 2): each input row is one (masked) load, and each
 * plane's row one permutation of it, its lanes outside the image zeroed, stored: where
 * pad_planes_avx2 loaded every row once per plane, two loads and two shuffles a row, 47 ns
 * an image. */
__attribute__((target("avx2,fma"))) static void pad_tiny_rows_avx2(const direct_conv *p, const float *x, float *padded) {
  const plane_layout *l = &p->in;
  const int64_t rw = l->rw, hq = l->hq, columns = l->columns, c = p->c, h = p->h, wd = p->wd, sh = p->sh, ph = p->ph;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i width = _mm256_set1_epi32((int)wd), row_lanes = _mm256_cmpgt_epi32(width, lane);
  __m256i pick[DIRECT_MAX_K], keep[DIRECT_MAX_K]; /* plane f's lane q: input column col_first[f] + sw q */
  for (int64_t f = 0; f < columns; f++) {
    __m256i col = _mm256_add_epi32(_mm256_set1_epi32((int)l->col_first[f]), _mm256_mullo_epi32(lane, _mm256_set1_epi32((int)p->sw)));
    pick[f] = _mm256_and_si256(col, _mm256_set1_epi32(7));
    keep[f] = _mm256_and_si256(_mm256_and_si256(_mm256_cmpgt_epi32(col, _mm256_set1_epi32(-1)), _mm256_cmpgt_epi32(width, col)),
                               _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rw), lane));
  }
  for (int64_t ci = 0; ci < c; ci++)
    for (int64_t g = 0; g < sh; g++) {
      float *planes = padded + (ci * sh + g) * columns * l->plane;
      for (int64_t r = 0, iy = g - ph; r < hq; r++, iy += sh) {
        __m256 in = (uint64_t)iy < (uint64_t)h ? _mm256_maskload_ps(x + (ci * h + iy) * wd, row_lanes) : _mm256_setzero_ps();
        for (int64_t f = 0; f < columns; f++) {
          __m256 v = _mm256_and_ps(_mm256_permutevar8x32_ps(in, pick[f]), _mm256_castsi256_ps(keep[f]));
          store_first(planes + f * l->plane + r * rw, _mm256_castps256_ps128(v), rw);
        }
      }
    }
  float *end = padded + c * l->channel;
  for (int64_t i = 0; i < SLACK; i += 8) _mm256_storeu_ps(end + i, _mm256_setzero_ps());
}

__attribute__((target("avx2,fma"))) static void pad_image_planes_avx2(const direct_conv *p, const float *x,
                                                                      float *padded) {
  if (p->sw == 1) pad_planes_avx2(1, p, x, padded);
  else pad_planes_avx2(2, p, x, padded);
}

/* ---- images at most 8 wide with stride 1: output rows in registers ----
 *
 * Each input row is one masked load, stored at column pw of a zeroed row of 16 floats, so
 * that the 8 floats from column j of that row are the row shifted for kernel column j
 * (lane q holding input column q + j - pw, zero outside the image).  An output channel's
 * rows (at most 8) are then one vector each, held in registers across every tap: a tap is
 * a broadcast weight times a shifted row (an unaligned load), added to each output row
 * that row reaches, and each output row is stored once, straight into the output.  Where
 * the wide rows' layout zeroed and copied padded planes, ran the taps over runs that
 * crossed rows' ends and copied each output row out again: a depthwise [2, 4, 6, 6] took
 * 590 ns. */
enum { ROW_FLOATS = 16, ROWS_MAX = DIRECT_MAX_PLANES / ROW_FLOATS }; /* padded rows an image may need */

static bool rows_fit(const direct_conv *p) {
  return p->sh == 1 && p->sw == 1 && p->dh == 1 && p->dw == 1 && p->wd <= 8 && p->ow <= 8 && p->oh <= 8 &&
         p->kw <= 8 && p->pw < 8 && p->ph < 8 && p->c * (p->h + 2 * p->ph) <= ROWS_MAX;
}

/* rows[(ci hp + r) ROW_FLOATS + pw + col], hp = h + 2 ph: padded row r of channel ci (input
 * row r - ph, or zeros), zeros around its wd columns.  The zeros go first: the row's store
 * then overwrites the ones it covers. */
__attribute__((target("avx2,fma"))) static void pad_rows_avx2(const direct_conv *p, const float *x, float *rows) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i row_lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)p->wd), lane);
  const __m256 zero = _mm256_setzero_ps();
  const int64_t h = p->h, ph = p->ph, pw = p->pw, wd = p->wd;
  for (int64_t ci = 0; ci < p->c; ci++) {
    for (int64_t r = 0; r < h + 2 * ph; r++, rows += ROW_FLOATS) {
      _mm256_storeu_ps(rows, zero);
      _mm256_storeu_ps(rows + 8, zero);
      int64_t iy = r - ph;
      if (iy >= 0 && iy < h) _mm256_storeu_ps(rows + pw, _mm256_maskload_ps(x + (ci * h + iy) * wd, row_lanes));
    }
  }
}

/* The OH rows of NO output channels (1, or 2 when OH <= 6: 12 sums in registers; both
 * constants where this is inlined), each from the padded rows of its group's cg input
 * channels (`from`, per channel), then stored: as whole vectors where their lanes past ow
 * stay inside the plane (later rows overwrite them), else only the row's own floats, as
 * the next plane may be written already or belong to the next image (another thread's).
 * The rows are the innermost loop, unrolled, so that the sums stay in registers; two
 * channels give each tap's multiply-adds twice the independent chains (a depthwise
 * channel alone has one chain per row: 6 over a [6, 6] plane, where 8 cover an add's
 * latency at two a cycle). */
__attribute__((target("avx2,fma"), always_inline)) static inline void channel_rows(const direct_conv *p,
                                                                                   const float *const *from,
                                                                                   const float *w, const float *bias,
                                                                                   float *out, int OH, int NO,
                                                                                   bool SHARED) {
  __m256 acc[2][8];
  for (int c = 0; c < NO; c++)
    for (int oy = 0; oy < OH; oy++) acc[c][oy] = _mm256_set1_ps(bias[c]);
  const int64_t kh = p->kh, kw = p->kw, cg = div_by(p->c, p->groups), channel = (p->h + 2 * p->ph) * ROW_FLOATS;
  const int64_t per_channel = cg * kh * kw;
  for (int64_t ci = 0; ci < cg; ci++)
    for (int64_t i = 0; i < kh; i++)
      for (int64_t j = 0; j < kw; j++) {
        int64_t tap = (ci * kh + i) * kw + j, at = ci * channel + i * ROW_FLOATS + j;
        __m256 w0 = _mm256_set1_ps(w[tap]), w1 = NO == 2 ? _mm256_set1_ps(w[per_channel + tap]) : w0;
        const float *r0 = from[0] + at, *r1 = from[NO - 1] + at;
#pragma GCC unroll 8
        for (int oy = 0; oy < OH; oy++) {
          __m256 in = _mm256_loadu_ps(r0 + oy * ROW_FLOATS);
          /* in a register for both channels: GCC folded the load into each multiply-add,
           * two loads a row, which made the loop wait on the load ports */
          if (SHARED) __asm__("" : "+x"(in));
          acc[0][oy] = _mm256_fmadd_ps(w0, in, acc[0][oy]);
          if (NO == 2) acc[1][oy] = _mm256_fmadd_ps(w1, SHARED ? in : _mm256_loadu_ps(r1 + oy * ROW_FLOATS), acc[1][oy]);
        }
      }
  const int64_t ow = p->ow, plane = p->oh * ow;
  for (int c = 0; c < NO; c++)
    for (int oy = 0; oy < OH; oy++) {
      __m256 v = activated8(acc[c][oy], p->act);
      float *dst = out + c * plane + oy * ow;
      if ((oy + 1) * ow + 8 - ow <= OH * ow) { /* inside the plane: the next rows' stores overwrite the rest */
        _mm256_storeu_ps(dst, v);
      } else if (ow >= 4) { /* by halves: a copy through a buffer became a call to memmove */
        _mm_storeu_ps(dst, _mm256_castps256_ps128(v));
        if (ow > 4) store_first(dst + 4, _mm256_extractf128_ps(v, 1), ow - 4);
      } else {
        store_first(dst, _mm256_castps256_ps128(v), ow);
      }
    }
}

#define CHANNEL_ROWS(OH, NO) channel_rows(p, from, w, bias, out, OH, NO, false)
#define SHARED_ROWS(OH) channel_rows(p, from, w, bias, out, OH, 2, true)
__attribute__((target("avx2,fma"))) static void rows_image_avx2(const direct_conv *p, const float *x, float *y,
                                                                float *rows) {
  pad_rows_avx2(p, x, rows);
  int64_t cg = div_by(p->c, p->groups), og = div_by(p->o, p->groups), group = cg * (p->h + 2 * p->ph) * ROW_FLOATS;
  for (int64_t oc = 0; oc < p->o;) {
    int no = p->oh <= 6 && oc + 1 < p->o ? 2 : 1;
    const float *from[2] = {rows + div_by(oc, og) * group, rows + div_by(oc + no - 1, og) * group};
    const float *w = p->w + oc * cg * p->kh * p->kw;
    float bias[2] = {p->bias ? p->bias[oc] : 0.0f, p->bias && no == 2 ? p->bias[oc + 1] : 0.0f};
    float *out = y + oc * p->oh * p->ow;
    if (no == 2 && from[0] == from[1]) { /* one group: each input row loaded once for both */
      switch (p->oh) {
        case 1: SHARED_ROWS(1); break;
        case 2: SHARED_ROWS(2); break;
        case 3: SHARED_ROWS(3); break;
        case 4: SHARED_ROWS(4); break;
        case 5: SHARED_ROWS(5); break;
        default: SHARED_ROWS(6); break;
      }
    } else if (no == 2) {
      switch (p->oh) {
        case 1: CHANNEL_ROWS(1, 2); break;
        case 2: CHANNEL_ROWS(2, 2); break;
        case 3: CHANNEL_ROWS(3, 2); break;
        case 4: CHANNEL_ROWS(4, 2); break;
        case 5: CHANNEL_ROWS(5, 2); break;
        default: CHANNEL_ROWS(6, 2); break;
      }
    } else {
      switch (p->oh) {
        case 1: CHANNEL_ROWS(1, 1); break;
        case 2: CHANNEL_ROWS(2, 1); break;
        case 3: CHANNEL_ROWS(3, 1); break;
        case 4: CHANNEL_ROWS(4, 1); break;
        case 5: CHANNEL_ROWS(5, 1); break;
        case 6: CHANNEL_ROWS(6, 1); break;
        case 7: CHANNEL_ROWS(7, 1); break;
        default: CHANNEL_ROWS(8, 1); break;
      }
    }
    oc += no;
  }
}
#undef CHANNEL_ROWS
#undef SHARED_ROWS

/* One image: its channels into `padded`, then each output channel into its place, or through
 * `wide` for the wide rows' layout. */
static void direct_image(const direct_conv *p, const float *x, float *y, float *padded, float *wide) {
  const plane_layout *l = &p->in;
  int64_t cg = div_by(p->c, p->groups), og = div_by(p->o, p->groups), out_plane = p->oh * p->ow;
  bool avx2 = sc_rt_has_avx2();
  if (!l->by_column && p->sh == 1 && avx2) pad_image_avx2(p, x, padded);
  else if (l->by_column && p->wd <= 8 && l->rw <= 4 && avx2) pad_tiny_rows_avx2(p, x, padded);
  else if (p->sw <= 2 && avx2) pad_image_planes_avx2(p, x, padded);
  else pad_image_planes(p, x, padded);
  /* wide rows: the whole wide plane, but the last row's dropped columns */
  int64_t run = l->by_column ? out_plane : (p->oh - 1) * l->rw + p->ow;
  taps k = {NULL, cg, p->kh, p->kw, l->channel, p->row_off, p->col_off, l->by_column ? p->act : SC_ACT_NONE};
  /* output channels two at a time within a group, and when two wide planes fit; four at a
   * time into short output planes */
  bool pairs = og >= 2 && (l->by_column || 2 * (p->oh * l->rw + SLACK) <= DIRECT_MAX_FLOATS + 2 * SLACK);
  bool quads = og >= 4 && l->by_column && run <= QUAD_RUN;
  for (int64_t oc = 0; oc < p->o;) {
    int64_t left = p->groups == 1 ? og - oc : og - oc % og; /* output channels left in this group */
    int no = quads && left >= 4 ? 4 : pairs && left >= 2 ? 2 : 1;
    k.w = p->w + oc * cg * p->kh * p->kw;
    float bias[4];
    for (int c = 0; c < no; c++) bias[c] = p->bias ? p->bias[oc + c] : 0.0f;
    const float *in = padded + (p->groups == 1 ? 0 : oc / og * cg * l->channel);
    if (l->by_column) {
      float *const planes[4] = {y + oc * out_plane, y + (oc + 1) * out_plane, y + (oc + 2) * out_plane,
                                y + (oc + 3) * out_plane};
      run_taps(&k, in, bias, planes, run, no, true);
      oc += no;
      continue;
    }
    float *const planes[2] = {wide, wide + p->oh * l->rw + SLACK};
    run_taps(&k, in, bias, planes, run, no, false);
    for (int c = 0; c < no; c++, oc++) {
      float *out = y + oc * out_plane;
      if (avx2) {
        finish_plane_avx2(planes[c], l->rw, out, p->oh, p->ow, p->act, (p->o - oc) * out_plane);
      } else {
        for (int64_t oy = 0; oy < p->oh; oy++)
          for (int64_t ox = 0; ox < p->ow; ox++) out[oy * p->ow + ox] = activated(planes[c][oy * l->rw + ox], p->act);
      }
    }
  }
}

static void rows_images(void *arg, int64_t begin, int64_t end) {
  const direct_conv *p = arg;
  _Alignas(64) float rows[ROWS_MAX * ROW_FLOATS]; /* rows on cache lines: no load of 8 splits one */
  for (int64_t b = begin; b < end; b++)
    rows_image_avx2(p, p->x + b * p->c * p->h * p->wd, p->y + b * p->o * p->oh * p->ow, rows);
}

static void direct_images(void *arg, int64_t begin, int64_t end) {
  const direct_conv *p = arg;
  float padded[DIRECT_MAX_PLANES + 2 * SLACK], wide[DIRECT_MAX_FLOATS + 2 * SLACK];
  for (int64_t b = begin; b < end; b++)
    direct_image(p, p->x + b * p->c * p->h * p->wd, p->y + b * p->o * p->oh * p->ow, padded, wide);
}

void sc_conv_direct_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                        int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                        int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  direct_conv p; /* field by field, for the reason layout_for gives */
  p.x = x, p.w = w, p.bias = bias, p.y = y, p.act = act;
  p.c = c, p.h = h, p.wd = wd, p.o = o, p.kh = kh, p.kw = kw, p.sh = sh, p.sw = sw, p.ph = ph, p.pw = pw, p.dh = dh;
  p.dw = dw, p.groups = groups, p.oh = oh, p.ow = ow;
  if (rows_fit(&p) && sc_rt_has_avx2()) { /* no planes to lay out */
    int64_t macs = o * div_by(c, groups) * kh * kw * oh * 8;
    sc_rt_parallel_for(rows_images, &p, n, images_per_share(n, macs));
    return;
  }
  layout_for(&p.in, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow);
  /* row phase g of a channel starts at g columns plane; two divisions a tap cost 15% of a
   * tiny convolution: none for a stride of 1 */
  const plane_layout *l = &p.in;
  for (int64_t i = 0; i < kh; i++)
    p.row_off[i] = sh == 1 ? i * dh * l->rw : mod_by(i * dh, sh) * l->columns * l->plane + div_by(i * dh, sh) * l->rw;
  for (int64_t j = 0; j < kw; j++) p.col_off[j] = l->by_column ? j * l->plane : j * dw;
  int64_t macs = o * div_by(c, groups) * kh * kw * run_length(l, oh, ow);
  sc_rt_parallel_for(direct_images, &p, n, images_per_share(n, macs));
}
