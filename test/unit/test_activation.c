/* The activations a convolution or linear layer applies after its product
 * (sc_k_activation_f32, backends/cpu/runtime/nn.c) against double-precision references:
 * the exact GELU over its whole range, lengths that leave a tail after the 8-lane body and
 * one long enough to be split between threads, and the values torch gives at the edges
 * (gelu(-inf) and NaN are NaN, gelu(inf) is inf). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/runtime_abi.h"
#include "run_suite.h"

static double gelu_reference(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }

START_TEST(test_gelu_matches_reference) {
  static const int64_t lengths[] = {1, 7, 8, 9, 15, 16, 17, 37, 100003};
  for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
    int64_t n = lengths[li];
    float *y = malloc(sizeof(float) * (size_t)n), *x = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) x[i] = y[i] = n == 1 ? 0.75f : -12.0f + 24.0f * (float)i / (float)(n - 1);
    sc_k_activation_f32(y, n, SC_ACT_GELU);
    for (int64_t i = 0; i < n; i++) {
      double want = gelu_reference(x[i]);
      /* the erf fit's 3.8e-7 relative error, scaled by |x| / 2, plus float rounding */
      ck_assert_msg(fabs(y[i] - want) <= 4e-7 * fabs(x[i]) + 1e-7, "n %lld: gelu(%.9g) = %.9g, want %.9g", (long long)n,
                    x[i], y[i], want);
    }
    free(x), free(y);
  }
}
END_TEST

/* An element gets the same bits in the vector body and in the tail. */
START_TEST(test_gelu_tail_matches_body) {
  float body[16], tail[13];
  for (int i = 0; i < 16; i++) body[i] = -3.0f + 0.37f * (float)i;
  memcpy(tail, body + 3, sizeof tail); /* body[8..15] land in tail[5..12]: the last 5 are its tail */
  sc_k_activation_f32(body, 16, SC_ACT_GELU);
  sc_k_activation_f32(tail, 13, SC_ACT_GELU);
  for (int i = 0; i < 13; i++) ck_assert_msg(memcmp(&tail[i], &body[i + 3], sizeof(float)) == 0, "element %d", i + 3);
}
END_TEST

START_TEST(test_gelu_edges) {
  float y[11] = {-INFINITY, INFINITY, NAN, -10.0f, 10.0f, 0.0f, -INFINITY, INFINITY, NAN, -10.0f, 10.0f};
  sc_k_activation_f32(y, 11, SC_ACT_GELU);
  for (int i = 0; i < 11; i += 6) {
    ck_assert(isnan(y[i]));
    ck_assert(isinf(y[i + 1]) && y[i + 1] > 0);
    ck_assert(isnan(y[i + 2]));
    ck_assert(y[i + 3] == 0.0f); /* torch: 0 */
    ck_assert(y[i + 4] == 10.0f);
    if (i == 0) ck_assert(y[5] == 0.0f);
  }
}
END_TEST

START_TEST(test_relu_and_relu6) {
  float r[10], r6[10];
  for (int i = 0; i < 10; i++) r[i] = r6[i] = -4.5f + 1.5f * (float)i;
  sc_k_activation_f32(r, 10, SC_ACT_RELU);
  sc_k_activation_f32(r6, 10, SC_ACT_RELU6);
  for (int i = 0; i < 10; i++) {
    float x = -4.5f + 1.5f * (float)i;
    ck_assert(r[i] == (x > 0 ? x : 0.0f));
    ck_assert(r6[i] == (x < 0 ? 0.0f : x > 6 ? 6.0f : x));
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("activation");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_gelu_matches_reference);
  tcase_add_test(tc, test_gelu_tail_matches_body);
  tcase_add_test(tc, test_gelu_edges);
  tcase_add_test(tc, test_relu_and_relu6);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
