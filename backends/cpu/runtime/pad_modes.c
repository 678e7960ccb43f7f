/* pad_modes.c - padding that repeats the input instead of a constant: reflect (mirrored
 * about the edge element, which is not repeated), replicate (the edge element) and
 * circular (wrapped around).  Output element i of a padded dim reads input element
 * src(i - before); a negative `before` crops. */
#include <string.h>

#include "kernels.h"

static int64_t source_index(int64_t j, int64_t n, int32_t mode) {
  if (j >= 0 && j < n) return j;
  switch (mode) {
    case SC_PAD_REFLECT: /* torch requires pad < n, so one reflection lands inside */
      if (j < 0) j = -j;
      if (j >= n) j = 2 * (n - 1) - j;
      return j < 0 ? 0 : j >= n ? n - 1 : j;
    case SC_PAD_REPLICATE: return j < 0 ? 0 : n - 1;
    default: { /* circular */
      int64_t m = j % n;
      return m < 0 ? m + n : m;
    }
  }
}

void sc_k_pad_mode(const void *x, void *out, int32_t ndim, const int64_t *in_shape, const int64_t *out_shape,
                   const int64_t *before, int64_t esize, int32_t mode) {
  int64_t total = 1, in_st[16], st = 1;
  for (int32_t d = 0; d < ndim; d++) {
    total *= out_shape[d];
    if (out_shape[d] > 0 && in_shape[d] == 0) return; /* torch refuses it first (shape rule) */
  }
  if (total == 0 || ndim > 16) return;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    in_st[d] = st;
    st *= in_shape[d];
  }
  int64_t idx[16] = {0};
  int32_t last = ndim - 1;
  int64_t row = ndim ? out_shape[last] : 1;
  char *o = out;
  for (int64_t done = 0; done < total; done += row) {
    int64_t base = 0;
    for (int32_t d = 0; d < last; d++) base += source_index(idx[d] - before[d], in_shape[d], mode) * in_st[d];
    const char *src = (const char *)x + base * esize;
    if (ndim == 0) {
      memcpy(o, src, (size_t)esize);
      return;
    }
    for (int64_t i = 0; i < row; i++, o += esize)
      memcpy(o, src + source_index(i - before[last], in_shape[last], mode) * esize, (size_t)esize);
    for (int32_t d = last - 1; d >= 0; d--) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
}
