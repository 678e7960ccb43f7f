/* cumulative.c - running products and extremes along the middle dim of [outer, n, inner]
 * (cumsum, the running sum, is reduce.c's). */
#include <math.h>
#include <stdbool.h>

#include "backends/cpu/runtime/element_kind.h"
#include "backends/cpu/runtime/kernels.h"

/* float32 multiplied in double, as ATen's CPU kernel accumulates */
void sc_k_cumprod_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      double acc = 1;
      for (int64_t i = 0; i < n; i++) {
        int64_t at = (o * n + i) * inner + j;
        acc *= x[at];
        y[at] = (float)acc;
      }
    }
}

/* integers and bools (kind SC_KIND_U8 .. SC_KIND_I64) into int64, wrapping as torch's do */
void sc_k_cumprod_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner) {
  int64_t size = sc_kind_size(kind);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      uint64_t acc = 1;
      for (int64_t i = 0; i < n; i++) {
        int64_t at = (o * n + i) * inner + j;
        acc *= (uint64_t)sc_kind_get_i((const char *)x + at * size, kind);
        y[at] = (int64_t)acc;
      }
    }
}

/* cummax / cummin (is_min): the running extreme and the index it was last seen at.  As
 * ATen: an element replaces the extreme when it is NaN, or when neither is NaN and it is
 * >= (<= for the minimum) the extreme, so ties take the later index and a NaN stays. */
void sc_k_cum_extreme(const void *x, void *values, int64_t *indices, int32_t kind, int32_t is_min, int64_t outer,
                      int64_t n, int64_t inner) {
  int64_t size = sc_kind_size(kind);
  bool fl = sc_kind_is_float(kind);
  const char *xs = x;
  char *vs = values;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      double best_f = 0;
      int64_t best_i = 0, where = 0;
      for (int64_t i = 0; i < n; i++) {
        int64_t at = (o * n + i) * inner + j;
        if (fl) {
          double v = sc_kind_get_f(xs + at * size, kind);
          if (i == 0 || isnan(v) || (!isnan(best_f) && (is_min ? v <= best_f : v >= best_f))) best_f = v, where = i;
          sc_kind_put_f(vs + at * size, kind, best_f);
        } else {
          int64_t v = sc_kind_get_i(xs + at * size, kind);
          if (i == 0 || (is_min ? v <= best_i : v >= best_i)) best_i = v, where = i;
          sc_kind_put_i(vs + at * size, kind, best_i);
        }
        indices[at] = where;
      }
    }
}
