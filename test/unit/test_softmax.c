/* The softmax over rows (sc_k_softmax_f32, backends/cpu/runtime/nn.c) against a double
 * reference: rows whose spread reaches past float32's exp range (those terms are 0), row
 * lengths that leave a tail after the 8-lane body, in place and out of place, and ATen's
 * answers at the edges: a row with NaN is all NaN, a row with +inf is all NaN, -inf
 * entries (a mask) get 0. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/runtime_abi.h"
#include "run_suite.h"

static double log_reference(double v) { return log(v); } /* `log` is a flag in the tests */

START_TEST(test_matches_reference) {
  static const int64_t lengths[] = {1, 7, 8, 9, 31, 128, 1000};
  static const float spreads[] = {1.0f, 30.0f, 200.0f};
  for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
    for (size_t si = 0; si < sizeof spreads / sizeof *spreads; si++)
      for (int in_place = 0; in_place <= 1; in_place++) {
        int64_t n = lengths[li], rows = 3;
        float *x = malloc(sizeof(float) * (size_t)(rows * n)), *y = malloc(sizeof(float) * (size_t)(rows * n));
        for (int64_t e = 0; e < rows * n; e++) x[e] = y[e] = spreads[si] * (float)(((e * 7919) % 1001) / 1000.0 - 0.5);
        sc_k_softmax_f32(in_place ? y : x, y, rows, n, 1, 0);
        for (int64_t r = 0; r < rows; r++) {
          double mx = -INFINITY, sum = 0;
          for (int64_t i = 0; i < n; i++) mx = fmax(mx, x[r * n + i]);
          /* x - max rounds in float32, in ATen too */
          for (int64_t i = 0; i < n; i++) sum += exp((double)(float)(x[r * n + i] - (float)mx));
          for (int64_t i = 0; i < n; i++) {
            double want = exp((double)(float)(x[r * n + i] - (float)mx)) / sum;
            ck_assert_msg(fabs(y[r * n + i] - want) <= 1e-6 * want + 1e-30, "n %lld spread %g: [%lld][%lld] = %.9g, want %.9g",
                          (long long)n, spreads[si], (long long)r, (long long)i, y[r * n + i], want);
          }
        }
        free(x), free(y);
      }
}
END_TEST

START_TEST(test_edges) {
  enum { N = 11 };
  float y[4 * N];
  for (int e = 0; e < 4 * N; e++) y[e] = (float)(e % N) * 0.25f;
  y[0 * N + 9] = NAN;       /* row 0: NaN */
  y[1 * N + 2] = INFINITY;  /* row 1: +inf */
  y[2 * N + 0] = -INFINITY; /* row 2: two masked entries, one in the tail */
  y[2 * N + 10] = -INFINITY;
  for (int e = 3 * N; e < 4 * N; e++) y[e] = -INFINITY; /* row 3: all masked */
  sc_k_softmax_f32(y, y, 4, N, 1, 0);
  for (int i = 0; i < N; i++) {
    ck_assert(isnan(y[0 * N + i]));
    ck_assert(isnan(y[1 * N + i]));
    ck_assert(isnan(y[3 * N + i]));
  }
  ck_assert(y[2 * N + 0] == 0.0f && y[2 * N + 10] == 0.0f);
  double sum = 0;
  for (int i = 0; i < N; i++) sum += y[2 * N + i];
  ck_assert(fabs(sum - 1.0) < 1e-6);
}
END_TEST

/* Softmax along a dim that is not the last ([outer, n, inner]): eight columns at a time in
 * AVX2 lanes, the rest one by one; against the double reference, softmax and log-softmax,
 * in place and not, with inner sizes that leave no, some and only leftover columns, and a
 * column with NaN, one with +inf and one all -inf (all NaN, as in ATen) */
START_TEST(test_columns_match_reference) {
  static const int64_t inners[] = {2, 8, 13, 64};
  static const int64_t lengths[] = {1, 5, 130};
  for (size_t ii = 0; ii < sizeof inners / sizeof *inners; ii++)
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
      for (int log = 0; log <= 1; log++)
        for (int in_place = 0; in_place <= 1; in_place++) {
          int64_t inner = inners[ii], n = lengths[li], outer = 3, total = outer * n * inner;
          float *x = malloc(sizeof(float) * (size_t)total), *y = malloc(sizeof(float) * (size_t)total);
          for (int64_t e = 0; e < total; e++) x[e] = y[e] = 20.0f * (float)(((e * 7919) % 1001) / 1000.0 - 0.5);
          /* slab 1: column 0 has a NaN, column 1 a +inf, the last column is all -inf */
          int64_t s1 = n * inner;
          x[s1 + (n / 2) * inner + 0] = y[s1 + (n / 2) * inner + 0] = NAN;
          x[s1 + (n - 1) * inner + 1] = y[s1 + (n - 1) * inner + 1] = INFINITY;
          for (int64_t i = 0; i < n; i++) x[s1 + i * inner + inner - 1] = y[s1 + i * inner + inner - 1] = -INFINITY;
          sc_k_softmax_f32(in_place ? y : x, y, outer, n, inner, log);
          for (int64_t o = 0; o < outer; o++)
            for (int64_t c = 0; c < inner; c++) {
              const float *xs = x + o * n * inner + c;
              bool special = o == 1 && (c == 0 || c == 1 || c == inner - 1);
              double mx = -INFINITY, sum = 0;
              for (int64_t i = 0; i < n; i++) mx = fmax(mx, xs[i * inner]);
              for (int64_t i = 0; i < n; i++) sum += exp((double)(float)(xs[i * inner] - (float)mx));
              for (int64_t i = 0; i < n; i++) {
                float got = y[o * n * inner + i * inner + c];
                double d = (double)(float)(xs[i * inner] - (float)mx);
                double want = log ? d - log_reference(sum) : exp(d) / sum;
                if (special) {
                  ck_assert_msg(isnan(got), "inner %lld n %lld log %d: special column %lld [%lld] = %g, want NaN",
                                (long long)inner, (long long)n, log, (long long)c, (long long)i, got);
                  continue;
                }
                ck_assert_msg(fabs(got - want) <= 1e-6 * fabs(want) + 1e-30 + (log ? 2e-6 : 0),
                              "inner %lld n %lld log %d in place %d: [%lld][%lld][%lld] = %.9g, want %.9g", (long long)inner,
                              (long long)n, log, in_place, (long long)o, (long long)i, (long long)c, got, want);
              }
            }
          free(x), free(y);
        }
}
END_TEST

/* Rows of at most 4 go two to a vector (softmax_row_pair_avx2), an odd last one alone:
 * every row gets the bits it gets as a softmax of its own, log or not, in place or not,
 * with masked (-inf), NaN and +inf rows among them. */
START_TEST(test_row_pairs_give_each_rows_bits) {
  for (int64_t n = 1; n <= 4; n++)
    for (int log = 0; log <= 1; log++)
      for (int in_place = 0; in_place <= 1; in_place++) {
        enum { ROWS = 7 };
        float x[ROWS * 4], y[ROWS * 4], alone[4];
        for (int64_t e = 0; e < ROWS * n; e++) x[e] = 40.0f * (float)(((e * 7919) % 1001) / 1000.0 - 0.5);
        x[1 * n] = -INFINITY;                     /* a masked entry (all of row 1 when n is 1) */
        if (n > 1) x[3 * n + 1] = NAN;             /* a row with NaN */
        x[5 * n] = INFINITY;                      /* a row with +inf */
        memcpy(y, x, sizeof x);
        sc_k_softmax_f32(in_place ? y : x, y, ROWS, n, 1, log);
        for (int64_t r = 0; r < ROWS; r++) {
          sc_k_softmax_f32(x + r * n, alone, 1, n, 1, log);
          ck_assert_msg(memcmp(y + r * n, alone, sizeof(float) * (size_t)n) == 0,
                        "n %lld log %d in place %d: row %lld differs from the row alone (%.9g against %.9g)", (long long)n,
                        log, in_place, (long long)r, y[r * n], alone[0]);
        }
      }
}
END_TEST

/* A library built for AVX-512 takes 16 lanes for the exponentials and the scaling
 * (sc_rt_has_avx512): the same bits as 8 lanes, softmax and log-softmax, at lengths that
 * leave 8-lane and scalar tails and that cross the sum's 1024-element fold, with masked
 * entries and values below exp's range.  Last in the suite: the first library's verdict
 * holds for the rest of the process. */
START_TEST(test_avx512_gives_the_avx2_bits) {
  char err[256];
  if (!sc_rt_has_avx2() || sc_rt_cpu_has("avx512f", 7) != 1) return; /* nothing to compare here */
  ck_assert(!sc_rt_has_avx512());
  static const int64_t lengths[] = {7, 8, 15, 16, 24, 128, 1000, 1031, 2063};
  enum { N_LENGTHS = sizeof lengths / sizeof *lengths, CASES = 2 * N_LENGTHS, ROWS = 3 };
  float *y[2][CASES];
  for (int wide = 0; wide < 2; wide++) {
    if (wide) { /* as a library built for AVX-512 does on its first call */
      ck_assert_int_eq(sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err), SHAPEC_OK);
      ck_assert(sc_rt_has_avx512());
    }
    for (int c = 0; c < CASES; c++) {
      int64_t n = lengths[c / 2];
      float *x = malloc(sizeof(float) * (size_t)(ROWS * n));
      /* row 0 spreads past exp's range; in the others every term counts in the sum */
      for (int64_t e = 0; e < ROWS * n; e++) x[e] = (e < n ? 150.0f : 2.0f) * (float)(((e * 7919) % 1001) / 1000.0 - 0.5);
      x[n / 2] = -INFINITY; /* a masked entry in row 0 */
      y[wide][c] = malloc(sizeof(float) * (size_t)(ROWS * n));
      sc_k_softmax_f32(x, y[wide][c], ROWS, n, 1, c % 2);
      free(x);
    }
  }
  for (int c = 0; c < CASES; c++) {
    for (int64_t e = 0; e < ROWS * lengths[c / 2]; e++)
      ck_assert_msg(memcmp(&y[0][c][e], &y[1][c][e], sizeof(float)) == 0, "n %lld log %d [%lld]: 8 lanes %.9g, 16 lanes %.9g",
                    (long long)lengths[c / 2], c % 2, (long long)e, y[0][c][e], y[1][c][e]);
    free(y[0][c]), free(y[1][c]);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("softmax");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_edges);
  tcase_add_test(tc, test_columns_match_reference);
  tcase_add_test(tc, test_row_pairs_give_each_rows_bits);
  tcase_add_test(tc, test_avx512_gives_the_avx2_bits);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
