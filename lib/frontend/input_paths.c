/* input_paths.c - leaf names from a serialized pytree TreeSpec; see input_paths.h.
 *
 * The spec is [version, node], a node {"type": ..., "context": ..., "children_spec": [...]}:
 * a leaf has type null, a tuple or list numbers its children, a dict's context is a JSON
 * list of its keys.  The root is (args, kwargs). */
#include "input_paths.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "lib/base/strbuf.h"

typedef struct walk {
  sc_ctx *ctx;
  const char **names;
  size_t n, cap;
  bool ok;
} walk;

static void add_leaf(walk *w, const char *name) {
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 8;
    const char **grown = sc_arena_alloc(&w->ctx->arena, cap * sizeof *grown);
    if (w->n) memcpy(grown, w->names, w->n * sizeof *grown);
    w->names = grown;
    w->cap = cap;
  }
  w->names[w->n++] = sc_arena_strdup(&w->ctx->arena, name);
}

/* A key as pytree's keystr writes it: ['y'] for a str, [0] for an int or an index. */
static void key_text(sc_strbuf *sb, const cJSON *key) {
  if (cJSON_IsString(key)) sc_strbuf_printf(sb, "['%s']", key->valuestring);
  else if (cJSON_IsNumber(key)) sc_strbuf_printf(sb, "[%lld]", (long long)key->valuedouble);
}

static void visit(walk *w, const cJSON *node, const char *path, int depth) {
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(node, "type");
  const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children_spec");
  if (!w->ok || depth > 64 || !cJSON_IsArray(children)) {
    w->ok = false;
    return;
  }
  if (cJSON_IsNull(type)) {
    add_leaf(w, path);
    return;
  }
  if (!cJSON_IsString(type)) {
    w->ok = false;
    return;
  }
  const char *t = type->valuestring;
  bool seq = strcmp(t, "builtins.tuple") == 0 || strcmp(t, "builtins.list") == 0;
  bool map = strcmp(t, "builtins.dict") == 0 || strcmp(t, "collections.OrderedDict") == 0;
  cJSON *keys = NULL;
  if (map) {
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(node, "context");
    keys = cJSON_IsString(ctx) ? cJSON_Parse(ctx->valuestring) : NULL;
    if (!cJSON_IsArray(keys) || cJSON_GetArraySize(keys) != cJSON_GetArraySize(children)) {
      cJSON_Delete(keys);
      w->ok = false;
      return;
    }
  } else if (!seq) {
    w->ok = false; /* a namedtuple or a registered class: its keys are not written here */
    return;
  }
  const cJSON *key = keys ? keys->child : NULL;
  int i = 0;
  for (const cJSON *c = children->child; c; c = c->next, i++) {
    sc_strbuf sb = {0};
    sc_strbuf_append(&sb, path);
    if (key) key_text(&sb, key), key = key->next;
    else sc_strbuf_printf(&sb, "[%d]", i);
    visit(w, c, sc_strbuf_cstr(&sb), depth + 1);
    sc_strbuf_free(&sb);
  }
  cJSON_Delete(keys);
}

size_t sc_input_paths(sc_ctx *ctx, const char *in_spec, const char *const *arg_names, size_t n_args,
                      const char ***names) {
  cJSON *doc = in_spec ? cJSON_Parse(in_spec) : NULL;
  const cJSON *root = cJSON_IsArray(doc) && cJSON_GetArraySize(doc) == 2 ? cJSON_GetArrayItem(doc, 1) : NULL;
  const cJSON *parts = root ? cJSON_GetObjectItemCaseSensitive(root, "children_spec") : NULL;
  walk w = {.ctx = ctx, .ok = cJSON_IsArray(parts) && cJSON_GetArraySize(parts) == 2};
  if (w.ok) {
    /* the positional arguments by their names, then the keyword arguments by their keys */
    const cJSON *args = cJSON_GetArrayItem(parts, 0), *kwargs = cJSON_GetArrayItem(parts, 1);
    const cJSON *arg_list = cJSON_GetObjectItemCaseSensitive(args, "children_spec");
    w.ok = cJSON_IsArray(arg_list) && (size_t)cJSON_GetArraySize(arg_list) <= n_args;
    size_t i = 0;
    for (const cJSON *c = w.ok ? arg_list->child : NULL; c; c = c->next, i++) visit(&w, c, arg_names[i], 1);
    const cJSON *kw_children = cJSON_GetObjectItemCaseSensitive(kwargs, "children_spec");
    const cJSON *kw_ctx = cJSON_GetObjectItemCaseSensitive(kwargs, "context");
    cJSON *kw_keys = cJSON_IsString(kw_ctx) ? cJSON_Parse(kw_ctx->valuestring) : NULL;
    const cJSON *key = cJSON_IsArray(kw_keys) ? kw_keys->child : NULL;
    for (const cJSON *c = w.ok && cJSON_IsArray(kw_children) ? kw_children->child : NULL; c && w.ok; c = c->next) {
      if (!cJSON_IsString(key)) {
        w.ok = false;
        break;
      }
      visit(&w, c, key->valuestring, 1);
      key = key->next;
    }
    cJSON_Delete(kw_keys);
  }
  cJSON_Delete(doc);
  if (!w.ok) return 0;
  *names = w.names;
  return w.n;
}
