/* Rounding float32 elements to bfloat16 and float16 in place (sc_k_round_to_half_f32,
 * backends/cpu/runtime/round_half.c, what a half-precision convolution does to its output)
 * against the conversions of ir/half.h, the ones the reader and the half-precision pass
 * use: every element the same bits, for the vector path (F16C, eight at a time) and the
 * portable one (the tail of a call, fewer than eight), over ordinary numbers, both
 * subnormal ranges, the overflow edge, ties, infinities and NaN. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "ir/half.h"
#include "run_suite.h"

static float want(float f, int bf16) {
  return bf16 ? sc_bf16_to_f32(sc_f32_to_bf16(f)) : sc_f16_to_f32(sc_f32_to_f16(f));
}

static void check_values(const float *v, int64_t n, int bf16) {
  for (int64_t chunk = 7; chunk <= 64; chunk += 57) { /* 7: the portable path alone; 64: the vector path */
    for (int64_t at = 0; at < n; at += chunk) {
      int64_t count = n - at < chunk ? n - at : chunk;
      float got[64];
      memcpy(got, v + at, (size_t)count * sizeof *got);
      sc_k_round_to_half_f32(got, count, bf16);
      for (int64_t i = 0; i < count; i++) {
        float w = want(v[at + i], bf16);
        bool same = isnan(w) ? isnan(got[i]) : memcmp(&got[i], &w, sizeof w) == 0;
        ck_assert_msg(same, "%s of %a (chunk %lld): %a, want %a", bf16 ? "bfloat16" : "float16", (double)v[at + i],
                      (long long)chunk, (double)got[i], (double)w);
      }
    }
  }
}

START_TEST(test_matches_ir_half) {
  enum { N = 1 << 16 };
  float *v = malloc(N * sizeof *v);
  uint32_t state = 12345;
  for (int i = 0; i < N; i++) { /* random bit patterns: every exponent, sign and fraction */
    state = state * 1664525u + 1013904223u;
    uint32_t u = state;
    memcpy(&v[i], &u, sizeof u);
  }
  const float edges[] = {0.0f, -0.0f, 1.0f, 65504.0f, 65519.0f, 65520.0f, 65536.0f, 0x1p-14f, 0x1p-24f, 0x1p-25f,
                         0x1.8p-25f, 0x1p-26f, 1.0f + 0x1p-11f, 1.0f + 0x1.8p-11f, 1.0f + 0x1p-8f, 1.0f + 0x1.8p-8f,
                         INFINITY, -INFINITY, NAN, 3.3895314e38f, -1e-40f};
  memcpy(v, edges, sizeof edges); /* ties (1 + half a step), the largest finite numbers, subnormals */
  for (int bf16 = 0; bf16 <= 1; bf16++) check_values(v, N, bf16);
  free(v);
}
END_TEST

int main(void) {
  Suite *s = suite_create("round_half");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_ir_half);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
