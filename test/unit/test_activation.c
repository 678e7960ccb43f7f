/* The activations a convolution or linear layer applies after its product
 * (sc_k_activation_f32, sc_k_linear_epilogue_f32, backends/cpu/runtime/nn.c) against
 * double-precision references:
 * the exact GELU over its whole range, lengths that leave a tail after the 8-lane body and
 * one long enough to be split between threads, and the values torch gives at the edges
 * (gelu(-inf) and NaN are NaN, gelu(inf) is inf); the 32-piece erf of gelu_table.h over the
 * floats; each vector width's GELU against its scalar model, bit for bit. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/erf_fit.h"
#include "backends/llvm/gelu_table.h"
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

/* 0.5 erf(a / sqrt 2) as both GELUs evaluate it in float32, with or without fused
 * multiply-adds (the generated loops fuse them only where the CPU has FMA). */
static float half_erf_fit(float a, bool fused) {
  const double in = 0.7071067811865476;
  float a2 = a * a, num = (float)sc_erf_num(SC_ERF_DEGREE, 0.5, in), den = (float)sc_erf_den(SC_ERF_DEGREE, in);
  for (int d = SC_ERF_DEGREE - 1; d >= 0; d--) {
    float pn = (float)sc_erf_num(d, 0.5, in), qd = (float)sc_erf_den(d, in);
    num = fused ? fmaf(num, a2, pn) : num * a2 + pn;
    den = fused ? fmaf(den, a2, qd) : den * a2 + qd;
  }
  return a * num / den;
}

/* The GELUs take min(fit, 1/2) without a compare of their own: that is exactly 1/2 from the
 * clamp on only because the fit reaches 1/2 there, fused or not.  gelu(x) is then x above the clamp and
 * zero below minus the clamp, as torch's float32 erf saturates. */
START_TEST(test_gelu_saturates_from_the_clamp) {
  float clamp = (float)SC_GELU_CLAMP;
  ck_assert((double)clamp == SC_GELU_CLAMP);
  /* the clamp is where torch's float32 erf saturates: 1/2 there, short of it an ulp below */
  ck_assert((float)(0.5 * erf(SC_GELU_CLAMP / sqrt(2.0))) == 0.5f);
  ck_assert((float)(0.5 * erf(nextafterf(clamp, 0.0f) / sqrt(2.0))) < 0.5f);
  ck_assert_msg(half_erf_fit(clamp, true) >= 0.5f, "fused fit at the clamp %.9g", half_erf_fit(clamp, true));
  ck_assert_msg(half_erf_fit(clamp, false) >= 0.5f, "unfused fit at the clamp %.9g", half_erf_fit(clamp, false));
  enum { N = 41 };
  float y[2 * N], x[2 * N];
  for (int i = 0; i < N; i++) {
    float v = i == 0 ? clamp : i < 20 ? nextafterf(clamp, 10.0f) + 0.05f * (float)i : ldexpf(1.0f, i + 80);
    x[2 * i] = y[2 * i] = v, x[2 * i + 1] = y[2 * i + 1] = -v;
  }
  sc_k_activation_f32(y, 2 * N, SC_ACT_GELU);
  for (int i = 0; i < 2 * N; i++)
    ck_assert_msg(y[i] == (x[i] > 0 ? x[i] : 0.0f), "gelu(%.9g) = %.9g", x[i], y[i]);
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

/* A linear layer's epilogue in one pass: each row gets the bias, then the activation, then
 * the residual, on rows whose length leaves a tail, and split between threads. */
START_TEST(test_linear_epilogue) {
  static const int32_t acts[] = {SC_ACT_GELU, SC_ACT_RELU, SC_ACT_RELU6, SC_ACT_NONE};
  static const int64_t shapes[][2] = {{3, 13}, {5, 8}, {2000, 37}};
  int cases = 0;
  for (size_t a = 0; a < sizeof acts / sizeof *acts; a++)
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
      for (int parts = 0; parts < 4; parts++) { /* bit 0: a bias, bit 1: a residual */
        int64_t rows = shapes[si][0], cols = shapes[si][1];
        size_t bytes = sizeof(float) * (size_t)(rows * cols);
        float *y = malloc(bytes), *x = malloc(bytes), *residual = malloc(bytes);
        float *bias = malloc(sizeof(float) * (size_t)cols);
        for (int64_t c = 0; c < cols; c++) bias[c] = -2.0f + 0.3f * (float)c;
        for (int64_t e = 0; e < rows * cols; e++) {
          x[e] = y[e] = -7.0f + (float)((e * 37) % 141) * 0.1f;
          residual[e] = (float)(e % 11) - 5.0f;
        }
        bool with_bias = parts & 1, with_residual = parts & 2;
        sc_k_linear_epilogue_f32(y, with_bias ? bias : NULL, with_residual ? residual : NULL, rows, cols, acts[a]);
        for (int64_t e = 0; e < rows * cols; e++) {
          double v = (double)(x[e] + (with_bias ? bias[e % cols] : 0.0f));
          double want = acts[a] == SC_ACT_GELU ? gelu_reference(v) : acts[a] == SC_ACT_RELU ? (v > 0 ? v : 0)
                        : acts[a] == SC_ACT_RELU6 ? (v < 0 ? 0 : v > 6 ? 6 : v) : v;
          if (with_residual) want += residual[e];
          ck_assert_msg(fabs(y[e] - want) <= 4e-7 * (fabs(v) + fabs(want)) + 1e-7,
                        "act %d rows %lld cols %lld bias %d residual %d: [%lld] = %.9g, want %.9g", acts[a],
                        (long long)rows, (long long)cols, with_bias, with_residual, (long long)e, y[e], want);
        }
        free(x), free(y), free(residual), free(bias);
        cases++;
      }
  ck_assert_int_eq(cases, 4 * 3 * 4);
}
END_TEST

/* gelu_table.h's 0.5 erf(a / sqrt 2) over the non-negative floats (every 997th up to 8, and
 * all those within 0.05 of the clamp): within 3.9e-8 of erf in double (its fit's 3.85e-8),
 * exactly 1/2 from the clamp on (to infinity), and the clamp's 1/2 for NaN. */
START_TEST(test_gelu_table_accuracy) {
  double worst = 0;
  float clamp = (float)SC_GELU_CLAMP;
  for (float a = 0.0f; a < 8.0f;) {
    double want = 0.5 * erf((double)a / sqrt(2.0)), got = sc_gelu_half_erf(a);
    ck_assert_msg(fabs(got - want) <= 3.9e-8, "0.5 erf(%.9g / sqrt 2) = %.9g, want %.9g", a, got, want);
    if (fabs(got - want) > worst) worst = fabs(got - want);
    if (a >= clamp) ck_assert_msg(got == 0.5, "0.5 erf(%.9g / sqrt 2) = %.9g past the clamp", a, got);
    uint32_t bits;
    memcpy(&bits, &a, sizeof bits);
    bits += fabsf(a - clamp) < 0.05f ? 1 : 997;
    memcpy(&a, &bits, sizeof bits);
  }
  ck_assert(worst > 1e-9); /* the sweep compared something */
  for (int e = 3; e < 128; e++) ck_assert(sc_gelu_half_erf(ldexpf(1.0f, e)) == 0.5f);
  ck_assert(sc_gelu_half_erf(INFINITY) == 0.5f && sc_gelu_half_erf(NAN) == 0.5f);
}
END_TEST

/* The GELUs take the pieces' value with no min of their own: every float from 4 (0.5 erf is
 * 1/2 - 3e-5 there) to 6 gives at most 1/2, and 1/2 from the last piece on (|x| > 5.48), as
 * float32's erf (from 5.54). */
START_TEST(test_gelu_table_never_passes_half) {
  long checked = 0, in_last_piece = 0;
  for (float a = 4.0f; a < 6.0f; a = nextafterf(a, 7.0f), checked++) {
    float got = sc_gelu_half_erf(a);
    ck_assert_msg(got <= 0.5f, "0.5 erf(%.9g / sqrt 2) = %.9g passes 1/2", a, got);
    if (fmaf(a, SC_GELU_T_SCALE, -0.5f) > SC_GELU_PIECES - 1.5f) { /* t rounds to the last piece */
      ck_assert_msg(got == 0.5f, "0.5 erf(%.9g / sqrt 2) = %.9g in the last piece", a, got);
      in_last_piece++;
    }
  }
  ck_assert(checked > 4000000 && in_last_piece > 1000000);
}
END_TEST

/* Scalar models of the runtime's GELUs, with their operations in their order: one element
 * at a time (libraries for CPUs without AVX2) the rational fit of erf_fit.h unfused, 8 lanes
 * (libraries for AVX2 CPUs) the same fused, 16 lanes (libraries for AVX-512) the pieces of
 * gelu_table.h.  NaN takes the clamp in fminf as in vminps. */
static float gelu_rational_model(float x) {
  float ax = fabsf(x);
  float half_erf = fminf(half_erf_fit(fminf(ax, (float)SC_GELU_CLAMP), true), 0.5f);
  return fmaf(ax, half_erf, x * 0.5f);
}

static float gelu_unfused_model(float x) {
  volatile float ax = fabsf(x); /* volatile: the product and the sum rounded apart */
  volatile float half_erf = fminf(half_erf_fit(fminf(ax, (float)SC_GELU_CLAMP), false), 0.5f);
  volatile float product = ax * half_erf;
  return product + x * 0.5f;
}

static float gelu_table_model(float x) { return fmaf(fabsf(x), sc_gelu_half_erf(fabsf(x)), x * 0.5f); }

/* The runtime's GELU and its linear epilogue give each width's model's bits, element for
 * element: 8 lanes by default (one element at a time with SHAPEC_NO_AVX2), 16 once a
 * library built for AVX-512 says so (sc_rt_has_avx512), over a sweep of [-12, 12], the values around the clamp, the edges and
 * rows whose length leaves a tail after either body.  These are the bits the generated
 * loops give for the same library (test_tiny_ops.py's gelu_layer_and_loop).  Last in the
 * suite: the first library's verdict holds for the rest of the process. */
START_TEST(test_each_width_gives_its_models_bits) {
  char err[256];
  ck_assert(!sc_rt_has_avx512());
  enum { N = 40037, COLS = 53, ROWS = N / COLS };
  size_t bytes = sizeof(float) * N;
  float *x = malloc(bytes), *residual = malloc(bytes), bias[COLS];
  float *gelu = malloc(bytes), *epilogue = malloc(bytes);
  float clamp = (float)SC_GELU_CLAMP;
  for (int i = 0; i < N; i++) {
    x[i] = -12.0f + 24.0f * (float)i / (float)(N - 1);
    residual[i] = (float)(i % 13) - 6.5f;
  }
  for (int i = 0; i < 400; i++) x[20000 + i] = (i % 2 ? 1.0f : -1.0f) * (clamp + (float)(i - 200) * 1e-6f);
  x[N - 1] = NAN, x[N - 2] = INFINITY, x[N - 3] = -INFINITY, x[N - 4] = -0.0f;
  for (int c = 0; c < COLS; c++) bias[c] = -1.0f + 0.04f * (float)c;
  for (int wide = 0; wide < 2; wide++) {
    int lanes = wide ? 16 : sc_rt_has_avx2() ? 8 : 1;
    if (wide) { /* as a library built for AVX-512 does on its first call */
      if (sc_rt_cpu_has("avx512f", 7) != 1 || !sc_rt_has_avx2()) break;
      ck_assert_int_eq(sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err), SHAPEC_OK);
      ck_assert(sc_rt_has_avx512());
    }
    float (*model)(float) = lanes == 16 ? gelu_table_model : lanes == 8 ? gelu_rational_model : gelu_unfused_model;
    memcpy(gelu, x, bytes);
    sc_k_activation_f32(gelu, N, SC_ACT_GELU);
    memcpy(epilogue, x, bytes);
    sc_k_linear_epilogue_f32(epilogue, bias, residual, ROWS, COLS, SC_ACT_GELU);
    for (int i = 0; i < N; i++) {
      float want = model(x[i]);
      ck_assert_msg(memcmp(&gelu[i], &want, sizeof(float)) == 0 || (isnan(gelu[i]) && isnan(want)),
                    "%d lanes: gelu(%.9g) = %.9g, its model %.9g", lanes, x[i], gelu[i], want);
      if (i >= ROWS * COLS) continue;
      want = model(x[i] + bias[i % COLS]) + residual[i];
      ck_assert_msg(memcmp(&epilogue[i], &want, sizeof(float)) == 0 || (isnan(epilogue[i]) && isnan(want)),
                    "%d lanes: linear epilogue [%d] = %.9g, its model %.9g", lanes, i, epilogue[i], want);
    }
  }
  free(x), free(residual), free(gelu), free(epilogue);
}
END_TEST

int main(void) {
  Suite *s = suite_create("activation");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_gelu_matches_reference);
  tcase_add_test(tc, test_gelu_tail_matches_body);
  tcase_add_test(tc, test_gelu_edges);
  tcase_add_test(tc, test_gelu_saturates_from_the_clamp);
  tcase_add_test(tc, test_relu_and_relu6);
  tcase_add_test(tc, test_linear_epilogue);
  tcase_add_test(tc, test_gelu_table_accuracy);
  tcase_add_test(tc, test_gelu_table_never_passes_half);
  tcase_add_test(tc, test_each_width_gives_its_models_bits);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
