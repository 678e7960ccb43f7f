/* Products of at most 2,048 multiply-adds (the tiny path of sc_k_bmm_f32,
 * backends/cpu/runtime/gemm.c) against a double-precision reference: A and B each upright
 * or transposed, column counts that leave a masked vector (1-7 past a multiple of 8) and
 * several 32-column steps, odd row counts (a row without its pair), a batch, alpha and
 * beta (beta 0 must not read C, which holds NaN).  Around the limit, the products on
 * either side of it (OpenBLAS past it) agree with the same reference.  And a linear
 * layer's tiny product, whose bias starts the sums and whose epilogue (ReLU or ReLU6, then a
 * residual add) runs in registers before the store (sc_k_tiny_linear_f32).  Past a million
 * multiply-adds a product runs in parts, cut by its sizes alone: the same bits on one, two
 * and three threads. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/runtime_abi.h"
#include "run_suite.h"
#include "shapec/runtime.h"

static float value(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return (float)((*state >> 8) % 2001) / 1000.0f - 1.0f;
}

/* C = alpha op(A) op(B) + beta C for `batch` products, checked element by element. */
static void check_product(int64_t batch, int64_t m, int64_t n, int64_t k, int trans_a, int trans_b, float alpha,
                          float beta, unsigned *state) {
  int64_t sa = m * k, sb = k * n, sc = m * n;
  float *a = malloc(sizeof(float) * (size_t)(batch * sa)), *b = malloc(sizeof(float) * (size_t)(batch * sb));
  float *c = malloc(sizeof(float) * (size_t)(batch * sc)), *c0 = malloc(sizeof(float) * (size_t)(batch * sc));
  for (int64_t x = 0; x < batch * sa; x++) a[x] = value(state);
  for (int64_t x = 0; x < batch * sb; x++) b[x] = value(state);
  for (int64_t x = 0; x < batch * sc; x++) c[x] = c0[x] = beta == 0.0f ? NAN : value(state);
  ck_assert_int_eq(sc_k_bmm_f32(batch, m, n, k, a, sa, trans_a, b, sb, trans_b, c, alpha, beta), SHAPEC_OK);
  for (int64_t t = 0; t < batch; t++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double want = 0;
        for (int64_t p = 0; p < k; p++) {
          double x = trans_a ? a[t * sa + p * m + i] : a[t * sa + i * k + p];
          double y = trans_b ? b[t * sb + j * k + p] : b[t * sb + p * n + j];
          want += x * y;
        }
        want *= alpha;
        if (beta != 0.0f) want += (double)beta * c0[t * sc + i * n + j];
        float got = c[t * sc + i * n + j];
        ck_assert_msg(fabs(got - want) <= 1e-5 * (1.0 + (double)k), "[%lld] %lldx%lldx%lld A^T %d B^T %d alpha %g beta %g: "
                      "C[%lld][%lld] = %.9g, want %.9g", (long long)t, (long long)m, (long long)n, (long long)k, trans_a,
                      trans_b, alpha, beta, (long long)i, (long long)j, got, want);
      }
  free(a), free(b), free(c), free(c0);
}

START_TEST(test_matches_reference) {
  /* rows: blocks of 2, 3, 4 or 8 by the column count, and part-filled last blocks; k
   * steps: split 1, 2 or 4 ways, with 0 to 3 steps left over */
  static const int64_t ms[] = {1, 2, 3, 4, 5, 7, 8}, ns[] = {1, 3, 8, 9, 24, 31, 33, 70}, ks[] = {1, 2, 3, 5, 8, 9};
  static const float alphas[] = {1.0f, 0.5f}, betas[] = {0.0f, 1.0f, 0.25f};
  unsigned state = 7;
  for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
      for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
        for (int trans = 0; trans < 4; trans++)
          for (int ab = 0; ab < 6; ab++)
            check_product(2, ms[mi], ns[ni], ks[ki], trans & 1, trans >> 1, alphas[ab % 2], betas[ab / 2], &state);
}
END_TEST

/* 8 x 16 x 16 (2,048: the tiny path) and 8 x 16 x 17 (OpenBLAS), and the tiny
 * attention's in-projection, 8 x 24 x 8, as a linear layer computes it. */
START_TEST(test_at_the_limit) {
  unsigned state = 11;
  for (int trans = 0; trans < 4; trans++) {
    check_product(1, 8, 16, 16, trans & 1, trans >> 1, 1.0f, 0.0f, &state);
    check_product(1, 8, 16, 17, trans & 1, trans >> 1, 1.0f, 1.0f, &state);
  }
  check_product(1, 8, 24, 8, 0, 1, 1.0f, 1.0f, &state);
}
END_TEST

static const int32_t acts[] = {SC_ACT_NONE, SC_ACT_RELU, SC_ACT_RELU6};

static double activated_ref(double v, int32_t act) {
  if (act != SC_ACT_NONE && v < 0) v = 0;
  if (act == SC_ACT_RELU6 && v > 6) v = 6;
  return v;
}

/* y = act(x w + bias) + residual, w upright, with and without the bias and the residual;
 * the rows past y are not written. */
static void check_linear(int64_t m, int64_t n, int64_t k, int with_bias, int with_residual, int32_t act,
                         unsigned *state) {
  float *x = malloc(sizeof(float) * (size_t)(m * k)), *w = malloc(sizeof(float) * (size_t)(k * n));
  float *bias = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)((m + 1) * n));
  float *residual = malloc(sizeof(float) * (size_t)(m * n)); /* its exact size: no read past it */
  for (int64_t e = 0; e < m * k; e++) x[e] = 2.0f * value(state);
  for (int64_t e = 0; e < k * n; e++) w[e] = value(state);
  for (int64_t j = 0; j < n; j++) bias[j] = value(state);
  for (int64_t e = 0; e < m * n; e++) residual[e] = 4.0f * value(state);
  for (int64_t e = 0; e < (m + 1) * n; e++) y[e] = NAN;
  if (!sc_k_tiny_linear_f32(x, w, with_bias ? bias : NULL, with_residual ? residual : NULL, act, y, m, n, k)) {
    ck_assert_msg(!sc_rt_has_avx2() || !sc_k_tiny_product(m, n, k), "%lldx%lldx%lld: not taken", (long long)m,
                  (long long)n, (long long)k);
    free(x), free(w), free(bias), free(y), free(residual);
    return;
  }
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double want = with_bias ? bias[j] : 0.0;
      for (int64_t p = 0; p < k; p++) want += (double)x[i * k + p] * w[p * n + j];
      want = activated_ref(want, act) + (with_residual ? residual[i * n + j] : 0.0);
      ck_assert_msg(fabs(y[i * n + j] - want) <= 1e-5 * (1.0 + (double)k), "linear %lldx%lldx%lld bias %d residual %d "
                    "act %d: y[%lld][%lld] = %.9g, want %.9g", (long long)m, (long long)n, (long long)k, with_bias,
                    with_residual, (int)act, (long long)i, (long long)j, y[i * n + j], want);
    }
  for (int64_t j = 0; j < n; j++) ck_assert_msg(isnan(y[m * n + j]), "linear %lldx%lldx%lld wrote past y", (long long)m,
                                                (long long)n, (long long)k);
  free(x), free(w), free(bias), free(y), free(residual);
}

START_TEST(test_linear_with_bias) {
  static const int64_t ms[] = {1, 2, 3, 5, 8, 9}, ns[] = {3, 8, 13, 24, 40}, ks[] = {1, 4, 7, 16};
  unsigned state = 5;
  for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
      for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
        for (int b = 0; b < 2; b++) check_linear(ms[mi], ns[ni], ks[ki], b, 0, SC_ACT_NONE, &state);
  ck_assert(!sc_k_tiny_linear_f32(NULL, NULL, NULL, NULL, SC_ACT_NONE, NULL, 8, 16, 17)); /* 2,176: not tiny */
}
END_TEST

/* The epilogue: each activation kept in registers, with and without a residual, at
 * column counts with a partial last vector; GELU is left to its own pass (false). */
START_TEST(test_linear_epilogue) {
  static const int64_t ms[] = {1, 3, 8, 9}, ns[] = {5, 8, 13, 24, 40}, ks[] = {3, 16};
  unsigned state = 9;
  for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
      for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
        for (int a = 0; a < 3; a++)
          for (int r = 0; r < 2; r++) check_linear(ms[mi], ns[ni], ks[ki], 1, r, acts[a], &state);
  float x[4] = {1, 2, 3, 4}, w[4] = {1, 0, 0, 1}, y[4];
  ck_assert(!sc_k_tiny_linear_f32(x, w, NULL, NULL, SC_ACT_GELU, y, 2, 2, 2));
}
END_TEST

/* products split by columns (a convolution's [48, 432] x [432, 108], whose halves OpenBLAS
 * adds up in another order than the whole on a Xeon), by rows, and in eight parts */
START_TEST(test_parts_same_bits_on_any_thread_count) {
  static const int64_t sizes[][3] = {{48, 108, 432}, {200, 48, 300}, {64, 1000, 300}, {33, 70, 1000}};
  unsigned state = 11;
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
    float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n));
    float *c[3];
    for (int64_t x = 0; x < m * k; x++) a[x] = value(&state);
    for (int64_t x = 0; x < k * n; x++) b[x] = value(&state);
    for (int t = 0; t < 3; t++) {
      c[t] = malloc(sizeof(float) * (size_t)(m * n));
      shapec_model_set_num_threads(t + 1);
      ck_assert_int_eq(sc_k_bmm_f32(1, m, n, k, a, 0, 0, b, 0, 0, c[t], 1.0f, 0.0f), SHAPEC_OK);
    }
    for (int t = 1; t < 3; t++)
      ck_assert_msg(memcmp(c[0], c[t], sizeof(float) * (size_t)(m * n)) == 0, "%lldx%lldx%lld: %d threads differ from one",
                    (long long)m, (long long)n, (long long)k, t + 1);
    for (int64_t i = 0; i < m; i += 7) /* and right */
      for (int64_t j = 0; j < n; j += 5) {
        double want = 0;
        for (int64_t p = 0; p < k; p++) want += (double)a[i * k + p] * b[p * n + j];
        ck_assert_msg(fabs(c[0][i * n + j] - want) <= 1e-5 * (1.0 + (double)k), "C[%lld][%lld]", (long long)i, (long long)j);
      }
    free(a), free(b), free(c[0]), free(c[1]), free(c[2]);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("tiny_gemm");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_at_the_limit);
  tcase_add_test(tc, test_linear_with_bias);
  tcase_add_test(tc, test_linear_epilogue);
  tcase_add_test(tc, test_parts_same_bits_on_any_thread_count);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
