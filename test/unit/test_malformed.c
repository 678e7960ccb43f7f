/* test_malformed.c - hostile input never crashes, never leaks (run under ASan in CI),
 * always ends with an error recorded, and finishes well inside the test timeout. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/fileio.h"
#include "lib/frontend/safetensors.h"
#include "passes/verify_graph.h"
#include "test_util.h"

/* Reads text as a model; asserts the outcome is a program with no errors or NULL with
 * at least one error.  Returns whether it was accepted. */
static bool read_checked(const char *text, size_t len) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = sc_model_read(ctx, "m.json", text, len);
  if (p) sc_verify_graph(ctx, p);
  bool accepted = p && ctx->diags.n_errors == 0;
  ck_assert_msg(accepted || ctx->diags.n_errors > 0, "rejected without an error");
  for (size_t i = 0; i < ctx->diags.n_items; i++) {
    ck_assert_ptr_nonnull(ctx->diags.items[i].message);
    ck_assert_str_eq(ctx->diags.items[i].file, "m.json");
  }
  sc_ctx_free(ctx);
  return accepted;
}

static void expect_code(const char *text, size_t len, sc_diag_code code) {
  sc_ctx *ctx = sc_ctx_new();
  ck_assert_ptr_null(sc_model_read(ctx, "m.json", text, len));
  tu_assert_diag(ctx, code, NULL);
  sc_ctx_free(ctx);
}

START_TEST(test_empty_and_blank) {
  expect_code("", 0, SC_DIAG_FILE_EMPTY);
  expect_code(" \n\t ", 4, SC_DIAG_FILE_EMPTY);
}
END_TEST

START_TEST(test_truncated_everywhere) {
  size_t len;
  char *text = tu_read_source("examples/tutorial/model.json", &len);
  ck_assert(read_checked(text, len));
  for (size_t cut = 1; cut < len - 2; cut += 7) ck_assert(!read_checked(text, cut));
  free(text);
}
END_TEST

START_TEST(test_syntax_error_has_line_and_column) {
  sc_ctx *ctx = sc_ctx_new();
  const char *text = "{\n  \"a\": 1,\n  \"b\": ]\n}";
  const sc_diag *d;
  ck_assert_ptr_null(sc_model_read(ctx, "m.json", text, strlen(text)));
  d = sc_diags_find(&ctx->diags, SC_DIAG_JSON_SYNTAX);
  ck_assert_ptr_nonnull(d);
  ck_assert_int_eq(d->line, 3);
  ck_assert_int_eq(d->column, 8);
  sc_ctx_free(ctx);
  expect_code("{\"a\": 1} trailing", 17, SC_DIAG_JSON_SYNTAX);
  /* columns count the file as written, before NaN and long integers are rewritten */
  ctx = sc_ctx_new();
  text = "{\"a\": NaN, \"n\": 12345678901234567, \"b\": ,}";
  ck_assert_ptr_null(sc_model_read(ctx, "m.json", text, strlen(text)));
  d = sc_diags_find(&ctx->diags, SC_DIAG_JSON_SYNTAX);
  ck_assert_int_eq(d->line, 1);
  ck_assert_int_eq(d->column, 41);
  sc_ctx_free(ctx);
  /* a file cut short says so, and points at its end */
  ctx = sc_ctx_new();
  text = "{\"a\": 1,\n \"b\": [1, 2\n , 3";
  ck_assert_ptr_null(sc_model_read(ctx, "m.json", text, strlen(text)));
  d = sc_diags_find(&ctx->diags, SC_DIAG_JSON_SYNTAX);
  ck_assert_ptr_nonnull(strstr(d->message, "truncated"));
  ck_assert_int_eq(d->line, 3);
  ck_assert_int_eq(d->column, 5);
  sc_ctx_free(ctx);
}
END_TEST

/* Every value of the example replaced by values of other types, and every member
 * deleted, one at a time.  A route is the child index at each level. */
static const char *const replacements[] = {"99999999999999999999", "-1", "\"x\"", "null", "{}", "[]", "true", "[{}]"};

static cJSON *nth_child(cJSON *n, int i) {
  cJSON *c = n->child;
  while (i-- > 0 && c) c = c->next;
  return c;
}

/* Copies root, applies the edit at route (replacement JSON, or NULL to delete), reads it. */
static void read_edited(cJSON *root, const int *route, int depth, const char *replacement) {
  cJSON *copy = cJSON_Duplicate(root, 1);
  cJSON *parent = NULL, *target = copy;
  for (int k = 0; k <= depth; k++) {
    parent = target;
    target = nth_child(target, route[k]);
  }
  ck_assert_ptr_nonnull(target);
  if (!replacement) {
    cJSON_Delete(cJSON_DetachItemViaPointer(parent, target));
  } else if (cJSON_IsObject(parent)) {
    cJSON_ReplaceItemInObjectCaseSensitive(parent, target->string, cJSON_Parse(replacement));
  } else {
    cJSON_ReplaceItemInArray(parent, route[depth], cJSON_Parse(replacement));
  }
  char *text = cJSON_PrintUnformatted(copy);
  read_checked(text, strlen(text));
  free(text);
  cJSON_Delete(copy);
}

static void edit_all(cJSON *root, cJSON *node, int *route, int depth, bool delete_only, size_t *n_tried) {
  int i = 0;
  for (cJSON *c = node->child; c; c = c->next, i++) {
    route[depth] = i;
    if (delete_only) {
      read_edited(root, route, depth, NULL);
      (*n_tried)++;
    } else {
      for (size_t r = 0; r < sizeof replacements / sizeof replacements[0]; r++, (*n_tried)++)
        read_edited(root, route, depth, replacements[r]);
    }
    edit_all(root, c, route, depth + 1, delete_only, n_tried);
  }
}

START_TEST(test_every_value_with_every_wrong_type) {
  cJSON *root = tu_example_model();
  int route[64];
  size_t n = 0;
  edit_all(root, root, route, 0, false, &n);
  ck_assert_uint_gt(n, 1000);
  cJSON_Delete(root);
}
END_TEST

START_TEST(test_every_member_deleted) {
  cJSON *root = tu_example_model();
  int route[64];
  size_t n = 0;
  edit_all(root, root, route, 0, true, &n);
  ck_assert_uint_gt(n, 200);
  cJSON_Delete(root);
}
END_TEST

START_TEST(test_numbers_past_int64) {
  cJSON *root = tu_example_model();
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  char *at = strstr(text, "{\"as_int\":6}");
  ck_assert_ptr_nonnull(at);
  size_t len = strlen(text);
  char *big = malloc(len + 64);
  size_t head = (size_t)(at - text);
  memcpy(big, text, head);
  int n = sprintf(big + head, "{\"as_int\":99999999999999999999}");
  strcpy(big + head + n, at + strlen("{\"as_int\":6}"));
  expect_code(big, strlen(big), SC_DIAG_INT_RANGE);
  n = sprintf(big + head, "{\"as_int\":-9223372036854775809e3}");
  strcpy(big + head + n, at + strlen("{\"as_int\":6}"));
  expect_code(big, strlen(big), SC_DIAG_INT_RANGE);
  free(big);
  free(text);
}
END_TEST

START_TEST(test_nesting_10000_deep) {
  size_t depth = 10000;
  char *text = malloc(2 * depth + 1);
  memset(text, '[', depth);
  memset(text + depth, ']', depth);
  text[2 * depth] = '\0';
  sc_ctx *ctx = sc_ctx_new();
  ck_assert_ptr_null(sc_model_read(ctx, "m.json", text, 2 * depth));
  tu_assert_diag(ctx, SC_DIAG_JSON_TOO_DEEP, NULL);
  ck_assert_int_eq(ctx->diags.items[0].line, 1);
  sc_ctx_free(ctx);
  /* objects too, and inside a spec */
  for (size_t i = 0; i < depth; i++) text[i] = (i % 2) ? '[' : '{';
  ck_assert(!read_checked(text, depth));
  free(text);
}
END_TEST

START_TEST(test_binary_junk) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  size_t len = 1 << 16;
  char *junk = malloc(len);
  for (int round = 0; round < 20; round++) {
    for (size_t i = 0; i < len; i++) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      junk[i] = (char)(state >> 56);
    }
    if (round % 2) junk[0] = '{';
    ck_assert(!read_checked(junk, len));
  }
  free(junk);
}
END_TEST

START_TEST(test_50mb_of_valid_json) {
  /* the tutorial model with a 50 MB stack trace on one node */
  cJSON *root = tu_example_model();
  size_t big = 50u * 1000u * 1000u;
  char *s = malloc(big + 1);
  memset(s, 'a', big);
  s[big] = '\0';
  cJSON *meta = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
                                                            cJSON_GetObjectItem(root, "graph_module"), "graph"), "nodes"), 0),
                                    "metadata");
  cJSON_ReplaceItemInObject(meta, "stack_trace", cJSON_CreateString(s));
  free(s);
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  ck_assert_uint_gt(strlen(text), big);
  ck_assert(read_checked(text, strlen(text)));
  free(text);
}
END_TEST

START_TEST(test_large_graph) {
  /* 20,000 chained nodes: the reader must stay linear */
  cJSON *root = tu_example_model();
  cJSON *graph = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "graph_module"), "graph");
  cJSON *nodes = cJSON_GetObjectItem(graph, "nodes");
  cJSON *tv = cJSON_GetObjectItem(graph, "tensor_values");
  const char *prev = "add_1";
  char name[32], buf[512];
  for (int i = 0; i < 20000; i++) {
    snprintf(name, sizeof name, "neg_%d", i);
    snprintf(buf, sizeof buf,
             "{\"target\": \"torch.ops.aten.neg.default\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": "
             "{\"name\": \"%s\"}}}], \"outputs\": [{\"as_tensor\": {\"name\": \"%s\"}}], \"metadata\": {}}",
             prev, name);
    cJSON_AddItemToArray(nodes, cJSON_Parse(buf));
    cJSON_AddItemToObject(tv, name, cJSON_Parse("{\"dtype\": 7, \"sizes\": [{\"as_int\": 32}]}"));
    prev = cJSON_GetObjectItem(tv, name)->string;
  }
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  ck_assert(read_checked(text, strlen(text)));
  free(text);
}
END_TEST

START_TEST(test_spec_and_weights_junk) {
  size_t len;
  char *spec = tu_read_source("examples/tutorial/spec.json", &len);
  char *model = tu_read_source("examples/tutorial/model.json", NULL);
  for (size_t cut = 0; cut < len; cut += 3) {
    sc_ctx *ctx = sc_ctx_new();
    sc_program *p = sc_model_read(ctx, "m.json", model, strlen(model));
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_null(sc_spec_read(ctx, p, "s.json", spec, cut));
    ck_assert_int_gt(ctx->diags.n_errors, 0);
    sc_ctx_free(ctx);
  }
  free(model);
  free(spec);
  unsigned char *w = (unsigned char *)tu_read_source("examples/tutorial/model.safetensors", &len);
  for (size_t cut = 0; cut < len; cut++) {
    sc_ctx *ctx = sc_ctx_new();
    unsigned char *copy = malloc(cut + 1);
    memcpy(copy, w, cut);
    ck_assert_ptr_null(sc_weights_read(ctx, "w.safetensors", copy, cut));
    ck_assert_int_gt(ctx->diags.n_errors, 0);
    free(copy);
    sc_ctx_free(ctx);
  }
  free(w);
}
END_TEST

START_TEST(test_file_errors) {
  sc_ctx *ctx = sc_ctx_new();
  size_t len;
  ck_assert_ptr_null(sc_file_read(ctx, "/nonexistent/model.json", &len));
  tu_assert_diag(ctx, SC_DIAG_FILE_READ, NULL);
  ck_assert_str_eq(ctx->diags.items[0].file, "/nonexistent/model.json");
  ck_assert_int_eq(sc_diags_exit_class(&ctx->diags), SC_EXIT_IO);
  sc_ctx_free(ctx);

  /* a failed write leaves the previous file and no temporary behind */
  char dir[] = "/tmp/shapec-test-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char target[256], blocker[256];
  snprintf(target, sizeof target, "%s/report.json", dir);
  ctx = sc_ctx_new();
  ck_assert(sc_file_write_atomic(ctx, target, "old", 3));
  snprintf(blocker, sizeof blocker, "%s/sub", dir);
  ck_assert_int_eq(mkdir(blocker, 0755), 0);
  ck_assert(!sc_file_write_atomic(ctx, blocker, "new", 3)); /* rename onto a directory fails */
  tu_assert_diag(ctx, SC_DIAG_FILE_WRITE, NULL);
  ck_assert_int_eq(sc_diags_exit_class(&ctx->diags), SC_EXIT_IO);
  char *back = sc_file_read(ctx, target, &len);
  ck_assert_str_eq(back, "old");
  free(back);
  DIR *dh = opendir(dir);
  int entries = 0;
  for (struct dirent *e; (e = readdir(dh));) entries += e->d_name[0] != '.';
  closedir(dh);
  ck_assert_int_eq(entries, 2); /* report.json and sub, no temporary */
  unlink(target);
  rmdir(blocker);
  rmdir(dir);
  sc_ctx_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("malformed");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_empty_and_blank);
  tcase_add_test(tc, test_truncated_everywhere);
  tcase_add_test(tc, test_syntax_error_has_line_and_column);
  tcase_add_test(tc, test_every_value_with_every_wrong_type);
  tcase_add_test(tc, test_every_member_deleted);
  tcase_add_test(tc, test_numbers_past_int64);
  tcase_add_test(tc, test_nesting_10000_deep);
  tcase_add_test(tc, test_binary_junk);
  tcase_add_test(tc, test_50mb_of_valid_json);
  tcase_add_test(tc, test_large_graph);
  tcase_add_test(tc, test_spec_and_weights_junk);
  tcase_add_test(tc, test_file_errors);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
