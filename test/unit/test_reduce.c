/* Float reductions (sc_k_reduce_f32, backends/cpu/runtime/reduce.c) against a double
 * reference: sum, mean, max, min and var (corrections 1 and 0) over rows, columns,
 * [outer, len, inner] slabs, the whole tensor, with dims of size 1 between, and over
 * scattered dims (spans of the innermost dims, reduced or kept); rows long enough to be cut in chunks,
 * column counts past a task's block, lengths that leave tails after the 32-element
 * steps, a few short rows (each summed in float first) and the sizes around them; NaN and
 * infinities as torch treats them; the same bits on one thread and two. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/runtime_abi.h"
#include "run_suite.h"
#include "shapec/runtime.h"

enum { MAX_DIMS = 4 };

typedef struct reduction {
  int32_t ndim;
  int64_t shape[MAX_DIMS];
  int32_t reduce[MAX_DIMS];
} reduction;

static const reduction cases[] = {
    {1, {1000}, {1}},                     /* the whole tensor */
    {2, {7, 1031}, {0, 1}},               /* rows */
    {2, {3, 70001}, {0, 1}},              /* rows cut in three chunks */
    {2, {37, 5}, {1, 0}},                 /* columns */
    {3, {4, 19, 300}, {0, 1, 0}},         /* slabs, two column blocks */
    {4, {2, 3, 5, 7}, {0, 0, 1, 1}},      /* x.mean((2, 3)) */
    {4, {2, 1, 9, 1}, {0, 1, 1, 1}},      /* dims of size 1 among the reduced ones */
    {4, {1, 6, 1, 33}, {1, 0, 0, 1}},     /* ... and reduced dims of size 1 around kept ones */
    {3, {5, 4, 6}, {1, 0, 1}},            /* scattered: reduced spans */
    {4, {4, 5, 6, 7}, {1, 0, 1, 0}},      /* scattered: kept spans */
    {4, {3, 1, 4, 37}, {1, 1, 0, 1}},     /* scattered, a size-1 dim between */
    {3, {3, 8, 2}, {1, 1, 1}},            /* everything, over three dims */
    {3, {4, 5, 5}, {0, 1, 1}},            /* short rows: 8-element steps and a tail */
    /* a few rows of at most 64: each summed in float, then its lanes in double */
    {4, {2, 4, 6, 6}, {0, 0, 1, 1}},      /* a tiny CNN's global average pool: 8 rows of 36 */
    {2, {5, 64}, {0, 1}},                 /* eight whole blocks */
    {2, {3, 8}, {0, 1}},                  /* one whole block */
    {2, {64, 57}, {0, 1}},                /* as many rows as are taken so */
    {2, {65, 57}, {0, 1}},                /* one row more: the pool's rows */
    {2, {4, 65}, {0, 1}},                 /* rows one longer than taken so */
};
enum { N_CASES = sizeof cases / sizeof *cases };

static const int32_t ops[] = {SC_REDUCE_SUM, SC_REDUCE_MEAN, SC_REDUCE_MAX, SC_REDUCE_MIN, SC_REDUCE_VAR};

static int64_t numel(const reduction *c) {
  int64_t n = 1;
  for (int i = 0; i < c->ndim; i++) n *= c->shape[i];
  return n;
}

/* output index of input element e */
static int64_t out_index(const reduction *c, int64_t e) {
  int64_t idx[MAX_DIMS], o = 0;
  for (int i = c->ndim - 1; i >= 0; i--) idx[i] = e % c->shape[i], e /= c->shape[i];
  for (int i = 0; i < c->ndim; i++)
    if (!c->reduce[i]) o = o * c->shape[i] + idx[i];
  return o;
}

/* the reduction in double, two passes for the variance */
static void reference(const reduction *c, const float *x, double *want, int32_t op, double correction) {
  int64_t n = numel(c), outs = 1, len = 1;
  for (int i = 0; i < c->ndim; i++) *(c->reduce[i] ? &len : &outs) *= c->shape[i];
  double *sum = calloc((size_t)outs, sizeof *sum), *sq = calloc((size_t)outs, sizeof *sq);
  for (int64_t o = 0; o < outs; o++) want[o] = op == SC_REDUCE_MAX ? -INFINITY : op == SC_REDUCE_MIN ? INFINITY : 0;
  for (int64_t e = 0; e < n; e++) {
    int64_t o = out_index(c, e);
    sum[o] += x[e];
    if (op == SC_REDUCE_MAX) want[o] = isnan(x[e]) || isnan(want[o]) ? NAN : fmax(want[o], x[e]);
    if (op == SC_REDUCE_MIN) want[o] = isnan(x[e]) || isnan(want[o]) ? NAN : fmin(want[o], x[e]);
  }
  for (int64_t e = 0; e < n; e++) {
    int64_t o = out_index(c, e);
    double d = x[e] - sum[o] / (double)len;
    sq[o] += d * d;
  }
  for (int64_t o = 0; o < outs; o++) {
    if (op == SC_REDUCE_SUM) want[o] = sum[o];
    if (op == SC_REDUCE_MEAN) want[o] = sum[o] / (double)len;
    if (op == SC_REDUCE_VAR) want[o] = sq[o] / ((double)len - correction);
  }
  free(sum), free(sq);
}

static int64_t outputs(const reduction *c) {
  int64_t outs = 1;
  for (int i = 0; i < c->ndim; i++)
    if (!c->reduce[i]) outs *= c->shape[i];
  return outs;
}

/* x: an offset per case so that the mean is far from 0, and a spread */
static float *input(const reduction *c) {
  int64_t n = numel(c);
  float *x = malloc(sizeof(float) * (size_t)n);
  for (int64_t e = 0; e < n; e++) x[e] = 3.0f + 2.0f * (float)(((e * 7919) % 10007) / 10007.0 - 0.5);
  return x;
}

START_TEST(test_matches_reference) {
  for (int ci = 0; ci < N_CASES; ci++) {
    const reduction *c = &cases[ci];
    float *x = input(c);
    int64_t outs = outputs(c);
    float *y = malloc(sizeof(float) * (size_t)outs);
    double *want = malloc(sizeof(double) * (size_t)outs);
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
      for (int corr = 0; corr <= (ops[k] == SC_REDUCE_VAR); corr++) {
        double correction = corr ? 0.0 : 1.0;
        sc_k_reduce_f32(x, y, c->ndim, c->shape, c->reduce, ops[k], correction);
        reference(c, x, want, ops[k], correction);
        for (int64_t o = 0; o < outs; o++)
          ck_assert_msg(fabs(y[o] - want[o]) <= 2e-6 * fabs(want[o]) + 1e-30, "case %d op %d corr %g: [%lld] = %.9g, want %.9g",
                        ci, ops[k], correction, (long long)o, y[o], want[o]);
      }
    free(x), free(y), free(want);
  }
}
END_TEST

/* NaN anywhere makes the sum, max and min NaN; infinities reach max, min and the sum */
START_TEST(test_nan_and_infinities) {
  for (int ci = 0; ci < N_CASES; ci++) {
    const reduction *c = &cases[ci];
    int64_t n = numel(c), outs = outputs(c);
    for (int special = 0; special < 3; special++) {
      float *x = input(c), value = special == 0 ? NAN : special == 1 ? INFINITY : -INFINITY;
      /* one element in the middle, one at the very end (a tail) */
      x[n / 2] = value;
      x[n - 1] = value;
      float *y = malloc(sizeof(float) * (size_t)outs);
      double *want = malloc(sizeof(double) * (size_t)outs);
      for (size_t k = 0; k < 4; k++) { /* sum, mean, max, min */
        sc_k_reduce_f32(x, y, c->ndim, c->shape, c->reduce, ops[k], 1.0);
        reference(c, x, want, ops[k], 1.0);
        for (int64_t o = 0; o < outs; o++) {
          if (isnan(want[o]) || isinf(want[o])) {
            ck_assert_msg(isnan(y[o]) == isnan(want[o]) && (isnan(y[o]) || y[o] == want[o]),
                          "case %d op %d special %d: [%lld] = %g, want %g", ci, ops[k], special, (long long)o, y[o], want[o]);
          } else {
            ck_assert_msg(fabs(y[o] - want[o]) <= 2e-6 * fabs(want[o]) + 1e-30, "case %d op %d special %d: [%lld] = %.9g, want %.9g",
                          ci, ops[k], special, (long long)o, y[o], want[o]);
          }
        }
      }
      free(x), free(y), free(want);
    }
  }
}
END_TEST

/* the chunks of a long row and the column blocks give the same bits on one thread and two */
START_TEST(test_thread_count_does_not_matter) {
  for (int ci = 0; ci < N_CASES; ci++) {
    const reduction *c = &cases[ci];
    int64_t outs = outputs(c);
    float *x = input(c), *y[2] = {malloc(sizeof(float) * (size_t)outs), malloc(sizeof(float) * (size_t)outs)};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
      for (int t = 0; t < 2; t++) {
        shapec_model_set_num_threads(t + 1);
        sc_k_reduce_f32(x, y[t], c->ndim, c->shape, c->reduce, ops[k], 1.0);
      }
      ck_assert_msg(memcmp(y[0], y[1], sizeof(float) * (size_t)outs) == 0, "case %d op %d: one thread and two differ", ci,
                    ops[k]);
    }
    free(x), free(y[0]), free(y[1]);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("reduce");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_nan_and_infinities);
  tcase_add_test(tc, test_thread_count_does_not_matter);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
