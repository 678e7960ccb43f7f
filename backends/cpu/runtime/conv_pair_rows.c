/* conv_pair_rows.c - small convolutions with two output rows in each 16-lane register.
 *
 * An image whose padded rows are at most 8 floats wide (a [6, 6] plane with padding 1 and a
 * 3x3 kernel, say) is laid out with its padded rows 8 floats apart.  Output pixel (oy, ox)
 * then sits at lane 8 oy + ox of the image's rows laid end to end, and kernel tap (i, j)
 * reads it from the padded rows at 8 (oy + i dh) + ox + j dw: a constant offset.  One
 * unaligned 16-float load per tap thus feeds two output rows, and a channel's output is
 * ceil(oh / 2) registers held across all its taps.  The lanes ox >= ow read into the next
 * row and are dropped when the registers are compressed into the output.  Asked for a global
 * average pool (sc_conv_pair_rows_mean_f32, cg_conv_pool.c), it adds each channel's kept
 * lanes in its registers and writes one mean per plane instead.
 *
 * conv_direct.c's rows kernel (one output row per 8-lane register) made cnn_pool's [2, 3, 6,
 * 6] -> 4 convolution 62% of that model's call on a Xeon with two 512-bit FMA units; this
 * needs half its multiply-adds, and on a CPU that splits 16 lanes into two halves (Zen 4)
 * half its loads and broadcasts for the same multiply-adds. */
#include <immintrin.h>
#include <stdbool.h>

#include "kernels.h"
#include "vec_activation.h"

enum {
  ROW = 8,             /* floats between padded rows */
  MAX_VECTORS = 4,     /* registers per output channel: up to 8 output rows */
  MAX_ROWS = 512,      /* padded rows of an image, over its channels: 16 KB on the stack */
  TAIL = 16,           /* floats after the rows that the last channel's loads may reach */
  CHANNELS_AT_ONCE = 4, /* output channels whose sums stay in registers together */
  MAX_MACS = 1 << 16     /* conv_direct.c's bound on an image's multiply-adds (over its padded width) */
};

/* A call's convolution, and what every image of it shares, worked out once per call. */
typedef struct pair_rows_conv {
  const float *x, *w, *bias;
  float *y;
  int64_t c, h, wd, o, kh, kw, ph, pw, dh, dw, groups, oh, ow;
  int act;
  bool mean;             /* y holds each output plane's mean, not the plane */
  int64_t cg, og, taps;  /* input and output channels per group; weights per output channel */
  int64_t pairs;         /* pairs of padded rows per input channel */
  __m512i pick;          /* a pair's lane q: the element of its two input rows it holds */
  __mmask16 columns;     /* the lanes that hold an input column (the others are padding) */
  /* where register v of an output channel goes: its lanes `keep` (the first ow of output
   * rows 2v and 2v + 1, the second when there is one), packed, as `count` floats at `at` */
  __mmask16 keep[MAX_VECTORS], count[MAX_VECTORS];
  int64_t at[MAX_VECTORS];
} pair_rows_conv;

bool sc_conv_pair_rows_fits(int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh,
                            int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh,
                            int64_t ow, int32_t act) {
  /* each size bounded before it is multiplied */
  if (wd < 1 || pw < 0 || wd > ROW || pw > ROW || wd + 2 * pw > ROW || sh != 1 || sw != 1 || !act_in_registers(act) ||
      kw < 1 || kw > ROW || dw < 1 || dw > ROW || ow < 1 || ow + dw * (kw - 1) > wd + 2 * pw)
    return false; /* (the common refusals first: a convolution site asks on every call) */
  if (oh < 1 || oh > 2 * MAX_VECTORS || h < 1 || h > MAX_ROWS || ph < 0 || ph > MAX_ROWS || kh < 1 ||
      kh > MAX_ROWS || dh < 1 || dh > MAX_ROWS || oh + dh * (kh - 1) > h + 2 * ph)
    return false;
  if (c < 1 || c > MAX_ROWS || c * (h + 2 * ph + 1) > MAX_ROWS || groups < 1 || c % groups || o < 1 || o % groups ||
      o > MAX_MACS)
    return false;
  /* what sc_conv_direct_fits leaves to oneDNN or a GEMM: many multiply-adds, or a 1x1
   * without padding (whose input is a GEMM's matrix as it stands) */
  bool pointwise = kh == 1 && kw == 1 && ph == 0 && pw == 0;
  return !pointwise && o * (c / groups) * kh * kw * oh * (wd + 2 * pw) <= MAX_MACS && sc_rt_has_avx512();
}

/* Padded rows of an image, in pairs: rows[(ci pairs + k) 2 ROW + q] for padded rows 2k and
 * 2k + 1 (input rows 2k - ph and the next, or zeros) at lanes q / ROW, their columns q % ROW
 * (input column q % ROW - pw, or zero), then TAIL zeros.  A pair is one masked load of its
 * two input rows (lanes outside the image neither read nor fault), one permute and one
 * aligned store: a store per padded row, with its zero columns, took a quarter of a
 * [2, 4, 6, 6] depthwise convolution. */
__attribute__((target("avx512f"))) static void pad_rows(const pair_rows_conv *p, const float *x, float *rows) {
  const int64_t h = p->h, wd = p->wd;
  const unsigned row = (1u << wd) - 1;
  for (int64_t ci = 0; ci < p->c; ci++, x += h * wd)
    for (int64_t k = 0, iy = -p->ph; k < p->pairs; k++, iy += 2, rows += 2 * ROW) {
      unsigned inside = ((uint64_t)iy < (uint64_t)h ? row : 0) | ((uint64_t)(iy + 1) < (uint64_t)h ? row << wd : 0);
      __m512 two = _mm512_maskz_loadu_ps((__mmask16)inside, x + iy * wd);
      _mm512_store_ps(rows, _mm512_maskz_permutexvar_ps(p->columns, p->pick, two));
    }
  _mm512_store_ps(rows, _mm512_setzero_ps());
}

/* activated8's activations on 16 lanes, with its NaN */
__attribute__((target("avx512f"), always_inline)) static inline __m512 activated16(__m512 v, int act) {
  if (act == SC_ACT_RELU || act == SC_ACT_RELU6) v = _mm512_max_ps(_mm512_setzero_ps(), v); /* b where either is NaN */
  if (act == SC_ACT_RELU6) v = _mm512_min_ps(_mm512_set1_ps(6.0f), v);
  return v;
}

/* NO output channels (1, 2 or 4), V registers each (constants where this is inlined).
 * SHARED: the channels are in one group and read the same input rows, loaded once for all. */
__attribute__((target("avx512f,fma"), always_inline)) static inline void channels(const pair_rows_conv *p,
                                                                                 const float *const *from,
                                                                                 const float *w, const float *bias,
                                                                                 float *out, int V, int NO, bool SHARED) {
  __m512 acc[CHANNELS_AT_ONCE][MAX_VECTORS];
  for (int c = 0; c < NO; c++)
    for (int v = 0; v < V; v++) acc[c][v] = _mm512_set1_ps(bias[c]);
  const int64_t kh = p->kh, kw = p->kw, channel = p->pairs * 2 * ROW, taps = p->taps;
  for (int64_t ci = 0; ci < p->cg; ci++)
    for (int64_t i = 0; i < kh; i++)
      for (int64_t j = 0; j < kw; j++) {
        int64_t tap = (ci * kh + i) * kw + j, at = ci * channel + i * p->dh * ROW + j * p->dw;
        for (int v = 0; v < V; v++) {
          __m512 in = _mm512_loadu_ps(from[0] + at + 16 * v);
          /* one load for all: GCC folded it into each multiply-add, and each such load of
           * 16 floats off a cache line's start is two (two channels lost 20% to it) */
          if (SHARED) __asm__("" : "+v"(in));
          for (int c = 0; c < NO; c++) {
            __m512 x = SHARED || c == 0 ? in : _mm512_loadu_ps(from[c] + at + 16 * v);
            acc[c][v] = _mm512_fmadd_ps(_mm512_set1_ps(w[c * taps + tap]), x, acc[c][v]);
          }
        }
      }
  const int64_t plane = p->oh * p->ow;
  if (p->mean) { /* the kept lanes' sum, in a tree of floats, over the plane's size */
    for (int c = 0; c < NO; c++) {
      __m512 sum = _mm512_maskz_mov_ps(p->keep[0], activated16(acc[c][0], p->act));
      for (int v = 1; v < V; v++) sum = _mm512_add_ps(sum, _mm512_maskz_mov_ps(p->keep[v], activated16(acc[c][v], p->act)));
      out[c] = _mm512_reduce_add_ps(sum) / (float)plane;
    }
    return;
  }
  for (int c = 0; c < NO; c++)
    for (int v = 0; v < V; v++) {
      __m512 packed = _mm512_maskz_compress_ps(p->keep[v], activated16(acc[c][v], p->act));
      _mm512_mask_storeu_ps(out + c * plane + p->at[v], p->count[v], packed);
    }
}

#define CHANNELS(V, NO, SHARED) channels(p, from, w, bias, out, V, NO, SHARED)
#define WIDTHS(V)                                                          \
  if (no == 1) CHANNELS(V, 1, false);                                      \
  else if (no == 2) shared ? CHANNELS(V, 2, true) : CHANNELS(V, 2, false); \
  else shared ? CHANNELS(V, 4, true) : CHANNELS(V, 4, false)
__attribute__((target("avx512f,fma"))) static void image(const pair_rows_conv *p, const float *x, float *y,
                                                          float *rows) {
  pad_rows(p, x, rows);
  const int64_t group = p->cg * p->pairs * 2 * ROW, vectors = (p->oh + 1) / 2;
  /* the group of output channel oc + c, counted without a division (a tiny call's cost) */
  int64_t in_group = 0;
  const float *group_rows = rows;
  for (int64_t oc = 0; oc < p->o;) {
    int64_t left = p->o - oc;
    int no = left >= 4 ? 4 : left >= 2 ? 2 : 1;
    const float *from[CHANNELS_AT_ONCE];
    float bias[CHANNELS_AT_ONCE];
    for (int c = 0; c < no; c++) {
      from[c] = group_rows;
      if (++in_group == p->og) in_group = 0, group_rows += group;
      bias[c] = p->bias ? p->bias[oc + c] : 0.0f;
    }
    const float *w = p->w + oc * p->taps;
    float *out = y + oc * (p->mean ? 1 : p->oh * p->ow);
    bool shared = from[0] == from[no - 1];
    switch (vectors) {
      case 1: WIDTHS(1); break;
      case 2: WIDTHS(2); break;
      case 3: WIDTHS(3); break;
      default: WIDTHS(4); break;
    }
    oc += no;
  }
}
#undef WIDTHS
#undef CHANNELS

static void images(void *arg, int64_t begin, int64_t end) {
  const pair_rows_conv *p = arg;
  _Alignas(64) float rows[MAX_ROWS * ROW + TAIL];
  const int64_t in = p->c * p->h * p->wd, out = p->o * (p->mean ? 1 : p->oh * p->ow);
  for (int64_t b = begin; b < end; b++) image(p, p->x + b * in, p->y + b * out, rows);
}

__attribute__((target("avx512f"))) static void pair_rows(const float *x, const float *w, const float *bias, float *y,
                                                          int64_t n, int64_t c, int64_t h, int64_t wd, int64_t o,
                                                          int64_t kh, int64_t kw, int64_t ph, int64_t pw, int64_t dh,
                                                          int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act,
                                                          bool mean) {
  pair_rows_conv p; /* field by field: an initializer zeroed the whole struct first */
  p.x = x, p.w = w, p.bias = bias, p.y = y, p.act = act;
  p.c = c, p.h = h, p.wd = wd, p.o = o, p.kh = kh, p.kw = kw, p.ph = ph, p.pw = pw, p.dh = dh, p.dw = dw;
  p.groups = groups, p.oh = oh, p.ow = ow, p.mean = mean;
  p.cg = groups == 1 ? c : c / groups, p.og = groups == 1 ? o : o / groups, p.taps = p.cg * kh * kw;
  p.pairs = (h + 2 * ph + 1) / 2;
  /* lane q: column q % ROW - pw of input row q / ROW of the pair, where that is a column */
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i col = _mm512_sub_epi32(_mm512_and_si512(lane, _mm512_set1_epi32(ROW - 1)), _mm512_set1_epi32((int)pw));
  p.columns = _mm512_cmpge_epi32_mask(col, _mm512_setzero_si512()) & _mm512_cmplt_epi32_mask(col, _mm512_set1_epi32((int)wd));
  p.pick = _mm512_maskz_add_epi32(p.columns, _mm512_mullo_epi32(_mm512_srli_epi32(lane, 3), _mm512_set1_epi32((int)wd)), col);
  const unsigned out_row = (1u << ow) - 1;
  for (int64_t v = 0; v < (oh + 1) / 2; v++) {
    bool both = 2 * v + 1 < oh;
    p.keep[v] = (__mmask16)(both ? out_row | out_row << ROW : out_row);
    p.count[v] = (__mmask16)((1u << (both ? 2 * ow : ow)) - 1);
    p.at[v] = 2 * v * ow;
  }
  int64_t macs = o * p.cg * kh * kw * oh * ROW;
  sc_rt_parallel_for(images, &p, n, 65536 / macs + 1);
}

void sc_conv_pair_rows_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                           int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                           int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  pair_rows(x, w, bias, y, n, c, h, wd, o, kh, kw, ph, pw, dh, dw, groups, oh, ow, act, false);
}

void sc_conv_pair_rows_mean_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                                int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t ph, int64_t pw,
                                int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  pair_rows(x, w, bias, y, n, c, h, wd, o, kh, kw, ph, pw, dh, dw, groups, oh, ow, act, true);
}
