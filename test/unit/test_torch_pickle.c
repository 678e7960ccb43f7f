/* test_torch_pickle.c - torch.save files written by real torch (test/real/fixtures) read
 * into exact values; globals outside the tensor-rebuild protocol refused by name; damaged
 * files refused cleanly; the archive layouts of torch 2.6, 2.8 and 2.14 from the corpus. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "lib/frontend/pt2_reader.h"
#include "lib/frontend/torch_pickle.h"
#include "test_util.h"

static const sc_strided *find(const sc_torch_tensors *t, const char *name) {
  for (size_t i = 0; i < t->n; i++)
    if (strcmp(t->views[i].name, name) == 0) return &t->views[i];
  return NULL;
}

/* The fixture's tensors as contiguous weights. */
static sc_weights *read_fixture(sc_ctx *ctx, const char *name, const char *lone, sc_torch_tensors *t) {
  size_t len;
  char path[256];
  snprintf(path, sizeof path, "test/real/fixtures/%s", name);
  char *bytes = tu_read_source(path, &len);
  memset(t, 0, sizeof *t);
  bool ok = sc_torch_save_read(ctx, name, (const unsigned char *)bytes, len, lone, t);
  free(bytes);
  return ok ? sc_strided_to_weights(ctx, name, t->views, t->n) : NULL;
}

START_TEST(test_state_dict_values) {
  sc_ctx *ctx = sc_ctx_new();
  sc_torch_tensors t;
  sc_weights *w = read_fixture(ctx, "state_dict.pt", NULL, &t);
  ck_assert_ptr_nonnull(w);
  ck_assert_uint_eq(w->n_items, 8);
  const sc_weight *a = sc_weights_find(w, "a"), *tr = sc_weights_find(w, "t"), *off = sc_weights_find(w, "off");
  ck_assert(a && a->dtype == SC_DTYPE_F32 && a->rank == 2 && a->shape[0] == 3 && a->shape[1] == 4);
  const float *af = (const float *)a->data, *tf = (const float *)tr->data, *of = (const float *)off->data;
  for (int i = 0; i < 12; i++) ck_assert(af[i] == (float)i);
  /* the transpose shares a's storage with strides (1, 4): read back as a [4, 3] matrix */
  ck_assert(find(&t, "t")->strides[0] == 1 && find(&t, "t")->strides[1] == 4);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 3; c++) ck_assert(tf[r * 3 + c] == (float)(c * 4 + r));
  ck_assert_int_eq(find(&t, "off")->offset, 2);
  for (int i = 0; i < 6; i++) ck_assert(of[i] == (float)(i + 2));
  const int64_t *iv = (const int64_t *)sc_weights_find(w, "i")->data;
  ck_assert(iv[0] == 1 && iv[1] == -2 && iv[2] == 3 && iv[3] == (int64_t)1 << 40);
  const sc_weight *b = sc_weights_find(w, "b");
  ck_assert(b->dtype == SC_DTYPE_BOOL && b->data[0] == 1 && b->data[1] == 0 && b->data[2] == 1);
  const double *dv = (const double *)sc_weights_find(w, "d")->data;
  ck_assert(dv[0] == 0.5 && dv[1] == -1.25);
  const float *pv = (const float *)sc_weights_find(w, "p")->data; /* a Parameter: its tensor */
  ck_assert(pv[0] == 7.0f && pv[1] == 8.0f);
  const sc_weight *e = sc_weights_find(w, "e");
  ck_assert(e->rank == 2 && e->shape[0] == 0 && e->shape[1] == 3 && e->nbytes == 0);
  sc_weights_free(w);
  sc_torch_tensors_free(&t);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_lone_tensor) {
  sc_ctx *ctx = sc_ctx_new();
  sc_torch_tensors t;
  sc_weights *w = read_fixture(ctx, "lone_tensor.pt", "l.weight", &t);
  ck_assert_ptr_nonnull(w);
  const sc_weight *x = sc_weights_find(w, "l.weight");
  ck_assert(x && x->rank == 2 && x->shape[0] == 1 && x->shape[1] == 2);
  ck_assert(((const float *)x->data)[1] == 2.5f);
  sc_weights_free(w);
  sc_torch_tensors_free(&t);
  /* a lone tensor where a state dict is expected */
  ck_assert_ptr_null(read_fixture(ctx, "lone_tensor.pt", NULL, &t));
  tu_assert_diag(ctx, SC_DIAG_PT2_PICKLED, NULL);
  sc_torch_tensors_free(&t);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_foreign_global_refused_by_name) {
  sc_ctx *ctx = sc_ctx_new();
  sc_torch_tensors t;
  ck_assert_ptr_null(read_fixture(ctx, "evil.pt", NULL, &t));
  const sc_diag *d = sc_diags_find(&ctx->diags, SC_DIAG_PT2_PICKLED);
  ck_assert_ptr_nonnull(d);
  ck_assert_ptr_nonnull(strstr(d->message, "__builtin__.eval"));
  ck_assert_ptr_nonnull(strstr(d->path, "data.pkl@"));
  sc_torch_tensors_free(&t);
  sc_ctx_free(ctx);
}
END_TEST

/* Every prefix and every single-byte change of a real torch.save file: an error or a
 * result, never a crash or a read out of bounds (the sanitizer run checks that). */
START_TEST(test_damaged_files_fail_cleanly) {
  size_t len;
  char *bytes = tu_read_source("test/real/fixtures/state_dict.pt", &len);
  for (size_t keep = 0; keep < len; keep += 7) {
    sc_ctx *ctx = sc_ctx_new();
    sc_torch_tensors t = {0};
    ck_assert(!sc_torch_save_read(ctx, "cut.pt", (const unsigned char *)bytes, keep, NULL, &t));
    ck_assert_int_gt(ctx->diags.n_errors, 0);
    sc_torch_tensors_free(&t);
    sc_ctx_free(ctx);
  }
  for (size_t at = 0; at < len; at++) {
    char *copy = malloc(len);
    memcpy(copy, bytes, len);
    copy[at] ^= (char)0x5a;
    sc_ctx *ctx = sc_ctx_new();
    sc_torch_tensors t = {0};
    if (sc_torch_save_read(ctx, "flip.pt", (const unsigned char *)copy, len, NULL, &t)) {
      sc_weights *w = sc_strided_to_weights(ctx, "flip.pt", t.views, t.n);
      if (w) sc_weights_free(w);
    } else {
      ck_assert_int_gt(ctx->diags.n_errors, 0);
    }
    sc_torch_tensors_free(&t);
    sc_ctx_free(ctx);
    free(copy);
  }
  free(bytes);
}
END_TEST

/* Views that do not fit their storage, each refused with SC0703 and no read outside it. */
START_TEST(test_views_outside_storage) {
  static const unsigned char storage[24];
  struct {
    int64_t size0, stride0, offset;
  } bad[] = {
      {7, 1, 0},                    /* one element past the end */
      {2, 1, -1},                   /* a negative offset */
      {2, -1, 2},                   /* a negative stride */
      {-1, 1, 0},                   /* a negative size */
      {INT64_MAX, INT64_MAX, 0},    /* the extent overflows */
      {(int64_t)1 << 40, 0, 0},     /* stride 0: 4 TiB claimed from 24 bytes */
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    sc_ctx *ctx = sc_ctx_new();
    sc_strided v = {.name = "w", .dtype = SC_DTYPE_F32, .rank = 1, .sizes = {bad[k].size0}, .strides = {bad[k].stride0},
                    .offset = bad[k].offset, .storage = storage, .storage_len = sizeof storage};
    ck_assert_msg(sc_strided_to_weights(ctx, "w.pt", &v, 1) == NULL, "case %zu accepted", k);
    tu_assert_diag(ctx, SC_DIAG_PT2_PAYLOAD_SIZE, "w");
    sc_ctx_free(ctx);
  }
  /* a stride-0 view that fits is read: the same element, repeated */
  sc_ctx *ctx = sc_ctx_new();
  float one = 1.5f;
  sc_strided v = {.name = "w", .dtype = SC_DTYPE_F32, .rank = 1, .sizes = {3}, .strides = {0},
                  .storage = (const unsigned char *)&one, .storage_len = sizeof one};
  sc_weights *w = sc_strided_to_weights(ctx, "w.pt", &v, 1);
  ck_assert(w && ((const float *)w->items[0].data)[2] == 1.5f);
  sc_weights_free(w);
  sc_ctx_free(ctx);
}
END_TEST

/* Views whose trailing dimensions are contiguous are read run by run: each shape here
 * must read back element for element as the index arithmetic says. */
START_TEST(test_views_read_in_runs) {
  float storage[96];
  for (int i = 0; i < 96; i++) storage[i] = (float)i;
  static const struct {
    int rank;
    int64_t sizes[4], strides[4], offset;
  } views[] = {
      {3, {2, 3, 4}, {24, 4, 1}, 5},         /* a slice of a larger tensor: runs of 12 */
      {3, {2, 3, 4}, {12, 4, 1}, 0},         /* contiguous: one run */
      {3, {2, 3, 4}, {24, 8, 1}, 1},         /* runs of 4 */
      {4, {2, 1, 3, 4}, {24, 99, 4, 1}, 0},  /* a size-1 dimension's stride does not matter */
      {3, {2, 3, 4}, {1, 2, 6}, 0},          /* no contiguous run: element by element */
      {2, {3, 0}, {1, 1}, 0},                /* empty */
  };
  for (size_t k = 0; k < sizeof views / sizeof *views; k++) {
    sc_ctx *ctx = sc_ctx_new();
    sc_strided v = {.name = "w", .dtype = SC_DTYPE_F32, .rank = views[k].rank, .offset = views[k].offset,
                    .storage = (const unsigned char *)storage, .storage_len = sizeof storage};
    memcpy(v.sizes, views[k].sizes, sizeof views[k].sizes);
    memcpy(v.strides, views[k].strides, sizeof views[k].strides);
    sc_weights *w = sc_strided_to_weights(ctx, "w.pt", &v, 1);
    ck_assert_msg(w != NULL, "view %zu refused", k);
    const float *got = (const float *)w->items[0].data;
    int64_t idx[4] = {0}, n = 1;
    for (int d = 0; d < v.rank; d++) n *= v.sizes[d];
    for (int64_t e = 0; e < n; e++) {
      int64_t off = v.offset;
      for (int d = 0; d < v.rank; d++) off += idx[d] * v.strides[d];
      ck_assert_msg(got[e] == storage[off], "view %zu, element %lld: %g, want %g", k, (long long)e, got[e], storage[off]);
      for (int d = v.rank - 1; d >= 0 && ++idx[d] == v.sizes[d]; d--) idx[d] = 0;
    }
    sc_weights_free(w);
    sc_ctx_free(ctx);
  }
}
END_TEST

static char dir[] = "/tmp/shapec-pickle-XXXXXX";

static sc_weights *read_archive(sc_ctx *ctx, const char *path, sc_program **p) {
  sc_weights *w = NULL;
  ck_assert_msg(sc_pt2_read(ctx, path, p, &w), "%s: %s", path, ctx->diags.n_items ? ctx->diags.items[0].message : "");
  return w;
}

START_TEST(test_legacy_archive_of_torch_2_6) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p;
  char *src = tu_source_path("test/real/corpus/2.6/zoo_mlp/model.pt2");
  sc_weights *w = read_archive(ctx, src, &p);
  ck_assert_ptr_nonnull(w);
  const sc_weight *w0 = sc_weights_find(w, "0.weight");
  ck_assert(w0 && w0->rank == 2 && w0->shape[0] == 64 && w0->shape[1] == 32);
  ck_assert(sc_weights_bind(ctx, w, p, true));
  sc_weights_free(w);
  free(src);
  sc_ctx_free(ctx);
}
END_TEST

/* Copies a zip's members into a new zip, renamed by rename(name) (NULL drops the member),
 * plus one extra member. */
static void rewrite_zip(const char *from, const char *to, const char *(*rename)(const char *), const char *extra_name,
                        const void *extra, size_t extra_len) {
  int err;
  zip_t *in = zip_open(from, ZIP_RDONLY, &err), *out = zip_open(to, ZIP_CREATE | ZIP_TRUNCATE, &err);
  ck_assert(in && out);
  void **keep = calloc((size_t)zip_get_num_entries(in, 0) + 1, sizeof *keep);
  for (zip_int64_t i = 0; i < zip_get_num_entries(in, 0); i++) {
    const char *name = zip_get_name(in, (zip_uint64_t)i, 0), *new_name = rename(name);
    if (!new_name) continue;
    zip_stat_t st;
    zip_stat_index(in, (zip_uint64_t)i, 0, &st);
    zip_file_t *f = zip_fopen_index(in, (zip_uint64_t)i, 0);
    keep[i] = malloc(st.size + 1);
    ck_assert_int_eq(zip_fread(f, keep[i], st.size), (zip_int64_t)st.size);
    zip_fclose(f);
    ck_assert_int_ge(zip_file_add(out, new_name, zip_source_buffer(out, keep[i], st.size, 0), ZIP_FL_OVERWRITE), 0);
  }
  if (extra_name) ck_assert_int_ge(zip_file_add(out, extra_name, zip_source_buffer(out, extra, extra_len, 0), 0), 0);
  ck_assert_int_eq(zip_close(out), 0);
  for (zip_int64_t i = 0; i < zip_get_num_entries(in, 0); i++) free(keep[i]);
  free(keep);
  zip_discard(in);
}

static const char *without_root(const char *name) { return strchr(name, '/') + 1; }

/* torch 2.8's layout: the state dict as one torch.save file instead of payloads */
static const char *without_payloads(const char *name) { return strstr(name, "/data/weights/") ? NULL : name; }

START_TEST(test_archive_without_root_folder) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p;
  char *src = tu_source_path("test/real/corpus/2.14/zoo_mlp/model.pt2"), path[256];
  snprintf(path, sizeof path, "%s/flat.pt2", dir);
  rewrite_zip(src, path, without_root, NULL, NULL, 0);
  sc_weights *w = read_archive(ctx, path, &p);
  ck_assert_ptr_nonnull(sc_weights_find(w, "2.bias"));
  ck_assert(sc_weights_bind(ctx, w, p, true));
  sc_weights_free(w);
  free(src);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_archive_with_state_dict_file) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p;
  size_t len;
  char *sd = tu_read_source("test/real/fixtures/state_dict.pt", &len);
  char *src = tu_source_path("test/real/corpus/2.14/zoo_mlp/model.pt2"), path[256];
  snprintf(path, sizeof path, "%s/v28.pt2", dir);
  rewrite_zip(src, path, without_payloads, "model/data/weights/model.pt", sd, len);
  sc_weights *w = read_archive(ctx, path, &p);
  const sc_weight *a = sc_weights_find(w, "a");
  ck_assert(a && ((const float *)a->data)[11] == 11.0f);
  sc_weights_free(w);
  free(sd);
  free(src);
  sc_ctx_free(ctx);
}
END_TEST

static void setup(void) { ck_assert_ptr_nonnull(mkdtemp(dir)); }

static void teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
  strcpy(dir, "/tmp/shapec-pickle-XXXXXX");
}

int main(void) {
  Suite *s = suite_create("torch_pickle");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_state_dict_values);
  tcase_add_test(tc, test_lone_tensor);
  tcase_add_test(tc, test_foreign_global_refused_by_name);
  tcase_add_test(tc, test_damaged_files_fail_cleanly);
  tcase_add_test(tc, test_views_outside_storage);
  tcase_add_test(tc, test_views_read_in_runs);
  tcase_add_test(tc, test_legacy_archive_of_torch_2_6);
  tcase_add_test(tc, test_archive_without_root_folder);
  tcase_add_test(tc, test_archive_with_state_dict_file);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
