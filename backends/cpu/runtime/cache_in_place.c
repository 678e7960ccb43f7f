/* cache_in_place.c - whether a call's present cache is its past one, grown in place.
 *
 * A decoder whose KV cache is an input and an output (transformers' DynamicCache) computes
 * present = cat([past, new], dim).  A caller that keeps the cache in one buffer with room
 * to grow passes the past as a view of its first rows and the present as a view of the
 * first rows and the new ones: the same address and strides.  The old rows are then
 * already in place and only the new ones need writing (backends/llvm/cg_cache_append.c).
 * This decides it for one call, from the tensors the caller passed. */
#include <stdbool.h>
#include <stdint.h>

#include "kernels.h"

static int64_t element_bytes(const shapec_tensor *t) { return t->dtype.bits / 8 ? t->dtype.bits / 8 : 1; }

static const unsigned char *first_byte(const shapec_tensor *t) {
  return (const unsigned char *)t->data + t->byte_offset;
}

/* The bytes a tensor's elements reach, [*lo, *hi) from its first element's address, through
 * its strides (compact when it has none); false when it holds no element or the reach
 * overflows. */
static bool reach(const shapec_tensor *t, int64_t *lo, int64_t *hi) {
  int64_t below = 0, above = 0, compact = 1;
  for (int32_t i = t->ndim - 1; i >= 0; i--) {
    int64_t size = t->shape[i], stride = t->strides ? t->strides[i] : compact, step;
    if (size == 0) return false;
    if (__builtin_mul_overflow(size - 1, stride, &step)) return false;
    if (step < 0 ? __builtin_add_overflow(below, step, &below) : __builtin_add_overflow(above, step, &above)) return false;
    if (!t->strides && __builtin_mul_overflow(compact, size, &compact)) return false;
  }
  int64_t e = element_bytes(t);
  if (__builtin_mul_overflow(below, e, lo) || __builtin_mul_overflow(above + 1, e, hi)) return false;
  return true;
}

/* Whether the elements of a and b may share a byte (conservatively: true when unsure). */
static bool may_overlap(const shapec_tensor *a, const shapec_tensor *b) {
  int64_t alo, ahi, blo, bhi;
  bool ar = reach(a, &alo, &ahi), br = reach(b, &blo, &bhi);
  if (!a->data || !b->data) return false;
  if (!ar || !br) { /* no element in one of them, or a reach that overflows */
    int64_t n = 1;
    for (int32_t i = 0; i < a->ndim; i++) n *= a->shape[i];
    int64_t m = 1;
    for (int32_t i = 0; i < b->ndim; i++) m *= b->shape[i];
    return n && m;
  }
  intptr_t a0 = (intptr_t)first_byte(a), b0 = (intptr_t)first_byte(b);
  return a0 + alo < b0 + bhi && b0 + blo < a0 + ahi;
}

/* Stride of dim i: the given one, or the compact one. */
static int64_t stride_of(const shapec_tensor *t, int32_t i) {
  if (t->strides) return t->strides[i];
  int64_t s = 1;
  for (int32_t j = t->ndim - 1; j > i; j--) s *= t->shape[j];
  return s;
}

int32_t sc_rt_cache_in_place(const shapec_tensor *inputs, int64_t n_in, const shapec_tensor *outputs, int64_t n_out,
                             int64_t in, int64_t out, int64_t dim, const char *refusal, char *err, size_t errlen) {
  const shapec_tensor *past = &inputs[in], *present = &outputs[out];
  /* strides given: the generated code reads them (a compact present over a compact past,
   * possible when the dims before dim are ones, copies) */
  bool same = past->ndim == present->ndim && first_byte(past) == first_byte(present) && past->data && present->strides;
  for (int32_t i = 0; same && i < past->ndim; i++) {
    if (i != dim && past->shape[i] != present->shape[i]) same = false;
    /* a dim of one element is never stepped along: its stride does not matter */
    else if (present->shape[i] > 1 && stride_of(past, i) != stride_of(present, i)) same = false;
  }
  if (same && present->shape[dim] < past->shape[dim]) same = false;
  /* the present's elements apart from every other tensor of the call */
  for (int64_t k = 0; same && k < n_in; k++)
    if (k != in && may_overlap(present, &inputs[k])) same = false;
  for (int64_t k = 0; same && k < n_out; k++)
    if (k != out && may_overlap(present, &outputs[k])) same = false;
  if (same) return 1;
  /* otherwise the present is written compact, as every other output */
  if (!sc_rt_is_compact(present)) return -sc_rt_fail(err, errlen, "%s", refusal);
  return 0;
}
