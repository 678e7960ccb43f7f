/* strided.c - strided views of flat storages; see strided.h. */
#include "strided.h"

#include <string.h>

#include "lib/base/budget.h"

void sc_strided_set_contiguous(sc_strided *s) {
  int64_t step = 1;
  for (int i = s->rank - 1; i >= 0; i--) {
    s->strides[i] = step;
    if (s->sizes[i] > 0 && step <= INT64_MAX / s->sizes[i]) step *= s->sizes[i];
  }
}

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out) {
  if (a && b > UINT64_MAX / a) return false;
  *out = a * b;
  return true;
}

/* Elements of the view, or false on overflow. */
static bool numel(const sc_strided *s, uint64_t *n) {
  *n = 1;
  for (int i = 0; i < s->rank; i++)
    if (!mul_ok(*n, (uint64_t)s->sizes[i], n)) return false;
  return true;
}

bool sc_strided_check(const sc_strided *s, const char **why) {
  size_t esize = sc_dtype_size(s->dtype);
  if (!esize) return *why = "its dtype has no element size", false;
  if (s->rank < 0 || s->rank > SC_STRIDED_MAX_RANK) return *why = "its rank is out of range", false;
  if (s->offset < 0) return *why = "its storage offset is negative", false;
  uint64_t count;
  for (int i = 0; i < s->rank; i++) {
    if (s->sizes[i] < 0) return *why = "a size is negative", false;
    if (s->strides[i] < 0) return *why = "a stride is negative", false;
  }
  if (!numel(s, &count)) return *why = "its element count overflows", false;
  if (count == 0) return true; /* an empty tensor reads nothing, whatever its storage */
  /* the last element's index: offset + sum (size - 1) * stride, all without overflow */
  uint64_t last = (uint64_t)s->offset, term, bytes;
  for (int i = 0; i < s->rank; i++) {
    if (!mul_ok((uint64_t)(s->sizes[i] - 1), (uint64_t)s->strides[i], &term) || last > UINT64_MAX - term)
      return *why = "its extent overflows", false;
    last += term;
  }
  if (last == UINT64_MAX || !mul_ok(last + 1, esize, &bytes)) return *why = "its extent overflows", false;
  if (bytes > s->storage_len) return *why = "it reaches past the end of its storage", false;
  /* a stride-0 view can claim far more elements than its storage holds: bounded */
  if (!mul_ok(count, esize, &bytes) || bytes > SC_STRIDED_MAX_BYTES) return *why = "it is larger than 64 GiB", false;
  return true;
}

/* Copies the view's elements in row-major order: the trailing dimensions that are laid out
 * contiguously (all of them for a plain tensor) in one run per outer index. */
static void gather(const sc_strided *s, unsigned char *out) {
  size_t esize = sc_dtype_size(s->dtype);
  uint64_t n;
  numel(s, &n);
  if (n == 0) return;
  int inner = s->rank; /* dims [inner, rank) form one contiguous run of `run` elements */
  uint64_t run = 1;
  while (inner > 0 && (s->sizes[inner - 1] == 1 || s->strides[inner - 1] == (int64_t)run)) run *= (uint64_t)s->sizes[--inner];
  int64_t idx[SC_STRIDED_MAX_RANK] = {0};
  for (uint64_t k = 0; k < n; k += run) {
    int64_t off = s->offset;
    for (int i = 0; i < inner; i++) off += idx[i] * s->strides[i];
    memcpy(out + k * esize, s->storage + (size_t)off * esize, (size_t)run * esize);
    for (int i = inner - 1; i >= 0; i--) {
      if (++idx[i] < s->sizes[i]) break;
      idx[i] = 0;
    }
  }
}

/* Each weight starts on a boundary of the widest scalar, so that its elements can be read
 * in place (malloc's blocks are aligned to it). */
enum { WEIGHT_ALIGN = 16 };

sc_weights *sc_strided_to_weights(sc_ctx *ctx, const char *file, const sc_strided *views, size_t n) {
  uint64_t total = 0;
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    const char *why = NULL;
    uint64_t count = 0;
    if (!sc_strided_check(&views[i], &why) || !numel(&views[i], &count) ||
        total + count * sc_dtype_size(views[i].dtype) > SC_STRIDED_MAX_BYTES) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_PT2_PAYLOAD_SIZE, SC_SEV_ERROR, file, views[i].name,
                                "the stored tensor '%s' (%zu bytes of storage) does not fit its view: %s",
                                views[i].name, views[i].storage_len, why ? why : "the weights together are larger than 64 GiB");
      sc_diag_set_hint(&ctx->diags, d, "the file is truncated or damaged; save the model again");
      ok = false;
      continue;
    }
    total += (count * sc_dtype_size(views[i].dtype) + WEIGHT_ALIGN - 1) / WEIGHT_ALIGN * WEIGHT_ALIGN;
  }
  if (!ok) return NULL;
  if (ctx->budget && !sc_budget_charge(ctx->budget, total + 1)) { /* stride-0 and overlapping views unpack to more */
    sc_arena *a = &ctx->arena;
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_PT2_PAYLOAD_SIZE, SC_SEV_ERROR, file, NULL,
                              "the %zu stored tensors unpack to %s: more than reading this file may take, %s", n,
                              sc_budget_bytes(a, total), sc_budget_describe(a, ctx->budget));
    sc_diag_set_hint(&ctx->diags, d, "%s", sc_budget_hint(a, ctx->budget, total + 1));
    return NULL;
  }
  sc_weights *w = sc_arena_alloc(&ctx->arena, sizeof *w);
  w->file = file;
  w->buffer = sc_xmalloc((size_t)total + 1);
  w->size = (size_t)total;
  w->items = sc_arena_alloc(&ctx->arena, (n ? n : 1) * sizeof *w->items);
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    const sc_strided *s = &views[i];
    sc_weight *wt = &w->items[w->n_items++];
    wt->name = s->name;
    wt->dtype = s->dtype;
    wt->rank = s->rank;
    wt->shape = sc_arena_alloc(&ctx->arena, (size_t)(s->rank ? s->rank : 1) * sizeof *wt->shape);
    uint64_t count;
    numel(s, &count);
    for (int k = 0; k < s->rank; k++) wt->shape[k] = s->sizes[k];
    wt->nbytes = (size_t)count * sc_dtype_size(s->dtype);
    wt->data = w->buffer + at;
    if (wt->nbytes) gather(s, w->buffer + at);
    at += (wt->nbytes + WEIGHT_ALIGN - 1) / WEIGHT_ALIGN * WEIGHT_ALIGN;
  }
  sc_weights_index(w, &ctx->arena);
  return w;
}
