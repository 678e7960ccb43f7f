/* Layer norm over rows (sc_k_layer_norm_f32, backends/cpu/runtime/nn.c) against a double
 * reference, with and without weight and bias, at row lengths that leave tails after the
 * 16- and 8-lane bodies and one that crosses the sums' 1024-element fold; rows of 8 and 16
 * taken eight at once against each row alone, bit for bit; and the 16-lane rows of a
 * library built for AVX-512 against the 8-lane ones, bit for bit. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/runtime_abi.h"
#include "run_suite.h"

static const int64_t lengths[] = {1, 4, 7, 8, 9, 15, 16, 17, 23, 24, 256, 1000, 1031, 2063};
enum { N_LENGTHS = sizeof lengths / sizeof *lengths, ROWS = 5 };

/* x[r, i]: a row's own offset and spread, so that the mean is far from 0 in some rows */
static void fill(float *x, int64_t n) {
  for (int64_t r = 0; r < ROWS; r++)
    for (int64_t i = 0; i < n; i++)
      x[r * n + i] = (float)(r * 3 - 5) + (float)(r + 1) * (float)(((i * 7919 + r * 31) % 1009) / 1009.0 - 0.5);
}

static void fill_affine(float *weight, float *bias, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    weight[i] = 0.5f + (float)(i % 17) / 16.0f;
    bias[i] = (float)(i % 5) * 0.25f - 0.5f;
  }
}

START_TEST(test_matches_reference) {
  for (int li = 0; li < N_LENGTHS; li++)
    for (int affine = 0; affine <= 1; affine++) {
      int64_t n = lengths[li];
      float *x = malloc(sizeof(float) * (size_t)(ROWS * n)), *y = malloc(sizeof(float) * (size_t)(ROWS * n));
      float *weight = malloc(sizeof(float) * (size_t)n), *bias = malloc(sizeof(float) * (size_t)n);
      float mean[ROWS], rstd[ROWS];
      fill(x, n);
      fill_affine(weight, bias, n);
      sc_k_layer_norm_f32(x, y, affine ? weight : NULL, affine ? bias : NULL, mean, rstd, ROWS, n, 1e-5);
      for (int64_t r = 0; r < ROWS; r++) {
        double m = 0, v = 0;
        for (int64_t i = 0; i < n; i++) m += x[r * n + i];
        m /= (double)n;
        for (int64_t i = 0; i < n; i++) v += (x[r * n + i] - m) * (x[r * n + i] - m);
        double rs = 1.0 / sqrt(v / (double)n + 1e-5);
        ck_assert_msg(fabs(mean[r] - m) <= 1e-6 * (fabs(m) + 1), "n %lld row %lld: mean %.9g, want %.9g", (long long)n,
                      (long long)r, mean[r], m);
        ck_assert_msg(fabs(rstd[r] - rs) <= 1e-5 * rs, "n %lld row %lld: rstd %.9g, want %.9g", (long long)n, (long long)r,
                      rstd[r], rs);
        for (int64_t i = 0; i < n; i++) {
          double want = (x[r * n + i] - m) * rs * (affine ? weight[i] : 1.0) + (affine ? bias[i] : 0.0);
          ck_assert_msg(fabs(y[r * n + i] - want) <= 2e-5 * (fabs(want) + 1), "n %lld [%lld][%lld] = %.9g, want %.9g",
                        (long long)n, (long long)r, (long long)i, y[r * n + i], want);
        }
      }
      free(x), free(y), free(weight), free(bias);
    }
}
END_TEST

/* Rows of 8 or 16 go eight at a time, one in each lane (layer_norm_eight_rows_avx2): each
 * row's output, mean and 1 / std must be the bits it gets alone.  19 rows: two groups of
 * eight and a tail, with rows of -0, of one value, with a NaN, an infinity, a large offset. */
START_TEST(test_eight_rows_give_each_rows_bits) {
  enum { MANY = 19 };
  static const int64_t short_lengths[] = {8, 16};
  for (int li = 0; li < 2; li++)
    for (int affine = 0; affine <= 1; affine++) {
      int64_t n = short_lengths[li];
      float x[MANY * 16], y[MANY * 16], alone[16], weight[16], bias[16], mean[MANY], rstd[MANY];
      for (int64_t r = 0; r < MANY; r++)
        for (int64_t i = 0; i < n; i++)
          x[r * n + i] = (float)(r % 5 * 3 - 5) + (float)(r + 1) * (float)(((i * 7919 + r * 31) % 1009) / 1009.0 - 0.5);
      for (int64_t i = 0; i < n; i++) {
        x[1 * n + i] = -0.0f;           /* a row of -0 */
        x[2 * n + i] = 3.25f;           /* one value: variance 0 */
        x[9 * n + i] += 1e6f;           /* far from 0 */
      }
      x[4 * n + 3] = NAN;
      x[10 * n + 5] = INFINITY;
      x[11 * n + 2] = -1e-40f; /* a denormal */
      fill_affine(weight, bias, n);
      sc_k_layer_norm_f32(x, y, affine ? weight : NULL, affine ? bias : NULL, mean, rstd, MANY, n, 1e-5);
      for (int64_t r = 0; r < MANY; r++) {
        float m1, r1;
        sc_k_layer_norm_f32(x + r * n, alone, affine ? weight : NULL, affine ? bias : NULL, &m1, &r1, 1, n, 1e-5);
        ck_assert_msg(memcmp(&m1, &mean[r], sizeof m1) == 0 && memcmp(&r1, &rstd[r], sizeof r1) == 0,
                      "n %lld row %lld: mean %.9g rstd %.9g with the others, %.9g %.9g alone", (long long)n, (long long)r,
                      mean[r], rstd[r], m1, r1);
        for (int64_t i = 0; i < n; i++)
          ck_assert_msg(memcmp(&alone[i], &y[r * n + i], sizeof(float)) == 0,
                        "n %lld [%lld][%lld]: %.9g with the others, %.9g alone", (long long)n, (long long)r, (long long)i,
                        y[r * n + i], alone[i]);
      }
    }
}
END_TEST

/* A library built for AVX-512 takes 16-lane sums and rows (sc_rt_has_avx512): the same
 * means, 1 / stds and outputs as the 8-lane ones, bit for bit.  Last in the suite: the
 * first library's verdict holds for the rest of the process. */
START_TEST(test_avx512_gives_the_avx2_bits) {
  char err[256];
  if (!sc_rt_has_avx2() || sc_rt_cpu_has("avx512f", 7) != 1) return; /* nothing to compare here */
  ck_assert(!sc_rt_has_avx512());
  enum { CASES = 2 * N_LENGTHS };
  float *y[2][CASES], mean[2][CASES][ROWS], rstd[2][CASES][ROWS];
  for (int wide = 0; wide < 2; wide++) {
    if (wide) { /* as a library built for AVX-512 does on its first call */
      ck_assert_int_eq(sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err), SHAPEC_OK);
      ck_assert(sc_rt_has_avx512());
    }
    for (int c = 0; c < CASES; c++) {
      int64_t n = lengths[c / 2];
      int affine = c % 2;
      float *x = malloc(sizeof(float) * (size_t)(ROWS * n));
      float *weight = malloc(sizeof(float) * (size_t)n), *bias = malloc(sizeof(float) * (size_t)n);
      fill(x, n);
      fill_affine(weight, bias, n);
      y[wide][c] = malloc(sizeof(float) * (size_t)(ROWS * n));
      sc_k_layer_norm_f32(x, y[wide][c], affine ? weight : NULL, affine ? bias : NULL, mean[wide][c], rstd[wide][c], ROWS,
                          n, 1e-5);
      free(x), free(weight), free(bias);
    }
  }
  for (int c = 0; c < CASES; c++) {
    int64_t n = lengths[c / 2];
    ck_assert_msg(memcmp(mean[0][c], mean[1][c], sizeof mean[0][c]) == 0 &&
                      memcmp(rstd[0][c], rstd[1][c], sizeof rstd[0][c]) == 0,
                  "n %lld: the 16-lane mean or rstd differs", (long long)n);
    for (int64_t e = 0; e < ROWS * n; e++)
      ck_assert_msg(memcmp(&y[0][c][e], &y[1][c][e], sizeof(float)) == 0, "n %lld [%lld]: 8 lanes %.9g, 16 lanes %.9g",
                    (long long)n, (long long)e, y[0][c][e], y[1][c][e]);
    free(y[0][c]), free(y[1][c]);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("layer_norm");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_eight_rows_give_each_rows_bits);
  tcase_add_test(tc, test_avx512_gives_the_avx2_bits);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
