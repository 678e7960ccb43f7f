/* conv_gather.c - convolutions whose output plane fits one 16-lane register.
 *
 * An output plane of at most 16 pixels (tiny_cnn's [4, 4] from an [8, 8] image with stride
 * 2, a Conv1d's 16 outputs) is one AVX-512 register, lane t holding output pixel t.  With an
 * input plane of at most 64 floats in four registers, a kernel tap's inputs for all 16
 * pixels are one permute across them (two past 32 floats), its lanes in the padding zeroed
 * by a mask: any stride, dilation and padding then cost the same, one permute per (input
 * channel, kernel row, kernel column) and one multiply-add per output channel.  Each tap's
 * indices and mask are worked out once per call, from a row part and a column part.
 *
 * The sums run from the bias over (input channel, kernel row, kernel column), a padding tap
 * adding w * 0, as conv_direct.c's and conv_pair_rows.c's do: the same bits as theirs.
 * conv_direct.c's planes and runs took these convolutions at about 200 ns (tiny_cnn, two
 * images) and 150 ns (a [2, 2, 16] Conv1d), most of it laying out padded planes and
 * dispatching over sizes known only at run time. */
#include <immintrin.h>
#include <stdbool.h>

#include "kernels.h"
#include "vec_activation.h"

enum {
  LANES = 16,
  MAX_PLANE = 64,  /* an input plane's floats: four registers */
  MAX_TAPS = 32,   /* kernel rows times columns */
  MAX_STEP = 64,   /* strides, dilations and paddings: indices stay small */
  AT_ONCE = 8,     /* output channels whose sums stay in registers together */
  MAX_MACS = 1 << 16 /* an image's multiply-adds at most: a register kernel */
};

typedef struct gather_conv {
  const float *x, *w, *bias;
  float *y;
  int64_t c, plane, cg, og, groups, taps, pixels;
  int act, vectors;                /* vectors: registers an input plane takes */
  __mmask16 loads[4];              /* each register's floats of the plane (none past it) */
  __m512i index[MAX_TAPS];         /* per tap, lane t: the input float output pixel t reads */
  __mmask16 inside[MAX_TAPS];      /* the lanes whose input is in the image (not padding) */
  __mmask16 upper[MAX_TAPS];       /* the lanes whose input is in the plane's last 32 floats */
} gather_conv;

bool sc_conv_gather_fits(int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                         int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow,
                         int32_t act) {
  /* every size bounded before any product */
  if (oh < 1 || ow < 1 || oh > LANES || ow > LANES || oh * ow > LANES || h < 1 || wd < 1 || h > MAX_PLANE ||
      wd > MAX_PLANE || h * wd > MAX_PLANE || !act_in_registers(act))
    return false;
  if (kh < 1 || kw < 1 || kh > MAX_TAPS || kw > MAX_TAPS || kh * kw > MAX_TAPS || sh < 1 || sw < 1 || sh > MAX_STEP ||
      sw > MAX_STEP || dh < 1 || dw < 1 || dh > MAX_STEP || dw > MAX_STEP || ph < 0 || pw < 0 || ph > MAX_STEP ||
      pw > MAX_STEP)
    return false;
  if (groups < 1 || c < 1 || o < 1 || c > MAX_MACS || o > MAX_MACS || c % groups || o % groups)
    return false;
  /* a 1x1 without stride or padding reads its input as a GEMM's matrix (sc_conv_direct_fits) */
  bool pointwise = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  return !pointwise && c / groups * kh * kw <= MAX_MACS / o && sc_rt_has_avx512();
}

/* Tap (i, j)'s indices and masks from the output pixels' rows and columns in the lanes. */
__attribute__((target("avx512f"))) static void plan_taps(gather_conv *p, int64_t h, int64_t wd, int64_t kh,
                                                          int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                                                          int64_t dh, int64_t dw, int64_t ow) {
  int oy_at[LANES], ox_at[LANES];
  for (int t = 0, oy = 0, ox = 0; t < LANES; t++) { /* stepped: no division per lane */
    oy_at[t] = oy, ox_at[t] = ox;
    if (++ox == ow) ox = 0, oy++;
  }
  const __m512i oy = _mm512_loadu_si512(oy_at), ox = _mm512_loadu_si512(ox_at);
  const __mmask16 pixels = (__mmask16)((1u << p->pixels) - 1);
  const __m512i zero = _mm512_setzero_si512(), height = _mm512_set1_epi32((int)h), width = _mm512_set1_epi32((int)wd);
  /* input row of kernel row i: oy sh - ph + i dh; column of kernel column j: ox sw - pw + j dw */
  const __m512i row0 = _mm512_sub_epi32(_mm512_mullo_epi32(oy, _mm512_set1_epi32((int)sh)), _mm512_set1_epi32((int)ph));
  const __m512i col0 = _mm512_sub_epi32(_mm512_mullo_epi32(ox, _mm512_set1_epi32((int)sw)), _mm512_set1_epi32((int)pw));
  for (int64_t i = 0; i < kh; i++) {
    __m512i row = _mm512_add_epi32(row0, _mm512_set1_epi32((int)(i * dh)));
    __mmask16 row_in = _mm512_mask_cmpge_epi32_mask(pixels, row, zero) & _mm512_cmplt_epi32_mask(row, height);
    __m512i row_start = _mm512_mullo_epi32(row, width);
    for (int64_t j = 0; j < kw; j++) {
      __m512i col = _mm512_add_epi32(col0, _mm512_set1_epi32((int)(j * dw)));
      __mmask16 in = _mm512_mask_cmpge_epi32_mask(row_in, col, zero) & _mm512_cmplt_epi32_mask(col, width);
      __m512i at = _mm512_maskz_add_epi32(in, row_start, col); /* 0 outside: any float, masked off */
      int64_t tap = i * kw + j;
      p->index[tap] = at;
      p->inside[tap] = in;
      p->upper[tap] = _mm512_cmpge_epi32_mask(at, _mm512_set1_epi32(32));
    }
  }
}

/* The plane's inputs of a tap in the output pixels' lanes (0 in the padding's). */
__attribute__((target("avx512f"), always_inline)) static inline __m512 tap_inputs(const gather_conv *p, const __m512 *v,
                                                                                   int64_t tap) {
  if (p->vectors == 1) return _mm512_maskz_permutexvar_ps(p->inside[tap], p->index[tap], v[0]);
  __m512 low = _mm512_maskz_permutex2var_ps(p->inside[tap], v[0], p->index[tap], v[1]);
  if (p->vectors == 2) return low;
  __m512 high = _mm512_maskz_permutex2var_ps(p->inside[tap], v[2], p->index[tap], v[3]);
  return _mm512_mask_blend_ps(p->upper[tap], low, high);
}

/* NO output channels (1 to AT_ONCE) of group g, from output channel oc on, of one image. */
__attribute__((target("avx512f,fma"), always_inline)) static inline void channels(const gather_conv *p, const float *x,
                                                                                 float *y, int64_t g, int64_t oc, int NO) {
  __m512 acc[AT_ONCE], v[4];
  for (int k = 0; k < NO; k++) acc[k] = _mm512_set1_ps(p->bias ? p->bias[oc + k] : 0.0f);
  for (int64_t ci = 0; ci < p->cg; ci++) {
    const float *plane = x + (g * p->cg + ci) * p->plane;
    for (int r = 0; r < p->vectors; r++) v[r] = _mm512_maskz_loadu_ps(p->loads[r], plane + LANES * r);
    const float *w = p->w + (oc * p->cg + ci) * p->taps;
    for (int64_t tap = 0; tap < p->taps; tap++) {
      __m512 in = tap_inputs(p, v, tap);
      for (int k = 0; k < NO; k++) acc[k] = _mm512_fmadd_ps(_mm512_set1_ps(w[k * p->cg * p->taps + tap]), in, acc[k]);
    }
  }
  const __mmask16 pixels = (__mmask16)((1u << p->pixels) - 1);
  for (int k = 0; k < NO; k++) {
    __m512 out = acc[k];
    if (p->act == SC_ACT_RELU || p->act == SC_ACT_RELU6) out = _mm512_max_ps(_mm512_setzero_ps(), out); /* NaN stays */
    if (p->act == SC_ACT_RELU6) out = _mm512_min_ps(_mm512_set1_ps(6.0f), out);
    float *dst = y + (oc + k) * p->pixels;
    if (p->pixels == LANES) _mm512_storeu_ps(dst, out);
    else _mm512_mask_storeu_ps(dst, pixels, out);
  }
}

__attribute__((target("avx512f,fma"))) static void image(const gather_conv *p, const float *x, float *y) {
  for (int64_t g = 0; g < p->groups; g++)
    for (int64_t oc = g * p->og; oc < (g + 1) * p->og;) {
      int64_t left = (g + 1) * p->og - oc;
      switch (left >= AT_ONCE ? AT_ONCE : left) { /* constants, so that the sums stay in registers */
        case 1: channels(p, x, y, g, oc, 1); break;
        case 2: channels(p, x, y, g, oc, 2); break;
        case 3: channels(p, x, y, g, oc, 3); break;
        case 4: channels(p, x, y, g, oc, 4); break;
        case 5: channels(p, x, y, g, oc, 5); break;
        case 6: channels(p, x, y, g, oc, 6); break;
        case 7: channels(p, x, y, g, oc, 7); break;
        default: channels(p, x, y, g, oc, 8); break;
      }
      oc += left >= AT_ONCE ? AT_ONCE : left;
    }
}

static void images(void *arg, int64_t begin, int64_t end) {
  const gather_conv *p = arg;
  const int64_t in = p->c * p->plane, out = p->groups * p->og * p->pixels;
  for (int64_t b = begin; b < end; b++) image(p, p->x + b * in, p->y + b * out);
}

void sc_conv_gather_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                        int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                        int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act) {
  gather_conv p; /* field by field: the tap tables need no zeroing */
  p.x = x, p.w = w, p.bias = bias, p.y = y, p.act = act;
  p.c = c, p.plane = h * wd, p.groups = groups, p.cg = c / groups, p.og = o / groups, p.taps = kh * kw;
  p.pixels = oh * ow, p.vectors = (int)((p.plane + LANES - 1) / LANES);
  if (p.vectors == 3) p.vectors = 4; /* the fourth register zero: one path for 33 to 64 floats */
  for (int r = 0; r < 4; r++) {
    int64_t left = p.plane - LANES * r;
    p.loads[r] = (__mmask16)(left >= LANES ? 0xFFFF : left > 0 ? (1u << left) - 1 : 0);
  }
  plan_taps(&p, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, ow);
  /* the threads share the images in shares of about 65,536 multiply-adds; a tiny call is one */
  int64_t macs = o * p.cg * p.taps * LANES, work;
  int64_t share = __builtin_mul_overflow(n, macs, &work) || work > 65536 ? 65536 / macs + 1 : (n > 0 ? n : 1);
  sc_rt_parallel_for(images, &p, n, share);
}
