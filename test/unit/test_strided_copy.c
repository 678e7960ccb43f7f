/* Copies between a compact tensor and a strided view of another (sc_k_strided_copy, a
 * permute's or slice's gather, and sc_k_copy_into, a cat's scatter; backends/cpu/runtime/
 * copy.c) against an element-by-element reference: ranks 0 to 5, rows contiguous or not,
 * contiguous runs of 16, 32 and 64 bytes (the fixed-size moves) and others up to past 64
 * (a memcpy), element sizes 1, 2, 4, 8 and 3, dims of size 1, and nothing written outside
 * the destination's elements. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "run_suite.h"

enum { MAX_BYTES = 1 << 16 };

static unsigned next(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return *state >> 8;
}

/* Strides (in elements) of a permutation of a compact [shape permuted back] tensor, or of a
 * slice of a larger one: rows stay contiguous when `contiguous_rows`. */
static void make_strides(int ndim, const int64_t *shape, int contiguous_rows, unsigned *state, int64_t *strides) {
  int order[6];
  for (int d = 0; d < ndim; d++) order[d] = d;
  for (int d = ndim - 1 - (contiguous_rows ? 1 : 0); d > 0; d--) { /* shuffle the outer dims (all, when rows may move) */
    int e = (int)(next(state) % (unsigned)(d + 1));
    int t = order[d];
    order[d] = order[e], order[e] = t;
  }
  int64_t stride = 1;
  for (int i = ndim - 1; i >= 0; i--) { /* order[i] is laid out i-th from the outside, with a gap after some */
    strides[order[i]] = stride;
    stride *= shape[order[i]] + (next(state) % 3 == 0 ? 1 : 0);
  }
}

static int64_t offset_of(int ndim, const int64_t *shape, const int64_t *strides, int64_t linear) {
  int64_t off = 0;
  for (int d = ndim - 1; d >= 0; d--) {
    off += linear % shape[d] * strides[d];
    linear /= shape[d];
  }
  return off;
}

/* A gather (compact <- strided) against the element-wise reference; a read with repeats
 * has no scatter. */
static void check_gather(int ndim, const int64_t *shape, const int64_t *strides, int64_t esize) {
  int64_t count = 1, span = 1;
  for (int d = 0; d < ndim; d++) count *= shape[d], span += (shape[d] - 1) * strides[d];
  ck_assert(count * esize <= MAX_BYTES && span * esize <= MAX_BYTES);
  static unsigned char src[MAX_BYTES], got[MAX_BYTES + 1], want[MAX_BYTES + 1];
  for (int64_t b = 0; b < MAX_BYTES; b++) src[b] = (unsigned char)(b * 7 + 3);
  memset(got, 0xAA, sizeof got);
  memset(want, 0xAA, sizeof want);
  for (int64_t e = 0; e < count; e++) memcpy(want + e * esize, src + offset_of(ndim, shape, strides, e) * esize, (size_t)esize);
  sc_k_strided_copy(src, got, ndim, shape, strides, esize);
  ck_assert_msg(memcmp(got, want, sizeof got) == 0, "gather, rank %d, esize %lld", ndim, (long long)esize);
}

/* The gather, then the scatter through the same strides */
static void check_case(int ndim, const int64_t *shape, const int64_t *strides, int64_t esize) {
  check_gather(ndim, shape, strides, esize);
  int64_t count = 1;
  for (int d = 0; d < ndim; d++) count *= shape[d];
  static unsigned char src[MAX_BYTES], got[MAX_BYTES + 1], want[MAX_BYTES + 1];
  for (int64_t b = 0; b < MAX_BYTES; b++) src[b] = (unsigned char)(b * 7 + 3);
  /* scatter: strided <- compact */
  memset(got, 0xAA, sizeof got);
  memset(want, 0xAA, sizeof want);
  for (int64_t e = 0; e < count; e++) memcpy(want + offset_of(ndim, shape, strides, e) * esize, src + e * esize, (size_t)esize);
  sc_k_copy_into(src, got, ndim, shape, strides, esize);
  ck_assert_msg(memcmp(got, want, sizeof got) == 0, "scatter, rank %d, esize %lld", ndim, (long long)esize);
}

START_TEST(test_matches_reference) {
  static const int64_t esizes[] = {4, 1, 2, 8, 3};
  unsigned state = 9;
  for (int ndim = 0; ndim <= 5; ndim++)
    for (size_t ei = 0; ei < sizeof esizes / sizeof *esizes; ei++)
      for (int trial = 0; trial < 40; trial++) {
        int64_t shape[6], strides[6];
        for (int d = 0; d < ndim; d++) shape[d] = 1 + next(&state) % (ndim > 3 ? 3 : 5);
        if (ndim > 0 && trial % 4 == 0) shape[ndim - 1] = 64 / esizes[ei] > 0 ? 64 / esizes[ei] : 1; /* a 64-byte row */
        if (ndim > 0 && trial % 4 == 1) shape[ndim - 1] = 32 / esizes[ei] > 0 ? 32 / esizes[ei] : 1;
        if (ndim > 0 && trial % 4 == 2) shape[ndim - 1] = 17 + next(&state) % 40; /* past 64 bytes for most sizes */
        make_strides(ndim, shape, trial % 3 != 0, &state, strides);
        check_case(ndim, shape, strides, esizes[ei]);
      }
}
END_TEST

/* Reads with repeats (stride 0: expand, upsample_nearest2d), which copy a repeated block
 * once and duplicate it, and write a row's elements several times each: dims of stride 0
 * anywhere, the last ones included, and every dim repeated (a fill). */
START_TEST(test_repeating_gathers) {
  static const int64_t esizes[] = {4, 1, 2, 8, 3};
  unsigned state = 21;
  for (int ndim = 1; ndim <= 6; ndim++)
    for (size_t ei = 0; ei < sizeof esizes / sizeof *esizes; ei++)
      for (int trial = 0; trial < 60; trial++) {
        int64_t shape[6], strides[6];
        for (int d = 0; d < ndim; d++) shape[d] = 1 + next(&state) % (ndim > 3 ? 3 : 5);
        make_strides(ndim, shape, trial % 3 != 0, &state, strides);
        for (int d = 0; d < ndim; d++)
          if (next(&state) % 3 == 0 || (trial % 5 == 0 && d == ndim - 1)) strides[d] = 0;
        if (trial == 7)
          for (int d = 0; d < ndim; d++) strides[d] = 0;
        check_gather(ndim, shape, strides, esizes[ei]);
      }
  /* upsample_nearest2d of [2, 2, 4, 4] by 2 and of [1, 3, 2, 5] by (4, 2) */
  static const int64_t up_shape[6] = {2, 2, 4, 2, 4, 2}, up_strides[6] = {32, 16, 4, 0, 1, 0};
  static const int64_t up2_shape[6] = {1, 3, 2, 4, 5, 2}, up2_strides[6] = {30, 10, 5, 0, 1, 0};
  check_gather(6, up_shape, up_strides, 4);
  check_gather(6, up2_shape, up2_strides, 4);
}
END_TEST

/* The tiny attention's transposes: [4, 2, 8] of a [2, 4, 8] and back. */
START_TEST(test_attention_transposes) {
  static const int64_t shape[3] = {4, 2, 8}, strides[3] = {8, 32, 1};
  check_case(3, shape, strides, 4);
}
END_TEST

int main(void) {
  Suite *s = suite_create("strided_copy");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_attention_transposes);
  tcase_add_test(tc, test_repeating_gathers);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
