/* test_pt2.c - .pt2 archives: a well-formed archive reads into the same program and
 * weights as its JSON and safetensors; every kind of damage fails cleanly with its code. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "lib/base/fileio.h"
#include "lib/frontend/pt2_reader.h"
#include "test_util.h"

static char dir[] = "/tmp/shapec-pt2-XXXXXX";

typedef struct member {
  const char *name;
  const void *data;
  size_t len;
} member;

static void write_zip(const char *path, const member *m, size_t n) {
  int err;
  unlink(path);
  zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
  ck_assert_ptr_nonnull(z);
  for (size_t i = 0; i < n; i++) {
    zip_source_t *s = zip_source_buffer(z, m[i].data, m[i].len, 0);
    zip_int64_t at = zip_file_add(z, m[i].name, s, ZIP_FL_OVERWRITE);
    ck_assert_int_ge(at, 0);
    ck_assert_int_eq(zip_set_file_compression(z, (zip_uint64_t)at, ZIP_CM_STORE, 0), 0); /* as torch writes them */
  }
  ck_assert_int_eq(zip_close(z), 0);
}

static const char *weights_config =
    "{\"config\": {"
    "\"l.weight\": {\"path_name\": \"weight_0\", \"is_param\": true, \"use_pickle\": false, \"tensor_meta\": "
    "{\"dtype\": 7, \"sizes\": [{\"as_int\": 3}, {\"as_int\": 5}], \"strides\": [{\"as_int\": 5}, {\"as_int\": 1}], "
    "\"storage_offset\": {\"as_int\": 0}, \"layout\": 7}},"
    "\"l.bias\": {\"path_name\": \"weight_1\", \"is_param\": true, \"use_pickle\": false, \"tensor_meta\": "
    "{\"dtype\": 7, \"sizes\": [{\"as_int\": 3}], \"strides\": [{\"as_int\": 1}], \"storage_offset\": {\"as_int\": 0}, "
    "\"layout\": 7}}}}";

static float weight[15], bias[3], transposed[15];
static char *model_json;
static size_t model_len;

static void setup(void) {
  ck_assert_ptr_nonnull(mkdtemp(dir));
  model_json = tu_read_source("examples/tutorial/model.json", &model_len);
  for (int i = 0; i < 15; i++) weight[i] = (float)i * 0.5f;
  for (int i = 0; i < 3; i++) bias[i] = (float)i - 1.0f;
  /* the same 3x5 weight stored column-major: strides [1, 3] */
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 5; c++) transposed[c * 3 + r] = weight[r * 5 + c];
}

static void teardown(void) {
  free(model_json);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
  strcpy(dir, "/tmp/shapec-pt2-XXXXXX");
}

/* The well-formed archive's members; tests damage a copy. */
static size_t good_members(member *m, const char *config) {
  size_t n = 0;
  m[n++] = (member){"archive/archive_format", "pt2", 3};
  m[n++] = (member){"archive/archive_version", "0", 1};
  m[n++] = (member){"archive/models/model.json", model_json, model_len};
  m[n++] = (member){"archive/data/weights/model_weights_config.json", config, strlen(config)};
  m[n++] = (member){"archive/data/weights/weight_0", weight, sizeof weight};
  m[n++] = (member){"archive/data/weights/weight_1", bias, sizeof bias};
  return n;
}

static sc_ctx *read_archive(const member *m, size_t n, sc_program **p, sc_weights **w, bool *ok) {
  char path[256];
  snprintf(path, sizeof path, "%s/model.pt2", dir);
  write_zip(path, m, n);
  sc_ctx *ctx = sc_ctx_new();
  ck_assert(sc_pt2_looks_like_archive(path));
  *ok = sc_pt2_read(ctx, path, p, w);
  return ctx;
}

START_TEST(test_reads_archive) {
  member m[8];
  size_t n = good_members(m, weights_config);
  sc_program *p;
  sc_weights *w;
  bool ok;
  sc_ctx *ctx = read_archive(m, n, &p, &w, &ok);
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  ck_assert(ok);
  ck_assert_int_eq(p->graph->n_nodes, 5);
  ck_assert_ptr_nonnull(strstr(p->file, "model.pt2:archive/models/model.json"));
  ck_assert_int_eq(w->n_items, 2);
  const sc_weight *lw = sc_weights_find(w, "l.weight");
  ck_assert_int_eq(lw->nbytes, sizeof weight);
  ck_assert(memcmp(lw->data, weight, sizeof weight) == 0);
  ck_assert(sc_weights_bind(ctx, w, p, true));
  sc_weights_free(w);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_strided_payload_is_made_contiguous) {
  char *config = strdup(weights_config);
  char *at = strstr(config, "\"strides\": [{\"as_int\": 5}, {\"as_int\": 1}]");
  memcpy(at, "\"strides\": [{\"as_int\": 1}, {\"as_int\": 3}]", strlen("\"strides\": [{\"as_int\": 1}, {\"as_int\": 3}]"));
  member m[8];
  size_t n = good_members(m, config);
  m[4].data = transposed;
  sc_program *p;
  sc_weights *w;
  bool ok;
  sc_ctx *ctx = read_archive(m, n, &p, &w, &ok);
  ck_assert(ok);
  ck_assert(memcmp(sc_weights_find(w, "l.weight")->data, weight, sizeof weight) == 0);
  sc_weights_free(w);
  sc_ctx_free(ctx);
  free(config);
}
END_TEST

/* Damage: drop member `drop` (or -1), replace payload 0 by `short_len` bytes, use `config`. */
static void expect_failure(int drop, size_t short_len, const char *config, const char *format, sc_diag_code code) {
  member m[8], kept[8];
  size_t n = good_members(m, config ? config : weights_config), k = 0;
  if (short_len) m[4].len = short_len;
  if (format) m[0] = (member){"archive/archive_format", format, strlen(format)};
  for (size_t i = 0; i < n; i++)
    if ((int)i != drop) kept[k++] = m[i];
  sc_program *p;
  sc_weights *w;
  bool ok;
  sc_ctx *ctx = read_archive(kept, k, &p, &w, &ok);
  ck_assert(!ok);
  tu_assert_diag(ctx, code, NULL);
  ck_assert_ptr_nonnull(strstr(sc_diags_find(&ctx->diags, code)->file, "model.pt2"));
  sc_ctx_free(ctx);
}

START_TEST(test_missing_model) { expect_failure(2, 0, NULL, NULL, SC_DIAG_PT2_MISSING_MEMBER); }
END_TEST
START_TEST(test_missing_payload) { expect_failure(5, 0, NULL, NULL, SC_DIAG_PT2_MISSING_MEMBER); }
END_TEST
START_TEST(test_missing_format) { expect_failure(0, 0, NULL, NULL, SC_DIAG_PT2_MISSING_MEMBER); }
END_TEST
START_TEST(test_wrong_format) { expect_failure(-1, 0, NULL, "zip", SC_DIAG_PT2_FORMAT); }
END_TEST
START_TEST(test_short_payload) { expect_failure(-1, 40, NULL, NULL, SC_DIAG_PT2_PAYLOAD_SIZE); }
END_TEST

START_TEST(test_pickled_payload_without_meta) {
  const char *config = "{\"config\": {\"l.weight\": {\"path_name\": \"weight_0\", \"use_pickle\": true}}}";
  expect_failure(-1, 0, config, NULL, SC_DIAG_PT2_PICKLED);
}
END_TEST

START_TEST(test_payload_without_strides_is_contiguous) {
  const char *config =
      "{\"config\": {\"l.weight\": {\"path_name\": \"weight_0\", \"use_pickle\": false, \"tensor_meta\": "
      "{\"dtype\": 7, \"sizes\": [{\"as_int\": 3}, {\"as_int\": 5}]}}, \"l.bias\": {\"path_name\": \"weight_1\", "
      "\"use_pickle\": false, \"tensor_meta\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 3}]}}}}";
  member m[8];
  size_t n = good_members(m, config);
  sc_program *p;
  sc_weights *w;
  bool ok;
  sc_ctx *ctx = read_archive(m, n, &p, &w, &ok);
  ck_assert(ok);
  ck_assert(memcmp(sc_weights_find(w, "l.weight")->data, weight, sizeof weight) == 0);
  sc_weights_free(w);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_pickled_payload) {
  char *config = strdup(weights_config);
  char *at = strstr(config, "\"use_pickle\": false");
  memcpy(at, "\"use_pickle\": true ", strlen("\"use_pickle\": true "));
  expect_failure(-1, 0, config, NULL, SC_DIAG_PT2_PICKLED);
  free(config);
}
END_TEST

START_TEST(test_truncated_and_junk_archives) {
  member m[8];
  size_t n = good_members(m, weights_config);
  char path[256];
  snprintf(path, sizeof path, "%s/model.pt2", dir);
  write_zip(path, m, n);
  size_t len;
  sc_ctx *tmp = sc_ctx_new();
  char *bytes = sc_file_read(tmp, path, &len);
  sc_ctx_free(tmp);
  ck_assert_ptr_nonnull(bytes);
  char cut[256];
  snprintf(cut, sizeof cut, "%s/cut.pt2", dir);
  for (size_t keep = 4; keep < len; keep += len / 23 + 1) {
    FILE *f = fopen(cut, "wb");
    fwrite(bytes, 1, keep, f);
    fclose(f);
    sc_ctx *ctx = sc_ctx_new();
    sc_program *p;
    sc_weights *w;
    ck_assert(!sc_pt2_read(ctx, cut, &p, &w));
    ck_assert_int_gt(ctx->diags.n_errors, 0);
    sc_ctx_free(ctx);
  }
  /* one flipped byte inside a stored weight payload: only the checksum can catch it */
  char *at = memmem(bytes, len, weight, sizeof weight);
  ck_assert_ptr_nonnull(at);
  at[7] ^= 0x01;
  FILE *f = fopen(cut, "wb");
  fwrite(bytes, 1, len, f);
  fclose(f);
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p;
  sc_weights *w;
  ck_assert(!sc_pt2_read(ctx, cut, &p, &w));
  tu_assert_diag(ctx, SC_DIAG_PT2_CORRUPT, "archive/data/weights/weight_0");
  sc_ctx_free(ctx);
  free(bytes);
}
END_TEST

/* Found by fuzz_pt2: a member that declares 4 GiB behind a few stored bytes was allocated
 * in full before it was read; its size is now checked against its compressed bytes. */
START_TEST(test_member_size_must_fit_its_bytes) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = NULL;
  sc_weights *w = NULL;
  ck_assert(!sc_pt2_read(ctx, SHAPEC_SOURCE_DIR "/test/fuzz/regressions/pt2/zip-member-declares-4GiB", &p, &w));
  tu_assert_diag(ctx, SC_DIAG_PT2_CORRUPT, NULL);
  ck_assert_ptr_nonnull(strstr(ctx->diags.items[0].message, "implausible size"));
  sc_ctx_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pt2");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_reads_archive);
  tcase_add_test(tc, test_member_size_must_fit_its_bytes);
  tcase_add_test(tc, test_strided_payload_is_made_contiguous);
  tcase_add_test(tc, test_missing_model);
  tcase_add_test(tc, test_missing_payload);
  tcase_add_test(tc, test_missing_format);
  tcase_add_test(tc, test_wrong_format);
  tcase_add_test(tc, test_short_payload);
  tcase_add_test(tc, test_pickled_payload);
  tcase_add_test(tc, test_pickled_payload_without_meta);
  tcase_add_test(tc, test_payload_without_strides_is_contiguous);
  tcase_add_test(tc, test_truncated_and_junk_archives);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
