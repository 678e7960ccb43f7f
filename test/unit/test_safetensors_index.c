/* The safetensors index a model library reads when it replaces its weights
 * (backends/cpu/runtime/safetensors.c, compiled into this test so that the sanitizers
 * watch it): a valid file's tensors, names with escapes, any key order, and files cut
 * short or with bytes changed at random, which must give an error or an index whose every
 * tensor lies inside the file, never a read past it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/safetensors.h"
#include "run_suite.h"
#include "shapec/runtime.h"

static const char header[] =
    "{\"__metadata__\": {\"format\": \"pt\", \"n\": [1, {\"x\": null}]}, "
    "\"b\": {\"shape\": [2], \"dtype\": \"F32\", \"data_offsets\": [24, 32]}, "
    "\"a.w\\u00e9\": {\"dtype\": \"BF16\", \"shape\": [2, 3], \"data_offsets\": [0, 12], \"extra\": true}, "
    "\"c\": {\"dtype\": \"I64\", \"shape\": [], \"data_offsets\": [12, 20]}}";

/* The file: length, header, 32 bytes of data; *size its bytes. */
static unsigned char *file_of(const char *json, size_t data_bytes, size_t *size) {
  size_t n = strlen(json);
  *size = 8 + n + data_bytes;
  unsigned char *f = calloc(1, *size);
  for (int i = 0; i < 8; i++) f[i] = (unsigned char)((uint64_t)n >> (8 * i));
  memcpy(f + 8, json, n);
  for (size_t i = 0; i < data_bytes; i++) f[8 + n + i] = (unsigned char)i;
  return f;
}

START_TEST(test_valid) {
  size_t size;
  unsigned char *f = file_of(header, 32, &size);
  sc_st_file st;
  char err[300] = "";
  ck_assert_int_eq(sc_st_index(f, size, &st, err, sizeof err), SHAPEC_OK);
  ck_assert_int_eq(st.n, 3);
  const sc_st_tensor *a = sc_st_find(&st, "a.w\xc3\xa9"), *b = sc_st_find(&st, "b"), *c = sc_st_find(&st, "c");
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_ptr_nonnull(c);
  ck_assert_ptr_null(sc_st_find(&st, "__metadata__"));
  ck_assert_str_eq(a->dtype, "BF16");
  ck_assert_int_eq(a->ndim, 2);
  ck_assert_int_eq(a->shape[1], 3);
  ck_assert_int_eq(c->ndim, 0);
  ck_assert_int_eq((int)b->begin, 24);
  ck_assert_int_eq(b->data[0], 24); /* the data's byte 24 */
  sc_st_free(&st);
  free(f);
}
END_TEST

START_TEST(test_refused) {
  static const struct {
    const char *json, *says;
  } cases[] = {
      {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 64]}}", "past the file"},
      {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1]}}", "without its dtype, shape or data_offsets"},
      {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 4]}}", "begin <= end"},
      {"{\"a\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}", "non-negative integer"},
      {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}, \"a\": {\"dtype\": \"F32\", \"shape\": "
       "[1], \"data_offsets\": [0, 4]}}", "twice"},
      {"{\"a\": {\"dtype\": \"F32\", \"shape\": [99999999999999999999], \"data_offsets\": [0, 4]}}", "too large"},
      {"[1, 2]", "'{' expected"},
      {"{\"a\\q\": 1}", "unknown escape"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t size;
    unsigned char *f = file_of(cases[i].json, 32, &size);
    sc_st_file st;
    char err[300] = "";
    ck_assert_int_eq(sc_st_index(f, size, &st, err, sizeof err), SHAPEC_ERR_WEIGHTS);
    ck_assert_msg(strstr(err, cases[i].says), "case %zu: '%s' does not say '%s'", i, err, cases[i].says);
    ck_assert_ptr_null(st.tensors);
    free(f);
  }
}
END_TEST

/* Each tensor of an accepted index lies in the file. */
static void check_inside(const sc_st_file *st, const unsigned char *f, size_t size) {
  for (int i = 0; i < st->n; i++) {
    const sc_st_tensor *t = &st->tensors[i];
    ck_assert(t->data >= f && t->data + (t->end - t->begin) <= f + size);
  }
}

START_TEST(test_damaged) {
  size_t size;
  unsigned char *good = file_of(header, 32, &size);
  /* cut short anywhere: into a buffer of exactly that size, so that a read past it is seen */
  for (size_t cut = 0; cut < size; cut++) {
    unsigned char *f = malloc(cut ? cut : 1);
    memcpy(f, good, cut);
    sc_st_file st;
    char err[300] = "";
    if (sc_st_index(f, cut, &st, err, sizeof err) == SHAPEC_OK) check_inside(&st, f, cut);
    sc_st_free(&st);
    free(f);
  }
  /* bytes changed at random (the header's length too) */
  unsigned seed = 12345;
  for (int round = 0; round < 20000; round++) {
    unsigned char *f = malloc(size);
    memcpy(f, good, size);
    for (int k = 0; k < 1 + round % 4; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 8) % (round % 7 == 0 ? 8 : size);
      seed = seed * 1103515245u + 12345u;
      f[at] = (unsigned char)(seed >> 16);
    }
    sc_st_file st;
    char err[300] = "";
    if (sc_st_index(f, size, &st, err, sizeof err) == SHAPEC_OK) check_inside(&st, f, size);
    else ck_assert(err[0]);
    sc_st_free(&st);
    free(f);
  }
  free(good);
}
END_TEST

int main(void) {
  Suite *s = suite_create("safetensors_index");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_valid);
  tcase_add_test(tc, test_refused);
  tcase_add_test(tc, test_damaged);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
