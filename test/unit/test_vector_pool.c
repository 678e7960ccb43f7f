/* Max pooling over pixels that are vectors of channels (sc_k_max_pool2d_blocked_f32, the
 * kernel for oneDNN's nChw8c / nChw16c and NHWC tensors between convolutions) against the
 * NCHW kernel on the same values: kernels, strides, paddings, dilations and ceil-mode
 * extents, lane counts on the AVX2 path (8, 16, 24) and off it (20, 3), NaN propagated as
 * ATen does (a NaN in a window is its maximum) and -inf kept.  And the NCHW kernel's own
 * 2x2 pool with stride 2 (the vector paths for rows of 4 and wider rows) against each
 * window's maximum taken here. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "backends/cpu/runtime/kernels.h"
#include "run_suite.h"

static float value(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  unsigned r = (*state >> 8) % 1000;
  if (r == 0) return NAN;
  if (r == 1) return -INFINITY;
  return (float)r / 100.0f - 5.0f;
}

/* torch's output extent (ceil_mode rounds up, but a window must start inside the input or its left padding) */
static int64_t extent(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int ceil_mode) {
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) out--;
  return out;
}

static bool same(float a, float b) { return a == b || (isnan(a) && isnan(b)); }

START_TEST(test_matches_planes) {
  static const int64_t lane_counts[] = {8, 16, 24, 20, 3};
  static const int64_t shapes[][7] = { /* kh kw sh sw ph pw dil */
      {3, 3, 2, 2, 1, 1, 1}, {2, 2, 2, 2, 0, 0, 1}, {3, 2, 1, 2, 1, 0, 1}, {3, 3, 1, 1, 1, 1, 2}, {1, 1, 1, 1, 0, 0, 1}};
  unsigned state = 7;
  int cases = 0;
  for (size_t li = 0; li < sizeof lane_counts / sizeof *lane_counts; li++)
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
      for (int ceil_mode = 0; ceil_mode <= 1; ceil_mode++) {
        const int64_t *k = shapes[si], lanes = lane_counts[li], planes = 3, h = 9, w = 7;
        int64_t oh = extent(h, k[0], k[2], k[4], k[6], ceil_mode), ow = extent(w, k[1], k[3], k[5], k[6], ceil_mode);
        size_t in_n = (size_t)(planes * lanes * h * w), out_n = (size_t)(planes * lanes * oh * ow);
        float *nchw = malloc(in_n * sizeof(float)), *vec = malloc(in_n * sizeof(float));
        float *want = malloc(out_n * sizeof(float)), *got = malloc(out_n * sizeof(float));
        for (size_t i = 0; i < in_n; i++) nchw[i] = value(&state);
        /* plane p, channel l, pixel (y, x): NCHW [p][l][y][x], vectors [p][y][x][l] */
        for (int64_t p = 0; p < planes; p++)
          for (int64_t l = 0; l < lanes; l++)
            for (int64_t e = 0; e < h * w; e++) vec[(p * h * w + e) * lanes + l] = nchw[(p * lanes + l) * h * w + e];
        sc_k_max_pool2d_f32(nchw, want, NULL, planes * lanes, h, w, k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[6], oh, ow);
        sc_k_max_pool2d_blocked_f32(vec, got, planes, lanes, h, w, k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[6], oh, ow);
        for (int64_t p = 0; p < planes; p++)
          for (int64_t l = 0; l < lanes; l++)
            for (int64_t e = 0; e < oh * ow; e++)
              ck_assert_msg(same(got[(p * oh * ow + e) * lanes + l], want[(p * lanes + l) * oh * ow + e]),
                            "lanes %lld, shape %zu, ceil %d: plane %lld lane %lld pixel %lld: %g, want %g",
                            (long long)lanes, si, ceil_mode, (long long)p, (long long)l, (long long)e,
                            got[(p * oh * ow + e) * lanes + l], want[(p * lanes + l) * oh * ow + e]);
        free(nchw), free(vec), free(want), free(got);
        cases++;
      }
  ck_assert_int_eq(cases, 5 * 5 * 2);
}
END_TEST

/* A NaN anywhere in a window is the window's maximum, wherever it comes in the scan. */
START_TEST(test_nan_wins) {
  float x[2 * 2 * 8], y[8];
  for (int pos = 0; pos < 4; pos++) {
    for (int i = 0; i < 32; i++) x[i] = (float)i;
    for (int l = 0; l < 8; l++) x[pos * 8 + l] = l % 2 ? NAN : x[pos * 8 + l];
    sc_k_max_pool2d_blocked_f32(x, y, 1, 8, 2, 2, 2, 2, 2, 2, 0, 0, 1, 1, 1, 1);
    for (int l = 0; l < 8; l++) ck_assert(l % 2 ? isnan(y[l]) : y[l] == (float)(24 + l));
  }
}
END_TEST

/* 2x2, stride 2, no padding on NCHW planes: plane counts that leave 0-3 row pairs after
 * the steps of four, rows of 4 (whole pairs of rows, or a last row left over), and other
 * widths, with NaN and -inf among the values. */
START_TEST(test_plain_2x2) {
  static const int64_t sizes[][2] = {{4, 4}, {2, 4}, {6, 4}, {5, 4}, {4, 5}, {4, 8}, {3, 3}, {8, 18}};
  unsigned state = 3;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (int64_t planes = 1; planes <= 9; planes++) {
      int64_t h = sizes[si][0], w = sizes[si][1], oh = h / 2, ow = w / 2;
      float *x = malloc(sizeof(float) * (size_t)(planes * h * w)), *y = malloc(sizeof(float) * (size_t)(planes * oh * ow + 1));
      for (int64_t e = 0; e < planes * h * w; e++) x[e] = value(&state);
      y[planes * oh * ow] = 42.0f;
      sc_k_max_pool2d_f32(x, y, NULL, planes, h, w, 2, 2, 2, 2, 0, 0, 1, 1, oh, ow);
      for (int64_t p = 0; p < planes; p++)
        for (int64_t oy = 0; oy < oh; oy++)
          for (int64_t ox = 0; ox < ow; ox++) {
            const float *at = x + (p * h + 2 * oy) * w + 2 * ox;
            float want = -INFINITY, taps[4] = {at[0], at[1], at[w], at[w + 1]};
            for (int t = 0; t < 4; t++) want = isnan(want) || isnan(taps[t]) ? NAN : taps[t] > want ? taps[t] : want;
            float got = y[(p * oh + oy) * ow + ox];
            ck_assert_msg(same(got, want), "[%lld, %lld, %lld] plane %lld (%lld, %lld): %g, want %g", (long long)planes,
                          (long long)h, (long long)w, (long long)p, (long long)oy, (long long)ox, got, want);
          }
      ck_assert_msg(y[planes * oh * ow] == 42.0f, "[%lld, %lld, %lld]: wrote past the output", (long long)planes,
                    (long long)h, (long long)w);
      free(x), free(y);
    }
}
END_TEST

int main(void) {
  Suite *s = suite_create("vector_pool");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_planes);
  tcase_add_test(tc, test_nan_wins);
  tcase_add_test(tc, test_plain_2x2);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
