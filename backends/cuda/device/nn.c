/* nn.c - convolution, transposed convolution, pooling, normalization, softmax and
 * attention (the GPU side of backends/cpu/runtime/nn.c).  Direct loops: one work item
 * per output element, or per row where a row's statistics are needed (layer_norm,
 * softmax, sdpa).  Tensors are NCHW, compact. */
#include "device.h"

static inline int is_nanf(float v) { return v != v; }

/* y [n, o, oh, ow] = conv(x [n, c, h, wd], w [o, c/groups, kh, kw]) + bias [o] (bias may be NULL). */
SC_KERNEL void sc_d_conv2d(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                           int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                           int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow) {
  int64_t cg = c / groups, og = o / groups;
  SC_GRID_LOOP(t, n * o * oh * ow) {
    int64_t ox = t % ow, oy = (t / ow) % oh, oc = (t / (ow * oh)) % o, b = t / (ow * oh * o);
    int64_t g = oc / og;
    float acc = bias ? bias[oc] : 0.0f;
    const float *wo = w + oc * cg * kh * kw;
    const float *xb = x + (b * c + g * cg) * h * wd;
    for (int64_t ci = 0; ci < cg; ci++)
      for (int64_t i = 0; i < kh; i++) {
        int64_t iy = oy * sh - ph + i * dh;
        if (iy < 0 || iy >= h) continue;
        const float *xr = xb + (ci * h + iy) * wd;
        const float *wr = wo + (ci * kh + i) * kw;
        for (int64_t j = 0; j < kw; j++) {
          int64_t ix = ox * sw - pw + j * dw;
          if (ix >= 0 && ix < wd) acc += wr[j] * xr[ix];
        }
      }
    y[t] = acc;
  }
}

/* col [n, c*kh*kw, oh*ow]: the input pixel each kernel tap of each output pixel reads (0
 * in the padding), so that a convolution with one group is a matrix product.  One work
 * item per (image, channel, output pixel) writes that pixel's kh*kw taps: neighbouring
 * threads write neighbouring pixels, and the index divisions (dozens of instructions
 * each on a GPU) are shared by the taps instead of repeated for each of them. */
SC_KERNEL void sc_d_im2col(const float *x, float *col, int64_t n, int64_t c, int64_t h, int64_t wd, int64_t kh,
                           int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh,
                           int64_t ow) {
  int64_t pixels = oh * ow;
  SC_GRID_LOOP(t, n * c * pixels) {
    int64_t p = t % pixels, plane = t / pixels; /* plane = b * c + ci */
    int64_t y0 = (p / ow) * sh - ph, x0 = (p % ow) * sw - pw;
    const float *xp = x + plane * h * wd;
    float *cp = col + plane * kh * kw * pixels + p; /* row (b, ci*kh*kw) of image b's columns */
    for (int64_t i = 0; i < kh; i++) {
      int64_t iy = y0 + i * dh;
      for (int64_t j = 0; j < kw; j++, cp += pixels) {
        int64_t ix = x0 + j * dw;
        *cp = iy >= 0 && iy < h && ix >= 0 && ix < wd ? xp[iy * wd + ix] : 0.0f;
      }
    }
  }
}

/* y [n, o, pixels] = bias [o] broadcast: the starting value a product adds to. */
SC_KERNEL void sc_d_bias_fill(float *y, const float *bias, int64_t n, int64_t o, int64_t pixels) {
  SC_GRID_LOOP(t, n * o * pixels) y[t] = bias[(t / pixels) % o];
}

/* y [n, o, oh, ow] = conv_transpose(x [n, c, h, wd], w [c, o/groups, kh, kw]) + bias [o]:
 * each output pixel gathers the input pixels iy, ix with iy*sh - ph + i*dh == oy and
 * ix*sw - pw + j*dw == ox. */
SC_KERNEL void sc_d_conv_transpose2d(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                                     int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                     int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh,
                                     int64_t ow) {
  int64_t cg = c / groups, og = o / groups;
  SC_GRID_LOOP(t, n * o * oh * ow) {
    int64_t ox = t % ow, oy = (t / ow) % oh, oc = (t / (ow * oh)) % o, b = t / (ow * oh * o);
    int64_t g = oc / og, ocl = oc % og;
    float acc = bias ? bias[oc] : 0.0f;
    for (int64_t i = 0; i < kh; i++) {
      int64_t ty = oy + ph - i * dh;
      if (ty < 0 || ty % sh) continue;
      int64_t iy = ty / sh;
      if (iy >= h) continue;
      for (int64_t j = 0; j < kw; j++) {
        int64_t tx = ox + pw - j * dw;
        if (tx < 0 || tx % sw) continue;
        int64_t ix = tx / sw;
        if (ix >= wd) continue;
        for (int64_t ci = g * cg; ci < (g + 1) * cg; ci++)
          acc += x[((b * c + ci) * h + iy) * wd + ix] * w[((ci * og + ocl) * kh + i) * kw + j];
      }
    }
    y[t] = acc;
  }
}

/* y, indices [nc, oh, ow]: the first max of each window (NaN wins); indices (may be NULL)
 * are flat positions iy * w + ix in the plane, -1 for a window with no element. */
SC_KERNEL void sc_d_max_pool2d(const float *x, float *y, int64_t *indices, int64_t nc, int64_t h, int64_t w, int64_t kh,
                               int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                               int64_t oh, int64_t ow) {
  SC_GRID_LOOP(t, nc * oh * ow) {
    int64_t ox = t % ow, oy = (t / ow) % oh, p = t / (ow * oh);
    const float *xp = x + p * h * w;
    float best = -__builtin_inff();
    int64_t arg = -1;
    for (int64_t i = 0; i < kh; i++) {
      int64_t iy = oy * sh - ph + i * dh;
      if (iy < 0 || iy >= h) continue;
      for (int64_t k = 0; k < kw; k++) {
        int64_t ix = ox * sw - pw + k * dw;
        if (ix < 0 || ix >= w) continue;
        float v = xp[iy * w + ix];
        if (v > best || is_nanf(v) || arg < 0) {
          best = v;
          arg = iy * w + ix;
          if (is_nanf(v)) goto done;
        }
      }
    }
  done:
    y[t] = best;
    if (indices) indices[t] = arg;
  }
}

SC_KERNEL void sc_d_avg_pool2d(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t kh, int64_t kw,
                               int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t oh, int64_t ow,
                               int32_t count_include_pad, int64_t divisor_override) {
  SC_GRID_LOOP(t, nc * oh * ow) {
    int64_t ox = t % ow, oy = (t / ow) % oh, p = t / (ow * oh);
    const float *xp = x + p * h * w;
    int64_t y0 = oy * sh - ph, x0 = ox * sw - pw;
    int64_t y1 = y0 + kh < h + ph ? y0 + kh : h + ph, x1 = x0 + kw < w + pw ? x0 + kw : w + pw;
    int64_t pool = (y1 - y0) * (x1 - x0);
    int64_t ys = y0 < 0 ? 0 : y0, xs = x0 < 0 ? 0 : x0, ye = y1 < h ? y1 : h, xe = x1 < w ? x1 : w;
    float sum = 0; /* in float, row by row, as torch's kernels add (backends/cpu/runtime/avg_pool.c) */
    for (int64_t iy = ys; iy < ye; iy++)
      for (int64_t ix = xs; ix < xe; ix++) sum += xp[iy * w + ix];
    int64_t div = divisor_override ? divisor_override : count_include_pad ? pool : (ye - ys) * (xe - xs);
    y[t] = div ? sum / (float)div : 0.0f;
  }
}

SC_KERNEL void sc_d_adaptive_avg_pool2d(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh,
                                        int64_t ow) {
  SC_GRID_LOOP(t, nc * oh * ow) {
    int64_t ox = t % ow, oy = (t / ow) % oh, p = t / (ow * oh);
    const float *xp = x + p * h * w;
    int64_t ys = oy * h / oh, ye = ((oy + 1) * h + oh - 1) / oh;
    int64_t xs = ox * w / ow, xe = ((ox + 1) * w + ow - 1) / ow;
    float sum = 0;
    for (int64_t iy = ys; iy < ye; iy++)
      for (int64_t ix = xs; ix < xe; ix++) sum += xp[iy * w + ix];
    y[t] = sum / (float)((ye - ys) * (xe - xs));
  }
}

/* y = (x - mean[ch]) / sqrt(var[ch] + eps) * weight[ch] + bias[ch] over x [n, c, inner];
 * any of the four per-channel arrays may be NULL. */
SC_KERNEL void sc_d_batch_norm(const float *x, float *y, const float *weight, const float *bias, const float *mean,
                               const float *var, int64_t n, int64_t c, int64_t inner, double eps) {
  SC_GRID_LOOP(t, n * c * inner) {
    int64_t ch = (t / inner) % c;
    float invstd = (float)(1.0 / sc_sqrt((double)(var ? var[ch] : 1.0f) + eps));
    float scale = (weight ? weight[ch] : 1.0f) * invstd;
    float shift = (bias ? bias[ch] : 0.0f) - (mean ? mean[ch] : 0.0f) * scale;
    y[t] = x[t] * scale + shift;
  }
}

/* One row of inner elements per SC_ROW_THREADS threads (device.h): each lane sums every
 * 32nd element, in double as the CPU kernel does, and the warp adds the lanes' sums. */
SC_KERNEL void sc_d_layer_norm(const float *x, float *y, const float *weight, const float *bias, float *mean_out,
                               float *rstd_out, int64_t outer, int64_t inner, double eps) {
  SC_GRID_LOOP(t, outer * SC_ROW_THREADS) {
    int64_t r = t / SC_ROW_THREADS, lane = t % SC_ROW_THREADS;
    if (lane >= SC_ROW_LANES) continue;
    const float *xr = x + r * inner;
    float *yr = y + r * inner;
    double sum = 0, sq = 0;
    for (int64_t i = lane; i < inner; i += SC_ROW_LANES) sum += xr[i];
    double mean = inner ? sc_row_sum(sum) / (double)inner : 0;
    for (int64_t i = lane; i < inner; i += SC_ROW_LANES) sq += ((double)xr[i] - mean) * ((double)xr[i] - mean);
    sq = sc_row_sum(sq);
    double rstd = 1.0 / sc_sqrt((inner ? sq / (double)inner : 0) + eps);
    for (int64_t i = lane; i < inner; i += SC_ROW_LANES) {
      float v = (float)(((double)xr[i] - mean) * rstd);
      yr[i] = v * (weight ? weight[i] : 1.0f) + (bias ? bias[i] : 0.0f);
    }
    if (lane == 0 && mean_out) mean_out[r] = (float)mean;
    if (lane == 0 && rstd_out) rstd_out[r] = (float)rstd;
  }
}

/* (log_)softmax of contiguous rows (inner == 1): one row per SC_ROW_THREADS threads, each
 * lane taking every 32nd element.  A NaN or an infinite max makes the row NaN, as in ATen. */
static void softmax_rows(const float *x, float *y, int64_t rows, int64_t n, int32_t is_log) {
  SC_GRID_LOOP(t, rows * SC_ROW_THREADS) {
    int64_t r = t / SC_ROW_THREADS, lane = t % SC_ROW_THREADS;
    if (lane >= SC_ROW_LANES) continue;
    const float *xs = x + r * n;
    float *ys = y + r * n;
    float mx = -__builtin_inff();
    for (int64_t i = lane; i < n; i += SC_ROW_LANES) mx = xs[i] > mx ? xs[i] : mx;
    mx = sc_row_max(mx);
    double sum = 0;
    if (!is_log) { /* the CPU's row kernel: float exp, a float reciprocal */
      for (int64_t i = lane; i < n; i += SC_ROW_LANES) sum += (ys[i] = sc_expf(xs[i] - mx));
      float inv = (float)(1.0 / sc_row_sum(sum));
      for (int64_t i = lane; i < n; i += SC_ROW_LANES) ys[i] *= inv;
    } else {
      for (int64_t i = lane; i < n; i += SC_ROW_LANES) sum += sc_exp((double)(xs[i] - mx));
      float lse = (float)(mx + sc_log(sc_row_sum(sum)));
      for (int64_t i = lane; i < n; i += SC_ROW_LANES) ys[i] = xs[i] - lse;
    }
  }
}

/* (log_)softmax over the middle dim of x [outer, n, inner].  Contiguous rows (inner == 1)
 * take SC_ROW_THREADS threads each (the launcher's work is outer * SC_ROW_THREADS);
 * otherwise one thread per (outer, inner) column, neighbours reading neighbours. */
SC_KERNEL void sc_d_softmax(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t is_log) {
  if (inner == 1) {
    softmax_rows(x, y, outer, n, is_log);
    return;
  }
  SC_GRID_LOOP(t, outer * inner) {
    int64_t o = t / inner, j = t % inner;
    const float *xs = x + o * n * inner + j;
    float *ys = y + o * n * inner + j;
    float mx = -__builtin_inff();
    for (int64_t i = 0; i < n; i++) mx = xs[i * inner] > mx ? xs[i * inner] : mx;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += sc_exp((double)(xs[i * inner] - mx));
    if (is_log) {
      float lse = (float)(mx + sc_logf((float)sum));
      for (int64_t i = 0; i < n; i++) ys[i * inner] = xs[i * inner] - lse;
    } else {
      for (int64_t i = 0; i < n; i++) ys[i * inner] = (float)(sc_exp((double)(xs[i * inner] - mx)) / sum);
    }
  }
}

/* out [batch, l, ev] = softmax(q [batch, l, e] @ k [batch, s, e]^T * scale + mask) @ v
 * [batch, s, ev], mask [.., l, s] at b * mask_stride (NULL: none), causal: key j > query i
 * masked.  One (batch, query row) per work item, with an online softmax accumulating into
 * the output row: a row whose scores are all -inf gives zeros, as torch and the CPU; one
 * that holds a NaN or +inf comes out NaN; s == 0 gives zeros. */
SC_KERNEL void sc_d_sdpa(const float *q, const float *k, const float *v, const void *mask, int64_t mask_stride,
                         float *out, int64_t batch, int64_t l, int64_t s, int64_t e, int64_t ev, double scale,
                         int32_t flags) {
  float fscale = (float)scale;
  int causal = flags & SC_SDPA_CAUSAL, bool_mask = flags & SC_SDPA_BOOL_MASK;
  SC_GRID_LOOP(t, batch * l) {
    int64_t b = t / l, i = t % l;
    const float *qi = q + t * e, *kb = k + b * s * e, *vb = v + b * s * ev;
    const float *mrow = mask && !bool_mask ? (const float *)mask + b * mask_stride + i * s : 0;
    const unsigned char *brow = mask && bool_mask ? (const unsigned char *)mask + b * mask_stride + i * s : 0;
    float *orow = out + t * ev;
    for (int64_t c = 0; c < ev; c++) orow[c] = 0.0f;
    if (s == 0) continue;
    float m = -__builtin_inff();
    double sum = 0;
    for (int64_t j = 0; j < s; j++) {
      const float *kj = kb + j * e;
      float dot = 0.0f;
      for (int64_t p = 0; p < e; p++) dot += qi[p] * kj[p];
      float sc = fscale * dot;
      if (mrow) sc += mrow[j];
      if ((brow && !brow[j]) || (causal && j > i)) sc = -__builtin_inff(); /* a bool mask's false: no weight */
      if (sc == -__builtin_inff()) continue; /* masked: no weight */
      if (sc > m) {
        float r = sc_expf(m - sc);
        sum *= r;
        for (int64_t c = 0; c < ev; c++) orow[c] *= r;
        m = sc;
      }
      float pj = sc_expf(sc - m);
      sum += pj;
      const float *vj = vb + j * ev;
      for (int64_t c = 0; c < ev; c++) orow[c] += pj * vj[c];
    }
    float inv = sum == 0.0 ? 0.0f : (float)(1.0 / sum); /* masked whole: zeros */
    for (int64_t c = 0; c < ev; c++) orow[c] *= inv;
  }
}

/* rms_norm over rows of `cols` (the CPU's sc_k_rms_norm_f32, one row per work item): the
 * squares summed in double, x * 1 / sqrt(mean + eps) in float, times weight where given. */
SC_KERNEL void sc_d_rms_norm(const float *x, float *y, const float *weight, int64_t rows, int64_t cols, double eps) {
  SC_GRID_LOOP(r, rows) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    double sq = 0;
    for (int64_t c = 0; c < cols; c++) sq += (double)xr[c] * xr[c];
    float scale = 1.0f / sc_sqrtf((float)(sq / (double)(cols ? cols : 1)) + (float)eps);
    for (int64_t c = 0; c < cols; c++) yr[c] = weight ? xr[c] * scale * weight[c] : xr[c] * scale;
  }
}

/* One axis of bilinear upsampling for output position o, as the CPU's fill_axis: the first
 * neighbour, the step to the second (0 at the edge) and the two weights. */
static inline void bilinear_axis(int64_t o, int64_t in, int64_t out, int32_t align_corners, double scale_factor,
                                 int64_t *first, int64_t *step, float *w0, float *w1) {
  float scale = align_corners ? (out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f)
                              : scale_factor > 0 ? (float)(1.0 / scale_factor) : (float)in / (float)out;
  float src = align_corners ? scale * (float)o : __builtin_fmaf(scale, (float)o + 0.5f, -0.5f);
  if (src < 0.0f) src = 0.0f;
  int64_t i = (int64_t)src;
  if (i > in - 1) i = in - 1;
  float frac = src - (float)i;
  frac = frac < 0.0f ? 0.0f : frac > 1.0f ? 1.0f : frac;
  *first = i;
  *step = i < in - 1 ? 1 : 0;
  *w1 = frac;
  *w0 = 1.0f - frac;
}

/* upsample_bilinear2d over nc planes of [h, w] into [oh, ow] (the CPU's upsample.c, bit for
 * bit: the same positions, weights and order of fused multiply-adds), one output element
 * per work item. */
SC_KERNEL void sc_d_upsample_bilinear2d(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh,
                                        int64_t ow, int32_t align_corners, double scale_h, double scale_w) {
  SC_GRID_LOOP(t, nc * oh * ow) {
    int64_t ox = t % ow, oy = (t / ow) % oh, p = t / (ow * oh);
    int64_t r, rs, c0, cs;
    float h0, h1, w0, w1;
    bilinear_axis(oy, h, oh, align_corners, scale_h, &r, &rs, &h0, &h1);
    bilinear_axis(ox, w, ow, align_corners, scale_w, &c0, &cs, &w0, &w1);
    const float *r0 = x + p * h * w + r * w, *r1 = r0 + rs * w;
    int64_t c1 = c0 + cs;
    float acc = r0[c1] * (h0 * w1);
    acc = __builtin_fmaf(r0[c0], h0 * w0, acc);
    acc = __builtin_fmaf(r1[c0], h1 * w0, acc);
    y[t] = __builtin_fmaf(r1[c1], h1 * w1, acc);
  }
}
