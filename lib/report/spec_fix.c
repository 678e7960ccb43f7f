/* spec_fix.c - corrected specs from suggested fixes; see spec_fix.h. */
#include "spec_fix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "ir/symexpr.h"
#include "lib/base/fileio.h"
#include "lib/frontend/json_reader.h"

/* Finds the item at a path such as dynamic_shapes.w[1] or dynamic_shapes[0].1. */
static cJSON *at_path(cJSON *root, const char *path) {
  cJSON *cur = root;
  const char *p = path;
  while (cur && *p) {
    if (*p == '[') {
      cur = cJSON_GetArrayItem(cur, atoi(p + 1));
      p = strchr(p, ']');
      if (!p) return NULL;
      p++;
    } else {
      if (*p == '.') p++;
      size_t n = strcspn(p, ".[");
      char key[256];
      if (n >= sizeof key) return NULL;
      memcpy(key, p, n);
      key[n] = '\0';
      cur = cJSON_GetObjectItemCaseSensitive(cur, key);
      p += n;
    }
  }
  return cur;
}

static void replace_item(cJSON *parent, cJSON *old, cJSON *fresh) { cJSON_ReplaceItemViaPointer(parent, old, fresh); }

/* Replaces the leaf at path (keeping its key); takes ownership of fresh. */
static void replace_leaf(cJSON *root, const char *path, cJSON *fresh) {
  cJSON *leaf = path ? at_path(root, path) : NULL;
  const char *bracket = path ? strrchr(path, '[') : NULL, *dot = path ? strrchr(path, '.') : NULL;
  const char *cut = bracket && (!dot || bracket > dot) ? bracket : dot;
  char parent_path[1024];
  snprintf(parent_path, sizeof parent_path, "%.*s", cut ? (int)(cut - path) : 0, path ? path : "");
  cJSON *parent = leaf && cut ? at_path(root, parent_path) : NULL;
  if (!parent) {
    cJSON_Delete(fresh);
    return;
  }
  if (leaf->string) fresh->string = strdup(leaf->string);
  replace_item(parent, leaf, fresh);
}

/* Rewrites every leaf of the form c*dim + e: by `value` (a number) when by_expr is NULL,
 * else by the expression dim := by_expr. */
static void rewrite_uses(sc_ctx *ctx, cJSON *node, const char *dim, const sc_expr *by_expr, int64_t value) {
  for (cJSON *c = node->child; c; c = c->next) {
    if (cJSON_IsArray(c) || cJSON_IsObject(c)) {
      rewrite_uses(ctx, c, dim, by_expr, value);
      continue;
    }
    if (!cJSON_IsString(c)) continue;
    const sc_expr *e = sc_expr_parse(ctx, c->valuestring, NULL, NULL);
    const char *names[2];
    if (!e || sc_expr_symbols(e, names, 2) != 1 || strcmp(names[0], dim) != 0) continue;
    const sc_expr *r = sc_expr_subst(ctx, e, dim, by_expr ? by_expr : sc_expr_int(ctx, value));
    cJSON *fresh;
    int64_t v;
    if (sc_expr_is_const(r, &v)) fresh = cJSON_CreateNumber((double)v);
    else fresh = cJSON_CreateString(sc_expr_to_string(ctx, r));
    if (c->string) fresh->string = strdup(c->string), fresh->type &= ~cJSON_StringIsConst;
    cJSON *next = c->next;
    replace_item(node, c, fresh);
    c = fresh;
    (void)next;
  }
}

static cJSON *dims_object(cJSON *root) {
  cJSON *dims = cJSON_GetObjectItemCaseSensitive(root, "dims");
  if (!cJSON_IsObject(dims)) {
    cJSON_DeleteItemFromObjectCaseSensitive(root, "dims");
    dims = cJSON_AddObjectToObject(root, "dims");
  }
  return dims;
}

static void set_range(cJSON *dim, int64_t min, bool has_max, int64_t max) {
  cJSON_DeleteItemFromObjectCaseSensitive(dim, "min");
  cJSON_DeleteItemFromObjectCaseSensitive(dim, "max");
  cJSON_AddNumberToObject(dim, "min", (double)min);
  if (has_max) cJSON_AddNumberToObject(dim, "max", (double)max);
  else cJSON_AddNullToObject(dim, "max");
}

static void apply_fix(sc_ctx *ctx, cJSON *root, const sc_fix *f) {
  cJSON *shapes = cJSON_GetObjectItemCaseSensitive(root, "dynamic_shapes");
  cJSON *dims = f->kind == SC_FIX_STATIC_LEAF || f->kind == SC_FIX_NONE ? NULL : dims_object(root);
  switch (f->kind) {
    case SC_FIX_NONE: return;
    case SC_FIX_STATIC_LEAF: replace_leaf(root, f->spec_path, cJSON_CreateNumber((double)f->value)); return;
    case SC_FIX_DIM_RANGE: {
      cJSON *d = cJSON_GetObjectItemCaseSensitive(dims, f->dim);
      if (!d) d = cJSON_AddObjectToObject(dims, f->dim);
      set_range(d, f->min, f->has_max, f->max);
      return;
    }
    case SC_FIX_DIM_VALUE:
      if (shapes) rewrite_uses(ctx, shapes, f->dim, NULL, f->value);
      cJSON_DeleteItemFromObjectCaseSensitive(dims, f->dim);
      return;
    case SC_FIX_DIM_RELATE: {
      const sc_expr *by = sc_expr_add(ctx, sc_expr_mul(ctx, sc_expr_int(ctx, f->a), sc_expr_sym(ctx, f->other)),
                                      sc_expr_int(ctx, f->b));
      if (shapes) rewrite_uses(ctx, shapes, f->dim, by, 0);
      cJSON_DeleteItemFromObjectCaseSensitive(dims, f->dim);
      if (!cJSON_GetObjectItemCaseSensitive(dims, f->other)) cJSON_AddObjectToObject(dims, f->other);
      return;
    }
    case SC_FIX_DIM_DIVISIBLE: {
      if (cJSON_GetObjectItemCaseSensitive(dims, f->other)) return; /* several guards asked for the one root */
      const sc_expr *by = sc_expr_mul(ctx, sc_expr_int(ctx, f->a), sc_expr_sym(ctx, f->other));
      if (shapes) rewrite_uses(ctx, shapes, f->dim, by, 0);
      cJSON_DeleteItemFromObjectCaseSensitive(dims, f->dim);
      cJSON *d = cJSON_AddObjectToObject(dims, f->other);
      set_range(d, f->min, f->has_max, f->max);
      return;
    }
  }
}

cJSON *sc_spec_fix(sc_ctx *ctx, const char *spec_path, const sc_violation *violations, size_t n) {
  cJSON *root;
  if (spec_path) {
    size_t len;
    char *text = sc_file_read(ctx, spec_path, &len);
    if (!text) return NULL;
    root = sc_json_parse(ctx, spec_path, text, len);
    free(text);
    if (!root) return NULL;
  } else {
    root = cJSON_CreateObject();
    cJSON_AddNullToObject(root, "dynamic_shapes");
  }
  sc_spec_fix_apply(ctx, root, violations, n);
  sc_spec_complete_dims(root);
  return root;
}

void sc_spec_fix_apply(sc_ctx *ctx, cJSON *root, const sc_violation *violations, size_t n) {
  for (size_t i = 0; i < n; i++) apply_fix(ctx, root, &violations[i].fix);
  sc_spec_complete_dims(root);
}

/* Adds to `out` every string leaf under node that mentions dim and is not dim itself. */
static void collect_derived(const cJSON *node, const char *dim, cJSON *out) {
  if (cJSON_IsString(node)) {
    const char *leaf = node->valuestring;
    if (strcmp(leaf, dim) == 0 || !sc_text_mentions_symbol(leaf, dim)) return;
    const cJSON *have;
    cJSON_ArrayForEach(have, out) if (strcmp(have->valuestring, leaf) == 0) return;
    cJSON_AddItemToArray(out, cJSON_CreateString(leaf));
    return;
  }
  const cJSON *child;
  cJSON_ArrayForEach(child, node) collect_derived(child, dim, out);
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void sc_spec_complete_dims(cJSON *root) {
  cJSON *dims = cJSON_GetObjectItemCaseSensitive(root, "dims");
  if (!dims && cJSON_IsObject(root)) dims = cJSON_AddObjectToObject(root, "dims"); /* torch requires it */
  const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(root, "dynamic_shapes");
  cJSON *d;
  cJSON_ArrayForEach(d, dims) {
    if (!cJSON_IsObject(d)) continue;
    cJSON *min = cJSON_DetachItemFromObjectCaseSensitive(d, "min");
    cJSON *max = cJSON_DetachItemFromObjectCaseSensitive(d, "max");
    cJSON_DeleteItemFromObjectCaseSensitive(d, "derived");
    cJSON *found = cJSON_CreateArray();
    if (shapes) collect_derived(shapes, d->string, found);
    int n = cJSON_GetArraySize(found), k = 0;
    const char **names = calloc((size_t)n + 1, sizeof *names);
    const cJSON *e;
    cJSON_ArrayForEach(e, found) names[k++] = e->valuestring;
    qsort(names, (size_t)n, sizeof *names, compare_strings);
    cJSON *derived = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(derived, cJSON_CreateString(names[i]));
    free(names);
    cJSON_Delete(found);
    /* torch's order: min, max, derived, after whatever else the entry holds; a Dim without a
     * min is written with 0, as torch writes it (its loader refuses a null min) */
    if (min && cJSON_IsNull(min)) {
      cJSON_Delete(min);
      min = NULL;
    }
    cJSON_AddItemToObject(d, "min", min ? min : cJSON_CreateNumber(0));
    cJSON_AddItemToObject(d, "max", max ? max : cJSON_CreateNull());
    cJSON_AddItemToObject(d, "derived", derived);
  }
}
