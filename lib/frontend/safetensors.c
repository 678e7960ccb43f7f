/* safetensors.c - safetensors reader; see safetensors.h.
 *
 * Layout: an 8-byte little-endian header length N, N bytes of JSON mapping tensor names
 * to {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the byte after
 * the header), optional "__metadata__", then the raw data. */
#include "safetensors.h"

#include <stdlib.h>
#include <string.h>

#include "json_reader.h"
#include "lib/base/fileio.h"

static bool read_entry(sc_jr *jr, const cJSON *e, sc_weight *w, const unsigned char *data, size_t data_size) {
  const char *dt = NULL;
  if (!sc_jr_expect_object(jr, e) || !sc_jr_string_field(jr, e, "dtype", true, &dt)) return false;
  w->dtype = sc_dtype_from_safetensors(dt);
  if (w->dtype == SC_DTYPE_UNKNOWN) {
    size_t saved = sc_jr_push_key(jr, "dtype");
    sc_jr_error(jr, SC_DIAG_WEIGHTS_FORMAT, "unknown safetensors dtype \"%s\"", dt);
    sc_jr_pop(jr, saved);
    return false;
  }
  const cJSON *shape = sc_jr_array_field(jr, e, "shape", true);
  const cJSON *offs = sc_jr_array_field(jr, e, "data_offsets", true);
  if (!shape || !offs) return false;
  size_t saved = sc_jr_push_key(jr, "shape");
  w->rank = cJSON_GetArraySize(shape);
  w->shape = sc_arena_alloc(&jr->ctx->arena, (size_t)(w->rank ? w->rank : 1) * sizeof *w->shape);
  int i = 0;
  bool ok = true;
  uint64_t numel = 1;
  for (const cJSON *d = shape->child; d; d = d->next, i++) {
    size_t s2 = sc_jr_push_index(jr, (size_t)i);
    if (sc_jr_as_int(jr, d, &w->shape[i]) && w->shape[i] >= 0) {
      if (__builtin_mul_overflow(numel, (uint64_t)w->shape[i], &numel)) {
        sc_jr_error(jr, SC_DIAG_WEIGHTS_FORMAT, "shape overflows");
        ok = false;
      }
    } else {
      if (ok && w->shape[i] < 0) sc_jr_error(jr, SC_DIAG_WEIGHTS_FORMAT, "negative dimension");
      ok = false;
    }
    sc_jr_pop(jr, s2);
  }
  sc_jr_pop(jr, saved);
  if (!ok) return false;
  saved = sc_jr_push_key(jr, "data_offsets");
  int64_t begin = -1, end = -1;
  if (cJSON_GetArraySize(offs) != 2 || !sc_jr_as_int(jr, offs->child, &begin) ||
      !sc_jr_as_int(jr, offs->child->next, &end)) {
    if (cJSON_GetArraySize(offs) != 2) sc_jr_error(jr, SC_DIAG_WEIGHTS_FORMAT, "data_offsets must be [begin, end]");
    sc_jr_pop(jr, saved);
    return false;
  }
  uint64_t want;
  if (begin < 0 || end < begin || (uint64_t)end > data_size) {
    sc_jr_error(jr, SC_DIAG_WEIGHTS_FORMAT, "data_offsets [%lld, %lld] lie outside the %zu data bytes (truncated file?)",
                (long long)begin, (long long)end, data_size);
    ok = false;
  } else if (__builtin_mul_overflow(numel, (uint64_t)sc_dtype_size(w->dtype), &want) || want != (uint64_t)(end - begin)) {
    sc_jr_error(jr, SC_DIAG_WEIGHTS_FORMAT, "%lld data bytes for a %s tensor of %llu elements",
                (long long)(end - begin), sc_dtype_name(w->dtype), (unsigned long long)numel);
    ok = false;
  }
  sc_jr_pop(jr, saved);
  if (!ok) return false;
  w->data = data + begin;
  w->nbytes = (size_t)(end - begin);
  return true;
}

sc_weights *sc_weights_read(sc_ctx *ctx, const char *file, unsigned char *buffer, size_t size) {
  sc_weights *w = sc_arena_alloc(&ctx->arena, sizeof *w);
  w->file = sc_arena_strdup(&ctx->arena, file);
  w->buffer = buffer;
  w->size = size;
  uint64_t hlen = 0;
  if (size >= 8)
    for (int i = 7; i >= 0; i--) hlen = (hlen << 8) | buffer[i];
  if (size < 8 || hlen > size - 8 || hlen < 2) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_WEIGHTS_FORMAT, SC_SEV_ERROR, file, NULL,
                              size < 8 ? "not a safetensors file: shorter than its 8-byte header length"
                                       : "not a safetensors file: header length %llu does not fit in the %zu-byte file",
                              (unsigned long long)hlen, size);
    sc_diag_set_hint(&ctx->diags, d, "write weights with safetensors' save_file");
    return NULL;
  }
  cJSON *root = sc_json_parse(ctx, file, (const char *)buffer + 8, (size_t)hlen);
  if (!root) return NULL;
  sc_jr jr;
  sc_jr_init(&jr, ctx, file, NULL);
  bool ok = sc_jr_expect_object(&jr, root);
  if (ok) {
    w->items = sc_arena_alloc(&ctx->arena, (size_t)(cJSON_GetArraySize(root) + 1) * sizeof *w->items);
    for (const cJSON *e = root->child; e; e = e->next) {
      if (strcmp(e->string, "__metadata__") == 0) continue;
      size_t saved = sc_jr_push_key(&jr, e->string);
      sc_weight *item = &w->items[w->n_items];
      item->name = sc_ctx_intern(ctx, e->string);
      if (read_entry(&jr, e, item, buffer + 8 + hlen, size - 8 - (size_t)hlen)) w->n_items++;
      else ok = false;
      sc_jr_pop(&jr, saved);
    }
  }
  cJSON_Delete(root);
  if (ok) sc_weights_index(w, &ctx->arena);
  return ok ? w : NULL;
}

sc_weights *sc_weights_read_file(sc_ctx *ctx, const char *path) {
  size_t len;
  char *buf = sc_file_read(ctx, path, &len);
  if (!buf) return NULL;
  sc_weights *w = sc_weights_read(ctx, path, (unsigned char *)buf, len);
  if (!w) free(buf);
  return w;
}
