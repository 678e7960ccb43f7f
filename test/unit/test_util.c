/* test_util.c - see test_util.h. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/fileio.h"

char *tu_read_source(const char *relpath, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SHAPEC_SOURCE_DIR, relpath);
  sc_ctx *ctx = sc_ctx_new();
  size_t n = 0;
  char *text = sc_file_read(ctx, path, &n);
  ck_assert_msg(text != NULL, "cannot read fixture %s", path);
  sc_ctx_free(ctx);
  if (len) *len = n;
  return text;
}

char *tu_source_path(const char *relpath) {
  size_t n = strlen(SHAPEC_SOURCE_DIR) + strlen(relpath) + 2;
  char *path = malloc(n);
  snprintf(path, n, "%s/%s", SHAPEC_SOURCE_DIR, relpath);
  return path;
}

cJSON *tu_example_model(void) {
  char *text = tu_read_source("examples/tutorial/model.json", NULL);
  cJSON *root = cJSON_Parse(text);
  free(text);
  ck_assert_ptr_nonnull(root);
  return root;
}

/* Walks to the parent of the last path component; returns the parent and sets the key
 * or index of the last component. */
static cJSON *walk(cJSON *root, const char *path, char *key, int *index) {
  cJSON *cur = root, *parent = NULL;
  const char *p = path;
  *index = -1;
  key[0] = '\0';
  while (*p) {
    parent = cur;
    if (*p == '[') {
      int i = atoi(p + 1);
      *index = i;
      key[0] = '\0';
      cur = cJSON_GetArrayItem(parent, i);
      p = strchr(p, ']') + 1;
    } else {
      if (*p == '.') p++;
      size_t n = strcspn(p, ".[");
      memcpy(key, p, n);
      key[n] = '\0';
      *index = -1;
      cur = cJSON_GetObjectItemCaseSensitive(parent, key);
      p += n;
    }
    ck_assert_msg(cur != NULL || *p == '\0', "path %s does not exist", path);
  }
  return parent;
}

void tu_mutate(cJSON *root, const char *path, const char *json_value) {
  char key[256];
  int index;
  cJSON *parent = walk(root, path, key, &index);
  if (!json_value) {
    if (index >= 0) cJSON_DeleteItemFromArray(parent, index);
    else cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
    return;
  }
  cJSON *v = cJSON_Parse(json_value);
  ck_assert_msg(v != NULL, "bad JSON in test: %s", json_value);
  if (index >= 0) {
    ck_assert(cJSON_ReplaceItemInArray(parent, index, v));
  } else if (cJSON_GetObjectItemCaseSensitive(parent, key)) {
    ck_assert(cJSON_ReplaceItemInObjectCaseSensitive(parent, key, v));
  } else {
    cJSON_AddItemToObject(parent, key, v);
  }
}

sc_program *tu_read_model_tree(sc_ctx *ctx, cJSON *root) {
  char *text = cJSON_PrintUnformatted(root);
  sc_program *p = sc_model_read(ctx, "model.json", text, strlen(text));
  free(text);
  return p;
}

void tu_assert_diag(sc_ctx *ctx, sc_diag_code code, const char *path) {
  const sc_diag *d = NULL;
  for (size_t i = 0; i < ctx->diags.n_items && !d; i++)
    if (ctx->diags.items[i].code == code && ctx->diags.items[i].severity == SC_SEV_ERROR) d = &ctx->diags.items[i];
  if (!d) {
    fprintf(stderr, "expected SC%04d; got:\n", (int)code);
    for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  }
  ck_assert_msg(d != NULL, "expected error SC%04d", (int)code);
  if (path) ck_assert_msg(d->path && strcmp(d->path, path) == 0, "SC%04d: expected path %s, got %s", (int)code, path,
                          d->path ? d->path : "(none)");
}
