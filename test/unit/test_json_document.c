/* test_json_document.c - the skeleton-plus-members reading of big programs
 * (lib/frontend/json_document.c) gives the same trees and the same errors, at the same
 * line and column, as one whole parse; and what it gives back (file pages, old hash
 * tables) is really no longer needed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/fileio.h"
#include "lib/frontend/json_document.h"
#include "test_util.h"

static const char *const big[] = {"graph_module.graph.tensor_values", "graph_module.graph.nodes", NULL};

/* The whole tree equals the skeleton with every deferred member put back in its place. */
static void assert_same_as_whole(const char *name, const char *text, size_t len) {
  sc_ctx *ctx = sc_ctx_new();
  cJSON *whole = sc_json_parse(ctx, name, text, len);
  ck_assert_msg(whole != NULL, "%s: whole parse failed", name);
  sc_json_document doc;
  ck_assert(sc_json_document_parse(&doc, ctx, name, text, len, NULL, big));
  cJSON *rebuilt = cJSON_Duplicate(doc.root, true);
  int n_deferred = 0;
  for (size_t c = 0; c < doc.n_containers; c++) {
    if (!doc.containers[c].deferred) continue;
    n_deferred++;
    cJSON *graph = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rebuilt, "graph_module"), "graph");
    cJSON *container = cJSON_GetObjectItemCaseSensitive(graph, c == 0 ? "tensor_values" : "nodes");
    ck_assert_int_eq(cJSON_GetArraySize(container), 0);
    for (size_t i = 0; i < doc.containers[c].n_members; i++) {
      cJSON *m = sc_json_document_member(&doc, &doc.containers[c], i);
      ck_assert_ptr_nonnull(m);
      if (cJSON_IsObject(container)) {
        ck_assert_ptr_nonnull(m->string);
        char *key = m->string;
        m->string = NULL;
        cJSON_AddItemToObject(container, key, m);
        free(key);
      } else {
        cJSON_AddItemToArray(container, m);
      }
    }
  }
  ck_assert_msg(n_deferred == 2, "%s: %d containers deferred", name, n_deferred);
  ck_assert_msg(cJSON_Compare(whole, rebuilt, true), "%s: rebuilt tree differs from the whole parse", name);
  ck_assert_int_eq(ctx->diags.n_errors, 0);
  cJSON_Delete(rebuilt);
  cJSON_Delete(whole);
  sc_json_document_free(&doc);
  sc_ctx_free(ctx);
}

START_TEST(test_members_rebuild_every_golden_model) {
  char *dir_path = tu_source_path("test/golden/models");
  DIR *dir = opendir(dir_path);
  ck_assert_ptr_nonnull(dir);
  int n = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
    char rel[512], *text;
    size_t len;
    snprintf(rel, sizeof rel, "test/golden/models/%s", e->d_name);
    text = tu_read_source(rel, &len);
    assert_same_as_whole(e->d_name, text, len);
    free(text);
    n++;
  }
  closedir(dir);
  free(dir_path);
  ck_assert_int_ge(n, 10);
}
END_TEST

/* A small program with its nodes on lines of their own, so that positions are easy to
 * read: "%s" is replaced by the nodes' text. */
static char *program_with_nodes(const char *nodes, const char *values) {
  const char *fmt = "{\"schema_version\": {\"major\": 8, \"minor\": 13},\n"
                    " \"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [],\n"
                    "  \"nodes\": [\n%s],\n"
                    "  \"tensor_values\": {%s}, \"sym_int_values\": {}, \"sym_bool_values\": {}},\n"
                    " \"signature\": {\"input_specs\": [], \"output_specs\": []}}}\n";
  size_t n = strlen(fmt) + strlen(nodes) + strlen(values) + 1;
  char *out = malloc(n);
  snprintf(out, n, fmt, nodes, values);
  return out;
}

/* Reading text as a model gives exactly the diagnostics a whole parse gives: same code,
 * message, line and column. */
static void assert_same_error_as_whole(const char *text, bool expect_deferred) {
  sc_ctx *whole_ctx = sc_ctx_new(), *ctx = sc_ctx_new();
  cJSON *whole = sc_json_parse(whole_ctx, "m.json", text, strlen(text));
  ck_assert_ptr_null(whole);
  ck_assert_int_eq(whole_ctx->diags.n_errors, 1);
  const sc_diag *want = &whole_ctx->diags.items[0];

  sc_json_document doc;
  bool parsed = sc_json_document_parse(&doc, ctx, "m.json", text, strlen(text), NULL, big);
  if (parsed) { /* the structure was sound: the error is inside a member */
    ck_assert(expect_deferred);
    bool failed = false;
    for (size_t c = 0; c < doc.n_containers; c++)
      for (size_t i = 0; i < doc.containers[c].n_members; i++) {
        cJSON *m = sc_json_document_member(&doc, &doc.containers[c], i);
        failed |= m == NULL;
        cJSON_Delete(m);
      }
    ck_assert(failed);
    sc_json_document_free(&doc);
  } else {
    ck_assert(!expect_deferred);
  }
  ck_assert_int_eq(ctx->diags.n_errors, 1);
  const sc_diag *got = &ctx->diags.items[0];
  ck_assert_int_eq(got->code, want->code);
  ck_assert_str_eq(got->message, want->message);
  ck_assert_int_eq(got->line, want->line);
  ck_assert_int_eq(got->column, want->column);

  /* and the model reader reports the same */
  sc_ctx *model_ctx = sc_ctx_new();
  ck_assert_ptr_null(sc_model_read(model_ctx, "m.json", text, strlen(text)));
  ck_assert_int_ge(model_ctx->diags.n_errors, 1);
  bool seen = false;
  for (size_t i = 0; i < model_ctx->diags.n_items; i++) {
    const sc_diag *d = &model_ctx->diags.items[i];
    seen |= d->code == want->code && d->line == want->line && d->column == want->column;
  }
  ck_assert_msg(seen, "the model reader did not report the whole parse's error at %d:%d", want->line, want->column);
  sc_ctx_free(model_ctx);
  sc_ctx_free(whole_ctx);
  sc_ctx_free(ctx);
}

static const char *const node_ok = "{\"target\": \"torch.ops.aten.relu.default\", \"inputs\": [], \"outputs\": []}";

START_TEST(test_error_inside_a_member_at_the_documents_position) {
  char nodes[1024];
  /* the third node's value is bad: line 6 of the document */
  snprintf(nodes, sizeof nodes, "   %s,\n   %s,\n   {\"target\": tru},\n   %s\n", node_ok, node_ok, node_ok);
  char *text = program_with_nodes(nodes, "");
  assert_same_error_as_whole(text, true);
  free(text);
  /* a NaN (rewritten before cJSON sees it) before the error moves nothing */
  snprintf(nodes, sizeof nodes, "   {\"x\": NaN, \"y\": 12345678901234567890, \"target\": [1, 2,]}\n");
  text = program_with_nodes(nodes, "");
  assert_same_error_as_whole(text, true);
  free(text);
  /* in a tensor_values entry */
  text = program_with_nodes("", "\"x\": {\"dtype\": 7,\n \"sizes\": [1 2]}");
  assert_same_error_as_whole(text, true);
  free(text);
}
END_TEST

START_TEST(test_unsound_structure_parses_whole) {
  /* missing comma between nodes, trailing comma, bad separator in tensor_values, a
   * truncated file, unbalanced brackets: the whole parse's message and position */
  char nodes[1024];
  snprintf(nodes, sizeof nodes, "   %s\n   %s\n", node_ok, node_ok);
  char *text = program_with_nodes(nodes, "");
  assert_same_error_as_whole(text, false);
  free(text);
  snprintf(nodes, sizeof nodes, "   %s,\n", node_ok);
  text = program_with_nodes(nodes, "");
  assert_same_error_as_whole(text, false);
  free(text);
  text = program_with_nodes("", "\"x\" {}");
  assert_same_error_as_whole(text, false);
  free(text);
  snprintf(nodes, sizeof nodes, "   %s,\n   %s\n", node_ok, node_ok);
  text = program_with_nodes(nodes, "");
  text[strlen(text) / 2 + 40] = '\0';
  assert_same_error_as_whole(text, false);
  free(text);
  snprintf(nodes, sizeof nodes, "   %s],\n   [%s\n", node_ok, node_ok);
  text = program_with_nodes(nodes, "");
  assert_same_error_as_whole(text, false);
  free(text);
}
END_TEST

START_TEST(test_escaped_key_and_wrong_types_read_as_before) {
  /* an escaped tensor name is decoded (by the whole parse it falls back to) */
  char *text = program_with_nodes("", "\"\\u0078\": {\"dtype\": 7, \"sizes\": [], \"requires_grad\": false, "
                                       "\"device\": {\"type\": \"cpu\"}, \"layout\": 7}");
  sc_ctx *ctx = sc_ctx_new();
  sc_json_document doc;
  ck_assert(sc_json_document_parse(&doc, ctx, "m.json", text, strlen(text), NULL, big));
  ck_assert(!doc.containers[0].deferred);
  ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc.root, "graph_module"), "graph"),
      "tensor_values")->child);
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
                       doc.root, "graph_module"), "graph"), "tensor_values")->child->string, "x");
  sc_json_document_free(&doc);
  sc_ctx_free(ctx);
  free(text);

  /* nodes written as an object: still deferred, and still the wrong type */
  const char *obj = "{\"schema_version\": {\"major\": 8, \"minor\": 13}, \"graph_module\": {\"graph\": {\"inputs\": [],"
                    " \"outputs\": [], \"nodes\": {\"a\": 1}, \"tensor_values\": {}, \"sym_int_values\": {},"
                    " \"sym_bool_values\": {}}, \"signature\": {\"input_specs\": [], \"output_specs\": []}}}";
  ctx = sc_ctx_new();
  ck_assert_ptr_null(sc_model_read(ctx, "m.json", obj, strlen(obj)));
  tu_assert_diag(ctx, SC_DIAG_WRONG_TYPE, "graph_module.graph.nodes");
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_forgotten_pages_read_again) {
  /* a mapped file whose pages were given back reads the same when they are read again */
  char path[1100];
  sc_temp_template(path, sizeof path, "shapec-jdoc"); /* under TMPDIR, as the tools write */
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  size_t len = 3 * 4096 * 10 + 17;
  char *want = malloc(len);
  for (size_t i = 0; i < len; i++) want[i] = (char)('a' + (i * 7919) % 26);
  ck_assert_int_eq(write(fd, want, len), (ssize_t)len);
  close(fd);
  sc_ctx *ctx = sc_ctx_new();
  sc_file_view view;
  ck_assert(sc_file_view_open(ctx, path, &view));
  ck_assert(view.mapped);
  ck_assert_int_eq(view.len, len);
  ck_assert(memcmp(view.data, want, len) == 0);
  sc_file_view_forget(&view, 100, len - 100);
  ck_assert(memcmp(view.data, want, len) == 0);
  sc_file_view_close(&view);
  unlink(path);
  free(want);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_grown_maps_keep_every_entry) {
  /* a map grows through many tables, each old one given back to the arena */
  sc_ctx *ctx = sc_ctx_new();
  sc_strmap map;
  sc_strmap_init(&map, &ctx->arena);
  enum { N = 200000 };
  for (int i = 0; i < N; i++) {
    char key[32];
    snprintf(key, sizeof key, "v%d", i);
    ck_assert(sc_strmap_put(&map, sc_ctx_intern(ctx, key), (void *)(intptr_t)(i + 1)));
  }
  for (int i = 0; i < N; i++) {
    char key[32];
    snprintf(key, sizeof key, "v%d", i);
    ck_assert_int_eq((intptr_t)sc_strmap_get(&map, key), i + 1);
  }
  sc_strmap_release(&map);
  ck_assert_ptr_null(sc_strmap_get(&map, "v1"));
  sc_ctx_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("json_document");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_members_rebuild_every_golden_model);
  tcase_add_test(tc, test_error_inside_a_member_at_the_documents_position);
  tcase_add_test(tc, test_unsound_structure_parses_whole);
  tcase_add_test(tc, test_escaped_key_and_wrong_types_read_as_before);
  tcase_add_test(tc, test_forgotten_pages_read_again);
  tcase_add_test(tc, test_grown_maps_keep_every_entry);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
