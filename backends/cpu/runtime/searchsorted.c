/* searchsorted.c - bucketize and searchsorted: each value's place among sorted boundaries,
 * found by the same binary search torch runs (so NaN, which compares false, lands past the
 * end, and an unsorted sequence gives torch's answer too).  Boundaries and values are
 * compared in their common type: as int64 when both are integers, else as float32 or
 * float64 (an int64 value beside float32 boundaries is rounded to float32 first, as
 * torch's promotion does). */
#include <stdio.h>

#include "element_kind.h"
#include "kernels.h"

static double as_float(const char *p, int32_t kind, int32_t compare) {
  double v = sc_kind_is_float(kind) ? sc_kind_get_f(p, kind) : (double)sc_kind_get_i(p, kind);
  return compare == SC_SEARCH_AS_F32 ? (double)(float)v : v;
}

/* The first position whose boundary is >= v (right: > v), torch's loop. */
static int64_t place_of(const char *seq, int32_t seq_kind, const int64_t *sorter, int64_t m, const char *v,
                        int32_t val_kind, int32_t compare, int32_t right) {
  int64_t start = 0, end = m, es = sc_kind_size(seq_kind);
  if (compare == SC_SEARCH_AS_I64) {
    int64_t x = sc_kind_get_i(v, val_kind);
    while (start < end) {
      int64_t mid = start + ((end - start) >> 1);
      int64_t b = sc_kind_get_i(seq + (sorter ? sorter[mid] : mid) * es, seq_kind);
      if (right ? !(b > x) : !(b >= x)) start = mid + 1;
      else end = mid;
    }
    return start;
  }
  double x = as_float(v, val_kind, compare);
  while (start < end) {
    int64_t mid = start + ((end - start) >> 1);
    double b = as_float(seq + (sorter ? sorter[mid] : mid) * es, seq_kind, compare);
    if (right ? !(b > x) : !(b >= x)) start = mid + 1;
    else end = mid;
  }
  return start;
}

int sc_k_search_sorted(const void *seq, int32_t seq_kind, const int64_t *sorter, int64_t seq_rows, int64_t m,
                       const void *values, int32_t val_kind, int64_t rows, int64_t k, int32_t compare, int32_t right,
                       void *out, int32_t out_int32, const char *node, char *err, size_t errlen) {
  if (sorter) /* every sorter entry a position of its row, before anything is read through it */
    for (int64_t i = 0; i < seq_rows * m; i++)
      if (sorter[i] < 0 || sorter[i] >= m) {
        if (err && errlen)
          snprintf(err, errlen, "torch.searchsorted(): sorter index out of range: %lld in a row of %lld (%s)",
                   (long long)sorter[i], (long long)m, node);
        return SHAPEC_ERR_ARGUMENT;
      }
  int64_t es = sc_kind_size(seq_kind), vs = sc_kind_size(val_kind);
  for (int64_t r = 0; r < rows; r++) {
    int64_t row = seq_rows == 1 ? 0 : r;
    const char *s = (const char *)seq + row * m * es;
    const int64_t *so = sorter ? sorter + row * m : NULL;
    for (int64_t j = 0; j < k; j++) {
      int64_t at = r * k + j;
      int64_t p = place_of(s, seq_kind, so, m, (const char *)values + at * vs, val_kind, compare, right);
      if (out_int32) ((int32_t *)out)[at] = (int32_t)p;
      else ((int64_t *)out)[at] = p;
    }
  }
  return SHAPEC_OK;
}
