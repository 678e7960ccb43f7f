/* kron.c - the Kronecker product of a and b, both of rank `rank` (the lower-rank operand
 * padded with leading 1s): out[i * b_shape + j] = a[i] * b[j] in every dim.  outer(x, y)
 * is the rank-1 case, whose [n * m] result is laid out as the [n, m] one. */
#include <stdbool.h>

#include "backends/cpu/runtime/element_kind.h"
#include "backends/cpu/runtime/kernels.h"

void sc_k_kron(const void *a, const void *b, void *out, int32_t kind, int32_t rank, const int64_t *a_shape,
               const int64_t *b_shape) {
  int64_t a_n = 1, b_n = 1, out_stride[16];
  for (int32_t k = 0; k < rank; k++) a_n *= a_shape[k], b_n *= b_shape[k];
  if (!a_n || !b_n) return;
  int64_t s = 1;
  for (int32_t k = rank - 1; k >= 0; k--) out_stride[k] = s, s *= a_shape[k] * b_shape[k];
  int64_t size = sc_kind_size(kind);
  bool fl = sc_kind_is_float(kind);
  const char *as = a, *bs = b;
  char *os = out;
  int64_t ai[16] = {0};
  for (int64_t p = 0; p < a_n; p++) {
    int64_t base = 0; /* where a's element lands: its index times b's size in every dim */
    for (int32_t k = 0; k < rank; k++) base += ai[k] * b_shape[k] * out_stride[k];
    int64_t bi[16] = {0}, off = 0;
    for (int64_t q = 0; q < b_n; q++) {
      char *dst = os + (base + off) * size;
      if (fl) sc_kind_put_f(dst, kind, sc_kind_get_f(as + p * size, kind) * sc_kind_get_f(bs + q * size, kind));
      else if (kind == SC_KIND_U8) sc_kind_put_i(dst, kind, sc_kind_get_i(as + p * size, kind) * sc_kind_get_i(bs + q * size, kind));
      else sc_kind_put_i(dst, kind, (int64_t)((uint64_t)sc_kind_get_i(as + p * size, kind) * (uint64_t)sc_kind_get_i(bs + q * size, kind)));
      for (int32_t k = rank - 1; k >= 0; k--) { /* b's next element: its offset in out */
        off += out_stride[k];
        if (++bi[k] < b_shape[k]) break;
        off -= bi[k] * out_stride[k];
        bi[k] = 0;
      }
    }
    for (int32_t k = rank - 1; k >= 0; k--) {
      if (++ai[k] < a_shape[k]) break;
      ai[k] = 0;
    }
  }
}
