/* The softmax over rows (sc_k_softmax_f32, backends/cpu/runtime/nn.c) against a double
 * reference: rows whose spread reaches past float32's exp range (those terms are 0), row
 * lengths that leave a tail after the 8-lane body, in place and out of place, and ATen's
 * answers at the edges: a row with NaN is all NaN, a row with +inf is all NaN, -inf
 * entries (a mask) get 0. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "backends/cpu/runtime/kernels.h"
#include "run_suite.h"

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

int main(void) {
  Suite *s = suite_create("softmax");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_edges);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
