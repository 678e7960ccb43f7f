/* test_safetensors.c - the weights reader and its binding to the program. */
#include <stdlib.h>
#include <string.h>

#include "lib/frontend/safetensors.h"
#include "test_util.h"

/* Builds a safetensors buffer from a header and `data_len` bytes of data. */
static unsigned char *make_file(const char *header, size_t data_len, size_t *size) {
  size_t h = strlen(header);
  *size = 8 + h + data_len;
  unsigned char *buf = calloc(1, *size);
  for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)h >> (8 * i));
  memcpy(buf + 8, header, h);
  for (size_t i = 0; i < data_len; i++) buf[8 + h + i] = (unsigned char)i;
  return buf;
}

static sc_program *tutorial(sc_ctx *ctx) {
  cJSON *root = tu_example_model();
  sc_program *p = tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  ck_assert_ptr_nonnull(p);
  return p;
}

START_TEST(test_reads_example_weights) {
  sc_ctx *ctx = sc_ctx_new();
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/tutorial/model.safetensors", SHAPEC_SOURCE_DIR);
  sc_weights *w = sc_weights_read_file(ctx, path);
  ck_assert_ptr_nonnull(w);
  ck_assert_int_eq(w->n_items, 2);
  const sc_weight *lw = sc_weights_find(w, "l.weight");
  ck_assert_ptr_nonnull(lw);
  ck_assert_int_eq(lw->rank, 2);
  ck_assert_int_eq(lw->shape[0], 3);
  ck_assert_int_eq(lw->shape[1], 5);
  ck_assert_int_eq(lw->nbytes, 60);
  float first;
  memcpy(&first, lw->data, 4);
  ck_assert_float_eq(first, -0.3f);
  ck_assert(sc_weights_bind(ctx, w, tutorial(ctx), true));
  ck_assert_int_eq(ctx->diags.n_items, 0);
  sc_weights_free(w);
  sc_ctx_free(ctx);
}
END_TEST

static const struct {
  const char *header;
  size_t data_len;
} bad_files[] = {
    {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", 4},      /* truncated data */
    {"{\"a\": {\"dtype\": \"F33\", \"shape\": [2], \"data_offsets\": [0, 8]}}", 8},      /* unknown dtype */
    {"{\"a\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 8]}}", 8},      /* size mismatch */
    {"{\"a\": {\"dtype\": \"F32\", \"shape\": [-2], \"data_offsets\": [0, 8]}}", 8},     /* negative dim */
    {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [8, 0]}}", 8},      /* reversed */
    {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0]}}", 8},         /* one offset */
    {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2]}}", 8},                                /* no offsets */
    {"[1, 2]", 0},                                                                        /* not an object */
};

START_TEST(test_bad_files) {
  sc_ctx *ctx = sc_ctx_new();
  size_t size;
  unsigned char *buf = make_file(bad_files[_i].header, bad_files[_i].data_len, &size);
  ck_assert_ptr_null(sc_weights_read(ctx, "w.safetensors", buf, size));
  free(buf);
  ck_assert_int_gt(ctx->diags.n_errors, 0);
  ck_assert_str_eq(ctx->diags.items[0].file, "w.safetensors");
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_bad_header_length) {
  sc_ctx *ctx = sc_ctx_new();
  unsigned char small[5] = {1, 2, 3, 4, 5};
  ck_assert_ptr_null(sc_weights_read(ctx, "w.safetensors", small, sizeof small));
  tu_assert_diag(ctx, SC_DIAG_WEIGHTS_FORMAT, NULL);
  sc_ctx_free(ctx);
  ctx = sc_ctx_new();
  unsigned char huge[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, '{', '}'};
  ck_assert_ptr_null(sc_weights_read(ctx, "w.safetensors", huge, sizeof huge));
  tu_assert_diag(ctx, SC_DIAG_WEIGHTS_FORMAT, NULL);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_format_error_path) {
  sc_ctx *ctx = sc_ctx_new();
  size_t size;
  unsigned char *buf = make_file(bad_files[0].header, bad_files[0].data_len, &size);
  sc_weights_read(ctx, "w.safetensors", buf, size);
  free(buf);
  tu_assert_diag(ctx, SC_DIAG_WEIGHTS_FORMAT, "a.data_offsets");
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_missing_weight) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  size_t size;
  unsigned char *buf = make_file("{\"l.weight\": {\"dtype\": \"F32\", \"shape\": [3, 5], \"data_offsets\": [0, 60]}}", 60, &size);
  sc_weights *w = sc_weights_read(ctx, "w.safetensors", buf, size);
  ck_assert_ptr_nonnull(w);
  /* analysis only: a warning */
  ck_assert(sc_weights_bind(ctx, w, p, false));
  ck_assert_int_eq(ctx->diags.n_errors, 0);
  ck_assert_int_eq(ctx->diags.items[0].code, SC_DIAG_WEIGHTS_MISSING);
  ck_assert_int_eq(ctx->diags.items[0].severity, SC_SEV_WARNING);
  /* code generation: an error pointing at the input spec */
  ck_assert(!sc_weights_bind(ctx, w, p, true));
  tu_assert_diag(ctx, SC_DIAG_WEIGHTS_MISSING, "graph_module.signature.input_specs[1]");
  sc_weights_free(w);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_no_weights_file) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  ck_assert(!sc_weights_bind(ctx, NULL, p, true));
  tu_assert_diag(ctx, SC_DIAG_WEIGHTS_MISSING, "graph_module.signature.input_specs[0]");
  ck_assert_ptr_nonnull(strstr(ctx->diags.items[0].hint, "--weights"));
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_shape_mismatch) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  size_t size;
  unsigned char *buf = make_file("{\"l.weight\": {\"dtype\": \"F32\", \"shape\": [5, 3], \"data_offsets\": [0, 60]},"
                                 " \"l.bias\": {\"dtype\": \"F64\", \"shape\": [3], \"data_offsets\": [60, 84]}}",
                                 84, &size);
  sc_weights *w = sc_weights_read(ctx, "w.safetensors", buf, size);
  ck_assert_ptr_nonnull(w);
  ck_assert(!sc_weights_bind(ctx, w, p, true));
  tu_assert_diag(ctx, SC_DIAG_WEIGHTS_MISMATCH, "l.weight");
  ck_assert_ptr_nonnull(strstr(ctx->diags.items[0].message, "f32[5, 3] but the program expects f32[3, 5]"));
  ck_assert_int_eq(ctx->diags.n_errors, 2); /* the float64 bias too */
  sc_weights_free(w);
  sc_ctx_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("safetensors");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_reads_example_weights);
  tcase_add_loop_test(tc, test_bad_files, 0, sizeof bad_files / sizeof bad_files[0]);
  tcase_add_test(tc, test_bad_header_length);
  tcase_add_test(tc, test_format_error_path);
  tcase_add_test(tc, test_missing_weight);
  tcase_add_test(tc, test_no_weights_file);
  tcase_add_test(tc, test_shape_mismatch);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
