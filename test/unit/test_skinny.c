/* Products of at most four rows (backends/cpu/runtime/skinny.c) against a double-precision
 * reference: every row count, both layouts of B, column and depth counts that leave tails,
 * padded leading dimensions, alpha and beta (beta 0 must not read C, which holds NaN). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "run_suite.h"

static float value(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return (float)((*state >> 8) % 2001) / 1000.0f - 1.0f;
}

START_TEST(test_matches_reference) {
  if (!sc_rt_has_avx2()) return; /* the kernel declines below AVX2: checked below */
  static const int64_t ns[] = {1, 3, 4, 5, 15, 16, 17, 37, 300, 529}, ks[] = {8, 9, 15, 16, 33, 100};
  static const float alphas[] = {1.0f, 0.5f}, betas[] = {0.0f, 1.0f, 0.25f};
  unsigned state = 1;
  int cases = 0;
  for (int64_t m = 1; m <= 4; m++)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
      for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
        for (int trans_b = 0; trans_b <= 1; trans_b++)
          for (int ab = 0; ab < 6; ab++) {
            int64_t n = ns[ni], k = ks[ki], lda = k + 3, ldb = (trans_b ? k : n) + 5, ldc = n + 2;
            float alpha = alphas[ab % 2], beta = betas[ab / 2];
            float *a = malloc(sizeof(float) * (size_t)(m * lda));
            float *b = malloc(sizeof(float) * (size_t)((trans_b ? n : k) * ldb));
            float *c = malloc(sizeof(float) * (size_t)(m * ldc)), *c0 = malloc(sizeof(float) * (size_t)(m * ldc));
            for (int64_t i = 0; i < m * lda; i++) a[i] = value(&state);
            for (int64_t i = 0; i < (trans_b ? n : k) * ldb; i++) b[i] = value(&state);
            for (int64_t i = 0; i < m * ldc; i++) c[i] = c0[i] = beta == 0.0f ? NAN : value(&state);
            ck_assert(sc_rt_skinny_product(m, n, k, a, lda, 0, b, ldb, trans_b, c, ldc, alpha, beta));
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < ldc; j++) {
                if (j >= n) { /* the padding is not written */
                  ck_assert(c[i * ldc + j] == c0[i * ldc + j] || (isnan(c[i * ldc + j]) && isnan(c0[i * ldc + j])));
                  continue;
                }
                double want = 0.0, scale = 0.0;
                for (int64_t p = 0; p < k; p++) {
                  double t = (double)a[i * lda + p] * (trans_b ? b[j * ldb + p] : b[p * ldb + j]);
                  want += t;
                  scale += fabs(t);
                }
                want = alpha * want + (beta == 0.0f ? 0.0 : beta * (double)c0[i * ldc + j]);
                double err = fabs(c[i * ldc + j] - want);
                ck_assert_msg(err <= 1e-5 * (scale + fabs(want) + 1.0), "m %lld n %lld k %lld trans_b %d alpha %g beta %g: "
                              "C[%lld][%lld] = %g, want %g", (long long)m, (long long)n, (long long)k, trans_b, alpha, beta,
                              (long long)i, (long long)j, c[i * ldc + j], want);
              }
            free(a), free(b), free(c), free(c0);
            cases++;
          }
  ck_assert_int_eq(cases, 4 * 10 * 6 * 2 * 6);
}
END_TEST

/* Weights of 64 KB or more are walked from the end on every other call: two calls in a row
 * take both directions and give the same bits, row and column tails included, in both
 * layouts of B. */
START_TEST(test_both_directions_same_bits) {
  if (!sc_rt_has_avx2()) return;
  static const int64_t ns[] = {1030, 1037, 1040};
  unsigned state = 7;
  for (int64_t m = 1; m <= 4; m++)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
      for (int trans_b = 0; trans_b <= 1; trans_b++) {
        int64_t n = ns[ni], k = 41, ldb = trans_b ? k : n;
        float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(n * k));
        float *c[2] = {malloc(sizeof(float) * (size_t)(m * n)), malloc(sizeof(float) * (size_t)(m * n))};
        for (int64_t i = 0; i < m * k; i++) a[i] = value(&state);
        for (int64_t i = 0; i < n * k; i++) b[i] = value(&state);
        for (int call = 0; call < 2; call++) {
          for (int64_t i = 0; i < m * n; i++) c[call][i] = 0.5f;
          ck_assert(sc_rt_skinny_product(m, n, k, a, k, 0, b, ldb, trans_b, c[call], n, 1.0f, 0.5f));
        }
        for (int64_t i = 0; i < m * n; i++)
          ck_assert_msg(memcmp(&c[0][i], &c[1][i], sizeof(float)) == 0, "m %lld n %lld trans_b %d: element %lld",
                        (long long)m, (long long)n, trans_b, (long long)i);
        free(a), free(b), free(c[0]), free(c[1]);
      }
}
END_TEST

/* What it is not for, it leaves to BLAS: five rows, a transposed A, a depth under 8. */
START_TEST(test_declines) {
  float a[64] = {0}, b[64] = {0}, c[64] = {0};
  ck_assert(!sc_rt_skinny_product(5, 2, 8, a, 8, 0, b, 8, 1, c, 2, 1.0f, 0.0f));
  ck_assert(!sc_rt_skinny_product(1, 2, 8, a, 1, 1, b, 8, 1, c, 2, 1.0f, 0.0f));
  ck_assert(!sc_rt_skinny_product(1, 2, 7, a, 7, 0, b, 7, 1, c, 2, 1.0f, 0.0f));
  ck_assert(sc_rt_skinny_product(1, 2, 8, a, 8, 0, b, 8, 1, c, 2, 1.0f, 0.0f) == (sc_rt_has_avx2() != 0));
}
END_TEST

int main(void) {
  Suite *s = suite_create("skinny");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_both_directions_same_bits);
  tcase_add_test(tc, test_declines);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
