/* Small convolutions (sc_k_conv2d_act_f32, which takes them to backends/cpu/runtime/
 * conv_direct.c) against a double reference: padding on every side, strides down the rows
 * and along them (the width split in phases), dilation, groups and depthwise, output runs
 * that leave every remainder after the 32-output blocks, with and without bias, each
 * activation; the guard that keeps 1x1s without stride or padding, GELU, wide kernels and
 * large problems out; images in one call as alone; one thread and two alike; inputs whose
 * neighbours in memory are NaN, which a read past the image would spread; and no write
 * outside the output; and all of it again through the pair-rows and gather kernels of AVX-512
 * libraries. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/runtime_abi.h"
#include "run_suite.h"
#include "shapec/runtime.h"

typedef struct geometry {
  int64_t n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups;
} geometry;

static const geometry cases[] = {
    {2, 1, 5, 5, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1},   /* the tutorial-sized model: one run of 33 wide outputs */
    {1, 3, 9, 8, 4, 3, 3, 1, 1, 0, 0, 1, 1, 1},   /* no padding: runs of 58 (32 + 26) */
    {3, 2, 7, 6, 3, 3, 2, 2, 1, 1, 0, 1, 1, 1},   /* stride 2 down the rows: a run per row */
    {2, 4, 9, 8, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2},   /* dilation 2, two groups */
    {2, 5, 6, 7, 5, 3, 3, 2, 1, 1, 2, 1, 2, 5},   /* depthwise, stride (2, 1), dilation (1, 2) */
    {1, 2, 12, 12, 2, 5, 5, 1, 1, 2, 2, 1, 1, 1}, /* 5x5, a plane of 16x16 */
    {4, 1, 3, 1, 2, 3, 1, 1, 1, 1, 0, 1, 1, 1},   /* one column */
    {1, 2, 1, 9, 3, 1, 3, 1, 1, 0, 1, 1, 1, 1},   /* one row: conv1d's shape */
    {2, 3, 4, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1},   /* 1x1 with padding */
    {1, 1, 30, 30, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1}, /* a run of 958: many full blocks */
    {2, 3, 9, 9, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1},   /* stride 2 both ways: two phases */
    {1, 2, 8, 11, 3, 2, 3, 1, 3, 0, 2, 1, 2, 1},  /* stride 3 along the width, dilation 2: taps in all phases */
    {2, 4, 7, 8, 4, 3, 3, 1, 2, 1, 1, 1, 1, 4},   /* depthwise, stride 2 along the width */
    {1, 1, 5, 20, 2, 1, 16, 1, 1, 0, 0, 1, 1, 1}, /* sixteen kernel columns, the most taken */
    {2, 1, 8, 8, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1},   /* bench/small_models.py's tiny_cnn: [4, 4] planes */
    {1, 2, 20, 21, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1}, /* stride 2, rows of 11: two steps of 8 a row */
    {3, 3, 6, 5, 2, 3, 3, 1, 1, 0, 1, 1, 1, 1},   /* a [4, 5] plane: the last image's tail alone */
    {1, 3, 32, 32, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1}, /* column planes of 4,896 floats: past the wide rows' 4,096 */
    {2, 2, 7, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1},   /* [4, 4] planes of 7 channels: four, two, then one at a time */
    {1, 4, 6, 6, 10, 3, 3, 2, 2, 1, 1, 1, 1, 2},  /* two groups of 5 over [3, 3] planes (a run of 9): four, then one */
    {3, 1, 4, 4, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1},   /* [2, 2] planes, four channels: a run of 4 */
    {2, 2, 5, 7, 3, 3, 2, 1, 3, 1, 0, 1, 2, 1},   /* stride 3 along 7 columns, dilation 2: planes' rows of 2 */
    {1, 3, 6, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1},   /* 5 columns: rows of 3 */
    {2, 1, 3, 2, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1},   /* 2 columns: rows of 1 */
    {2, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 4},   /* depthwise, stride 1, [6, 6]: rows in registers */
    {1, 4, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 2},   /* two groups, [8, 8] outputs: rows of 8, 8 rows */
    {2, 2, 8, 2, 3, 5, 7, 1, 1, 2, 3, 1, 1, 1},   /* 7 kernel columns over 2 (padding 3): rows of 2 */
    {1, 3, 9, 3, 2, 2, 3, 1, 1, 0, 0, 1, 1, 1},   /* rows of 1, eight of them */
    /* padded rows of at most 8: on an AVX-512 library, two output rows per register (conv_pair_rows.c) */
    {2, 3, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1},   /* bench/small_models.py's cnn_pool: four channels on one load */
    {3, 2, 5, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1},   /* 5 rows (the last register half used), 4 channels then 1 */
    {2, 6, 6, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 3},   /* 3 groups of 2: four channels over two groups' rows, then two */
    {1, 2, 4, 4, 3, 3, 3, 1, 1, 2, 2, 1, 1, 1},   /* padding 2: rows of 8, 6 output rows from 4 */
    {1, 2, 3, 4, 2, 3, 3, 1, 1, 2, 2, 2, 2, 1},   /* dilation 2 both ways */
    {2, 1, 1, 7, 2, 1, 3, 1, 1, 0, 0, 1, 1, 1},   /* one row: one register, half used */
    {1, 3, 7, 6, 7, 2, 2, 1, 1, 0, 1, 1, 1, 1},   /* 2x2 kernel, 7 channels: four, two, one */
    {2, 2, 9, 5, 3, 2, 3, 1, 1, 0, 1, 1, 1, 1},   /* 8 output rows: four registers */
    {2, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 2},   /* 2 groups of 2 */
};
enum { N_CASES = sizeof cases / sizeof *cases };

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

static int64_t fill(float *v, int64_t n, int seed) {
  for (int64_t i = 0; i < n; i++) v[i] = (float)(((i * 7919 + seed * 104729) % 2003) / 2003.0 - 0.5) * 2.0f;
  return n;
}

static double act_ref(double v, int act) {
  if (act == SC_ACT_RELU) return v > 0 ? v : 0;
  if (act == SC_ACT_RELU6) return v < 0 ? 0 : v > 6 ? 6 : v;
  return v;
}

static void reference(const geometry *g, const float *x, const float *w, const float *bias, double *y, int act) {
  int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
  int64_t cg = g->c / g->groups, og = g->o / g->groups;
  for (int64_t b = 0; b < g->n; b++)
    for (int64_t oc = 0; oc < g->o; oc++)
      for (int64_t oy = 0; oy < oh; oy++)
        for (int64_t ox = 0; ox < ow; ox++) {
          double s = bias ? bias[oc] : 0;
          for (int64_t ci = 0; ci < cg; ci++)
            for (int64_t i = 0; i < g->kh; i++)
              for (int64_t j = 0; j < g->kw; j++) {
                int64_t iy = oy * g->sh - g->ph + i * g->dh, ix = ox * g->sw - g->pw + j * g->dw;
                if (iy < 0 || iy >= g->h || ix < 0 || ix >= g->w) continue;
                s += (double)w[((oc * cg + ci) * g->kh + i) * g->kw + j] *
                     x[((b * g->c + oc / og * cg + ci) * g->h + iy) * g->w + ix];
              }
          y[((b * g->o + oc) * oh + oy) * ow + ox] = act_ref(s, act);
        }
}

static bool fits(const geometry *g, int act) {
  int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
  return sc_conv_direct_fits(g->c, g->h, g->w, g->o, g->kh, g->kw, g->sh, g->sw, g->ph, g->pw, g->dh, g->groups, oh, ow, act);
}

/* y from sc_k_conv2d_act_f32; x sits between NaN guards of 64 floats either side, and the
 * output between 64 floats either side that must stay as they were */
static void run(const geometry *g, const float *x_in, const float *w, const float *bias, float *y, int act) {
  int64_t nx = g->n * g->c * g->h * g->w;
  int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
  int64_t ny = g->n * g->o * oh * ow;
  float *guarded = malloc(sizeof(float) * (size_t)(nx + 128)), *out = malloc(sizeof(float) * (size_t)(ny + 128));
  for (int64_t i = 0; i < nx + 128; i++) guarded[i] = NAN;
  for (int64_t i = 0; i < ny + 128; i++) out[i] = 12345.0f;
  memcpy(guarded + 64, x_in, sizeof(float) * (size_t)nx);
  int rc = sc_k_conv2d_act_f32(guarded + 64, w, bias, out + 64, g->n, g->c, g->h, g->w, g->o, g->kh, g->kw, g->sh, g->sw, g->ph,
                               g->pw, g->dh, g->dw, g->groups, oh, ow, act);
  ck_assert_int_eq(rc, SHAPEC_OK);
  for (int64_t i = 0; i < 64; i++)
    ck_assert_msg(out[i] == 12345.0f && out[64 + ny + i] == 12345.0f, "a write outside the output, %lld floats away",
                  (long long)(out[i] != 12345.0f ? i - 64 : i + 1));
  memcpy(y, out + 64, sizeof(float) * (size_t)ny);
  free(guarded), free(out);
}

/* y from run() on geometry g, held to the reference in double (want: its room) */
static void run_against_reference(const char *label, int ci, const geometry *g, const float *x, const float *w,
                                  const float *bias, float *y, double *want, int act) {
  int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
  int64_t ny = g->n * g->o * oh * ow;
  run(g, x, w, bias, y, act);
  reference(g, x, w, bias, want, act);
  for (int64_t i = 0; i < ny; i++)
    ck_assert_msg(fabs(y[i] - want[i]) <= 1e-5 * (1 + fabs(want[i])), "%s %d act %d bias %d: [%lld] = %.9g, want %.9g",
                  label, ci, act, bias != NULL, (long long)i, y[i], want[i]);
}

static void check_all_cases(void) {
  static const int acts[] = {SC_ACT_NONE, SC_ACT_RELU, SC_ACT_RELU6};
  for (int ci = 0; ci < N_CASES; ci++) {
    const geometry *g = &cases[ci];
    int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
    int64_t nx = g->n * g->c * g->h * g->w, nw = g->o * (g->c / g->groups) * g->kh * g->kw, ny = g->n * g->o * oh * ow;
    float *x = malloc(sizeof(float) * (size_t)nx), *w = malloc(sizeof(float) * (size_t)nw), *bias = malloc(sizeof(float) * (size_t)g->o);
    float *y = malloc(sizeof(float) * (size_t)ny);
    double *want = malloc(sizeof(double) * (size_t)ny);
    fill(x, nx, ci), fill(w, nw, ci + 100), fill(bias, g->o, ci + 200);
    for (size_t a = 0; a < sizeof acts / sizeof *acts; a++)
      for (int with_bias = 0; with_bias <= 1; with_bias++) {
        ck_assert_msg(fits(g, acts[a]), "case %d: not taken by the direct kernel", ci);
        run_against_reference("case", ci, g, x, w, with_bias ? bias : NULL, y, want, acts[a]);
      }
    free(x), free(w), free(bias), free(y), free(want);
  }
}

START_TEST(test_matches_reference) { check_all_cases(); }
END_TEST

/* each image of a batch comes out as it does alone, and one thread gives two's bits */
static void check_batch_and_threads_of(const geometry *list, int count) {
  for (int ci = 0; ci < count; ci++) {
    geometry g = list[ci];
    g.n = 5;
    int64_t oh = out_size(g.h, g.kh, g.sh, g.ph, g.dh), ow = out_size(g.w, g.kw, g.sw, g.pw, g.dw);
    int64_t per_x = g.c * g.h * g.w, per_y = g.o * oh * ow, nw = g.o * (g.c / g.groups) * g.kh * g.kw;
    float *x = malloc(sizeof(float) * (size_t)(5 * per_x)), *w = malloc(sizeof(float) * (size_t)nw);
    float *y[2] = {malloc(sizeof(float) * (size_t)(5 * per_y)), malloc(sizeof(float) * (size_t)(5 * per_y))};
    float *alone = malloc(sizeof(float) * (size_t)per_y);
    fill(x, 5 * per_x, ci), fill(w, nw, ci + 100);
    for (int t = 0; t < 2; t++) {
      shapec_model_set_num_threads(t + 1);
      run(&g, x, w, NULL, y[t], SC_ACT_NONE);
    }
    ck_assert_msg(memcmp(y[0], y[1], sizeof(float) * (size_t)(5 * per_y)) == 0, "case %d: one thread and two differ", ci);
    geometry one = g;
    one.n = 1;
    for (int64_t b = 0; b < 5; b++) {
      run(&one, x + b * per_x, w, NULL, alone, SC_ACT_NONE);
      ck_assert_msg(memcmp(alone, y[0] + b * per_y, sizeof(float) * (size_t)per_y) == 0, "case %d: image %lld differs alone", ci,
                    (long long)b);
    }
    free(x), free(w), free(y[0]), free(y[1]), free(alone);
  }
}

static void check_batch_and_threads(void) { check_batch_and_threads_of(cases, N_CASES); }

START_TEST(test_batch_and_threads) { check_batch_and_threads(); }
END_TEST

/* A library built for AVX-512 takes the cases whose padded rows are at most 8 floats wide,
 * with stride 1, to the pair-rows kernel: every case again, and the ones it takes must be
 * the ones expected.  (Each test runs in its own process: the verdict set here stays here.) */
START_TEST(test_pair_rows) {
  char err[200];
  if (!sc_rt_has_avx2() || sc_rt_cpu_has("avx512f", 7) != 1) return; /* nothing to take here */
  ck_assert_int_eq(sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err), SHAPEC_OK);
  ck_assert(sc_rt_has_avx512());
  int taken = 0;
  for (int ci = 0; ci < N_CASES; ci++) {
    const geometry *g = &cases[ci];
    int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
    bool pointwise = g->kh == 1 && g->kw == 1 && g->ph == 0 && g->pw == 0;
    bool pair = g->sh == 1 && g->sw == 1 && g->w + 2 * g->pw <= 8 && oh <= 8 && !pointwise;
    ck_assert_msg(sc_conv_pair_rows_fits(g->c, g->h, g->w, g->o, g->kh, g->kw, g->sh, g->sw, g->ph, g->pw, g->dh, g->dw,
                                         g->groups, oh, ow, SC_ACT_RELU) == pair,
                  "case %d: pair rows %s", ci, pair ? "not taken" : "taken");
    taken += pair;
  }
  ck_assert_int_ge(taken, 12);
  ck_assert(!sc_conv_pair_rows_fits(3, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 6, 6, SC_ACT_GELU));
  ck_assert(sc_conv_pair_rows_fits(4, 6, 6, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 6, 6, SC_ACT_NONE));
  ck_assert(!sc_conv_pair_rows_fits(4, 6, 6, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 6, 6, SC_ACT_NONE)); /* oneDNN's */
  ck_assert(!sc_conv_pair_rows_fits(4, 6, 6, 4, 1, 1, 1, 1, 0, 0, 1, 1, 1, 6, 6, SC_ACT_NONE));   /* a GEMM's */
  /* sizes that would overflow if the guard multiplied before bounding them */
  ck_assert(!sc_conv_pair_rows_fits((int64_t)1 << 40, 6, 6, 4, 3, 3, 1, 1, (int64_t)1 << 40, 1, 1, 1, 1, 6, 6, SC_ACT_NONE));
  ck_assert(!sc_conv_pair_rows_fits(1, 6, 6, 4, (int64_t)1 << 62, 3, 1, 1, 1, 1, (int64_t)1 << 62, 1, 1, 6, 6, SC_ACT_NONE));
  ck_assert(!sc_conv_pair_rows_fits(1, 6, 6, (int64_t)1 << 62, 3, 3, 1, 1, 1, 1, 1, 1, 1, 6, 6, SC_ACT_NONE));
  check_all_cases();
  check_batch_and_threads();
}
END_TEST

/* The same kernel's global average pool (sc_conv_pair_rows_mean_f32): every case it takes,
 * each activation, against the reference planes' means in double; the output holds one
 * float per plane and nothing past it; a NaN input gives NaN exactly in the planes whose
 * outputs read it. */
START_TEST(test_pair_rows_mean) {
  char err[200];
  if (!sc_rt_has_avx2() || sc_rt_cpu_has("avx512f", 7) != 1) return;
  ck_assert_int_eq(sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err), SHAPEC_OK);
  static const int acts[] = {SC_ACT_NONE, SC_ACT_RELU, SC_ACT_RELU6};
  int checked = 0;
  for (int ci = 0; ci < N_CASES; ci++)
    for (int ai = 0; ai < 3; ai++) {
      const geometry *g = &cases[ci];
      int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
      if (!sc_conv_pair_rows_fits(g->c, g->h, g->w, g->o, g->kh, g->kw, g->sh, g->sw, g->ph, g->pw, g->dh, g->dw,
                                  g->groups, oh, ow, acts[ai]))
        continue;
      int64_t nx = g->n * g->c * g->h * g->w, nw = g->o * (g->c / g->groups) * g->kh * g->kw, planes = g->n * g->o;
      float *x = malloc(sizeof(float) * (size_t)nx), *w = malloc(sizeof(float) * (size_t)nw), bias[64];
      float *y = malloc(sizeof(float) * (size_t)(planes + 16));
      double *want = malloc(sizeof(double) * (size_t)(planes * oh * ow));
      fill(x, nx, 3 + ci), fill(w, nw, 5 + ci), fill(bias, g->o, 7);
      if (ci % 2) x[nx / 2] = NAN;
      for (int64_t i = 0; i < planes + 16; i++) y[i] = -7.0f;
      sc_conv_pair_rows_mean_f32(x, w, bias, y, g->n, g->c, g->h, g->w, g->o, g->kh, g->kw, g->ph, g->pw, g->dh, g->dw,
                                 g->groups, oh, ow, acts[ai]);
      reference(g, x, w, bias, want, SC_ACT_NONE);
      for (int64_t p = 0; p < planes; p++) {
        double mean = 0;
        for (int64_t k = 0; k < oh * ow; k++) { /* ReLU and ReLU6 keep a NaN, as in torch */
          double v = want[p * oh * ow + k];
          mean += isnan(v) ? v : act_ref(v, acts[ai]);
        }
        mean /= (double)(oh * ow);
        if (isnan(mean)) {
          ck_assert_msg(isnan(y[p]), "case %d act %d plane %lld: %g, want NaN", ci, acts[ai], (long long)p, y[p]);
          continue;
        }
        ck_assert_msg(fabs(y[p] - mean) <= 2e-6 * (1 + fabs(mean)), "case %d act %d plane %lld: %.9g, want %.9g", ci,
                      acts[ai], (long long)p, y[p], mean);
      }
      for (int64_t i = planes; i < planes + 16; i++) ck_assert_msg(y[i] == -7.0f, "case %d: wrote past its planes", ci);
      free(x), free(w), free(y), free(want);
      checked++;
    }
  ck_assert_int_ge(checked, 30);
}
END_TEST

/* Geometries for the gather kernel of AVX-512 libraries (conv_gather.c): output planes of
 * at most 16 pixels from input planes of at most 64 floats. */
static const geometry gather_cases[] = {
    {2, 1, 8, 8, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1},   /* bench/small_models.py's tiny_cnn: 64 floats in, [4, 4] out */
    {2, 2, 1, 16, 4, 1, 3, 1, 1, 0, 1, 1, 1, 1},  /* its conv1d: Conv1d(2, 4, 3, padding=1) over 16, one register in */
    {1, 3, 4, 8, 10, 3, 3, 1, 2, 1, 1, 1, 1, 1},  /* 32 floats in (two registers), 10 channels: 8 then 2 */
    {2, 2, 7, 7, 3, 3, 3, 2, 2, 0, 0, 1, 1, 1},   /* 49 floats (four registers), no padding: [3, 3] */
    {1, 4, 5, 9, 4, 2, 3, 2, 3, 2, 1, 2, 2, 2},   /* strides (2, 3), padding (2, 1), dilation 2, two groups */
    {3, 6, 4, 4, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6},   /* depthwise over [4, 4] planes */
    {1, 1, 2, 2, 2, 5, 5, 1, 1, 2, 2, 1, 1, 1},   /* 25 taps, most of them in the padding */
    {2, 9, 4, 4, 17, 1, 1, 2, 2, 0, 0, 1, 1, 1},  /* 1x1 with stride 2, 17 channels: 8, 8, then 1 */
    {2, 2, 3, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1},   /* [3, 5] out: 15 of the 16 lanes */
};
enum { N_GATHER = sizeof gather_cases / sizeof *gather_cases };

static bool gather_fits(const geometry *g, int act) {
  int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
  return sc_conv_gather_fits(g->c, g->h, g->w, g->o, g->kh, g->kw, g->sh, g->sw, g->ph, g->pw, g->dh, g->dw, g->groups,
                             oh, ow, act);
}

/* The gather kernel takes exactly those (of the cases above, the ones its bounds admit),
 * gives the direct kernel's bits where that takes them too (the same sums in the same
 * order), each activation, with and without bias, matches the reference with NaN around
 * its input (a read past a plane would show), writes nothing outside the output, and one
 * thread gives two's bits, an image alone its bits in a batch. */
START_TEST(test_gather) {
  char err[200];
  if (!sc_rt_has_avx2() || sc_rt_cpu_has("avx512f", 7) != 1) return; /* nothing to take here */
  ck_assert_int_eq(sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err), SHAPEC_OK);
  static const int acts[] = {SC_ACT_NONE, SC_ACT_RELU, SC_ACT_RELU6};
  int same_as_direct = 0;
  for (int ci = 0; ci < N_GATHER; ci++) {
    const geometry *g = &gather_cases[ci];
    int64_t oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh), ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw);
    int64_t nx = g->n * g->c * g->h * g->w, nw = g->o * (g->c / g->groups) * g->kh * g->kw, ny = g->n * g->o * oh * ow;
    float *x = malloc(sizeof(float) * (size_t)nx), *w = malloc(sizeof(float) * (size_t)nw), *bias = malloc(sizeof(float) * (size_t)g->o);
    float *y = malloc(sizeof(float) * (size_t)ny), *direct = malloc(sizeof(float) * (size_t)ny);
    double *want = malloc(sizeof(double) * (size_t)ny);
    fill(x, nx, ci + 7), fill(w, nw, ci + 107), fill(bias, g->o, ci + 207);
    for (size_t a = 0; a < sizeof acts / sizeof *acts; a++)
      for (int with_bias = 0; with_bias <= 1; with_bias++) {
        ck_assert_msg(gather_fits(g, acts[a]), "gather case %d: not taken", ci);
        run_against_reference("gather case", ci, g, x, w, with_bias ? bias : NULL, y, want, acts[a]);
        if (!fits(g, acts[a])) continue;
        sc_conv_direct_f32(x, w, with_bias ? bias : NULL, direct, g->n, g->c, g->h, g->w, g->o, g->kh, g->kw, g->sh, g->sw,
                           g->ph, g->pw, g->dh, g->dw, g->groups, oh, ow, acts[a]);
        ck_assert_msg(memcmp(y, direct, sizeof(float) * (size_t)ny) == 0, "gather case %d act %d bias %d: not the direct "
                      "kernel's bits", ci, acts[a], with_bias);
        same_as_direct++;
      }
    free(x), free(w), free(bias), free(y), free(direct), free(want);
  }
  ck_assert_int_ge(same_as_direct, 30);
  check_batch_and_threads_of(gather_cases, N_GATHER);
  /* what it leaves to the others */
  geometry more_pixels = {1, 1, 5, 5, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1}; /* [5, 5]: 25 outputs */
  geometry big_plane = {1, 1, 5, 13, 2, 3, 3, 2, 4, 0, 0, 1, 1, 1};  /* 65 floats in, [2, 3] out */
  geometry pointwise = {2, 3, 4, 4, 2, 1, 1, 1, 1, 0, 0, 1, 1, 1};
  geometry many_taps = {1, 1, 8, 8, 1, 6, 6, 2, 2, 1, 1, 1, 1, 1};  /* 36 taps */
  ck_assert(!gather_fits(&more_pixels, SC_ACT_NONE) && !gather_fits(&big_plane, SC_ACT_NONE));
  ck_assert(!gather_fits(&pointwise, SC_ACT_NONE) && !gather_fits(&many_taps, SC_ACT_NONE));
  ck_assert(!gather_fits(&gather_cases[0], SC_ACT_GELU));
  ck_assert(!sc_conv_gather_fits(1, 8, 8, (int64_t)1 << 62, 3, 3, 2, 2, 1, 1, 1, 1, 1, 4, 4, SC_ACT_NONE));
  ck_assert(!sc_conv_gather_fits((int64_t)1 << 40, 8, 8, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 4, 4, SC_ACT_NONE));
}
END_TEST

/* what the direct kernel leaves to im2col and the GEMM */
START_TEST(test_guard) {
  geometry wide_kernel = {1, 1, 5, 20, 2, 1, 17, 1, 1, 0, 0, 1, 1, 1};
  ck_assert(!fits(&wide_kernel, SC_ACT_NONE)); /* 17 kernel columns */
  ck_assert(!fits(&cases[0], SC_ACT_GELU));
  geometry pointwise = {2, 3, 4, 4, 2, 1, 1, 1, 1, 0, 0, 1, 1, 1};
  ck_assert(!fits(&pointwise, SC_ACT_NONE)); /* its input is the GEMM's matrix as it stands */
  geometry large = {1, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  ck_assert(!fits(&large, SC_ACT_NONE)); /* resnet's layers */
  /* sizes whose padded plane's product would overflow int64 if the guard multiplied first */
  ck_assert(!sc_conv_direct_fits(1, 1, 1, 1, 3, 3, 1, 1, (int64_t)1 << 40, (int64_t)1 << 40, 1, 1, 1, 1, SC_ACT_NONE));
  ck_assert(!sc_conv_direct_fits(1, 1, 1, 1, 3, 3, 1, 1, 0, 0, (int64_t)1 << 62, 1, 1, 1, SC_ACT_NONE));
  geometry wide_plane = {1, 1, 100, 100, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1};
  ck_assert(!fits(&wide_plane, SC_ACT_NONE)); /* 10,000 floats: more than the stack buffers */
  /* and the wide kernel still computes right through im2col */
  int64_t ny = 2 * 5 * 4, nx = 100, nw = 2 * 17;
  float x[100], w[34], y[40];
  double want[40];
  fill(x, nx, 1), fill(w, nw, 2);
  run(&wide_kernel, x, w, NULL, y, SC_ACT_NONE);
  reference(&wide_kernel, x, w, NULL, want, SC_ACT_NONE);
  for (int64_t i = 0; i < ny; i++) ck_assert_msg(fabs(y[i] - want[i]) <= 1e-5 * (1 + fabs(want[i])), "[%lld]", (long long)i);
}
END_TEST

int main(void) {
  Suite *s = suite_create("conv_direct");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_batch_and_threads);
  tcase_add_test(tc, test_guard);
  tcase_add_test(tc, test_pair_rows);
  tcase_add_test(tc, test_pair_rows_mean);
  tcase_add_test(tc, test_gather);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
