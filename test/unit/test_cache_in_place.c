/* Whether a call's present cache is its past one grown in place (sc_rt_cache_in_place,
 * backends/cpu/runtime/cache_in_place.c): yes only for the same first element and strides
 * with the present's elements apart from every other tensor; a strided present that is not
 * refused with the message given; a compact one copies (0). */
#include <check.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "run_suite.h"

enum { CAP = 16, HEADS = 2, WIDTH = 4 };

static float cache[HEADS * CAP * WIDTH], other[HEADS * CAP * WIDTH], ids[8];
static int64_t grown_strides[4] = {HEADS * CAP * WIDTH, CAP * WIDTH, WIDTH, 1};

static shapec_tensor tensor(void *data, int64_t *shape, int32_t ndim, int64_t *strides) {
  shapec_tensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = 1;
  t.ndim = ndim;
  t.dtype.code = 2, t.dtype.bits = 32, t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = strides;
  return t;
}

/* inputs: ids [8], past [1, HEADS, past_len, WIDTH]; outputs: logits (ids' size, other's
 * memory), present [1, HEADS, past_len + new, WIDTH] */
static int32_t decide(float *past_data, int64_t *past_strides, int64_t past_len, float *present_data,
                      int64_t *present_strides, int64_t new_len, float *logits_data, char *err) {
  static int64_t ids_shape[1] = {8}, past_shape[4], present_shape[4];
  int64_t ps[4] = {1, HEADS, past_len, WIDTH}, qs[4] = {1, HEADS, past_len + new_len, WIDTH};
  memcpy(past_shape, ps, sizeof ps);
  memcpy(present_shape, qs, sizeof qs);
  shapec_tensor in[2] = {tensor(ids, ids_shape, 1, NULL), tensor(past_data, past_shape, 4, past_strides)};
  shapec_tensor out[2] = {tensor(logits_data, ids_shape, 1, NULL), tensor(present_data, present_shape, 4, present_strides)};
  return sc_rt_cache_in_place(in, 2, out, 2, 1, 1, 2, "refused: not in place", err, 200);
}

START_TEST(test_grown_in_place) {
  char err[200] = "";
  ck_assert_int_eq(decide(cache, grown_strides, 5, cache, grown_strides, 1, other, err), 1);
  ck_assert_int_eq(decide(cache, grown_strides, 0, cache, grown_strides, 7, other, err), 1); /* a prefill: empty past */
}
END_TEST

START_TEST(test_not_in_place) {
  char err[200] = "";
  int64_t shifted[4] = {HEADS * CAP * WIDTH, CAP * WIDTH + 1, WIDTH, 1};
  /* compact tensors: copied, not refused */
  ck_assert_int_eq(decide(cache, NULL, 5, other, NULL, 1, ids, err), 0);
  /* compact past, present strided over it: refused, with the message */
  ck_assert_int_eq(decide(cache, NULL, 5, cache, grown_strides, 1, other, err), -SHAPEC_ERR_SHAPE);
  ck_assert_str_eq(err, "refused: not in place");
  /* the same memory, other strides; another buffer; an offset first element */
  ck_assert_int_eq(decide(cache, grown_strides, 5, cache, shifted, 1, other, err), -SHAPEC_ERR_SHAPE);
  ck_assert_int_eq(decide(cache, grown_strides, 5, other, grown_strides, 1, ids, err), -SHAPEC_ERR_SHAPE);
  ck_assert_int_eq(decide(cache, grown_strides, 5, cache + 1, grown_strides, 1, other, err), -SHAPEC_ERR_SHAPE);
  /* the present's elements overlap another output (logits inside the cache's buffer) */
  ck_assert_int_eq(decide(cache, grown_strides, 5, cache, grown_strides, 1, cache + 2 * WIDTH + 7 * WIDTH, err),
                   -SHAPEC_ERR_SHAPE);
  /* a present shorter than its past is no growth */
  ck_assert_int_eq(decide(cache, grown_strides, 5, cache, grown_strides, -1, other, err), -SHAPEC_ERR_SHAPE);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cache_in_place");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_grown_in_place);
  tcase_add_test(tc, test_not_in_place);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
